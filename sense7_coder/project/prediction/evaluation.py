"""Predictors measured against the users' own ratings, per dimension and per turn.

* :class:`MissingTarget` -- a structured refusal when the users' ratings do not hold the
  target of a level (ESConv-like data rate each turn ``overall`` only, while the paper's
  conversation target is the mean of the seven dimensions). Front ends word it in their own
  terms (the command line names its options; this layer names none).
* :func:`evaluate_per_dimension` -- every stored predictor (and every model's suggestions
  for a code the users rated) against the users' rating of the same dimension, with
  bootstrap intervals over conversations (:mod:`...domain.prediction.grain`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ...domain.errors import Cancelled, ProjectError
from ...domain.models import RATING_KEYS
from ...domain.prediction.grain import DRAWS, SEED, evaluate_with_intervals
from ...domain.progress import CancelFn
from ...store.conversations import ConversationFilter
from ...store.shapes import changed_message
from ..project import Project
from ..targets import MissingTarget, require_target

__all__ = ["CONVERSATION_TARGET", "MissingTarget", "check_target", "evaluate_per_dimension",
           "require_target"]

#: the dimension column of the conversation-level target (the paper's)
CONVERSATION_TARGET = "seven-dimension mean"


def check_target(project: Project, level: str,
                 conversations: ConversationFilter | None = None) -> None:
    """:func:`require_target` on the project's assistant turns."""
    from .predictors import rated_turns

    require_target(rated_turns(project, conversations), level)


def evaluate_per_dimension(project: Project, conversations: ConversationFilter | None = None,
                           *, draws: int = DRAWS, seed: int = SEED,
                           cancel: CancelFn | None = None) -> list[dict[str, Any]]:
    """One row per predictor, level and dimension: the paper's five figures against the
    users' ratings, each with a bootstrap interval over conversations.

    Stored predictors score the overall level: turn-level scores are compared with the
    user's overall rating of the turn, conversation-level scores with the paper's
    conversation target. A model's suggestions (raters ``model:NAME``) are compared per
    code with the user's rating of the same dimension, turn by turn."""
    project.require_unblinded("evaluate predictors against the users' ratings")
    from .predictors import predictor_counts, rated_turns, stored_runs, targets

    turns = rated_turns(project, conversations)
    rows: list[dict[str, Any]] = []

    def add(predictor: str, level: str, dimension: str, truth: dict[Hashable, float],
            runs: dict[int, dict[Hashable, float | None]]) -> None:
        if cancel is not None and cancel():
            raise Cancelled()
        result = evaluate_with_intervals(truth, runs, draws=draws, seed=seed)
        if result.n:
            rows.append({"predictor": predictor, "level": level, "dimension": dimension,
                         **result.row()})

    counts = predictor_counts(project)
    for level, dimension in (("turn", "overall"), ("conversation", CONVERSATION_TARGET)):
        names = [n for n, c in counts.items() if c.get(level)]
        if not names:
            continue
        truth = targets(project, level, conversations, turns)
        for name in names:
            add(name, level, dimension, truth, stored_runs(project, name, level, conversations))
    for name, rating, runs in _suggestion_runs(project, conversations):
        truth = {(t.conversation_id, t.position): float(v) for t in turns
                 if (v := t.ratings.get(rating)) is not None}
        add(name, "turn", rating, truth, runs)
    return rows


def _suggestion_runs(project: Project, conversations: ConversationFilter | None
                     ) -> list[tuple[str, str, dict[int, dict[Hashable, float | None]]]]:
    """(rater ``model:NAME``, rating key, run -> (conversation, position) -> value) of the
    models' answered suggestions on turns, for the ordinal codes that stand for a users'
    rating key (``user_rating``); a run is one of the model's runs."""
    from ...store import suggestions as store_sug
    from ..suggestions.stored import rater_name

    codes = {c.key: c for c in project.codebook.codes if c.kind == "ordinal" and c.user_rating}
    keys = {k: c.user_rating for k, c in codes.items()}
    if not keys:
        return []
    wanted = None
    if conversations is not None:
        from .predictors import rated_turns

        wanted = {t.conversation_id for t in rated_turns(project, conversations)}
    out: dict[tuple[str, str], dict[int, dict[Hashable, float | None]]] = {}
    for row in store_sug.all_suggestions(project.db):
        rating = keys.get(row["code"])
        if (rating is None or row["status"] != "ok" or row["value"] is None
                or int(row["sentence"]) != 0 or int(row["position"]) < 1
                or (wanted is not None and row["conversation_id"] not in wanted)):
            continue
        try:
            value = float(codes[row["code"]].parse_value(row["value"]))  # type: ignore[arg-type]
        except (TypeError, ValueError) as e:  # a hand edit: named, never measured
            raise ProjectError(changed_message(
                project.path, f"suggestion of run {row['run']} for conversation "
                f"'{row['conversation_id']}', turn {row['position']}: {e}")) from None
        runs = out.setdefault((rater_name(row["model"]), rating), {})
        runs.setdefault(int(row["run"]), {})[(row["conversation_id"],
                                              int(row["position"]))] = value
    order = {k: i for i, k in enumerate(RATING_KEYS)}
    return [(name, rating, out[(name, rating)]) for name, rating in
            sorted(out, key=lambda k: (k[0], order.get(k[1], len(order)), k[1]))]
