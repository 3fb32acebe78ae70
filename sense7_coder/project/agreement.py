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
from dataclasses import replace

import numpy as np
import pandas as pd

from ..domain.agreement import (
    USERS_RATER,
    AgreementReport,
    CodeFrameSpec,
    agreement_report,
    resolve_level,
)
from ..domain.agreement.alpha import value_domain
from ..domain.agreement.majority import BY_CONSTRUCTION_NOTE as BY_CONSTRUCTION_NOTE
from ..domain.agreement.majority import majority_codes
from ..domain.agreement.records import MIN_UNITS
from ..domain.agreement.units import rater_table
from ..domain.agreement_settings import VALUES, AgreementSettings, draws_refusal
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
    _rename_reserved,
    applicability_frame,
    code_spec,
    code_values,
    read_ratings,
)
from .selection import Selection

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


def check_draws(draws: int, seed: int | None) -> None:
    """Refuse a number of bootstrap draws or a seed no run can use (the limits are
    :mod:`sense7_coder.domain.agreement_settings`')."""
    refused = draws_refusal(draws, seed)
    if refused:
        raise ProjectError(refused)


def check_request(project: Project, selection: Selection,
                  settings: AgreementSettings | None = None) -> list[Code]:
    """The codes to compute, after checking every name in ``selection`` exists (and
    ``settings``, when given, can be used over them)."""
    refused = settings.refusal() if settings is not None else None
    if refused:
        raise ProjectError(refused)
    if selection.values not in VALUES:
        raise ProjectError(f"values must be one of {', '.join(VALUES)}, got "
                           f"{selection.values!r}")
    book = project.codebook
    if selection.codes:
        if any(book.get(k) is None for k in selection.codes):
            raise _unknown("code", selection.codes, [c.key for c in book.codes])
        codes = [book.code(k) for k in dict.fromkeys(selection.codes)]
    else:
        codes = list(book.active)
    # span codes have figures of their own (project/spans/agreement.py)
    codes = [c for c in codes if c.unit != "span"]
    level = settings.level if settings is not None else None
    refused_levels = level_refusals(codes, level) if selection.codes else []
    if refused_levels:  # a code asked for by name is never silently read at another level
        raise ProjectError(refused_levels[0] + (f" (and {len(refused_levels) - 1} more)"
                                                if len(refused_levels) > 1 else ""))
    coder_names = [c["name"] for c in project.coders()]
    if any(c not in coder_names for c in selection.coders):
        raise _unknown("coder", selection.coders, coder_names)
    if selection.predictors:
        turn_level = [n for n, c in store_pred.predictor_counts(project.db).items() if c["turn"]]
        if any(p not in turn_level for p in selection.predictors):
            raise _unknown("predictor with turn-level scores", selection.predictors, turn_level)
    check_model_raters(project, selection)
    for column, asked, kind in (
        ("model", selection.models, "model"),
        ("participant_id", selection.participants, "participant"),
    ):
        known = distinct_values(project.db, column)
        if any(a not in known for a in asked):
            raise _unknown(kind, asked, known)
    for name, value in selection.attributes.items():
        one = ConversationFilter(attributes={name: value})
        if not conversation_rowids(project.db, one):
            known = attribute_values(project.db, name)
            listed = ", ".join(known) if known else "no conversation has that attribute"
            raise ProjectError(f"no conversation has the attribute {name} = {value!r} "
                               f"(values: {listed})")
    if selection.attributes and not conversation_rowids(project.db,
                                                        selection.conversation_filter()):
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
    project: Project, codes: Sequence[Code], data: ProjectRatings, selection: Selection,
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
        times = frames.coding_times_frame(project.db, codes=keys, coders=selection.coders,
                                          conversations=selection.conversation_filter())
    times = _rename_reserved(times)
    out: dict[str, list[pd.DataFrame]] = {"confusion": [], "bias": [], "drift": []}
    for code in codes:
        key = code.key
        values = _check_levels(code, code_values(code, data))
        mine = times[times["code"] == key]
        # one integer per unit, shared by the values and the saving order
        both = rater_table([values, mine.assign(value=np.nan)])
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


def _specs(codes: Sequence[Code], data: ProjectRatings, selection: Selection,
           settings: AgreementSettings) -> dict[str, CodeFrameSpec]:
    """Each code's ratings as the domain computes on them: its long table with the
    references, its applicability codings, the users' ratings left out for being off the
    scale, and whether its consensus is the coders' own majority."""
    majority = majority_codes(data.consensus)
    specs: dict[str, CodeFrameSpec] = {}
    for code in codes:
        spec, off_scale, stored = code_spec(
            code, data, level=settings.level, include_users=selection.include_users,
            include_consensus=selection.include_consensus,
        )
        has_coders = (~spec.frame["coder"].isin(RESERVED)).any()
        if not has_coders and not selection.codes:
            continue  # a code nobody (of those asked) has coded is left out unless asked for
        specs[code.key] = replace(
            spec, applicability=applicability_frame(spec, stored) if code.allow_na else None,
            reference_notes={USERS_RATER: f"{off_scale} users' ratings off the scale "
                             f"{', '.join(map(str, code.values))} left out"} if off_scale else {},
            majority_consensus=code.key in majority)
    return specs


def project_agreement(
    project: Project,
    selection: Selection | None = None,
    settings: AgreementSettings | None = None,
    *,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
) -> AgreementReport:
    """Agreement for every code of ``selection`` (one job; may run off the GUI thread on
    its own :class:`Project`), computed as ``settings`` say. Reads the rows and hands them
    to the domain, whose report comes back whole. Raises :class:`ProjectError` when
    nothing matches."""
    project.require_unblinded("see agreement between coders")
    selection = selection or Selection()
    settings = settings or AgreementSettings()
    codes = check_request(project, selection, settings)
    if cancel and cancel():
        raise Cancelled()
    data = read_ratings(
        project, codes, coders=selection.coders,
        conversations=selection.conversation_filter(),
        include_users=selection.include_users, include_consensus=selection.include_consensus,
        predictors=selection.predictors,
        times=settings.measures == "all", compact=True, values=selection.values,
        model_raters=chosen_models(selection),
    )
    data.codings = keep_version(data.codings, project, selection.codebook_version)
    specs = _specs(codes, data, selection, settings)
    if not specs:
        raise ProjectError(
            "no codings match the selection; nothing to compare",
            hint=Hint("codes", "", "check the codes, coders, assistants and participants "
                      "chosen"),
        )
    diagnostics = (diagnostics_tables(project, [c for c in codes if c.key in specs], data,
                                      selection)
                   if settings.measures == "all" else None)
    after_reveal = len(frames.revisions_frame(
        project.db, codes=list(specs), coders=selection.coders,
        conversations=selection.conversation_filter()))
    try:
        return agreement_report(
            specs, bootstrap=settings.bootstrap, seed=settings.seed, progress=progress,
            cancel=cancel, ci=settings.ci,
            min_units=settings.min_units or min_units_setting(project),
            measures=settings.measures, kappa_basis=settings.kappa_weights,
            # outside blind coding (and with no value changed after a reveal) nothing is
            # blind
            values=(selection.values if project.blind_coding or after_reveal else "stored"),
            after_reveal=after_reveal, codebook_version=selection.codebook_version,
            diagnostics=diagnostics,
        )
    except ValueError as e:
        raise ProjectError(str(e)) from None


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


def _scope(report: AgreementReport, selection: Selection) -> list[str]:
    """What the figures were restricted to, as the methods paragraph names it."""
    scope = []
    rated = {c for r in report.records for c in r.coders} - set(RESERVED)
    if selection.coders and set(selection.coders) != rated:  # else the paragraph names them
        scope.append("coders " + ", ".join(selection.coders))
    if selection.models:
        scope.append("assistants " + ", ".join(selection.models))
    if selection.participants:
        scope.append("participants " + ", ".join(selection.participants))
    scope += [f"{k} = {v}" for k, v in selection.attributes.items()]
    if selection.codebook_version is not None:
        scope.append(f"codings made under codebook version {selection.codebook_version}")
    return scope


def methods_paragraph(project: Project, report: AgreementReport, selection: Selection,
                      settings: AgreementSettings, fmt: str = "markdown") -> str:
    """The methods paragraph, table and references of ``report`` (Markdown or LaTeX)."""
    from .. import APP_NAME, __version__
    from ..domain.agreement.methods import MethodsContext, methods_text

    scope = _scope(report, selection)
    flagged = sorted({r.code for r in report.records if r.by_construction})
    construction = ("" if not flagged else
                    f"The consensus of {', '.join(flagged)} is the coders' own majority, "
                    "accepted as it stood, so each coder's agreement with it is high by "
                    "construction (1 with two coders) and is not reported as agreement.")
    ctx = MethodsContext(APP_NAME, __version__, settings.bootstrap, settings.seed, settings.ci,
                         settings.min_units or min_units_setting(project), "; ".join(scope),
                         values=values_text(report) if report.values else "",
                         by_construction=construction, models=models_sentence(project, report),
                         calibration=_calibration(project))
    return methods_text(report, ctx, fmt)
