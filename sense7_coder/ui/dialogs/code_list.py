"""The list of codes in the codebook editor: one row per code, reorderable by dragging."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from ...domain.codebook.codes import Code

Index = QModelIndex | QPersistentModelIndex
KEY_ROLE = Qt.ItemDataRole.UserRole
RETIRED_ROLE = Qt.ItemDataRole.UserRole + 1


class CodeListModel(QAbstractListModel):
    """Codes in codebook order. Moving a row calls ``persist_order(keys)`` first; the move
    only happens in the view when that returns True (i.e. the project accepted it)."""

    def __init__(self, persist_order: Callable[[list[str]], bool] | None = None) -> None:
        super().__init__()
        self._codes: list[Code] = []
        self._persist_order = persist_order

    # -- content ---------------------------------------------------------------------------
    def set_codes(self, codes: Sequence[Code]) -> None:
        self.beginResetModel()
        self._codes = list(codes)
        self.endResetModel()

    def replace(self, code: Code) -> None:
        """Show the saved version of a code (same key) without resetting the view."""
        row = self.row_of(code.key)
        if row >= 0:
            self._codes[row] = code
            index = self.index(row)
            self.dataChanged.emit(index, index)

    def code_at(self, row: int) -> Code | None:
        return self._codes[row] if 0 <= row < len(self._codes) else None

    def row_of(self, key: str) -> int:
        return next((i for i, c in enumerate(self._codes) if c.key == key), -1)

    def keys(self) -> list[str]:
        return [c.key for c in self._codes]

    # -- Qt model --------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._codes)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._codes):
            return None
        code = self._codes[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            text = code.label
            if code.shortcut:
                text += f"  [{code.shortcut}]"
            return text + ("  (retired)" if code.retired else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            where = f"{code.kind}, per {code.unit}"
            if code.unit != "conversation":
                where += f", {code.applies_to} turns"
            return f"{code.key}: {where}" + ("; retired (hidden from coding)" if code.retired else "")
        if role == Qt.ItemDataRole.DecorationRole:
            return QColor(code.color) if code.color else QColor(Qt.GlobalColor.transparent)
        if role == Qt.ItemDataRole.ForegroundRole and code.retired:
            return QBrush(QApplication.palette().color(QPalette.ColorGroup.Disabled,
                                                       QPalette.ColorRole.Text))
        if role == Qt.ItemDataRole.FontRole and code.retired:
            font = QFont()
            font.setItalic(True)
            return font
        if role == KEY_ROLE:
            return code.key
        if role == RETIRED_ROLE:
            return code.retired
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.ItemIsDropEnabled
        return (Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
                | Qt.ItemFlag.ItemIsDragEnabled | Qt.ItemFlag.ItemNeverHasChildren)

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def moveRows(
        self, source_parent: Index, source_row: int, count: int,
        destination_parent: Index, destination_child: int,
    ) -> bool:
        n = len(self._codes)
        if (source_parent.isValid() or destination_parent.isValid() or count != 1
                or not 0 <= source_row < n or not 0 <= destination_child <= n
                or destination_child in (source_row, source_row + 1)):
            return False
        codes = list(self._codes)
        moved = codes.pop(source_row)
        target = destination_child - 1 if destination_child > source_row else destination_child
        codes.insert(target, moved)
        if self._persist_order is not None and not self._persist_order([c.key for c in codes]):
            return False
        self.beginMoveRows(QModelIndex(), source_row, source_row, QModelIndex(), destination_child)
        self._codes = codes
        self.endMoveRows()
        return True

    def move(self, row: int, delta: int) -> bool:
        """Move one code up (-1) or down (+1)."""
        dest = row + delta
        if not 0 <= row < len(self._codes) or not 0 <= dest < len(self._codes):
            return False
        child = dest + 1 if delta > 0 else dest
        return self.moveRows(QModelIndex(), row, 1, QModelIndex(), child)
