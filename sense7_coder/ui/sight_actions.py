"""The window's items a person working blind may not use: greyed, with the reason.

The project's :class:`~sense7_coder.project.sight.Sight` decides who works blind; this
module only says, per menu item, what the item would show, and puts the sight's reason in
the item's tooltip and status tip (a disabled item that does nothing, or opens to say no,
teaches nothing; a greyed one with its reason does).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QMouseEvent
from PySide6.QtWidgets import QMainWindow, QMenu

from ..project.sight import Sight

#: menu item -> what it does, as the refusal names it ("only a lead can ...")
CLOSED_WHILE_BLIND: dict[str, str] = {
    "agreement": "see agreement (it compares your values with the other coders' and the "
                 "users' own ratings)",
    "reconcile": "reconcile disagreements (it shows every coder's values)",
    "analyses": "run the analyses and predictors (they read every coder's values and the "
                "users' ratings)",
    "export": "export tables (they hold every coder's values and the users' ratings; "
              "'sense7-coder export --kind codebook' writes the codebook)",
    "merge": "merge coders' project files (a merge lists every coder's values)",
    "cooccurrence": "see how codes occur together (it counts every coder's codes)",
}
_OPEN_TIP = "sense7_open_tip"  # the item's own tip, kept on it while a reason is shown


def closed_reason(sight: Sight, name: str) -> str | None:
    """Why the item ``name`` is closed to the person (None: open to her)."""
    what = CLOSED_WHILE_BLIND.get(name)
    return None if what is None else sight.why_hidden(what)


def apply_sight(actions: Mapping[str, QAction], sight: Sight) -> None:
    """Grey out the items ``sight`` closes, each with its reason as tooltip and status tip;
    open the others again with their own tips. Call it after enabling the project's items
    and whenever the coder, their role or blind coding changes."""
    for name in CLOSED_WHILE_BLIND:
        action = actions.get(name)
        if action is None:
            continue
        own = action.property(_OPEN_TIP)
        if own is None:
            own = action.toolTip()
            action.setProperty(_OPEN_TIP, own)
        why = closed_reason(sight, name)
        action.setEnabled(why is None)
        tip = own if why is None else f"Not available: {why}"
        action.setToolTip(tip)
        action.setStatusTip(tip)


class _GreyedStatus(QObject):
    """Puts a greyed item's status tip on the status line while the pointer is over it (Qt
    highlights, and so reports, only the items that are enabled)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(watched, QMenu) and isinstance(event, QMouseEvent) and \
                event.type() == QEvent.Type.MouseMove:
            action = watched.actionAt(event.position().toPoint())
            if action is not None and not action.isEnabled() and action.statusTip():
                self.window.statusBar().showMessage(action.statusTip())
        return False


def show_tips(window: QMainWindow, menus: Iterable[QMenu]) -> None:
    """Let the menus show their items' tooltips, and a greyed item's status tip on the
    status line (the reason a greyed item is greyed)."""
    status = _GreyedStatus(window)
    for menu in menus:
        menu.setToolTipsVisible(True)
        menu.installEventFilter(status)
