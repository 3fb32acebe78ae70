"""Item models of the import dialog: the preview table and the two choice tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from ...domain.models import RATING_KEYS

Index = QModelIndex | QPersistentModelIndex
TEXT_SHOWN = 240
TOOLTIP_SHOWN = 2000
CHOICES_ROLE = Qt.ItemDataRole.UserRole + 10
#: what each mappable field means (tooltips of the Columns table)
FIELD_TIPS = {
    "conversation_id": "the conversation each message belongs to",
    "participant_id": "who took part (the user)",
    "model": "the assistant or model",
    "topic": "the conversation's topic",
    "role": "user / assistant / system for each message",
    "speaker": "the speaker's name; say which role each name has under Speakers",
    "text": "the message text",
    "position": "the order of messages within a conversation",
    "time_offset": "seconds since the conversation began",
    "comment": "the user's own remark on the turn",
    "transcript": "a whole conversation as 'Name: text' lines",
    **{k: f"the user's own rating '{k}' (1-5, very poor..very good, or unknown)" for k in RATING_KEYS},
}

HEADER_LABELS = {
    "conversation_id": "conversation",
    "position": "turn",
    "time_offset": "time (s)",
    "overall": "overall",
    "affective": "affect.",
    "cognitive": "cognit.",
    "response": "resp.",
    "prosocial": "prosoc.",
    "interest": "interest",
    "contextual": "context.",
    "relational": "relat.",
}
HEADER_TIPS = {
    "conversation_id": "conversation id",
    "position": "position of the turn in its conversation",
    "time_offset": "seconds since the conversation began",
    **{k: f"the user's own '{k}' rating of the turn (1-5; n/a = not applicable)"
       for k in RATING_KEYS},
}


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    try:
        if pd.isna(value):
            return ""
    except (TypeError, ValueError):
        pass
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class DataFrameModel(QAbstractTableModel):
    """A read-only view of a DataFrame. Long texts are shortened; the tooltip shows more."""

    def __init__(self, frame: pd.DataFrame | None = None) -> None:
        super().__init__()
        self._frame = frame if frame is not None else pd.DataFrame()
        self._cells: list[list[str]] = []
        self._columns: list[str] = []
        self.set_frame(self._frame)

    def set_frame(self, frame: pd.DataFrame) -> None:
        self.beginResetModel()
        self._frame = frame
        self._columns = [str(c) for c in frame.columns]
        self._cells = [[_cell_text(v) for v in row] for row in frame.itertuples(index=False)]
        self.endResetModel()

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._cells)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._cells):
            return None
        text = self._cells[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            flat = " ⏎ ".join(part for part in text.splitlines() if part.strip()) if "\n" in text else text
            return flat if len(flat) <= TEXT_SHOWN else flat[: TEXT_SHOWN - 1] + "…"
        if role == Qt.ItemDataRole.ToolTipRole and len(text) > 40:
            return text if len(text) <= TOOLTIP_SHOWN else text[: TOOLTIP_SHOWN - 1] + "…"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            name = self._columns[index.column()]
            if name not in ("text", "comment", "conversation_id", "role", "speaker"):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._columns):
            name = self._columns[section]
            if role == Qt.ItemDataRole.DisplayRole:
                return HEADER_LABELS.get(name, name)
            if role == Qt.ItemDataRole.ToolTipRole:
                return HEADER_TIPS.get(name)
            return None
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Vertical and 0 <= section < len(self._cells):
            return str(section + 1)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren


class ChoiceTableModel(QAbstractTableModel):
    """Two columns: a name and a value chosen from a list (first choice = "not set").

    Used for field -> source column and speaker -> role. ``changed`` after a user's choice.
    """

    changed = Signal()

    def __init__(self, headers: tuple[str, str], unset: str) -> None:
        super().__init__()
        self.headers = headers
        self.unset = unset
        self._names: list[str] = []
        self._values: list[str] = []
        self._tips: dict[str, str] = {}
        self._choices: list[str] = [unset]

    def set_rows(self, rows: Sequence[tuple[str, str | None]], choices: Sequence[str],
                 tips: dict[str, str] | None = None) -> None:
        self.beginResetModel()
        self._choices = [self.unset, *[c for c in choices if c != self.unset]]
        self._names = [name for name, _ in rows]
        self._values = [value if value in self._choices else self.unset for _, value in rows]
        self._tips = dict(tips or {})
        self.endResetModel()

    def choices(self) -> list[str]:
        return list(self._choices)

    def value(self, name: str) -> str | None:
        if name not in self._names:
            return None
        value = self._values[self._names.index(name)]
        return None if value == self.unset else value

    def chosen(self) -> dict[str, str]:
        """name -> value for every row that has a value."""
        return {n: v for n, v in zip(self._names, self._values, strict=True) if v != self.unset}

    def names(self) -> list[str]:
        return list(self._names)

    def set_value(self, name: str, value: str | None) -> bool:
        if name not in self._names:
            return False
        return self.setData(self.index(self._names.index(name), 1), value or self.unset)

    # -- Qt model --------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 2

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._names):
            return None
        name = self._names[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return name if index.column() == 0 else self._values[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 0:
            return self._tips.get(name)
        if role == CHOICES_ROLE and index.column() == 1:
            return list(self._choices)
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or index.column() != 1:
            return False
        text = str(value) if value is not None else self.unset
        if text not in self._choices:
            return False
        if self._values[index.row()] != text:
            self._values[index.row()] = text
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole])
            self.changed.emit()
        return True

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren
        if index.column() == 1:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal \
                and 0 <= section < 2:
            return self.headers[section]
        return None


class ChoiceDelegate(QStyledItemDelegate):
    """A combo box over the choices a model gives in CHOICES_ROLE; commits on every pick."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        combo = QComboBox(parent)
        combo.addItems(list(index.data(CHOICES_ROLE) or []))
        combo.currentIndexChanged.connect(lambda _i, c=combo: self.commitData.emit(c))
        return combo

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        assert isinstance(editor, QComboBox)
        editor.blockSignals(True)
        editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole) or ""))
        editor.blockSignals(False)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:
        assert isinstance(editor, QComboBox)
        model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)
