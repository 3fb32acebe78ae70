"""Agreement over a project: which values enter, per code, and the job that computes it.

What counts as a rating of a unit (a conversation, turn or sentence, by the code's unit):

* a coder's stored value; "not applicable" is missing, never a level, in the figures on
  the code's values; for codes that allow it, a separate alpha (level
  ``applicability``) compares the coders on *whether* the code applies: every stored
  coding is "applicable" (a level) or "not applicable". Reconciliation counts a value
  against "not applicable" as a disagreement, so both sides see the same disagreements;
* for **binary** codes, a turn the coder has marked *done* without the code counts as
  absent (0) -- the coder looked and did not apply it; a turn not marked done stays
  missing. For sentence-level binary codes this holds for every stored sentence of a
  done turn; for conversation-level ones once the coder has finished every turn of the
  role the code applies to;
* the users' own rating (rater ``users``) of a turn on the code's ``user_rating`` key,
  when asked for; ratings off the code's scale are left out (the note says how many);
* the adjudicated consensus (rater ``consensus``), when the code has any decisions.

The users and the consensus are *references*: the coders' figures are computed among the
coders only, then each coder (and the consensus) is compared with them.

The maths lives in :mod:`sense7_coder.domain.agreement`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..domain.agreement import (
    CONSENSUS_RATER,
    LEVELS,
    USERS_RATER,
    AgreementReport,
    CodeFrameSpec,
    agreement_report,
    applicability_record,
    resolve_level,
)
from ..domain.agreement.alpha import value_domain
from ..domain.agreement.bootstrap import CI_METHODS
from ..domain.agreement.kappa import KAPPA_BASES
from ..domain.agreement.records import MIN_UNITS
from ..domain.agreement.report import MEASURES
from ..domain.codebook import Code
from ..domain.errors import Cancelled, Hint, ProjectError
from ..domain.evaluation import to_level
from ..domain.models import ROLES_OF as ROLES_OF  # re-exported: defined with the roles
from ..store import frames
from ..store import predictions as store_pred
from ..store.conversations import (
    ConversationFilter,
    attribute_values,
    conversation_rowids,
    distinct_values,
)
from .project import Project

ProgressFn = Callable[[int, int], None] | None
CancelFn = Callable[[], bool] | None

UNIT_COLUMNS = ("conversation_id", "position", "sentence")
#: a predictor as a rater in agreement: "model:<predictor>"
MODEL_PREFIX = "model:"
RESERVED = (USERS_RATER, CONSENSUS_RATER)
#: which coders' values agreement uses (see :attr:`AgreementOptions.values`)
VALUES = ("blind", "final")


@dataclass
class AgreementOptions:
    """What to compute: filters, level of measurement, bootstrap and extra raters.

    Empty filters mean "all". ``level`` overrides the level of measurement of every
    ordinal code (nominal and binary codes always stay nominal; ratio is refused on a
    scale with a level at or below zero). ``ci`` is the interval method ('percentile' or
    'bca'); ``min_units`` the number of units below which a figure reads "too few units"
    (None: the project's setting, default 10). ``measures`` is 'all' (every figure
    and the diagnostics tables) or 'alpha' (Krippendorff's alpha alone: the coders',
    each code's applicability alpha and each rater's against the users and the
    consensus; no diagnostics), the same alpha values either way. ``kappa_weights``
    builds weighted kappa's weights on the levels' 'positions' (equal steps) or their
    'values' (numeric levels; as AC2, alpha and ICC).
    """

    codes: Sequence[str] = ()
    coders: Sequence[str] = ()
    models: Sequence[str] = ()
    participants: Sequence[str] = ()
    attributes: dict[str, str] = field(default_factory=dict)
    conversation_ids: Sequence[str] = ()
    level: str | None = None
    bootstrap: int = 1000
    seed: int | None = 0
    include_users: bool = False
    include_consensus: bool = True
    ci: str = "percentile"
    min_units: int | None = None
    #: stored predictors whose turn-level scores join as raters ("model:<name>") of the
    #: codes that correspond to the users' overall rating
    predictors: Sequence[str] = ()
    measures: str = "all"
    #: 'blind': each coder's value as set before the turn was revealed to them (a change
    #: made after the reveal is left out); 'final': with those changes
    values: str = "blind"
    kappa_weights: str = "positions"

    def conversation_filter(self) -> ConversationFilter:
        return ConversationFilter(
            models=list(self.models),
            participants=list(self.participants),
            attributes=dict(self.attributes) or None,
            conversation_ids=list(self.conversation_ids),
        )


# -- checking the request --------------------------------------------------------------------

def _unknown(kind: str, asked: Sequence[str], known: Sequence[str]) -> ProjectError:
    missing = [a for a in asked if a not in set(known)]
    listed = ", ".join(known) if known else "none"
    return ProjectError(f"no {kind} {', '.join(repr(m) for m in missing)} in this project "
                        f"(known: {listed})")


def level_refusals(codes: Sequence[Code], level: str | None) -> list[str]:
    """Why ``level`` cannot be the level of measurement of each of ``codes`` that cannot
    take it, in the engine's own words (empty when every one can)."""
    if level is None:
        return []
    out = []
    for code in codes:
        try:
            value_domain(list(code.values), resolve_level(code.kind, level, code.key),
                         code.key)
        except ValueError as e:
            out.append(str(e))
    return out


def check_request(project: Project, options: AgreementOptions) -> list[Code]:
    """The codes to compute, after checking every name in the filters exists."""
    if options.level is not None and options.level not in LEVELS:
        raise ProjectError(f"level must be one of {', '.join(LEVELS)}, got {options.level!r}")
    if options.kappa_weights not in KAPPA_BASES:
        raise ProjectError(f"kappa weights must be on one of {', '.join(KAPPA_BASES)}, got "
                           f"{options.kappa_weights!r}")
    if options.measures not in MEASURES:
        raise ProjectError(f"measures must be one of {', '.join(MEASURES)}, got "
                           f"{options.measures!r}")
    if options.values not in VALUES:
        raise ProjectError(f"values must be one of {', '.join(VALUES)}, got {options.values!r}")
    if options.bootstrap < 0:
        raise ProjectError("the number of bootstrap draws cannot be negative")
    if options.seed is not None and options.seed < 0:
        raise ProjectError(f"the bootstrap seed must be 0 or more, got {options.seed}")
    if options.ci not in CI_METHODS:
        raise ProjectError(f"the interval method must be one of {', '.join(CI_METHODS)}, "
                           f"got {options.ci!r}")
    if options.min_units is not None and options.min_units < 1:
        raise ProjectError(f"the minimum number of units must be 1 or more, got "
                           f"{options.min_units}")
    book = project.codebook
    if options.codes:
        if any(book.get(k) is None for k in options.codes):
            raise _unknown("code", options.codes, [c.key for c in book.codes])
        codes = [book.code(k) for k in dict.fromkeys(options.codes)]
    else:
        codes = list(book.active)
    refused = level_refusals(codes, options.level) if options.codes else []
    if refused:  # a code asked for by name is never silently read at another level
        raise ProjectError(refused[0] + (f" (and {len(refused) - 1} more)"
                                         if len(refused) > 1 else ""))
    coder_names = [c["name"] for c in project.coders()]
    if any(c not in coder_names for c in options.coders):
        raise _unknown("coder", options.coders, coder_names)
    if options.predictors:
        turn_level = [n for n, c in store_pred.predictor_counts(project.db).items() if c["turn"]]
        if any(p not in turn_level for p in options.predictors):
            raise _unknown("predictor with turn-level scores", options.predictors, turn_level)
    for column, asked, kind in (
        ("model", options.models, "model"),
        ("participant_id", options.participants, "participant"),
    ):
        known = distinct_values(project.db, column)
        if any(a not in known for a in asked):
            raise _unknown(kind, asked, known)
    for name, value in options.attributes.items():
        one = ConversationFilter(attributes={name: value})
        if not conversation_rowids(project.db, one):
            known = attribute_values(project.db, name)
            listed = ", ".join(known) if known else "no conversation has that attribute"
            raise ProjectError(f"no conversation has the attribute {name} = {value!r} "
                               f"(values: {listed})")
    if options.attributes and not conversation_rowids(project.db, options.conversation_filter()):
        raise ProjectError("no conversation has the attribute values asked for together "
                           "with the other filters; nothing to compare")
    if not codes:
        raise ProjectError("the project's codebook has no codes to compare")
    return codes


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
    from ..domain.agreement.ratings import positions_of, scale_text

    levels = list(code.values)
    bad = (positions_of(coded["value"], levels) < 0) & coded["value"].notna().to_numpy()
    if not bad.any():
        return coded
    from ..domain.errors import InputError

    row = coded.iloc[int(np.flatnonzero(bad)[0])]
    sentence = f", sentence {int(row['sentence'])}" if int(row["sentence"]) else ""
    raise InputError(
        file=f"codings of code '{code.key}' in the project",
        message=(f"{row['value']!r} is not a level of the scale {scale_text(levels)} "
                 "(the project file was changed outside sense7-coder)"),
        location=(f"conversation {row['conversation_id']!r}, turn {int(row['position'])}"
                  f"{sentence}, coder {str(row['coder'])!r}"),
        field="value",
    )


def unit_key(frame: pd.DataFrame) -> pd.Series:
    """One text key per unit (conversation id, turn and sentence), for the agreement tables."""
    return (
        frame["conversation_id"].astype(str) + "\x1f" + frame["position"].astype(str)
        + "\x1f" + frame["sentence"].astype(str)
    )


def _codes(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes and their values (a Categorical's own, else factorized)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(dtype=np.int64), pd.Index(column.cat.categories)
    codes, uniques = pd.factorize(column.to_numpy(dtype=object))
    return codes.astype(np.int64), pd.Index(uniques, dtype=object)


def _joined_codes(columns: Sequence[pd.Series], text: bool) -> tuple[np.ndarray, pd.Index]:
    """One code per row over several columns (equal values, equal codes): the union of
    their values and each column's codes mapped into it (``text``: values as str)."""
    parts = [_codes(c) for c in columns]
    if text:
        parts = [(codes, pd.Index([str(v) for v in values], dtype=object))
                 for codes, values in parts]
    union = pd.Index(np.concatenate([values.to_numpy(dtype=object) for _, values in parts])
                     if parts else np.array([], dtype=object), dtype=object).unique()
    out = [np.append(union.get_indexer(values), -1)[codes] for codes, values in parts]
    return (np.concatenate(out) if out else np.zeros(0, dtype=np.int64)), union


def _long_table(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """unit, coder, value of several frames (coder, conversation_id, position, sentence,
    value) one after the other: the units as :func:`unit_ids` of their concatenation and
    the coders as a Categorical of their names as text."""
    position = np.concatenate([p["position"].to_numpy(dtype=np.int64) for p in parts])
    sentence = np.concatenate([p["sentence"].to_numpy(dtype=np.int64) for p in parts])
    if len(position) and (position.max() >= 1 << 16 or sentence.max() >= 1 << 16):
        table = pd.concat(parts, ignore_index=True)
        return pd.DataFrame({"unit": unit_ids(table), "coder": table["coder"].astype(str),
                             "value": table["value"].astype(object)})
    conv, _ = _joined_codes([p["conversation_id"] for p in parts], text=False)
    coder, names = _joined_codes([p["coder"] for p in parts], text=True)
    return pd.DataFrame({
        "unit": (conv << 32) | (position << 16) | sentence,
        "coder": pd.Categorical.from_codes(coder, categories=names),
        "value": _joined_values([p["value"] for p in parts]),
    })


def _joined_values(columns: Sequence[pd.Series]) -> np.ndarray:
    """The values one after the other: float64 (NaN = none) when every column is numeric,
    else Python objects (None = none)."""
    if all(pd.api.types.is_numeric_dtype(c.dtype) and not pd.api.types.is_bool_dtype(c.dtype)
           for c in columns):
        return np.concatenate([c.to_numpy(dtype=np.float64, na_value=np.nan) for c in columns])
    return np.concatenate([c.astype(object).where(c.notna(), None).to_numpy(dtype=object)
                           for c in columns])


def unit_ids(frame: pd.DataFrame) -> np.ndarray:
    """One integer per unit of ``frame`` (equal units, equal ids), cheaper than text keys.

    Only comparable within one frame; falls back to :func:`unit_key` for positions or
    sentence numbers beyond 65535.
    """
    position = frame["position"].to_numpy(dtype=np.int64)
    sentence = frame["sentence"].to_numpy(dtype=np.int64)
    if len(frame) and (position.max() >= 1 << 16 or sentence.max() >= 1 << 16):
        return pd.factorize(unit_key(frame).to_numpy(dtype=object))[0].astype(np.int64)
    conv = pd.factorize(frame["conversation_id"].to_numpy(dtype=object))[0].astype(np.int64)
    return (conv << 32) | (position << 16) | sentence


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
    if include_consensus:
        cons = data.consensus[data.consensus["code"] == code.key]
        if len(cons):
            parts.append(cons[list(UNIT_COLUMNS) + ["value"]].assign(coder=CONSENSUS_RATER))
            references.append(CONSENSUS_RATER)
    frame = _long_table([p for p in parts if len(p)] or parts[:1])
    numeric = all(isinstance(v, int) for v in code.values)
    use_level = level
    if code.kind != "ordinal" or (level in ("interval", "ratio") and not numeric):
        use_level = None  # a nominal code stays nominal; the record's level column says so
    spec = CodeFrameSpec(frame=frame, kind=code.kind, scale=list(code.values), level=use_level,
                         references=references)
    return spec, off_scale, stored


#: project setting (meta key) of the minimum number of units behind a banded figure
MIN_UNITS_KEY = "agreement_min_units"


def min_units_setting(project: Project) -> int:
    """The project's minimum number of units for a band (default 10)."""
    raw = project.setting(MIN_UNITS_KEY)
    try:
        value = int(raw) if raw is not None else MIN_UNITS
    except ValueError:
        value = MIN_UNITS
    return value if value >= 1 else MIN_UNITS


def set_min_units_setting(project: Project, value: int) -> None:
    """Store the project's minimum number of units for a band."""
    if value < 1:
        raise ProjectError(f"the minimum number of units must be 1 or more, got {value}")
    project.set_setting(MIN_UNITS_KEY, str(int(value)))


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


def diagnostics_tables(
    project: Project, codes: Sequence[Code], data: ProjectRatings, options: AgreementOptions,
) -> dict[str, pd.DataFrame]:
    """Confusion matrices per coder pair, bias and drift per coder, code by code (coders
    only, no references). Drift follows the order in which each coder last saved each
    coding (the project keeps no older history)."""
    from ..domain.agreement import diagnostics as diag
    from ..domain.agreement.ratings import prepare_ratings

    keys = [c.key for c in codes]
    if "saved_at" in data.codings.columns:
        times = data.codings.drop(columns="value")
    else:
        times = frames.coding_times_frame(project.db, codes=keys, coders=options.coders,
                                          conversations=options.conversation_filter())
    times = _rename_reserved(times)
    out: dict[str, list[pd.DataFrame]] = {"confusion": [], "bias": [], "drift": []}
    for code in codes:
        key = code.key
        values = _check_levels(code, code_values(code, data))
        mine = times[times["code"] == key]
        # one integer per unit, shared by the values and the saving order
        both = _long_table([values, mine.assign(value=np.nan)])
        frame = both.iloc[:len(values)]
        ratings = prepare_ratings(frame, code=key, scale=list(code.values))
        out["confusion"].append(diag.confusion(ratings))
        out["bias"].append(diag.bias(ratings))
        order = pd.DataFrame({"coder": both["coder"].iloc[len(values):].to_numpy(),
                              "unit": both["unit"].iloc[len(values):].to_numpy(),
                              "rank": mine["saved_at"].to_numpy()})
        out["drift"].append(diag.drift(ratings, order))
    columns = {"confusion": diag.CONFUSION_COLUMNS, "bias": diag.BIAS_COLUMNS,
               "drift": diag.DRIFT_COLUMNS}
    return {name: (pd.concat(parts, ignore_index=True) if parts
                   else pd.DataFrame({c: [] for c in columns[name]}))
            for name, parts in out.items()}


def project_agreement(
    project: Project,
    options: AgreementOptions | None = None,
    *,
    progress: ProgressFn = None,
    cancel: CancelFn = None,
) -> AgreementReport:
    """Agreement for every selected code of the project (one job; may run off the GUI thread
    on its own :class:`Project`). Raises :class:`ProjectError` when nothing matches."""
    project.require_unblinded("see agreement between coders")
    options = options or AgreementOptions()
    codes = check_request(project, options)
    if cancel and cancel():
        raise Cancelled()
    data = read_ratings(
        project, codes, coders=options.coders, conversations=options.conversation_filter(),
        include_users=options.include_users, include_consensus=options.include_consensus,
        predictors=options.predictors,
        times=options.measures == "all", compact=True, values=options.values,
    )
    specs: dict[str, CodeFrameSpec] = {}
    stored: dict[str, int] = {}  # how many of a spec's first rows are stored codings
    notes: dict[str, str] = {}
    for code in codes:
        spec, off_scale, stored[code.key] = code_spec(
            code, data, level=options.level, include_users=options.include_users,
            include_consensus=options.include_consensus,
        )
        has_coders = (~spec.frame["coder"].isin(RESERVED)).any()
        if not has_coders and not options.codes:
            continue  # a code nobody (of those asked) has coded is left out unless asked for
        specs[code.key] = spec
        if off_scale:
            notes[code.key] = (f"{off_scale} users' ratings off the scale "
                               f"{', '.join(map(str, code.values))} left out")
    if not specs:
        raise ProjectError(
            "no codings match the selection; nothing to compare",
            hint=Hint("codes", "", "check the codes, coders, assistants and participants "
                      "chosen"),
        )
    min_units = options.min_units or min_units_setting(project)
    try:
        report = agreement_report(
            specs, bootstrap=options.bootstrap, seed=options.seed, progress=progress,
            cancel=cancel, ci=options.ci, min_units=min_units, measures=options.measures,
            kappa_basis=options.kappa_weights,
        )
        extra = []
        for code in codes:
            if code.key in specs and code.allow_na:
                record = applicability_record(
                    applicability_frame(specs[code.key], stored[code.key]), code=code.key,
                    bootstrap=options.bootstrap,
                    seed=options.seed, ci=options.ci, cancel=cancel,
                )
                record.min_units = min_units
                extra.append(record)
    except ValueError as e:
        raise ProjectError(str(e)) from None
    if options.measures == "all":
        report.diagnostics = diagnostics_tables(
            project, [c for c in codes if c.key in specs], data, options)
    # each code's applicability alpha right after the code's alpha among the coders
    for record in extra:
        at = next((i for i, r in enumerate(report.records) if r.code == record.code), None)
        report.records.insert(1 if at is None else at + 1, record)
    for record in report.records:
        if record.code in notes and USERS_RATER in record.coders:
            record.note = f"{record.note}; {notes[record.code]}" if record.note else notes[
                record.code]
    flag_majority_consensus(report, data.consensus)
    say_values(project, report, options)
    return report


#: the note of a figure against a consensus that is the coders' own majority
BY_CONSTRUCTION_NOTE = ("the consensus is these coders' own majority, accepted: agreement "
                        "with it is high by construction (1 with two coders), not a measure "
                        "of agreement")


def majority_codes(consensus: pd.DataFrame) -> set[str]:
    """Codes whose every consensus value (in ``consensus``) is the coders' majority,
    accepted as it stood."""
    if consensus.empty or "source" not in consensus.columns:
        return set()
    is_majority = consensus["source"].astype(object) == "majority"
    by_code = is_majority.groupby(consensus["code"].astype(str).to_numpy()).all()
    return {str(code) for code, every in by_code.items() if every}


def flag_majority_consensus(report: AgreementReport, consensus: pd.DataFrame) -> None:
    """Mark each figure of a coder against a consensus made of the coders' own majority."""
    codes = majority_codes(consensus)
    for record in report.records:
        if record.code in codes and CONSENSUS_RATER in record.coders and len(record.coders) > 1:
            record.by_construction = True
            record.note = (f"{BY_CONSTRUCTION_NOTE}; {record.note}" if record.note
                           else BY_CONSTRUCTION_NOTE)


def say_values(project: Project, report: AgreementReport, options: AgreementOptions) -> None:
    """Record in the report (and each figure) which values entered, and how many values
    coders changed after the reveal."""
    revised = frames.revisions_frame(
        project.db, codes=list(report.codes), coders=options.coders,
        conversations=options.conversation_filter())
    report.after_reveal = len(revised)
    # outside blind coding (and with no value changed after a reveal) nothing is blind
    report.values = (options.values if project.blind_coding or report.after_reveal
                     else "stored")
    for record in report.records:
        record.values = report.values


def values_text(report: AgreementReport) -> str:
    """One sentence on which values entered (for every output of a report)."""
    n = report.after_reveal
    if report.values == "stored":
        return "Values as stored: the project does not code blind."
    changed = f"{n} value{'s' if n != 1 else ''} coders changed after the turn was revealed"
    if report.values == "final":
        return (f"Final values: each coder's latest value, including {changed} to them "
                f"(blind coding)." if n else "Final values (no value was changed after a "
                "reveal).")
    return (f"Blind values: each coder's value as set before the turn was revealed to them; "
            f"{changed} {'were' if n != 1 else 'was'} left out." if n else
            "Blind values: each coder's value as set before the turn was revealed to them "
            "(none was changed after a reveal).")


def methods_paragraph(project: Project, report: AgreementReport, options: AgreementOptions,
                      fmt: str = "markdown") -> str:
    """The methods paragraph, table and references of ``report`` (Markdown or LaTeX)."""
    from .. import APP_NAME, __version__
    from ..domain.agreement.methods import MethodsContext, methods_text

    scope = []
    if options.coders:
        scope.append("coders " + ", ".join(options.coders))
    if options.models:
        scope.append("assistants " + ", ".join(options.models))
    if options.participants:
        scope.append("participants " + ", ".join(options.participants))
    scope += [f"{k} = {v}" for k, v in options.attributes.items()]
    flagged = sorted({r.code for r in report.records if r.by_construction})
    construction = ("" if not flagged else
                    f"The consensus of {', '.join(flagged)} is the coders' own majority, "
                    "accepted as it stood, so each coder's agreement with it is high by "
                    "construction (1 with two coders) and is not reported as agreement.")
    ctx = MethodsContext(APP_NAME, __version__, options.bootstrap, options.seed, options.ci,
                         options.min_units or min_units_setting(project), "; ".join(scope),
                         values=values_text(report) if report.values else "",
                         by_construction=construction)
    return methods_text(report, ctx, fmt)
