"""Every file dialog of the window, shown by a process of its own.

A file dialog reads the files it lists (to tell their type and icon), and a native one or
a platform plugin may read more; in a folder that holds the open project, that means
opening and closing the project file and its ``-wal``/``-shm``. Closing any descriptor of a
file releases every POSIX lock the process holds on it: the window's SQLite locks would be
gone, and the next program to close the project would delete the log the window still
writes into. So the window never shows a file dialog itself: :func:`open_file`,
:func:`open_files`, :func:`save_file` and :func:`choose_folder` start :mod:`.picker` in a
child process, which holds no connection and shows the dialog (with the same title,
folder and filters, native where the platform has one), and read back what was chosen.

While it is open the window keeps painting and its timers run, but takes no input (as
under a modal dialog); cancel returns nothing; a child that fails says so once. After it
returns, this process's hold on its open projects is checked (``project/sharing.py``).
``tests/test_architecture.py`` fails on a file dialog (or a file system model or icon
provider, which read files too) anywhere else under ``ui/``.
"""

from __future__ import annotations

import contextlib
import json
import os
import site
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QEventLoop, QObject, QProcess, QProcessEnvironment
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from ..project.sharing import keep_all_connected

#: the hidden argument that makes a bundled executable (``sys.frozen``) the picker
#: (packaging/entry.py)
PICKER_FLAG = "--file-picker"
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def open_file(parent: QWidget | None, title: str, start: str, filters: str) -> str:
    """One existing file ("" when cancelled)."""
    paths, _ = _ask(parent, "open", title, start, filters)
    return paths[0] if paths else ""


def open_files(parent: QWidget | None, title: str, start: str, filters: str) -> list[str]:
    """Existing files (none when cancelled)."""
    return _ask(parent, "open_many", title, start, filters)[0]


def save_file(parent: QWidget | None, title: str, start: str, filters: str
              ) -> tuple[str, str]:
    """A file name to write, and the filter chosen (("", "") when cancelled)."""
    paths, chosen = _ask(parent, "save", title, start, filters)
    return (paths[0], chosen) if paths else ("", "")


def choose_folder(parent: QWidget | None, title: str, start: str = "") -> str:
    """A folder ("" when cancelled)."""
    paths, _ = _ask(parent, "folder", title, start, "")
    return paths[0] if paths else ""


def picker_command() -> tuple[str, list[str]]:
    """The program and arguments that start the picker."""
    if getattr(sys, "frozen", False):  # a bundle: its own executable, told by the flag
        return sys.executable, [PICKER_FLAG]
    return sys.executable, ["-m", "sense7_coder.ui.picker"]


def _environment() -> QProcessEnvironment:
    env = QProcessEnvironment.systemEnvironment()
    installed = {*site.getsitepackages(), site.getusersitepackages()}
    if not getattr(sys, "frozen", False) and str(_PACKAGE_ROOT) not in installed:
        # a source checkout: the child imports this very sense7_coder
        paths = [str(_PACKAGE_ROOT), env.value("PYTHONPATH")]
        env.insert("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    return env


def _ask(parent: QWidget | None, mode: str, title: str, start: str, filters: str
         ) -> tuple[list[str], str]:
    request: dict[str, Any] = {"mode": mode, "title": title, "start": start,
                               "filters": filters}
    window = parent.window() if parent is not None else None
    if window is not None and window.isVisible():
        request["parent"] = int(window.winId())
        center = window.frameGeometry().center()
        request["center"] = [center.x(), center.y()]
    fd, answer_name = tempfile.mkstemp(prefix="sense7-coder-picker-", suffix=".json")
    os.close(fd)
    answer = Path(answer_name)
    try:
        problem = _run(request, answer)
        reply = {} if problem else json.loads(answer.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError) as e:
        problem, reply = f"its answer could not be read ({e})", {}
    finally:
        answer.unlink(missing_ok=True)
        keep_all_connected()  # whatever opened files meanwhile: the window's hold on them
    if problem:
        QMessageBox.warning(parent, "File dialog", f"The file dialog could not be shown: "
                            f"{problem}.")
        return [], ""
    return [str(p) for p in reply.get("paths", [])], str(reply.get("filter", ""))


def _run(request: dict[str, Any], answer: Path) -> str:
    """Run the picker until it ends; what went wrong ("" when nothing did)."""
    program, args = picker_command()
    proc = QProcess()
    proc.setProcessEnvironment(_environment())
    loop = QEventLoop()
    proc.finished.connect(loop.quit)
    proc.start(program, [*args, json.dumps(request), str(answer)])
    if not proc.waitForStarted(30_000):
        return f"{program} did not start ({proc.errorString()})"
    with _input_held():
        if proc.state() != QProcess.ProcessState.NotRunning:
            loop.exec()
    if proc.exitStatus() != QProcess.ExitStatus.NormalExit or proc.exitCode() != 0:
        said = bytes(proc.readAllStandardError().data()).decode("utf-8", "replace").strip()
        last = said.splitlines()[-1] if said else ""
        return f"it ended with status {proc.exitCode()}" + (f": {last}" if last else "")
    return ""


class _HoldInput(QObject):
    """Swallows what a person types or clicks into the window, and closing it."""

    HELD = frozenset({
        QEvent.Type.MouseButtonPress, QEvent.Type.MouseButtonRelease,
        QEvent.Type.MouseButtonDblClick, QEvent.Type.Wheel, QEvent.Type.KeyPress,
        QEvent.Type.KeyRelease, QEvent.Type.ShortcutOverride, QEvent.Type.Shortcut,
        QEvent.Type.ContextMenu, QEvent.Type.TouchBegin, QEvent.Type.TouchUpdate,
        QEvent.Type.TouchEnd, QEvent.Type.TabletPress, QEvent.Type.Drop,
    })

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() in self.HELD:
            return True
        if event.type() == QEvent.Type.Close and isinstance(watched, QWidget) \
                and watched.isWindow():
            event.ignore()
            return True
        return False


@contextlib.contextmanager
def _input_held() -> Iterator[None]:
    """The window as under a modal dialog: painted, its timers running, no input."""
    app = QApplication.instance()
    holder = _HoldInput()
    if app is not None:
        app.installEventFilter(holder)
    try:
        yield
    finally:
        if app is not None:
            app.removeEventFilter(holder)
