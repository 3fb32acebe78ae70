"""Reconciling coders: the queue of disagreements, majority decisions, progress.

A unit *disagrees* on a code when at least two coders rated it (a value or "not
applicable"; for binary codes a finished turn without the code counts as 0, as in
:mod:`.agreement`) and their values are not all the same. The queue is sorted by how far
apart the coders are: for ordinal codes the range of their values on the scale (steps
between the lowest and highest level given), for nominal and binary codes the number of
distinct values; ties are broken by the number of distinct values (not applicable
counts as one), then by conversation order, turn, sentence and codebook order.

Decisions are stored only through :meth:`Project.set_consensus` (or, for the batch
:func:`accept_majorities`, one transaction with one undo step) by a coder whose role is
*adjudicator*. The coders' own codings are never changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..domain.agreement import CONSENSUS_RATER, AgreementReport, rater_vs_reference
from ..domain.agreement.majority import majority_codes, mark_by_construction
from ..domain.agreement.units import unit_ids, unit_key
from ..domain.codebook.codes import Code
from ..domain.errors import Cancelled, ProjectError
from ..domain.models import Unit, Value
from ..domain.progress import CancelFn, ProgressFn
from ..store import frames
from ..store import rationales as store_rationales
from ..store.conversations import ConversationFilter
from .agreement import check_request
from .hints import MAKE_ADJUDICATOR
from .project import Project
from .ratings import (
    UNIT_COLUMNS,
    ProjectRatings,
    code_values,
    read_ratings,
)
from .selection import Selection
from .undo import Command

NO_MAJORITY = object()  # marker: no value holds a strict majority
MAJORITY_RATIONALE = "majority of coders"


@dataclass
class Disagreement:
    """One unit and code on which coders differ, with everything needed to decide it."""

    unit: Unit
    code: str
    #: coder -> value (None = not applicable), in coder-name order
    values: dict[str, Value]
    #: coder -> memo on this unit (or, for a sentence, on its turn), where there is one
    memos: dict[str, str] = field(default_factory=dict)
    #: coder -> the rationale the coder gave for this value, where there is one
    rationales: dict[str, str] = field(default_factory=dict)
    #: how far apart: scale steps between lowest and highest (ordinal), else distinct values
    spread: float = 0.0
    #: number of distinct values given (not applicable counts as one)
    distinct: int = 0
    #: the value a strict majority of the coders gave, or NO_MAJORITY
    majority: Any = NO_MAJORITY
    #: the decision already taken: {value, adjudicator, rationale, decided_at} or None
    consensus: dict[str, Any] | None = None

    @property
    def decided(self) -> bool:
        return self.consensus is not None

    @property
    def has_majority(self) -> bool:
        return self.majority is not NO_MAJORITY

    def to_dict(self) -> dict[str, Any]:
        return {
            "conversation_id": self.unit.conversation_id, "position": self.unit.position,
            "sentence": self.unit.sentence, "code": self.code, "values": dict(self.values),
            "memos": dict(self.memos), "rationales": dict(self.rationales),
            "spread": self.spread, "distinct": self.distinct,
            "majority": self.majority if self.has_majority else None,
            "has_majority": self.has_majority, "consensus": self.consensus,
        }


@dataclass
class CodeProgress:
    """Reconciliation progress of one code."""

    code: str
    #: units rated by at least two coders
    compared: int = 0
    #: of those, units where the coders differ
    disagreeing: int = 0
    #: disagreeing units that have a consensus decision
    decided: int = 0
    #: consensus decisions stored for the code (any unit)
    consensus: int = 0

    @property
    def open(self) -> int:
        return self.disagreeing - self.decided

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "compared": self.compared, "disagreeing": self.disagreeing,
                "decided": self.decided, "open": self.open, "consensus": self.consensus}


def strict_majority(values: Sequence[Value]) -> Any:
    """The value more than half of ``values`` share (None = not applicable is a value too)."""
    if not values:
        return NO_MAJORITY
    # a Counter, not pandas' value_counts: 0.5 ms a unit made a queue of 160,000
    # disagreements take over a minute; votes as the batch counts them (:func:`_vote`)
    votes = Counter(_vote(v) for v in values)
    (top, n), = votes.most_common(1)
    if 2 * n <= len(values):
        return NO_MAJORITY
    return next(v for v in values if _vote(v) == top)


def _units_of(groups: pd.DataFrame) -> Iterator[tuple[Unit, dict[str, Any]]]:
    """The units of :func:`_unit_groups` on which the coders differ, in the units' order,
    each with its coders' values (coders in name order): sorted once and walked, where
    one pandas group per unit made a queue of 160,000 disagreements take minutes."""
    groups = groups[groups["nunique"] > 1]
    if not len(groups):
        return
    unit_order = pd.factorize(groups["key"])[0]
    coders = groups["coder"].astype(str).to_numpy(dtype=object)
    order = np.lexsort((coders, unit_order))
    starts = np.flatnonzero(np.diff(unit_order[order], prepend=-1))
    cids, positions = groups["conversation_id"].to_numpy(), groups["position"].to_numpy()
    sentences, values = groups["sentence"].to_numpy(), groups["value"].to_numpy(dtype=object)
    for lo, hi in zip(starts, [*starts[1:], len(order)], strict=True):
        rows = order[lo:hi]
        first = rows[0]
        yield (Unit(str(cids[first]), int(positions[first]), int(sentences[first])),
               {coders[i]: values[i] for i in rows})


def _majority_rows(groups: pd.DataFrame) -> pd.DataFrame:
    """One row (conversation_id, position, sentence, value) per unit of
    :func:`_unit_groups` whose coders have a strict majority (as :func:`strict_majority`,
    not applicable a value too), in the units' order: counted for all units at once (one
    pandas group per unit took 9 s a code on 20,000 units)."""
    if not len(groups):
        return groups
    g = groups.assign(token=groups["value"].map(_vote))
    votes = g.groupby(["key", "token"], sort=False)["n"].agg(["size", "first"])
    won = votes[2 * votes["size"] > votes["first"]].index
    first = g.drop_duplicates(["key", "token"]).set_index(["key", "token"])
    rows = first.loc[first.index.isin(won)].reset_index()
    unit_order = pd.Index(pd.unique(g["key"])).get_indexer(rows["key"])
    return rows.iloc[unit_order.argsort(kind="stable")]


def _vote(value: Any) -> str:
    """What a value counts as in a vote: equal values (3 and 3.0), equal votes."""
    if value is None:
        return "na"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(float(value))
    return repr(value)


def _spread(code: Code, values: Sequence[Value]) -> tuple[float, int]:
    distinct = len({("na",) if v is None else ("v", v) for v in values})
    if code.kind == "ordinal":
        order = {v: i for i, v in enumerate(code.values)}
        pos = [order[v] for v in values if v is not None and v in order]
        return float(max(pos) - min(pos)) if pos else 0.0, distinct
    return float(distinct), distinct


def _unit_groups(code: Code, data: ProjectRatings) -> pd.DataFrame:
    """Per unit: the coders' values, with counts; only units rated by two coders or more."""
    vals = code_values(code, data)
    if not len(vals):
        return vals.assign(key=pd.Series([], dtype=object), n=0, nunique=0)
    vals = vals.assign(key=unit_key(vals), token=vals["value"].map(repr))
    stats = vals.groupby("key", sort=False).agg(n=("coder", "size"), nunique=("token", "nunique"))
    vals = vals.join(stats, on="key")
    return vals[vals["n"] >= 2].drop(columns="token")


def _memo_lookup(memos: pd.DataFrame) -> dict[tuple[str, str, int, int], str]:
    return {
        (r.coder, r.conversation_id, int(r.position), int(r.sentence)): r.text
        for r in memos.itertuples(index=False)
    }


def _consensus_lookup(data: ProjectRatings) -> dict[tuple[str, str, int, int], dict[str, Any]]:
    return {
        (r.code, r.conversation_id, int(r.position), int(r.sentence)): {
            "value": r.value, "adjudicator": r.adjudicator, "rationale": r.rationale,
            "decided_at": r.decided_at,
        }
        for r in data.consensus.itertuples(index=False)
    }


def disagreements(
    project: Project,
    selection: Selection | None = None,
    *,
    undecided_only: bool = False,
) -> list[Disagreement]:
    """The reconciliation queue of ``selection``'s codes, coders, conversations and values,
    furthest apart first (see the module notes)."""
    project.require_unblinded("see the coders' disagreements")
    selection = selection or Selection()
    selected = check_request(project, selection)
    filt = selection.conversation_filter()
    with project.snapshot():  # codings, consensus and memos of one state of the file
        data = read_ratings(project, selected, coders=selection.coders, conversations=filt,
                            values=selection.values)
        memos = _memo_lookup(frames.memos_frame(project.db, coders=selection.coders,
                                                conversations=filt))
        order = frames.conversation_order(project.db)
        why = store_rationales.of_conversations(project.db, filt.conversation_ids or None)
    decisions = _consensus_lookup(data)
    code_rank = {c.key: i for i, c in enumerate(project.codebook.codes)}
    queue: list[Disagreement] = []
    for code in selected:
        for unit, given in _units_of(_unit_groups(code, data)):
            decision = decisions.get((code.key, unit.conversation_id, unit.position,
                                      unit.sentence))
            if undecided_only and decision is not None:
                continue
            spread, distinct = _spread(code, list(given.values()))
            notes = {}
            for coder in given:
                text = memos.get((coder, *_unit_tuple(unit))) or (
                    memos.get((coder, unit.conversation_id, unit.position, 0))
                    if unit.sentence else None
                )
                if text:
                    notes[coder] = text
            reasons = {c: t for c in given if (t := why.get(
                (c, unit.conversation_id, unit.position, unit.sentence, code.key)))}
            queue.append(Disagreement(
                unit=unit, code=code.key, values=given, memos=notes, rationales=reasons,
                spread=spread,
                distinct=distinct, majority=strict_majority(list(given.values())),
                consensus=decision,
            ))
    queue.sort(key=lambda d: (
        -d.spread, -d.distinct, order.get(d.unit.conversation_id, 0), d.unit.position,
        d.unit.sentence, code_rank.get(d.code, 0),
    ))
    return queue


def _unit_tuple(unit: Unit) -> tuple[str, int, int]:
    return unit.conversation_id, unit.position, unit.sentence


def reconcile_progress(
    project: Project,
    selection: Selection | None = None,
) -> list[CodeProgress]:
    """Per code of ``selection``: units compared, disagreeing, and how many of those are
    decided."""
    project.require_unblinded("see how far reconciliation has come")
    selection = selection or Selection()
    selected = check_request(project, selection)
    data = read_ratings(project, selected, coders=selection.coders,
                        conversations=selection.conversation_filter(),
                        values=selection.values)
    out = []
    for code in selected:
        groups = _unit_groups(code, data)
        per_unit = groups.drop_duplicates("key")
        cons = data.consensus[data.consensus["code"] == code.key]
        decided_keys = set(unit_key(cons)) if len(cons) else set()
        disagreeing = per_unit[per_unit["nunique"] > 1]
        out.append(CodeProgress(
            code=code.key,
            compared=len(per_unit),
            disagreeing=len(disagreeing),
            decided=int(disagreeing["key"].isin(decided_keys).sum()),
            consensus=len(cons),
        ))
    return out


def unit_values(project: Project, unit: Unit, code_key: str) -> dict[str, Value]:
    """Every coder's value of a code on one unit (binary rule applied), by coder name."""
    project.require_unblinded("see every coder's values")
    code = project.code(code_key)
    data = read_ratings(
        project, [code], conversations=ConversationFilter(conversation_ids=[unit.conversation_id]),
        include_consensus=False,
    )
    vals = code_values(code, data)
    mine = vals[(vals["position"] == unit.position) & (vals["sentence"] == unit.sentence)]
    return {str(c): v for c, v in sorted(zip(mine["coder"], mine["value"], strict=True))}


def accept_majority(
    project: Project, unit: Unit, code_key: str, rationale: str = MAJORITY_RATIONALE
) -> Command:
    """Record the strict-majority value of the coders as the consensus of one unit.

    The project's current coder must be an adjudicator. Raises :class:`ProjectError`
    when fewer than two coders rated the unit or no value holds a strict majority.
    """
    values = unit_values(project, unit, code_key)
    where = f"code '{code_key}' on conversation '{unit.conversation_id}', turn {unit.position}"
    if unit.sentence:
        where += f", sentence {unit.sentence}"
    if len(values) < 2:
        raise ProjectError(f"{where}: fewer than two coders rated it; nothing to reconcile")
    majority = strict_majority(list(values.values()))
    if majority is NO_MAJORITY:
        listed = ", ".join(f"{c}={'NA' if v is None else v}" for c, v in values.items())
        raise ProjectError(f"{where}: no value has a strict majority ({listed}); decide it")
    return project.set_consensus(unit, code_key, majority, rationale, source="majority")


def accept_majorities(
    project: Project,
    selection: Selection | None = None,
    *,
    overwrite: bool = False,
    rationale: str = MAJORITY_RATIONALE,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> Command:
    """Accept the strict majority on every unit of ``selection`` rated by two coders or
    more that has one.

    The selection's ``values`` say whose values vote: the coders' "blind" values (as set
    before a turn was revealed to them; the default) or their "final" ones (with the
    changes made after the reveal). Units already decided are kept unless ``overwrite``. Everything lands in one
    transaction as one undo step. Returns the command (``cells`` = decisions written).
    """
    project.require_unblinded("accept the coders' majorities")
    adjudicator = project.adjudicator or project.coder
    if not adjudicator:
        raise ProjectError("choose who you are (an adjudicator) first")
    if project.coder_role(adjudicator) != "adjudicator":
        raise ProjectError(
            f"only an adjudicator can set the consensus; '{adjudicator}' is a coder",
            hint=MAKE_ADJUDICATOR,
        )
    selection = selection or Selection()
    selected = check_request(project, selection)
    reads = 0
    while True:
        reads += 1
        version = project.pdb.data_version()
        chosen = _majorities(project, selected, selection, overwrite, progress, cancel)
        with project.pdb.atomic():  # the write lock: no one saves from here on
            # unchanged since the read (or read often enough): write; else read again
            if project.pdb.data_version() == version or reads == READS_BEFORE_WRITING:
                return project.set_consensus_many(
                    chosen, rationale, label=f"accept the majority on {len(chosen)} units",
                    source="majority")


#: how often accept_majorities reads again when other windows keep saving meanwhile (the
#: last read is written whatever happened since)
READS_BEFORE_WRITING = 3


def _majorities(project: Project, selected: Sequence[Code], selection: Selection,
                overwrite: bool, progress: ProgressFn | None, cancel: CancelFn | None,
                ) -> list[tuple[Unit, str, Value]]:
    """The strict majority of every unit that has one (see :func:`accept_majorities`)."""
    data = read_ratings(project, selected, coders=selection.coders,
                        conversations=selection.conversation_filter(),
                        values=selection.values)
    decisions = _consensus_lookup(data)
    chosen: list[tuple[Unit, str, Value]] = []
    for i, code in enumerate(selected, 1):
        if cancel and cancel():
            raise Cancelled()
        for r in _majority_rows(_unit_groups(code, data)).itertuples(index=False):
            unit_t = (str(r.conversation_id), int(r.position), int(r.sentence))
            if overwrite or (code.key, *unit_t) not in decisions:
                chosen.append((Unit(*unit_t), code.key, r.value))
        if progress:
            progress(i, len(selected))
    if cancel and cancel():
        raise Cancelled()
    return chosen


def coders_vs_consensus(
    project: Project,
    selection: Selection | None = None,
    *,
    bootstrap: int = 0,
    seed: int | None = 0,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> AgreementReport:
    """Each coder's agreement with the consensus, per code of ``selection`` that has
    decisions (``bootstrap`` draws for the intervals, none by default)."""
    project.require_unblinded("see agreement with the consensus")
    selection = selection or Selection()
    selected = check_request(project, selection)
    data = read_ratings(project, selected, coders=selection.coders,
                        conversations=selection.conversation_filter(),
                        values=selection.values)
    report = AgreementReport()
    majority = majority_codes(data.consensus)
    with_decisions = [c for c in selected if (data.consensus["code"] == c.key).any()]
    for i, code in enumerate(with_decisions):
        vals = code_values(code, data)
        cons = data.consensus[data.consensus["code"] == code.key]
        table = pd.concat(
            [vals, cons[list(UNIT_COLUMNS) + ["value"]].assign(coder=CONSENSUS_RATER)],
            ignore_index=True,
        )
        frame = pd.DataFrame({"unit": unit_ids(table), "coder": table["coder"].astype(str),
                              "value": table["value"].astype(object)})

        def step(done: int, total: int, base: int = i) -> None:
            if progress:
                progress(base * total + done, total * len(with_decisions))

        try:
            records = rater_vs_reference(
                frame, code=code.key, kind=code.kind, scale=list(code.values),
                reference=CONSENSUS_RATER, bootstrap=bootstrap, seed=seed, progress=step,
                cancel=cancel,
            )
        except ValueError as e:
            raise ProjectError(str(e)) from None
        mark_by_construction(records, majority)
        report.records.extend(records)
    return report
