"""Choosing what to analyse: codes, coders, assistants, participants (check lists, all
ticked = all) and conversation attributes -- the command line's ``--codes --coders --model
--participant --attribute``, shared by the agreement window and the export dialog."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QBoxLayout,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...project import Project
from ...project.analysis_view import attribute_choices, attribute_names
from ...project.selection import Selection
from ...project.workspace import filter_choices
from .attribute_filter import AttributeFilter

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

    def set_enabled_lists(self, keys: Sequence[str]) -> None:
        """Enable only the tabs of ``keys`` (the others do not apply)."""
        for i, (key, _title) in enumerate(self.NAMES):
            self.setTabEnabled(i, key in keys)
        if not self.isTabEnabled(self.currentIndex()):
            usable = [i for i in range(self.count()) if self.isTabEnabled(i)]
            if usable:
                self.setCurrentIndex(usable[0])


class AnalysisFilters(QWidget):
    """The check-list tabs and the attribute filters, read into a :class:`Selection`.

    ``horizontal`` puts the attribute filters beside the tabs instead of below them.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None, *, horizontal: bool = False) -> None:
        super().__init__(parent)
        self.tabs = FilterTabs(self)
        self.attributes = AttributeFilter(self)
        self.lists = self.tabs.lists
        direction = (QBoxLayout.Direction.LeftToRight if horizontal
                     else QBoxLayout.Direction.TopToBottom)
        layout = QBoxLayout(direction, self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.attributes, 0 if not horizontal else 1)
        self.enabled: set[str] = {*self.lists, "attributes"}
        for check in self.lists.values():
            check.changed.connect(self.changed)
        self.attributes.changed.connect(self.changed)

    def load(self, project: Project) -> None:
        """Fill the choices from the project; what was unticked or asked for stays so."""
        book = project.codebook
        self.lists["codes"].set_items(
            [(c.key, c.label) for c in book.active],
            {c.key: f"{c.key}: {c.kind}, {c.unit} level" for c in book.active})
        self.lists["coders"].set_items([(c["name"], f"{c['name']} ({c['role']})")
                                        for c in project.coders()])
        choices = filter_choices(project)
        self.lists["models"].set_items([(m, m) for m in choices.models])
        self.lists["participants"].set_items([(p, p) for p in choices.participants])
        self.attributes.set_names(attribute_names(project),
                                  lambda name: attribute_choices(project, name))

    def _selection(self, key: str) -> list[str]:
        return self.lists[key].selection() if key in self.enabled else []

    def apply_to(self, selection: Selection) -> Selection:
        """``selection`` with the codes, coders and conversations chosen here (filters that
        are switched off count as "all")."""
        return replace(
            selection, codes=self._selection("codes"), coders=self._selection("coders"),
            models=self._selection("models"), participants=self._selection("participants"),
            attributes=self.attributes.filters() if "attributes" in self.enabled else {},
        )

    def empty_choice(self) -> str | None:
        """The name of a list in use with nothing ticked (nothing to compute), if any."""
        for key, title in self.tabs.NAMES:
            check = self.lists[key]
            if key in self.enabled and check.list.count() and not check.checked():
                return title.lower()
        return None

    def set_enabled_filters(self, keys: Sequence[str]) -> None:
        """Use only some filters: list keys, and ``attributes`` for the attribute box."""
        self.enabled = set(keys)
        self.tabs.set_enabled_lists(keys)
        self.attributes.setEnabled("attributes" in self.enabled)
