"""Parts of the import dialog: the preview of the files and the list of check messages."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..palette import tone
from .form_widgets import MessageLabel
from .import_check import PREVIEW_ROWS, GroupCheck, Message
from .import_models import DataFrameModel

ICONS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
    "ok": QStyle.StandardPixmap.SP_DialogApplyButton,
}
ALWAYS_SHOWN = ("conversation_id", "position", "role", "text")
MIN_TEXT_WIDTH = 320
MAX_COMMENT_WIDTH = 200


class PreviewPanel(QGroupBox):
    """The first turns of one file (or file pair) as they will be read; a combo picks which."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(f"Preview: the first {PREVIEW_ROWS} turns as they will be read", parent)
        self.groups: list[GroupCheck] = []
        self.model = DataFrameModel()
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setWordWrap(False)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.group_label = QLabel("File")
        self.group_combo = QComboBox()
        self.note = MessageLabel()
        row = QHBoxLayout()
        row.addWidget(self.group_label)
        row.addWidget(self.group_combo, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.note)
        layout.addWidget(self.view, 1)
        self.group_combo.currentIndexChanged.connect(self.show_group)
        self.show_groups([])

    def show_groups(self, groups: Sequence[GroupCheck]) -> None:
        self.groups = list(groups)
        self.group_combo.blockSignals(True)
        self.group_combo.clear()
        for g in self.groups:
            self.group_combo.addItem(f"{g.name}  ({g.format})")
        self.group_combo.blockSignals(False)
        several = len(self.groups) > 1
        self.group_combo.setVisible(several)
        self.group_label.setVisible(several)
        self.show_group(0)

    def show_group(self, index: int) -> None:
        group = self.groups[index] if 0 <= index < len(self.groups) else None
        if group is not None and group.preview is not None:
            self.model.set_frame(group.preview.frame)
        else:
            self.model.set_frame(DataFrameModel().frame)
        error = group.error_text if group is not None else None
        if error:
            self.note.show_message(f"Cannot be read as it is: {error}", "error")
        else:
            self.note.clear_message()
        frame = self.model.frame
        columns = [str(c) for c in frame.columns]
        for i, name in enumerate(columns):  # hide what the file does not have
            empty = bool(frame[name].isna().all() or (frame[name].astype(str) == "").all())
            self.view.setColumnHidden(i, empty and name not in ALWAYS_SHOWN)
        self.view.resizeColumnsToContents()
        if "comment" in columns:
            col = columns.index("comment")
            self.view.setColumnWidth(col, min(self.view.columnWidth(col), MAX_COMMENT_WIDTH))
        self.fit_text_column()

    def fit_text_column(self) -> None:
        """Give the message text the width the other (short) columns leave."""
        columns = [str(c) for c in self.model.frame.columns]
        if "text" not in columns:
            return
        text = columns.index("text")
        others = sum(self.view.columnWidth(i) for i in range(len(columns))
                     if i != text and not self.view.isColumnHidden(i))
        room = self.view.viewport().width() - others - 2
        self.view.setColumnWidth(text, max(MIN_TEXT_WIDTH, room))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_text_column()


class MessageList(QListWidget):
    """Check results: errors in red, warnings in amber, information plain, success in green."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)

    def set_messages(self, messages: Sequence[Message]) -> None:
        self.clear()
        for m in messages:
            item = QListWidgetItem(self.style().standardIcon(ICONS[m.kind]), m.text)
            item.setData(Qt.ItemDataRole.UserRole, m.kind)
            if m.kind in ("error", "warning", "ok"):
                item.setForeground(QBrush(QColor(tone(self, m.kind))))
            item.setToolTip(m.text)
            self.addItem(item)

    def messages(self) -> list[Message]:
        return [Message(str(self.item(i).data(Qt.ItemDataRole.UserRole)), self.item(i).text())
                for i in range(self.count())]
