"""Check lists for choosing codes, coders, assistants and participants (all ticked = all)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

KeyRole = int(Qt.ItemDataRole.UserRole)


class CheckList(QWidget):
    """A list of ticked items; :meth:`selection` is empty when every item is ticked."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget(self)
        self.list.setUniformItemSizes(True)
        self.list.itemChanged.connect(lambda _item: self.changed.emit())
        every = QPushButton("All", self)
        none = QPushButton("None", self)
        for b in (every, none):
            b.setAutoDefault(False)
        every.clicked.connect(lambda: self.set_all(True))
        none.clicked.connect(lambda: self.set_all(False))
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(every)
        buttons.addWidget(none)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.list)
        layout.addLayout(buttons)

    def set_items(self, items: Sequence[tuple[str, str]], tips: dict[str, str] | None = None) -> None:
        """(key, text) pairs; ticked, except those already listed and unticked."""
        unticked = set(self.keys()) - set(self.checked())
        self.list.blockSignals(True)
        self.list.clear()
        for key, text in items:
            item = QListWidgetItem(text, self.list)
            item.setData(KeyRole, key)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if key in unticked
                               else Qt.CheckState.Checked)
            if tips and key in tips:
                item.setToolTip(tips[key])
        self.list.blockSignals(False)
        self.changed.emit()

    def _items(self) -> list[QListWidgetItem]:
        return [self.list.item(i) for i in range(self.list.count())]

    def keys(self) -> list[str]:
        return [str(i.data(KeyRole)) for i in self._items()]

    def checked(self) -> list[str]:
        return [str(i.data(KeyRole)) for i in self._items()
                if i.checkState() == Qt.CheckState.Checked]

    def selection(self) -> list[str]:
        """The ticked keys, or [] (no filter) when all are ticked."""
        ticked = self.checked()
        return [] if len(ticked) == self.list.count() else ticked

    def set_checked(self, keys: Sequence[str]) -> None:
        wanted = set(keys)
        self.list.blockSignals(True)
        for item in self._items():
            on = str(item.data(KeyRole)) in wanted
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self.list.blockSignals(False)
        self.changed.emit()

    def set_all(self, on: bool) -> None:
        self.set_checked(self.keys() if on else [])

    def summary(self) -> str:
        n, total = len(self.checked()), self.list.count()
        return "all" if n == total else f"{n}/{total}"


class FilterTabs(QTabWidget):
    """Codes, coders, assistants and participants, each a :class:`CheckList` tab."""

    NAMES = (("codes", "Codes"), ("coders", "Coders"), ("models", "Models"),
             ("participants", "Participants"))

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lists: dict[str, CheckList] = {}
        for key, title in self.NAMES:
            check = CheckList(self)
            self.lists[key] = check
            self.addTab(check, title)
            check.changed.connect(self._retitle)

    def _retitle(self) -> None:
        for i, (key, title) in enumerate(self.NAMES):
            summary = self.lists[key].summary()
            self.setTabText(i, title if summary == "all" else f"{title} ({summary})")

    def empty_choice(self) -> str | None:
        """The name of a list with nothing ticked (nothing to compute), if any."""
        for key, title in self.NAMES:
            check = self.lists[key]
            if check.list.count() and not check.checked():
                return title.lower()
        return None
