"""The ratings an agreement reads from a project, per code: the coders' stored values,
binary codes' absent rows for turns marked done, the users' own ratings and the consensus
as references (:class:`ProjectRatings`, :func:`read_ratings`), and each code's long table
of unit, rater and value (:func:`code_spec`, units packed by
:mod:`sense7_coder.domain.agreement.units`) that :mod:`.agreement` computes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..domain.agreement import (
    CONSENSUS_RATER,
    USERS_RATER,
    CodeFrameSpec,
)
from ..domain.agreement.units import rater_table
from ..domain.codebook.codes import Code
from ..domain.models import ROLES_OF as ROLES_OF  # re-exported: defined with the roles
from ..domain.prediction.evaluation import to_level
from ..store import frames
from ..store import predictions as store_pred
from ..store.conversations import ConversationFilter
from .agreement_models import SUGGESTION_COLUMNS, model_parts, suggestions_frame
from .project import Project

UNIT_COLUMNS = ("conversation_id", "position", "sentence")
#: a predictor as a rater in agreement: "model:<predictor>"
MODEL_PREFIX = "model:"
RESERVED = (USERS_RATER, CONSENSUS_RATER)


# -- building the ratings --------------------------------------------------------------------

def _rename_reserved(frame: pd.DataFrame) -> pd.DataFrame:
    """A coder who happens to be called 'users' or 'consensus' keeps a distinct name."""
    clash = frame["coder"].isin(RESERVED)
    if clash.any():
        frame = frame.copy()
        frame["coder"] = frame["coder"].astype(object)
        frame.loc[clash, "coder"] = frame.loc[clash, "coder"] + " (coder)"
    return frame


def _binary_absent(
    code: Code,
    coded: pd.DataFrame,
    done: pd.DataFrame,
    turns: pd.DataFrame,
    sentences: pd.DataFrame,
) -> pd.DataFrame:
    """Rows (coder, unit, value 0) for units of finished turns the coder left without the code."""
    roles = ROLES_OF.get(code.applies_to, ("assistant",))
    role_turns = turns[turns["role"].isin(roles)][["conversation_id", "position"]]
    if code.unit == "turn":
        cand = done.merge(role_turns, on=["conversation_id", "position"])
        cand = cand.assign(sentence=0)
    elif code.unit == "sentence":
        sents = sentences[sentences["role"].isin(roles)][list(UNIT_COLUMNS)]
        cand = done.merge(sents, on=["conversation_id", "position"])
    else:
        wanted = role_turns.groupby("conversation_id").size().rename("wanted")
        finished = (
            done.merge(role_turns, on=["conversation_id", "position"])
            .groupby(["coder", "conversation_id"]).size().rename("finished").reset_index()
        )
        finished = finished.join(wanted, on="conversation_id")
        cand = finished[finished["finished"] >= finished["wanted"]][["coder", "conversation_id"]]
        cand = cand.assign(position=0, sentence=0)
    cand = cand[["coder", *UNIT_COLUMNS]]
    keys = ["coder", *UNIT_COLUMNS]
    merged = cand.merge(coded[keys].drop_duplicates(), on=keys, how="left", indicator=True)
    absent = merged[merged["_merge"] == "left_only"][keys].copy()
    absent["value"] = np.zeros(len(absent), dtype=object)  # Python ints, like stored values
    return absent


def _users_rows(code: Code, ratings: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The users' ratings of ``code`` as rater 'users'; and how many were off its scale."""
    rows = ratings[(ratings["rating"] == code.user_rating) & ratings["value"].notna()]
    column = rows["value"]
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(
            column.dtype):
        on_scale = column.isin(code.values).to_numpy(dtype=bool)
        value: Any = column.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        values = column.astype(object)
        on_scale = values.isin(code.values).to_numpy(dtype=bool)
        value = values.map(int).where(on_scale, None)
    out = pd.DataFrame({
        "coder": USERS_RATER,
        "conversation_id": rows["conversation_id"],
        "position": rows["position"],
        "sentence": 0,
        "value": value,
    })[on_scale]
    return out, int((~on_scale).sum())


@dataclass
class ProjectRatings:
    """Everything read from the project for one agreement job."""

    codings: pd.DataFrame
    done: pd.DataFrame
    turns: pd.DataFrame
    sentences: pd.DataFrame
    consensus: pd.DataFrame
    user_ratings: pd.DataFrame
    #: predictor, conversation_id, position, score (mean over runs)
    predictions: pd.DataFrame = field(default_factory=lambda: _empty(
        "predictor", "conversation_id", "position", "score"))
    #: model, conversation_id, position, sentence, code, value (each model's latest)
    suggestions: pd.DataFrame = field(default_factory=lambda: _empty(*SUGGESTION_COLUMNS))


def _empty(*columns: str) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype=object) for c in columns})


def read_ratings(
    project: Project,
    codes: Sequence[Code],
    *,
    coders: Sequence[str] = (),
    conversations: ConversationFilter | None = None,
    include_users: bool = False,
    include_consensus: bool = True,
    predictors: Sequence[str] = (),
    times: bool = False,
    compact: bool = False,
    values: str = "blind",
    model_raters: Sequence[str] | None = None,
) -> ProjectRatings:
    """Read the project's tables once for the given (non-empty list of) codes and filters
    (``times``: with when each coding was saved, for the diagnostics).

    ``compact`` reads the codings' names as Categoricals and whole-number values as
    float64 (NaN = not applicable), for the agreement figures; otherwise the values are
    Python objects (ints, text, None), as the reconciliation shows them. ``values``
    'final' puts the values coders changed after a reveal in place of their blind ones.

    Every table comes from one state of the file, however long the read (see
    :meth:`Project.snapshot`)."""
    with project.snapshot():
        data = _read_ratings(project, codes, coders, conversations, include_users,
                             include_consensus, predictors, times, compact)
        if model_raters is None or model_raters:
            data.suggestions = suggestions_frame(project, codes, conversations, model_raters)
        if values == "final":
            revised = frames.revisions_frame(project.db, codes=[c.key for c in codes],
                                             coders=coders, conversations=conversations)
            data.codings = with_revisions(data.codings, revised, compact)
        return data


_KEY = ("coder", "conversation_id", "position", "sentence", "code")


def _keys(frame: pd.DataFrame) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays(
        [np.asarray(frame[k]).astype(str) if k not in ("position", "sentence")
         else np.asarray(frame[k], dtype=np.int64) for k in _KEY])


def with_revisions(codings: pd.DataFrame, revised: pd.DataFrame, compact: bool
                   ) -> pd.DataFrame:
    """``codings`` with each value a coder changed after the reveal in place of the blind
    one (a value given only after the reveal is added)."""
    if revised.empty:
        return codings
    at = _keys(revised).get_indexer(_keys(codings))
    hit = at >= 0
    new = revised["value"].to_numpy(dtype=object)
    out = codings.copy()
    if out["value"].dtype.kind == "f":
        try:
            new = np.array([np.nan if v is None else float(v) for v in new])
        except (TypeError, ValueError):  # a text level: the column holds objects then
            out["value"] = out["value"].astype(object).where(out["value"].notna(), None)
    if hit.any():
        column = out["value"].to_numpy(copy=True)
        column[hit] = new[at[hit]]
        out["value"] = column
    added = np.ones(len(revised), dtype=bool)
    added[at[hit]] = False
    if added.any():
        extra = revised.loc[added, list(_KEY)].copy()
        extra["value"] = new[added]
        if "saved_at" in out.columns:
            extra["saved_at"] = frames.saving_times(revised.loc[added, "set_at"])
        for column in out.columns:
            if column not in extra.columns:
                extra[column] = None
        out = pd.concat([out.astype({k: object for k in _KEY if k in ("coder", "conversation_id", "code")}),
                         extra[out.columns]], ignore_index=True)
        if compact:
            out = out.astype({k: "category" for k in ("coder", "conversation_id", "code")})
    return out


def _read_ratings(project: Project, codes: Sequence[Code], coders: Sequence[str],
                  conversations: ConversationFilter | None, include_users: bool,
                  include_consensus: bool, predictors: Sequence[str], times: bool,
                  compact: bool) -> ProjectRatings:
    """:func:`read_ratings`, inside its snapshot."""
    db = project.db
    keys = [c.key for c in codes]
    binary = [c for c in codes if c.kind == "binary"]
    rating_keys = [c.user_rating for c in codes if c.user_rating and c.unit == "turn"]
    data = ProjectRatings(
        codings=frames.coding_values_frame(db, codes=keys, coders=coders,
                                           conversations=conversations,
                                           categorical=compact, times=times),
        done=_empty("coder", "conversation_id", "position"),
        turns=_empty("conversation_id", "position", "role"),
        sentences=_empty("conversation_id", "position", "sentence", "role"),
        consensus=_empty(*frames.CONSENSUS_COLUMNS),
        user_ratings=_empty("conversation_id", "position", "rating", "value"),
    )
    if binary:
        data.done = frames.statuses_frame(db, coders=coders, conversations=conversations)
        data.turns = frames.turns_frame(db, conversations=conversations)
        if any(c.unit == "sentence" for c in binary):
            data.sentences = frames.sentences_frame(db, conversations=conversations)
    if include_consensus:
        data.consensus = frames.consensus_frame(db, codes=keys, conversations=conversations)
    if include_users and rating_keys:
        data.user_ratings = frames.user_ratings_frame(
            db, ratings=rating_keys, conversations=conversations, categorical=compact
        )
    if predictors:
        rows = [r for name in predictors
                for r in store_pred.predictions(db, "turn", name, conversations)]
        if rows:
            frame = pd.DataFrame(rows)
            data.predictions = (frame.groupby(["predictor", "conversation_id", "position"],
                                              sort=False)["score"].mean().reset_index())
    return data


def code_values(code: Code, data: ProjectRatings) -> pd.DataFrame:
    """The coders' values of one code: coder, conversation_id, position, sentence, value.

    Applies the binary rule (done turn without the code = 0). NA stays None here.
    """
    return _code_values(code, data)[0]


def _code_values(code: Code, data: ProjectRatings) -> tuple[pd.DataFrame, int]:
    """:func:`code_values`, and how many of its first rows are stored codings (the binary
    rule's absent rows come after them)."""
    coded = data.codings[data.codings["code"] == code.key]
    coded = coded[["coder", *UNIT_COLUMNS, "value"]]
    stored = len(coded)
    if code.kind == "binary":
        absent = _binary_absent(code, coded, data.done, data.turns, data.sentences)
        if len(absent):
            coded = pd.concat([coded, absent], ignore_index=True)
    return _rename_reserved(coded.reset_index(drop=True)), stored


def _check_levels(code: Code, coded: pd.DataFrame) -> pd.DataFrame:
    """``coded`` (:func:`code_values`) when every value is one of the code's levels; an
    InputError naming the conversation, turn and coder of the first that is not (only a
    file changed outside sense7-coder holds one; agreement needs the scale to hold)."""
    from ..domain.agreement.ratings import positions_of, scale_text, shown_value

    levels = list(code.values)
    bad = (positions_of(coded["value"], levels) < 0) & coded["value"].notna().to_numpy()
    if not bad.any():
        return coded
    from ..domain.errors import InputError

    row = coded.iloc[int(np.flatnonzero(bad)[0])]
    sentence = f", sentence {int(row['sentence'])}" if int(row["sentence"]) else ""
    raise InputError(
        file=f"codings of code '{code.key}' in the project",
        message=(f"{shown_value(row['value'])} is not a level of the scale {scale_text(levels)} "
                 "(the project file was changed outside sense7-coder)"),
        location=(f"conversation {row['conversation_id']!r}, turn {int(row['position'])}"
                  f"{sentence}, coder {str(row['coder'])!r}"),
        field="value",
    )


def code_spec(
    code: Code,
    data: ProjectRatings,
    *,
    level: str | None = None,
    include_users: bool = False,
    include_consensus: bool = True,
) -> tuple[CodeFrameSpec, int, int]:
    """The long table (unit, coder, value) of one code with its references.

    Returns the spec, the number of users' ratings left out for being off the scale, and
    how many of the spec's first rows are the code's stored codings (see
    :func:`applicability_frame`).
    """
    values, stored = _code_values(code, data)
    parts = [_check_levels(code, values)]
    references: list[str] = []
    off_scale = 0
    # the users come first so that the consensus is compared with them as a rater too
    if include_users and code.user_rating and code.unit == "turn":
        users, off_scale = _users_rows(code, data.user_ratings)
        parts.append(users)
        references.append(USERS_RATER)
    if len(data.predictions) and code.user_rating == "overall" and code.unit == "turn" \
            and all(isinstance(v, int) for v in code.values):
        for name, part in data.predictions.groupby("predictor", sort=False):
            scale = [int(v) for v in code.values]
            values = [to_level(float(v), scale) for v in part["score"]]
            parts.append(pd.DataFrame({
                "coder": f"{MODEL_PREFIX}{name}", "conversation_id": part["conversation_id"],
                "position": part["position"].astype("int64"), "sentence": 0,
                "value": pd.Series(values, index=part.index, dtype=object)}))
            references.append(f"{MODEL_PREFIX}{name}")
    for name, part in model_parts(code, data.suggestions):
        parts.append(part)
        references.append(name)
    if include_consensus:
        cons = data.consensus[data.consensus["code"] == code.key]
        if len(cons):
            parts.append(cons[list(UNIT_COLUMNS) + ["value"]].assign(coder=CONSENSUS_RATER))
            references.append(CONSENSUS_RATER)
    frame = rater_table([p for p in parts if len(p)] or parts[:1])
    numeric = all(isinstance(v, int) for v in code.values)
    use_level = level
    if code.kind != "ordinal" or (level in ("interval", "ratio") and not numeric):
        use_level = None  # a nominal code stays nominal; the record's level column says so
    spec = CodeFrameSpec(frame=frame, kind=code.kind, scale=list(code.values), level=use_level,
                         references=references)
    return spec, off_scale, stored


def applicability_frame(spec: CodeFrameSpec, stored: int) -> pd.DataFrame:
    """Every stored coding of a code that allows "not applicable": unit, coder and value 1
    (a level given) or 0 (not applicable), from the code's :func:`code_spec`, whose long
    table begins with its ``stored`` codings (before any binary absent rows and the
    references). Units and coders are the spec's numbers: no text or Python object per
    coding, and nothing selected or joined again."""
    head = spec.frame.iloc[:stored]
    return pd.DataFrame({
        "unit": head["unit"].to_numpy(),
        "coder": head["coder"].reset_index(drop=True),
        "value": np.where(pd.isna(head["value"].to_numpy()), 0.0, 1.0),
    })
