"""Accessibility: a name for every control, a focus that always shows, a high-contrast look.

* :func:`name_controls` gives every interactive control without an accessible name one,
  from what a sighted person reads for it: its label (a ``QLabel`` buddy or form label), its
  placeholder or its tooltip. :func:`unnamed_controls` lists those still without one (the
  test of the main screens fails on any).
* :class:`FocusFrame` draws a highlight-coloured frame (:data:`FOCUS_STYLE`) on the
  focused list, table or text box of a window (Fusion already marks focused buttons, boxes
  and fields).
* ``SENSE7_CODER_CONTRAST=1`` starts with :func:`contrast_palette`: white on black, yellow
  selection (as the common high-contrast desktop themes); a platform high-contrast palette
  is followed as it is.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QObject
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTabWidget,
    QTextEdit,
    QWidget,
)

CONTRAST_ENV = "SENSE7_CODER_CONTRAST"
INTERACTIVE = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QAbstractSlider,
               QAbstractItemView, QTextEdit, QPlainTextEdit, QTabBar)
FOCUS_STYLE = (
    "QAbstractItemView:focus, QTextEdit:focus, QPlainTextEdit:focus "
    "{ border: 2px solid palette(highlight); }"
)

#: what :class:`FocusFrame` frames
FRAMED = (QAbstractItemView, QTextEdit, QPlainTextEdit)
#: the style sheet a framed widget had of its own, kept while it wears the frame
_OWN_STYLE = "sense7_own_style"


class FocusFrame(QObject):
    """Frames the focused list, table or text box of ``window`` with :data:`FOCUS_STYLE`:
    a style sheet on that one widget, while it has the focus.

    The style sheet was the window's own: then every widget of the window painted through
    Qt's style-sheet style, and a repaint of the whole window took seven times as long
    (the conversation list alone, 29 model calls a row), whatever had the focus."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self._framed: QWidget | None = None
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._moved)

    def _moved(self, _old: QWidget | None, new: QWidget | None) -> None:
        if self._framed is not None and self._framed is not new:
            self._unframe(self._framed)
        if isinstance(new, FRAMED) and not isinstance(new, QHeaderView) \
                and new.window() is self._window and self._framed is not new:
            own = new.styleSheet()
            new.setProperty(_OWN_STYLE, own)
            new.setStyleSheet(f"{own}\n{FOCUS_STYLE}" if own else FOCUS_STYLE)
            self._framed = new

    def _unframe(self, widget: QWidget) -> None:
        self._framed = None
        try:
            own = widget.property(_OWN_STYLE)
            widget.setStyleSheet(own if isinstance(own, str) else "")
        except RuntimeError:  # deleted meanwhile: nothing to take off
            pass


#: with the high-contrast palette, fields and boxes get a white frame (Fusion draws theirs a
#: shade darker than the window: black on black)
CONTRAST_STYLE = (
    "QLineEdit, QTextEdit, QPlainTextEdit, QComboBox, QAbstractSpinBox "
    "{ border: 1px solid #ffffff; }"
)


def contrast_palette() -> QPalette:
    p = QPalette()
    black, white, yellow = QColor("#000000"), QColor("#ffffff"), QColor("#ffff00")
    roles = {
        QPalette.ColorRole.Window: black, QPalette.ColorRole.WindowText: white,
        QPalette.ColorRole.Base: black, QPalette.ColorRole.AlternateBase: QColor("#1a1a1a"),
        QPalette.ColorRole.ToolTipBase: black, QPalette.ColorRole.ToolTipText: white,
        QPalette.ColorRole.PlaceholderText: QColor("#d0d0d0"),
        QPalette.ColorRole.Text: white, QPalette.ColorRole.Button: black,
        QPalette.ColorRole.ButtonText: white, QPalette.ColorRole.BrightText: yellow,
        QPalette.ColorRole.Light: white, QPalette.ColorRole.Midlight: QColor("#c0c0c0"),
        QPalette.ColorRole.Mid: white, QPalette.ColorRole.Dark: white,
        QPalette.ColorRole.Shadow: white, QPalette.ColorRole.Highlight: yellow,
        QPalette.ColorRole.HighlightedText: black, QPalette.ColorRole.Link: QColor("#00ffff"),
        QPalette.ColorRole.LinkVisited: QColor("#ff80ff"),
    }
    for role, colour in roles.items():
        p.setColor(role, colour)
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#a0a0a0"))
    return p


def name_workspace(ws: QWidget) -> None:
    """Names for the workspace's big parts (they carry no label a person reads)."""
    names = {"transcript": "Transcript of the conversation", "coding": "Codes of this turn",
             "ratings": "The user's own ratings"}
    for attr, name in names.items():
        part = getattr(ws, attr, None)
        if isinstance(part, QWidget) and not part.accessibleName():
            part.setAccessibleName(name)
    memo = getattr(getattr(ws, "memo", None), "editor", None)
    if isinstance(memo, QWidget) and not memo.accessibleName():
        memo.setAccessibleName("Memo for this turn")
    table = getattr(getattr(ws, "list_panel", None), "table", None)
    if isinstance(table, QWidget) and not table.accessibleName():
        table.setAccessibleName("Conversations")


def _plain(text: str) -> str:
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(html.unescape(text).replace("&", "").split())


def spoken_name(widget: QWidget) -> str:
    """What a screen reader says for the control: its accessible name, else its text."""
    name = widget.accessibleName()
    if name:
        return name
    if isinstance(widget, QAbstractButton):
        return _plain(widget.text())
    return ""


def _labels(root: QWidget) -> dict[int, str]:
    """Controls named by a label: a QLabel's buddy, or the label beside a form row."""
    named: dict[int, str] = {}
    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        if buddy is not None and label.text():
            named[id(buddy)] = _plain(label.text())
    for form in root.findChildren(QFormLayout):
        for row in range(form.rowCount()):
            item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
            field = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
            shown = item.widget() if item is not None else None
            text = shown.text() if isinstance(shown, QLabel) else ""
            if not text or field is None:
                continue
            targets: list[QWidget | None] = [field.widget()]
            inner = field.layout()
            if inner is not None:
                for i in range(inner.count()):
                    part = inner.itemAt(i)
                    targets.append(part.widget() if part is not None else None)
            for target in targets:
                if isinstance(target, INTERACTIVE):
                    named.setdefault(id(target), _plain(text))
    return named


def _place(widget: QWidget) -> str:
    """A list's name from where it sits: the tab or the titled group box holding it."""
    page: QWidget | None = widget
    while page is not None:
        box = page.parentWidget()
        tabs = box.parentWidget() if box is not None else None
        if isinstance(tabs, QTabWidget) and tabs.indexOf(page) >= 0:
            return _plain(tabs.tabText(tabs.indexOf(page)))
        title = getattr(page, "title", None)
        if page is not widget and callable(title) and isinstance(title(), str) and title():
            return _plain(title())
        page = box
    return ""


def name_controls(root: QWidget) -> int:
    """Give every interactive control under ``root`` without a name the one a sighted
    person reads for it; returns how many were named."""
    labels = _labels(root)
    n = 0
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, INTERACTIVE) or spoken_name(widget):
            continue
        name = labels.get(id(widget), "")
        if not name and isinstance(widget, QLineEdit):
            name = widget.placeholderText()
        if not name and isinstance(widget, QTabBar):
            tabs = [_plain(widget.tabText(i)) for i in range(widget.count())]
            name = "Tabs: " + ", ".join(t for t in tabs if t) if any(tabs) else ""
        if not name:
            name = _plain(widget.toolTip()).split(". ")[0]
        if not name and isinstance(widget, QAbstractItemView):
            name = _place(widget)
        if name:
            widget.setAccessibleName(name)
            n += 1
    return n


def unnamed_controls(root: QWidget) -> list[QWidget]:
    """Interactive controls a person can reach under ``root`` that have no name to speak."""
    out: list[QWidget] = []
    for widget in root.findChildren(QWidget):
        if not isinstance(widget, INTERACTIVE) or not widget.isVisibleTo(root):
            continue
        if isinstance(widget, QHeaderView) or type(widget).__name__ in ("QScrollBar",):
            continue  # part of their view, named by it
        if widget.parent() is not None and isinstance(widget.parent(), (QComboBox,
                                                                       QAbstractSpinBox)):
            continue  # a combo box's own list or a spin box's own field
        if not spoken_name(widget):
            out.append(widget)
    return out
