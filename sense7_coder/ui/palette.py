"""Light or dark: helpers so that every colour of the window follows the palette.

``SENSE7_CODER_DARK=1`` starts the app with a dark Fusion palette (for checking the dark look
on a desktop that is light, and for the dark screenshots); the normal start follows the
platform's own palette.
"""

from __future__ import annotations

import os

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QWidget

DARK_ENV = "SENSE7_CODER_DARK"


def dark_palette() -> QPalette:
    """A dark palette in the spirit of the common desktop dark themes."""
    p = QPalette()
    window, base, text = QColor("#2b2d30"), QColor("#1e1f22"), QColor("#e6e6e6")
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor("#26282b"),
        QPalette.ColorRole.ToolTipBase: QColor("#3c3f41"),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: QColor("#9a9ca0"),
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor("#3a3c40"),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff6b6b"),
        QPalette.ColorRole.Light: QColor("#4a4d52"),
        QPalette.ColorRole.Midlight: QColor("#404347"),
        QPalette.ColorRole.Mid: QColor("#5c5f64"),
        QPalette.ColorRole.Dark: QColor("#151618"),
        QPalette.ColorRole.Shadow: QColor("#000000"),
        QPalette.ColorRole.Highlight: QColor("#3d7ec6"),
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"),
        QPalette.ColorRole.Link: QColor("#6cb0f5"),
        QPalette.ColorRole.LinkVisited: QColor("#b48ef0"),
    }
    for role, colour in roles.items():
        p.setColor(role, colour)
    disabled = QColor("#7a7c80")
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text,
                 QPalette.ColorRole.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p


def apply_env_palette(app: QApplication) -> None:
    """Use the dark palette when ``SENSE7_CODER_DARK`` is set to 1 (or yes/true)."""
    if os.environ.get(DARK_ENV, "").strip().lower() in ("1", "yes", "true", "on"):
        app.setPalette(dark_palette())
    from .accessibility import CONTRAST_ENV, CONTRAST_STYLE, contrast_palette

    if os.environ.get(CONTRAST_ENV, "").strip().lower() in ("1", "yes", "true", "on"):
        app.setPalette(contrast_palette())
        app.setStyleSheet(CONTRAST_STYLE)


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def tone(widget: QWidget | None, kind: str) -> str:
    """A text colour (``#rrggbb``) for ``ok``, ``warning`` or ``error`` that reads on the
    widget's (or the application's) palette."""
    palette = widget.palette() if widget is not None else QApplication.palette()
    dark = is_dark(palette)
    light_tones = {"ok": "#1e6b34", "warning": "#8a5300", "error": "#b3261e"}
    dark_tones = {"ok": "#6fcf8a", "warning": "#f0b35a", "error": "#ff8a80"}
    return (dark_tones if dark else light_tones).get(kind, palette.color(
        QPalette.ColorRole.Text).name())


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor(round(a.red() + (b.red() - a.red()) * t),
                  round(a.green() + (b.green() - a.green()) * t),
                  round(a.blue() + (b.blue() - a.blue()) * t))


def message_style(kind: str, widget: QWidget | None = None) -> str:
    """A QLabel style sheet for an inline ``error``/``warning``/``ok`` message (a tinted box
    in the window's own light or dark colours); plain text for anything else."""
    if kind not in ("error", "warning", "ok"):
        return "QLabel { color: palette(text); padding: 6px; }"
    palette = widget.palette() if widget is not None else QApplication.palette()
    base = palette.color(QPalette.ColorRole.Base)
    ink = QColor(tone(widget, kind))
    return (f"QLabel {{ color: {ink.name()}; background: {_mix(base, ink, 0.12).name()}; "
            f"border: 1px solid {_mix(base, ink, 0.4).name()}; padding: 6px; }}")


def error_style(widget: QWidget | None = None) -> str:
    """Style (CSS) of a one-line problem report, in a red that reads on the palette."""
    return f"color: {tone(widget, 'error')};"
