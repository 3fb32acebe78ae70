"""Undo and redo of coding actions.

Every coding action is a :class:`Command`: a list of cells, each holding the value before
and after. Undo writes the "before" values, redo the "after" values, each in one
transaction. The stack lives in memory for the session; every state it moves through is
already saved in the project file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# cell kinds: 'coding' key=(coder, cid, pos, sent, code); 'done' key=(coder, cid, pos);
# 'memo' key=(coder, cid, pos, sent); 'consensus' key=(cid, pos, sent, code)


@dataclass
class Cell:
    kind: str
    key: tuple[Any, ...]
    before: Any
    after: Any


@dataclass
class Command:
    label: str
    cells: list[Cell] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return all(c.before == c.after and type(c.before) is type(c.after) for c in self.cells)


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
