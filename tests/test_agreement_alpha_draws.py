"""Alpha's bootstrap as weighted sums gives the per-draw path's intervals, fast."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sense7_coder.domain.agreement import code_agreement
from sense7_coder.domain.agreement.alpha_draws import bootstrap_alpha
from sense7_coder.domain.agreement.bootstrap import Interval, bootstrap_alpha_per_draw
from sense7_coder.domain.agreement.progress import Steps
from sense7_coder.domain.errors import Cancelled

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def random_counts(rng: np.random.Generator, n_levels: int, units: int, coders: int,
                  missing: float, skew: float) -> np.ndarray:
    """Pairable units x levels counts of a random design with missing values; ``skew``
    near 1 makes most values the first level (draws without variation occur)."""
    p = np.full(n_levels, (1 - skew) / n_levels)
    p[0] += skew
    data = rng.choice(n_levels, size=(units, coders), p=p).astype(float)
    data[rng.random(data.shape) < missing] = np.nan
    counts = np.stack([(data == k).sum(axis=1) for k in range(n_levels)], axis=1)
    return counts[counts.sum(axis=1) >= 2]


def assert_same(fast: Interval, slow: Interval) -> None:
    assert fast.draws == slow.draws
    assert fast.undefined_draws == slow.undefined_draws
    assert fast.fallback == slow.fallback
    for a, b in ((fast.low, slow.low), (fast.high, slow.high)):
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert abs(a - b) <= 1e-12
    assert fast.q_below.keys() == slow.q_below.keys()
    for m in fast.q_below:
        assert fast.q_below[m] == pytest.approx(slow.q_below[m], abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_weighted_sums_give_the_per_draw_interval_for_the_same_seed(level: str,
                                                                    method: str) -> None:
    rng = np.random.default_rng(LEVELS.index(level) * 10 + len(method))
    tried = undefined = 0
    for trial in range(12):
        n_levels = int(rng.integers(2, 7))
        # unequally spaced level values; text levels for nominal alpha now and then
        domain: np.ndarray = np.sort(rng.choice(np.arange(1, 40), n_levels, replace=False)
                                     ).astype(float)
        if level == "nominal" and trial % 3 == 0:
            domain = np.asarray([f"L{i}" for i in range(n_levels)], dtype=object)
        counts = random_counts(rng, n_levels, units=int(rng.integers(2, 80)),
                               coders=int(rng.integers(2, 7)), missing=0.35,
                               skew=0.9 if trial % 4 == 0 else 0.0)
        if counts.shape[0] == 0:
            continue
        seed = int(rng.integers(0, 1_000))
        estimate = float(rng.uniform(-0.2, 0.9))
        fast = bootstrap_alpha(counts, domain, level, draws=300, seed=seed, steps=Steps(301),
                               method=method, estimate=estimate)
        slow = bootstrap_alpha_per_draw(counts, domain, level, draws=300, seed=seed,
                                        steps=Steps(301), method=method, estimate=estimate)
        assert_same(fast, slow)
        tried += 1
        undefined += fast.undefined_draws > 0
    assert tried >= 10
    assert undefined >= 1  # designs where some draws have no variation were among them


def test_units_in_any_order_and_a_single_unit() -> None:
    rng = np.random.default_rng(5)
    counts = random_counts(rng, 4, units=60, coders=4, missing=0.2, skew=0.0)
    domain = np.arange(1.0, 5.0)
    first = bootstrap_alpha(counts, domain, "ordinal", draws=200, seed=3, steps=Steps(201),
                            method="bca", estimate=0.1)
    shuffled = bootstrap_alpha(counts[rng.permutation(len(counts))], domain, "ordinal",
                               draws=200, seed=3, steps=Steps(201), method="bca",
                               estimate=0.1)
    assert (first.low, first.high) == (shuffled.low, shuffled.high)
    one = np.array([[1, 1, 0, 0]])
    assert_same(
        bootstrap_alpha(one, domain, "interval", draws=50, seed=1, steps=Steps(51),
                        method="bca", estimate=0.0),
        bootstrap_alpha_per_draw(one, domain, "interval", draws=50, seed=1, steps=Steps(51),
                                 method="bca", estimate=0.0),
    )


def big_frame(units: int, coders: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, units)
    values = np.clip(truth[:, None] + rng.integers(-1, 2, (units, coders))
                     * (rng.random((units, coders)) < 0.4), 1, 5).astype(float)
    values[rng.random(values.shape) < 0.1] = np.nan
    return pd.DataFrame({"unit": np.repeat(np.arange(units), coders),
                         "coder": np.tile([f"c{i}" for i in range(coders)], units),
                         "value": values.ravel()})


def test_thousand_draws_over_a_hundred_thousand_units_report_progress_and_cancel() -> None:
    frame = big_frame(100_000, 3, seed=2)
    seen: list[tuple[int, int]] = []
    records = code_agreement(frame, code="c", kind="ordinal", scale=[1, 2, 3, 4, 5],
                             bootstrap=1000, ci="bca",
                             progress=lambda done, total: seen.append((done, total)))
    alpha = next(r for r in records if r.measure == "krippendorff_alpha")
    assert alpha.value is not None and alpha.ci_low is not None and alpha.ci_high is not None
    assert alpha.ci_low < alpha.value < alpha.ci_high
    assert seen[-1] == (1001, 1001)
    assert len(seen) > 100  # reported as the draws go, not once at the end
    asked: list[int] = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 150  # the user presses Cancel during the draws

    with pytest.raises(Cancelled):
        code_agreement(frame, code="c", kind="ordinal", scale=[1, 2, 3, 4, 5],
                       bootstrap=1000, cancel=cancel)
    assert len(asked) == 151


def test_chunks_of_any_size_give_the_same_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    from sense7_coder.domain.agreement import alpha_draws

    rng = np.random.default_rng(8)
    counts = random_counts(rng, 5, units=70, coders=6, missing=0.3, skew=0.0)
    domain = np.arange(1.0, 6.0)
    whole = bootstrap_alpha(counts, domain, "ordinal", draws=101, seed=2, steps=Steps(102),
                            method="bca", estimate=0.05)
    # a few draws and patterns at a time, as on very many distinct units
    monkeypatch.setattr(alpha_draws, "CHUNK_CELLS", 7 * len(np.unique(counts, axis=0)))
    monkeypatch.setattr(alpha_draws, "JACKKNIFE_CHUNK", 3)
    chunked = bootstrap_alpha(counts, domain, "ordinal", draws=101, seed=2, steps=Steps(102),
                              method="bca", estimate=0.05)
    assert_same(chunked, bootstrap_alpha_per_draw(counts, domain, "ordinal", draws=101, seed=2,
                                                  steps=Steps(102), method="bca",
                                                  estimate=0.05))
    assert_same(chunked, whole)
