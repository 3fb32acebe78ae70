"""The conversation list as a lazy table model.

The model holds only the row ids of the conversations that match the filter; the summary of
each row (id, participant, model, progress) is fetched a page at a time when the view first
asks for it, and a bounded number of pages is kept. Ten thousand conversations scroll as
smoothly as ten.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from ...domain.words import count
from ...project import Project
from ...project import workspace as ws
from ...project.workspace import ConversationFilter

PAGE = 200
PAGES_KEPT = 50
COLUMNS = ("ID", "Participant", "Model", "Done")
ConversationIdRole = Qt.ItemDataRole.UserRole + 1
ProgressRole = Qt.ItemDataRole.UserRole + 2

Index = QModelIndex | QPersistentModelIndex

# The view asks data() for about seven roles per cell at every paint: plain ints compared
# first, and the flags built once (Python's enum operators cost more than the lookup).
_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole.value)
_ID_ROLE = int(ConversationIdRole)
_PROGRESS_ROLE = int(ProgressRole)
_ROLES = frozenset((_DISPLAY, _TOOLTIP, _ALIGNMENT, _ID_ROLE, _PROGRESS_ROLE))
_RIGHT = int((Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter).value)
_FLAGS = (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
          | Qt.ItemFlag.ItemNeverHasChildren)


class ConversationListModel(QAbstractTableModel):
    def __init__(self, project: Project, parent: Any = None) -> None:
        super().__init__(parent)
        self.project = project
        self.filter = ConversationFilter()
        self._rowids: list[int] = []
        self._pages: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self.pages_fetched = 0
        self.reload()

    # -- loading ------------------------------------------------------------------------------
    def set_filter(self, f: ConversationFilter) -> None:
        self.filter = f
        self.reload()

    def reload(self) -> None:
        """Re-run the filter (new or removed conversations) and forget cached rows."""
        self.hide_model = self.project.hides("model")
        self.beginResetModel()
        self._rowids = ws.conversation_rowids(self.project, self.filter)
        self._pages.clear()
        self.endResetModel()

    def refresh_rows(self) -> None:
        """Forget cached rows (progress changed) and ask the view to repaint them."""
        self._pages.clear()
        if self._rowids:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self._rowids) - 1, len(COLUMNS) - 1)
            )

    def refresh_conversation(self, conversation_id: str) -> None:
        row = self.row_of(conversation_id)
        if row is None:
            return
        self._pages.pop(row // PAGE, None)
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def _row(self, row: int) -> dict[str, Any] | None:
        if not 0 <= row < len(self._rowids):
            return None
        page = row // PAGE
        rows = self._pages.get(page)
        if rows is None:
            ids = self._rowids[page * PAGE : (page + 1) * PAGE]
            fetched = ws.conversation_rows(self.project, ids)
            by_id = {r["rowid"]: r for r in fetched}
            rows = [by_id.get(i, {"rowid": i, "conversation_id": ""}) for i in ids]
            self._pages[page] = rows
            self.pages_fetched += 1
            while len(self._pages) > PAGES_KEPT:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        return rows[row - page * PAGE]

    # -- lookups ------------------------------------------------------------------------------
    def conversation_id(self, row: int) -> str | None:
        data = self._row(row)
        return data["conversation_id"] if data else None

    def row_of(self, conversation_id: str) -> int | None:
        rowid = ws.conversation_index(self.project, conversation_id)
        if rowid is None:
            return None
        # row ids are sorted (import order), so bisect
        i = bisect.bisect_left(self._rowids, rowid)
        return i if i < len(self._rowids) and self._rowids[i] == rowid else None

    # -- Qt model interface -------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rowids)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            if role == Qt.ItemDataRole.DisplayRole:
                return COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole and section == 3:
                return "Turns you have marked done / turns to code"
        return None

    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        role = int(role)
        if role not in _ROLES or not index.isValid():
            return None
        r = self._row(index.row())
        if r is None:
            return None
        col = index.column()
        if role == _DISPLAY:
            if col == 0:
                return r.get("conversation_id", "")
            if col == 1:
                return r.get("participant_id") or ""
            if col == 2:
                return "(hidden)" if self.hide_model else r.get("model") or ""
            if col == 3:
                return f"{r.get('done', 0)}/{r.get('codable', 0)}"
        elif role == _TOOLTIP:
            if col == 2:  # the full value, as the column elides it
                return ("The model stays hidden while you code blind" if self.hide_model
                        else r.get("model") or None)
            topic = r.get("topic")
            lines = [f"Conversation {r.get('conversation_id', '')}"]
            if r.get("participant_id"):  # the whole id, as the column cuts a long one
                lines.append(f"Participant {r.get('participant_id')}")
            if topic:
                lines.append(f"Topic: {topic}")
            lines.append(f"{count(r.get('n_turns', 0) or 0, 'message')}; you have done "
                         f"{r.get('done', 0)} of {count(r.get('codable', 0) or 0, 'turn')} to "
                         "code")
            return "\n".join(lines)
        elif role == _ID_ROLE:
            return r.get("conversation_id")
        elif role == _PROGRESS_ROLE:
            return (int(r.get("done", 0) or 0), int(r.get("codable", 0) or 0))
        elif role == _ALIGNMENT and col == 3:
            return _RIGHT
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _FLAGS
