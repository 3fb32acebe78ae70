"""Opening the attribute sheet and the co-occurrence view from the main window (kept out
of main_window.py so that it stays small)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..project.changes import NOTHING, Changes

#: the main window (not imported: it imports this module)
MainWindow = Any


def show_attributes(window: MainWindow) -> None:
    if window.project is None or window.workspace is None:
        return
    from .attributes_dialog import AttributesDialog

    dialog = AttributesDialog(window.project, window)
    dialog.goTo.connect(lambda cid, pos: window.workspace and window.workspace.go_to(cid, pos))
    edited: list[Changes] = []
    dialog.edited.connect(edited.append)
    window.listen(dialog.show_changes)  # what other programs write while it is open
    dialog.exec()
    # the list and the transcript show attributes: they follow once the sheet closes (the
    # sheet itself would read again on every edit if they went out while it is open)
    window.publish_changes(Changes.union(edited))


def show_cooccurrence(window: MainWindow) -> None:
    if window.project is None or window.workspace is None:
        return
    from .cooccurrence_dialog import CooccurrenceDialog

    dialog = CooccurrenceDialog(window.project, window)
    window.listen(dialog.show_changes)

    def retrieve(key: str) -> None:
        from .retrieve_dialog import RetrieveDialog

        assert window.project is not None
        found = RetrieveDialog(window.project, dialog)
        window.listen(found.show_changes)
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
    # the import wrote through its own connection (codebook, conversations, codings)
    window.publish_changes(dialog.summary.changes if dialog.summary is not None else NOTHING,
                           outside=True)
