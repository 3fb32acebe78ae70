"""The Analysis window: the paper's analyses and the evaluation of empathy-level predictors.

Left: whose values (users, every coder, the consensus, one coder), the same assistant,
participant and attribute filters as the agreement window, the output folder and Run.
Right: the figures (drawn by the shared matplotlib module), the tables, and the predictors
evaluated in the paper's terms, with buttons to train the baseline, import predictions or
ask an LLM endpoint. Every job runs on the TaskRunner with progress and Cancel.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...project import Project
from ...project.analyses import SOURCES, AnalysisOutput, run_analyses
from ...project.changes import PREDICTIONS, Changes
from ...project.prediction import predictors as pred
from ...project.selection import Selection
from .. import file_dialogs
from ..dialogs.form_widgets import path_row
from ..palette import error_style
from ..screen import close_keys, fit_to_screen
from ..tasks import CancelFn, ProgressFn, Task, TaskError, TaskRunner, with_own_project
from .filters import AnalysisFilters
from .stale import changes_choices, changes_figures, stale_text
from .table_model import ALIGN_RIGHT, Column, RowsModel, table_view

METRICS = ("accuracy", "macro_f1", "within_one", "mae", "spearman")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.3f}"
    return str(value)


def _metric(row: dict[str, Any], key: str) -> str:
    value, sd = row.get(key), row.get(f"{key}_sd")
    if value is None:
        return "undefined"
    return f"{value:.3f}" + (f" ± {sd:.3f}" if sd is not None else "")


class LLMDialog(QDialog):
    """Endpoint, model, runs and the prompt (stored in the project) for the LLM judge."""

    def __init__(self, prompt: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("LLM judge")
        self.endpoint = QLineEdit("http://127.0.0.1:8080/v1", self)
        self.endpoint.setToolTip("An OpenAI-compatible chat-completions server (llama.cpp, "
                                 "Ollama, vLLM); nothing leaves this machine unless you "
                                 "point it elsewhere")
        self.api_model = QLineEdit(self)
        self.api_model.setPlaceholderText("the model name the server serves")
        self.runs = QSpinBox(self)
        self.runs.setRange(1, 20)
        self.concurrency = QSpinBox(self)
        self.concurrency.setRange(1, 32)
        self.concurrency.setValue(4)
        self.prompt = QPlainTextEdit(prompt, self)
        form = QFormLayout()
        form.addRow("Endpoint", self.endpoint)
        form.addRow("Model", self.api_model)
        form.addRow("Runs", self.runs)
        form.addRow("Requests at once", self.concurrency)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("Prompt (stored in the project; the conversation follows as "
                                "a JSON list of role/content messages):", self))
        layout.addWidget(self.prompt, 1)
        layout.addWidget(buttons)
        self.resize(640, 480)


class AnalysisPanel(QWidget):
    """A window over one open project (jobs open their own connection)."""

    #: (Changes, outside): the panel wrote to the project, through a job's own connection
    #: when ``outside`` (a prediction import, a baseline, a model's answers)
    changed = Signal(object, bool)

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.project = project
        self.runner = TaskRunner(self)
        self.task: Task | None = None
        self.output: AnalysisOutput | None = None
        self.evaluation: list[dict[str, Any]] = []
        self.error: str | None = None
        #: the project changed since the tables and figures shown were computed
        self.stale = False
        self._publishing: Changes | None = None
        self.setWindowTitle(f"Analysis — {project.path.name}")

        self.source = QComboBox(self)
        self.filters = AnalysisFilters(self)
        self.filters.set_enabled_filters(["models", "participants", "attributes"])
        self.out_dir = QLineEdit(str(project.path.with_name(project.path.stem + "-analysis")),
                                 self)
        folder = path_row(self, self.out_dir, "Choose…", self._choose_dir)
        self.run_button = QPushButton("Run analyses", self)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.status = QLabel("Choose whose values and which conversations, then Run.", self)
        self.status.setWordWrap(True)
        options = QGroupBox("Write to", self)
        options.setLayout(folder)
        left = QWidget(self)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("<b>Values of</b>", self))
        ll.addWidget(self.source)
        ll.addWidget(QLabel("<b>Conversations</b>", self))
        ll.addWidget(self.filters, 1)
        ll.addWidget(options)
        ll.addWidget(self.run_button)
        ll.addWidget(self.status)
        left.setFixedWidth(300)

        # figures
        self.figure_choice = QComboBox(self)
        self.figure_choice.currentIndexChanged.connect(self._show_figure)
        self.figure = QLabel(self)
        self.figure.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._pixmap = QPixmap()
        scroll = self.figure_scroll = QScrollArea(self)
        scroll.setWidget(self.figure)
        scroll.setWidgetResizable(True)
        figures = QWidget(self)
        fl = QVBoxLayout(figures)
        fl.addWidget(self.figure_choice)
        fl.addWidget(scroll, 1)
        # tables
        self.table_choice = QComboBox(self)
        self.table_choice.currentIndexChanged.connect(self._show_table)
        self.table_model: RowsModel[tuple[Any, ...]] = RowsModel([], self)
        tables = QWidget(self)
        tl = QVBoxLayout(tables)
        tl.addWidget(self.table_choice)
        tl.addWidget(table_view(self.table_model, tables), 1)
        # predictors
        self.level = QComboBox(self)
        self.level.addItem("conversation level (mean of the seven dimensions)", "conversation")
        self.level.addItem("turn level (overall rating)", "turn")
        self.level.currentIndexChanged.connect(lambda _i: self.evaluate())
        self.runs = QSpinBox(self)
        self.runs.setRange(1, 20)
        self.runs.setPrefix("runs: ")
        self.eval_model: RowsModel[dict[str, Any]] = RowsModel(
            [Column("Predictor", lambda r: str(r["predictor"])),
             Column("n", lambda r: str(r["n"]), align=ALIGN_RIGHT),
             Column("Runs", lambda r: str(r["runs"]), align=ALIGN_RIGHT)]
            + [self._metric_column(m) for m in METRICS], self)
        baseline = QPushButton("Train baseline", self)
        baseline.setToolTip("TF-IDF of each assistant turn and its context, ridge regression, "
                            "5-fold cross-validation grouped by participant")
        baseline.clicked.connect(self.train_baseline)
        imported = QPushButton("Import predictions…", self)
        imported.clicked.connect(self.import_dialog)
        llm = QPushButton("LLM judge…", self)
        llm.clicked.connect(self.llm_dialog)
        for b in (baseline, imported, llm):
            b.setAutoDefault(False)
        self.show_suggestions = QCheckBox(
            "Show predictions beside the coding panel (never while blind coding is on)", self)
        self.show_suggestions.setChecked(pred.suggestions_allowed(project))
        self.show_suggestions.toggled.connect(self._toggle_suggestions)
        row = QHBoxLayout()
        row.addWidget(self.level, 1)
        row.addWidget(self.runs)
        row.addWidget(baseline)
        row.addWidget(imported)
        row.addWidget(llm)
        predictors = QWidget(self)
        pl = QVBoxLayout(predictors)
        pl.addLayout(row)
        pl.addWidget(table_view(self.eval_model, predictors), 1)
        note = QLabel("Accuracy, macro-F1 and within-one on values rounded to the nearest level "
                      "and clipped to 1–5; MAE and Spearman's ρ on raw values; mean ± SD over "
                      "runs. Predictors join the agreement window as raters "
                      "'model:NAME' with turn-level scores.", self)
        note.setWordWrap(True)
        pl.addWidget(note)
        pl.addWidget(self.show_suggestions)

        self.tabs = QTabWidget(self)
        self.tabs.addTab(figures, "Figures")
        self.tabs.addTab(tables, "Tables")
        self.tabs.addTab(predictors, "Predictors")
        layout = QHBoxLayout(self)
        layout.addWidget(left)
        layout.addWidget(self.tabs, 1)
        self.load_choices()
        fit_to_screen(self, 1280, 800)
        close_keys(self, escape=True)

    @staticmethod
    def _metric_column(key: str) -> Column[dict[str, Any]]:
        header = {"accuracy": "Accuracy", "macro_f1": "Macro-F1", "within_one": "Within one",
                  "mae": "MAE", "spearman": "Spearman's ρ"}[key]

        def text(row: dict[str, Any]) -> str:
            return _metric(row, key)

        return Column(header, text, align=ALIGN_RIGHT)

    # -- choices ------------------------------------------------------------------------------
    def load_choices(self) -> None:
        current = self.source.currentData()
        self.source.clear()
        self.source.addItem("the users' own ratings", "users")
        self.source.addItem("every coder", "coders")
        self.source.addItem("the consensus", "consensus")
        self.source.addItem("the final dataset (consensus, else the one coder's value)",
                            "final")
        for c in self.project.coders():
            self.source.addItem(f"coder {c['name']}", c["name"])
        if current is not None:
            self.source.setCurrentIndex(max(0, self.source.findData(current)))
        self.filters.load(self.project)
        is_lead = self.project.coder_role() == "adjudicator"
        self.show_suggestions.setEnabled(is_lead)
        if not is_lead:
            self.show_suggestions.setToolTip("Only an adjudicator (the lead) can change this")

    def show_changes(self, changes: Changes) -> None:
        """The window's changes: new choices when coders or conversations changed; the
        tables and figures written are marked out of date (Run analyses writes them again)."""
        if changes is self._publishing or not changes_figures(changes):
            return  # its own, or only a memo
        if changes_choices(changes):
            self.load_choices()
        self.stale = True
        if self.output is not None or (self.task is not None and not self.task.done):
            self._set_status(stale_text(changes, "press Run analyses to write them again"))

    def _choose_dir(self) -> None:
        name = file_dialogs.choose_folder(self, "Write the analyses to", self.out_dir.text())
        if name:
            self.out_dir.setText(name)

    def _toggle_suggestions(self, on: bool) -> None:
        self._publish(pred.set_suggestions_allowed(self.project, on))

    def _publish(self, changes: Changes, *, outside: bool = False) -> None:
        """Tell the window what this panel wrote (its own figures stay as they are)."""
        self._publishing = changes
        try:
            self.changed.emit(changes, outside)
        finally:
            self._publishing = None

    # -- analyses -----------------------------------------------------------------------------
    def run(self) -> Task | None:
        if self.task is not None and not self.task.done:
            return self.task
        source = self.source.currentData() or SOURCES[0]
        filt = self.filters.apply_to(Selection()).conversation_filter()
        out_dir = Path(self.out_dir.text()).expanduser()

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> AnalysisOutput:
            return run_analyses(project, out_dir, source=source, conversations=filt,
                                progress=progress, cancel=cancel)

        self.stale = False
        self._set_status(f"Analysing the values of {self.source.currentText()}…")
        self.run_button.setEnabled(False)
        self.task = self.runner.start(
            with_own_project(self.project, job), title="Analyses",
            label="Computing the analyses and drawing the figures…",
            on_result=self._analysed, on_error=self._failed,
            on_cancelled=lambda: self._set_status("Cancelled."),
            on_finished=lambda: self.run_button.setEnabled(True))
        return self.task

    def wait(self, timeout_s: float = 60.0) -> bool:
        return self.task is None or self.task.wait(timeout_s)

    def _analysed(self, out: AnalysisOutput) -> None:
        self.output = out
        self.figure_choice.clear()
        for f in out.figures:
            if f.suffix == ".png":
                self.figure_choice.addItem(f.stem.replace("_", " "), str(f))
        self.table_choice.clear()
        for name in out.frames:
            self.table_choice.addItem(name.replace("_", " "), name)
        if self.stale:  # a change came in while the job read the project
            return
        notes = (" " + " ".join(n[0].upper() + n[1:] + "." for n in out.notes)) if out.notes else ""
        self._set_status(f"Wrote {len(out.tables)} tables and {len(out.figures)} figure files "
                         f"to {out.out_dir} (index.html links them).{notes}")

    def _show_figure(self, _index: int) -> None:
        path = self.figure_choice.currentData()
        self._pixmap = QPixmap(path) if path else QPixmap()
        self._fit_figure()

    def _fit_figure(self) -> None:
        """The figure at the width of the view (never enlarged)."""
        pixmap = self._pixmap
        width = self.figure_scroll.viewport().width() - 8
        if not pixmap.isNull() and pixmap.width() > width > 100:
            pixmap = pixmap.scaledToWidth(width, Qt.TransformationMode.SmoothTransformation)
        self.figure.setPixmap(pixmap)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_figure()

    def _show_table(self, _index: int) -> None:
        name = self.table_choice.currentData()
        frame = self.output.frames.get(name) if self.output is not None and name else None
        model = self.table_model
        if frame is None:
            model.beginResetModel()
            model.columns, model.rows = [], []
            model.endResetModel()
            return
        def column(i: int, name: str) -> Column[tuple[Any, ...]]:
            def text(row: tuple[Any, ...]) -> str:
                return _cell(row[i])

            return Column(name, text)

        model.beginResetModel()  # columns and rows change together
        model.columns = [column(i, str(c)) for i, c in enumerate(frame.columns)]
        model.rows = list(frame.itertuples(index=False, name=None))
        model.endResetModel()

    # -- predictors ---------------------------------------------------------------------------
    def evaluate(self) -> Task:
        level = self.level.currentData()

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> list[dict[str, Any]]:
            return pred.evaluate_all(project, level)

        def shown(rows: list[dict[str, Any]]) -> None:
            self.evaluation = rows
            self.eval_model.set_rows(rows)
            if not rows:
                self._set_status(f"No {level}-level predictions stored yet: train the "
                                 "baseline, import predictions or ask an LLM.")

        self.task = self.runner.start(with_own_project(self.project, job),
                                      title="Evaluation", on_result=shown,
                                      on_error=self._failed, show_progress=False)
        return self.task

    def train_baseline(self) -> Task:
        level, runs = self.level.currentData(), self.runs.value()

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> str:
            result = pred.run_baseline(project, level=level, runs=runs, progress=progress,
                                       cancel=cancel)
            return f"{len(result.folds)} folds grouped by {result.group_by}"

        return self._predict_job(job, "Baseline", "Training and cross-validating the baseline…")

    def import_predictions(self, path: str | Path, name: str | None = None) -> Task:
        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> tuple[str, str]:
            s = pred.import_predictions(project, path, name)
            return f"stored {s.rows} {s.level}-level scores of '{s.predictor}'", s.level

        return self._predict_job(job, "Import predictions", f"Reading {Path(path).name}…")

    def import_dialog(self) -> None:
        name = file_dialogs.open_file(
            self, "Import predictions (conversation_id, score[, turn][, run])",
            str(self.project.path.parent), "CSV file (*.csv)")
        if name:
            self.import_predictions(name)

    def run_llm(self, endpoint: str, api_model: str, runs: int = 1, concurrency: int = 4,
                prompt: str | None = None, **kwargs: Any) -> Task:
        if prompt is not None:
            pred.set_llm_prompt(self.project, prompt)

        def job(project: Project, progress: ProgressFn, cancel: CancelFn) -> str:
            out = pred.run_llm(project, endpoint, api_model, runs=runs,
                               concurrency=concurrency, progress=progress, cancel=cancel,
                               **kwargs)
            return pred.llm_run_line(out)

        return self._predict_job(job, "LLM judge", f"Asking {api_model} at {endpoint}…")

    def llm_dialog(self) -> None:
        dialog = LLMDialog(pred.llm_prompt(self.project), self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        if not dialog.api_model.text().strip():
            self._set_error("Give the model name the endpoint serves.")
            return
        self.run_llm(dialog.endpoint.text().strip(), dialog.api_model.text().strip(),
                     dialog.runs.value(), dialog.concurrency.value(),
                     dialog.prompt.toPlainText())

    def _predict_job(self, job: Any, title: str, label: str) -> Task:
        def done(result: str | tuple[str, str]) -> None:
            message, level = result if isinstance(result, tuple) else (result, None)
            self._set_status(f"{title}: {message}.")
            self._publish(PREDICTIONS, outside=True)  # written through the job's connection
            if level is not None and level != self.level.currentData():
                self.level.blockSignals(True)
                self.level.setCurrentIndex(self.level.findData(level))
                self.level.blockSignals(False)
            self.evaluate()

        def cancelled() -> None:
            self._set_status(f"{title}: cancelled; answers received so far are kept.")
            self._publish(PREDICTIONS, outside=True)

        self.task = self.runner.start(with_own_project(self.project, job), title=title,
                                      label=label, on_result=done, on_error=self._failed,
                                      on_cancelled=cancelled)
        return self.task

    # -- status ------------------------------------------------------------------------------
    def _failed(self, error: TaskError) -> None:
        self._set_error(error.message)

    def _set_status(self, text: str) -> None:
        self.error = None
        self.status.setStyleSheet("")
        self.status.setText(text)

    def _set_error(self, text: str) -> None:
        self.error = text
        self.status.setStyleSheet(error_style(self))
        self.status.setText(text)
