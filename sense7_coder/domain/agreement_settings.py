"""What an agreement computes beyond the selection, and the one place of its choices,
defaults and limits.

The command line (``agreement``, ``export --kind agreement``: argparse choices and
defaults), the window (the agreement panel's and the export dialog's spin boxes and lists)
and the project's checks read these names; none writes a number or a list of its own.
Pure Python and light: the command line reads it while building its parser, before any
heavy library is imported (``tests/test_startup.py``), so the agreement package's modules
import their lists from here rather than the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass

#: alpha's levels of measurement (``level`` overrides an ordinal code's own)
LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: the bootstrap interval's methods: 'auto' is BCa below :data:`BCA_BELOW_UNITS` units and
#: percentile from there on
CI_METHODS = ("auto", "percentile", "bca")
CI_DEFAULT = "auto"
#: an interval's method in a narrow column or after the interval (F and GCI: the ICCs')
CI_SHORT = {"bca": "BCa", "percentile": "pct.", "F": "F", "GCI": "GCI"}


def interval_short(low: float | None, high: float | None, method: str | None,
                   missing: str = "-") -> str:
    """'[0.612, 0.801] BCa' (``missing`` when there is no interval)."""
    if low is None or high is None:
        return missing
    return f"[{low:.3f}, {high:.3f}] {CI_SHORT.get(method or '', method or '')}".rstrip()
#: ``auto`` uses BCa for intervals over fewer units than this, percentile from there on
BCA_BELOW_UNITS = 100
#: what weighted kappa's weights can be built on: the levels' positions or their values
KAPPA_BASES = ("positions", "values")
KAPPA_BASIS_DEFAULT = "positions"
#: what a report computes: every figure, or Krippendorff's alpha alone (the coders' alpha
#: and each rater's alpha against each reference)
MEASURES = ("all", "alpha")
MEASURES_DEFAULT = "all"
#: which of the coders' values a selection reads: 'blind', as set before the turn was
#: revealed to them; 'final', with the changes made after the reveal
VALUES = ("blind", "final")
VALUES_DEFAULT = "blind"

#: bootstrap draws of a run unless asked otherwise
DRAWS_DEFAULT = 1000
#: the most bootstrap draws a run takes, from the command line and the window alike (the
#: window stopped at 20,000 while the command line took 100,000; the higher one was kept so
#: that no command that ran before is refused now). 100,000 draws over one code take some
#: seconds with progress and Cancel, and put the Monte Carlo error of a 95% interval's ends
#: far below the third decimal printed; a hundred million took hours over a codebook.
DRAWS_MAX = 100_000
#: the bootstrap seed unless asked otherwise
SEED_DEFAULT = 0
#: the highest seed the window offers (its spin box holds a 32-bit integer); the command
#: line takes any seed from 0 up, as numpy does
SEED_MAX = 2**31 - 1
#: figures over fewer units than this read "too few units" (the project's setting holds
#: another number when set)
MIN_UNITS_DEFAULT = 10
#: the highest such number the window offers
MIN_UNITS_MAX = 100_000


@dataclass(frozen=True)
class AgreementSettings:
    """How to compute agreement over a selection (the selection itself, codes, coders,
    conversations and the raters joined, is :class:`sense7_coder.project.selection.Selection`).

    ``level`` overrides the level of measurement of every ordinal code (nominal and binary
    codes always stay nominal; ratio is refused on a scale with a level at or below zero).
    ``ci`` is the interval method (:data:`CI_METHODS`); ``min_units`` the number of units
    below which a figure reads "too few units" (None: the project's setting, default
    :data:`MIN_UNITS_DEFAULT`). ``measures`` is 'all' (every figure and the diagnostics
    tables) or 'alpha' (Krippendorff's alpha alone: the coders', each code's applicability
    alpha and each rater's against the users and the consensus; no diagnostics), the same
    alpha values either way. ``kappa_weights`` builds weighted kappa's weights on the
    levels' 'positions' (equal steps) or their 'values' (numeric levels; as AC2, alpha and
    ICC).
    """

    level: str | None = None
    bootstrap: int = DRAWS_DEFAULT
    seed: int | None = SEED_DEFAULT
    ci: str = CI_DEFAULT
    min_units: int | None = None
    measures: str = MEASURES_DEFAULT
    kappa_weights: str = KAPPA_BASIS_DEFAULT

    def refusal(self) -> str | None:
        """Why no run can use these settings, in one sentence (None: they are fine)."""
        if self.level is not None and self.level not in LEVELS:
            return f"level must be one of {', '.join(LEVELS)}, got {self.level!r}"
        if self.kappa_weights not in KAPPA_BASES:
            return (f"kappa weights must be on one of {', '.join(KAPPA_BASES)}, got "
                    f"{self.kappa_weights!r}")
        if self.measures not in MEASURES:
            return f"measures must be one of {', '.join(MEASURES)}, got {self.measures!r}"
        draws = draws_refusal(self.bootstrap, self.seed)
        if draws:
            return draws
        if self.ci not in CI_METHODS:
            return (f"the interval method must be one of {', '.join(CI_METHODS)}, "
                    f"got {self.ci!r}")
        if self.min_units is not None and self.min_units < 1:
            return f"the minimum number of units must be 1 or more, got {self.min_units}"
        return None


def draws_refusal(draws: int, seed: int | None) -> str | None:
    """Why no run can take ``draws`` bootstrap draws with ``seed`` (None: it can)."""
    if draws < 0:
        return "the number of bootstrap draws cannot be negative"
    if draws > DRAWS_MAX:
        return f"at most {DRAWS_MAX:,} bootstrap draws are taken, got {draws:,}"
    if seed is not None and seed < 0:
        return f"the bootstrap seed must be 0 or more, got {seed}"
    return None
