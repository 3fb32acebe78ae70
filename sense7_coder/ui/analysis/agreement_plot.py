"""Krippendorff's alpha per code with its 95% interval, drawn by the shared matplotlib module.

One row per code: a dot at alpha, a whisker over the bootstrap interval, faint bands behind
(low < .667 <= tentative < .800 <= good) and dashed reference lines at .667 and .800. The
figure comes from :func:`sense7_coder.domain.plots.alpha`, so the window, the PNG and the SVG
share one look with every other figure of the tool (files and window are drawn light).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from ...domain.errors import Sense7Error
from ...domain.plots import AlphaItem, alpha_height, alpha_range
from .report_rows import CodeRow

SCREEN_DPI = 96.0


class PlotItem(AlphaItem):
    """A row of the plot, made from a row of the agreement table."""

    @classmethod
    def from_row(cls, row: CodeRow) -> PlotItem:
        a = row.alpha
        if a is None:
            return cls(row.label, None, None, None, "undefined", "not computed")
        return cls(row.label, a.value, a.ci_low, a.ci_high, row.band, a.note)


def x_range(items: Sequence[AlphaItem]) -> tuple[float, float]:
    return alpha_range(items)


def preferred_height(n: int) -> int:
    return int(alpha_height(n) * SCREEN_DPI)


def _figure(items: Sequence[AlphaItem], width_in: float = 8.0,
            height_in: float | None = None) -> Any:
    from ...domain import plots

    return plots.alpha(items, width=width_in, height=height_in)


def save_png(path: str | Path, items: Sequence[AlphaItem]) -> Path:
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise Sense7Error(f"{path}: the name must end in .png")
    return _save(path, items)


def svg_bytes(items: Sequence[AlphaItem]) -> bytes:
    import io

    from matplotlib import rc_context

    from ...domain.plots import STYLE

    buf = io.BytesIO()
    with rc_context(STYLE):
        _figure(items).savefig(buf, format="svg")
    return buf.getvalue()


def save_svg(path: str | Path, items: Sequence[AlphaItem]) -> Path:
    path = Path(path)
    if path.suffix.lower() != ".svg":
        raise Sense7Error(f"{path}: the name must end in .svg")
    return _save(path, items)


def _save(path: Path, items: Sequence[AlphaItem]) -> Path:
    from ...domain.plots import save

    try:
        return save(_figure(items), path.with_suffix(""), formats=(path.suffix[1:].lower(),))[0]
    except OSError as e:
        raise Sense7Error(f"{path}: could not write the plot ({e.strerror or e})") from None
    except ImportError as e:  # an installation without matplotlib's parts (Pillow, a backend)
        raise Sense7Error(f"{path}: could not draw the plot ({e})") from None


def save_plot(path: str | Path, items: Sequence[AlphaItem]) -> Path:
    """PNG or SVG by the file's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix == ".svg":
        return save_svg(path, items)
    if suffix == ".png":
        return save_png(path, items)
    raise Sense7Error(f"{path}: save the plot as .png or .svg")


def render_image(items: Sequence[AlphaItem], size: QSize, ratio: float = 1.0) -> QImage:
    """The figure rendered at ``size`` (device-independent pixels) as a QImage."""
    from ...domain.plots import png_bytes

    dpi = SCREEN_DPI * ratio
    fig = _figure(items, max(size.width(), 200) / SCREEN_DPI,
                  max(size.height(), 120) / SCREEN_DPI)
    image = QImage.fromData(png_bytes(fig, dpi=dpi))  # the format is read from the data
    image.setDevicePixelRatio(ratio)
    return image


class AlphaPlot(QWidget):
    """The plot as a widget; :meth:`set_rows` takes the agreement table's code rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[PlotItem] = []
        self._image: QImage | None = None
        #: why the plot could not be drawn (shown in its place), None while it draws
        self.failure: str | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(160)

    def set_rows(self, rows: Sequence[CodeRow]) -> None:
        self.items = [PlotItem.from_row(r) for r in rows]
        self.setToolTip("\n".join(f"{it.label}: {it.value_text}" for it in self.items))
        self._image = None
        self.failure = None
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(760, preferred_height(len(self.items)))

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._image = None
        super().resizeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._image is None and self.failure is None:
            try:
                self._image = render_image(self.items, self.size(), self.devicePixelRatioF())
            except Exception as e:  # nothing above a paint event would show it
                self.failure = f"The plot could not be drawn: {type(e).__name__}: {e}"
                self.setToolTip(self.failure)
                print(f"sense7-coder: {self.failure}", file=sys.stderr)
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), Qt.GlobalColor.white)
            if self._image is not None:
                painter.drawImage(0, 0, self._image)
            else:
                painter.setPen(Qt.GlobalColor.darkRed)
                painter.drawText(self.rect().adjusted(12, 12, -12, -12),
                                 Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                                 self.failure or "")
        finally:
            painter.end()

    def save(self, path: str | Path) -> Path:
        return save_plot(path, self.items)


__all__ = ["AlphaPlot", "PlotItem", "save_plot", "save_png", "save_svg"]
