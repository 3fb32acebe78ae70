"""Models as raters in agreement: each model's latest suggestion of a code on a unit is
one more rater, ``model:NAME``, compared with each coder, the consensus and the users
with the same measures and intervals (never part of the coders' own coefficients)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from ..domain.codebook.codes import Code
from ..domain.errors import Hint, ProjectError
from ..store import suggestions as store_sug
from ..store.conversations import ConversationFilter
from .project import Project
from .selection import Selection
from .suggestions.stored import RATER_PREFIX

if TYPE_CHECKING:
    from ..domain.agreement import AgreementReport

SUGGESTION_COLUMNS = ("model", "conversation_id", "position", "sentence", "code", "value")


def chosen_models(selection: Selection) -> list[str] | None:
    """The models a selection asks for: None for all, [] for none."""
    if not selection.include_models:
        return []
    return list(selection.model_raters) or None


def check_model_raters(project: Project, selection: Selection) -> None:
    """Every model asked for by name has suggestions; none shares a predictor's name."""
    if not selection.include_models:
        return
    known = store_sug.model_names(project.db)
    asked = list(selection.model_raters)
    missing = [m for m in asked if m not in known]
    if missing:
        raise ProjectError(f"no model {', '.join(repr(m) for m in missing)} with suggestions "
                           f"in this project (known: {', '.join(known) or 'none'})")
    clash = sorted(set(asked or known) & set(selection.predictors))
    if clash:
        raise ProjectError(f"'{RATER_PREFIX}{clash[0]}' names both a model's suggestions and "
                           "a predictor's scores: leave one out",
                           hint=Hint("no-models", "", "leave the models' suggestions out, or "
                                     "choose another predictor"))


def suggestions_frame(project: Project, codes: Sequence[Code],
                      conversations: ConversationFilter | None,
                      models: Sequence[str] | None) -> pd.DataFrame:
    rows = store_sug.latest_values(project.db, models, [c.key for c in codes], conversations)
    if not rows:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in SUGGESTION_COLUMNS})
    return pd.DataFrame(rows, columns=list(SUGGESTION_COLUMNS))


def model_parts(code: Code, frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(rater name, its long-table rows) of every model that suggested ``code``; values as
    the codebook reads them (a value off the scale is left out, as a coder's would be)."""
    if frame.empty:
        return []
    mine = frame[frame["code"] == code.key]
    out = []
    for name, part in mine.groupby("model", sort=True):
        values = []
        keep = []
        for raw in part["value"]:
            try:
                values.append(None if raw is None else code.parse_value(raw))
                keep.append(True)
            except ValueError:
                values.append(None)
                keep.append(False)
        rows = pd.DataFrame({
            "coder": f"{RATER_PREFIX}{name}",
            "conversation_id": part["conversation_id"].to_numpy(dtype=object),
            "position": part["position"].astype("int64").to_numpy(),
            "sentence": part["sentence"].astype("int64").to_numpy(),
            "value": pd.Series(values, dtype=object).to_numpy(dtype=object)})[keep]
        if len(rows):
            out.append((f"{RATER_PREFIX}{name}", rows.reset_index(drop=True)))
    return out


def models_sentence(project: Project, report: AgreementReport) -> str:
    """The methods paragraph's sentence on the models compared as raters."""
    names = sorted({c for r in report.records for c in r.coders
                    if c.startswith(RATER_PREFIX)})
    described = []
    for name in names:
        model = name[len(RATER_PREFIX):]
        model_runs = [r for r in store_sug.runs(project.db, model) if r["finished_at"]]
        if not model_runs:  # a predictor's scores of the same prefix
            described.append(name)
            continue
        last = model_runs[-1]
        how = ("an LLM" + (f" ({last['api_model']})" if last["api_model"] else "")
               if last["method"] == "llm" else "the baseline (out-of-fold values)")
        prompt = f", prompt {last['prompt_hash']}" if last["prompt_hash"] else ""
        described.append(f"{name}: {how}, run {last['run']}{prompt}")
    if not names:
        return ""
    return ("Models' suggestions were compared as raters of their own, never as coders: "
            + "; ".join(described) + ". Each unit's latest suggestion of a model entered; "
            "a model was compared with each coder, the consensus and the users with the "
            "same measures and intervals, and never entered the coders' own coefficients.")
