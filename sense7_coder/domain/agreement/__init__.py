"""Inter-rater agreement for coded conversations (pure domain: pandas, numpy, scipy,
krippendorff; no Qt, no SQL).

Input: one tidy long table per code with columns ``unit``, ``coder``, ``value``
(NaN/None = no value). The users' own ratings take part as the rater ``'users'``
(:data:`USERS_RATER`), the consensus as ``'consensus'`` (:data:`CONSENSUS_RATER`).

Definitions used throughout:

* a unit is *pairable* when at least two of the raters involved gave it a value; only
  pairable units enter a figure, and ``n_units`` / ``n_values`` count them and their
  values;
* a figure over no pairable unit, or with no variation at all, is undefined (None),
  never 1.0;
* category sets, kappa weights and alpha's value domain come from the code's
  *declared* scale, not from the levels that happened to be used.

Modules: :mod:`.alpha`, :mod:`.kappa` (with :mod:`.pairs_bootstrap`), :mod:`.chance`
(Gwet's AC1/AC2, Brennan–Prediger, Fleiss in Gwet's form, weighted alpha), :mod:`.icc`,
:mod:`.bootstrap` (percentile and BCa
intervals, Hayes & Krippendorff's q), :mod:`.diagnostics` (confusion, bias, drift),
:mod:`.methods` (the methods paragraph).
"""

from ..measures import (
    ALPHA,
    BRENNAN_PREDIGER,
    COHEN,
    FLEISS,
    GWET_AC1,
    GWET_AC2,
    ICC,
    PERCENT,
    SPEARMAN,
)
from .alpha import LEVELS, resolve_level
from .engine import applicability_record, code_agreement
from .kappa import WEIGHTS
from .records import (
    APPLICABILITY,
    CONSENSUS_RATER,
    MEASURES,
    TOO_FEW,
    USERS_RATER,
    AgreementRecord,
)
from .reference import rater_vs_reference
from .report import AgreementReport, CodeFrameSpec, agreement_report, pairwise_matrix

__all__ = [
    "ALPHA",
    "APPLICABILITY",
    "BRENNAN_PREDIGER",
    "COHEN",
    "CONSENSUS_RATER",
    "FLEISS",
    "GWET_AC1",
    "GWET_AC2",
    "ICC",
    "LEVELS",
    "MEASURES",
    "PERCENT",
    "SPEARMAN",
    "TOO_FEW",
    "USERS_RATER",
    "WEIGHTS",
    "AgreementRecord",
    "AgreementReport",
    "CodeFrameSpec",
    "agreement_report",
    "applicability_record",
    "code_agreement",
    "pairwise_matrix",
    "rater_vs_reference",
    "resolve_level",
]
