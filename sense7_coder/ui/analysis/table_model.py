"""A read-only table model over a list of rows, described column by column; calm colours.

Every analysis table (agreement figures, coder pairs, the reconciliation queue) is a
:class:`RowsModel` with a list of :class:`Column`: the header, the text of a row, and
optionally its tooltip, background and alignment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QTableView, QWidget

from ...domain.agreement.records import band_hue
from ..workspace.transcript import mix

R = TypeVar("R")
Index = QModelIndex | QPersistentModelIndex

#: hues of Krippendorff's bands; shown as faint backgrounds mixed into the window's base colour
BAND_HUES = {
    "good": QColor("#3f8f4f"),
    "tentative": QColor("#c99a2e"),
    "low": QColor("#b5483f"),
    "undefined": QColor("#8a8a8a"),
}
ALIGN_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
ALIGN_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
ALIGN_CENTER = int(Qt.AlignmentFlag.AlignCenter)
#: item role holding the row object itself
RowRole = int(Qt.ItemDataRole.UserRole) + 1


def _palette() -> QPalette:
    app = QApplication.instance()
    return app.palette() if isinstance(app, QApplication) else QPalette()


def band_colour(band: str, strength: float = 0.22) -> QColor | None:
    """A faint background for an alpha band (None for no band)."""
    hue = BAND_HUES.get(band_hue(band))
    if hue is None:
        return None
    base = _palette().color(QPalette.ColorRole.Base)
    return mix(base, hue, strength if band_hue(band) != "undefined" else strength * 0.6)


def shade(value: float | None, strength: float = 0.35) -> QColor | None:
    """A one-hue shading that grows with ``value`` in 0..1 (for kappa matrices)."""
    if value is None or value != value:
        return None
    base = _palette().color(QPalette.ColorRole.Base)
    return mix(base, QColor("#3b6fa8"), max(0.0, min(1.0, value)) * strength)


@dataclass
class Column(Generic[R]):
    header: str
    text: Callable[[R], str]
    tooltip: Callable[[R], str | None] | None = None
    background: Callable[[R], QColor | None] | None = None
    align: int = ALIGN_LEFT
    bold: Callable[[R], bool] | None = None
    header_tip: str = ""


class RowsModel(QAbstractTableModel, Generic[R]):
    """Rows of any type shown through :class:`Column` descriptions (read-only)."""

    def __init__(self, columns: Sequence[Column[R]], parent: Any = None) -> None:
        super().__init__(parent)
        self.columns = list(columns)
        self.rows: list[R] = []
        self._bold = QFont()
        self._bold.setBold(True)

    # -- changing ------------------------------------------------------------------------
    def set_rows(self, rows: Sequence[R]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def set_columns(self, columns: Sequence[Column[R]]) -> None:
        self.beginResetModel()
        self.columns = list(columns)
        self.endResetModel()

    def row_changed(self, row: int) -> None:
        if 0 <= row < len(self.rows) and self.columns:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.columns) - 1))

    def row_of(self, index: Index) -> R | None:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        return self.rows[index.row()]

    # -- Qt model interface --------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_of(index)
        if row is None or not 0 <= index.column() < len(self.columns):
            return None
        col = self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return col.text(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            return col.tooltip(row) if col.tooltip is not None else None
        if role == Qt.ItemDataRole.BackgroundRole:
            return col.background(row) if col.background is not None else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return col.align
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if col.bold is not None and col.bold(row) else None
        if role == RowRole:
            return row
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self.columns):
            if role == Qt.ItemDataRole.DisplayRole:
                return self.columns[section].header
            if role == Qt.ItemDataRole.ToolTipRole:
                return self.columns[section].header_tip or None
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return str(section + 1)
        return None


def table_view(model: RowsModel[Any], parent: QWidget) -> QTableView:
    """A compact read-only table for a :class:`RowsModel` (whole rows selected)."""
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setAlternatingRowColors(False)
    view.verticalHeader().hide()
    view.setWordWrap(False)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 10)
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    return view
