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

from collections.abc import Sequence
from dataclasses import dataclass, field

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
from ..domain.codebook.codes import Code
from ..domain.errors import Cancelled, Hint, ProjectError
from ..domain.models import ROLES_OF as ROLES_OF  # re-exported: defined with the roles
from ..domain.progress import CancelFn, ProgressFn
from ..store import frames
from ..store import predictions as store_pred
from ..store.conversations import (
    ConversationFilter,
    attribute_values,
    conversation_rowids,
    distinct_values,
)
from .agreement_models import (
    check_model_raters,
    chosen_models,
    models_sentence,
)
from .changes import Changes
from .codebook.versions import keep_version
from .project import Project
from .ratings import (
    RESERVED,
    ProjectRatings,
    _check_levels,
    _long_table,
    _rename_reserved,
    applicability_frame,
    code_spec,
    code_values,
    read_ratings,
)

#: which coders' values agreement uses (see :attr:`AgreementOptions.values`)
VALUES = ("blind", "final")


@dataclass
class AgreementOptions:
    """What to compute: filters, level of measurement, bootstrap and extra raters.

    Empty filters mean "all". ``level`` overrides the level of measurement of every
    ordinal code (nominal and binary codes always stay nominal; ratio is refused on a
    scale with a level at or below zero). ``ci`` is the interval method ('auto': BCa below
    ``BCA_BELOW_UNITS`` units and percentile from there on, 'percentile' or 'bca');
    ``min_units`` the number of units below which a figure reads "too few units"
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
    ci: str = "auto"
    min_units: int | None = None
    #: stored predictors whose turn-level scores join as raters ("model:<name>") of the
    #: codes that correspond to the users' overall rating
    predictors: Sequence[str] = ()
    #: a model's suggestions join as raters "model:<name>" of every code they suggest
    #: (each unit's latest suggestion of the model): all models by default, these by name,
    #: none with ``include_models`` False
    model_raters: Sequence[str] = ()
    include_models: bool = True
    measures: str = "all"
    #: 'blind': each coder's value as set before the turn was revealed to them (a change
    #: made after the reveal is left out); 'final': with those changes
    values: str = "blind"
    kappa_weights: str = "positions"
    #: only the codings whose value was set under this codebook version (None: all)
    codebook_version: int | None = None

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


#: the most bootstrap draws a run takes (100,000 over one code take some seconds; a
#: hundred million took hours over a codebook)
MAX_DRAWS = 100_000


def check_draws(draws: int, seed: int | None) -> None:
    """Refuse a number of bootstrap draws or a seed no run can use."""
    if draws < 0:
        raise ProjectError("the number of bootstrap draws cannot be negative")
    if draws > MAX_DRAWS:
        raise ProjectError(f"at most {MAX_DRAWS:,} bootstrap draws are taken, got {draws:,}")
    if seed is not None and seed < 0:
        raise ProjectError(f"the bootstrap seed must be 0 or more, got {seed}")


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
    check_draws(options.bootstrap, options.seed)
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
    # span codes have figures of their own (project/spans/agreement.py)
    codes = [c for c in codes if c.unit != "span"]
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
    check_model_raters(project, options)
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


MIN_UNITS_KEY = "agreement_min_units"


def min_units_setting(project: Project) -> int:
    """The project's minimum number of units for a band (default 10)."""
    raw = project.setting(MIN_UNITS_KEY)
    try:
        value = int(raw) if raw is not None else MIN_UNITS
    except ValueError:
        value = MIN_UNITS
    return value if value >= 1 else MIN_UNITS


def set_min_units_setting(project: Project, value: int) -> Changes:
    """Store the project's minimum number of units for a band."""
    if value < 1:
        raise ProjectError(f"the minimum number of units must be 1 or more, got {value}")
    return project.set_setting(MIN_UNITS_KEY, str(int(value)))


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
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
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
        model_raters=chosen_models(options),
    )
    data.codings = keep_version(data.codings, project, options.codebook_version)
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
    report.codebook_version = options.codebook_version


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


def _calibration(project: Project) -> tuple[object, object, object] | None:
    """The calibration rounds the methods paragraph tells (None: no closed round)."""
    from .calibration import calibration_story

    return calibration_story(project)


def _scope(report: AgreementReport, options: AgreementOptions) -> list[str]:
    """What the figures were restricted to, as the methods paragraph names it."""
    scope = []
    rated = {c for r in report.records for c in r.coders} - set(RESERVED)
    if options.coders and set(options.coders) != rated:  # else the paragraph names them
        scope.append("coders " + ", ".join(options.coders))
    if options.models:
        scope.append("assistants " + ", ".join(options.models))
    if options.participants:
        scope.append("participants " + ", ".join(options.participants))
    scope += [f"{k} = {v}" for k, v in options.attributes.items()]
    if options.codebook_version is not None:
        scope.append(f"codings made under codebook version {options.codebook_version}")
    return scope


def methods_paragraph(project: Project, report: AgreementReport, options: AgreementOptions,
                      fmt: str = "markdown") -> str:
    """The methods paragraph, table and references of ``report`` (Markdown or LaTeX)."""
    from .. import APP_NAME, __version__
    from ..domain.agreement.methods import MethodsContext, methods_text

    scope = _scope(report, options)
    flagged = sorted({r.code for r in report.records if r.by_construction})
    construction = ("" if not flagged else
                    f"The consensus of {', '.join(flagged)} is the coders' own majority, "
                    "accepted as it stood, so each coder's agreement with it is high by "
                    "construction (1 with two coders) and is not reported as agreement.")
    ctx = MethodsContext(APP_NAME, __version__, options.bootstrap, options.seed, options.ci,
                         options.min_units or min_units_setting(project), "; ".join(scope),
                         values=values_text(report) if report.values else "",
                         by_construction=construction, models=models_sentence(project, report),
                         calibration=_calibration(project))
    return methods_text(report, ctx, fmt)
