"""The reconciliation window: go through the units where coders differ and decide each.

The queue (:func:`sense7_coder.project.reconcile.disagreements`, furthest apart first) is
read on the TaskRunner with its own connection. Decisions are written on the GUI's own
project, so they join its undo stack (Ctrl+Z here, or Edit ▸ Undo in the main window).
Only an adjudicator decides; the coders' own codings are never touched.

Keys: 1-9 a level, 0 or N not applicable, M (or Enter in the queue) accept the majority,
Del clear the decision, PgDown / PgUp next and previous unit, Ctrl+Z / Ctrl+Shift+Z undo
and redo. "Accept every strict majority…" decides every open unit that has a majority in
one undo step (:mod:`.majority_batch`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...domain.errors import ProjectError
from ...domain.models import Conversation
from ...project import Project
from ...project.analysis_view import (
    consensus_now,
    conversation_with_sentences,
    only_consensus,
)
from ...project.changes import Changes
from ...project.reconcile import Disagreement, accept_majority, disagreements
from ...project.undo import Command
from ..palette import error_style
from ..screen import close_keys, fit_to_screen
from ..tasks import CancelFn, ProgressFn, Task, TaskRunner, with_own_project
from ..wording import error_text
from .adjudicator import can_decide
from .consensus_view import ConsensusAgreement
from .decision_box import LEVEL_KEYS
from .majority_batch import MajorityBatch, open_counts, result_text
from .reconcile_bar import ReconcileBar
from .reconcile_models import (
    apply_decisions,
    long_value,
    queue_columns,
    queue_key,
    where_text,
)
from .table_model import RowsModel, table_view
from .unit_view import UnitView


class ReconcilePanel(QWidget):
    """A window over the GUI's project (decisions go through its undo stack)."""

    changed = Signal(object)  # Changes: the project was written here (decision, undo, redo)
    coderChanged = Signal()  # the current coder changed (became adjudicator)

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.project = project
        self._seen: tuple[str | None, str | None, str | None] = (None, None, None)
        #: coders' values changed elsewhere since the queue was read
        self.stale = False
        self.runner = TaskRunner(self)
        self.queue: list[Disagreement] = []
        self.load_task: Task | None = None
        self._contexts: dict[str, tuple[Conversation | None, dict[int, list[tuple[int, int]]]]] = {}
        self.setWindowTitle(f"Reconcile — {project.path.name}")

        # -- top bar ----------------------------------------------------------------------
        bar = self.bar = ReconcileBar(project, self)
        self.role, self.role_label = bar.role, bar.role.label
        self.code_filter, self.show_filter = bar.code_filter, bar.show_filter
        self.progress, self.progress_label = bar.progress, bar.progress_label
        self.reload_button = bar.reload_button
        self.role.switched.connect(self._switched)
        self.role.failed.connect(self._error)
        self.code_filter.currentIndexChanged.connect(self.apply_filter)
        self.show_filter.currentIndexChanged.connect(self.apply_filter)
        self.reload_button.clicked.connect(self.reload)
        self.batch = MajorityBatch(project, self)
        self.accept_all_button = self.batch.button
        self.accept_all_button.clicked.connect(self.accept_every_majority)
        self.batch.accepted.connect(self._batch_done)
        self.batch.failed.connect(self._error)
        self.batch.cancelled.connect(lambda: self._message("Cancelled; nothing was decided."))

        # -- left: queue and agreement with the consensus ---------------------------------
        self.queue_model: RowsModel[Disagreement] = RowsModel(
            queue_columns(project.codebook), self)
        self.queue_view = table_view(self.queue_model, self)
        self.queue_view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.queue_view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.queue_view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.queue_view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.consensus = ConsensusAgreement(
            project, lambda: {c.key: c.label for c in self.project.codebook.codes}, self)
        self.pivot_model = self.consensus.model
        left = QWidget(self)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>Disagreements</b>, furthest apart first", self), 1)
        head.addWidget(self.accept_all_button)
        ll.addLayout(head)
        ll.addWidget(self.queue_view, 3)
        ll.addWidget(self.consensus, 2)

        # -- right: the unit in context and the decision ----------------------------------
        right = self.unit_view = UnitView(self)
        self.where, self.transcript = right.where, right.transcript
        self.values_model, self.decision = right.values_model, right.decision
        self.decision.decide.connect(self.decide)
        self.decision.acceptMajority.connect(self.accept_majority)
        self.decision.clearDecision.connect(self.clear_decision)
        right.prev_button.clicked.connect(lambda: self.step(-1))
        right.next_button.clicked.connect(lambda: self.step(1))

        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setSizes([600, 680])
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(bar)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)

        self._keys()
        self._seen = self._mark()
        self.update_role()
        fit_to_screen(self, 1280, 800)
        close_keys(self)
        self.reload()

    # -- staying in step with the main window ---------------------------------------------------
    def _mark(self) -> tuple[str | None, str | None, str | None]:
        return (self.project.undo_label, self.project.redo_label, self.project.coder)

    def show_changes(self, changes: Changes) -> None:
        """The window's changes: when coders' values, the codes or the coders changed (in
        the main window, or another program), the queue is read again -- now when this
        window is the active one, else when the user comes back to it. Decisions (its own
        come back here too) already show in place; decisions made elsewhere are read
        into the queue, and the agreement with the consensus is computed again."""
        if changes.consensus and not changes.everything:
            self._decided_elsewhere(changes)
        if not (changes.units or changes.wide or changes.conversations):
            return
        if self.isActiveWindow() and not self.batch.running:
            self.stale = False
            self.reload()
            return
        self.stale = True
        if self.isVisible():
            self._message("Coders' values changed since this list was read: it is read again "
                          "when you come back to this window.")

    def _decided_elsewhere(self, changes: Changes) -> None:
        """Show the decisions ``changes`` names as the file holds them (one's own are
        there already: nothing moves), without publishing them again."""
        keys = [queue_key(d) for d in self.queue if queue_key(d)[:3] in changes.consensus]
        touched, _ = apply_decisions(self.queue, consensus_now(self.project, keys))
        for d in touched:
            if d in self.queue_model.rows:
                self.queue_model.row_changed(self.queue_model.rows.index(d))
        if self.current in touched:
            self._show_current()
        if touched:
            self._update_progress()
        self.consensus.schedule()

    def changeEvent(self, event: QEvent) -> None:
        """Coming back to this window after undoing or switching coder elsewhere: catch up."""
        super().changeEvent(event)
        if (event.type() == QEvent.Type.ActivationChange and self.isActiveWindow()
                and (self._seen != self._mark() or self.stale)):
            self._seen = self._mark()
            self.stale = False
            self.update_role()
            self.reload()

    # -- keys ---------------------------------------------------------------------------------
    def _shortcut(self, keys: str, slot: Any) -> None:
        s = QShortcut(QKeySequence(keys), self)
        s.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        s.activated.connect(slot)

    def _keys(self) -> None:
        for key in LEVEL_KEYS + "0N":
            self._shortcut(key, lambda k=key: self._level_key(k))
        self._shortcut("M", self.accept_majority)
        for key in ("Return", "Enter"):
            self._shortcut(key, self._enter)
        self._shortcut("Del", self.clear_decision)
        for key in ("PgDown", "Ctrl+Down"):
            self._shortcut(key, lambda: self.step(1))
        for key in ("PgUp", "Ctrl+Up"):
            self._shortcut(key, lambda: self.step(-1))
        self._shortcut("Ctrl+Z", self.undo)
        for key in ("Ctrl+Shift+Z", "Ctrl+Y"):
            self._shortcut(key, self.redo)

    def _typing(self) -> bool:
        w = QApplication.focusWidget()
        return isinstance(w, QLineEdit | QPlainTextEdit)

    def _level_key(self, key: str) -> None:
        found, value = self.decision.value_for_key(key)
        if found:
            self.decide(value)

    def _enter(self) -> None:
        if not self._typing():
            self.accept_majority()

    # -- who decides --------------------------------------------------------------------------
    def can_decide(self) -> bool:
        return can_decide(self.project)

    def update_role(self) -> None:
        self.role.refresh()
        self.accept_all_button.setEnabled(self.can_decide() and not self.batch.running)
        self._show_current()

    def become_adjudicator(self, name: str) -> None:
        """Work as ``name`` with the adjudicator role (created if new)."""
        self.role.become(name)

    def _switched(self) -> None:
        self._seen = self._mark()
        self.update_role()
        self.coderChanged.emit()

    # -- loading ------------------------------------------------------------------------------
    def reload(self) -> Task:
        """Read the disagreement queue again (on the TaskRunner)."""
        if self.load_task is not None and not self.load_task.done:
            return self.load_task

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> list[Disagreement]:
            progress(0, 0)
            return disagreements(project)

        self._message("Reading the disagreements…")
        self.load_task = self.runner.start(
            with_own_project(self.project, job), title="Reconcile",
            label="Finding the units where coders differ…", on_result=self._loaded,
            on_error=lambda e: self._error(e.message))
        return self.load_task

    def wait(self, timeout_s: float = 30.0) -> bool:
        """Wait for the queue and the agreement with the consensus (tests and scripts)."""
        if self.load_task is not None and not self.load_task.wait(timeout_s):
            return False
        return self.consensus.wait(timeout_s)

    def _loaded(self, queue: list[Disagreement]) -> None:
        key = self._current_key()
        self.project.invalidate_codebook()
        book = self.project.codebook
        self.queue = queue
        self.queue_model.set_columns(queue_columns(book))
        self.bar.fill_codes(queue, book)
        self._message("" if queue else "The coders agree on every unit they rated in common: "
                      "nothing to reconcile.")
        self.apply_filter(keep=key)
        self.consensus.refresh()

    def apply_filter(self, *_: object, keep: tuple[Any, ...] | None = None) -> None:
        """Show the queue for the chosen code and state (undecided, decided, all)."""
        key = keep if keep is not None else self._current_key()
        code, show = self.code_filter.currentData(), self.show_filter.currentData()
        rows = [d for d in self.queue if (code is None or d.code == code)
                and (show == "all" or (show == "decided") == d.decided)]
        self.queue_model.set_rows(rows)
        index = next((i for i, d in enumerate(rows) if queue_key(d) == key), 0)
        if rows:
            self.select_row(index)
        else:
            self._show_current()
        self._update_progress()

    # -- moving -------------------------------------------------------------------------------
    @property
    def current(self) -> Disagreement | None:
        return self.queue_model.row_of(self.queue_view.currentIndex())

    def _current_key(self) -> tuple[Any, ...] | None:
        d = self.current
        return queue_key(d) if d is not None else None

    def select_row(self, row: int) -> None:
        if not 0 <= row < self.queue_model.rowCount():
            return
        index = self.queue_model.index(row, 0)
        self.queue_view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.queue_view.scrollTo(index)

    def step(self, by: int) -> None:
        row = self.queue_view.currentIndex().row()
        self.select_row(max(0, min(self.queue_model.rowCount() - 1, row + by)))

    def next_open(self) -> bool:
        """Go to the next undecided unit after the current one (then from the top)."""
        rows = self.queue_model.rows
        here = self.queue_view.currentIndex().row()
        for i in [*range(here + 1, len(rows)), *range(0, max(here, 0))]:
            if not rows[i].decided:
                self.select_row(i)
                return True
        return False

    def _current_changed(self, *_: object) -> None:
        self.decision.rationale.clear()
        self._show_current()

    def _context(self, cid: str) -> tuple[Conversation | None, dict[int, list[tuple[int, int]]]]:
        if cid not in self._contexts:
            self._contexts[cid] = conversation_with_sentences(self.project, cid)
        return self._contexts[cid]

    def _show_current(self) -> None:
        d = self.current
        code = self.project.codebook.get(d.code) if d is not None else None
        conversation, sentences = (self._context(d.unit.conversation_id) if d is not None
                                   else (None, {}))
        self.unit_view.show_unit(d, code, conversation, sentences, self.can_decide())

    def _update_progress(self) -> None:
        code = self.code_filter.currentData()
        mine = [d for d in self.queue if code is None or d.code == code]
        self.bar.show_progress(sum(d.decided for d in mine), len(mine))

    # -- deciding -----------------------------------------------------------------------------
    def _check(self) -> Disagreement | None:
        d = self.current
        return d if d is not None and self._may_decide() else None

    def _may_decide(self) -> bool:
        if not self.can_decide():
            self._error(f"Only an adjudicator can decide; you are working as "
                        f"'{self.project.coder or 'nobody'}'. Use “Adjudicate as…”.")
        return self.can_decide()

    def decide(self, value: Any) -> bool:
        """Set the consensus of the current unit to ``value`` (None = not applicable)."""
        d = self._check()
        if d is None:
            return False
        try:
            self.project.set_consensus(d.unit, d.code, value, self.decision.rationale.text())
        except ProjectError as e:
            self._error(error_text(e))
            return False
        return self._after_write(d)

    def accept_majority(self) -> bool:
        """Record the coders' strict majority as the consensus of the current unit."""
        d = self._check()
        if d is None:
            return False
        why = self.decision.rationale.text().strip()
        try:
            if why:
                accept_majority(self.project, d.unit, d.code, why)
            else:
                accept_majority(self.project, d.unit, d.code)
        except ProjectError as e:
            self._error(error_text(e))
            return False
        return self._after_write(d)

    def clear_decision(self) -> bool:
        d = self._check()
        if d is None or d.consensus is None:
            return False
        try:
            self.project.clear_consensus(d.unit, d.code)
        except ProjectError as e:
            self._error(error_text(e))
            return False
        d.consensus = consensus_now(self.project, [queue_key(d)])[0][1]  # read back: None
        self._refresh(d)
        self._message("Decision cleared (Ctrl+Z brings it back).")
        return True

    def accept_every_majority(self, *, confirm: bool = True) -> Task | None:
        """Accept the strict majority on every open unit of the code shown (all codes: every
        code), after asking; one undo step. Returns the batch's task (None when not run)."""
        if not self._may_decide():
            return None
        code = self.code_filter.currentData()
        found = self.project.codebook.get(code) if code else None
        scope = found.label if found is not None else "every code"
        if confirm and not self.batch.ask(open_counts(self.queue, code), scope):
            return None
        self._message(f"Accepting the majority on {scope}…")
        self.accept_all_button.setEnabled(False)
        task = self.batch.start(code)
        task.finished.connect(self.update_role)
        return task

    def _batch_done(self, cmd: Command) -> None:
        opened = self._apply_changes(cmd.changes, select=False)
        self._message(result_text(len(cmd.cells), opened))

    def _after_write(self, d: Disagreement) -> bool:
        """After a decision on ``d``: read it back, show it and go to the next open unit."""
        decision = consensus_now(self.project, [queue_key(d)])[0][1]
        d.consensus = decision
        self._refresh(d)
        code = self.project.codebook.get(d.code)
        value = long_value(code, decision.get("value")) if decision else "?"
        self._message(f"Decided {code.label if code else d.code} on {where_text(d)} of "
                      f"conversation {d.unit.conversation_id}: {value}.")
        if not self.next_open():
            self._message("Every disagreement shown here is decided.")
        return True

    def _refresh(self, d: Disagreement) -> None:
        self._seen = self._mark()
        if d in self.queue_model.rows:
            self.queue_model.row_changed(self.queue_model.rows.index(d))
        if d is self.current:
            self._show_current()
        self._update_progress()
        self.consensus.schedule()
        u = d.unit
        self.changed.emit(Changes(consensus=frozenset({(u.conversation_id, u.position,
                                                        u.sentence)})))

    def undo(self) -> None:
        self._undo_redo(undo=True)

    def redo(self) -> None:
        self._undo_redo(undo=False)

    def _undo_redo(self, *, undo: bool) -> None:
        try:
            cmd = self.project.undo() if undo else self.project.redo()
        except ProjectError as e:
            self._error(error_text(e))
            return
        self._seen = self._mark()
        if cmd is None:
            self._message(f"Nothing to {'undo' if undo else 'redo'}.")
            return
        self._message(f"{'Undid' if undo else 'Redid'}: {cmd.label}")
        if not only_consensus(cmd):
            self.changed.emit(cmd.changes)
            self.reload()
            return
        self._apply_changes(cmd.changes, select=True)

    def _apply_changes(self, changes: Changes, *, select: bool) -> int:
        """Show the decisions of the units ``changes`` names, read back from the project:
        one in place (going to it when ``select``), many by showing the queue again.
        Returns how many open units got decided."""
        keys = [queue_key(d) for d in self.queue if queue_key(d)[:3] in changes.consensus]
        touched, opened = apply_decisions(self.queue, consensus_now(self.project, keys))
        if len(touched) == 1:
            if select and touched[0] in self.queue_model.rows:
                self.select_row(self.queue_model.rows.index(touched[0]))
            self._refresh(touched[0])
            return opened
        if touched:
            self.apply_filter()
        self._seen = self._mark()
        self._show_current()
        self.consensus.schedule()
        self.changed.emit(changes)
        return opened

    # -- messages -----------------------------------------------------------------------------
    def _message(self, text: str) -> None:
        self.status.setStyleSheet("")
        self.status.setText(text)

    def _error(self, text: str) -> None:
        self.status.setStyleSheet(error_style(self))
        self.status.setText(text)
