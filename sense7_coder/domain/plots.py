"""Every figure of sense7-coder, drawn with matplotlib in one look.

Figures are built on :class:`matplotlib.figure.Figure` with the Agg canvas (no pyplot, no
GUI backend), so they draw the same in the window (as an image) and in PNG/SVG files, in
any thread. matplotlib is imported inside the functions: importing this module is cheap.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: one palette for every figure (colour-blind safe, Okabe-Ito)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
           "#000000"]
#: ordered levels 1..5 (very poor .. very good) in one sequential ramp, light to dark, that
#: stays ordered in grey and for every colour-vision deficiency (ColorBrewer's YlGnBu);
#: not applicable is white, hatched and outlined, apart from every level
LEVEL_COLOURS = ["#ffffcc", "#a1dab4", "#41b6c4", "#2c7fb8", "#253494"]
NA_COLOUR = "#ffffff"
NA_HATCH = "////"
NA_EDGE = "#555555"
#: the SENSE-7 scale's words, for legends (a level without one shows its number)
LEVEL_LABELS = {"1": "very poor", "2": "poor", "3": "neutral", "4": "good", "5": "very good"}
SCALE = (1.0, 5.0)
CAPTION_STYLE: Any = {"fontsize": 7.5, "color": "#444444", "x": 0.01, "ha": "left"}
BAND_COLOURS = {"low": "#fbe3e1", "tentative": "#fdf1d8", "good": "#e2f2e2"}
#: typed loosely: matplotlib types rcParams keys as literals
STYLE: Any = {
    "font.size": 9.0,
    "axes.titlesize": 10.5,
    "axes.titleweight": "bold",
    "axes.labelsize": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "legend.frameon": False,
    "legend.fontsize": 8.0,
    "svg.fonttype": "none",
    "savefig.dpi": 150,
    # names come from the project (codes, levels, models, coders, attributes): a '$' pair
    # in one is text to show, never TeX or mathtext to typeset (which fails on '$\x$')
    "text.usetex": False,
    "text.parse_math": False,
}


def _figure(width: float, height: float) -> Any:
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with rc_context(STYLE):
        fig = Figure(figsize=(width, height), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
    return fig, ax


def _styled(draw: Any) -> Any:
    """Run a drawing function with the shared style in force (rcParams are read while
    artists are created)."""
    import functools

    @functools.wraps(draw)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from matplotlib import rc_context

        with rc_context(STYLE):
            return draw(*args, **kwargs)

    return wrapper


def caption(fig: Any, text: str) -> None:
    """A line under the figure saying what it shows and how it was computed (wrapped where
    the figure is narrower than the sentence)."""
    import textwrap

    width = max(40, int(fig.get_figwidth() * 16))
    fig.supxlabel("\n".join(textwrap.wrap(text, width)), **CAPTION_STYLE)


def level_name(level: str, labels: dict[str, str] | None = None) -> str:
    """'3 neutral' for a level of the scale, 'not applicable' for NA."""
    if level == "NA":
        return "not applicable"
    word = (labels or LEVEL_LABELS).get(str(level), "")
    return f"{level} {word}" if word and word != str(level) else str(level)


def clipped(mean: float, low: float, high: float, scale: tuple[float, float] = SCALE
            ) -> tuple[float, float]:
    """The error-bar lengths below and above ``mean`` of an interval cut to the scale (an
    undefined end draws nothing)."""
    lo, hi = scale
    below = mean - max(lo, low) if low == low else 0.0
    above = min(hi, high) - mean if high == high else 0.0
    return max(below, 0.0), max(above, 0.0)


def save(fig: Any, stem: Path, formats: Sequence[str] = ("png", "svg")) -> list[Path]:
    """Write ``stem.png`` and ``stem.svg`` (each under a temporary name, then renamed)."""
    from matplotlib import rc_context

    out = []
    for fmt in formats:
        path = stem.with_suffix("." + fmt)
        tmp = path.with_name(path.name + ".part")
        with rc_context(STYLE):
            fig.savefig(tmp, format=fmt)
        tmp.replace(path)
        out.append(path)
    return out


def png_bytes(fig: Any, dpi: float = 100) -> bytes:
    import io

    from matplotlib import rc_context

    buf = io.BytesIO()
    with rc_context(STYLE):
        fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


@_styled
def distribution(table: Any, title: str = "Distribution of levels per dimension",
                 labels: dict[str, str] | None = None) -> Any:
    """Stacked horizontal bars: share of each level (and not applicable) per dimension."""
    dims = list(dict.fromkeys(table["dimension"]))
    fig, ax = _figure(7.0, 0.45 * len(dims) + 1.9)
    left = [0.0] * len(dims)
    levels = [lv for lv in dict.fromkeys(table["level"]) if lv != "NA"] + ["NA"]
    totals = {d: int(table.loc[table["dimension"] == d, "n"].sum()) for d in dims}
    names = [f"{d} (n = {totals[d]:,})" for d in dims]
    for i, level in enumerate(levels):
        shares = []
        for d in dims:
            row = table[(table["dimension"] == d) & (table["level"] == level)]
            shares.append(float(row["share"].iloc[0]) if len(row) else 0.0)
        if level == "NA":
            ax.barh(names, shares, left=left, color=NA_COLOUR, edgecolor=NA_EDGE,
                    hatch=NA_HATCH, linewidth=0.6, label=level_name(level, labels))
        else:
            ax.barh(names, shares, left=left, color=LEVEL_COLOURS[min(i, len(LEVEL_COLOURS) - 1)],
                    edgecolor="white", linewidth=0.5, label=level_name(level, labels))
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of ratings")
    ax.grid(axis="y", visible=False)
    ax.legend(ncol=min(len(levels), 6), loc="lower left", bbox_to_anchor=(0.0, 1.02),
              borderaxespad=0.0, handlelength=1.4, columnspacing=1.0)
    ax.set_title(title, loc="left", pad=22)
    caption(fig, "Share of each level among a dimension's ratings (n = ratings); not "
            "applicable (hatched) is counted apart, never as a level.")
    return fig


@_styled
def means(table: Any, group: str, title: str, max_groups: int = 12) -> Any:
    """Mean per dimension (x) for each group (colour), with 95% intervals."""
    dims = list(dict.fromkeys(table["dimension"]))
    groups = list(dict.fromkeys(table[group]))
    if len(groups) > max_groups:  # the largest groups only
        sizes = table.groupby(group)["n"].max().sort_values(ascending=False)
        groups = [g for g in groups if g in set(sizes.index[:max_groups])]
        title += f" (the {max_groups} largest groups)"
    fig, ax = _figure(max(6.0, 0.9 * len(dims) + 2.5), 3.8)
    width = 0.8 / max(1, len(groups))
    for j, g in enumerate(groups):
        part = table[table[group] == g].set_index("dimension")
        xs, ys, lo, hi = [], [], [], []
        for i, d in enumerate(dims):
            if d not in part.index:
                continue
            row = part.loc[d]
            xs.append(i - 0.4 + width * (j + 0.5))
            ys.append(row["mean"])
            below, above = clipped(float(row["mean"]), float(row["ci_low"]),
                                   float(row["ci_high"]))
            lo.append(below)
            hi.append(above)
        n = int(part["n"].max()) if len(part) else 0
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", ms=4, capsize=2, lw=1,
                    color=PALETTE[j % len(PALETTE)], label=f"{g or '(none)'} (n = {n:,})")
    ax.set_xticks(range(len(dims)), dims, rotation=30, ha="right")
    ax.set_ylim(0.9, 5.1)
    ax.set_yticks([1, 2, 3, 4, 5], [level_name(str(v)) for v in range(1, 6)])
    ax.set_ylabel("mean level")
    ax.set_title(title, loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), title="n = conversations",
              title_fontsize=7.5)
    caption(fig, "Mean of each conversation's mean per dimension, with a 95% t-interval over "
            "conversations, cut to the 1-5 scale.")
    return fig


@_styled
def participants(per: Any, dimension: str, icc: float | None) -> Any:
    """Each participant's mean and SD on one dimension, sorted."""
    part = per[per["dimension"] == dimension].sort_values("mean")
    n = len(part)
    fig, ax = _figure(max(6.0, min(0.18 * n + 2, 14.0)), 3.6)
    xs = list(range(n))
    sd = part["sd"].fillna(0).to_numpy()
    bars = [clipped(float(m), float(m) - float(d), float(m) + float(d))
            for m, d in zip(part["mean"], sd, strict=True)]
    ax.errorbar(xs, part["mean"], yerr=[[b[0] for b in bars], [b[1] for b in bars]], fmt="o",
                ms=3.5, capsize=0, lw=0.8, color=PALETTE[0], ecolor="#9ecae1")
    if n <= 40:
        ax.set_xticks(xs, [str(p) for p in part["participant_id"]], rotation=90, fontsize=7)
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"{n} participants, sorted by mean")
    ax.set_ylim(0.8, 5.2)
    ax.set_ylabel(f"{dimension}: mean ± SD")
    share = "undefined" if icc is None else f"{icc:.2f}"
    ax.set_title(f"Individual differences in '{dimension}' (ICC(1) = {share}, "
                 f"{n:,} participants)", loc="left")
    caption(fig, "Each participant's mean rating and SD over their rated turns, sorted; "
            "ICC(1): the share of the variance that lies between participants.")
    return fig


@_styled
def course(table: Any, title: str = "Ratings over the course of the conversation") -> Any:
    """Mean per assistant-turn number with a 95% band, one line per dimension."""
    fig, ax = _figure(7.0, 3.8)
    for j, (dim, part) in enumerate(table.groupby("dimension", sort=False)):
        colour = PALETTE[j % len(PALETTE)]
        ax.plot(part["turn_index"], part["mean"], marker="o", ms=3, lw=1.2, color=colour,
                label=str(dim))
        if j == 0:  # one band keeps the lines readable
            ax.fill_between(part["turn_index"], part["ci_low"].clip(*SCALE),
                            part["ci_high"].clip(*SCALE), color=colour, alpha=0.15, lw=0,
                            label=f"{dim}: 95% CI")
            for x, k in zip(part["turn_index"], part["n"], strict=True):
                ax.annotate(f"n={int(k)}", (x, 1.0), xytext=(0, 2), textcoords="offset points",
                            ha="center", va="bottom", fontsize=6.5, color="#555555")
    ax.set_xlabel("assistant turn")
    ax.set_ylabel("mean level")
    ax.set_ylim(0.9, 5.1)
    caption(fig, "Mean rating per assistant turn (1st, 2nd, ...); band: the first line's 95% "
            "t-interval; n: its ratings at that turn.")
    from matplotlib.ticker import MaxNLocator

    first, last = int(table["turn_index"].min()), int(table["turn_index"].max())
    ax.set_xlim(first - 0.5, last + 0.5)
    if last - first < 12:
        ax.set_xticks(range(first, last + 1))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title, loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


@_styled
def desired_vs_experienced(table: Any, other: str, rho: float | None) -> Any:
    """Scatter (jittered) of desired empathy against experienced empathy."""
    import numpy as np

    both = table[["desired", other]].dropna()
    fig, ax = _figure(4.6, 4.2)
    rng = np.random.default_rng(0)
    jitter = rng.uniform(-0.12, 0.12, size=(2, len(both)))
    ax.scatter(both["desired"] + jitter[0], both[other] + jitter[1], s=14, alpha=0.6,
               color=PALETTE[0], edgecolor="none")
    ax.plot([1, 5], [1, 5], ls="--", lw=0.8, color="#888888")
    ax.set_xlim(0.6, 5.4)
    ax.set_ylim(0.6, 5.4)
    ax.set_xlabel("desired empathy (before the task)")
    ax.set_ylabel("experienced empathy" if other == "experienced" else "mean turn rating")
    share = "undefined" if rho is None else f"{rho:.2f}"
    ax.set_title(f"Desired vs experienced (ρ = {share}, n = {len(both)})", loc="left")
    caption(fig, "One dot per conversation (jittered); dashed: equal; ρ: Spearman.")
    return fig


@_styled
def code_frequency(table: Any, title: str = "Code frequency") -> Any:
    """Horizontal bars: how often each value of each code was given."""
    labels = [f"{c} = {v}" for c, v in zip(table["code"], table["value"], strict=True)]
    fig, ax = _figure(6.5, 0.22 * len(labels) + 1.3)
    codes = list(dict.fromkeys(table["code"]))
    colours = [PALETTE[codes.index(c) % len(PALETTE)] for c in table["code"]]
    bars = ax.barh(labels, table["n"], color=colours)
    for bar, value, colour in zip(bars, table["value"], colours, strict=True):
        if str(value) == "NA":  # not applicable stands apart from the values: hatched
            bar.set(facecolor=NA_COLOUR, edgecolor=colour, hatch=NA_HATCH, linewidth=0.8)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel("number of codings")
    ax.set_title(title, loc="left")
    ax.grid(axis="y", visible=False)
    caption(fig, f"How often each value of each code was given ({int(table['n'].sum()):,} "
            "codings in all).")
    return fig


@_styled
def cooccurrence(table: Any, title: str = "Co-occurrence of codes (Jaccard)") -> Any:
    import numpy as np

    codes = list(dict.fromkeys([*table["code_a"], *table["code_b"]]))
    m = np.full((len(codes), len(codes)), np.nan)
    counts = {}
    for a, b, j, n in zip(table["code_a"], table["code_b"], table["jaccard"], table["n_a"],
                          strict=True):
        if a == b:  # the diagonal says how often the code was given, not a Jaccard of 1
            counts[a] = int(n)
            continue
        m[codes.index(a), codes.index(b)] = m[codes.index(b), codes.index(a)] = j
    side = 0.5 * len(codes) + 2.4
    fig, ax = _figure(side + 2.0, side)
    image = ax.imshow(m, vmin=0, vmax=1, cmap="Blues")
    ax.set_xticks(range(len(codes)), codes, rotation=45, ha="right")
    ax.set_yticks(range(len(codes)), codes)
    ax.grid(False)
    for i in range(len(codes)):
        ax.text(i, i, f"n={counts.get(codes[i], 0)}", ha="center", va="center", fontsize=7,
                color="#555555")
        for k in range(len(codes)):
            if m[i, k] == m[i, k]:
                ax.text(k, i, f"{m[i, k]:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if m[i, k] > 0.6 else "black")
    fig.colorbar(image, ax=ax, shrink=0.8)
    ax.set_title(title, loc="left")
    caption(fig, "Jaccard index: units with both codes present / units with either; the "
            "diagonal gives how often each code was given.")
    return fig


#: the agreement bands' colours (the same hues as the agreement table)
BAND_INK = {"good": "#3f8f4f", "tentative": "#c99a2e", "low": "#b5483f",
            "undefined": "#8a8a8a"}
ALPHA_TITLE = "Krippendorff's α per code, with 95% bootstrap interval"



@dataclass
class AlphaItem:
    """One row of the alpha plot."""

    label: str
    value: float | None
    low: float | None
    high: float | None
    band: str
    note: str = ""

    @property
    def value_text(self) -> str:
        if self.value is None:
            return "undefined"
        ci = (f" [{self.low:.3f}, {self.high:.3f}]"
              if self.low is not None and self.high is not None else "")
        return f"{self.value:.3f}" + ci


def alpha_range(items: Sequence[AlphaItem]) -> tuple[float, float]:
    """Axis range: 0 to 1, widened downwards (in steps of .1, to -1 at most) to show every
    interval."""
    lows = [v for it in items for v in (it.value, it.low) if v is not None]
    lo = min([0.0, *lows])
    return (max(-1.0, math.floor(lo * 10 + 1e-9) / 10), 1.0)


def _short(note: str, limit: int = 70) -> str:
    first = note.split(";")[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


def alpha_height(n: int) -> float:
    """Figure height in inches for ``n`` rows."""
    return 0.36 * max(n, 1) + 1.25


@_styled
def alpha(items: Sequence[AlphaItem], good: float = 0.8, tentative: float = 0.667,
          width: float = 8.0, height: float | None = None, title: str = ALPHA_TITLE) -> Any:
    """Alpha per code: a dot at alpha, a whisker over the interval, the bands behind,
    dashed lines at .667 and .800 and the value with its interval on the right."""
    from matplotlib.transforms import blended_transform_factory

    n = max(1, len(items))
    fig, ax = _figure(width, height or alpha_height(n))
    ax.set_title(title, loc="left")
    if not items:
        ax.axis("off")
        ax.text(0.5, 0.5, "Run the agreement to see alpha per code", ha="center",
                va="center", color="#6b6b6b", transform=ax.transAxes)
        return fig
    from .agreement.records import band_hue

    lo, hi = alpha_range(items)
    for band, a, b in (("low", lo, tentative), ("tentative", tentative, good),
                       ("good", good, hi)):
        if b > a:
            ax.axvspan(a, b, color=BAND_COLOURS[band], lw=0, zorder=0)
    for x, name, side in ((tentative, ".667 tentative", "right"), (good, ".800 good", "left")):
        ax.axvline(x, ls="--", lw=1.0, color=BAND_INK["tentative" if x == tentative else "good"])
        ax.text(x + (-0.005 if side == "right" else 0.005), -0.62, name, ha=side, va="bottom",
                fontsize=7.5, color="#555555")
    right = blended_transform_factory(ax.transAxes, ax.transData)
    for i, it in enumerate(items):
        ink = BAND_INK.get(band_hue(it.band), BAND_INK["undefined"])
        if it.value is None or not math.isfinite(it.value):
            text = "undefined" + (f" — {_short(it.note)}" if it.note else "")
            ax.text(lo + 0.01 * (hi - lo), i, text, va="center", fontsize=8, color="#6b6b6b")
        else:
            if it.low is not None and it.high is not None:
                ax.errorbar([max(lo, it.value)], [i],
                            xerr=[[max(lo, it.value) - max(lo, it.low)],
                                  [min(hi, it.high) - max(lo, it.value)]],
                            fmt="none", ecolor=ink, elinewidth=1.8, capsize=4, capthick=1.5)
            ax.plot([max(lo, it.value)], [i], "o", ms=7, color=ink, mec="white", mew=1.2,
                    zorder=3)
        ax.text(1.015, i, it.value_text, transform=right, va="center", fontsize=8,
                color="#1f1f1f" if it.value is not None else "#6b6b6b", clip_on=False)
    ax.set_yticks(range(len(items)), [it.label for it in items])
    ax.set_ylim(n - 0.5, -0.75)
    ax.set_xlim(lo, hi)
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel("Krippendorff's α")
    caption(fig, "Dot: α; whisker: 95% bootstrap interval (cut to the axis); bands: below "
            ".667 low, .667-.800 tentative, .800 and above good.")
    # room on the right for the values
    fig.get_layout_engine().set(rect=(0, 0, 0.84, 1))
    return fig
