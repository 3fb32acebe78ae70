"""Accepting every strict majority at once (the command line's ``consensus --accept-majority``).

:func:`sense7_coder.project.reconcile.accept_majorities` reads the codings and writes every
decision in one transaction; with tens of thousands of units that takes seconds, so it runs on
the TaskRunner with its own connection, with progress and Cancel (cancelling before the
write keeps nothing). The command it returns -- every decision with what it replaced -- is
then put on the undo stack of the window's own project: one undo step, which Ctrl+Z here or
Edit ▸ Undo in the main window takes back through the GUI's connection (undo first checks
that every decision is still what the batch wrote).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from ...project import Project
from ...project.reconcile import MAJORITY_RATIONALE, Disagreement, accept_majorities
from ...project.selection import Selection
from ...project.undo import Command
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project

BUTTON_TEXT = "Accept every strict majority…"


@dataclass(frozen=True)
class OpenCounts:
    """Open (undecided) disagreements of the code chosen, and how many have a majority."""

    open: int
    with_majority: int


def open_counts(queue: Sequence[Disagreement], code: str | None) -> OpenCounts:
    mine = [d for d in queue if (code is None or d.code == code) and not d.decided]
    return OpenCounts(len(mine), sum(d.has_majority for d in mine))


def confirmation(counts: OpenCounts, scope: str, adjudicator: str) -> tuple[str, str]:
    """(question, details) of the confirmation; ``scope`` is 'every code' or a code's label."""
    if counts.open:
        first = (f"<b>{counts.with_majority}</b> of the {counts.open} open disagreements on "
                 f"{html.escape(scope)} have a strict majority (more than half of the coders gave "
                 "the same blind value). Record that value as the consensus of each?")
    else:
        first = (f"No disagreement on {html.escape(scope)} is open. Record the coders' shared "
                 "value as the consensus where they all agree?")
    rest = counts.open - counts.with_majority
    details = (
        (f"The {rest} without a majority stay open. " if rest else "")
        + "The majority counts the coders' <b>blind</b> values, as set before each turn was "
        "revealed to them (the command line's <tt>consensus --values final</tt> counts the "
        "values changed after the reveal). "
        + "Units where the coders all agree and nothing is decided yet get their shared value "
        "too; decisions already taken are kept. You decide as "
        f"<b>{html.escape(adjudicator)}</b>, rationale “{MAJORITY_RATIONALE}”.<br><br>"
        "It is <b>one undo step</b>: Ctrl+Z takes the whole batch back."
    )
    return first, details


def result_text(decisions: int, opened: int) -> str:
    """What a finished batch did: ``decisions`` written, ``opened`` of them open disagreements."""
    if not decisions:
        return "No undecided unit has a strict majority: nothing was recorded."
    s = "s" if decisions != 1 else ""
    return (f"Accepted the majority on {decisions} unit{s}: {opened} open "
            f"disagreement{'s' if opened != 1 else ''} and {decisions - opened} where the coders "
            "agreed. Ctrl+Z takes them all back.")


class MajorityBatch(QObject):
    """The button and the batch for a window over ``project``; results arrive as signals."""

    accepted = Signal(object)  # the Command, already on the project's undo stack
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, project: Project, parent: QWidget) -> None:
        super().__init__(parent)
        self.project = project
        self.widget = parent
        self.runner = TaskRunner(parent)
        self.task: Task | None = None
        self.button = QPushButton(BUTTON_TEXT, parent)
        self.button.setAutoDefault(False)
        self.button.setToolTip(
            "Record the coders' strict majority as the consensus of every undecided unit of the "
            "code chosen above (all codes: every code) that has one, in one undo step")

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done

    def confirm_box(self, counts: OpenCounts, scope: str) -> QMessageBox:
        question, details = confirmation(counts, scope, self.project.coder or "")
        box = QMessageBox(QMessageBox.Icon.Question, "Accept every strict majority", question,
                          QMessageBox.StandardButton.Cancel, self.widget)
        box.setInformativeText(details)
        accept = box.addButton("Accept", QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(accept)
        box.setEscapeButton(QMessageBox.StandardButton.Cancel)
        return box

    def ask(self, counts: OpenCounts, scope: str) -> bool:
        box = self.confirm_box(counts, scope)
        box.exec()
        return box.buttonRole(box.clickedButton()) == QMessageBox.ButtonRole.AcceptRole

    def start(self, code: str | None) -> Task:
        """Accept the majorities of ``code`` (None = every code) as the current adjudicator."""
        if self.task is not None and not self.task.done:
            return self.task
        adjudicator = self.project.adjudicator or self.project.coder or ""
        codes = [code] if code else []

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> Command:
            project.set_adjudicator(adjudicator)
            return accept_majorities(project, Selection(codes=codes), progress=progress,
                                     cancel=cancel)

        self.task = self.runner.start(
            with_own_project(self.project, job), title="Accept every strict majority",
            label="Finding the units with a strict majority and recording their values…",
            on_result=self._done, on_error=self._failed, on_cancelled=self.cancelled.emit)
        return self.task

    def wait(self, timeout_s: float = 60.0) -> bool:
        return self.task is None or self.task.wait(timeout_s)

    def _done(self, cmd: Command) -> None:
        self.project.changed_elsewhere()  # the job wrote through its own connection
        if not cmd.empty:
            self.project.undo_stack.push(cmd)
        self.accepted.emit(cmd)

    def _failed(self, error: TaskError) -> None:
        self.failed.emit(error.message)
