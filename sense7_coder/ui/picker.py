"""The file dialog's own process: ``python -m sense7_coder.ui.picker REQUEST ANSWER``.

The window never shows a file dialog itself (see :mod:`.file_dialogs`): a dialog reads
the files it lists, the open project's among them, and closing such a file drops the
window's SQLite locks. This process holds no connection, so whatever its dialog (Qt's, or
the platform's native one) opens costs nothing. ``REQUEST`` is JSON: ``mode`` (``open``,
``open_many``, ``save``, ``folder``), ``title``, ``start``, ``filters``, and optionally
``parent`` (the window id to stay above) and ``center`` (where to show the dialog). The
answer is written as JSON to the file ``ANSWER``: ``{"paths": [...], "filter": "..."}``,
no paths when the person cancelled. Exit status 0 either way, 2 for a bad request.

For tests, :data:`SCRIPT_ENV` names a JSON ``{"folder": ..., "pick": [...] or null}``: Qt's
own (non-native) dialog lists ``folder``, waits until it has loaded it, selects ``pick``
and accepts (``null``: cancels); the answer then also lists the names the dialog showed.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, QTimer
from PySide6.QtGui import QGuiApplication, QWindow
from PySide6.QtWidgets import QDialog, QFileDialog, QFileSystemModel, QLineEdit

#: a test's script for the dialog (see the module's text)
SCRIPT_ENV = "SENSE7_CODER_PICKER_SCRIPT"
MODES = {
    "open": (QFileDialog.FileMode.ExistingFile, QFileDialog.AcceptMode.AcceptOpen),
    "open_many": (QFileDialog.FileMode.ExistingFiles, QFileDialog.AcceptMode.AcceptOpen),
    "save": (QFileDialog.FileMode.AnyFile, QFileDialog.AcceptMode.AcceptSave),
    "folder": (QFileDialog.FileMode.Directory, QFileDialog.AcceptMode.AcceptOpen),
}
#: platforms where a window of another process can be named as the dialog's parent
_FOREIGN_PARENTS = {"xcb", "windows", "cocoa"}


def make_dialog(request: dict[str, Any]) -> QFileDialog:
    """The dialog the request asks for, as QFileDialog's static functions make it."""
    dialog = QFileDialog(None, str(request.get("title", "")), str(request.get("start", "")),
                         str(request.get("filters", "")))
    file_mode, accept_mode = MODES[request["mode"]]
    dialog.setFileMode(file_mode)
    dialog.setAcceptMode(accept_mode)
    if request["mode"] == "folder":
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    return dialog


def _place(dialog: QFileDialog, request: dict[str, Any]) -> None:
    """Above the window that asked (its transient child where the platform allows)."""
    parent = request.get("parent")
    if parent and QGuiApplication.platformName() in _FOREIGN_PARENTS:
        foreign = QWindow.fromWinId(int(parent))
        dialog.winId()  # makes the native window, so that it can take a parent
        handle = dialog.windowHandle()
        if foreign is not None and handle is not None:
            handle.setTransientParent(foreign)
    center = request.get("center")
    if center:
        frame = dialog.frameGeometry()
        frame.moveCenter(QPoint(int(center[0]), int(center[1])))
        dialog.move(frame.topLeft())


def _scripted(dialog: QFileDialog, script: dict[str, Any]) -> list[str]:
    """A test's person: once ``folder`` is listed, pick and accept (or cancel); the names
    the dialog listed."""
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    folder = str(script["folder"])
    pick = script.get("pick")
    listed: list[str] = []
    model = dialog.findChild(QFileSystemModel)
    assert model is not None
    person = QTimer(dialog, interval=200)
    tries = iter(range(50))

    def loaded(path: str) -> None:
        if Path(path) != Path(folder) or person.isActive():
            return
        parent = model.index(path)
        listed.extend(model.fileName(model.index(i, 0, parent))
                      for i in range(model.rowCount(parent)))
        person.start()

    def act() -> None:
        if next(tries, None) is None:  # ten seconds: the dialog refused the name
            print(f"sense7-coder file dialog: {pick} was not accepted (in "
                  f"{dialog.directory().path()}: {dialog.selectedFiles()})", file=sys.stderr)
            os._exit(3)
        if not dialog.isVisible():
            return
        if pick is None:
            dialog.reject()
            return
        # typed into the name field, as a person does (selectFile leaves the field alone
        # while it has the focus)
        names = [Path(p).name if Path(p).parent == Path(folder) else str(p) for p in pick]
        field = dialog.findChild(QLineEdit, "fileNameEdit")
        assert field is not None
        field.setText(" ".join(f'"{n}"' for n in names) if len(names) > 1 else names[0])
        dialog.accept()

    person.timeout.connect(act)
    model.directoryLoaded.connect(loaded)
    dialog.setDirectory(folder)
    return listed


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """Show the dialog and say what was chosen."""
    dialog = make_dialog(request)
    script = os.environ.get(SCRIPT_ENV)
    listed = _scripted(dialog, json.loads(script)) if script else None
    _place(dialog, request)
    chosen = dialog.exec() == QDialog.DialogCode.Accepted
    out: dict[str, Any] = {"paths": dialog.selectedFiles() if chosen else [],
                           "filter": dialog.selectedNameFilter() if chosen else ""}
    if listed is not None:
        out["listed"] = listed
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        request = json.loads(args[0])
        target = Path(args[1])
        if request.get("mode") not in MODES:
            raise ValueError(f"unknown mode {request.get('mode')!r}")
    except (IndexError, ValueError) as e:
        print(f"sense7-coder file dialog: bad request ({e})", file=sys.stderr)
        return 2
    from .app import make_app

    make_app(["sense7-coder"])  # the names (window class too), style and palette of the window
    target.write_text(json.dumps(answer(request)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
