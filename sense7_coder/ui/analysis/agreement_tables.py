"""The agreement panel's three tables: codes, coder pairs, and raters against the users."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd
from PySide6.QtGui import QColor

from ...domain.agreement import AgreementRecord, AgreementReport, pairwise_matrix
from ...domain.agreement.records import (
    BAND_RULE,
    BANDS,
    GOOD,
    LOW,
    POINT_ONLY,
    TENTATIVE,
    TOO_FEW,
    raters_text,
)
from ...domain.agreement_settings import CI_SHORT
from ...domain.measures import ALPHA, COHEN, Measure, reference_measures
from .report_rows import (
    BAND_TEXT,
    CodeRow,
    CoefficientRow,
    RaterRow,
    band_of,
    ci_text,
    explain,
    fmt,
)
from .table_model import ALIGN_CENTER, ALIGN_RIGHT, Column, band_colour, shade

CONSENSUS_LABEL = "consensus"


def _pct(record: AgreementRecord | None) -> str:
    return "—" if record is None or record.value is None else f"{100 * record.value:.1f} %"


def _band_tip(band: str) -> str:
    if band == "undefined":
        return "alpha is undefined"
    if band == "too few units":
        return "fewer units than the project's minimum: too few to read a band"
    if band == "by construction":
        return ("the consensus is these coders' own majority: agreement with it is high by "
                "construction (1 with two coders), not a measure of agreement")
    return ("Krippendorff's bands (≥ .800 good enough to rely on; .667–.800 only tentative "
            f"conclusions; below .667 low), read from the interval: {BAND_RULE}")


def _q(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def coefficient_columns() -> list[Column[CoefficientRow]]:
    """The Coefficients tab: each coefficient over all coders with its interval and counts."""
    return [
        Column("Code", lambda r: r.label if r.first else "", tooltip=lambda r: r.label,
               bold=lambda r: r.first),
        Column("Coefficient", lambda r: r.name, tooltip=lambda r: explain(r.record)),
        Column("Value", lambda r: fmt(r.record.value), tooltip=lambda r: explain(r.record),
               background=lambda r: band_colour(r.band) if r.record.measure == ALPHA
               else None, align=ALIGN_RIGHT, bold=lambda r: True),
        Column("95% CI", lambda r: ci_text(r.record), tooltip=lambda r: explain(r.record),
               align=ALIGN_CENTER),
        Column("Method", lambda r: CI_SHORT.get(r.record.ci_method or "", ""),
            header_tip="interval method: percentile or BCa bootstrap over units (coders "
                       "fixed); F: McGraw & Wong's F-based interval (ICC1, ICC3); GCI: "
                       "generalized confidence interval, coders a random sample (ICC2)"),
        Column("Undef.", lambda r: (
            f"{100 * r.record.undefined_draws / r.record.draws:.1f} %"
            if r.record.draws else ""), align=ALIGN_RIGHT,
            header_tip="share of bootstrap draws in which the figure was undefined (left out)"),
        Column("q < .667", lambda r: _q(r.record.q_below_667), align=ALIGN_RIGHT,
               header_tip="Hayes & Krippendorff: share of draws below .667 (alpha)"),
        Column("q < .800", lambda r: _q(r.record.q_below_800), align=ALIGN_RIGHT,
               header_tip="Hayes & Krippendorff: share of draws below .800 (alpha)"),
        Column("Units", lambda r: str(r.record.n_units), align=ALIGN_RIGHT,
               header_tip="units that entered the figure (ICC: units every coder rated)"),
        Column("Values", lambda r: str(r.record.n_values), align=ALIGN_RIGHT),
        Column("Band", lambda r: BAND_TEXT.get(r.band, r.band),
               tooltip=lambda r: _band_tip(r.band) if r.band else None,
               background=lambda r: band_colour(r.band)),
    ]


def code_columns() -> list[Column[CodeRow]]:
    return [
        Column("Code", lambda r: r.label,
               tooltip=lambda r: f"{r.code}: coders {raters_text(r.coders) or 'none'}"),
        Column("α", lambda r: fmt(r.alpha.value if r.alpha else None),
               tooltip=lambda r: explain(r.alpha), background=lambda r: band_colour(r.band),
               align=ALIGN_RIGHT, bold=lambda r: True,
               header_tip="Krippendorff's alpha among the coders"),
        Column("95% CI", lambda r: ci_text(r.alpha), tooltip=lambda r: explain(r.alpha),
               align=ALIGN_CENTER, header_tip="bootstrap interval over units (BCa below 100 units, percentile from 100, unless another method is chosen; the Method column says which)"),
        Column("Band", lambda r: BAND_TEXT.get(r.band, r.band),
               tooltip=lambda r: _band_tip(r.band),
               background=lambda r: band_colour(r.band)),
        Column("Units", lambda r: str(r.alpha.n_units if r.alpha else 0), align=ALIGN_RIGHT,
               header_tip="units rated by at least two coders (those that entered alpha)"),
        Column("Values", lambda r: str(r.alpha.n_values if r.alpha else 0), align=ALIGN_RIGHT,
               header_tip="values in those units"),
        Column("Agreement", lambda r: _pct(r.percent), tooltip=lambda r: explain(r.percent),
               align=ALIGN_RIGHT, header_tip="raw percent agreement (exact match)"),
        Column("Fleiss' κ", lambda r: fmt(r.fleiss.value if r.fleiss else None),
               tooltip=lambda r: explain(r.fleiss), align=ALIGN_RIGHT),
        Column("Level", lambda r: (r.alpha.level or "") if r.alpha else "",
               header_tip="level of measurement alpha used"),
    ]


def rater_columns(weights: str, rows: Sequence[RaterRow] = ()) -> list[Column[RaterRow]]:
    """The users tab's columns: the code and rater, then each measure of a coder against a
    reference (:func:`.measures.reference_measures`, in listing order), its interval where
    one of ``rows`` has one, alpha's band beside alpha; the units both rated last."""
    columns: list[Column[RaterRow]] = [
        Column("Code", lambda r: r.label if r.first else "", tooltip=lambda r: r.label,
               bold=lambda r: r.first),
        Column("Rater", lambda r: r.rater, bold=lambda r: r.rater == CONSENSUS_LABEL),
    ]
    for m in reference_measures():
        columns += _measure_columns(m, weights, rows)
    columns.append(Column("Units", lambda r: str(r.n_units), align=ALIGN_RIGHT,
                          header_tip="units both rated"))
    return columns


def _measure_columns(m: Measure, weights: str, rows: Sequence[RaterRow]
                     ) -> list[Column[RaterRow]]:
    key = m.key
    weighed = any((r.records[key].weights or "none") != "none"
                  for r in rows if key in r.records)
    label = f"{m.label} {weights}" if weighed and weights != "none" else m.label
    missing = ("not computed for this code's level" if len(m.levels) == 1
               else f"no {m.name} with these weights" if weighed else "not computed")

    def record(r: RaterRow) -> AgreementRecord | None:
        return r.records.get(key)

    def value(r: RaterRow) -> str:
        rec = record(r)
        return fmt(rec.value if rec is not None else None)

    is_alpha = key == ALPHA
    out: list[Column[RaterRow]] = [Column(
        label, value, tooltip=lambda r: explain(record(r), missing), align=ALIGN_RIGHT,
        background=(lambda r: band_colour(r.band)) if is_alpha else None,
        bold=(lambda r: True) if is_alpha else None, header_tip=m.wording)]
    if any(rec.ci_low is not None for r in rows for rec in [record(r)] if rec is not None) \
            or (is_alpha and not rows):
        out.append(Column("95% CI" if is_alpha else f"{label} 95% CI",  # alpha's beside it
                          lambda r: ci_text(record(r)),
                          tooltip=lambda r: explain(record(r), missing), align=ALIGN_CENTER,
                          header_tip="bootstrap interval over units both rated"))
    if is_alpha:
        out.append(Column("Band", lambda r: BAND_TEXT.get(r.band, r.band),
                          background=lambda r: band_colour(r.band)))
    return out


@dataclass
class MatrixRow:
    rater: str
    values: dict[str, float | None]
    records: dict[str, AgreementRecord] = field(default_factory=dict)


def matrix_rows(report: AgreementReport, code: str, weights: str, measure: str = COHEN
                ) -> tuple[list[str], list[MatrixRow], str]:
    """Raters, one row per rater, and the weights actually used (for nominal codes, or a
    measure without weights: none) of a measure of pairs (Cohen's kappa by default)."""
    pairs = [r for r in report.for_code(code) if r.measure == measure and len(r.coders) == 2]
    have = {r.weights or "none" for r in pairs}
    use = weights if weights in have else ("none" if "none" in have else weights)
    pairs = [r for r in pairs if (r.weights or "none") == use]
    table = pairwise_matrix(report, code, measure, use if measure == COHEN else None)
    raters = [str(c) for c in table.columns]
    lookup = {(a, b): r for r in pairs for a, b in
              (tuple(r.coders), tuple(reversed(r.coders)))}
    rows = []
    for a in raters:
        values = {b: (None if pd.isna(table.loc[a, b]) else float(table.loc[a, b]))
                  for b in raters}
        rows.append(MatrixRow(a, values, {b: lookup[(a, b)] for b in raters if (a, b) in lookup}))
    return raters, rows, use


def _pair_column(b: str) -> Column[MatrixRow]:
    def text(r: MatrixRow) -> str:
        return "" if r.rater == b else fmt(r.values.get(b))

    def tip(r: MatrixRow) -> str | None:
        if r.rater == b:
            return None
        return explain(r.records.get(b), f"{r.rater} and {b} were not compared")

    def background(r: MatrixRow) -> QColor | None:
        return None if r.rater == b else shade(r.values.get(b))

    return Column(b, text, tooltip=tip, background=background, align=ALIGN_RIGHT)


def matrix_columns(raters: list[str]) -> list[Column[MatrixRow]]:
    first: Column[MatrixRow] = Column("", lambda r: r.rater, bold=lambda r: True)
    return [first, *(_pair_column(b) for b in raters)]


def band_summary(rows: list[CodeRow]) -> str:
    """'5 good, 2 tentative, 1 low' over the codes shown."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[band_of(r.alpha)] = counts.get(band_of(r.alpha), 0) + 1
    order = (*BANDS, *(b + POINT_ONLY for b in (GOOD, TENTATIVE, LOW)), TOO_FEW, "undefined")
    return ", ".join(f"{counts[b]} {b}" for b in order if counts.get(b))


# -- diagnostics ---------------------------------------------------------------------------

@dataclass
class ConfusionRow:
    """One level of coder a: how many units b put at each level."""

    level: str
    counts: dict[str, int]
    top: int


def confusion_rows(frame: pd.DataFrame, code: str, a: str, b: str
                   ) -> tuple[list[str], list[ConfusionRow]]:
    """The levels and one row per level of ``a`` of the pair's confusion matrix."""
    part = frame[(frame["code"] == code) & (frame["coder_a"] == a) & (frame["coder_b"] == b)]
    levels = [str(v) for v in dict.fromkeys(part["value_a"])]
    top = int(part["n_units"].max()) if len(part) else 0
    rows = []
    for level in levels:
        cells = part[part["value_a"].astype(str) == level]
        rows.append(ConfusionRow(level, dict(zip(cells["value_b"].astype(str),
                                                 cells["n_units"].astype(int), strict=True)),
                                 top))
    return levels, rows


def confusion_columns(a: str, b: str, levels: list[str]) -> list[Column[ConfusionRow]]:
    def cell(level: str) -> Column[ConfusionRow]:
        return Column(level, lambda r: str(r.counts.get(level, 0)),
                      tooltip=lambda r: f"{r.counts.get(level, 0)} units: {a} gave {r.level}, "
                                        f"{b} gave {level}",
                      background=lambda r: shade(r.counts.get(level, 0) / r.top if r.top
                                                 else None),
                      align=ALIGN_RIGHT, bold=lambda r: r.level == level)

    first: Column[ConfusionRow] = Column(f"{a} ↓  {b} →", lambda r: r.level,
                                         bold=lambda r: True)
    return [first, *(cell(level) for level in levels)]


@dataclass
class CoderDiagRow:
    coder: str
    n_units: int
    bias: float | None
    agreement: list[float | None]
    difference: list[float | None]


def coder_diag_rows(bias: pd.DataFrame, drift: pd.DataFrame, code: str) -> list[CoderDiagRow]:
    rows = []
    for rec in bias[bias["code"] == code].itertuples(index=False):
        mine = drift[(drift["code"] == code) & (drift["coder"] == rec.coder)]
        rows.append(CoderDiagRow(
            str(rec.coder), int(rec.n_units),
            None if pd.isna(rec.mean_difference) else float(rec.mean_difference),
            [None if pd.isna(v) else float(v) for v in mine["agreement"]],
            [None if pd.isna(v) else float(v) for v in mine["mean_difference"]],
        ))
    return rows


def _series(values: list[float | None], signed: bool = False) -> str:
    return " → ".join(UNDEFINED_DASH if v is None else (f"{v:+.2f}" if signed else f"{v:.2f}")
                      for v in values)


UNDEFINED_DASH = "—"


def coder_diag_columns() -> list[Column[CoderDiagRow]]:
    return [
        Column("Coder", lambda r: r.coder, bold=lambda r: True),
        Column("Units", lambda r: str(r.n_units), align=ALIGN_RIGHT,
               header_tip="units the coder and at least one other coder rated"),
        Column("Mean difference", lambda r: UNDEFINED_DASH if r.bias is None
               else f"{r.bias:+.3f}", align=ALIGN_RIGHT,
               header_tip="the coder's value minus the mean of the others' on the same unit "
                          "(positive: rates higher); numeric scales only"),
        Column("Agreement by coding order", lambda r: _series(r.agreement),
               header_tip="share of agreeing pairs with the others, in up to five consecutive "
                          "blocks of the coder's units in the order they were last saved"),
        Column("Difference by coding order", lambda r: _series(r.difference, signed=True),
               header_tip="mean difference from the others in the same blocks"),
    ]
