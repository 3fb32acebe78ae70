"""Agreement over several codes (:func:`agreement_report`) and its tabular forms."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..agreement_settings import MEASURES as MEASURES  # defined with the choices
from ..measures import COHEN
from .alpha import resolve_level, value_domain
from .engine import alpha_record, applicability_record, coder_records, steps_for_code
from .kappa import KAPPA_BASES
from .majority import mark_by_construction
from .progress import CancelFn, ProgressFn, Steps
from .ratings import Level, Ratings, prepare_ratings
from .records import MAX_PAIR_CODERS, AgreementRecord
from .reference import reference_records, steps_for_reference

#: Columns of :meth:`AgreementReport.to_frame`, in order.
FRAME_COLUMNS = (
    "code", "measure", "level", "weights", "coders", "value", "band",
    "n_units", "n_values", "ci_low", "ci_high", "form", "ci_method", "draws",
    "undefined_draws", "q_below_667", "q_below_800", "min_units", "note", "values",
    "by_construction", "warning",
)
#: How rater names are joined in the ``coders`` column of the table form.
CODER_SEPARATOR = " | "


@dataclass
class CodeFrameSpec:
    """Ratings of one code and how to read them.

    ``references`` names raters (e.g. ``'users'``, ``'consensus'``) that are compared
    with every other rater instead of being counted among the coders. In order: the
    first is compared with all coders and the later references, the second with all
    coders and the references after it, and so on. A name absent from ``frame`` gives
    no figures; the report lists the codes it is absent from (``absent``).

    ``applicability`` (unit, coder, value 1 = a level given, 0 = not applicable, one row
    per coding) adds the alpha on whether the code applies right after the code's alpha
    among the coders. ``reference_notes`` adds a note to every figure comparing with that
    reference (the users' ratings left out for being off the scale). ``majority_consensus``
    says the code's consensus is the coders' own majority: every figure against it is
    flagged "by construction" (:mod:`.majority`).
    """

    frame: pd.DataFrame
    kind: str
    scale: Sequence[Level]
    level: str | None = None
    references: Sequence[str] = ()
    applicability: pd.DataFrame | None = None
    reference_notes: Mapping[str, str] = field(default_factory=dict)
    majority_consensus: bool = False


@dataclass
class AgreementReport:
    records: list[AgreementRecord] = field(default_factory=list)
    #: diagnostics tables by name ('confusion', 'bias', 'drift'; see :mod:`.diagnostics`)
    diagnostics: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: which values entered ('blind' or 'final', '' = not said) and how many values coders
    #: changed after the reveal (left out of 'blind', in 'final')
    values: str = ""
    after_reveal: int = 0
    #: the codebook version the codings were restricted to (None: every coding)
    codebook_version: int | None = None
    #: reference -> the codes it holds no rating of (no figure compares with it there:
    #: ESConv's users rated only 'overall', not the seven dimensions)
    absent: dict[str, list[str]] = field(default_factory=dict)

    @property
    def codes(self) -> list[str]:
        return list(dict.fromkeys(r.code for r in self.records))

    def for_code(self, code: str) -> list[AgreementRecord]:
        return [r for r in self.records if r.code == code]

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per figure (JSON-ready): code, measure, level, weights, coders (list),
        value, band, n_units, n_values, ci_low, ci_high, form, ci_method, draws,
        undefined_draws, q_below_667, q_below_800, min_units, note."""
        return [r.to_dict() for r in self.records]

    def to_frame(self) -> pd.DataFrame:
        """One row per figure (for CSV): coders joined with ' | '."""
        rows = []
        for r in self.records:
            row = r.to_dict()
            row["coders"] = CODER_SEPARATOR.join(r.coders)
            rows.append(row)
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))


def _references_plan(ratings: Ratings, refs: Sequence[str]) -> list[tuple[str, list[str]]]:
    """(reference, raters compared with it) for each reference, in order."""
    plan = []
    done: list[str] = []
    for ref in refs:
        others = [c for c in ratings.coders if c != ref and c not in done]
        plan.append((ref, others))
        done.append(ref)
    return plan


def _reference_draws(others: Sequence[str], bootstrap: int) -> int:
    """Bootstrap draws for each rater against a reference: none beyond
    :data:`.records.MAX_PAIR_CODERS` raters (3,000 crowd workers against the users took
    over 5 minutes of intervals, a thousand alphas each)."""
    return bootstrap if len(others) <= MAX_PAIR_CODERS else 0


def agreement_report(
    specs: Mapping[str, CodeFrameSpec],
    *,
    bootstrap: int = 1000,
    seed: int | None = 0,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    ci: str = "percentile",
    min_units: int | None = None,
    measures: str = "all",
    kappa_basis: str = "positions",
    values: str = "",
    after_reveal: int = 0,
    codebook_version: int | None = None,
    diagnostics: Mapping[str, pd.DataFrame] | None = None,
) -> AgreementReport:
    """Agreement for every code in ``specs`` (code key -> :class:`CodeFrameSpec`).

    Every input is checked before the long work starts, so a bad value is reported at
    once. Per code: the figures of :func:`.engine.code_agreement` among the coders
    (references left out), then each reference against the other raters as in
    :func:`.reference.rater_vs_reference`. Each code's bootstrap uses ``seed``, so a
    code's interval does not depend on which other codes are in the job.
    ``ci`` is the interval method ('percentile' or 'bca'); ``min_units`` (None: the
    default of 10) the number of units below which a figure reads "too few units".
    ``progress(done, total)`` runs over the whole job. ``measures`` 'alpha' computes
    Krippendorff's alpha alone (see :data:`MEASURES`), the same values as 'all' gives.
    ``kappa_basis`` builds weighted kappa's weights on the levels' 'positions' or
    'values' (see :func:`.engine.kappa_records`).

    The report is whole when it is returned: each spec's ``applicability``,
    ``reference_notes`` and ``majority_consensus`` are in its figures; ``values`` (which
    values entered: 'blind', 'final', 'stored'), ``after_reveal`` (how many values coders
    changed after the reveal), ``codebook_version`` and ``diagnostics`` (tables by name)
    are said by the report and, for ``values``, by each figure.
    """
    if measures not in MEASURES:
        raise ValueError(f"measures must be one of {', '.join(MEASURES)}, got {measures!r}")
    if kappa_basis not in KAPPA_BASES:
        raise ValueError(f"kappa weights must be on one of {', '.join(KAPPA_BASES)}, got "
                         f"{kappa_basis!r}")
    alpha_only = measures == "alpha"
    prepared = []
    total = 0
    for code, spec in specs.items():
        level = resolve_level(spec.kind, spec.level, code)
        value_domain(spec.scale, level, code)  # an interval level needs numeric levels
        ratings = prepare_ratings(spec.frame, code=code, scale=spec.scale)
        refs = list(dict.fromkeys(spec.references))
        plan = _references_plan(ratings, refs)
        total += steps_for_code(bootstrap)
        total += sum(steps_for_reference(len(others), _reference_draws(others, bootstrap))
                     for _, others in plan)
        prepared.append((spec, level, ratings, refs, plan))
    steps = Steps(total, progress, cancel)
    report = AgreementReport()
    for spec, level, ratings, refs, plan in prepared:
        coders = ratings.subset([c for c in ratings.coders if c not in refs])
        if alpha_only:
            steps.check()
            report.records.append(
                alpha_record(coders, coders.pairable_counts(), level=level,
                             bootstrap=bootstrap, seed=seed, steps=steps, ci=ci))
            steps.advance()
        else:
            report.records.extend(
                coder_records(coders, kind=spec.kind, level=level, bootstrap=bootstrap,
                              seed=seed, steps=steps, ci=ci, kappa_basis=kappa_basis)
            )
        for ref, others in plan:
            if ref not in ratings.coders:
                report.absent.setdefault(ref, []).append(ratings.code)
                steps.advance(steps_for_reference(len(others), _reference_draws(
                    others, bootstrap)))
                continue
            draws = _reference_draws(others, bootstrap)
            records = reference_records(ratings, reference=ref, others=others, kind=spec.kind,
                                        level=level, bootstrap=draws, seed=seed, steps=steps,
                                        ci=ci, alpha_only=alpha_only,
                                        kappa_basis=kappa_basis)
            if draws < bootstrap:
                for record in records:
                    record.note = (f"{record.note}; no interval: {len(others):,} raters each "
                                   f"compared with '{ref}' (more than {MAX_PAIR_CODERS})")
            report.records.extend(records)
    steps.finish()
    _add_applicability(report, specs, bootstrap=bootstrap, seed=seed, ci=ci, cancel=cancel)
    for record in report.records:
        if min_units is not None:
            record.min_units = min_units
        record.values = values
    _add_notes(report, specs)
    report.values, report.after_reveal = values, after_reveal
    report.codebook_version = codebook_version
    report.diagnostics = dict(diagnostics or {})
    return report


def _add_applicability(report: AgreementReport, specs: Mapping[str, CodeFrameSpec], *,
                       bootstrap: int, seed: int | None, ci: str,
                       cancel: CancelFn | None) -> None:
    """Each code's applicability alpha, right after the code's alpha among the coders."""
    for code, spec in specs.items():
        if spec.applicability is None:
            continue
        record = applicability_record(spec.applicability, code=code, bootstrap=bootstrap,
                                      seed=seed, ci=ci, cancel=cancel)
        at = next((i for i, r in enumerate(report.records) if r.code == code), None)
        report.records.insert(1 if at is None else at + 1, record)


def _add_notes(report: AgreementReport, specs: Mapping[str, CodeFrameSpec]) -> None:
    """Each spec's reference notes, then the majority flags, on the report's figures."""
    for record in report.records:
        spec = specs.get(record.code)
        for ref, note in (spec.reference_notes.items() if spec is not None else ()):
            if ref in record.coders:
                record.note = f"{record.note}; {note}" if record.note else note
    mark_by_construction(report.records,
                         [code for code, spec in specs.items() if spec.majority_consensus])


def pairwise_matrix(
    report: AgreementReport,
    code: str,
    measure: str = COHEN,
    weights: str | None = None,
) -> pd.DataFrame:
    """Rater x rater table of a two-rater measure for one code (NaN: undefined or absent).

    For Cohen's kappa, ``weights`` None picks quadratic when the code has quadratic
    kappas (ordinal codes), else unweighted. The diagonal is NaN. Raters appear in the
    order they first occur in the report.
    """
    pairs = [r for r in report.for_code(code) if r.measure == measure and len(r.coders) == 2]
    if measure == COHEN:
        if weights is None:
            weights = "quadratic" if any(r.weights == "quadratic" for r in pairs) else "none"
        pairs = [r for r in pairs if r.weights == weights]
    names = list(dict.fromkeys(c for r in pairs for c in r.coders))
    table = pd.DataFrame(float("nan"), index=pd.Index(names, name="rater"), columns=names)
    for r in pairs:
        a, b = r.coders
        value = float("nan") if r.value is None else r.value
        table.loc[a, b] = value
        table.loc[b, a] = value
    return table
