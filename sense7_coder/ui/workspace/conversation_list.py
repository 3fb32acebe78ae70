"""The conversation list panel: search, filters, and the lazy table of conversations."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QPainter, QPalette, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...project import Project
from ...project.changes import Changes
from ...project.workspace import (
    STATUSES,
    ConversationFilter,
    assignment_progress,
    conversation_count,
    filter_choices,
)
from .conversation_model import ConversationListModel, ProgressRole

ANY = "All"


class ProgressDelegate(QStyledItemDelegate):
    """Draws 'done/codable' with a thin bar under it."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        super().paint(painter, option, index)
        done, total = index.data(ProgressRole) or (0, 0)
        if total <= 0:
            return
        rect: QRect = option.rect.adjusted(6, option.rect.height() - 5, -6, -2)
        pal: QPalette = option.palette
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        track = pal.color(QPalette.ColorRole.Mid)
        track.setAlpha(70)
        painter.setBrush(track)
        painter.drawRoundedRect(rect, 1.5, 1.5)
        filled = QRect(rect)
        filled.setWidth(int(rect.width() * min(done, total) / total))
        selected = option.state & QStyle.StateFlag.State_Selected
        colour = pal.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Highlight
        )
        painter.setBrush(colour)
        painter.drawRoundedRect(filled, 1.5, 1.5)
        painter.restore()


class ConversationListPanel(QWidget):
    """Search box, filters and the conversation table. Emits the chosen conversation id."""

    conversationChosen = Signal(str)
    searchDone = Signal()  # Enter or Esc in the search box: back to coding

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.model = ConversationListModel(project, self)
        self.open_id: str | None = None

        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search text or conversation id  (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self, singleShot=True, interval=250)
        self._search_timer.timeout.connect(self.apply_filter)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self._search_entered)
        leave = QShortcut(QKeySequence(Qt.Key.Key_Escape), self.search)
        leave.setContext(Qt.ShortcutContext.WidgetShortcut)
        leave.activated.connect(self.searchDone)

        self.model_box = QComboBox(self)
        self.participant_box = QComboBox(self)
        self.status_box = QComboBox(self)
        self.model_box.setToolTip("Show conversations with this assistant model")
        self.participant_box.setToolTip("Show conversations of this participant")
        self.status_box.setToolTip("Show conversations by your own coding status")
        self.status_box.addItems([ANY, *[s.capitalize() for s in STATUSES]])
        for box in (self.model_box, self.participant_box, self.status_box):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(6)
            box.currentIndexChanged.connect(lambda _i: self.apply_filter())

        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setTabKeyNavigation(False)  # arrows move in the list; Tab leaves it
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # ids differ at their ends
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 12)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        for col in (0, 1, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        em = self.fontMetrics().horizontalAdvance("M")
        header.resizeSection(1, em * 7)
        header.resizeSection(3, em * 4 + 8)
        self.table.setItemDelegateForColumn(3, ProgressDelegate(self.table))
        self.fill_choices()
        self.table.clicked.connect(self._chosen)
        self.table.activated.connect(self._chosen)

        self.count_label = QLabel(self)
        self.count_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        filters = QGridLayout()
        filters.setSpacing(4)
        filters.addWidget(self.participant_box, 0, 0)
        filters.addWidget(self.model_box, 0, 1)  # hidden from blind coders: the gap is last
        filters.addWidget(self.status_box, 1, 0)
        self.mine = QCheckBox("My assignment", self)
        self.mine.setToolTip("Only the conversations assigned to you")
        self.mine.toggled.connect(lambda _on: self.apply_filter())
        filters.addWidget(self.mine, 1, 1)
        self.assignment = QLabel(self)
        self.assignment.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.setSpacing(6)
        layout.addWidget(self.search)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count_label)
        layout.addWidget(self.assignment)
        self.update_assignment(first=True)
        self._update_count()

    def show_changes(self, changes: Changes) -> None:
        """Listen to the window's changes: the rows of the conversations whose done marks
        changed (a row shows the conversation and its progress, nothing of its values,
        memos or decisions: setting a code re-read and repainted its row for nothing), the
        assignment when progress may have moved, and the whole list after an import, a
        merge or a change of codebook, coders or settings."""
        if changes.wide or changes.conversations:
            self.fill_choices()
            self.update_assignment()
            self.apply_filter()
            return
        for cid in sorted({turn[0] for turn in changes.done}):
            self.model.refresh_conversation(cid)
        if changes.progress:
            self.update_assignment()

    # -- filters ------------------------------------------------------------------------------
    def fill_choices(self) -> None:
        choices = filter_choices(self.project)
        for box, items, what in (
            (self.model_box, choices.models, "models"),
            (self.participant_box, choices.participants, "participants"),
        ):
            current = box.currentData()
            box.blockSignals(True)
            box.clear()
            box.addItem(f"All {what}", None)
            for item in items:
                box.addItem(item, item)
            i = box.findData(current) if current is not None else 0
            box.setCurrentIndex(max(i, 0))
            box.blockSignals(False)
        self.status_box.setItemText(0, "Any coding status")
        self._has_models = bool(choices.models)
        self.participant_box.setHidden(not choices.participants)
        self.table.setColumnHidden(1, not choices.participants)
        self.hide_model_filter()
        self._fit_id_column()  # here, not on every turn marked done: a width set by hand stays

    def update_assignment(self, first: bool = False) -> None:
        """Show 'My assignment' (on at first) and the progress against it, when the current
        coder has conversations assigned."""
        mine = assignment_progress(self.project)
        self.mine.setHidden(mine is None)
        self.assignment.setHidden(mine is None)
        if mine is None:
            self.mine.setChecked(False)
            return
        if first:
            self.mine.blockSignals(True)
            self.mine.setChecked(True)
            self.mine.blockSignals(False)
            self.model.set_filter(self.current_filter())
        n, done, turns = mine["conversations"], mine["done"], mine["turns"]
        self.assignment.setText(
            f"Your assignment: {done} of {turns} turn{'s' if turns != 1 else ''} done in "
            f"{n} conversation{'s' if n != 1 else ''}")
        self.hide_model_filter()

    def hide_model_filter(self) -> None:
        self.model_box.setHidden(self.project.hides("model") or not self._has_models)
        self.table.setColumnHidden(2, not self._has_models)  # blind: "(hidden)" says why

    def _fit_id_column(self) -> None:
        """A column a project has nothing for (no participants, no models) is hidden; the
        id column is as wide as the first page's longest id (up to 16 em), or takes the
        room left when there is no model column, so that long ids such as ESConv's
        "FailedESConv-17" stay readable."""
        header = self.table.horizontalHeader()
        if self.table.isColumnHidden(2):
            header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
            return
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        metrics = self.table.fontMetrics()
        em = metrics.horizontalAdvance("M")
        ids = (self.model.conversation_id(r) for r in range(min(self.model.rowCount(), 200)))
        widest = max((metrics.horizontalAdvance(i) for i in ids if i), default=0)
        header.resizeSection(0, max(em * 4, min(widest + em, em * 16)))

    def current_filter(self) -> ConversationFilter:
        model = self.model_box.currentData()
        participant = self.participant_box.currentData()
        status = STATUSES[self.status_box.currentIndex() - 1] if self.status_box.currentIndex() > 0 else None
        return ConversationFilter(
            text=self.search.text().strip(),
            models=[model] if model else [],
            participants=[participant] if participant else [],
            status=status,
            coder=self.project.coder,
            assigned_to=self.project.coder if (self.mine.isChecked()
                                               and not self.mine.isHidden()) else None,
        )

    def apply_filter(self) -> None:
        self._search_timer.stop()
        current = self.current_id()
        self.model.set_filter(self.current_filter())
        if current:
            self.select(current, emit=False)
        self._update_count()

    def _search_entered(self) -> None:
        """Enter: filter now, open the first match unless the open conversation matches, and
        go back to coding."""
        self.apply_filter()
        current = self.open_id
        first = self.model.conversation_id(0) if self.model.rowCount() else None
        if first is None:
            return  # nothing matches: stay in the box to change the search
        if current is None or self.model.row_of(current) is None:
            self.select(first, emit=True)
        self.searchDone.emit()

    def _update_count(self) -> None:
        f = self.model.filter
        narrowed = bool(f.text or f.models or f.participants or f.attributes or f.status
                        or f.conversation_ids or f.assigned_to)  # the coder alone narrows nothing
        total = conversation_count(self.project) if narrowed else None
        shown = self.model.rowCount()
        noun = "conversation" if (total if total is not None else shown) == 1 else "conversations"
        self.count_label.setText(f"{shown} of {total} {noun}" if total is not None else f"{shown} {noun}")

    # -- selection ----------------------------------------------------------------------------
    def _chosen(self, index: QModelIndex) -> None:
        cid = self.model.conversation_id(index.row())
        if cid:
            self.conversationChosen.emit(cid)

    def current_id(self) -> str | None:
        index = self.table.currentIndex()
        return self.model.conversation_id(index.row()) if index.isValid() else None

    def select(self, conversation_id: str, *, emit: bool = False) -> bool:
        """Mark the open conversation in the list (False when the filter hides it)."""
        self.open_id = conversation_id
        row = self.model.row_of(conversation_id)
        if row is None:
            self.table.clearSelection()
            return False
        self.table.setAutoScroll(False)  # the view would scroll it into sight row by row
        self.table.setCurrentIndex(self.model.index(row, 0))
        self.table.setAutoScroll(True)
        self._show_row(row)
        if emit:
            self.conversationChosen.emit(conversation_id)
        return True

    def _show_row(self, row: int) -> None:
        """Scroll the list only when ``row`` is out of sight, then by a page: the row comes
        to the top (moving down) or the bottom (moving up) with two rows of context.
        Scrolling one row per conversation repainted the whole list at every switch."""
        table = self.table
        first = table.rowAt(0)
        last = table.rowAt(table.viewport().height() - 1)  # may be cut off at the bottom
        if first >= 0 and row >= first and (last < 0 or row < last):
            return  # in sight
        if first < 0:
            table.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.EnsureVisible)
            return
        if row >= first:
            hint, anchor = QAbstractItemView.ScrollHint.PositionAtTop, max(0, row - 2)
        else:
            hint = QAbstractItemView.ScrollHint.PositionAtBottom
            anchor = min(self.model.rowCount() - 1, row + 2)
        table.scrollTo(self.model.index(anchor, 0), hint)

    def neighbour(self, conversation_id: str | None, step: int) -> str | None:
        """The conversation ``step`` rows away in the (filtered) list."""
        rows = self.model.rowCount()
        if rows == 0:
            return None
        row = self.model.row_of(conversation_id) if conversation_id else None
        target = (0 if step > 0 else rows - 1) if row is None else row + step
        if not 0 <= target < rows:
            return None
        return self.model.conversation_id(target)
