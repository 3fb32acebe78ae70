"""A model's suggestions: read them (subject to blinding) and store a run of them.

A model is a rater, never a coder: its values live in their own tables, each with the run
that made it (model name, method, prompt hash, settings), and it is read as the rater
``model:NAME`` (:data:`RATER_PREFIX`). A blind coder reads a suggestion of a unit only
once their own value of that code is set and the unit was revealed to them (they marked
it done); the refusal lives here, whatever the front end.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ...domain.codebook.codes import Code
from ...domain.errors import ProjectError
from ...domain.models import Unit, Value
from ...store import suggestions as store_sug
from ...store.shapes import changed_message
from ..changes import SUGGESTIONS, Changes
from ..hints import AS_LEAD
from ..project import Project

#: how a model is named where raters are listed (agreement, exports)
RATER_PREFIX = "model:"
STATUSES = store_sug.STATUSES
METHODS = ("llm", "baseline")


def rater_name(model: str) -> str:
    return f"{RATER_PREFIX}{model}"


@dataclass(frozen=True)
class Suggestion:
    """One run's suggestion of one code on one unit.

    ``value`` is None for not applicable (status ok) and for no answer (status
    ``no_answer``: ``reply`` then keeps what the model said)."""

    rater: str
    model: str
    method: str
    run: int
    unit: Unit
    code: str
    status: str
    value: Value
    rationale: str
    reply: str | None
    spread: float | None
    prompt_hash: str
    started_at: str | None

    @property
    def answered(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class SuggestionRun:
    run: int
    model: str
    method: str
    api_model: str | None
    endpoint_host: str | None
    prompt_hash: str
    unit: str
    settings: dict[str, Any]
    started_at: str | None
    finished_at: str | None
    requests: int
    answered: int
    no_answer: int

    @property
    def rater(self) -> str:
        return rater_name(self.model)

    @property
    def changes(self) -> Changes:
        """What storing the run changed: the project's suggestions."""
        return SUGGESTIONS


def _stored_value(project: Project, code: Code | None, row: dict[str, Any]) -> Value:
    """A stored value as the codebook reads it; a value off the scale (a hand edit) is
    refused with one line naming the suggestion."""
    value = row["value"]
    if row["status"] not in STATUSES or code is None:
        what = (f"its status is {row['status']!r}" if code is not None
                else f"its code {row['code']!r} is not in the codebook")
        raise ProjectError(changed_message(project.path, f"suggestion of run {row['run']}: "
                                           f"{what}"))
    if value is None:
        return None
    try:
        return code.parse_value(value)
    except ValueError as e:
        raise ProjectError(changed_message(
            project.path, f"suggestion of run {row['run']} for conversation "
            f"'{row['conversation_id']}', turn {row['position']}: {e}")) from None


def _record(project: Project, row: dict[str, Any]) -> Suggestion:
    code = project.codebook.get(row["code"])
    return Suggestion(
        rater=rater_name(row["model"]), model=row["model"], method=row["method"],
        run=int(row["run"]), unit=Unit(row["conversation_id"], int(row["position"]),
                                       int(row["sentence"])),
        code=row["code"], status=row["status"], value=_stored_value(project, code, row),
        rationale=row["rationale"] or "", reply=row["reply"],
        spread=None if row["spread"] is None else float(row["spread"]),
        prompt_hash=row["prompt_hash"] or "", started_at=row["started_at"])


# -- blinding ----------------------------------------------------------------------------------

def suggestion_visible(project: Project, unit: Unit, code: str,
                       viewer: str | None = None) -> bool:
    """May ``viewer`` (default: the current coder) read the suggestions of ``code`` on
    ``unit``? :meth:`.Sight.sees_suggestion`: always outside blind coding and for a lead;
    a blind coder only once their own value of the code on the unit is set (not applicable
    counts) and the unit was revealed to them."""
    return project.sight(viewer).sees_suggestion(unit, code)


def _require_viewer(project: Project, viewer: str | None) -> str | None:
    viewer = viewer if viewer is not None else project.coder
    if not project.blind_coding:
        return viewer
    if viewer is None:
        raise ProjectError("coders code blind in this project: a model's suggestions are "
                           "read by a named coder, after their own value and the reveal",
                           hint=AS_LEAD)
    if viewer != project.coder and not project.is_lead():
        # one coder's view is no window onto another's reveals
        raise ProjectError(f"only a lead (an adjudicator) can read the suggestions as "
                           f"'{viewer}' sees them")
    return viewer


def suggestions(project: Project, where: Unit | str, code: str | None = None, *,
                viewer: str | None = None, model: str | None = None,
                latest: bool = False) -> list[Suggestion]:
    """The suggestions of a unit (``where`` a :class:`Unit`) or of a whole conversation
    (``where`` its id), of one code or all, of one model or all; in unit, code and run
    order (``latest``: only each model's latest run per unit and code).

    A blind coder (``viewer``, default the current coder) gets only the suggestions
    :func:`suggestion_visible` allows; asking for one code on one unit that is still
    hidden from them is refused with the reason."""
    viewer = _require_viewer(project, viewer)
    if code is not None:
        project.code(code)  # refuses an unknown code
    if isinstance(where, Unit):
        if code is not None and not suggestion_visible(project, where, code, viewer):
            raise ProjectError(
                f"'{viewer}' codes blind in this project: the model's suggestion of {code} "
                "shows once their own value is set and the turn is marked done")
        rows = store_sug.suggestions_of(project.db, where.conversation_id, where.position,
                                        where.sentence, code, model)
    else:
        rows = store_sug.suggestions_of(project.db, where, None, None, code, model)
    visible: dict[tuple[Unit, str], bool] = {}
    out: list[Suggestion] = []
    for row in rows:
        record = _record(project, row)
        key = (record.unit, record.code)
        if key not in visible:
            visible[key] = suggestion_visible(project, record.unit, record.code, viewer)
        if visible[key]:
            out.append(record)
    if latest:
        last: dict[tuple[str, Unit, str], Suggestion] = {}
        for s in out:
            last[(s.model, s.unit, s.code)] = s
        out = [s for s in out if last[(s.model, s.unit, s.code)] is s]
    return out


def suggestion_runs(project: Project, model: str | None = None) -> list[SuggestionRun]:
    """Every run of every model (or of ``model``), oldest first. Runs say nothing of a
    unit's values, so a blind coder may list them."""
    out = []
    for r in store_sug.runs(project.db, model):
        try:
            settings = json.loads(r["settings"] or "{}")
        except ValueError:
            settings = {}
        out.append(SuggestionRun(
            run=int(r["run"]), model=r["model"], method=r["method"], api_model=r["api_model"],
            endpoint_host=r["endpoint_host"], prompt_hash=r["prompt_hash"], unit=r["unit"],
            settings=settings if isinstance(settings, dict) else {},
            started_at=r["started_at"], finished_at=r["finished_at"],
            requests=int(r["requests"]), answered=int(r["answered"]),
            no_answer=int(r["no_answer"])))
    return out


def model_names(project: Project) -> list[str]:
    """Models with a finished run that suggested at least one value."""
    return store_sug.model_names(project.db)


def model_raters(project: Project) -> list[str]:
    return [rater_name(m) for m in model_names(project)]


def delete_run(project: Project, run: int) -> Changes:
    """Remove one run and its suggestions (a lead only); the project's suggestions changed."""
    project.require_lead("remove a model's run")
    with project.pdb.atomic() as db:
        if not store_sug.delete_run(db, run):
            raise ProjectError(f"no suggestion run {run} in this project")
    return SUGGESTIONS


# -- storing a run -----------------------------------------------------------------------------

@dataclass(frozen=True)
class NewSuggestion:
    """One suggestion as a run hands it in (checked before it is stored)."""

    unit: Unit
    code: str
    status: str
    value: Value = None
    rationale: str = ""
    reply: str | None = None
    spread: float | None = None


def prompt_hash(texts: Iterable[str]) -> str:
    """A short digest of the prompts a run sent (what makes two runs comparable)."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def store_run(project: Project, model: str, method: str, unit: str,
              items: Sequence[NewSuggestion], *, api_model: str | None = None,
              endpoint_host: str | None = None, prompt_digest: str = "",
              settings: dict[str, Any] | None = None, requests: int = 0,
              known_units: bool = False) -> SuggestionRun:
    """Store one finished run of ``model`` in one transaction. Every suggestion passes the
    row validator (:func:`...domain.rows.suggestion`) and its value the checks a coder's
    value passes (the code exists and applies to the unit, the value is on its scale); one
    that does not is refused with the unit and code named. ``known_units``: the units
    were read from this project just now (their existence is not looked up again)."""
    from ...domain import rows

    project.require_lead("store a model's suggestions")
    try:
        model = rows.name(model, "model name", "model")
    except rows.RowError as e:
        raise ProjectError(e.message) from None
    if method not in METHODS:
        raise ProjectError(f"method must be one of {', '.join(METHODS)}")
    checked: list[store_sug.SuggestionRow] = []
    answered = no_answer = 0
    for item in items:
        where = (f"suggestion for conversation '{item.unit.conversation_id}', turn "
                 f"{item.unit.position}, code {item.code}")
        try:
            rows.suggestion(item.status, item.rationale, item.reply, item.spread)
        except rows.RowError as e:
            raise ProjectError(f"{where}: {e.message}") from None
        value: Value = None
        if item.status == "ok":
            try:
                value = (project._check_value(project.code(item.code), item.value)
                         if known_units else
                         project.checked_value(item.unit, item.code, item.value))
            except ProjectError as e:
                raise ProjectError(f"{where}: {e}") from None
            answered += 1
        else:
            project.code(item.code)
            no_answer += 1
        checked.append((item.unit.conversation_id, item.unit.position, item.unit.sentence,
                        item.code, item.status, value, item.rationale or "",
                        item.reply if item.status != "ok" else None, item.spread))
    with project.pdb.atomic() as db:
        run = store_sug.start_run(db, model, method, unit, api_model=api_model,
                                  endpoint_host=endpoint_host, prompt_hash=prompt_digest,
                                  settings=json.dumps(settings or {}, sort_keys=True))
        store_sug.put_suggestions(db, run, checked)
        store_sug.finish_run(db, run, requests=requests, answered=answered,
                             no_answer=no_answer)
    return next(r for r in suggestion_runs(project, model) if r.run == run)


def store_checked_run(project: Project, model: str, method: str, unit: str,
                      items: Sequence[NewSuggestion], **kw: Any) -> SuggestionRun:
    """:func:`store_run` for units a run read from this project itself."""
    return store_run(project, model, method, unit, items, known_units=True, **kw)


#: the columns of ``export --kind suggestions``
EXPORT_COLUMNS = ("rater", "run", "method", "api_model", "prompt_hash", "conversation_id",
                  "turn", "sentence", "code", "status", "value", "level_label", "rationale",
                  "spread", "reply")


def suggestions_table(project: Project, codes: Sequence[Code],
                      conversations: Any = None) -> Any:
    """Every suggestion of every finished run (of ``codes``, in the selected
    conversations), one row each: what ``export --kind suggestions`` writes. A blind coder
    is refused (the export checks it first)."""
    import pandas as pd

    project.require_unblinded("export the models' suggestions")
    keys = {c.key for c in codes}
    book = project.codebook
    runs = {r.run: r for r in suggestion_runs(project)}
    rows = []
    for row in store_sug.all_suggestions(project.db, conversations=conversations):
        if row["code"] not in keys:
            continue
        record = _record(project, row)
        run = runs[record.run]
        code = book.get(record.code)
        rows.append((record.rater, record.run, record.method, run.api_model or "",
                     record.prompt_hash, record.unit.conversation_id, record.unit.position,
                     record.unit.sentence, record.code, record.status,
                     record.value if record.answered else None,
                     code.level_label(record.value) if record.answered and code else "",
                     record.rationale, record.spread, record.reply or ""))
    return pd.DataFrame(rows, columns=list(EXPORT_COLUMNS))


def turn_uncertainty(project: Project, models: Sequence[str] | None = None
                     ) -> dict[tuple[str, int], float]:
    """How unsure the models are of each turn, (conversation_id, position) -> 0 (sure) or
    more, for a lead to order the coders' queues by (most unsure first).

    Per code and unit: the spread a run recorded (the baseline's), the disagreement of a
    model's runs (ordinal: their values' standard deviation over the scale's range;
    otherwise the share of runs off the most frequent value) and of the models with each
    other (the same, over the models' latest values); a unit left without an answer counts
    as 1. A turn takes the largest over its codes and sentences."""
    import statistics
    from collections import Counter

    project.require_lead("order the work by the models' uncertainty")
    book = project.codebook
    by_key: dict[tuple[str, int, int, str], list[dict[str, Any]]] = {}
    for row in store_sug.all_suggestions(project.db, models):
        by_key.setdefault((row["conversation_id"], row["position"], row["sentence"],
                           row["code"]), []).append(row)

    def disagreement(code: Code | None, values: list[Any]) -> float:
        if len(values) < 2 or code is None:
            return 0.0
        if code.kind == "ordinal" and all(isinstance(v, int | float) for v in values):
            span = max(code.values) - min(code.values) or 1  # type: ignore[operator]
            return float(statistics.pstdev(values)) / float(span)
        top = Counter(values).most_common(1)[0][1]
        return 1 - top / len(values)

    out: dict[tuple[str, int], float] = {}
    for (cid, pos, _sent, key), rows in by_key.items():
        code = book.get(key)
        worst = 0.0
        latest: dict[str, Any] = {}
        runs_of: dict[str, list[Any]] = {}
        for row in rows:  # in run order
            if row["status"] != "ok":
                worst = max(worst, 1.0)
                continue
            if row["spread"] is not None:
                worst = max(worst, float(row["spread"]))
            latest[row["model"]] = row["value"]
            runs_of.setdefault(row["model"], []).append(row["value"])
        for values in runs_of.values():
            worst = max(worst, disagreement(code, [v for v in values if v is not None]))
        worst = max(worst, disagreement(code, [v for v in latest.values() if v is not None]))
        out[(cid, pos)] = max(out.get((cid, pos), 0.0), worst)
    return out
