"""Tables of the reconciliation window: the queue, the coders' values, coders vs consensus."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QColor

from ...domain.agreement import AgreementRecord, AgreementReport
from ...domain.codebook.codes import Code, Codebook
from ...domain.names import MOST_LISTED
from ...project.cells import ConsensusCell
from ...project.reconcile import Disagreement
from ...project.workspace import level_counts, value_text
from .report_rows import alpha_pivot, band_of, explain, fmt
from .table_model import ALIGN_CENTER, ALIGN_RIGHT, Column, band_colour


def queue_key(d: Disagreement) -> tuple[str, int, int, str]:
    """(conversation, turn, sentence, code): what a decision is stored under."""
    return (d.unit.conversation_id, d.unit.position, d.unit.sentence, d.code)


def apply_decisions(queue: Sequence[Disagreement],
                    changes: Sequence[tuple[tuple[str, int, int, str], Any]]
                    ) -> tuple[list[Disagreement], int]:
    """Set the decisions of ``changes`` ((key, decision or None)) on the queued units.

    Returns the units whose decision changed and how many of them were open before and are
    decided now.
    """
    by_key = {queue_key(d): d for d in queue}
    touched, newly = [], 0
    for key, decision in changes:
        d = by_key.get(key)
        if d is not None and not ConsensusCell.same(d.consensus, decision):
            newly += not d.decided and decision is not None
            d.consensus = decision
            touched.append(d)
    return touched, newly


def where_text(d: Disagreement) -> str:
    """'turn 4', 'turn 4, sentence 2' or 'whole conversation'."""
    u = d.unit
    if u.position == 0:
        return "whole conversation"
    return f"turn {u.position}" + (f", sentence {u.sentence}" if u.sentence else "")


#: a tooltip lists up to this many coders' values; more (a crowd) are counted by level
TIP_LISTED = 20


def values_text(code: Code | None, values: dict[str, Any]) -> str:
    """The coders' values of a unit: each (coders in name order), or for a crowd how many
    gave each level (3,000 values made a line no one reads)."""
    if len(values) <= MOST_LISTED:
        return "  ".join(value_text(code, v) for v in values.values())
    return "  ".join(f"{t}×{n:,}" for t, n in level_counts(code, values.values()))


def values_tip(code: Code | None, values: dict[str, Any]) -> str:
    """Each coder's value, or for a crowd the counts and how many coders."""
    if len(values) <= TIP_LISTED:
        return "\n".join(f"{c}: {long_value(code, v)}" for c, v in values.items())
    return "\n".join([f"{len(values):,} coders", *(f"{t}: {n:,}" for t, n in
                                                   level_counts(code, values.values()))])


def long_value(code: Code | None, value: Any) -> str:
    """'4 good', 'advice', 'not applicable'."""
    if value is None:
        return "not applicable"
    if code is None:
        return str(value)
    label = code.level_label(value)
    return f"{value} {label}" if code.kind == "ordinal" and label != str(value) else label


def apart_text(d: Disagreement, code: Code | None) -> str:
    if code is not None and code.kind == "ordinal":
        steps = int(d.spread)
        if steps == 0:
            return "n/a vs a value"
        return f"{steps} step{'s' if steps != 1 else ''}"
    return f"{d.distinct} values"


def decision_text(d: Disagreement, code: Code | None) -> str:
    if d.consensus is not None:
        return "✓ " + value_text(code, d.consensus.get("value"))
    if d.has_majority:
        return "open · majority " + value_text(code, d.majority)
    return "open"


def decision_tip(d: Disagreement, code: Code | None) -> str:
    c = d.consensus
    if c is None:
        return "Not decided yet"
    lines = [f"Decided {long_value(code, c.get('value'))} by {c.get('adjudicator') or '?'}"]
    if c.get("rationale"):
        lines.append(f"Rationale: {c['rationale']}")
    if c.get("decided_at"):
        lines.append(str(c["decided_at"]))
    return "\n".join(lines)


def _label(code: Code | None, key: str) -> str:
    return code.label if code is not None else key


def queue_columns(codebook: Codebook) -> list[Column[Disagreement]]:
    def code_of(d: Disagreement) -> Code | None:
        return codebook.get(d.code)

    return [
        Column("Code", lambda d: _label(code_of(d), d.code),
               tooltip=lambda d: d.code),
        Column("Conv.", lambda d: d.unit.conversation_id, header_tip="conversation id"),
        Column("Where", where_text),
        Column("Values", lambda d: values_text(code_of(d), d.values),
               tooltip=lambda d: values_tip(code_of(d), d.values),
               header_tip="the coders' values, coders in name order (n/a = not applicable)"),
        Column("Apart", lambda d: apart_text(d, code_of(d)), align=ALIGN_RIGHT,
               header_tip="how far apart the coders are: scale steps between the lowest and "
                          "highest value (ordinal codes), else the number of distinct values"),
        Column("Decision", lambda d: decision_text(d, code_of(d)),
               tooltip=lambda d: decision_tip(d, code_of(d)),
               background=lambda d: band_colour("good", 0.14) if d.decided else None,
               bold=lambda d: d.decided),
    ]


@dataclass
class CoderValue:
    coder: str
    value: Any
    text: str
    memo: str
    agrees: bool  # with the decision
    #: the coder's rationale for this value ('' = none)
    rationale: str = ""


def coder_values(d: Disagreement, code: Code | None) -> list[CoderValue]:
    decided = d.consensus.get("value") if d.consensus else object()
    return [CoderValue(c, v, long_value(code, v), d.memos.get(c, ""), v == decided,
                       d.rationales.get(c, "")) for c, v in d.values.items()]


def coder_value_columns() -> list[Column[CoderValue]]:
    return [
        Column("Coder", lambda r: r.coder, bold=lambda r: True),
        Column("Value", lambda r: r.text,
               background=lambda r: band_colour("good", 0.14) if r.agrees else None),
        Column("Rationale", lambda r: r.rationale or "—", tooltip=lambda r: r.rationale or None,
               header_tip="why the coder gave this value (written in the code row with Ctrl+R)"),
        Column("Memo", lambda r: r.memo.replace("\n", " ") or "—", tooltip=lambda r: r.memo or None),
    ]


@dataclass
class PivotRow:
    code: str
    label: str
    cells: dict[str, AgreementRecord]


def consensus_pivot(report: AgreementReport, labels: dict[str, str]
                    ) -> tuple[list[str], list[PivotRow]]:
    """(coders, one row per code) of each coder's alpha with the consensus."""
    codes, raters, cells = alpha_pivot(report)
    rows = [PivotRow(c, labels.get(c, c), {r: cells[(c, r)] for r in raters if (c, r) in cells})
            for c in codes]
    return raters, rows


def _coder_column(name: str) -> Column[PivotRow]:
    def text(r: PivotRow) -> str:
        rec = r.cells.get(name)
        return "" if rec is None else f"{fmt(rec.value)}  ({rec.n_units})"

    def tip(r: PivotRow) -> str:
        return explain(r.cells.get(name), f"{name} rated none of the decided units")

    def background(r: PivotRow) -> QColor | None:
        rec = r.cells.get(name)
        return None if rec is None else band_colour(band_of(rec))

    return Column(name, text, tooltip=tip, background=background, align=ALIGN_CENTER)


def pivot_columns(raters: list[str]) -> list[Column[PivotRow]]:
    first: Column[PivotRow] = Column("Code", lambda r: r.label)
    return [first, *(_coder_column(n) for n in raters)]
