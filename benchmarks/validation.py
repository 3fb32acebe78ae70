"""Regenerate VALIDATION.md: every coefficient the agreement engine reports, checked against
an independent reference on seeded random designs, and the coverage of its intervals.

Our side is the public API (:func:`sense7_coder.domain.agreement.code_agreement`,
:func:`~sense7_coder.domain.agreement.rater_vs_reference`,
:func:`sense7_coder.domain.prediction.evaluation.evaluate`). The references are other packages
(krippendorff, scikit-learn, statsmodels, pingouin, scipy, pandas) or, where no package
computes the figure with missing ratings, the published formula written out here.

    python benchmarks/validation.py            # writes VALIDATION.md at the repository top
    python benchmarks/validation.py --designs 20 --studies 20 --output /tmp/v.md

Every number in the file follows from the stated seeds; the file carries no date. Run time
with the defaults on the shared 2-core development machine: 3 min 20-35 s wall, about 3 min
CPU (comparisons 20-35 s, ICC coverage about a minute -- the generalized ICC2 intervals draw
20,000 pivots each --, alpha's bootstrap coverage the rest).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sense7_coder.domain.agreement import code_agreement, rater_vs_reference
from sense7_coder.domain.agreement.icc import FORMS, INTERVAL_METHOD, f_intervals
from sense7_coder.domain.prediction.evaluation import evaluate

ROOT = Path(__file__).resolve().parents[1]
SEED = 2027
SCALE = [1, 2, 3, 4, 5]
LABELS = ["a", "b", "c", "d"]
ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


@dataclass
class Design:
    """One random design: units x coders (NaN = no rating), its kind and declared scale."""

    x: np.ndarray
    kind: str
    scale: list[int]
    level: str

    @property
    def complete(self) -> bool:
        return not np.isnan(self.x).any()

    def frame(self, names: list[str] | None = None) -> pd.DataFrame:
        names = names or [f"c{j}" for j in range(self.x.shape[1])]
        rows = [(i, names[j], v) for i in range(self.x.shape[0])
                for j in range(self.x.shape[1]) if not math.isnan(v := self.x[i, j])]
        return pd.DataFrame(rows, columns=["unit", "coder", "value"])


def random_design(rng: np.random.Generator, index: int) -> Design:
    """Units rated on a latent value plus coder offsets and noise; half with missing ratings."""
    n, k = int(rng.integers(8, 61)), int(rng.integers(2, 6))
    ordinal = index % 3 != 0
    q = 5 if ordinal else int(rng.integers(2, 5))
    latent = rng.normal(size=(n, 1)) * rng.uniform(0.3, 1.5)
    noise = rng.normal(size=(n, k)) * rng.uniform(0.2, 1.2) + rng.normal(scale=0.3, size=(1, k))
    x = np.clip(np.rint((q + 1) / 2 + latent + noise), 1, q)
    if index % 2:
        x[rng.random(size=x.shape) < rng.uniform(0.05, 0.35)] = np.nan
    scale = list(range(1, q + 1))
    level = ALPHA_LEVELS[1 + (index // 3) % 3] if ordinal else "nominal"
    return Design(x, "ordinal" if ordinal else "nominal", scale, level)


# --- references -------------------------------------------------------------------------


def ref_alpha(d: Design) -> float:
    import krippendorff

    level: Any = d.level
    return float(krippendorff.alpha(reliability_data=d.x.T, value_domain=d.scale,
                                    level_of_measurement=level))


def ref_percent(d: Design) -> float:
    shares = []
    for row in d.x:
        v = row[~np.isnan(row)]
        pairs = list(itertools.combinations(v, 2))
        if pairs:
            shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return float(np.mean(shares))


def ref_cohen(d: Design, a: int, b: int, weights: str | None) -> float:
    from sklearn.metrics import cohen_kappa_score

    both = ~np.isnan(d.x[:, a]) & ~np.isnan(d.x[:, b])
    return float(cohen_kappa_score(d.x[both, a].astype(int), d.x[both, b].astype(int),
                                   labels=d.scale, weights=weights))


def _table(d: Design) -> np.ndarray:
    from statsmodels.stats.inter_rater import aggregate_raters

    return aggregate_raters(d.x.astype(int) - 1, n_cat=len(d.scale))[0]


def ref_fleiss(d: Design) -> float:
    from statsmodels.stats.inter_rater import fleiss_kappa

    return float(fleiss_kappa(_table(d), method="fleiss"))


def ref_scott(d: Design) -> float:
    """Scott's pi of a two-coder design: statsmodels' Fleiss' kappa, which is Scott's pi
    for two raters, over the units both rated."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    both = d.x[~np.isnan(d.x).any(axis=1)]
    return float(fleiss_kappa(aggregate_raters(both.astype(int) - 1, n_cat=len(d.scale))[0],
                              method="fleiss"))


def ref_brennan_prediger(d: Design) -> float:
    from statsmodels.stats.inter_rater import fleiss_kappa

    return float(fleiss_kappa(_table(d), method="randolph"))


def ref_gwet(d: Design, weights: str | None) -> float:
    """Gwet (2014), AC1 and AC2 with missing ratings: agreement over units with two or more
    ratings, category shares over every rated unit; weights 1 - (|k-l|/(q-1))^p."""
    q = len(d.scale)
    counts = np.stack([(d.x == c).sum(axis=1) for c in d.scale], axis=1).astype(float)
    if weights is None:
        w = np.eye(q)
    else:
        p = {"linear": 1, "quadratic": 2}[weights]
        pos = np.asarray(d.scale, dtype=float)
        w = 1 - (np.abs(pos[:, None] - pos[None, :]) / (pos[-1] - pos[0])) ** p
    r = counts.sum(axis=1)
    many = r >= 2
    weighted = counts @ w.T
    pa = np.mean((counts[many] * (weighted[many] - 1)).sum(axis=1) / (r[many] * (r[many] - 1)))
    pi = (counts[r >= 1] / r[r >= 1, None]).mean(axis=0)
    pe = w.sum() / (q * (q - 1)) * float((pi * (1 - pi)).sum())
    return float((pa - pe) / (1 - pe))


def ref_icc(d: Design) -> dict[str, tuple[float, float, float]]:
    import pingouin

    frame = d.frame()
    table = pingouin.intraclass_corr(frame, targets="unit", raters="coder", ratings="value")
    ci = "CI95%" if "CI95%" in table.columns else "CI95"
    names = {"ICC(1,1)": "ICC1", "ICC(A,1)": "ICC2", "ICC(C,1)": "ICC3", "ICC(1,k)": "ICC1k",
             "ICC(A,k)": "ICC2k", "ICC(C,k)": "ICC3k"}
    return {names.get(row.Type, row.Type): (float(row.ICC), float(row[ci][0]), float(row[ci][1]))
            for _, row in table.iterrows()}


def ref_spearman(d: Design, a: int, b: int) -> float:
    both = ~np.isnan(d.x[:, a]) & ~np.isnan(d.x[:, b])
    return float(pd.Series(d.x[both, a]).corr(pd.Series(d.x[both, b]), method="spearman"))


# --- the comparison core -----------------------------------------------------------------


@dataclass
class Row:
    """One coefficient: its reference and what the comparison found."""

    coefficient: str
    reference: str
    designs: set[int] = field(default_factory=set)
    figures: int = 0
    max_diff: float = 0.0

    def add(self, design: int, ours: float | None, theirs: float) -> None:
        if ours is None or not math.isfinite(theirs):
            raise AssertionError(f"design {design}, {self.coefficient}: engine {ours}, "
                                 f"reference {theirs}")
        self.designs.add(design)
        self.figures += 1
        self.max_diff = max(self.max_diff, abs(ours - theirs))


KRIPP = "`krippendorff` package (`alpha`, declared value domain)"
ROWS: dict[str, str] = {
    **{f"krippendorff_alpha ({lv})": KRIPP for lv in ALPHA_LEVELS},
    "percent_agreement": "direct count of agreeing pairs per unit (written in the script)",
    **{f"cohen_kappa ({w})": "scikit-learn `cohen_kappa_score` (labels = declared scale)"
       for w in ("unweighted", "linear", "quadratic")},
    "fleiss_kappa": "statsmodels `fleiss_kappa` (complete designs)",
    "brennan_prediger": "statsmodels `fleiss_kappa(method='randolph')` (complete designs)",
    "gwet_ac1": "Gwet (2014) formula written in the script (missing ratings as Gwet)",
    "scott_pi": "statsmodels `fleiss_kappa` (Scott's pi for two raters) over the units both "
                "coders rated (two-coder designs)",
    **{f"gwet_ac2 ({w})": "Gwet (2014) formula written in the script (missing ratings as Gwet)"
       for w in ("linear", "quadratic")},
    **{f"icc {f}": "pingouin `intraclass_corr` (complete designs)" for f in FORMS},
    **{f"icc {f} 95% interval": "pingouin `intraclass_corr` CI95% (printed to 2 decimals; "
       "an end beyond -1 cut to -1, as the tool cuts it)" for f in FORMS
       if INTERVAL_METHOD[f] == "F"},
    **{f"icc {f} 95% interval (McGraw & Wong, not reported)": "pingouin `intraclass_corr` "
       "CI95% against the tool's McGraw & Wong interval (`icc.f_intervals`), which it "
       "computes but does not report for this form" for f in FORMS
       if INTERVAL_METHOD[f] != "F"},
    "spearman (rater vs users)": "pandas `Series.corr(method='spearman')`",
    "evaluation accuracy": "scikit-learn `accuracy_score`",
    "evaluation within_one": "direct count (written in the script)",
    "evaluation mae": "scikit-learn `mean_absolute_error`",
    "evaluation spearman": "pandas `Series.corr(method='spearman')`",
}


def compare(designs: list[Design]) -> dict[str, Row]:
    """Every figure of every design against its reference (raises on a missing figure)."""
    rows = {name: Row(name, ref) for name, ref in ROWS.items()}
    for i, d in enumerate(designs):
        records = code_agreement(d.frame(), code=f"d{i}", kind=d.kind, scale=d.scale,
                                 level=d.level, bootstrap=20 if d.complete else 0, seed=SEED)
        for r in records:
            if r.value is None:
                continue
            if r.measure == "krippendorff_alpha":
                rows[f"krippendorff_alpha ({r.level})"].add(i, r.value, ref_alpha(d))
            elif r.measure == "percent_agreement":
                rows["percent_agreement"].add(i, r.value, ref_percent(d))
            elif r.measure == "cohen_kappa":
                a, b = (int(c[1:]) for c in r.coders)
                w = None if r.weights == "none" else r.weights
                rows[f"cohen_kappa ({w or 'unweighted'})"].add(i, r.value, ref_cohen(d, a, b, w))
            elif r.measure == "fleiss_kappa" and d.complete:
                rows["fleiss_kappa"].add(i, r.value, ref_fleiss(d))
            elif r.measure == "brennan_prediger" and d.complete:
                rows["brennan_prediger"].add(i, r.value, ref_brennan_prediger(d))
            elif r.measure == "gwet_ac1":
                rows["gwet_ac1"].add(i, r.value, ref_gwet(d, None))
            elif r.measure == "scott_pi":
                rows["scott_pi"].add(i, r.value, ref_scott(d))
            elif r.measure == "gwet_ac2":
                rows[f"gwet_ac2 ({r.weights})"].add(i, r.value, ref_gwet(d, r.weights))
        icc_records = [r for r in records if r.measure == "icc" and r.value is not None]
        if icc_records and d.complete:
            theirs = ref_icc(d)
            mcgraw = f_intervals(d.x)
            for r in icc_records:
                value, low, high = theirs[str(r.form)]
                rows[f"icc {r.form}"].add(i, r.value, value)
                ends = mcgraw[str(r.form)]
                if INTERVAL_METHOD[str(r.form)] != "F" and r.ci_low is not None and ends:
                    interval = rows[f"icc {r.form} 95% interval (McGraw & Wong, not reported)"]
                    interval.add(i, max(ends[0], -1.0), max(low, -1.0))
                    interval.add(i, ends[1], min(high, 1.0))
                elif r.ci_low is not None and r.ci_high is not None:
                    interval = rows[f"icc {r.form} 95% interval"]
                    # the tool cuts an end beyond -1 to -1 and says so in the record's note
                    interval.add(i, r.ci_low, max(low, -1.0))
                    interval.add(i, r.ci_high, min(high, 1.0))
        if d.kind == "ordinal":
            names = ["users", *(f"c{j}" for j in range(1, d.x.shape[1]))]
            for r in rater_vs_reference(d.frame(names), code=f"d{i}", kind=d.kind,
                                        scale=d.scale, bootstrap=0):
                if r.measure == "spearman" and r.value is not None:
                    other = int(next(c for c in r.coders if c != "users")[1:])
                    rows["spearman (rater vs users)"].add(i, r.value, ref_spearman(d, 0, other))
            _compare_evaluation(i, d, rows)
    return rows


def _compare_evaluation(i: int, d: Design, rows: dict[str, Row]) -> None:
    """The predictor evaluation: coder 0's ratings as truth, the mean of the others (a
    continuous prediction) as the predicted value."""
    from sklearn.metrics import accuracy_score, mean_absolute_error

    rest = d.x[:, 1:]
    truth: dict[Hashable, float] = {u: float(d.x[u, 0]) for u in range(len(d.x))
                                    if not math.isnan(d.x[u, 0])}
    predicted: dict[Hashable, float | None] = {u: float(np.nanmean(rest[u]))
                                               for u in range(len(d.x))
                                               if not np.isnan(rest[u]).all()}
    m = evaluate(truth, predicted)
    keys = sorted(set(truth) & set(predicted), key=str)
    y = np.array([truth[u] for u in keys])
    p = np.array([predicted[u] for u in keys], dtype=float)
    rounded = np.clip(np.floor(p + 0.5), 1, 5)
    rows["evaluation accuracy"].add(i, m.accuracy, float(accuracy_score(y, rounded)))
    rows["evaluation within_one"].add(i, m.within_one, float(np.mean(np.abs(y - rounded) <= 1)))
    rows["evaluation mae"].add(i, m.mae, float(mean_absolute_error(y, p)))
    if m.spearman is not None:
        rows["evaluation spearman"].add(i, m.spearman,
                                        float(pd.Series(y).corr(pd.Series(p), method="spearman")))


def designs(count: int, seed: int = SEED) -> list[Design]:
    rng = np.random.default_rng(seed)
    return [random_design(rng, i) for i in range(count)]


# --- interval coverage -------------------------------------------------------------------


def alpha_truth(sd_error: float) -> float:
    """Interval alpha of the simulation model on 20,000 units (the population value)."""
    import krippendorff

    x = _alpha_study(np.random.default_rng(0), 20_000, 3, sd_error)
    return float(krippendorff.alpha(reliability_data=x.T, value_domain=SCALE,
                                    level_of_measurement="interval"))


def _alpha_study(rng: np.random.Generator, n: int, k: int, sd_error: float) -> np.ndarray:
    x = np.clip(np.rint(3 + rng.normal(size=(n, 1)) + rng.normal(scale=sd_error, size=(n, k))),
                1, 5)
    x[rng.random(size=x.shape) < 0.1] = np.nan
    return x


def alpha_coverage(studies: int, n: int, draws: int, sd_error: float = 0.7,
                   seed: int = SEED) -> float:
    """Share of studies whose unit-bootstrap 95% interval of interval alpha holds the
    population value (3 coders, 10% of ratings missing)."""
    truth = alpha_truth(sd_error)
    rng = np.random.default_rng(seed)
    hits = 0
    for s in range(studies):
        d = Design(_alpha_study(rng, n, 3, sd_error), "ordinal", SCALE, "interval")
        records = code_agreement(d.frame(), code="a", kind="ordinal", scale=SCALE,
                                 level="interval", bootstrap=draws, seed=seed + s)
        (alpha,) = [r for r in records if r.measure == "krippendorff_alpha"]
        assert alpha.ci_low is not None and alpha.ci_high is not None
        hits += alpha.ci_low <= truth <= alpha.ci_high
    return hits / studies


def icc_coverage(studies: int, n: int, seed: int = SEED) -> dict[str, tuple[float, float]]:
    """Coverage of the reported ICC intervals and of McGraw & Wong's for every form
    (benchmarks/icc_coverage.py's simulation): {form: (reported, McGraw & Wong)}."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import icc_coverage as sim

    return {form: (r, f) for form, (r, f, _) in sim.coverage(studies, n, 3, seed, 0).items()}


# --- the document ------------------------------------------------------------------------


def _fmt(x: float) -> str:
    return "0" if x == 0 else f"{x:.1e}"


def render(rows: dict[str, Row], n_designs: int, coverage: dict[str, dict[int, float]],
           studies: dict[str, int], draws: int) -> str:
    lines = [
        "# Validation of the agreement figures",
        "",
        "Regenerated by `python benchmarks/validation.py` (do not edit by hand). Each "
        "coefficient the tool reports is computed by the tool's own API and by an independent "
        f"reference on {n_designs} random designs drawn from seed {SEED}: 8-60 units, 2-5 "
        "coders, nominal codes of 2-4 categories and ordinal codes of 5 levels, half of the "
        "designs with 5-35% of ratings missing. A design counts for a coefficient when the "
        "tool reports it there (Fleiss' kappa, Brennan–Prediger and the ICCs are compared on "
        "complete designs, where the references are defined). Published worked examples "
        "(Krippendorff 2011, Gwet 2014, Shrout & Fleiss 1979 and others) are checked "
        "separately by `tests/test_agreement_reference.py` and `tests/test_agreement_measures.py`.",
        "",
        "## Point estimates and intervals against references",
        "",
        "| coefficient | reference | designs | figures | largest difference |",
        "|---|---|---|---|---|",
    ]
    for row in rows.values():
        lines.append(f"| {row.coefficient} | {row.reference} | {len(row.designs)} | "
                     f"{row.figures} | {_fmt(row.max_diff)} |")
    lines += [
        "",
        "The ICC1/ICC1k/ICC3/ICC3k intervals are McGraw & Wong's (1996) F-based intervals; "
        "pingouin prints its interval to two decimals, so differences up to 5e-3 are its "
        "rounding. For ICC2/ICC2k the tool reports a generalized confidence interval "
        "(Weerahandi 1993), which no reference library computes: its check is the coverage "
        "below; McGraw & Wong's ICC2/ICC2k interval, which the tool computes but does not "
        "report, is still compared with pingouin's. The "
        "evaluation's macro-F1 is scikit-learn's `f1_score` itself and is not listed.",
        "",
        "## Interval coverage",
        "",
        "Share of simulated studies whose 95% interval holds the true value (a well-calibrated "
        "interval covers 93-97%).",
        "",
        "| interval | model | 30 units | 100 units |",
        "|---|---|---|---|",
    ]
    for name, by_n in coverage.items():
        model = (f"3 coders, interval alpha of rounded normal ratings on 1..5, 10% missing; "
                 f"{studies[name]} studies of {draws} bootstrap draws, seed {SEED}"
                 if name.startswith("krippendorff") else
                 f"3 raters, benchmarks/icc_coverage.py's one-/two-way random models; "
                 f"{studies[name]} studies, seed {SEED}")
        lines.append(f"| {name} | {model} | {100 * by_n[30]:.1f}% | {100 * by_n[100]:.1f}% |")
    outside = [f"{name} at {n} units ({100 * share:.1f}%)" for name, by_n in coverage.items()
               for n, share in by_n.items() if not 0.93 <= share <= 0.97]
    lines += [
        "",
        "Outside 93-97%: " + ("; ".join(outside) if outside else "none") + ". The ICC models' "
        "standard deviations are units 1, raters .6, error .8. McGraw & Wong's ICC2/ICC2k "
        "interval uses Satterthwaite's approximation, liberal when a few raters differ widely "
        "and units are many (its lower end too high: the raters' mean square has only k-1 "
        "degrees of freedom), which is why the tool reports the generalized interval for "
        "these two forms (see benchmarks/icc_coverage.py, which varies the raters' spread).",
        "",
    ]
    return "\n".join(lines)


def _small_n_section(path: Path) -> str:
    """The small-n coverage and planning tables benchmarks/alpha_small_n.py and
    planning_table.py wrote into ``path`` (kept as they are: this script does not run those
    studies)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import alpha_small_n
    import planning_table

    old = path.read_text(encoding="utf-8") if path.exists() else ""
    kept = ""
    for module in (alpha_small_n, planning_table):  # each kept as its own script wrote it
        start, end = module.START, module.END
        if start in old:
            kept += "\n" + start + old.split(start, 1)[1].split(end, 1)[0] + end + "\n"
    return kept


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--designs", type=int, default=300)
    parser.add_argument("--studies", type=int, default=400,
                        help="alpha coverage: simulated studies per number of units")
    parser.add_argument("--icc-studies", type=int, default=2000,
                        help="ICC coverage: simulated studies per number of units")
    parser.add_argument("--draws", type=int, default=1000, help="alpha bootstrap draws")
    parser.add_argument("--output", type=Path, default=ROOT / "VALIDATION.md")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = compare(designs(args.designs))
    print(f"comparisons: {time.perf_counter() - start:.1f} s", flush=True)
    coverage: dict[str, dict[int, float]] = {}
    studies: dict[str, int] = {}
    icc_studies = args.icc_studies
    per_n = {n: icc_coverage(icc_studies, n) for n in (30, 100)}
    for form in FORMS:
        method = "F-based" if INTERVAL_METHOD[form] == "F" else "generalized"
        coverage[f"icc {form} ({method})"] = {n: per_n[n][form][0] for n in per_n}
        studies[f"icc {form} ({method})"] = icc_studies
    for form in FORMS:
        if INTERVAL_METHOD[form] != "F":
            name = f"icc {form} (McGraw & Wong F-based, not reported)"
            coverage[name] = {n: per_n[n][form][1] for n in per_n}
            studies[name] = icc_studies
    print(f"ICC coverage: {time.perf_counter() - start:.1f} s", flush=True)
    name = "krippendorff_alpha (unit bootstrap, percentile)"
    coverage[name] = {n: alpha_coverage(args.studies, n, args.draws) for n in (30, 100)}
    studies[name] = args.studies
    seconds = time.perf_counter() - start
    print(f"alpha coverage: {seconds:.1f} s", flush=True)
    text = render(rows, args.designs, coverage, studies, args.draws)
    text += _small_n_section(args.output)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
