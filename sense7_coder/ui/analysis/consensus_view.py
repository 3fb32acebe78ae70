"""Each coder's agreement with the consensus, code by code, recomputed as decisions come in.

The figures (:func:`sense7_coder.project.reconcile.coders_vs_consensus`, no bootstrap) are
computed on the TaskRunner with their own connection, a moment after the last decision.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from ...domain.agreement import AgreementReport
from ...project import Project
from ...project.agreement import BY_CONSTRUCTION_NOTE
from ...project.reconcile import coders_vs_consensus
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project
from .reconcile_models import PivotRow, consensus_pivot, pivot_columns
from .table_model import RowsModel, table_view

DELAY_MS = 1200


class ConsensusAgreement(QWidget):
    """A codes x coders table of alpha with the consensus (the number of units in brackets)."""

    def __init__(self, project: Project, labels: Callable[[], dict[str, str]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.labels = labels
        self.runner = TaskRunner(self)
        self.task: Task | None = None
        self.report: AgreementReport | None = None
        self._again = False
        title = QLabel("<b>Each coder's α with the consensus</b> (in brackets: decided units "
                       "both rated; few units give unstable figures)", self)
        title.setWordWrap(True)
        self.model: RowsModel[PivotRow] = RowsModel([], self)
        self.view = table_view(self.model, self)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(title)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.note)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DELAY_MS)
        self.timer.timeout.connect(self.refresh)

    def schedule(self) -> None:
        """Recompute a moment from now (decisions often come in quick succession)."""
        self.timer.start()

    def refresh(self) -> Task:
        """Recompute now (after the running computation, if one is running)."""
        if self.task is not None and not self.task.done:
            self._again = True
            return self.task

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> AgreementReport:
            return coders_vs_consensus(project, bootstrap=0, progress=progress, cancel=cancel)

        self._again = False
        self.task = self.runner.start(
            with_own_project(self.project, job), title="Agreement with the consensus",
            on_result=self._show, on_error=self._failed, on_finished=self._finished,
            show_progress=False)
        return self.task

    def wait(self, timeout_s: float = 30.0) -> bool:
        """Run a pending computation now and wait until the figures are current."""
        if self.timer.isActive():
            self.timer.stop()
            self.refresh()
        while self.task is not None and not self.task.done or self._again:
            if self.task is None or not self.task.wait(timeout_s):
                return False
        return True

    def _finished(self) -> None:
        if self._again:
            self.refresh()

    def _show(self, report: AgreementReport) -> None:
        self.report = report
        raters, rows = consensus_pivot(report, self.labels())
        self.model.set_columns(pivot_columns(raters))
        self.model.set_rows(rows)
        flagged = sorted({r.code for r in report.records if r.by_construction})
        if not rows:
            self.note.setText("No decisions yet: decide units to compare each coder with the "
                              "consensus.")
        else:
            self.note.setText("" if not flagged else
                              f"By construction ({', '.join(flagged)}): {BY_CONSTRUCTION_NOTE}.")

    def _failed(self, error: TaskError) -> None:
        self.note.setText(error.message)
