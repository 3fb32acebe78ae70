"""One agreement figure with the counts behind it (:class:`AgreementRecord`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

#: Rater name under which the users' own ratings take part in agreement figures.
USERS_RATER = "users"
#: Rater name of the reconciled consensus coding.
CONSENSUS_RATER = "consensus"

#: Measure names used in :attr:`AgreementRecord.measure`.
ALPHA = "krippendorff_alpha"
PERCENT = "percent_agreement"
COHEN = "cohen_kappa"
FLEISS = "fleiss_kappa"
SPEARMAN = "spearman"
MEASURES = (ALPHA, PERCENT, COHEN, FLEISS, SPEARMAN)

#: Krippendorff's conventional thresholds: alpha >= .800 is good enough to rely on,
#: .667 <= alpha < .800 allows only tentative conclusions.
ALPHA_GOOD = 0.800
ALPHA_TENTATIVE = 0.667


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

    def band(self) -> str:
        """Krippendorff's reading of an alpha: 'good', 'tentative', 'low' or 'undefined'.

        Only alpha has these conventional bands; other measures answer 'undefined' when
        they have no value and '' otherwise.
        """
        if self.value is None:
            return "undefined"
        if self.measure != ALPHA:
            return ""
        if self.value >= ALPHA_GOOD:
            return "good"
        if self.value >= ALPHA_TENTATIVE:
            return "tentative"
        return "low"

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready): every field plus ``band``."""
        data = asdict(self)
        data["coders"] = list(self.coders)
        data["band"] = self.band()
        return data


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
