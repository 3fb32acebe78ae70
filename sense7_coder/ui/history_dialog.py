"""Coding › History of this turn: every change to the turn's codings, done marks, memos and
consensus, newest first (under blind coding: only your own until you finish the turn)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..domain.words import count
from ..project import Project
from ..project.team.tables import turn_history
from .screen import fit_to_screen

COLUMNS = ("Time (UTC)", "Coder", "What", "Code", "Before", "After", "How")
KIND_WORDS = {"coding": "coding", "done": "done mark", "memo": "memo",
              "consensus": "consensus", "assignment": "assignment", "span": "span",
              "span memo": "span memo"}


def _short_time(stamp: str) -> str:
    return stamp.replace("T", " ")[:19]


class TurnHistoryDialog(QDialog):
    def __init__(self, project: Project, conversation_id: str, position: int,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"History — conversation {conversation_id}, turn {position}")
        # newest first: the change you just made is at the top
        self.rows = list(reversed(turn_history(project, conversation_id, position)))
        self.table = QTableWidget(len(self.rows), len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)  # whole text on hover
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setAccessibleName("Changes to this turn, newest first")
        for i, r in enumerate(self.rows):
            what = f"{r['action']} {KIND_WORDS.get(r['kind'], r['kind'])}"
            how = r["source"] + (f" (in {r['origin']})" if r["origin"] else "")
            cells = (_short_time(r["at"]), r["coder"] or "", what, r["code"] or "",
                     _text(r["before"]), _text(r["after"]), how)
            for j, value in enumerate(cells):
                item = QTableWidgetItem(value)
                item.setToolTip(value)
                self.table.setItem(i, j, item)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # a memo in Before/After shares the room left and is cut with "…" (its whole text
        # in the tooltip) instead of pushing Time, Coder and What out of view
        for j in (COLUMNS.index("Before"), COLUMNS.index("After")):
            header.setSectionResizeMode(j, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        blind = project.blind_for(conversation_id, position)
        n = len(self.rows)
        note = f"{count(n, 'change')}, newest first."
        if blind:
            note += " Blind coding: other coders' changes show once you mark the turn done."
        self.note = QLabel(note if n else "Nothing has changed on this turn yet.", self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.setSizeGripEnabled(True)  # resizable, from the corner too
        fit_to_screen(self, 900, 460)


def _text(value: Any) -> str:
    return "" if value is None else str(value)
