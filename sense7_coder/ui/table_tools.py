"""What the table windows (retrieval, co-occurrence, the attribute sheet) share: the Copy
and Export buttons with what they do, and the frame of the window around the table (the
rows of choices above it, a note under it, Close and the action buttons at the bottom)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLayout,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..domain.errors import Sense7Error
from ..project.team.tables import tab_separated
from . import file_dialogs

if TYPE_CHECKING:
    import pandas as pd


def copy_export_buttons(parent: QWidget, copy: Callable[[], None], export: Callable[[], None],
                        copy_tip: str = "") -> tuple[QPushButton, QPushButton]:
    """The Copy and Export… buttons of a table, calling ``copy`` and ``export``."""
    copy_button = QPushButton("&Copy", parent)
    if copy_tip:
        copy_button.setToolTip(copy_tip)
    copy_button.clicked.connect(copy)
    export_button = QPushButton("&Export…", parent)
    export_button.clicked.connect(export)
    return copy_button, export_button


def table_window(dialog: QDialog, rows: Sequence[QLayout], table: QWidget, note: QWidget,
                 actions: Sequence[QPushButton] = ()) -> None:
    """Lays ``dialog`` out: the ``rows`` of choices, the ``table`` taking the room, the
    ``note`` under it, then Close (which closes the dialog) beside the ``actions``."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    for button in actions:
        buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    for row in rows:
        layout.addLayout(row)
    layout.addWidget(table, 1)
    layout.addWidget(note)
    layout.addWidget(buttons)


def copy_table(frame: pd.DataFrame) -> None:
    """The table on the clipboard, tab-separated with a header."""
    QApplication.clipboard().setText(tab_separated(frame))


def ask_csv_path(parent: QWidget, title: str, suggested: str) -> str:
    """Where to write a CSV file ("" when the coder cancels)."""
    name, _ = file_dialogs.save_file(parent, title, suggested, "CSV (*.csv)")
    return name


def write_table(parent: QWidget, frame: pd.DataFrame, path: str) -> bool:
    """Writes ``frame`` as CSV to ``path``; says why in a warning and returns False when it
    could not."""
    from ..domain.export.tables import write_csv

    try:
        write_csv(frame, path)
    except (Sense7Error, OSError) as e:
        QMessageBox.warning(parent, "Not exported", str(e))
        return False
    return True
