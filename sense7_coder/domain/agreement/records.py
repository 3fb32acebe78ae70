"""One agreement figure with the counts behind it (:class:`AgreementRecord`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..agreement_settings import MIN_UNITS_DEFAULT
from ..measures import ALPHA, MEASURE_TABLE
from ..names import names_text

#: Rater name under which the users' own ratings take part in agreement figures.
USERS_RATER = "users"
#: Rater name of the reconciled consensus coding.
CONSENSUS_RATER = "consensus"

#: Measure names used in :attr:`AgreementRecord.measure`: the measures table's keys
MEASURES = tuple(m.key for m in MEASURE_TABLE)
#: ``level`` of the alpha on applicable versus not applicable
APPLICABILITY = "applicability"

#: Krippendorff's conventional thresholds: alpha >= .800 is good enough to rely on,
#: .667 <= alpha < .800 allows only tentative conclusions.
ALPHA_GOOD = 0.800
ALPHA_TENTATIVE = 0.667
#: Below this many units a figure is marked "too few units" (a project setting).
MIN_UNITS = MIN_UNITS_DEFAULT
TOO_FEW = "too few units"
#: the band of a figure against a consensus made of the same coders' majority
BY_CONSTRUCTION = "by construction"
#: an alpha's bands, read from its 95% interval (:func:`band_of_interval`)
GOOD = "good"
TENTATIVE = "tentative"
AT_LEAST_TENTATIVE = "at least tentative"
LOW = "low"
INCONCLUSIVE = "inconclusive"
BANDS = (GOOD, AT_LEAST_TENTATIVE, TENTATIVE, INCONCLUSIVE, LOW)
#: appended to a band read from the point estimate alone (no interval was computed)
POINT_ONLY = " (point)"
#: the rule, in the words the command line, the window and the methods paragraph use
BAND_RULE = (
    "a band is claimed only when the whole 95% interval lies in it: good when the interval's "
    "lower end is at least .800, tentative when it lies within .667 to .800, low when its "
    "upper end is below .667, at least tentative when it starts at .667 or above and reaches "
    "past .800, and inconclusive when it spans .667; without an interval the point estimate "
    "is read and the band is marked (point)"
)


def band_of_interval(low: float, high: float) -> str:
    """The band a 95% interval [low, high] of alpha supports (see :data:`BAND_RULE`)."""
    if low >= ALPHA_GOOD:
        return GOOD
    if low >= ALPHA_TENTATIVE:
        return TENTATIVE if high < ALPHA_GOOD else AT_LEAST_TENTATIVE
    if high < ALPHA_TENTATIVE:
        return LOW
    return INCONCLUSIVE


def band_hue(band: str) -> str:
    """The band whose colour a band is shown in: an interval reaching past .800 as
    tentative, one spanning .667 as undefined, a band read from the point as its own."""
    band = band.removesuffix(POINT_ONLY)
    return {AT_LEAST_TENTATIVE: TENTATIVE, INCONCLUSIVE: "undefined"}.get(band, band)


def band_of_point(value: float) -> str:
    """Krippendorff's reading of a point estimate alone (no interval)."""
    band = GOOD if value >= ALPHA_GOOD else TENTATIVE if value >= ALPHA_TENTATIVE else LOW
    return band + POINT_ONLY


@dataclass
class AgreementRecord:
    """One agreement figure for one code.

    ``value`` is ``None`` when the figure is undefined: no pairable units, or no
    variation at all so that chance agreement is perfect. Agreement over nothing is
    never reported as 1.0.

    ``n_units`` counts the units that entered the figure: *pairable* units, i.e.
    units holding values from at least two of the raters involved (for a pair: units
    both raters coded). ``n_values`` counts the values in those units.
    """

    code: str
    measure: str
    level: str | None
    weights: str | None
    coders: list[str]
    value: float | None
    n_units: int
    n_values: int
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = ""
    #: ICC form (ICC1 ... ICC3k); None for other measures
    form: str | None = None
    #: how the interval was made: 'percentile' or 'bca' ('' = no interval)
    ci_method: str = ""
    #: bootstrap draws and the draws in which the figure was undefined (left out)
    draws: int = 0
    undefined_draws: int = 0
    #: Hayes & Krippendorff's q: share of draws below .667 and .800 (alpha only)
    q_below_667: float | None = None
    q_below_800: float | None = None
    #: figures from fewer units than this read "too few units" instead of a band
    min_units: int = MIN_UNITS
    #: which coders' values entered: 'blind' (as set before the turn was revealed to the
    #: coder) or 'final' (with the changes made after the reveal); '' = not said
    values: str = ""
    #: a comparison with a consensus that is these coders' own majority: high (1 with two
    #: coders) by construction, not a measure of agreement
    by_construction: bool = False
    #: a caution every output prints with the figure (e.g. ICC1 read on a crossed design)
    warning: str = ""

    def set_interval(self, interval: Any, seed: int | None) -> None:
        """Take a bootstrap :class:`~.bootstrap.Interval` (ends, method, draws, q)."""
        self.ci_low, self.ci_high = interval.low, interval.high
        self.ci_method = interval.method
        self.draws, self.undefined_draws = interval.draws, interval.undefined_draws
        self.q_below_667 = interval.q_below.get(0.667)
        self.q_below_800 = interval.q_below.get(0.8)
        description = interval.describe(seed)
        self.note = f"{self.note}; {description}" if self.note else description

    def band(self) -> str:
        """Krippendorff's reading of an alpha, from its 95% interval (see
        :data:`BAND_RULE`): 'good', 'tentative', 'at least tentative', 'low' or
        'inconclusive'; without an interval the point's band marked ' (point)';
        'undefined' without a value; 'too few units' for any defined figure from fewer
        than ``min_units`` units.

        Only alpha has the conventional bands; other measures answer 'undefined' when
        they have no value and '' otherwise.
        """
        if self.value is None:
            return "undefined"
        if self.by_construction:
            return BY_CONSTRUCTION
        if self.n_units < self.min_units:
            return TOO_FEW
        if self.measure != ALPHA:
            return ""
        if self.ci_low is None or self.ci_high is None:
            return band_of_point(self.value)
        return band_of_interval(self.ci_low, self.ci_high)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready): every field plus ``band``."""
        data = asdict(self)
        data["coders"] = list(self.coders)
        data["band"] = self.band()
        return data


#: pairwise figures (Cohen's kappa of every pair, the pairs' confusion matrices) are
#: computed for at most this many coders: 50 make 1,225 pairs (about 5 s a code with
#: 1,000 bootstrap draws); a crowd of 3,000 workers makes 4.5 million, each with its
#: interval (a job that did not end)
MAX_PAIR_CODERS = 50


def too_many_pairs(coders: Sequence[str]) -> str | None:
    """Why the pairwise figures of ``coders`` are left out (None when they are not)."""
    n = len(coders)
    if n <= MAX_PAIR_CODERS:
        return None
    return (f"pairwise figures left out: {n:,} coders make {n * (n - 1) // 2:,} pairs "
            f"(more than {MAX_PAIR_CODERS} coders); alpha, AC1 and Brennan–Prediger cover "
            f"every coder - choose at most {MAX_PAIR_CODERS} coders for Cohen's kappa "
            "per pair")


def raters_text(raters: Sequence[str]) -> str:
    """The raters' names for a table cell (see :func:`..names.names_text`)."""
    return names_text(raters, "raters")


def undefined(
    code: str,
    measure: str,
    coders: list[str],
    note: str,
    *,
    level: str | None = None,
    weights: str | None = None,
    n_units: int = 0,
    n_values: int = 0,
) -> AgreementRecord:
    """A record whose value is undefined, with the reason in ``note``."""
    return AgreementRecord(
        code=code,
        measure=measure,
        level=level,
        weights=weights,
        coders=list(coders),
        value=None,
        n_units=n_units,
        n_values=n_values,
        note=note,
    )
