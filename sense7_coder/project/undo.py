"""Undo and redo of coding actions.

Every coding action is a :class:`Command`: a list of cells, each holding the value before
and after. Undo writes the "before" values, redo the "after" values, each in one
transaction. The stack lives in memory for the session; every state it moves through is
already saved in the project file.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    #: how the coding before and after was made (source, blind, origin), put back with it
    made_before: tuple[Any, ...] | None = None
    made_after: tuple[Any, ...] | None = None


def same_value(kind: str, a: Any, b: Any) -> bool:
    """Do two values of a cell of ``kind`` mean the same (as stored)?

    A consensus decision is the same when its value, adjudicator and rationale are (the
    time it was taken is not compared); a coded value must also have the same type
    (level 1 is not level "1").
    """
    if kind == "consensus":
        if a is None or b is None:
            return a is b
        va, vb = a.get("value"), b.get("value")
        return (va == vb and type(va) is type(vb)
                and a.get("adjudicator") == b.get("adjudicator")
                and (a.get("rationale") or "") == (b.get("rationale") or ""))
    if kind == "done":
        return bool(a) == bool(b)
    return a == b and type(a) is type(b)


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


def _cell_place(cell: Cell) -> str:
    """Where a cell is, in words: "alice's 'affective' on conversation 'c1', turn 2"."""
    if cell.kind == "consensus":
        cid, pos, sent, code = cell.key
        who = f"the consensus of '{code}'"
    elif cell.kind == "coding":
        coder, cid, pos, sent, code = cell.key
        who = f"{coder}'s '{code}'"
    elif cell.kind == "memo":
        coder, cid, pos, sent = cell.key
        who = f"{coder}'s memo"
    elif cell.kind == "span":
        coder, cid, pos, start, end, code = cell.key
        sent = 0
        who = f"{coder}'s '{code}' span {start}-{end}"
    else:
        coder, cid, pos = cell.key
        sent = 0
        who = f"{coder}'s done mark"
    where = f"conversation '{cid}'" + (f", turn {pos}" if pos else "")
    return f"{who} on {where}" + (f", sentence {sent}" if sent else "")


def changed_elsewhere(what: str, cmd: Command, changed: Sequence[Cell]) -> str:
    """Why a command cannot be undone or redone: the first cell changed elsewhere."""
    more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
    return (f"cannot {what} '{cmd.label}': {_cell_place(changed[0])}{more} was changed in "
            f"another window or program since; it is left as it is and this step is "
            f"removed from the {what} history")
