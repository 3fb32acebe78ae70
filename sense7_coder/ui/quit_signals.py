"""SIGTERM and SIGHUP end the window as File › Quit does.

A logout, a shutdown or ``kill PID`` sends SIGTERM (a closed terminal SIGHUP). Python's
default for them ends the process on the spot: the project's connections are never
closed, so a project's ``-wal`` and ``-shm`` stay beside it with the latest changes in the
log, and a coder who then sends only the project file sends it without them.

Here both signals close every window instead, as File › Quit does: the memo being typed
is saved, the project is closed (the last connection folds its log into the file), and
the program ends with status 0. A Python signal handler runs only when the interpreter
gets control, and Qt's event loop may sleep in C for as long as nothing happens on
screen; the handler's signal is therefore also written to a socket (Python's
``signal.set_wakeup_fd``) that a ``QSocketNotifier`` watches, which wakes the loop at once.
"""

from __future__ import annotations

import contextlib
import signal
import socket
from typing import Any

from PySide6.QtCore import QSocketNotifier, QTimer
from PySide6.QtWidgets import QApplication

#: the signals handled (SIGHUP does not exist on Windows)
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                if hasattr(signal, name))


def quit_on_signals(app: QApplication) -> None:
    """From now on SIGTERM and SIGHUP close every window of ``app`` and end its loop."""
    if getattr(app, "_sense7_quit_signals", None) is not None:
        return
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, app)

    def drain() -> None:
        # the Python handler has run by now (this is Python code); empty the socket
        with contextlib.suppress(OSError):
            while reader.recv(64):
                pass

    notifier.activated.connect(drain)
    quitting: list[bool] = []

    def handler(_signum: int, _frame: Any) -> None:
        if not quitting:  # a second signal while closing changes nothing
            quitting.append(True)
            QTimer.singleShot(0, lambda: close_everything(app))

    for number in SIGNALS:
        signal.signal(number, handler)
    # kept with the application: the sockets and the notifier live as long as it does
    app._sense7_quit_signals = (reader, writer, notifier)  # type: ignore[attr-defined]


def close_everything(app: QApplication) -> None:
    """Close every window (a main window closes its project), then end the event loop --
    every nested one (a dialog's) included. A window that would not close (a job's
    progress, asked to cancel) still has its project closed: the job's own connection
    ends with the job (``aboutToQuit`` waits for it)."""
    app.closeAllWindows()
    for widget in app.topLevelWidgets():
        close_project = getattr(widget, "close_project", None)
        if callable(close_project) and getattr(widget, "project", None) is not None:
            close_project(show_welcome=False)
    app.quit()
