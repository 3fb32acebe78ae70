"""The figure of the evaluation per dimension: predictors against the users' ratings.

Drawn in the shared look (:mod:`..plots`: Agg canvas, Okabe-Ito palette); each predictor has
its own colour *and* marker, so the figure reads in grey too. Intervals are clipped to the
range a figure can take (:data:`.grain.SCALE`).
"""

from __future__ import annotations

from typing import Any

from ..plots import PALETTE, _figure, _styled
from .evaluation import METRICS
from .grain import CONFIDENCE, SCALE, clip_interval

LABELS = {"accuracy": "accuracy", "macro_f1": "macro-F1", "within_one": "within one level",
          "mae": "MAE (lower is better)", "spearman": "Spearman's ρ"}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
#: most predictors one figure shows (the rest stay in the table)
MAX_PREDICTORS = 8


def _number(value: Any) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return None if v != v else v


@_styled
def evaluation(table: Any, title: str = "Predictors against the users' ratings, per "
               "dimension") -> Any:
    """One panel per figure (accuracy, macro-F1, within-one, MAE, Spearman); one row per
    dimension and level; one point with its interval per predictor."""
    rows = list(dict.fromkeys(zip(table["dimension"], table["level"], strict=True)))
    predictors = list(dict.fromkeys(table["predictor"]))[:MAX_PREDICTORS]
    height = 0.42 * len(rows) * max(1.0, len(predictors) / 3) + 2.2
    fig, first = _figure(11.0, height)
    fig.delaxes(first)
    axes = fig.subplots(1, len(METRICS), sharey=True)
    step = 0.7 / max(1, len(predictors))
    for a, metric in enumerate(METRICS):
        ax = axes[a]
        for j, name in enumerate(predictors):
            part = table[table["predictor"] == name]
            ys, xs, lo, hi = [], [], [], []
            for _, r in part.iterrows():
                x = _number(r[metric])
                if x is None:
                    continue
                low, high = clip_interval(metric, _number(r[f"{metric}_low"]),
                                          _number(r[f"{metric}_high"]))
                ys.append(rows.index((r["dimension"], r["level"])) - 0.35 + step * (j + 0.5))
                xs.append(x)
                lo.append(x - low if low is not None else 0.0)
                hi.append(high - x if high is not None else 0.0)
            if xs:
                ax.errorbar(xs, ys, xerr=[[max(0.0, v) for v in lo], [max(0.0, v) for v in hi]],
                            fmt=MARKERS[j % len(MARKERS)], ms=4, capsize=2, lw=1,
                            color=PALETTE[j % len(PALETTE)], label=str(name) if a == 0 else None)
        lo_s, hi_s = SCALE[metric]
        pad = (hi_s - lo_s) * 0.03
        ax.set_xlim(lo_s - pad, hi_s + pad)
        if metric == "spearman":
            ax.axvline(0, color="#888888", lw=0.7, ls="--")
        ax.set_xlabel(LABELS[metric])
        ax.grid(axis="y", visible=False)
    axes[0].set_yticks(range(len(rows)), [f"{d} ({lvl})" for d, lvl in rows])
    axes[0].set_ylim(len(rows) - 0.5, -0.5)
    fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
    n_draws = int(table["draws"].max()) if "draws" in table and len(table) else 0
    fig.legend(loc="outside right upper", title="predictor")
    import textwrap

    fig.supxlabel(textwrap.fill(
        f"Points: the figure over all rated units (mean over runs); bars: {CONFIDENCE:.0%} "
        f"percentile bootstrap interval over conversations ({n_draws} draws), clipped to "
        "the figure's range. Accuracy, macro-F1 and within-one on levels rounded and clipped "
        "to 1..5; MAE and Spearman's ρ on raw values.", 150),
        x=0.01, ha="left", fontsize=7, color="#444444")
    return fig
