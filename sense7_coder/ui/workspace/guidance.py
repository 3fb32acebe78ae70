"""The focused code's guidance under its scale: what the code means, what each level means
(the anchors "1 = …, 5 = …") and what it includes and excludes, one line each.

A coder working from the keyboard reads it where the eye already is; each line is cut to
the panel's width with its whole text on hover, and F1 lists everything per code. The
panel folds it (``set_fold``) so that every code stays in view on a laptop screen.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ...domain.codebook.codes import Code
from ..elided import ElidedLabel

#: fold steps, most shown first: the panel takes the first that lets every code fit
FOLDS = ("all", "anchors", "levels", "description", "none")


def one_line(text: str) -> str:
    return " ".join(text.split())


def anchor_lines(code: Code) -> list[str]:
    """One line per level that has a meaning written down: "1 very poor: …"."""
    lines = []
    for lv in code.levels:
        if not lv.description:
            continue
        head = lv.label if code.kind != "ordinal" or str(lv.value) == lv.label \
            else f"{lv.value} {lv.label}"
        lines.append(f"{head}: {one_line(lv.description)}")
    return lines


class Guidance(QWidget):
    def __init__(self, code: Code, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.code = code
        self.fold = "all"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 1, 0, 0)
        layout.setSpacing(0)
        small = QFont(self.font())
        small.setPointSizeF(small.pointSizeF() * 0.9)

        def line(text: str, *, role: QPalette.ColorRole = QPalette.ColorRole.PlaceholderText
                 ) -> ElidedLabel:
            label = ElidedLabel(text, self)
            label.setFont(small)
            label.setForegroundRole(role)
            layout.addWidget(label)
            return label

        self.description = line(one_line(code.description)) if code.description else None
        self.anchors = [line(t, role=QPalette.ColorRole.WindowText) for t in anchor_lines(code)]
        self.notes = [line(f"{name}: {one_line(text)}")
                      for name, text in (("Include", code.include), ("Exclude", code.exclude))
                      if text]
        self.setAccessibleName(f"Guidance for {code.label}")

    def has_content(self) -> bool:
        return bool(self.description or self.anchors or self.notes)

    def set_fold(self, fold: str) -> None:
        """Show all lines, the description and anchors, the anchors only, the description
        only, or nothing."""
        self.fold = fold
        if self.description is not None:
            self.description.setVisible(fold in ("all", "anchors", "description"))
        for label in self.anchors:
            label.setVisible(fold in ("all", "anchors", "levels"))
        for label in self.notes:
            label.setVisible(fold == "all")

    def texts(self) -> list[str]:
        """The lines shown now (whole texts)."""
        labels = ([self.description] if self.description else []) + self.anchors + self.notes
        return [lb.text() for lb in labels if lb is not None and not lb.isHidden()]
