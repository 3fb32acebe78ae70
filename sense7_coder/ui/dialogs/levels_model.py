"""The editable table of a code's levels (value, label, description)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from ...domain.codebook.codes import Level

Index = QModelIndex | QPersistentModelIndex
HEADERS = ("Value", "Label", "Description")


class LevelsModel(QAbstractTableModel):
    """Levels as text cells; the form turns them into a Code (and validates) on commit.

    ``edited`` is emitted after every change made through the model (cell edits, added,
    removed or moved rows), not after :meth:`set_levels`.
    """

    edited = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[list[str]] = []
        self.value_editable = True

    # -- content ---------------------------------------------------------------------------
    def set_levels(self, levels: Sequence[Level]) -> None:
        self.beginResetModel()
        self._rows = [[str(lv.value), lv.label, lv.description] for lv in levels]
        self.endResetModel()

    def rows(self) -> list[list[str]]:
        return [list(r) for r in self._rows]

    def insert_level(self, row: int, value: str, label: str = "", description: str = "") -> None:
        row = max(0, min(row, len(self._rows)))
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.insert(row, [value, label, description])
        self.endInsertRows()
        self.edited.emit()

    def remove_level(self, row: int) -> None:
        if not 0 <= row < len(self._rows):
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._rows[row]
        self.endRemoveRows()
        self.edited.emit()

    def move_level(self, row: int, delta: int) -> bool:
        dest = row + delta
        if not 0 <= row < len(self._rows) or not 0 <= dest < len(self._rows) or delta == 0:
            return False
        child = dest + 1 if delta > 0 else dest
        self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), child)
        self._rows.insert(dest, self._rows.pop(row))
        self.endMoveRows()
        self.edited.emit()
        return True

    # -- Qt model --------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 2:
            return self._rows[index.row()][2] or None
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        if not self.flags(index) & Qt.ItemFlag.ItemIsEditable:
            return False
        text = "" if value is None else str(value)
        if index.column() < 2:
            text = text.strip()
        if self._rows[index.row()][index.column()] == text:
            return True
        self._rows[index.row()][index.column()] = text
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole])
        self.edited.emit()
        return True

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = (Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
                 | Qt.ItemFlag.ItemNeverHasChildren)
        if index.column() > 0 or self.value_editable:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(HEADERS):
            return HEADERS[section]
        if orientation == Qt.Orientation.Vertical:
            return str(section + 1)
        return None
