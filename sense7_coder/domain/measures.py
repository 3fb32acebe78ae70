"""The agreement measures, one row each (:data:`MEASURE_TABLE`): the only list of them.

What the command line's help and tables, the window's tables and tooltips, the methods
paragraph and its references, and the exports call a measure, where it comes from, which
levels of measurement it covers, whom it compares and, for the chance-corrected
coefficients, which chance model of :mod:`.agreement.chance` computes it. Every front end
reads its list of measures from here; ``tests/test_measure_front_ends.py`` fails naming the
front end that leaves out a measure the engine computed.

Light (no numpy): the command line builds its help from it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Measure keys, as :attr:`AgreementRecord.measure` holds them.
ALPHA = "krippendorff_alpha"
PERCENT = "percent_agreement"
COHEN = "cohen_kappa"
FLEISS = "fleiss_kappa"
SPEARMAN = "spearman"
ICC = "icc"
GWET_AC1 = "gwet_ac1"
GWET_AC2 = "gwet_ac2"
BRENNAN_PREDIGER = "brennan_prediger"
SCOTT_PI = "scott_pi"

NOMINAL = "nominal"
ORDINAL = "ordinal"
INTERVAL = "interval"
RATIO = "ratio"
#: who a measure compares: all coders of a code together, each pair, or a coder against
#: a reference (the users' own ratings, the consensus)
GROUP = "group"
PAIRS = "pairs"
REFERENCE = "reference"

#: chance models of the chance-corrected family (:mod:`.agreement.chance` computes them):
#: Gwet's (AC1/AC2), a uniform guess (Brennan–Prediger), the categories' pooled shares
#: over every rated unit (Fleiss' kappa in Gwet's form)
CHANCE_GWET = "gwet"
CHANCE_UNIFORM = "uniform"
CHANCE_POOLED = "pooled"
#: the categories' shares pooled over the raters on the units two or more rated (Scott's pi)
CHANCE_POOLED_PAIRABLE = "pooled_pairable"

#: the works cited, by key (the methods paragraph lists them in this order)
CITATIONS: dict[str, str] = {
    "brennan": "Brennan, R. L., & Prediger, D. J. (1981). Coefficient kappa: Some uses, "
               "misuses, and alternatives. Educational and Psychological Measurement, 41(3), "
               "687-699.",
    "cohen": "Cohen, J. (1968). Weighted kappa: Nominal scale agreement with provision for "
             "scaled disagreement or partial credit. Psychological Bulletin, 70(4), 213-220.",
    "efron": "Efron, B. (1987). Better bootstrap confidence intervals. Journal of the "
             "American Statistical Association, 82(397), 171-185.",
    "fleiss": "Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. "
              "Psychological Bulletin, 76(5), 378-382.",
    "gwet": "Gwet, K. L. (2014). Handbook of inter-rater reliability (4th ed.). Advanced "
            "Analytics.",
    "hayes": "Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard "
             "reliability measure for coding data. Communication Methods and Measures, 1(1), "
             "77-89.",
    "kripp": "Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. "
             "University of Pennsylvania, Annenberg School for Communication.",
    "kripp2019": "Krippendorff, K. (2019). Content analysis: An introduction to its "
                 "methodology (4th ed.). SAGE.",
    "neuendorf": "Neuendorf, K. A. (2017). The content analysis guidebook (2nd ed.). SAGE.",
    "mcgraw": "McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass "
              "correlation coefficients. Psychological Methods, 1(1), 30-46.",
    "scott": "Scott, W. A. (1955). Reliability of content analysis: The case of nominal "
             "scale coding. Public Opinion Quarterly, 19(3), 321-325.",
    "shrout": "Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: Uses in "
              "assessing rater reliability. Psychological Bulletin, 86(2), 420-428.",
    "spearman": "Spearman, C. (1904). The proof and measurement of association between two "
                "things. American Journal of Psychology, 15(1), 72-101.",
    "weerahandi": "Weerahandi, S. (1993). Generalized confidence intervals. Journal of the "
                  "American Statistical Association, 88(423), 899-905.",
}


@dataclass(frozen=True)
class Measure:
    """One agreement measure as every front end names it."""

    #: the key in :attr:`AgreementRecord.measure`, exports and JSON
    key: str
    #: in words, plain text (command line, methods paragraph)
    name: str
    #: the window's name, with Greek letters
    label: str
    #: a results table's coefficient column (the methods paragraph's table)
    short: str
    #: where it stands in lists (help text, tables)
    order: int
    #: keys of :data:`CITATIONS`
    citations: tuple[str, ...]
    #: what it is, one clause (help text and tooltips)
    wording: str
    #: levels of measurement it is computed for
    levels: tuple[str, ...]
    #: who it compares (:data:`GROUP`, :data:`PAIRS`, :data:`REFERENCE`); a measure with
    #: :data:`GROUP` is listed on the window's Coefficients tab
    scope: tuple[str, ...]
    #: the methods paragraph reports it: this clause in its "We also report" sentence
    #: (in-text citations; '' for Krippendorff's alpha, which has sentences of its own),
    #: its figures over all coders in the results table and its citations in the
    #: references; False: the paragraph leaves it out (pairs, percent agreement, ...)
    paper: bool = False
    methods: str = ""
    #: the chance model (:data:`CHANCE_GWET`, ...) that computes it in
    #: :func:`.agreement.coefficients.chance_records` ('' = a function of its own)
    chance: str = ""
    #: agreement weights of its weighted forms, one figure each ('' = unweighted)
    weights: tuple[str, ...] = ()
    #: the most raters it is defined for (0 = any number); with more it is reported
    #: undefined, naming why
    raters: int = 0

    def covers(self, raters: int) -> bool:
        """Whether it is defined for this many raters (see ``raters``)."""
        return not self.raters or raters <= self.raters


MEASURE_TABLE: tuple[Measure, ...] = (
    Measure(ALPHA, "Krippendorff's alpha", "Krippendorff's α", "alpha", 10, ("kripp", "hayes"),
            "Krippendorff's alpha at the code's level of measurement, with a bootstrap 95% "
            "interval", (NOMINAL, ORDINAL, INTERVAL, RATIO), (GROUP, REFERENCE), paper=True),
    Measure(GWET_AC1, "Gwet's AC1", "Gwet's AC1", "AC1", 20, ("gwet",),
            "Gwet's AC1 for any number of raters with missing ratings", (NOMINAL, ORDINAL),
            (GROUP,), paper=True,
            methods="Gwet's AC1 for any number of raters with missing ratings as Gwet (2014) "
                    "defines it", chance=CHANCE_GWET),
    Measure(GWET_AC2, "Gwet's AC2", "Gwet's AC2", "AC2", 30, ("gwet",),
            "Gwet's AC2 with linear and quadratic weights over the level values",
            (ORDINAL,), (GROUP,), paper=True,
            methods="for ordinal codes Gwet's AC2 with linear and quadratic weights over the "
                    "level values (Gwet, 2014)", chance=CHANCE_GWET,
            weights=("linear", "quadratic")),
    Measure(BRENNAN_PREDIGER, "Brennan–Prediger", "Brennan–Prediger", "Brennan–Prediger",
            40, ("brennan", "gwet"),
            "the Brennan–Prediger coefficient (chance agreement as a uniform guess)",
            (NOMINAL, ORDINAL), (GROUP,), paper=True,
            methods="the Brennan–Prediger coefficient (Brennan & Prediger, 1981), chance "
                    "agreement as a uniform guess over the declared levels, for any number "
                    "of raters with missing ratings as Gwet (2014) defines it",
            chance=CHANCE_UNIFORM),
    Measure(SCOTT_PI, "Scott's pi", "Scott's π", "pi", 45, ("scott",),
            "Scott's pi of two coders (chance from the categories' shares pooled over both)",
            (NOMINAL, ORDINAL), (GROUP,), paper=True,
            methods="for two coders Scott's pi (Scott, 1955), chance agreement from the "
                    "categories' shares pooled over both coders on the units both rated",
            chance=CHANCE_POOLED_PAIRABLE, raters=2),
    Measure(ICC, "ICC", "ICC", "ICC", 50, ("shrout", "mcgraw", "weerahandi"),
            "the intraclass correlation in the six forms of Shrout and Fleiss (units every "
            "coder rated)", (ORDINAL,), (GROUP,), paper=True,
            methods="for ordinal codes the intraclass correlation in the six forms of Shrout "
                    "and Fleiss (1979; McGraw & Wong, 1996) over the level values, on the "
                    "units every coder rated (units with a missing rating dropped, their "
                    "number given with each figure): ICC1 one-way random, ICC2 two-way "
                    "random with absolute agreement, ICC3 two-way mixed with consistency, "
                    "each for a single rater and (ICC1k, ICC2k, ICC3k) for the mean of the "
                    "raters"),
    Measure(PERCENT, "percent agreement", "percent agreement", "agreement", 60, (),
            "raw percent agreement (exact match)", (NOMINAL, ORDINAL), (GROUP,)),
    Measure(COHEN, "Cohen's kappa", "Cohen's κ", "kappa", 70, ("cohen",),
            "Cohen's kappa per pair (weighted over the declared scale for ordinal codes)",
            (NOMINAL, ORDINAL), (PAIRS, REFERENCE)),
    Measure(FLEISS, "Fleiss' kappa", "Fleiss' κ", "Fleiss' kappa", 80, ("fleiss",),
            "Fleiss' kappa among the coders (every unit with the same number of raters)",
            (NOMINAL, ORDINAL), (GROUP,)),
    Measure(SPEARMAN, "Spearman's rho", "Spearman's ρ", "rho", 90, ("spearman",),
            "Spearman's rank correlation of a coder with a reference", (ORDINAL,),
            (REFERENCE,)),
)

#: the rows by key
MEASURES_BY_KEY: dict[str, Measure] = {m.key: m for m in MEASURE_TABLE}


def measure(key: str) -> Measure | None:
    """The row of a measure key (None for a key no row has)."""
    return MEASURES_BY_KEY.get(key)


def name_of(key: str) -> str:
    """A measure's plain name (its key when no row has it)."""
    m = MEASURES_BY_KEY.get(key)
    return m.name if m else key


def in_order() -> list[Measure]:
    """The rows in their listing order."""
    return sorted(MEASURE_TABLE, key=lambda m: m.order)


def group_measures() -> list[Measure]:
    """The measures over all coders of a code, in listing order (the window's Coefficients
    tab)."""
    return [m for m in in_order() if GROUP in m.scope]


def pair_measures() -> list[Measure]:
    """The measures of each pair of coders, in listing order (the window's pairs tab)."""
    return [m for m in in_order() if PAIRS in m.scope]


def reference_measures() -> list[Measure]:
    """The measures of a coder against a reference (the users' ratings, the consensus), in
    listing order (the window's users tab)."""
    return [m for m in in_order() if REFERENCE in m.scope]


def paper_measures() -> list[Measure]:
    """The measures the methods paragraph reports, in listing order."""
    return [m for m in in_order() if m.paper]


def chance_measures() -> list[Measure]:
    """The chance-corrected measures computed over all coders by a chance model, in
    listing order."""
    return [m for m in in_order() if m.chance and GROUP in m.scope]


def names_text(measures: list[Measure], plain: bool = True) -> str:
    """'a, b and c' of the measures' names (plain) or window labels."""
    names = [m.name if plain else m.label for m in measures]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def summary(keys: tuple[str, ...] | None = None) -> str:
    """The measures' wordings joined into one sentence fragment (command-line help)."""
    rows = [m for m in in_order() if keys is None or m.key in keys]
    return "; ".join(m.wording for m in rows)
