"""Dialogs of the desktop app: importing conversations and editing the codebook.

Both take ``(project, parent)`` and change the project while open (the import on a worker
with its own connection, the codebook at every edit); the caller refreshes afterwards.
"""

from .codebook_editor import CodebookEditorDialog
from .import_dialog import ImportDialog

__all__ = ["CodebookEditorDialog", "ImportDialog"]
