"""Empathy-level predictions of a project: import, baseline, LLM judge and evaluation.

Predictions are suggestions: they are stored apart from every coder's codings (tables
``predictions`` and ``turn_predictions``) under the predictor's name, and a predictor's
scores at one level are replaced as a whole by each run of it.

Targets (see :mod:`...domain.prediction.evaluation`): at conversation level the mean over assistant
turns of each turn's mean of the seven dimensions; at turn level the user's overall rating.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...domain.errors import ProjectError
from ...domain.prediction.evaluation import conversation_targets, evaluate_runs
from ...domain.progress import CancelFn as Cancel
from ...domain.progress import ProgressFn as Progress
from ...store import meta as store_meta
from ...store import predictions as store_pred
from ...store.conversations import ConversationFilter
from ..changes import NOTHING, PREDICTIONS, Changes
from ..project import Project

LEVELS = ("conversation", "turn")
PROMPT_KEY = "llm_prompt"
#: predictor names the tool itself writes
BASELINE = "baseline"



def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ProjectError(f"level must be one of {', '.join(LEVELS)}")


@dataclass
class RatedTurn:
    conversation_id: str
    participant_id: str | None
    position: int
    text: str
    context: str
    ratings: dict[str, int | None]


def rated_turns(project: Project, conversations: ConversationFilter | None = None
                ) -> list[RatedTurn]:
    """Every assistant turn with its context and the user's ratings (possibly none)."""
    import pandas as pd

    from ...store.frames import user_ratings_frame

    ratings: dict[tuple[str, int], dict[str, int | None]] = {}
    frame = user_ratings_frame(project.db, conversations=conversations)
    for cid, pos, key, value in frame.itertuples(index=False, name=None):
        missing = value is None or value is pd.NA or value != value
        ratings.setdefault((cid, int(pos)), {})[key] = None if missing else int(value)
    out: list[RatedTurn] = []
    previous: list[str] = []
    last_conv = None
    for cid, pid, _model, _topic, pos, role, text in store_pred.turn_texts(project.db,
                                                                           conversations):
        if cid != last_conv:
            previous, last_conv = [], cid
        if role == "assistant":
            out.append(RatedTurn(cid, pid, pos, text, " ".join(previous[-2:]),
                                 ratings.get((cid, pos), {})))
        previous.append(text)
    return out


def targets(project: Project, level: str,
            conversations: ConversationFilter | None = None,
            turns: list[RatedTurn] | None = None) -> dict[Hashable, float]:
    """The paper's targets at ``level`` (keys: conversation id, or (id, position))."""
    _check_level(level)
    turns = rated_turns(project, conversations) if turns is None else turns
    if level == "conversation":
        by_conv = conversation_targets((t.conversation_id, t.ratings) for t in turns)
        return {cid: v for cid, v in by_conv.items()}
    return {(t.conversation_id, t.position): float(v) for t in turns
            if (v := t.ratings.get("overall")) is not None}


# -- predictions from elsewhere ----------------------------------------------------------------


@dataclass
class PredictionImport:
    source: str
    predictor: str
    level: str
    rows: int
    runs: int
    replaced: int
    #: what the import changed (nothing on a dry run)
    changes: Changes = NOTHING


def import_predictions(project: Project, path: str | Path, predictor: str | None = None,
                       *, dry_run: bool = False) -> PredictionImport:
    """Read a predictions CSV (checked against the project) and store it in one transaction,
    replacing that predictor's earlier scores at the file's level."""
    from ...domain.prediction.csv_file import read_predictions_csv

    path = Path(path)
    name = (predictor or path.stem).strip()
    if not name:
        raise ProjectError("a predictor needs a name")
    level, rows = read_predictions_csv(path, store_pred.turn_keys(project.db))
    before = store_pred.predictor_counts(project.db).get(name, {}).get(level, 0)
    if not dry_run:
        with project.pdb.atomic() as db:
            store_pred.replace_predictions(db, name, level,
                                           [(c, p, r, s, "") for c, p, r, s in rows])
    return PredictionImport(str(path), name, level, len(rows), len({r for *_, r, _ in rows}),
                            before, NOTHING if dry_run else PREDICTIONS)


def predictor_counts(project: Project) -> dict[str, dict[str, int]]:
    return store_pred.predictor_counts(project.db)


def stored_runs(project: Project, predictor: str, level: str,
                conversations: ConversationFilter | None = None
                ) -> dict[int, dict[Hashable, float | None]]:
    runs: dict[int, dict[Hashable, float | None]] = {}
    for row in store_pred.predictions(project.db, level, predictor, conversations):
        key: Hashable = (row["conversation_id"] if level == "conversation"
                         else (row["conversation_id"], row["position"]))
        runs.setdefault(row["run"], {})[key] = row["score"]
    return runs


# -- evaluation -----------------------------------------------------------------------------------


def evaluate_predictor(project: Project, predictor: str, level: str = "conversation",
                       conversations: ConversationFilter | None = None) -> dict[str, Any]:
    """The paper's figures for one stored predictor (mean and SD over its runs)."""
    project.require_unblinded("evaluate predictors against the users' ratings")
    _check_level(level)
    runs = stored_runs(project, predictor, level, conversations)
    from ..targets import require_target

    require_target(rated_turns(project, conversations), level)
    if not runs:
        known = ", ".join(sorted(predictor_counts(project))) or "none"
        raise ProjectError(f"no {level}-level predictions of '{predictor}' in this project "
                           f"(stored predictors: {known})")
    return {"predictor": predictor, "level": level,
            **evaluate_runs(targets(project, level, conversations), runs)}


def evaluate_all(project: Project, level: str = "conversation",
                 conversations: ConversationFilter | None = None) -> list[dict[str, Any]]:
    project.require_unblinded("evaluate predictors against the users' ratings")
    names = [n for n, c in predictor_counts(project).items() if c.get(level)]
    truth = targets(project, level, conversations)
    out = []
    for name in names:
        runs = stored_runs(project, name, level, conversations)
        out.append({"predictor": name, "level": level, **evaluate_runs(truth, runs)})
    return out


# -- the baseline ----------------------------------------------------------------------------------


def cv_group(participant_id: str | None, conversation_id: str) -> str:
    """A turn's cross-validation group: its participant, or -- for a conversation without
    one -- the conversation alone (named apart, so no participant id can meet it)."""
    return f"participant:{participant_id}" if participant_id else \
        f"conversation:{conversation_id}"


def grouping(turns: Sequence[Any]) -> str:
    """The grouping of :func:`cv_group` over ``turns`` in words (printed and stored)."""
    lacking = {t.conversation_id for t in turns if not t.participant_id}
    if not lacking:
        return "participant"
    if len(lacking) == len({t.conversation_id for t in turns}):
        return "conversation"
    return (f"participant ({len(lacking)} conversation{'s' * (len(lacking) != 1)} without "
            "a participant, each its own group)")


#: the most times a predictor or a suggestion run is repeated (a hundred million, a typo
#: for 100, ran the baseline's cross-validation for hours)
MAX_RUNS = 1_000


def check_runs(runs: int) -> None:
    """Refuse a number of runs below 1 or beyond :data:`MAX_RUNS`."""
    if runs < 1:
        raise ProjectError("runs must be 1 or more")
    if runs > MAX_RUNS:
        raise ProjectError(f"at most {MAX_RUNS:,} runs are taken, got {runs:,}")


def run_baseline(project: Project, *, level: str = "conversation", runs: int = 1,
                 conversations: ConversationFilter | None = None,
                 progress: Progress | None = None, cancel: Cancel | None = None,
                 name: str = BASELINE) -> Any:
    """Train and cross-validate the baseline on the users' ratings; store its out-of-fold
    scores under ``name`` (one transaction) and return the :class:`BaselineResult`."""
    from ...domain.prediction.baseline import Sample, cross_validated
    from ...domain.prediction.evaluation import turn_dimension_mean

    _check_level(level)
    check_runs(runs)
    turns = rated_turns(project, conversations)
    from ..targets import require_target

    require_target(turns, level)
    group_by = grouping(turns)
    samples = []
    for t in turns:
        target = (turn_dimension_mean(t.ratings) if level == "conversation"
                  else t.ratings.get("overall"))
        samples.append(Sample((t.conversation_id, t.position), t.conversation_id,
                              cv_group(t.participant_id, t.conversation_id),
                              t.text, t.context, None if target is None else float(target)))
    result = cross_validated(samples, runs=runs, group_by=group_by, progress=progress,
                             cancel=cancel)
    how = f"out-of-fold score; cross-validation grouped by {group_by}"
    rows: list[store_pred.PredictionRow] = []
    for run in sorted(result.turn_scores):
        if level == "conversation":
            rows += [(c, None, run, s, how) for c, s in result.conversation_scores[run].items()]
        else:
            rows += [(key[0], key[1], run, s, how)  # type: ignore[index]
                     for key, s in result.turn_scores[run].items()]
    with project.pdb.atomic() as db:
        store_pred.replace_predictions(db, name, level, rows)
    return result


# -- the LLM judge ---------------------------------------------------------------------------------


def llm_prompt(project: Project) -> str:
    from ...domain.llm.judge import DEFAULT_PROMPT

    return store_meta.get_meta(project.db, PROMPT_KEY, None) or DEFAULT_PROMPT


def set_llm_prompt(project: Project, prompt: str | None) -> Changes:
    """Store the judge's prompt in the project (None or empty: back to the default)."""
    return project.set_setting(PROMPT_KEY, prompt.strip() if prompt and prompt.strip() else None)


def run_llm(project: Project, endpoint: str, api_model: str, *, runs: int = 1,
            name: str | None = None, api_key: str | None = None, concurrency: int = 4,
            timeout_s: float = 120.0, retries: int = 4, backoff_s: float = 1.0,
            temperature: float = 0.0,
            conversations: ConversationFilter | None = None,
            progress: Progress | None = None, cancel: Cancel | None = None) -> dict[str, int]:
    """Ask the judge about every conversation (``runs`` times; cached answers are reused),
    then store its scores as predictor ``name`` (default ``llm:<api model>``)."""
    from ...domain.llm.judge import (
        ChatClient,
        Job,
        chat_request,
        conversation_messages,
        judge,
        parse_score,
        request_key,
    )
    from ...domain.llm.pool import check_settings

    check_runs(runs)
    if not endpoint.startswith(("http://", "https://")):
        raise ProjectError(f"the endpoint '{endpoint}' is not an http(s) URL")
    check_settings(concurrency, timeout_s, retries)
    prompt = llm_prompt(project)
    by_conv: dict[str, list[tuple[str, str]]] = {}
    for cid, _pid, _m, _t, _pos, role, text in store_pred.turn_texts(project.db, conversations):
        if role in ("user", "assistant"):
            by_conv.setdefault(cid, []).append((role, text))
    jobs = []
    for cid, turns in by_conv.items():
        messages = chat_request(prompt, conversation_messages(turns))
        for run in range(1, runs + 1):
            jobs.append(Job(cid, run, messages, request_key(api_model, messages, run,
                                                            temperature)))
    client = ChatClient(endpoint, api_model, api_key, timeout_s, retries, backoff_s, temperature)

    def cached(key: str) -> bool:
        return store_pred.llm_answer(project.db, key) is not None

    def save(job: Job, reply: str, score: float, reasoning: str) -> None:
        with project.pdb.atomic() as db:
            store_pred.save_llm_answer(db, job.key, job.conversation_id, api_model, job.run,
                                       reply, score)

    unanswered: list[tuple[Job, str]] = []
    asked = judge(jobs, client, cached=cached, save=save, concurrency=concurrency,
                  progress=progress, cancel=cancel, unanswered=unanswered)
    rows: list[store_pred.PredictionRow] = []
    for job in jobs:
        answer = store_pred.llm_answer(project.db, job.key)
        if answer is not None:
            try:
                reasoning = parse_score(answer[0])[1]
            except ValueError:
                reasoning = ""
            rows.append((job.conversation_id, None, job.run, answer[1], reasoning))
    predictor = name or f"llm:{api_model}"
    with project.pdb.atomic() as db:
        store_pred.replace_predictions(db, predictor, "conversation", rows)
    return {"requests": len(jobs), "asked": asked, "no_answer": len(unanswered),
            "cached": len(jobs) - asked - len(unanswered),
            "stored": len(rows), "sent": client.sent}


# -- suggestions beside the coding panel -------------------------------------------------------

SHOW_KEY = "show_predictions"


def suggestions_allowed(project: Project) -> bool:
    """The lead's setting: show stored predictions beside the coding panel."""
    return project.setting(SHOW_KEY, "0") == "1"


def set_suggestions_allowed(project: Project, on: bool) -> Changes:
    return project.set_setting(SHOW_KEY, "1" if on else "0")


def suggestions(project: Project, conversation_id: str, position: int) -> list[str]:
    """Lines such as ``baseline: 3.4 (this turn) · 3.1 (conversation)`` for the coding
    panel; empty when not allowed or while blind coding is on (never shown blind)."""
    if not suggestions_allowed(project) or not project.sight().sees_predictions:
        return []
    by_name: dict[str, list[str]] = {}
    for name, level, score in store_pred.scores_of(project.db, conversation_id, position):
        if score is not None:
            by_name.setdefault(name, []).append(
                f"{score:.1f} ({'this turn' if level == 'turn' else 'conversation'})")
    return [f"{name}: {' · '.join(parts)}" for name, parts in by_name.items()]


def llm_run_line(out: dict[str, int]) -> str:
    """What a judge's run did, for both front ends: the HTTP requests the endpoint saw
    (retries included), then what became of the conversations."""
    sent = out["sent"]
    line = (f"{sent:,} request{'s' * (sent != 1)} sent, {out['asked']:,} answered with a "
            f"score, {out['cached']:,} from the project's cache")
    if out["no_answer"]:
        line += f", {out['no_answer']:,} without a score (no reply held one)"
    return line

