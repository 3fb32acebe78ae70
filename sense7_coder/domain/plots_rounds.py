"""The calibration story's figure: alpha per code across the rounds, each with its 95%
interval, and the threshold set before the rounds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .plots import _figure, _styled, caption


@_styled
def alpha_by_round(results: Sequence[Mapping[str, Any]], thresholds: Mapping[int, float],
                   labels: Mapping[str, str] | None = None, width: float = 8.0) -> Any:
    """One line per code: alpha at each closed round (a whisker over its interval; a filled
    dot where the interval's lower end met the round's threshold), the threshold dashed."""
    labels = labels or {}
    fig, ax = _figure(width + 2.0, 4.2)
    ax.set_title("Calibration: Krippendorff's α per code across rounds", loc="left")
    rounds = sorted({int(r["round"]) for r in results})
    codes = sorted({str(r["code"]) for r in results})
    if not rounds:
        ax.axis("off")
        ax.text(0.5, 0.5, "No closed calibration round", ha="center", va="center",
                color="#6b6b6b", transform=ax.transAxes)
        return fig
    spread = 0.25 / max(len(codes), 1)
    for i, code in enumerate(codes):
        mine = sorted((r for r in results if r["code"] == code and r["alpha"] is not None),
                      key=lambda r: r["round"])
        if not mine:
            continue
        shift = (i - (len(codes) - 1) / 2) * spread
        xs = [int(r["round"]) + shift for r in mine]
        ys = [float(r["alpha"]) for r in mine]
        line = ax.plot(xs, ys, "-", lw=1.2, label=labels.get(code, code))[0]
        colour = line.get_color()
        for x, r in zip(xs, mine, strict=True):
            if r["ci_low"] is not None and r["ci_high"] is not None:
                ax.plot([x, x], [r["ci_low"], r["ci_high"]], "-", lw=1.0, color=colour,
                        alpha=0.6)
            ax.plot([x], [r["alpha"]], "o", ms=6, color=colour,
                    mfc=colour if r["met"] else "white", mew=1.4)
    for value in sorted(set(thresholds.values())):
        ax.axhline(value, ls="--", lw=1.0, color="#555555")
        ax.text(rounds[-1] + 0.3, value, f"threshold {value:.3f}", va="bottom", ha="right",
                fontsize=7.5, color="#555555")
    ax.set_xticks(rounds, [f"round {n}" for n in rounds])
    ax.set_xlim(rounds[0] - 0.5, rounds[-1] + 0.5)
    lows = [float(r["ci_low"]) for r in results if r["ci_low"] is not None]
    ax.set_ylim(max(-1.0, min([0.0, *lows]) - 0.05), 1.02)
    ax.set_ylabel("α (95% interval)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7.5)
    caption(fig, "Each code's α among the round's coders on its conversations, with its 95% "
            "interval; a filled dot: the interval's lower end reached the threshold set before "
            "the round; hollow: it did not.")
    return fig
