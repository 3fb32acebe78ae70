"""Top-level windows: sizes that fit the screen they are on (a 1280x800 laptop included) and
keys that close them."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

#: room left for the window manager's title bar and borders
FRAME_W = 16
FRAME_H = 48


def available(widget: QWidget | None = None) -> QRect | None:
    """The usable area of the widget's screen (or the primary one); None when unknown."""
    screen = widget.screen() if widget is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    if screen is None:
        return None
    area = screen.availableGeometry()
    return area if area.width() > 0 and area.height() > 0 else None


def fitted_size(width: int, height: int, area: QRect | None) -> QSize:
    """``width`` x ``height``, shrunk so that the window with its frame fits ``area``."""
    if area is None:
        return QSize(width, height)
    return QSize(max(320, min(width, area.width() - FRAME_W)),
                 max(240, min(height, area.height() - FRAME_H)))


def fit_to_screen(widget: QWidget, width: int, height: int) -> QSize:
    """Resize a top-level window to its preferred size, or less where the screen is smaller,
    so that its bottom row (status bar, buttons) is never off screen."""
    size = fitted_size(width, height, available(widget))
    size = size.expandedTo(widget.minimumSize()).boundedTo(widget.maximumSize())
    widget.resize(size)
    return size


def close_keys(window: QWidget, *, escape: bool = False) -> None:
    """Ctrl+W (and the platform's other Close keys), and Esc where asked, close a tool
    window."""
    keys = [k for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Close)
            if k != QKeySequence("Ctrl+W")] + [QKeySequence("Ctrl+W")]
    if escape:
        keys.append(QKeySequence(Qt.Key.Key_Escape))
    for key in keys:
        shortcut = QShortcut(key, window)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(window.close)
