"""A start-up check for built bundles: ``SENSE7_CODER_SMOKE=report.json``.

When that variable is set, :func:`.app.run_app` opens the project as the coder
``SENSE7_CODER_SMOKE_CODER`` (default ``smoke-check``, so no dialog waits for a person),
and once the event loop runs it writes what is on screen to the report (window shown,
title, project open, conversations listed, the current turn's text) and quits. Used by
``packaging/check_bundle.py``; without the variable nothing here runs.
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


def requested() -> Path | None:
    value = os.environ.get(ENV, "").strip()
    return Path(value) if value else None


def coder() -> str:
    return os.environ.get(CODER_ENV, "").strip() or "smoke-check"


def report_when_running(app: QApplication, window: Any, report: Path) -> None:
    """Once the event loop has drawn the window, write the report and quit."""

    def write() -> None:
        workspace = getattr(window, "workspace", None)
        conversation = getattr(workspace, "conversation", None) if workspace else None
        state = {
            "shown": bool(window.isVisible()),
            "title": window.windowTitle(),
            "project": str(window.project.path) if window.project is not None else None,
            "conversation": getattr(conversation, "conversation_id", None),
            "turns": len(getattr(conversation, "turns", []) or []),
            "platform": QApplication.platformName(),
        }
        report.write_text(json.dumps(state, indent=2), encoding="utf-8")
        app.quit()

    QTimer.singleShot(0, lambda: QTimer.singleShot(200, write))
