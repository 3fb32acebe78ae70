"""A model's suggestions where a coder codes: shown when the lead allows it, accepted with
their provenance, and a coder's queue ordered by the model's uncertainty.

* The lead's setting :data:`SHOW_KEY` (off by default) lets the workspace show, on each
  code's row, the model's latest answered suggestion and its rationale. Every change of
  it is kept in the project's history.
* Blinding is kept by the read API (:func:`.stored.suggestions`): a blind coder reads
  a suggestion only once their own value of the code is set and the unit was revealed to
  them. :func:`row_suggestions` and :func:`accept` read through it and nothing else.
* :func:`accept` stores the suggested value as the coder's own, with the source
  ``suggestion_accepted`` in its provenance (every export shows it).
* :func:`uncertainty` and :func:`order_queue` put the conversations where the model is
  least sure first in a coder's queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError
from ...domain.models import Unit, Value
from ...store import assignments as store_assignments
from ...store.recorded_settings import set_recorded
from ..changes import NOTHING, SETTINGS, Changes
from ..project import Project
from .stored import Suggestion, suggestions

SHOW_KEY = "show_model_suggestions"
#: the provenance of a taken suggestion (codings' source, and the history's)
ACCEPTED = "suggestion_accepted"


def shown_in_workspace(project: Project) -> bool:
    """The lead's setting: the workspace shows the models' suggestions (off by default)."""
    return project.setting(SHOW_KEY, "0") == "1"


def set_shown_in_workspace(project: Project, on: bool) -> Changes:
    """Allow or stop showing suggestions in the workspace (a lead only; kept in the
    history). The settings changed, or nothing when it was already so."""
    project.require_lead("show or hide a model's suggestions in the workspace")
    with project.pdb.acting("settings"), project.pdb.atomic() as db:
        return SETTINGS if set_recorded(db, SHOW_KEY, "1" if on else "0") else NOTHING


@dataclass(frozen=True)
class RowSuggestion:
    """What a code's row shows: the latest answered suggestion (``chosen``) and every
    model's latest value beside it (``others``: rater, value), so disagreement shows."""

    code: Code
    chosen: Suggestion
    others: tuple[tuple[str, Value], ...] = ()

    @property
    def value(self) -> Value:
        return self.chosen.value

    def value_text(self) -> str:
        return self.code.level_label(self.chosen.value)


def row_suggestions(project: Project, items: Iterable[tuple[Unit, str]]
                    ) -> dict[tuple[Unit, str], RowSuggestion]:
    """For each (unit, code) the suggestion a coding row shows, where the lead allows it
    and blinding lets the current coder read it; nothing else."""
    if not shown_in_workspace(project):
        return {}
    wanted = list(dict.fromkeys(items))
    out: dict[tuple[Unit, str], RowSuggestion] = {}
    by_unit: dict[Unit, set[str]] = {}
    for unit, code in wanted:
        by_unit.setdefault(unit, set()).add(code)
    for unit, codes in by_unit.items():
        try:
            found = suggestions(project, unit, latest=True)
        except ProjectError:  # e.g. a blind project opened without a coder's name
            return {}
        for code_key in codes:
            book_code = project.codebook.get(code_key)
            mine = [s for s in found if s.code == code_key and s.answered]
            if book_code is None or not mine:
                continue
            chosen = max(mine, key=lambda s: s.run)
            others = tuple((s.rater, s.value) for s in sorted(mine, key=lambda s: s.rater))
            out[(unit, code_key)] = RowSuggestion(book_code, chosen, others if len(others) > 1
                                                  else ())
    return out


def accept(project: Project, unit: Unit, code: str) -> Any:
    """Take the suggestion of ``code`` on ``unit`` as the current coder's value, recorded
    with the source ``suggestion_accepted``; refused when none is shown there. Returns the
    undoable command of :meth:`Project.set_value`."""
    if not shown_in_workspace(project):
        raise ProjectError("the lead has not allowed showing a model's suggestions in the "
                           "workspace")
    shown = row_suggestions(project, [(unit, code)]).get((unit, code))
    if shown is None:
        # the read API refuses with its reason where blinding hides it
        suggestions(project, unit, code)
        raise ProjectError(f"no suggestion of {code} to accept on turn {unit.position}")
    # the history names the source too: a value taken after the reveal is a revision,
    # whose history row reads "suggestion_accepted after reveal"
    with project.pdb.acting(ACCEPTED):
        return project.set_value(unit, code, shown.value, suggested=True)


def accept_all(project: Project, items: Sequence[tuple[Unit, str]]) -> Any:
    """:func:`accept` every code of ``items`` that has a suggestion shown, as one
    transaction and one undo step (its cells name the codes taken); refused when none is
    shown."""
    if not shown_in_workspace(project):
        raise ProjectError("the lead has not allowed showing a model's suggestions in the "
                           "workspace")
    shown = row_suggestions(project, items)
    values = [(unit, code, shown[(unit, code)].value) for unit, code in items
              if (unit, code) in shown]
    if not values:
        raise ProjectError("no model suggestion to accept here")
    label = (f"take the model's values of {len(values)} code{'s' if len(values) != 1 else ''}")
    with project.pdb.acting(ACCEPTED):
        return project.set_values(values, label, suggested=True)


# -- uncertainty -------------------------------------------------------------------------------


def uncertainty(project: Project) -> dict[str, float]:
    """Per conversation the models' uncertainty: the mean over its turns that have
    suggestions of :func:`.stored.turn_uncertainty` (a recorded spread, runs or
    models that disagree, a unit left without an answer; 0 is sure). Conversations without
    suggestions are left out. A lead's view (it reads every unit)."""
    from .stored import turn_uncertainty

    per_conv: dict[str, list[float]] = {}
    for (cid, _position), value in turn_uncertainty(project).items():
        per_conv.setdefault(cid, []).append(float(value))
    return {cid: sum(v) / len(v) for cid, v in per_conv.items()}


def order_queue(project: Project, coder: str) -> list[tuple[str, float | None]]:
    """Reorder ``coder``'s assigned conversations: the most uncertain first, those without
    suggestions last in their old order. Returns (conversation, uncertainty) in the new
    order (one transaction)."""
    project.require_lead("order a queue by the model's uncertainty")
    queue = store_assignments.conversations_of(project.db, coder)
    if not queue:
        raise ProjectError(f"no conversation is assigned to '{coder}'")
    scores = uncertainty(project)
    old = {cid: i for i, cid in enumerate(queue)}
    ordered = sorted(queue, key=lambda c: (c not in scores, -scores.get(c, 0.0), old[c]))
    with project.pdb.acting("assign"), project.pdb.atomic() as db:
        store_assignments.reorder(db, coder, ordered)
    return [(cid, scores.get(cid)) for cid in ordered]


def order_queues(project: Project, coders: Sequence[str]) -> list[str]:
    """:func:`order_queue` for each of ``coders``; a line per coder saying what moved."""
    lines = []
    for coder in coders:
        try:
            ordered = order_queue(project, coder)
        except ProjectError as e:
            lines.append(f"{coder}: {e}")
            continue
        scored = [(cid, u) for cid, u in ordered if u is not None]
        if not scored:
            lines.append(f"{coder}: no suggestions in their conversations; order kept")
        else:
            lines.append(f"{coder}: queue ordered by the model's uncertainty ({len(scored)} "
                         f"of {len(ordered)} conversations with suggestions; first "
                         f"{scored[0][0]} at {scored[0][1]:.2f})")
    return lines
