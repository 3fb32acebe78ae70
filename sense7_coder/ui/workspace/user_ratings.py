"""The users' own ratings of the current turn (overall, seven dimensions, comment)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from ...domain.models import RATING_KEYS, SCALE_LABELS

LABELS = {
    "overall": "Overall",
    "affective": "Affective",
    "cognitive": "Cognitive",
    "response": "Response",
    "prosocial": "Prosocial",
    "interest": "Interest",
    "contextual": "Contextual",
    "relational": "Relational",
}
VALUE_LABELS = {v: k for k, v in SCALE_LABELS.items()}


def rating_text(value: int | None) -> str:
    if value is None:
        return "n/a"
    return f"{value} {VALUE_LABELS.get(value, '')}".strip()


class UserRatingsPanel(QWidget):
    """Shows what the user said about the turn, or why it is not shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel("The user's own ratings", self)
        font = QFont(self.heading.font())
        font.setWeight(QFont.Weight.DemiBold)
        self.heading.setFont(font)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.grid_widget = QWidget(self)
        grid = QGridLayout(self.grid_widget)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(2)
        self.values: dict[str, QLabel] = {}
        for i, key in enumerate(RATING_KEYS):
            name = QLabel(LABELS.get(key, key), self.grid_widget)
            name.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            value = QLabel(self.grid_widget)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            row, col = i % 4, (i // 4) * 2
            grid.addWidget(name, row, col)
            grid.addWidget(value, row, col + 1)
            self.values[key] = value
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.comment = QLabel(self)
        self.comment.setWordWrap(True)
        self.comment.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        italic = QFont(self.comment.font())
        italic.setItalic(True)
        self.comment.setFont(italic)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 6)
        layout.setSpacing(4)
        layout.addWidget(self.heading)
        layout.addWidget(self.note)
        layout.addWidget(self.grid_widget)
        layout.addWidget(self.comment)
        self.suggestions = QLabel(self)
        self.suggestions.setWordWrap(True)
        self.suggestions.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.suggestions.setToolTip("Stored predictions of the empathy level: suggestions, "
                                    "never codings (shown when the lead allows it, never "
                                    "while blind coding is on)")
        layout.addWidget(self.suggestions)
        self.show_nothing("")
        self.show_suggestions([])

    def show_nothing(self, why: str) -> None:
        self.note.setText(why)
        self.note.setVisible(bool(why))
        self.grid_widget.hide()
        self.comment.hide()

    def show_hidden(self) -> None:
        self.show_nothing("Hidden while blind coding is on: mark this turn done "
                          "(Ctrl+Enter) to see what the user said.")

    def show_withheld(self) -> None:
        self.show_nothing("Hidden: this coder package holds none of the users' ratings "
                          "(blind coding keeps them in the lead's project).")

    def show_ratings(self, ratings: dict[str, int | None], comment: str | None) -> None:
        if not ratings and not comment:
            self.show_nothing("The user did not rate this turn.")
            return
        self.note.hide()
        self.grid_widget.setVisible(bool(ratings))
        for key, label in self.values.items():
            label.setText(rating_text(ratings[key]) if key in ratings else "—")
        self.comment.setVisible(bool(comment))
        self.comment.setText(f"“{comment}”" if comment else "")

    def show_suggestions(self, lines: list[str]) -> None:
        self.suggestions.setText("Model suggestions: " + "; ".join(lines) if lines else "")
        self.suggestions.setVisible(bool(lines))

    def shown_text(self) -> str:
        """What a person reads in the panel now (for tests and accessibility)."""
        parts = [self.note.text()] if not self.note.isHidden() else []
        if not self.grid_widget.isHidden():
            parts += [f"{k}: {v.text()}" for k, v in self.values.items()]
        if not self.comment.isHidden():
            parts.append(self.comment.text())
        if not self.suggestions.isHidden():
            parts.append(self.suggestions.text())
        return "\n".join(parts)
