"""How many units a round or a reliability subsample needs: the smallest number of units for
which alpha's 95% interval -- made as every output makes it (:data:`.bootstrap.CI_METHODS`'s
``auto``: BCa below 100 units, percentile from 100) -- has its lower end at or above a
threshold with a stated probability, when the coders' true alpha is as expected.

The simulation (seeded, :func:`units_needed`): each unit has a true value, drawn evenly from
the code's ``k`` levels; each of the ``m`` coders gives it with probability ``r`` and
otherwise a level drawn evenly (which may be the true one). Nominal alpha of this model is
``r**2`` (the observed disagreement is ``(1 - r**2)(1 - 1/k)``, the expected ``1 - 1/k``), so
``r = sqrt(expected alpha)``. For each number of units, ``studies`` simulated studies are
coded and the share whose interval's lower end reaches the threshold is the probability;
the search doubles the number of units, then bisects.

Krippendorff's published minimum (:func:`krippendorff_minimum`; Krippendorff 2019, after
Bloch & Kraemer 1989, eq. 3.7, for two coders and the least frequent value's share ``pc``)
answers another question: the values needed for alpha to be told from ``alpha_min`` at a
level of significance, not the units for an interval to clear it with a probability. Both
are printed; VALIDATION.md shows that they do not agree (the plan asks for several times the
units) and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .alpha import alpha_from_counts, value_domain
from .alpha_draws import bootstrap_alpha
from .progress import Steps

#: where the search stops looking
MAX_UNITS = 2000
#: the fewest units a plan gives (see :func:`units_needed`)
MIN_UNITS = 20


@dataclass
class Plan:
    threshold: float
    expected: float
    coders: int
    levels: int
    probability: float
    studies: int
    draws: int
    seed: int
    #: the units found (None: not within MAX_UNITS)
    units: int | None = None
    #: units tried -> share of studies whose interval's lower end reached the threshold
    tried: dict[int, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"threshold": self.threshold, "expected_alpha": self.expected,
                "coders": self.coders, "levels": self.levels,
                "probability": self.probability, "studies": self.studies,
                "draws": self.draws, "seed": self.seed, "units": self.units,
                "tried": {str(k): v for k, v in sorted(self.tried.items())}}


def _study(rng: np.random.Generator, n: int, m: int, k: int, r: float) -> np.ndarray:
    """Counts (units x levels) of one simulated study."""
    truth = rng.integers(0, k, size=(n, 1))
    noise = rng.integers(0, k, size=(n, m))
    values = np.where(rng.random((n, m)) < r, truth, noise)
    return np.stack([(values == j).sum(axis=1) for j in range(k)], axis=1)


def clears(n: int, plan: Plan) -> float:
    """The share of ``plan.studies`` simulated studies of ``n`` units whose interval's lower
    end reaches the threshold (undefined alpha counts as not reaching it)."""
    rng = np.random.default_rng([plan.seed, n])
    domain = value_domain(list(range(plan.levels)), "nominal")
    r = math.sqrt(plan.expected)
    hits = 0
    for s in range(plan.studies):
        counts = _study(rng, n, plan.coders, plan.levels, r)
        estimate = alpha_from_counts(counts, domain, "nominal")
        if estimate is None:
            continue
        interval = bootstrap_alpha(counts, domain, "nominal", draws=plan.draws,
                                   seed=plan.seed + s, steps=Steps(plan.draws, None, None),
                                   method="auto", estimate=estimate)
        hits += interval.low is not None and interval.low >= plan.threshold
    return hits / plan.studies


def units_needed(threshold: float, expected: float, *, coders: int = 2, levels: int = 2,
                 probability: float = 0.8, studies: int = 200, draws: int = 500,
                 seed: int = 0) -> Plan:
    """The smallest number of units (of those tried) with which the interval's lower end
    reaches ``threshold`` in at least ``probability`` of the studies (see the module notes)."""
    if not 0 < threshold < expected <= 1:
        raise ValueError(f"the expected alpha ({expected}) must lie above the threshold "
                         f"({threshold}), which lies above 0: an interval cannot be expected "
                         "to clear a threshold the coders' true alpha does not")
    if coders < 2 or levels < 2 or not 0 < probability < 1:
        raise ValueError("two coders or more, two levels or more and a probability between "
                         "0 and 1 are needed")
    plan = Plan(threshold, expected, coders, levels, probability, studies, draws, seed)

    def ok(n: int) -> bool:
        if n not in plan.tried:
            plan.tried[n] = clears(n, plan)
        return plan.tried[n] >= probability

    # from 20 units: below, a sample in which every unit happens to agree gives an
    # interval at 1, so the share clearing the threshold is not monotone in the units there
    low, high = MIN_UNITS // 2, MIN_UNITS
    while not ok(high):
        low = high
        high *= 2
        if high > MAX_UNITS:
            return plan
    while high - low > max(1, high // 20):  # to within 5%
        mid = (low + high) // 2
        if ok(mid):
            high = mid
        else:
            low = mid
    plan.units = high
    return plan


def krippendorff_minimum(alpha_min: float, p: float, pc: float) -> int:
    """Krippendorff's (2019) minimum number of values for two coders, after Bloch and
    Kraemer (1989, eq. 3.7): ``2 z**2 ((1 + a)(3 - a) / (4 (1 - a) pc (1 - pc)) - a)``,
    ``z`` the one-sided normal quantile of ``p`` and ``pc`` the least frequent value's share.
    Reproduces the published 139 (a = .800, p = .05, pc = .25) and 81 (a = .667)."""
    from scipy.stats import norm

    z = float(norm.ppf(1 - p))
    a = alpha_min
    inner = (1 + a) * (3 - a) / (4 * (1 - a) * pc * (1 - pc)) - a
    return math.ceil(2 * z * z * inner - 1e-9)
