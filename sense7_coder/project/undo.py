"""Undo and redo of coding actions.

Every coding action is a :class:`Command`: a list of typed cells (:mod:`.cells`), each
holding the value before and after; ``Command.changes`` says what it touched. Undo writes the "before" values, redo the "after" values, each in one
transaction. The stack lives in memory for the session; every state it moves through is
already saved in the project file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .cells import Cell
from .changes import Changes, UnitKey


@dataclass
class Command:
    label: str
    cells: list[Cell] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return all(c.unchanged for c in self.cells)

    @property
    def changes(self) -> Changes:
        """What the command touches (the same whether it is done, undone or redone)."""
        return Changes.union(c.changes() for c in self.cells)

    @property
    def location(self) -> UnitKey | None:
        """(conversation_id, position, sentence) of the first unit the command changed."""
        return self.cells[0].location() if self.cells else None


class UndoStack:
    def __init__(self, limit: int = 1000) -> None:
        self._done: list[Command] = []
        self._undone: list[Command] = []
        self.limit = limit

    def push(self, cmd: Command) -> None:
        self._done.append(cmd)
        if len(self._done) > self.limit:
            del self._done[0]
        self._undone.clear()

    def peek_undo(self) -> Command | None:
        return self._done[-1] if self._done else None

    def peek_redo(self) -> Command | None:
        return self._undone[-1] if self._undone else None

    def drop(self, cmd: Command) -> None:
        """Forget a command that can no longer be undone or redone."""
        for stack in (self._done, self._undone):
            if stack and stack[-1] is cmd:
                stack.pop()

    def pop_undo(self) -> Command | None:
        if not self._done:
            return None
        cmd = self._done.pop()
        self._undone.append(cmd)
        return cmd

    def pop_redo(self) -> Command | None:
        if not self._undone:
            return None
        cmd = self._undone.pop()
        self._done.append(cmd)
        return cmd

    @property
    def undo_label(self) -> str | None:
        return self._done[-1].label if self._done else None

    @property
    def redo_label(self) -> str | None:
        return self._undone[-1].label if self._undone else None

    def clear(self) -> None:
        self._done.clear()
        self._undone.clear()


def changed_elsewhere(what: str, cmd: Command, changed: Sequence[Cell]) -> str:
    """Why a command cannot be undone or redone: the first cell changed elsewhere."""
    more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
    return (f"cannot {what} '{cmd.label}': {changed[0].place()}{more} was changed in "
            f"another window or program since; it is left as it is and this step is "
            f"removed from the {what} history")
