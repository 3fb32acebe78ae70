"""One signal for everything that changed in the open project.

The window's own actions (a coding key, undo, an import) and what another window or
program wrote (seen by the 2-second poll) both arrive here as a
:class:`~sense7_coder.project.changes.Changes`; the views listen to ``changed`` and
refresh what it names from the project, never by patching a copy of their own.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from ..project import Project
from ..project.changes import Changes
from ..project.watch import ChangeWatch


class ChangesHub(QObject):
    """``changed(Changes)``: something named in the project changed."""

    changed = Signal(object)

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.watch = ChangeWatch(project)

    def publish(self, changes: Changes | None) -> None:
        """Tell every view (nothing when nothing changed)."""
        if changes is not None and not changes.empty:
            self.changed.emit(changes)

    def poll(self) -> Changes:
        """Publish what other windows or programs wrote since the last poll."""
        changes = self.watch.poll()
        self.publish(changes)
        return changes

    def publish_outside_work(self, changes: Changes) -> None:
        """After a dialog or task wrote through its own connection: count its writes as
        seen (so the poll does not report them again) and publish ``changes``. Nothing
        changed: the poll still reports what other programs wrote meanwhile."""
        if changes.empty:
            return
        self.watch.forget()
        self.publish(changes)
