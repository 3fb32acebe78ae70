"""Scott's pi (Scott 1955) of two coders: against values worked by hand here, against
Krippendorff's alpha and Fleiss' kappa where theory says they meet, and undefined, saying
why, with more than two coders."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from sense7_coder.domain.agreement import ALPHA, FLEISS, code_agreement
from sense7_coder.domain.measures import SCOTT_PI

#: two coders, ten units, three categories (1 = A, 2 = B, 3 = C): seven units agree; the
#: twenty values are 8 A, 7 B and 5 C
TEN_UNITS = [(1, 1), (1, 1), (1, 2), (2, 2), (2, 2), (2, 3), (3, 3), (1, 1), (2, 1), (3, 3)]


def scotts_pi(pairs: list[tuple[int, int]]) -> Fraction:
    """Scott's pi written out: observed agreement against the squared shares of the
    categories pooled over both coders."""
    n = len(pairs)
    po = Fraction(sum(a == b for a, b in pairs), n)
    pooled = [a for a, _ in pairs] + [b for _, b in pairs]
    pe = sum(Fraction(pooled.count(k), 2 * n) ** 2 for k in set(pooled))
    return (po - pe) / (1 - pe)


def frame(pairs: list[tuple[int | None, ...]], coders: tuple[str, ...] = ("ann", "ben")
          ) -> pd.DataFrame:
    return pd.DataFrame([(u, c, v) for u, values in enumerate(pairs)
                         for c, v in zip(coders, values, strict=True) if v is not None],
                        columns=["unit", "coder", "value"])


def figure(data: pd.DataFrame, measure: str = SCOTT_PI, bootstrap: int = 0,
           kind: str = "nominal", scale: tuple[int, ...] = (1, 2, 3)):  # type: ignore[no-untyped-def]
    records = code_agreement(data, code="c", kind=kind, scale=list(scale), bootstrap=bootstrap,
                             seed=3)
    return next(r for r in records if r.measure == measure)


def test_the_hand_worked_example() -> None:
    """po = .7; pooled shares .40, .35, .25 give pe = .345; pi = .355 / .655 = 71/131."""
    assert scotts_pi(TEN_UNITS) == Fraction(71, 131)
    record = figure(frame(TEN_UNITS))
    assert record.value == pytest.approx(71 / 131, abs=1e-12)
    assert (record.n_units, record.n_values, record.coders) == (10, 20, ["ann", "ben"])


def test_a_three_by_three_table_below_chance() -> None:
    """45 units in a 3 x 3 table [[1, 2, 3], [4, 5, 6], [7, 8, 9]]: agreement 15/45 under
    a pooled chance of 2988/8100, so pi = -4/71."""
    table = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    pairs = [(a + 1, b + 1) for a in range(3) for b in range(3) for _ in range(table[a][b])]
    assert scotts_pi(pairs) == Fraction(-4, 71)
    assert figure(frame(pairs)).value == pytest.approx(-4 / 71, abs=1e-12)


def test_alpha_and_fleiss_meet_it_where_theory_says() -> None:
    """Two coders, no missing value: Fleiss' kappa is Scott's pi (Fleiss 1971 generalises
    it), and nominal alpha differs only by the small-sample factor:
    1 - alpha = (n - 1) / n * (1 - pi) over n = 20 values."""
    data = frame(TEN_UNITS)
    pi = figure(data).value
    assert figure(data, FLEISS).value == pytest.approx(pi, abs=1e-12)
    alpha = figure(data, ALPHA).value
    assert 1 - alpha == pytest.approx(19 / 20 * (1 - pi), abs=1e-12)
    assert alpha == pytest.approx(74 / 131, abs=1e-12)


def test_a_unit_one_coder_left_out_does_not_count() -> None:
    """Scott's shares are over the units both coders rated: a unit only one of them rated
    changes nothing (where Gwet's forms would count its value in the shares)."""
    record = figure(frame([*TEN_UNITS, (3, None), (None, 3)]))
    assert record.value == pytest.approx(71 / 131, abs=1e-12)
    assert record.n_units == 10


def test_ordinal_codes_have_it_unweighted_with_an_interval() -> None:
    record = figure(frame(TEN_UNITS), bootstrap=200, kind="ordinal")
    assert record.value == pytest.approx(71 / 131, abs=1e-12)
    assert record.weights is None
    assert record.ci_low is not None and record.ci_high is not None
    assert record.ci_low <= record.value <= record.ci_high and record.draws == 200


def test_undefined_with_three_coders_saying_why() -> None:
    three = frame([(a, b, a) for a, b in TEN_UNITS], ("ann", "ben", "cy"))
    record = figure(three)
    assert record.value is None and record.band() == "undefined"
    assert "compares 2 raters, here 3" in record.note
    assert record.coders == ["ann", "ben", "cy"]


def test_no_variation_is_undefined_not_one() -> None:
    record = figure(frame([(1, 1)] * 5))
    assert record.value is None
    assert "chance agreement is 1" in record.note
