"""The agreement window: choose codes, coders and conversations, run, read the figures.

The job (:func:`sense7_coder.project.agreement.project_agreement`) runs on the TaskRunner
with its own project connection, with progress and Cancel. Results: a table of the codes
(alpha with its interval and band, percent agreement, Fleiss' kappa), a plot of alpha per
code, Cohen's kappa for every pair of raters of one code, and every coder (and the
consensus) against the users' own ratings.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ...domain.agreement import LEVELS, AgreementReport
from ...domain.errors import Sense7Error
from ...domain.export import write_csv
from ...project import Project
from ...project.agreement import AgreementOptions, project_agreement
from ..palette import error_style
from ..screen import close_keys, fit_to_screen
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project
from .agreement_results import AgreementResults
from .filters import AnalysisFilters


class AgreementPanel(QWidget):
    """A window over one open project (the GUI's; jobs open their own connection)."""

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.project = project
        self.runner = TaskRunner(self)
        self.task: Task | None = None
        self.report: AgreementReport | None = None
        self.ran_with: AgreementOptions | None = None
        self.error: str | None = None
        self.setWindowTitle(f"Agreement — {project.path.name}")
        self.labels = {c.key: c.label for c in project.codebook.codes}

        self.filters = AnalysisFilters(self)
        self.level = QComboBox(self)
        self.level.addItem("as the codebook says", None)
        for level in LEVELS:
            self.level.addItem(level, level)
        self.level.setToolTip("Level of measurement for alpha; interval and ratio apply to "
                              "numeric codes only (nominal codes stay nominal)")
        self.bootstrap = QSpinBox(self)
        self.bootstrap.setRange(0, 20000)
        self.bootstrap.setSingleStep(200)
        self.bootstrap.setValue(1000)
        self.bootstrap.setSpecialValueText("no interval")
        self.bootstrap.setSuffix(" draws")
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        self.include_users = QCheckBox("Compare with the users' own ratings", self)
        self.include_users.setChecked(True)
        self.include_consensus = QCheckBox("Include the consensus", self)
        self.include_consensus.setChecked(True)
        self.include_predictors = QCheckBox("Include predictors (turn-level scores)", self)
        self.include_predictors.setToolTip(
            "Every stored predictor with turn-level scores joins as rater 'model:NAME' of the "
            "code that matches the users' overall rating (scores rounded to the scale)")
        self.run_button = QPushButton("Run", self)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.status = QLabel("Choose what to compare and press Run.", self)
        self.status.setWordWrap(True)

        options = QGroupBox("Options", self)
        form = QFormLayout(options)
        form.addRow("Level", self.level)
        form.addRow("Bootstrap", self.bootstrap)
        form.addRow("Seed", self.seed)
        form.addRow(self.include_users)
        form.addRow(self.include_consensus)
        form.addRow(self.include_predictors)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("<b>Compare</b>", self))
        left_layout.addWidget(self.filters, 1)
        left_layout.addWidget(options)
        left_layout.addWidget(self.run_button)
        left_layout.addWidget(self.status)
        left.setFixedWidth(300)

        self.results = AgreementResults(self)
        self.tabs = self.results
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.save_plot_button = QPushButton("Save plot…", self)
        self.save_plot_button.clicked.connect(self.save_plot_dialog)
        self.export_button = QPushButton("Export figures (CSV)…", self)
        self.export_button.clicked.connect(self.export_dialog)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.save_plot_button)
        bottom.addWidget(self.export_button)
        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.tabs, 1)
        rl.addLayout(bottom)

        layout = QHBoxLayout(self)
        layout.addWidget(left)
        layout.addWidget(right, 1)
        self.level.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        for signal in (self.level.currentIndexChanged, self.bootstrap.valueChanged,
                       self.seed.valueChanged, self.include_users.toggled,
                       self.include_consensus.toggled, self.include_predictors.toggled):
            signal.connect(self._options_changed)
        self.filters.changed.connect(self._options_changed)
        self.load_choices()
        self._show_report(None)
        fit_to_screen(self, 1280, 800)
        close_keys(self, escape=True)
        run_keys = QShortcut(QKeySequence("Ctrl+Return"), self)
        run_keys.activated.connect(self.run_button.click)
        self.run_button.setToolTip("Compute the figures (Ctrl+Enter; Enter when Run has the focus)")
        self.run_button.setFocus()

    # -- choices ------------------------------------------------------------------------------
    def load_choices(self) -> None:
        """Fill the filters from the project (codes, coders, assistants, participants,
        conversation attributes)."""
        self.labels = {c.key: c.label for c in self.project.codebook.codes}
        self.filters.load(self.project)

    def options(self) -> AgreementOptions:
        return self.filters.apply_to(AgreementOptions(
            level=self.level.currentData(), bootstrap=self.bootstrap.value(),
            seed=self.seed.value(), include_users=self.include_users.isChecked(),
            include_consensus=self.include_consensus.isChecked(),
            predictors=self._predictors() if self.include_predictors.isChecked() else (),
        ))

    def _predictors(self) -> list[str]:
        from ...project.predictions import predictor_counts

        return [n for n, c in predictor_counts(self.project).items() if c["turn"]]

    def _options_changed(self, *_: object) -> None:
        if self.report is not None and self.ran_with != self.options():
            self.status.setStyleSheet("")
            self.status.setText("The choices changed: press Run to update the figures.")

    # -- running ------------------------------------------------------------------------------
    def run(self) -> Task | None:
        """Start the agreement job; returns its task (None when there is nothing to run)."""
        if self.task is not None and not self.task.done:
            return self.task
        empty = self.filters.empty_choice()
        if empty:
            self._set_error(f"No {empty} ticked: tick at least one.")
            return None
        options = self.options()

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> AgreementReport:
            return project_agreement(project, options, progress=progress, cancel=cancel)

        n_codes = len(options.codes) or len(self.filters.lists["codes"].keys())
        what = f"{n_codes} code{'s' if n_codes != 1 else ''}"
        draws = f", {options.bootstrap} bootstrap draws" if options.bootstrap else ""
        self.error = None
        self.status.setStyleSheet("")
        self.status.setText(f"Computing agreement for {what}{draws}…")
        refocus = self.run_button.hasFocus()  # disabling it would send the keys elsewhere
        self.run_button.setEnabled(False)
        self.task = self.runner.start(
            with_own_project(self.project.path, job), title="Agreement",
            label=f"Computing agreement for {what}{draws}…",
            on_result=lambda report: self._done(report, options), on_error=self._failed,
            on_cancelled=self._cancelled, on_finished=lambda: self._finished(refocus))
        return self.task

    def _finished(self, refocus: bool) -> None:
        self.run_button.setEnabled(True)
        if refocus:
            self.run_button.setFocus()

    def wait(self, timeout_s: float = 60.0) -> bool:
        """Wait for the running job's outcome (tests and scripts)."""
        return self.task is None or self.task.wait(timeout_s)

    def _done(self, report: AgreementReport, options: AgreementOptions) -> None:
        self.ran_with = options
        self._show_report(report)
        self.status.setStyleSheet("")
        self.status.setText("Done. Hover over a figure for how it was computed.")

    def _failed(self, error: TaskError) -> None:
        self._set_error(error.message)

    def _cancelled(self) -> None:
        kept = " The figures shown are from the previous run." if self.report else ""
        self.status.setStyleSheet("")
        self.status.setText("Cancelled." + kept)

    def _set_error(self, text: str) -> None:
        self.error = text
        self.status.setStyleSheet(error_style(self))
        self.status.setText(text)

    # -- showing ------------------------------------------------------------------------------
    def _show_report(self, report: AgreementReport | None) -> None:
        self.report = report
        with_users = self.ran_with.include_users if self.ran_with is not None else None
        self.results.show_report(report, self.labels, with_users)
        for b in (self.save_plot_button, self.export_button):
            b.setEnabled(report is not None)
        self.summary.setText(self._summary_text())

    def _summary_text(self) -> str:
        o = self.ran_with
        if self.report is None or o is None:
            return ""
        coders = ", ".join(o.coders) if o.coders else "all coders"
        draws = (f"95% intervals from {o.bootstrap} bootstrap draws (seed {o.seed})"
                 if o.bootstrap else "no intervals (bootstrap off)")
        scope = []
        if o.models:
            scope.append("assistants " + ", ".join(o.models))
        if o.participants:
            scope.append("participants " + ", ".join(o.participants))
        if o.attributes:
            scope.append(", ".join(f"{k} = {v}" for k, v in o.attributes.items()))
        where = f"; {'; '.join(scope)}" if scope else ""
        return (f"{len(self.report.codes)} codes, {coders}{where}; {draws}; "
                f"computed {dt.datetime.now():%H:%M}.")

    # -- saving -------------------------------------------------------------------------------
    def save_plot(self, path: str | Path) -> Path:
        """Save the alpha plot as PNG or SVG (by the file's suffix)."""
        return self.results.plot.save(path)

    def save_plot_dialog(self) -> None:
        name, chosen = QFileDialog.getSaveFileName(
            self, "Save the plot", str(self.project.path.with_name("agreement-alpha.png")),
            "PNG image (*.png);;SVG drawing (*.svg)")
        if not name:
            return
        if not Path(name).suffix:
            name += ".svg" if "svg" in chosen else ".png"
        try:
            self.save_plot(name)
        except Sense7Error as e:
            self._set_error(str(e))
            return
        self.status.setStyleSheet("")
        self.status.setText(f"Saved the plot to {name}.")

    def export_table(self, path: str | Path) -> Task | None:
        """Write every figure of the report as CSV (on the TaskRunner)."""
        if self.report is None:
            return None
        frame = self.report.to_frame()
        out = Path(path)

        def job(progress: ProgressFn, cancel: CancelFn) -> int:
            return write_csv(frame, out, progress=progress, cancel=cancel)

        def written(rows: int) -> None:
            self.status.setStyleSheet("")
            self.status.setText(f"Wrote {rows} figures to {out}.")

        self.task = self.runner.start(job, title="Export", label=f"Writing {out.name}…",
                                      on_result=written, on_error=self._failed)
        return self.task

    def export_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, "Export the figures", str(self.project.path.with_name("agreement.csv")),
            "CSV file (*.csv)")
        if name:
            self.export_table(name if Path(name).suffix else name + ".csv")
