"""The agreement window: choose codes, coders and conversations, run, read the figures.

The job (:func:`sense7_coder.project.agreement.project_agreement`) runs on the TaskRunner
with its own project connection, with progress and Cancel. Results: a table of the codes
(alpha with its interval and band, percent agreement, Fleiss' kappa), a plot of alpha per
code, Cohen's kappa for every pair of raters of one code, and every coder (and the
consensus) against the users' own ratings.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...domain.agreement import LEVELS, AgreementReport
from ...domain.agreement.bootstrap import method_text
from ...domain.agreement_settings import BCA_BELOW_UNITS, CI_METHODS, AgreementSettings
from ...domain.errors import Sense7Error
from ...domain.export.tables import write_csv
from ...domain.files import atomic_text_file
from ...domain.words import count
from ...project import Project
from ...project.agreement import (
    BY_CONSTRUCTION_NOTE,
    methods_paragraph,
    min_units_setting,
    project_agreement,
    set_min_units_setting,
    values_text,
)
from ...project.changes import Changes
from ...project.outputs import refuse_project_file
from ...project.selection import Selection
from ...project.spans.agreement import SpanAgreement
from .. import file_dialogs
from ..palette import error_style
from ..screen import close_keys, fit_to_screen
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project
from ..wording import error_text
from .agreement_results import AgreementResults
from .filters import AnalysisFilters
from .settings_boxes import draws_box, min_units_box, seed_box
from .stale import changes_choices, changes_figures, stale_text

#: the interval methods as the window names them (the others by their own name)
CI_LABELS = {"auto": f"auto (BCa below {BCA_BELOW_UNITS} units)", "bca": "BCa (bias-corrected)"}


class AgreementPanel(QWidget):
    """A window over one open project (the GUI's; jobs open their own connection)."""

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.project = project
        self.runner = TaskRunner(self)
        self.task: Task | None = None
        self.report: AgreementReport | None = None
        #: the selection and settings of the figures shown
        self.ran_with: tuple[Selection, AgreementSettings] | None = None
        self.error: str | None = None
        #: the project changed since the figures shown (or being computed) were read
        self.stale = False
        self.setWindowTitle(f"Agreement — {project.path.name}")
        self.labels = {c.key: c.label for c in project.codebook.codes}

        self.filters = AnalysisFilters(self)
        self.level = QComboBox(self)
        self.level.addItem("as the codebook says", None)
        for level in LEVELS:
            self.level.addItem(level, level)
        self.level.setToolTip("Level of measurement for alpha; interval and ratio apply to "
                              "numeric codes only. Over every code, the codes that cannot take "
                              "it keep their own level; a code ticked on its own that cannot "
                              "take it is refused")
        self.bootstrap = draws_box(self, " draws", "no interval")
        self.seed = seed_box(self)
        self.ci = QComboBox(self)
        for method in CI_METHODS:
            self.ci.addItem(CI_LABELS.get(method, method), method)
        self.ci.setToolTip("Interval method of every bootstrap interval: percentile, or "
                           "bias-corrected and accelerated (BCa)")
        self.values = QComboBox(self)
        self.values.addItem("blind values", "blind")
        self.values.addItem("final values", "final")
        self.values.setToolTip(
            "Blind coding: each coder's value as set before the turn was revealed to them, or "
            "their latest value, including what they changed after seeing the others'")
        self.version = QComboBox(self)
        self.version.setToolTip("Only the codings set under one codebook version (as the "
                                "command line's agreement --codebook-version N)")
        self.min_units = min_units_box(self, min_units_setting(project))
        self.min_units.setToolTip("Figures from fewer units read “too few units” instead of "
                                  "good/tentative/low (saved with the project)")
        self.include_users = QCheckBox("Compare with the users' own ratings", self)
        self.include_users.setChecked(True)
        self.include_consensus = QCheckBox("Include the consensus", self)
        self.include_consensus.setChecked(True)
        self.include_predictors = QCheckBox("Include predictors (turn-level scores)", self)
        self.include_predictors.setToolTip(
            "Every stored predictor with turn-level scores joins as rater 'model:NAME' of the "
            "code that matches the users' overall rating (scores rounded to the scale)")
        self.include_models = QCheckBox("Include models' suggestions (model:NAME)", self)
        self.include_models.setChecked(True)
        self.include_models.setToolTip(
            "Each model that suggested codes (sense7-coder suggest) joins as rater "
            "'model:NAME' of every code it suggested, beside the coders and the users")
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
        form.addRow("Interval", self.ci)
        form.addRow("Band from", self.min_units)
        form.addRow("Values", self.values)
        form.addRow("Codebook", self.version)
        form.addRow(self.include_users)
        form.addRow(self.include_consensus)
        form.addRow(self.include_predictors)
        form.addRow(self.include_models)
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
        from .span_agreement_tab import SpanAgreementTab

        self.span_tab = SpanAgreementTab(self)
        if any(c.unit == "span" for c in project.codebook.active):
            self.results.addTab(self.span_tab, "Spans")
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.save_plot_button = QPushButton("Save plot…", self)
        self.save_plot_button.clicked.connect(self.save_plot_dialog)
        self.export_button = QPushButton("Export figures (CSV)…", self)
        self.export_button.clicked.connect(self.export_dialog)
        self.methods_button = QPushButton("Methods paragraph…", self)
        self.methods_button.setToolTip("The paragraph, table and references a paper needs, "
                                       "in Markdown or LaTeX")
        self.methods_button.clicked.connect(self.methods_dialog)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.methods_button)
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
                       self.seed.valueChanged, self.ci.currentIndexChanged,
                       self.min_units.valueChanged, self.include_users.toggled,
                       self.include_consensus.toggled, self.include_predictors.toggled,
                       self.include_models.toggled, self.values.currentIndexChanged,
                       self.version.currentIndexChanged):
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
        self._load_versions()

    def _load_versions(self) -> None:
        """Every codebook version, with the codings set under it; the choice kept."""
        from ...project.codebook.versions import versions

        chosen = self.version.currentData()
        with QSignalBlocker(self.version):
            self.version.clear()
            self.version.addItem("every version", None)
            for v in versions(self.project):
                self.version.addItem(f"version {v.number} ({v.at[:10]}, {v.codings} codings)",
                                     v.number)
            self.version.setCurrentIndex(max(0, self.version.findData(chosen)))

    def show_changes(self, changes: Changes) -> None:
        """The window's changes: new choices when codes, coders or conversations changed;
        figures already shown are marked out of date (Run computes them again)."""
        if not changes_figures(changes):
            return
        if changes_choices(changes):
            self.load_choices()
        self.stale = True
        if self.report is not None or (self.task is not None and not self.task.done):
            self.status.setStyleSheet("")
            self.status.setText(stale_text(changes))

    def selection(self) -> Selection:
        """The codes, coders, conversations, values and raters chosen."""
        return self.filters.apply_to(Selection(
            include_users=self.include_users.isChecked(),
            include_consensus=self.include_consensus.isChecked(),
            predictors=self._predictors() if self.include_predictors.isChecked() else (),
            include_models=self.include_models.isChecked(),
            values=self.values.currentData() or "blind",
            codebook_version=self.version.currentData(),
        ))

    def settings(self) -> AgreementSettings:
        """How to compute: level, bootstrap draws, seed, interval method, band."""
        return AgreementSettings(
            level=self.level.currentData(), bootstrap=self.bootstrap.value(),
            seed=self.seed.value(), ci=self.ci.currentData(),
            min_units=self.min_units.value())

    def _predictors(self) -> list[str]:
        from ...project.prediction.predictors import predictor_counts

        return [n for n, c in predictor_counts(self.project).items() if c["turn"]]

    def _options_changed(self, *_: object) -> None:
        if self.report is not None and self.ran_with != (self.selection(), self.settings()):
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
        selection, settings = self.selection(), self.settings()
        if settings.min_units is not None and settings.min_units != min_units_setting(
                self.project):
            try:
                set_min_units_setting(self.project, settings.min_units)
            except Sense7Error as e:
                self._set_error(error_text(e))
                return None

        spans: list[SpanAgreement] = []  # the span codes' figures, filled by the job

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> AgreementReport:
            from ...project.spans.agreement import span_agreement

            report = project_agreement(project, selection, settings, progress=progress,
                                       cancel=cancel)
            spans[:] = span_agreement(project, selection, draws=settings.bootstrap,
                                      seed=settings.seed, cancel=cancel)
            return report

        n_codes = len(selection.codes) or len(self.filters.lists["codes"].keys())
        what = f"{n_codes} code{'s' if n_codes != 1 else ''}"
        draws = f", {settings.bootstrap} bootstrap draws" if settings.bootstrap else ""
        self.error = None
        self.stale = False
        self.status.setStyleSheet("")
        self.status.setText(f"Computing agreement for {what}{draws}…")
        refocus = self.run_button.hasFocus()  # disabling it would send the keys elsewhere
        self.run_button.setEnabled(False)
        self.task = self.runner.start(
            with_own_project(self.project, job), title="Agreement",
            label=f"Computing agreement for {what}{draws}…",
            on_result=lambda report: self._done(report, (selection, settings), spans),
            on_error=self._failed,
            on_cancelled=self._cancelled, on_finished=lambda: self._finished(refocus))
        return self.task

    def _finished(self, refocus: bool) -> None:
        self.run_button.setEnabled(True)
        if refocus:
            self.run_button.setFocus()

    def wait(self, timeout_s: float = 60.0) -> bool:
        """Wait for the running job's outcome (tests and scripts)."""
        return self.task is None or self.task.wait(timeout_s)

    def _done(self, report: AgreementReport, ran_with: tuple[Selection, AgreementSettings],
              spans: Sequence[SpanAgreement] = ()) -> None:
        self.span_tab.show_rows(spans)
        self.ran_with = ran_with
        self._show_report(report)
        if self.stale:  # a change came in while the job read the project
            return
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
        with_users = self.ran_with[0].include_users if self.ran_with is not None else None
        self.results.show_report(report, self.labels, with_users)
        for b in (self.save_plot_button, self.export_button, self.methods_button):
            b.setEnabled(report is not None)
        self.summary.setText(self._summary_text())

    def _summary_text(self) -> str:
        if self.report is None or self.ran_with is None:
            return ""
        o, how = self.ran_with
        coders = ", ".join(o.coders) if o.coders else "all coders"
        method = method_text(how.ci)
        draws = (f"95% {method} intervals from {how.bootstrap} bootstrap draws (seed "
                 f"{how.seed})" if how.bootstrap else "no intervals (bootstrap off)")
        scope = []
        if o.models:
            scope.append("assistants " + ", ".join(o.models))
        if o.participants:
            scope.append("participants " + ", ".join(o.participants))
        if o.attributes:
            scope.append(", ".join(f"{k} = {v}" for k, v in o.attributes.items()))
        if o.codebook_version is not None:
            scope.append(f"codings set under codebook version {o.codebook_version} only")
        where = f"; {'; '.join(scope)}" if scope else ""
        flagged = ""
        if any(r.by_construction for r in self.report.records):
            flagged = f" 'By construction': {BY_CONSTRUCTION_NOTE}."
        warned = sorted({f"{r.code} {r.form or r.measure}" for r in self.report.records
                         if r.warning and r.value is not None})
        if warned:
            first = next(r for r in self.report.records if r.warning and r.value is not None)
            flagged += f" Warning ({', '.join(warned)}): {first.warning}."
        return (f"{count(len(self.report.codes), 'code')}, {coders}{where}; {draws}; "
                f"computed {dt.datetime.now():%H:%M}. {values_text(self.report)}{flagged}")

    # -- methods paragraph ----------------------------------------------------------------------
    def methods_text(self, fmt: str = "markdown") -> str:
        """The methods paragraph of the figures shown ('' before a run)."""
        if self.report is None or self.ran_with is None:
            return ""
        return methods_paragraph(self.project, self.report, *self.ran_with, fmt)

    def methods_dialog(self) -> QDialog | None:
        """A window with the methods paragraph: Markdown or LaTeX, copy or save."""
        if self.report is None:
            return None
        dialog = MethodsDialog(self, self.methods_text)
        dialog.show()
        self.methods = dialog
        return dialog

    # -- saving -------------------------------------------------------------------------------
    def save_plot(self, path: str | Path) -> Path:
        """Save the alpha plot as PNG or SVG (by the file's suffix)."""
        refuse_project_file(path, "for the plot")
        return self.results.plot.save(path)

    def save_plot_dialog(self) -> None:
        name, chosen = file_dialogs.save_file(
            self, "Save the plot", str(self.project.path.with_name("agreement-alpha.png")),
            "PNG image (*.png);;SVG drawing (*.svg)")
        if not name:
            return
        if not Path(name).suffix:
            name += ".svg" if "svg" in chosen else ".png"
        try:
            self.save_plot(name)
        except Sense7Error as e:
            self._set_error(error_text(e))
            return
        self.status.setStyleSheet("")
        self.status.setText(f"Saved the plot to {name}.")

    def export_table(self, path: str | Path) -> Task | None:
        """Write every figure of the report as CSV (on the TaskRunner)."""
        if self.report is None:
            return None
        frame = self.report.to_frame()
        out = Path(path)
        try:
            refuse_project_file(out, "for the figures")
        except Sense7Error as e:
            self._set_error(error_text(e))
            return None

        def job(progress: ProgressFn, cancel: CancelFn) -> int:
            return write_csv(frame, out, progress=progress, cancel=cancel)

        def written(rows: int) -> None:
            self.status.setStyleSheet("")
            self.status.setText(f"Wrote {rows} figures to {out}.")

        self.task = self.runner.start(job, title="Export", label=f"Writing {out.name}…",
                                      on_result=written, on_error=self._failed)
        return self.task

    def export_dialog(self) -> None:
        name, _ = file_dialogs.save_file(
            self, "Export the figures", str(self.project.path.with_name("agreement.csv")),
            "CSV file (*.csv)")
        if name:
            self.export_table(name if Path(name).suffix else name + ".csv")


class MethodsDialog(QDialog):
    """The methods paragraph, table and references of the figures shown."""

    def __init__(self, parent: AgreementPanel, make: object) -> None:
        super().__init__(parent)
        self.setWindowTitle("Methods paragraph")
        self.make = make
        self.fmt = QComboBox(self)
        self.fmt.addItem("Markdown", "markdown")
        self.fmt.addItem("LaTeX", "latex")
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.copy_button = QPushButton("Copy", self)
        self.save_button = QPushButton("Save…", self)
        close = QPushButton("Close", self)
        self.copy_button.clicked.connect(self.copy)
        self.save_button.clicked.connect(self.save_dialog)
        close.clicked.connect(self.close)
        self.fmt.currentIndexChanged.connect(self.refresh)
        top = QHBoxLayout()
        top.addWidget(QLabel("Format", self))
        top.addWidget(self.fmt)
        top.addStretch(1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for b in (self.copy_button, self.save_button, close):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.text, 1)
        layout.addLayout(buttons)
        self.refresh()
        fit_to_screen(self, 900, 640)
        close_keys(self, escape=True)

    def refresh(self, *_: object) -> None:
        self.text.setPlainText(self.make(self.fmt.currentData()))  # type: ignore[operator]

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text.toPlainText())

    def save(self, path: str | Path) -> Path:
        """Write the paragraph (never over a project file; whole or not at all)."""
        refuse_project_file(path, "for the methods paragraph")
        with atomic_text_file(path) as fh:
            fh.write(self.text.toPlainText())
        return Path(path)

    def save_dialog(self) -> None:
        latex = self.fmt.currentData() == "latex"
        name, _ = file_dialogs.save_file(
            self, "Save the methods paragraph", "agreement-methods" + (".tex" if latex else ".md"),
            "LaTeX (*.tex)" if latex else "Markdown (*.md)")
        if name:
            try:
                self.save(name)
            except Sense7Error as e:
                QMessageBox.warning(self, "Methods paragraph not saved", str(e))
