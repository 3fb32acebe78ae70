"""The agreement window's Spans tab: per span code, αu, the presence alpha and γ."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from ...project.spans.agreement import SpanAgreement

COLUMNS = ("Span code", "Coders", "Conversations", "Turns", "Spans", "αu", "αu 95% CI",
           "Presence α", "Presence 95% CI", "γ", "Note")


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _interval(ci: tuple[float, float] | None) -> str:
    return "–" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


class SpanAgreementTab(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        note = QLabel(
            "Codes coded on spans of text, over the conversations every compared coder worked "
            "on. αu: Krippendorff's unitizing alpha (where and what the coders marked); "
            "presence α: the code present in a turn or not (nominal alpha); intervals: "
            "percentile bootstrap over conversations (95%); γ: Mathet's gamma (command line: agreement "
            "--gamma, with the 'spans' extra).", self)
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 1)
        self.rows: list[SpanAgreement] = []

    def show_rows(self, rows: Sequence[SpanAgreement]) -> None:
        self.rows = list(rows)
        self.table.setRowCount(len(self.rows))
        for i, r in enumerate(self.rows):
            cells = (r.code, ", ".join(r.coders), str(r.conversations), str(r.turns),
                     str(r.spans), _number(r.alpha_u), _interval(r.alpha_u_ci),
                     _number(r.presence), _interval(r.presence_ci), _number(r.gamma), r.note)
            for j, text in enumerate(cells):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
