"""The baseline as a model that suggests codes: learnt per code from the project's own
coded units, out of fold (see :mod:`...domain.prediction.code_baseline`).

A unit's target for a code is its consensus value where there is one, else the coders'
value: their mean (ordinal, not-applicable values left out) or the class most of them
gave (nominal and present/absent; a tie gives no target). A code nobody coded yet learns
from the users' own ratings when it corresponds to one (``user_rating`` in the
codebook). Units without a target are still suggested: they are in some fold's test part.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Any

from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError, Sense7Error
from ...domain.models import Unit
from ...domain.prediction.baseline import Sample
from ...domain.prediction.code_baseline import (
    NA_CLASS,
    CodeSuggestion,
    LabelSample,
    classes,
    ordinal,
)
from ...domain.progress import CancelFn, ProgressFn
from ...store import frames
from ...store.conversations import ConversationFilter
from ..project import Project
from ..suggestions.asking import plan as make_plan
from ..suggestions.stored import NewSuggestion, SuggestionRun, store_checked_run
from .predictors import check_runs, cv_group, grouping


def _targets(project: Project, code: Code, conversations: ConversationFilter | None
             ) -> tuple[dict[tuple[str, int, int], Any], str]:
    """unit -> target value, and where the targets came from ('coders' or 'users')."""
    import pandas as pd

    values = frames.coding_values_frame(project.db, codes=[code.key],
                                        conversations=conversations)
    cons = frames.consensus_frame(project.db, codes=[code.key], conversations=conversations)
    by_unit: dict[tuple[str, int, int], list[Any]] = {}
    for cid, pos, sent, value in values[["conversation_id", "position", "sentence",
                                         "value"]].itertuples(index=False, name=None):
        missing = value is None or (isinstance(value, float) and value != value)
        by_unit.setdefault((str(cid), int(pos), int(sent)), []).append(
            None if missing else value)
    out: dict[tuple[str, int, int], Any] = {}
    for unit, got in by_unit.items():
        if code.kind == "ordinal":
            numbers = [float(v) for v in got if v is not None]
            if numbers:
                out[unit] = sum(numbers) / len(numbers)
        else:
            counts = Counter(NA_CLASS if v is None else _level(code, v) for v in got)
            top = counts.most_common(2)
            if len(top) == 1 or top[0][1] > top[1][1]:
                out[unit] = top[0][0]
    for row in cons.itertuples(index=False):
        value = getattr(row, "value", None)
        unit = (str(row.conversation_id), int(row.position), int(row.sentence))
        if value is None or value is pd.NA or (isinstance(value, float) and value != value):
            if code.kind == "ordinal":
                out.pop(unit, None)
            else:
                out[unit] = NA_CLASS
        else:
            out[unit] = float(value) if code.kind == "ordinal" else _level(code, value)
    if out or not code.user_rating or code.unit != "turn":
        return out, "coders"
    ratings = frames.user_ratings_frame(project.db, ratings=[code.user_rating],
                                        conversations=conversations)
    for cid, pos, _key, value in ratings.itertuples(index=False, name=None):
        if value is None or value is pd.NA or value != value:
            continue
        if code.kind == "ordinal":
            out[(str(cid), int(pos), 0)] = float(value)
        elif int(value) in code.values:
            out[(str(cid), int(pos), 0)] = int(value)
    return out, "users"


def _level(code: Code, value: Any) -> Any:
    try:
        return code.parse_value(value)
    except ValueError:
        return value


def run_baseline(project: Project, codes: Sequence[str] = (), *, unit: str | None = None,
                 conversations: ConversationFilter | None = None, runs: int = 1,
                 name: str = "baseline", progress: ProgressFn | None = None,
                 cancel: CancelFn | None = None) -> SuggestionRun:
    """Suggest every selected code of every unit with the baseline; store one run."""
    project.require_lead("run a model over the project")
    check_runs(runs)
    the_plan = make_plan(project, codes, unit=unit, conversations=conversations,
                         measure=False)
    participants = {cid: pid for cid, pid, *_ in _conversations(project, conversations)}
    items: list[NewSuggestion] = []
    notes: dict[str, str] = {}
    for code in the_plan.codes:
        asks = [a for a in the_plan.asks if any(c.key == code.key for c in a.codes)]
        if not asks:
            continue
        targets, source = _targets(project, code, conversations)
        rows = []
        for ask in asks:
            u = ask.unit
            text, context = _texts(the_plan.turns[u.conversation_id], u.position, ask.span)
            target = targets.get((u.conversation_id, u.position, u.sentence))
            rows.append((u, cv_group(participants.get(u.conversation_id), u.conversation_id),
                         text, context, target))

        class _G:  # what grouping() reads of a unit
            def __init__(self, cid: str) -> None:
                self.conversation_id, self.participant_id = cid, participants.get(cid)

        group_by = grouping([_G(r[0].conversation_id) for r in rows])
        trained = sum(r[4] is not None for r in rows)
        try:
            got: dict[Hashable, CodeSuggestion]
            if code.kind == "ordinal":
                got = ordinal(code, [Sample(r[0], r[0].conversation_id, r[1], r[2], r[3],
                                            r[4]) for r in rows],
                              runs=runs, group_by=group_by, progress=progress, cancel=cancel)
            else:
                got = classes([LabelSample(r[0], r[0].conversation_id, r[1], r[2], r[3],
                                           r[4]) for r in rows],
                              runs=runs, group_by=group_by, progress=progress, cancel=cancel)
        except Sense7Error as e:
            notes[code.key] = f"not suggested: {e}"
            continue
        notes[code.key] = (f"learnt from {trained:,} units coded by the {source}, "
                           f"cross-validation grouped by {group_by}")
        for r in rows:
            unit_key: Unit = r[0]
            s = got.get(unit_key)
            if s is not None:
                items.append(NewSuggestion(unit_key, code.key, "ok", s.value,
                                           "out-of-fold value of the baseline", spread=s.spread))
    if not items:
        detail = "; ".join(f"{k}: {v}" for k, v in notes.items())
        raise ProjectError(f"the baseline suggested nothing ({detail or 'no units'})")
    units = sorted({c.unit for c in the_plan.codes})
    return store_checked_run(
        project, name, "baseline", "+".join(units), items, prompt_digest="",
        settings={"codes": [c.key for c in the_plan.codes], "runs": runs, "notes": notes},
        requests=0)


def _conversations(project: Project, conversations: ConversationFilter | None
                   ) -> list[tuple[Any, ...]]:
    from ...store import predictions as store_pred

    return store_pred.conversation_table(project.db, conversations)


def _texts(turns: Sequence[Any], position: int, span: tuple[int, int] | None
           ) -> tuple[str, str]:
    """A unit's own text and its context (the two turns before it)."""
    if position == 0:
        return " ".join(t.text for t in turns), ""
    before = [t.text for t in turns if t.position < position][-2:]
    turn = next(t for t in turns if t.position == position)
    text = turn.text if span is None else turn.text[span[0]:span[1]]
    return text, " ".join(before)
