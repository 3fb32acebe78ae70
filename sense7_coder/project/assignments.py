"""Splitting conversations among coders, with an overlap sample that every coder codes.

:func:`assign` is seeded and reproducible, and never moves a conversation that is
already assigned: run again after an import, it hands out only the new conversations.

* The conversations selected (all, or those matching the filter) that no coder has yet
  are shuffled with ``random.Random(seed)``.
* ``overlap`` is a fraction: that share of them (rounded to the nearest whole
  conversation, halves up) goes to **every** listed coder, for reliability.
* The rest is dealt one by one to the coder with the fewest single-coded conversations
  so far (ties: the order the coders were listed), so the split is even, also across
  runs.
* ``per_coder`` limits each coder's share of this run to N conversations (the overlap
  included: ``round(overlap * N)`` of them are the overlap); conversations left over stay
  unassigned for a later run.
* Each coder's presentation order (``ord``) is the project's order, or with ``shuffle``
  a seeded order of their own, to spread order effects.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..domain.errors import Hint, ProjectError
from ..store import assignments as store_assignments
from ..store import codings as store_codings
from ..store import conversations as store_conv
from ..store.conversations import ConversationFilter
from .changes import CODERS, NOTHING, Changes
from .coders import typed_coder_name
from .project import Project


@dataclass
class AssignReport:
    coders: list[str]
    new: dict[str, int] = field(default_factory=dict)
    overlap: int = 0
    unassigned: int = 0
    selected: int = 0

    @property
    def changes(self) -> Changes:
        """Who codes what changed (nothing when nothing new was assigned)."""
        return CODERS if sum(self.new.values()) else NOTHING

    def lines(self) -> list[str]:
        total = sum(self.new.values())
        if not self.selected:
            return ["no conversation matches the filter"]
        if not total:
            return ["nothing new to assign: every selected conversation is already assigned"]
        first = f"assigned {_n(total - self.overlap * (len(self.coders) - 1), 'conversation')}"
        if self.overlap:
            first += f" ({_n(self.overlap, 'overlap conversation')} to every coder)"
        out = [first]
        out += [f"  {c}: {_n(self.new.get(c, 0), 'new conversation')}" for c in self.coders]
        if self.unassigned:
            out.append(f"{_n(self.unassigned, 'selected conversation')} left unassigned "
                       "(beyond the conversations per coder)")
        return out


def _n(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def assign(
    project: Project,
    coders: Sequence[str],
    *,
    overlap: float = 0.0,
    per_coder: int | None = None,
    conversations: ConversationFilter | None = None,
    seed: int = 0,
    shuffle: bool = False,
) -> AssignReport:
    """Assign the selected unassigned conversations to ``coders`` (see the module notes)."""
    names = [typed_coder_name(c) for c in coders if c.strip()]
    if not names:
        raise ProjectError("no coder given", hint=Hint("coders", "A,B", "give at least one"))
    if len(set(names)) != len(names):
        raise ProjectError("a coder is listed twice among the coders")
    if not 0.0 <= overlap <= 1.0:
        raise ProjectError(f"the overlap must be a fraction between 0 and 1, got {overlap}")
    if per_coder is not None and per_coder < 1:
        raise ProjectError(f"conversations per coder must be 1 or more, got {per_coder}")
    project.require_lead("assign conversations")
    db = project.db
    order = [cid for _, cid in store_assignments.conversation_order(db)]
    selected_ids = set(_selected(project, conversations))
    existing = store_assignments.all_assignments(db)
    taken = {a["conversation_id"] for a in existing}
    fresh = [cid for cid in order if cid in selected_ids and cid not in taken]
    rng = random.Random(seed)
    pool = rng.sample(fresh, len(fresh))
    if per_coder is not None:
        k = min(_half_up(overlap * per_coder), per_coder)
        pool = pool[: k + len(names) * (per_coder - k)]
        k = min(k, len(pool))
    else:
        k = _half_up(overlap * len(pool))
    shared, rest = pool[:k], pool[k:]
    load = {c: 0 for c in names}
    for a in existing:
        if a["coder"] in load and not a["overlap"]:
            load[a["coder"]] += 1
    given: dict[str, list[tuple[str, int]]] = {c: [(cid, 1) for cid in shared] for c in names}
    cap = None if per_coder is None else per_coder - k
    start_load = dict(load)
    for cid in rest:
        open_ = [c for c in names if cap is None or load[c] - start_load[c] < cap]
        if not open_:
            break
        coder = min(open_, key=lambda c: (load[c], names.index(c)))
        load[coder] += 1
        given[coder].append((cid, 0))
    position = {cid: i for i, cid in enumerate(order)}
    next_ord = {c: 1 + max((a["ord"] for a in existing if a["coder"] == c), default=0)
                for c in names}
    rows: list[tuple[str, str, int, int]] = []
    for coder in names:
        mine = sorted(given[coder], key=lambda item: position[item[0]])
        if shuffle:
            random.Random(f"{seed}:{coder}").shuffle(mine)
        rows += [(coder, cid, flag, next_ord[coder] + i) for i, (cid, flag) in enumerate(mine)]
    report = AssignReport(names, overlap=len(shared), selected=len(selected_ids))
    with project.pdb.acting("assign"), project.pdb.atomic() as wdb:
        for coder in names:
            store_codings.ensure_coder(wdb, coder)
        store_assignments.insert(wdb, rows)
    for coder in names:
        report.new[coder] = len(given[coder])
    dealt = {cid for items in given.values() for cid, _ in items}
    report.unassigned = len([cid for cid in fresh if cid not in dealt])
    return report


def _selected(project: Project, f: ConversationFilter | None) -> list[str]:
    everything = store_assignments.conversation_order(project.db)
    if f is None:
        return [r[1] for r in everything]
    wanted = set(store_conv.conversation_rowids(project.db, f))
    return [r[1] for r in everything if r[0] in wanted]


def assignments(project: Project) -> list[dict[str, Any]]:
    return store_assignments.all_assignments(project.db)


def assigned_to(project: Project, coder: str) -> list[str]:
    return store_assignments.conversations_of(project.db, coder)


def progress(project: Project) -> list[dict[str, Any]]:
    """Per coder: conversations assigned (overlap among them), turns to code, turns done."""
    return store_assignments.progress(project.db)
