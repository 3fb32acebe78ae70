"""Mathet, Widlöcher and Métivier's γ on span codes, through ``pygamma-agreement``.

The turns a code applies to are laid end to end (one character apart) into one
continuum, each coder an annotator and each span a unit whose category is its value.
The dissimilarity is the combined one with the weights pygamma-agreement documents and
checks its own published example with (positional weight ``alpha`` 3, categorical
``beta`` 1, ``delta_empty`` 1); the chance disorder comes from the library's default
sampler, seeded so that the same project gives the same γ.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ...domain.errors import ProjectError

#: weights of the combined dissimilarity (pygamma-agreement's documented setting)
DISSIMILARITY = {"alpha": 3.0, "beta": 1.0, "delta_empty": 1.0}
#: the precision the chance disorder is estimated to (the library's "low": 5 %)
PRECISION = 0.05
MISSING = ("gamma needs pygamma-agreement (pip install 'sense7-coder[spans]'); "
           "not installed")

Units = list[list[tuple[int, int, Hashable]]]


def continuum_of(chosen: list[tuple[Hashable, int, int]], by_turn: dict[tuple[Hashable, int], Units],
                 names: list[str]) -> Any:
    """The continuum of ``chosen`` turns ((conversation, position, length)), whose units
    per coder (in the order of ``names``) are in ``by_turn``; None when nothing is
    marked. Raises ImportError without pygamma-agreement."""
    from pyannote.core import Segment
    from pygamma_agreement import Continuum

    continuum = Continuum()
    at = 0
    any_unit = False
    for cid, pos, length in chosen:
        for coder, units in zip(names, by_turn[(cid, pos)], strict=True):
            for start, end, value in units:
                continuum.add(coder, Segment(at + start, at + end), str(value))
                any_unit = True
        at += length + 1
    for coder in names:
        if coder not in continuum.annotators:
            continuum.add_annotator(coder)
    return continuum if any_unit else None


def dissimilarity() -> Any:
    from pygamma_agreement import CombinedCategoricalDissimilarity

    return CombinedCategoricalDissimilarity(**DISSIMILARITY)


def gamma(chosen: list[tuple[Hashable, int, int]], by_turn: dict[tuple[Hashable, int], Units],
          names: list[str], seed: int | None = 0) -> tuple[float | None, str]:
    """γ over the ``chosen`` turns, or None and why not (see :func:`continuum_of`)."""
    try:
        continuum = continuum_of(chosen, by_turn, names)
    except ImportError:
        return None, MISSING
    if continuum is None:
        return None, "no spans to compare"
    import numpy as np

    state = np.random.get_state()  # the library samples from numpy's global generator
    try:
        if seed is not None:
            np.random.seed(seed)
        result = continuum.compute_gamma(dissimilarity(), precision_level=PRECISION)
    except Exception as e:  # the library's own failures (solver, too few units)
        raise ProjectError(f"gamma could not be computed: {e}") from None
    finally:
        np.random.set_state(state)
    return float(result.gamma), ""
