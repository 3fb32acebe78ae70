"""A consensus made of the coders' own majority: agreement with it is high by construction.

A consensus value accepted as the coders' majority (``source`` 'majority') says what most
of the coders said, so each of them agrees with it by construction (1 with two coders).
Every figure of a coder against such a consensus is flagged and says so in its note,
wherever a report is built (:func:`.report.agreement_report`, the reconciliation's coders
against the consensus).
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from .records import CONSENSUS_RATER, AgreementRecord

#: the note of a figure against a consensus that is the coders' own majority
BY_CONSTRUCTION_NOTE = ("the consensus is these coders' own majority, accepted: agreement "
                        "with it is high by construction (1 with two coders), not a measure "
                        "of agreement")


def majority_codes(consensus: pd.DataFrame) -> set[str]:
    """Codes whose every consensus value (in ``consensus``: code, source, ...) is the
    coders' majority, accepted as it stood."""
    if consensus.empty or "source" not in consensus.columns:
        return set()
    is_majority = consensus["source"].astype(object) == "majority"
    by_code = is_majority.groupby(consensus["code"].astype(str).to_numpy()).all()
    return {str(code) for code, every in by_code.items() if every}


def mark_by_construction(records: Iterable[AgreementRecord], codes: Iterable[str]) -> None:
    """Flag each of ``records`` (of ``codes``, whose consensus is the coders' majority) that
    compares a rater with the consensus, with the note saying why."""
    codes = set(codes)
    for record in records:
        if record.code in codes and CONSENSUS_RATER in record.coders and len(record.coders) > 1:
            record.by_construction = True
            record.note = (f"{BY_CONSTRUCTION_NOTE}; {record.note}" if record.note
                           else BY_CONSTRUCTION_NOTE)
