"""A one-line label that cuts its text with "…" where it does not fit.

The whole text stays the label's ``text()``, its accessible name and (when cut) its tooltip,
so nothing is lost by folding it to one line; the label never widens its layout.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None, *,
                 mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> None:
        super().__init__(parent)
        self.mode = mode
        self.tip = ""  # a tooltip of its own, shown above the whole text when cut
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.setAccessibleName(text)
        self._update_tip()


    def is_cut(self) -> bool:
        text = self.text()
        return bool(text) and self.fontMetrics().horizontalAdvance(text) > self.contentsRect().width()

    def _update_tip(self) -> None:
        parts = [p for p in (self.tip, self.text() if self.is_cut() else "") if p]
        self.setToolTip("\n\n".join(parts))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        m = self.contentsMargins()
        fm = self.fontMetrics()
        return QSize(fm.horizontalAdvance(self.text()) + m.left() + m.right() + 2,
                     fm.height() + m.top() + m.bottom())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        m = self.contentsMargins()
        return QSize(0, self.fontMetrics().height() + m.top() + m.bottom())

    def heightForWidth(self, _width: int) -> int:  # noqa: N802 - Qt's name
        return self.sizeHint().height()

    def resizeEvent(self, e: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(e)
        self._update_tip()

    def paintEvent(self, _e: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        rect = self.contentsRect()
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.setFont(self.font())
        shown = self.fontMetrics().elidedText(self.text(), self.mode, rect.width())
        align = self.alignment() | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(rect, int(align), shown)


class WrappedLabel(QLabel):
    """A word-wrapped label that asks for the height its text takes at its own width (a
    plain one asks for the height of a narrow column, which pushed codes out of view)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().minimumSizeHint()
        if self.width() > 0:
            hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        hint = super().sizeHint()
        if self.width() > 0:
            hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def resizeEvent(self, e: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(e)
        if e.size().width() != e.oldSize().width():
            self.updateGeometry()
