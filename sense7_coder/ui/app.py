"""Start the desktop application: ``run_app(project_path | None) -> exit status``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication

from .. import APP_NAME, __version__
from ..resources import resources_dir
from .palette import apply_env_palette
from .quit_signals import quit_on_signals
from .settings import ORGANIZATION

#: Qt's raster engine hands every fill of 96 or more scan lines to a thread pool and waits
#: for it. For a coding window's fills the hand-off costs more than the fill: with the pool
#: off, moving to the next turn took 15-25% less wall time at the median on a 2-core
#: machine (benchmarks/README.md). Qt reads the variable's presence, once, when the pool
#: would first be made; a value the user set is left alone.
NO_GUI_THREADPOOL = "QT_NO_GUI_THREADPOOL"


def make_app(argv: list[str] | None = None) -> QApplication:
    """The QApplication (created once): names for QSettings, high-DPI, the system palette."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        _set_icon(existing)
        return existing
    os.environ.setdefault(NO_GUI_THREADPOOL, "1")
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(
        Qt.HighDpiScaleFactorRoundingPolicy.PassThrough
    )
    app = QApplication(argv if argv is not None else [sys.argv[0]])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_NAME)
    _set_icon(app)
    # Fusion draws consistently everywhere and follows the platform's light or dark palette;
    # every colour of the window is taken from palette roles.
    if sys.platform.startswith("linux"):
        app.setStyle("Fusion")
    apply_env_palette(app)
    return app


def _set_icon(app: QApplication) -> None:
    icon = resources_dir() / "icons" / "sense7-coder.svg"
    if icon.exists() and app.windowIcon().isNull():  # SVG needs Qt's svg image plugin
        app.setWindowIcon(QIcon(str(icon)))


def run_app(project_path: str | Path | None = None) -> int:
    """Open the welcome screen, or straight into the workspace of ``project_path``."""
    from . import smoke
    from .main_window import MainWindow

    app = make_app()
    quit_on_signals(app)  # a logout's SIGTERM closes the project as File › Quit does
    window = MainWindow()
    from .team_folder_panel import install as install_team_folder

    install_team_folder(window)  # Coding › Team folder…, and its poll
    window.show()
    report = smoke.requested()  # a bundle's start-up check (packaging/check_bundle.py)
    coder = smoke.coder() if report is not None else None
    if project_path is not None and not window.open_project(Path(project_path), coder):
        window.show_welcome()
    if report is not None:
        smoke.report_when_running(app, window, report)
    return int(app.exec())
