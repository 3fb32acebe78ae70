"""The agreement window's results: the codes with their plot, every coefficient, coder pairs,
coders vs users."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...domain.agreement import USERS_RATER, AgreementReport
from ...domain.measures import COHEN, group_measures, pair_measures
from ...domain.measures import measure as measure_of
from ...domain.measures import summary as measures_summary
from .. import file_dialogs
from .agreement_plot import AlphaPlot
from .agreement_tables import (
    CoderDiagRow,
    ConfusionRow,
    band_summary,
    code_columns,
    coder_diag_columns,
    coder_diag_rows,
    coefficient_columns,
    confusion_columns,
    confusion_rows,
    matrix_columns,
    matrix_rows,
    rater_columns,
)
from .report_rows import (
    CodeRow,
    CoefficientRow,
    RaterRow,
    code_rows,
    coefficient_rows,
    rater_rows,
)
from .table_model import RowsModel, table_view

WEIGHT_CHOICES = (("quadratic", "quadratic weights"), ("linear", "linear weights"),
                  ("none", "unweighted"))


class AgreementResults(QTabWidget):
    """Three tabs over one :class:`AgreementReport` (none before the first run)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: AgreementReport | None = None
        self.labels: dict[str, str] = {}
        #: did the run ask for the users' ratings? (None: no run yet)
        self.with_users: bool | None = None
        # -- codes tab --------------------------------------------------------------------
        self.code_model: RowsModel[CodeRow] = RowsModel(code_columns(), self)
        self.code_view = table_view(self.code_model, self)
        self.plot = AlphaPlot(self)
        self.band_label = QLabel(self)
        codes_tab = QSplitter(Qt.Orientation.Vertical, self)
        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.code_view)
        top_layout.addWidget(self.band_label)
        codes_tab.addWidget(top)
        codes_tab.addWidget(self.plot)
        codes_tab.setStretchFactor(0, 2)
        codes_tab.setStretchFactor(1, 3)
        codes_tab.setSizes([300, 420])

        # -- coefficients tab -------------------------------------------------------------
        self.coef_model: RowsModel[CoefficientRow] = RowsModel(coefficient_columns(), self)
        self.coef_view = table_view(self.coef_model, self)
        coef_tab = QWidget(self)
        cl = QVBoxLayout(coef_tab)
        group = tuple(m.key for m in group_measures())
        coef_note = QLabel(
            "Every coefficient over all coders of each code (alpha also on whether the code "
            f"applies): {measures_summary(group)}. Hover for the counts and how each was "
            "computed.", self)
        coef_note.setWordWrap(True)
        cl.addWidget(coef_note)
        cl.addWidget(self.coef_view, 1)

        # -- pairs tab --------------------------------------------------------------------
        self.pair_code = QComboBox(self)
        #: the measures of pairs of the measures table
        self.pair_measure = QComboBox(self)
        for m in pair_measures():
            self.pair_measure.addItem(m.label, m.key)
        self.pair_weights = QComboBox(self)
        for key, text in WEIGHT_CHOICES:
            self.pair_weights.addItem(text, key)
        self.pair_model: RowsModel = RowsModel([], self)
        self.pair_view = table_view(self.pair_model, self)
        self.pair_note = QLabel(self)
        self.pair_note.setWordWrap(True)
        self.pair_code.currentIndexChanged.connect(self.show_matrix)
        self.pair_weights.currentIndexChanged.connect(self.show_matrix)
        self.pair_measure.currentIndexChanged.connect(self.show_matrix)
        pairs_tab = QWidget(self)
        pl = QVBoxLayout(pairs_tab)
        row = QHBoxLayout()
        row.addWidget(QLabel("Code", self))
        row.addWidget(self.pair_code, 1)
        row.addWidget(self.pair_measure)
        row.addWidget(QLabel("with", self))
        row.addWidget(self.pair_weights)
        pl.addLayout(row)
        pl.addWidget(self.pair_view, 1)
        pl.addWidget(self.pair_note)

        # -- users tab --------------------------------------------------------------------
        self.users_weights = QComboBox(self)
        for key, text in WEIGHT_CHOICES[:2]:
            self.users_weights.addItem(text, key)
        self.users_model: RowsModel[RaterRow] = RowsModel(rater_columns("quadratic"), self)
        self.users_view = table_view(self.users_model, self)
        self.users_empty = QLabel(self)
        self.users_empty.setWordWrap(True)
        self.users_empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.users_stack = QStackedWidget(self)
        self.users_stack.addWidget(self.users_empty)
        self.users_stack.addWidget(self.users_view)
        self.users_weights.currentIndexChanged.connect(self.show_users)
        users_tab = QWidget(self)
        ul = QVBoxLayout(users_tab)
        row = QHBoxLayout()
        row.addWidget(QLabel("Each coder, and the consensus, against the users' own rating of "
                             "the same turn. Ordinal codes: κ", self))
        row.addWidget(self.users_weights)
        row.addStretch(1)
        ul.addLayout(row)
        ul.addWidget(self.users_stack, 1)

        # -- diagnostics tab --------------------------------------------------------------
        self.diag_code = QComboBox(self)
        self.diag_pair = QComboBox(self)
        self.confusion_model: RowsModel[ConfusionRow] = RowsModel([], self)
        self.confusion_view = table_view(self.confusion_model, self)
        self.coder_model: RowsModel[CoderDiagRow] = RowsModel(coder_diag_columns(), self)
        self.coder_view = table_view(self.coder_model, self)
        self.diag_note = QLabel(self)
        self.diag_note.setWordWrap(True)
        self.save_confusion_button = QPushButton("Save diagnostics (CSV)…", self)
        self.save_confusion_button.clicked.connect(self.save_diagnostics_dialog)
        self.diag_code.currentIndexChanged.connect(self._diag_code_changed)
        self.diag_pair.currentIndexChanged.connect(self.show_confusion)
        diag_tab = QWidget(self)
        dl = QVBoxLayout(diag_tab)
        row = QHBoxLayout()
        row.addWidget(QLabel("Code", self))
        row.addWidget(self.diag_code, 1)
        row.addWidget(QLabel("Confusion matrix of", self))
        row.addWidget(self.diag_pair, 1)
        row.addWidget(self.save_confusion_button)
        dl.addLayout(row)
        dl.addWidget(self.confusion_view, 3)
        dl.addWidget(self.diag_note)
        dl.addWidget(QLabel("<b>Each coder against the others</b>: bias and drift over the "
                            "order of coding", self))
        dl.addWidget(self.coder_view, 2)

        self.addTab(codes_tab, "Codes")
        self.addTab(coef_tab, "Coefficients")
        self.addTab(pairs_tab, "Coder pairs")
        self.addTab(users_tab, "Coders vs users")
        self.addTab(diag_tab, "Diagnostics")
        self.diag_code.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.pair_code.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.show_report(None, {}, None)

    def show_report(self, report: AgreementReport | None, labels: dict[str, str],
                    with_users: bool | None) -> None:
        self.report, self.labels, self.with_users = report, labels, with_users
        rows = code_rows(report, labels) if report is not None else []
        self.code_model.set_rows(rows)
        self.coef_model.set_rows(coefficient_rows(report, labels) if report is not None else [])
        self.plot.set_rows(rows)
        self.band_label.setText(f"Alpha among the coders: {band_summary(rows)}." if rows else "")
        current = self.pair_code.currentData()
        self.pair_code.blockSignals(True)
        self.pair_code.clear()
        for code in report.codes if report is not None else []:
            self.pair_code.addItem(labels.get(code, code), code)
        if current is not None and self.pair_code.findData(current) >= 0:
            self.pair_code.setCurrentIndex(self.pair_code.findData(current))
        self.pair_code.blockSignals(False)
        self.show_matrix()
        self.show_users()
        current = self.diag_code.currentData()
        self.diag_code.blockSignals(True)
        self.diag_code.clear()
        for code in report.codes if report is not None else []:
            self.diag_code.addItem(labels.get(code, code), code)
        if current is not None and self.diag_code.findData(current) >= 0:
            self.diag_code.setCurrentIndex(self.diag_code.findData(current))
        self.diag_code.blockSignals(False)
        self._diag_code_changed()

    def _diag_code_changed(self, *_: object) -> None:
        code = self.diag_code.currentData()
        diag = self.report.diagnostics if self.report is not None else {}
        self.diag_pair.blockSignals(True)
        self.diag_pair.clear()
        if code is not None and "confusion" in diag:
            frame = diag["confusion"]
            part = frame[frame["code"] == code]
            for a, b in dict.fromkeys(zip(part["coder_a"], part["coder_b"], strict=True)):
                self.diag_pair.addItem(f"{a} and {b}", (a, b))
        self.diag_pair.blockSignals(False)
        self.show_confusion()
        rows = (coder_diag_rows(diag["bias"], diag["drift"], code)
                if code is not None and "bias" in diag else [])
        self.coder_model.set_rows(rows)
        self.save_confusion_button.setEnabled(bool(diag))

    def show_confusion(self, *_: object) -> None:
        code, pair = self.diag_code.currentData(), self.diag_pair.currentData()
        diag = self.report.diagnostics if self.report is not None else {}
        if code is None or pair is None or "confusion" not in diag:
            self.confusion_model.set_columns([])
            self.confusion_model.set_rows([])
            self.diag_note.setText("" if self.report is None else
                                   "No pair of coders rated units of this code.")
            return
        a, b = pair
        levels, rows = confusion_rows(diag["confusion"], code, a, b)
        self.confusion_model.set_columns(confusion_columns(a, b, levels))
        self.confusion_model.set_rows(rows)
        total = sum(sum(r.counts.values()) for r in rows)
        same = sum(r.counts.get(r.level, 0) for r in rows)
        self.diag_note.setText(
            f"{total} units both rated, {same} with the same level (bold diagonal). Coding "
            "order is the time each coding was last saved. Darker = more units.")

    def save_diagnostics(self, folder: str | Path, stem: str = "agreement") -> list[Path]:
        """Write the confusion, bias and drift tables as three CSV files."""
        from ...domain.export.tables import write_csv

        out = []
        for name, frame in (self.report.diagnostics if self.report else {}).items():
            path = Path(folder) / f"{stem}-{name}.csv"
            write_csv(frame, path)
            out.append(path)
        return out

    def save_diagnostics_dialog(self) -> None:
        folder = file_dialogs.choose_folder(self, "Folder for the diagnostics tables")
        if folder:
            self.save_diagnostics(folder)

    def show_matrix(self, *_: object) -> None:
        code = self.pair_code.currentData()
        if self.report is None or code is None:
            self.pair_model.set_columns([])
            self.pair_model.set_rows([])
            self.pair_note.setText("")
            return
        measure = measure_of(self.pair_measure.currentData() or COHEN)
        raters, rows, used = matrix_rows(self.report, code, self.pair_weights.currentData(),
                                         measure.key if measure else COHEN)
        self.pair_model.set_columns(matrix_columns(raters))
        self.pair_model.set_rows(rows)
        wanted = self.pair_weights.currentData()
        label = measure.label if measure else COHEN
        note = (f"{label} of each pair on the units both rated; weights over the code's "
                "declared scale. Darker = higher. Hover for the number of units.")
        if used != wanted:
            note += f" Only {dict(WEIGHT_CHOICES)[used]} {label} exists for this code."
        if not raters:
            note = "No pair of raters rated the same units of this code."
        crowd = next((r.note for r in self.report.for_code(code)
                      if r.measure == COHEN and len(r.coders) > 2), "")
        if crowd:  # too many coders for every pair (see MAX_PAIR_CODERS)
            note += f" Coder pairs: {crowd}."
        self.pair_note.setText(note)

    def show_users(self, *_: object) -> None:
        weights = self.users_weights.currentData() or "quadratic"
        rows = rater_rows(self.report, USERS_RATER, weights, self.labels) if self.report else []
        self.users_model.set_columns(rater_columns(weights, rows))
        self.users_model.set_rows(rows)
        if rows:
            self.users_stack.setCurrentWidget(self.users_view)
            return
        if self.report is None:
            text = "Run the agreement to compare the coders with the users."
        elif self.with_users is False:
            text = ("Tick “Compare with the users' own ratings” and run again to see each coder "
                    "against the users.")
        else:
            text = "None of the chosen codes is linked to a users' rating."
        self.users_empty.setText(text)
        self.users_stack.setCurrentWidget(self.users_empty)
