"""Krippendorff's alpha, computed by the ``krippendorff`` package.

alpha = 1 - D_o / D_e: observed disagreement among the values paired within units
over the disagreement expected by chance from all pairable values. Units with fewer
than two values are unpairable and do not enter it. The package is always given the
level of measurement (its default, interval, is wrong for most codes) and the
declared scale as value domain, as a units x values count matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, cast

import krippendorff
import numpy as np

from ..agreement_settings import LEVELS as LEVELS  # defined with the other choices
from .ratings import Level, scale_text

Measurement = Literal["nominal", "ordinal", "interval", "ratio"]
KINDS = ("ordinal", "nominal", "binary")


def resolve_level(kind: str, level: str | None, code: str = "") -> str:
    """Level of measurement: ordinal for ordinal codes, nominal otherwise, unless overridden.

    An override never makes a nominal or binary code ordinal, interval or ratio: its levels
    have no order or distance to measure.
    """
    if kind not in KINDS:
        raise ValueError(f"code '{code}': kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if level is None:
        return "ordinal" if kind == "ordinal" else "nominal"
    if level not in LEVELS:
        raise ValueError(f"code '{code}': level must be one of {', '.join(LEVELS)}, got {level!r}")
    if kind != "ordinal" and level != "nominal":
        raise ValueError(f"code '{code}': a {kind} code has no order; {level} alpha needs an "
                         "ordinal code")
    return level


def value_domain(scale: Sequence[Level], level: str, code: str = "") -> np.ndarray:
    """The declared scale as the package's value domain (numbers needed beyond ordinal)."""
    numeric = all(
        isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
        for v in scale
    )
    if level in ("interval", "ratio") and not numeric:
        raise ValueError(
            f"code '{code}': {level} alpha needs numeric levels, the scale is {scale_text(scale)}"
        )
    if level == "ratio" and any(float(v) <= 0 for v in scale):
        raise ValueError(
            f"code '{code}': ratio alpha needs levels above zero (the ratio distance "
            f"((c-k)/(c+k))^2 is undefined where c = -k); the scale is {scale_text(scale)} "
            "- use interval"
        )
    return np.asarray(list(scale), dtype=float if numeric else object)


def alpha_from_counts(counts: np.ndarray, domain: np.ndarray, level: str) -> float | None:
    """Alpha over ``counts``, the value counts of pairable units only (each row two values
    or more, as :meth:`.ratings.Ratings.pairable_counts` gives them); None when undefined.

    Undefined: no pairable unit, or no expected disagreement (every pairable value is
    the same level) -- agreement over nothing is not agreement.
    """
    if counts.shape[0] == 0:
        return None
    # as float64: the package multiplies and divides the counts in float64 whatever they
    # are, and starting from floats saves it a conversion per product (a seventh of its
    # instructions on 100,000 units); small whole counts are exact either way, so alpha
    # is the same
    counts = np.asarray(counts, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(
            krippendorff.alpha(
                value_counts=counts,
                value_domain=domain,
                level_of_measurement=cast(Measurement, level),
            )
        )
    return value if np.isfinite(value) else None
