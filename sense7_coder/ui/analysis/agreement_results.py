"""The agreement window's results: the codes with their plot, every coefficient, coder pairs,
coders vs users."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...domain.agreement import USERS_RATER, AgreementReport
from .agreement_plot import AlphaPlot
from .agreement_tables import (
    band_summary,
    code_columns,
    coefficient_columns,
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
        coef_note = QLabel(
            "Every coefficient over all coders of each code: alpha on the values and on "
            "whether the code applies, Gwet's AC1 (AC2 weighted for ordinal codes), "
            "Brennan–Prediger and, for ordinal codes, the six ICC forms (units every coder "
            "rated). Hover for the counts and how each was computed.", self)
        coef_note.setWordWrap(True)
        cl.addWidget(coef_note)
        cl.addWidget(self.coef_view, 1)

        # -- pairs tab --------------------------------------------------------------------
        self.pair_code = QComboBox(self)
        self.pair_weights = QComboBox(self)
        for key, text in WEIGHT_CHOICES:
            self.pair_weights.addItem(text, key)
        self.pair_model: RowsModel = RowsModel([], self)
        self.pair_view = table_view(self.pair_model, self)
        self.pair_note = QLabel(self)
        self.pair_note.setWordWrap(True)
        self.pair_code.currentIndexChanged.connect(self.show_matrix)
        self.pair_weights.currentIndexChanged.connect(self.show_matrix)
        pairs_tab = QWidget(self)
        pl = QVBoxLayout(pairs_tab)
        row = QHBoxLayout()
        row.addWidget(QLabel("Code", self))
        row.addWidget(self.pair_code, 1)
        row.addWidget(QLabel("Cohen's κ with", self))
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

        self.addTab(codes_tab, "Codes")
        self.addTab(coef_tab, "Coefficients")
        self.addTab(pairs_tab, "Coder pairs")
        self.addTab(users_tab, "Coders vs users")
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

    def show_matrix(self, *_: object) -> None:
        code = self.pair_code.currentData()
        if self.report is None or code is None:
            self.pair_model.set_columns([])
            self.pair_model.set_rows([])
            self.pair_note.setText("")
            return
        raters, rows, used = matrix_rows(self.report, code, self.pair_weights.currentData())
        self.pair_model.set_columns(matrix_columns(raters))
        self.pair_model.set_rows(rows)
        wanted = self.pair_weights.currentData()
        note = ("Cohen's κ of each pair on the units both rated; weights over the code's "
                "declared scale. Darker = higher. Hover for the number of units.")
        if used != wanted:
            note += f" This code is not ordinal: only {dict(WEIGHT_CHOICES)[used]} κ exists."
        if not raters:
            note = "No pair of raters rated the same units of this code."
        self.pair_note.setText(note)

    def show_users(self, *_: object) -> None:
        weights = self.users_weights.currentData() or "quadratic"
        rows = rater_rows(self.report, USERS_RATER, weights, self.labels) if self.report else []
        self.users_model.set_columns(rater_columns(weights))
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
