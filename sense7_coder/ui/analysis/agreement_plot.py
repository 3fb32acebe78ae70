"""Krippendorff's alpha per code with its 95% interval, drawn with QPainter.

One row per code: a dot at alpha, a whisker over the bootstrap interval, faint bands behind
(low < .667 <= tentative < .800 <= good) and dashed reference lines at .667 and .800. The same
drawing goes to the screen, to a PNG (:func:`save_png`) and to an SVG (:func:`save_svg`);
files are always drawn light, for papers and slides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QSizePolicy, QWidget

from ...domain.agreement.records import ALPHA_GOOD, ALPHA_TENTATIVE
from ...domain.errors import Sense7Error
from ..workspace.transcript import mix
from .report_rows import CodeRow, fmt
from .table_model import BAND_HUES

TITLE = "Krippendorff's α per code, with 95% bootstrap interval"
ROW_H = 34.0
MIN_ROW_H = 22.0
TOP = 58.0
BOTTOM = 40.0


@dataclass
class PlotItem:
    label: str
    value: float | None
    low: float | None
    high: float | None
    band: str
    note: str = ""

    @classmethod
    def from_row(cls, row: CodeRow) -> PlotItem:
        a = row.alpha
        if a is None:
            return cls(row.label, None, None, None, "undefined", "not computed")
        return cls(row.label, a.value, a.ci_low, a.ci_high, row.band, a.note)

    @property
    def value_text(self) -> str:
        if self.value is None:
            return "undefined"
        ci = f" [{self.low:.3f}, {self.high:.3f}]" if self.low is not None and self.high is not None else ""
        return fmt(self.value) + ci


@dataclass
class Theme:
    background: QColor
    text: QColor
    muted: QColor
    grid: QColor

    @classmethod
    def from_palette(cls, palette: QPalette) -> Theme:
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        return cls(base, text, mix(text, base, 0.45), mix(text, base, 0.82))

    @classmethod
    def light(cls) -> Theme:
        return cls(QColor("#ffffff"), QColor("#1f1f1f"), QColor("#6b6b6b"), QColor("#dcdcdc"))

    def band_fill(self, band: str) -> QColor:
        return mix(self.background, BAND_HUES[band], 0.13)

    def ink(self, band: str) -> QColor:
        return mix(BAND_HUES.get(band, BAND_HUES["undefined"]), self.text, 0.2)


def x_range(items: Sequence[PlotItem]) -> tuple[float, float]:
    """Axis range: 0 to 1, widened downwards (in steps of .1) to show every interval."""
    lows = [v for it in items for v in (it.value, it.low) if v is not None]
    lo = min([0.0, *lows])
    return (max(-1.0, math.floor(lo * 10 + 1e-9) / 10), 1.0)


def preferred_height(n: int) -> int:
    return int(TOP + BOTTOM + max(n, 1) * ROW_H)


def draw_plot(painter: QPainter, size: QSize, items: Sequence[PlotItem], theme: Theme,
              font: QFont | None = None) -> None:
    """Draw the whole plot into a ``size`` area at the painter's origin."""
    w, h = float(size.width()), float(size.height())
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.fillRect(QRectF(0, 0, w, h), theme.background)
    base = QFont(font) if font is not None else QFont()
    if base.pointSizeF() <= 0:
        base.setPixelSize(13)
    painter.setFont(base)
    fm = QFontMetricsF(base)
    title_font = QFont(base)
    title_font.setBold(True)
    painter.setPen(theme.text)
    painter.setFont(title_font)
    painter.drawText(QPointF(12, 8 + fm.ascent()), TITLE)
    painter.setFont(base)
    if not items:
        painter.setPen(theme.muted)
        painter.drawText(QRectF(0, 0, w, h), Qt.AlignmentFlag.AlignCenter,
                         "Run the agreement to see alpha per code")
        return
    left = 16 + max(fm.horizontalAdvance(it.label) for it in items)
    right = 16 + max(fm.horizontalAdvance(it.value_text) for it in items)
    x0, x1 = left + 8, max(left + 60, w - right - 12)
    row_h = max(MIN_ROW_H, min(ROW_H, (h - TOP - BOTTOM) / len(items)))
    y0 = TOP
    y1 = y0 + row_h * len(items)
    lo, hi = x_range(items)

    def sx(v: float) -> float:
        return x0 + (v - lo) / (hi - lo) * (x1 - x0)

    # bands behind the rows
    for band, a, b in (("low", lo, ALPHA_TENTATIVE), ("tentative", ALPHA_TENTATIVE, ALPHA_GOOD),
                       ("good", ALPHA_GOOD, hi)):
        if b > a:
            painter.fillRect(QRectF(sx(a), y0, sx(b) - sx(a), y1 - y0), theme.band_fill(band))
    # grid and axis
    painter.setPen(QPen(theme.grid, 1))
    step = 0.1
    ticks = [round(lo + i * step, 1) for i in range(int(round((hi - lo) / step)) + 1)]
    for t in ticks:
        painter.drawLine(QPointF(sx(t), y0), QPointF(sx(t), y1))
    painter.setPen(QPen(theme.muted, 1))
    painter.drawLine(QPointF(x0, y1), QPointF(x1, y1))
    for t in ticks:
        if round(t * 10) % 2 and len(ticks) > 6:
            continue
        label = f"{t:.1f}"
        tw = fm.horizontalAdvance(label)
        painter.drawLine(QPointF(sx(t), y1), QPointF(sx(t), y1 + 4))
        painter.drawText(QPointF(sx(t) - tw / 2, y1 + 6 + fm.ascent()), label)
    # reference lines with their names above the plot
    for v, name, band in ((ALPHA_TENTATIVE, ".667 tentative", "tentative"),
                          (ALPHA_GOOD, ".800 good", "good")):
        pen = QPen(theme.ink(band), 1.4, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawLine(QPointF(sx(v), y0 - 4), QPointF(sx(v), y1))
        # the two names sit either side of their lines so they never overlap
        tx = sx(v) - fm.horizontalAdvance(name) - 4 if band == "tentative" else sx(v) + 4
        painter.drawText(QPointF(tx, y0 - 8), name)
    # rows
    for i, it in enumerate(items):
        cy = y0 + row_h * (i + 0.5)
        painter.setPen(theme.text)
        painter.drawText(QRectF(8, cy - row_h / 2, left - 8, row_h),
                         Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, it.label)
        if it.value is None:
            painter.setPen(theme.muted)
            painter.drawText(QRectF(x0 + 6, cy - row_h / 2, x1 - x0, row_h),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             "undefined" + (f" — {_short(it.note)}" if it.note else ""))
        else:
            ink = theme.ink(it.band)
            if it.low is not None and it.high is not None:
                painter.setPen(QPen(ink, 2))
                a, b = sx(max(lo, it.low)), sx(min(hi, it.high))
                painter.drawLine(QPointF(a, cy), QPointF(b, cy))
                painter.drawLine(QPointF(a, cy - 5), QPointF(a, cy + 5))
                painter.drawLine(QPointF(b, cy - 5), QPointF(b, cy + 5))
            painter.setPen(QPen(theme.background, 1.5))
            painter.setBrush(ink)
            painter.drawEllipse(QPointF(sx(max(lo, it.value)), cy), 5.5, 5.5)
            painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(theme.text if it.value is not None else theme.muted)
        painter.drawText(QRectF(x1 + 12, cy - row_h / 2, right, row_h),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, it.value_text)


def _short(note: str, limit: int = 70) -> str:
    first = note.split(";")[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


def export_size(items: Sequence[PlotItem], width: int = 1100) -> QSize:
    return QSize(width, preferred_height(len(items)))


def save_png(path: str | Path, items: Sequence[PlotItem], *, width: int = 1100,
             scale: float = 2.0) -> Path:
    """Write the plot as a PNG (``scale`` times the nominal size, for sharp print)."""
    path = Path(path)
    size = export_size(items, width)
    image = QImage(int(size.width() * scale), int(size.height() * scale),
                   QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)
    image.fill(QColor("white"))
    painter = QPainter(image)
    try:
        draw_plot(painter, size, items, Theme.light())
    finally:
        painter.end()
    if path.suffix.lower() != ".png" or not image.save(str(path)):  # format from the suffix
        raise Sense7Error(f"{path}: could not write the PNG (the name must end in .png; check "
                          "the folder and its permissions)")
    return path


def svg_bytes(items: Sequence[PlotItem], *, width: int = 1100) -> bytes:
    """The plot as an SVG document."""
    size = export_size(items, width)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buffer)
    gen.setSize(size)
    gen.setViewBox(QRectF(0, 0, size.width(), size.height()))
    gen.setTitle(TITLE)
    gen.setDescription("Krippendorff's alpha per code (sense7-coder)")
    painter = QPainter(gen)
    try:
        draw_plot(painter, size, items, Theme.light())
    finally:
        painter.end()
    buffer.close()
    return bytes(data.data())


def save_svg(path: str | Path, items: Sequence[PlotItem], *, width: int = 1100) -> Path:
    path = Path(path)
    try:
        path.write_bytes(svg_bytes(items, width=width))
    except OSError as e:
        raise Sense7Error(f"{path}: could not write the SVG ({e.strerror or e})") from None
    return path


def save_plot(path: str | Path, items: Sequence[PlotItem]) -> Path:
    """PNG or SVG by the file's suffix."""
    suffix = Path(path).suffix.lower()
    if suffix == ".svg":
        return save_svg(path, items)
    if suffix == ".png":
        return save_png(path, items)
    raise Sense7Error(f"{path}: save the plot as .png or .svg")


class AlphaPlot(QWidget):
    """The plot as a widget; :meth:`set_rows` takes the agreement table's code rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.items: list[PlotItem] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(160)

    def set_rows(self, rows: Sequence[CodeRow]) -> None:
        self.items = [PlotItem.from_row(r) for r in rows]
        self.setToolTip("\n".join(f"{it.label}: {it.value_text}" for it in self.items))
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(700, preferred_height(len(self.items)))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        try:
            draw_plot(painter, self.size(), self.items, Theme.from_palette(self.palette()),
                      self.font())
        finally:
            painter.end()

    def save(self, path: str | Path) -> Path:
        return save_plot(path, self.items)


__all__ = ["AlphaPlot", "PlotItem", "save_plot", "save_png", "save_svg"]
