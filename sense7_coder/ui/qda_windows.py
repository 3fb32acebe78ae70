"""Opening the attribute sheet and the co-occurrence view from the main window (kept out
of main_window.py so that it stays small)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: the main window (not imported: it imports this module)
MainWindow = Any


def show_attributes(window: MainWindow) -> None:
    if window.project is None or window.workspace is None:
        return
    from .attributes_dialog import AttributesDialog

    dialog = AttributesDialog(window.project, window)
    dialog.goTo.connect(lambda cid, pos: window.workspace and window.workspace.go_to(cid, pos))
    changed = []
    dialog.edited.connect(lambda: changed.append(True))
    dialog.exec()
    if changed:
        window._refresh_everything()


def show_cooccurrence(window: MainWindow) -> None:
    if window.project is None or window.workspace is None:
        return
    from .cooccurrence_dialog import CooccurrenceDialog

    dialog = CooccurrenceDialog(window.project, window)

    def retrieve(key: str) -> None:
        from .retrieve_dialog import RetrieveDialog

        assert window.project is not None
        found = RetrieveDialog(window.project, dialog)
        found.goTo.connect(lambda cid, pos: window.workspace and window.workspace.go_to(cid, pos))
        found.choose(key)
        found.exec()

    dialog.retrieveCode.connect(retrieve)
    dialog.exec()


def import_qdpx(window: MainWindow, path: Path | None = None) -> None:
    if window.project is None or window.workspace is None:
        return
    from .dialogs.qdpx_import import QdpxImportDialog

    dialog = QdpxImportDialog(window.project, window)
    if path is not None:
        dialog.set_file(path)
    dialog.exec()
    window._after_dialog(dialog.summary is not None)
