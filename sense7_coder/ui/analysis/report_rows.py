"""An agreement report shaped for reading: one row per code, per rater, per cell.

Pure Python (no Qt): the panels' table models and the plot show these rows. The figures
come from :mod:`sense7_coder.domain.agreement`; nothing is computed here but look-ups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...domain.agreement import (
    APPLICABILITY,
    CONSENSUS_RATER,
    TOO_FEW,
    USERS_RATER,
    AgreementRecord,
    AgreementReport,
)
from ...domain.measures import (
    ALPHA,
    COHEN,
    FLEISS,
    ICC,
    MEASURE_TABLE,
    PERCENT,
    group_measures,
    reference_measures,
)
from ...domain.words import count

#: what an undefined figure shows
UNDEFINED = "—"
REFERENCES = (USERS_RATER, CONSENSUS_RATER)
BAND_TEXT = {
    "good": "good (interval ≥ .800)",
    "tentative": "tentative (interval in .667–.800)",
    "at least tentative": "at least tentative (interval ≥ .667)",
    "inconclusive": "inconclusive (interval spans .667)",
    "low": "low (interval < .667)",
    "good (point)": "good (point ≥ .800, no interval)",
    "tentative (point)": "tentative (point ≥ .667, no interval)",
    "low (point)": "low (point < .667, no interval)",
    "undefined": "undefined",
    TOO_FEW: "too few units",
    "": "",
}
#: the measures as the window names them (the measures table's labels)
MEASURE_NAMES = {m.key: m.label for m in MEASURE_TABLE}


def fmt(value: float | None, digits: int = 3) -> str:
    """A figure as text: three decimals, or an em dash when undefined."""
    return UNDEFINED if value is None else f"{value:.{digits}f}"


def ci_text(record: AgreementRecord | None) -> str:
    """``[low, high]`` of a record's bootstrap interval, or empty without one."""
    if record is None or record.ci_low is None or record.ci_high is None:
        return ""
    return f"[{record.ci_low:.3f}, {record.ci_high:.3f}]"


def band_of(record: AgreementRecord | None) -> str:
    """The band of an alpha (:meth:`AgreementRecord.band`; a missing one is undefined)."""
    return "undefined" if record is None else record.band() or "undefined"


def explain(record: AgreementRecord | None, missing: str = "not computed") -> str:
    """A tooltip for a figure: what it is, over how many units, its interval, its note."""
    if record is None:
        return missing
    name = MEASURE_NAMES.get(record.measure, record.measure)
    if record.form:
        name = f"{record.form}"
    if record.level == APPLICABILITY:
        name += " on applicable vs not applicable"
    if record.weights and record.weights != "none":
        name += f" ({record.weights} weights)"
    head = f"{name}: {fmt(record.value)}"
    if record.value is None:
        head = f"{name} is undefined"
    lines = [head, f"{count(record.n_units, 'unit')}, {count(record.n_values, 'value')}"]
    if ci_text(record):
        lines.append(f"95% CI {ci_text(record)}")
        if record.undefined_draws:
            lines.append(f"{record.undefined_draws} of {record.draws} draws undefined "
                         f"({100 * record.undefined_draws / max(record.draws, 1):.1f}%)")
        if record.q_below_667 is not None and record.q_below_800 is not None:
            lines.append(f"q: {record.q_below_667:.3f} of draws below .667, "
                         f"{record.q_below_800:.3f} below .800")
    if record.value is not None and record.band() == TOO_FEW:
        lines.append(f"fewer than {record.min_units} units: too few to read a band")
    if record.warning and record.value is not None:
        lines.append(f"warning: {record.warning}")
    if record.note:
        lines.append(record.note)
    return "\n".join(lines)


def _is_reference(record: AgreementRecord) -> bool:
    return any(c in REFERENCES for c in record.coders)


@dataclass
class CodeRow:
    """One code's figures among the coders (references left out)."""

    code: str
    label: str
    alpha: AgreementRecord | None
    percent: AgreementRecord | None = None
    fleiss: AgreementRecord | None = None
    coders: list[str] = field(default_factory=list)

    @property
    def band(self) -> str:
        return band_of(self.alpha)


def code_rows(report: AgreementReport, labels: dict[str, str] | None = None) -> list[CodeRow]:
    """One row per code of the report, in report order."""
    labels = labels or {}
    rows = []
    for code in report.codes:
        mine = [r for r in report.for_code(code) if not _is_reference(r)]
        def pick(measure: str, mine: list[AgreementRecord] = mine) -> AgreementRecord | None:
            return next((r for r in mine if r.measure == measure), None)

        alpha = pick(ALPHA)
        coders = list(alpha.coders) if alpha is not None else []
        rows.append(CodeRow(code, labels.get(code, code), alpha, pick(PERCENT), pick(FLEISS),
                            coders))
    return rows


@dataclass
class RaterRow:
    """One rater (a coder or the consensus) against a reference, for one code: its figure
    of each measure of a coder against a reference (:func:`.measures.reference_measures`;
    a measure with weights at the weights shown)."""

    code: str
    label: str
    rater: str
    records: dict[str, AgreementRecord]
    #: the first row of its code (the tables name the code once per group)
    first: bool = True

    @property
    def alpha(self) -> AgreementRecord | None:
        return self.records.get(ALPHA)

    @property
    def band(self) -> str:
        return band_of(self.alpha)

    @property
    def n_units(self) -> int:
        return self.alpha.n_units if self.alpha is not None else 0


#: the ICC forms in words (Shrout & Fleiss 1979; McGraw & Wong 1996)
ICC_FORMS = {
    "ICC1": "one-way, single", "ICC2": "absolute, single", "ICC3": "consistency, single",
    "ICC1k": "one-way, mean", "ICC2k": "absolute, mean", "ICC3k": "consistency, mean",
}


@dataclass
class CoefficientRow:
    """One coefficient of one code over all its coders (a measure of the measures table
    that compares the group: alpha, AC1, AC2, B–P, an ICC form, ...)."""

    code: str
    label: str
    record: AgreementRecord
    first: bool = True

    @property
    def name(self) -> str:
        r = self.record
        if r.measure == ICC:
            return f"{r.form} ({ICC_FORMS.get(r.form or '', '')})"
        name = MEASURE_NAMES.get(r.measure, r.measure)
        if r.measure == ALPHA:
            return f"{name} ({'applicability' if r.level == APPLICABILITY else r.level})"
        if r.weights and r.weights != "none":
            return f"{name} ({r.weights})"
        return name

    @property
    def band(self) -> str:
        return self.record.band()


def coefficient_rows(report: AgreementReport, labels: dict[str, str] | None = None
                     ) -> list[CoefficientRow]:
    """Every coefficient over all coders of each code (no pairs, no references): the
    figures of every measure the measures table has compare the group, in its order."""
    labels = labels or {}
    order = {m.key: i for i, m in enumerate(group_measures())}
    rows: list[CoefficientRow] = []
    for code in report.codes:
        mine = [r for r in report.for_code(code)
                if not _is_reference(r) and r.measure in order]
        mine.sort(key=lambda r: order[r.measure])
        for i, r in enumerate(mine):
            rows.append(CoefficientRow(code, labels.get(code, code), r, first=i == 0))
    return rows


def kappa_weights_for(records: Sequence[AgreementRecord], wanted: str,
                      measure: str = COHEN) -> str:
    """``wanted`` if any figure of ``measure`` (Cohen's kappa by default) has those
    weights, else the weights there are ('none')."""
    have = {r.weights for r in records if r.measure == measure}
    if wanted in have or not any(have):  # none of its figures has weights
        return wanted
    return "none" if "none" in have else sorted(w for w in have if w)[0]


def rater_rows(
    report: AgreementReport,
    reference: str = USERS_RATER,
    weights: str = "quadratic",
    labels: dict[str, str] | None = None,
) -> list[RaterRow]:
    """Every rater compared with ``reference`` (users or consensus), code by code, with
    each measure of the table that compares a coder with a reference.

    A measure with weights (Cohen's kappa: linear and quadratic on ordinal codes, none on
    nominal and binary ones) gives its figure at ``weights`` where the code has them, else
    the weights it has.
    """
    labels = labels or {}
    keys = [m.key for m in reference_measures()]
    rows = []
    for code in report.codes:
        pairs = [r for r in report.for_code(code)
                 if len(r.coders) == 2 and r.coders[1] == reference and r.measure in keys]
        use = {key: kappa_weights_for(pairs, weights, key) for key in keys}
        for i, rater in enumerate(dict.fromkeys(r.coders[0] for r in pairs)):
            records: dict[str, AgreementRecord] = {}
            for r in pairs:
                if r.coders[0] == rater and r.measure not in records and (
                        r.weights is None or r.weights == use[r.measure]):
                    records[r.measure] = r
            rows.append(RaterRow(code, labels.get(code, code), rater, records, first=i == 0))
    return rows


def alpha_pivot(
    report: AgreementReport, reference: str = CONSENSUS_RATER
) -> tuple[list[str], list[str], dict[tuple[str, str], AgreementRecord]]:
    """(codes, raters, {(code, rater): alpha record}) of every rater against ``reference``."""
    cells: dict[tuple[str, str], AgreementRecord] = {}
    raters: list[str] = []
    codes: list[str] = []
    for r in report.records:
        if r.measure != ALPHA or len(r.coders) != 2 or r.coders[1] != reference:
            continue
        cells[(r.code, r.coders[0])] = r
        if r.code not in codes:
            codes.append(r.code)
        if r.coders[0] not in raters:
            raters.append(r.coders[0])
    return codes, raters, cells
