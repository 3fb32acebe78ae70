"""Coding › Assignments and packages › Calibration rounds: every round, alpha per code with
its interval and verdict against the round's threshold, what to discuss first, and the main
coding's reliability subsample against the last closed round (drift). A lead closes the open
round here; starting one is ``sense7-coder round start`` (it needs the sample's seed and the
threshold stated before any value is seen)."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..domain.agreement_settings import interval_short
from ..domain.errors import Sense7Error
from ..domain.words import count
from ..project import Project
from ..project import rounds as rp
from .screen import fit_to_screen

VERDICT_COLUMNS = ("Code", "α", "95% interval", "Units", "Verdict")
DRIFT_COLUMNS = ("Code", "α in the round", "α in the main coding", "95% interval", "Units",
                 "Reading")


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _ci(v: Any) -> str:
    return interval_short(v.ci_low, v.ci_high, v.ci_method, "–")


def _table(parent: QWidget, header: tuple[str, ...], rows: list[list[str]]) -> QTableWidget:
    table = QTableWidget(len(rows), len(header), parent)
    table.setHorizontalHeaderLabels(header)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            table.setItem(i, j, QTableWidgetItem(text))
    table.resizeColumnsToContents()
    table.horizontalHeader().setSectionResizeMode(len(header) - 1,
                                                  QHeaderView.ResizeMode.Stretch)
    return table


class RoundsDialog(QDialog):
    """The calibration rounds of ``project`` (see the module notes)."""

    def __init__(self, project: Project, parent: QWidget | None = None,
                 draws: int = rp.ROUND_DRAWS) -> None:
        super().__init__(parent)
        self.project, self.draws = project, draws
        self.setWindowTitle(f"Calibration rounds — {project.path.name}")
        fit_to_screen(self, 900, 720)
        self.choice = QComboBox(self)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.verdicts = _table(self, VERDICT_COLUMNS, [])
        self.discuss = QPlainTextEdit(self)
        self.discuss.setReadOnly(True)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.discuss.setFont(mono)
        self.drift_label = QLabel(self)
        self.drift_label.setWordWrap(True)
        self.drift = _table(self, DRIFT_COLUMNS, [])
        self.close_button = QPushButton("Close this round…", self)
        self.close_button.setToolTip("Record each code's α, interval and verdict (lead only)")
        self.close_button.setAutoDefault(False)
        top = QHBoxLayout()
        top.addWidget(QLabel("Round", self))
        top.addWidget(self.choice)
        top.addStretch(1)
        top.addWidget(self.close_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        self.layout_ = QVBoxLayout(self)
        self.layout_.addLayout(top)
        self.layout_.addWidget(self.summary)
        self.layout_.addWidget(self.verdicts, 3)
        self.layout_.addWidget(QLabel("<b>Worth discussing first</b> (furthest apart)", self))
        self.layout_.addWidget(self.discuss, 2)
        self.layout_.addWidget(self.drift_label)
        self.layout_.addWidget(self.drift, 2)
        self.layout_.addWidget(buttons)
        self.choice.currentIndexChanged.connect(self.show_round)
        self.close_button.clicked.connect(self.close_round)
        self.reload()

    def reload(self) -> None:
        self.choice.blockSignals(True)
        self.choice.clear()
        for r in rp.rounds(self.project):
            state = "closed" if r["closed_at"] else "open"
            self.choice.addItem(f"{r['number']} ({state})", r["number"])
        self.choice.setCurrentIndex(self.choice.count() - 1)
        self.choice.blockSignals(False)
        self.show_round()
        self.show_drift()

    def _replace(self, old: QTableWidget, new: QTableWidget) -> QTableWidget:
        self.layout_.replaceWidget(old, new)
        old.hide()
        old.setParent(None)
        old.deleteLater()
        return new

    def show_round(self) -> None:
        number = self.choice.currentData()
        if number is None:
            self.summary.setText("No calibration round yet. A lead starts one with "
                                 "<tt>sense7-coder round start PROJECT --sample N --coders "
                                 "A,B,C --threshold .800</tt>.")
            self.close_button.setEnabled(False)
            return
        try:
            status = rp.round_status(self.project, int(number), self.draws)
        except Sense7Error as e:
            self.summary.setText(str(e))
            return
        r = status.round
        met = sum(v.met for v in status.verdicts)
        self.summary.setText(
            f"{r['sample']} conversations coded by {', '.join(r['coders'])} under codebook "
            f"version {r['codebook_version']}; threshold: α's 95% interval's lower end ≥ "
            f"{r['threshold']:.3f}, set when the round started. <b>{met} of "
            f"{count(len(status.verdicts), 'code')} met it.</b>")
        rows = [[v.code, _fmt(v.alpha), _ci(v), str(v.units), v.verdict()]
                for v in status.verdicts]
        self.verdicts = self._replace(self.verdicts, _table(self, VERDICT_COLUMNS, rows))
        lines = []
        for d in status.discuss[:20]:
            values = ", ".join(f"{c}={'NA' if v is None else v}" for c, v in d.values.items())
            lines.append(f"{d.code:<14} {d.unit.conversation_id} turn {d.unit.position:<4} "
                         f"{values}")
            lines += [f"{'':<14}   {c}'s rationale: {t[:90]}" for c, t in d.rationales.items()]
            lines += [f"{'':<14}   {c}'s memo: {t[:90]}" for c, t in d.memos.items()]
        self.discuss.setPlainText("\n".join(lines) or "No disagreement.")
        self.close_button.setEnabled(r["closed_at"] is None)

    def show_drift(self) -> None:
        try:
            last, n, rows = rp.drift(self.project, self.draws)
        except Sense7Error as e:
            self.drift_label.setText(f"<b>Reliability subsample of the main coding:</b> {e}")
            self.drift.hide()
            return
        self.drift_label.setText(
            f"<b>Reliability subsample of the main coding</b> ({n} conversations every coder "
            f"codes) against round {last['number']}:")
        table = _table(self, DRIFT_COLUMNS, [
            [d.code, _fmt(d.round_alpha), _fmt(d.main.alpha), _ci(d.main), str(d.main.units),
             d.reading()] for d in rows])
        self.drift = self._replace(self.drift, table)
        self.drift.show()

    def close_round(self) -> bool:
        number = self.choice.currentData()
        if number is None:
            return False
        try:
            rp.close_round(self.project, int(number), self.draws)
        except Sense7Error as e:
            self.summary.setText(str(e))
            return False
        self.reload()
        return True
