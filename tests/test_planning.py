"""Planning: units needed for alpha's interval to clear a threshold with a stated
probability (seeded simulation), beside Krippendorff's published minimum sample sizes."""

from __future__ import annotations

import pytest

from sense7_coder.cli import main
from sense7_coder.domain.agreement.planning import (
    MIN_UNITS,
    Plan,
    clears,
    krippendorff_minimum,
    units_needed,
)


def test_the_published_minimums_are_reproduced() -> None:
    # Krippendorff (2019), after Bloch & Kraemer (1989, eq. 3.7): two coders, p = .05,
    # four equally frequent values (pc = .25)
    assert krippendorff_minimum(0.800, 0.05, 0.25) == 139
    assert krippendorff_minimum(0.667, 0.05, 0.25) == 81
    assert krippendorff_minimum(0.800, 0.05, 0.5) < 139  # a rarer value needs more


def test_more_units_clear_more_often_and_the_plan_is_seeded() -> None:
    plan = Plan(0.667, 0.85, 2, 3, 0.8, studies=60, draws=200, seed=3)
    shares = [clears(n, plan) for n in (20, 80, 240)]
    assert shares[0] < shares[1] < shares[2] and shares[2] > 0.8
    a = units_needed(0.667, 0.85, levels=3, studies=40, draws=150, seed=1)
    b = units_needed(0.667, 0.85, levels=3, studies=40, draws=150, seed=1)
    assert a.units == b.units and a.units is not None and a.units >= MIN_UNITS
    assert a.tried[a.units] >= 0.8
    # a stricter threshold at the same expected alpha needs more units
    stricter = units_needed(0.75, 0.85, levels=3, studies=40, draws=150, seed=1)
    assert stricter.units is not None and stricter.units > a.units


def test_refusals_and_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="must lie above the threshold"):
        units_needed(0.8, 0.8)
    assert main(["plan", "--threshold", ".667", "--expected", ".85", "--levels", "3",
                 "--studies", "30", "--draws", "100"]) == 0
    out = capsys.readouterr().out
    assert "units: alpha's 95% interval (BCa below 100 units, percentile from 100)" in out
    assert "Krippendorff (2019, after Bloch & Kraemer 1989)" in out
    assert main(["plan", "--threshold", ".9", "--expected", ".8"]) == 2
    assert "must lie above the threshold" in capsys.readouterr().err
