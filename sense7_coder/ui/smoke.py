"""A start-up check for built bundles: ``SENSE7_CODER_SMOKE=report.json``.

When that variable is set, :func:`.app.run_app` opens the project as the coder
``SENSE7_CODER_SMOKE_CODER`` (default ``smoke-check``, so no dialog waits for a person),
and once the event loop runs it writes what is on screen to the report (window shown,
title, project open, conversations listed, the current turn's text, the versions Help >
About lists) and quits. With ``SENSE7_CODER_SMOKE_PLOT=1`` it also draws the agreement
plot widget (matplotlib's Agg canvas, Pillow, into a QImage) and reports whether it drew
or the words it shows instead. Used by ``packaging/check_bundle.py``; without the variable
nothing here runs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

ENV = "SENSE7_CODER_SMOKE"
CODER_ENV = "SENSE7_CODER_SMOKE_CODER"
PLOT_ENV = "SENSE7_CODER_SMOKE_PLOT"


def requested() -> Path | None:
    value = os.environ.get(ENV, "").strip()
    return Path(value) if value else None


def coder() -> str:
    return os.environ.get(CODER_ENV, "").strip() or "smoke-check"


def draw_plot() -> dict[str, Any]:
    """Draw the agreement plot as the agreement window does; what came of it."""
    from .analysis.agreement_plot import AlphaPlot, PlotItem

    plot = AlphaPlot()
    plot.items = [PlotItem("Overall empathy", 0.81, 0.72, 0.88, "good"),
                  PlotItem("Affective", 0.55, 0.31, 0.70, "low")]
    plot.resize(640, 320)
    image = plot.grab().toImage()  # runs the paint event
    plot.deleteLater()
    return {"drawn": plot.failure is None, "failure": plot.failure,
            "size": [image.width(), image.height()]}


def report_when_running(app: QApplication, window: Any, report: Path) -> None:
    """Once the event loop has drawn the window, write the report and quit."""

    def write() -> None:
        from .help import versions

        workspace = getattr(window, "workspace", None)
        conversation = getattr(workspace, "conversation", None) if workspace else None
        state = {
            "shown": bool(window.isVisible()),
            "title": window.windowTitle(),
            "project": str(window.project.path) if window.project is not None else None,
            "conversation": getattr(conversation, "conversation_id", None),
            "turns": len(getattr(conversation, "turns", []) or []),
            "platform": QApplication.platformName(),
            "about": versions(),
        }
        if os.environ.get(PLOT_ENV, "").strip() == "1":
            state["plot"] = draw_plot()
        report.write_text(json.dumps(state, indent=2), encoding="utf-8")
        app.quit()

    QTimer.singleShot(0, lambda: QTimer.singleShot(200, write))
