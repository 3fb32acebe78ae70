"""The SENSE-7 paper's descriptive analyses as tidy pandas tables.

Everything works on one long frame of ratings (see :data:`VALUE_COLUMNS`): one row per
rater x assistant turn x dimension, ``value`` the level (NaN when the rater said not
applicable, ``na`` True then). The rater is ``users`` for the users' own ratings, a coder's
name, or ``consensus``. Conversation-level codes have ``position`` 0.

* **Distribution**: per dimension the count and share of every level (and of not applicable).
* **Means by group** (model, topic, participant): each conversation's mean per dimension
  first, then per group the mean of those with a 95% t-interval over conversations
  (conversations are the independent units; a participant's turns are not).
* **Individual differences**: per participant the mean, SD and number of rated turns, and
  ICC(1) -- the share of the variance of turn ratings that lies between participants --
  from the one-way random-effects ANOVA, with the group-size correction for unequal groups
  (``k0``); 0 means participants do not differ more than their turns do.
* **Course**: per assistant-turn number (1st, 2nd ... assistant turn) the mean with a 95%
  t-interval.
* **Continuity breaks**: consecutive rated assistant turns of one conversation (and rater)
  where the rating falls by two levels or more.
* **Desired vs experienced**: where conversations hold a desired-empathy attribute.
* **Codes**: frequency of every value of every code, co-occurrence of present binary codes
  on the same unit, and crosstabs of any code by any conversation attribute.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

VALUE_COLUMNS = ("conversation_id", "participant_id", "model", "topic", "position",
                 "turn_index", "rater", "dimension", "value", "na")


def _shown(value: Any) -> str:
    """A coded value as text; 'NA' for not applicable (None, NaN, pandas' NA)."""
    import pandas as pd

    return "NA" if value is None or pd.isna(value) else str(value)


def _t_interval(values: Any) -> tuple[float, float, float, float, int]:
    """(mean, sd, low, high, n) with a 95% t-interval; NaN where undefined."""
    from scipy import stats

    n = int(len(values))
    if n == 0:
        return (math.nan, math.nan, math.nan, math.nan, 0)
    mean = float(values.mean())
    if n < 2:
        return (mean, math.nan, math.nan, math.nan, n)
    sd = float(values.std(ddof=1))
    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return (mean, sd, mean - half, mean + half, n)


def distribution(values: Any, levels: Sequence[int] = (1, 2, 3, 4, 5)) -> Any:
    """dimension, level ('NA' for not applicable), n, share (of the dimension's values)."""
    import pandas as pd

    rows = []
    for dim, part in values.groupby("dimension", sort=False, observed=True):
        total = len(part)
        counts = part.loc[~part["na"], "value"].round().astype("int64").value_counts()
        for level in sorted(set(levels) | set(int(v) for v in counts.index)):
            n = int(counts.get(level, 0))
            rows.append((dim, str(level), n, n / total if total else math.nan))
        n_na = int(part["na"].sum())
        rows.append((dim, "NA", n_na, n_na / total if total else math.nan))
    return pd.DataFrame(rows, columns=["dimension", "level", "n", "share"])


def conversation_means(values: Any) -> Any:
    """One row per conversation x dimension: the mean over its rated turns (and raters)."""
    rated = values[~values["na"]]
    return (rated.groupby(["conversation_id", "participant_id", "model", "topic", "dimension"],
                          sort=False, observed=True, dropna=False)["value"]
            .mean().reset_index())


def means_by(values: Any, group: str, conv_means: Any = None) -> Any:
    """group, dimension, n (conversations), mean, sd, ci_low, ci_high."""
    import pandas as pd

    conv = conversation_means(values) if conv_means is None else conv_means
    rows = []
    for (g, dim), part in conv.groupby([group, "dimension"], sort=False, observed=True,
                                       dropna=False):
        mean, sd, low, high, n = _t_interval(part["value"])
        rows.append((("" if g is None or g != g else g), dim, n, mean, sd, low, high))
    table = pd.DataFrame(rows, columns=[group, "dimension", "n", "mean", "sd", "ci_low",
                                        "ci_high"])
    return table.sort_values(group, kind="stable").reset_index(drop=True)


def icc1(scores: Any, groups: Any) -> tuple[float | None, int, int, float]:
    """ICC(1) of ``scores`` grouped by ``groups``: (icc or None, groups, n, k0)."""
    import pandas as pd

    frame = pd.DataFrame({"s": scores, "g": groups}).dropna()
    sizes = frame.groupby("g")["s"].size()
    sizes = sizes[sizes > 0]
    a, n = len(sizes), int(sizes.sum())
    if a < 2 or n - a < 1:
        return None, a, n, math.nan
    grand = frame["s"].mean()
    means = frame.groupby("g")["s"].mean()
    ssb = float((sizes * (means - grand) ** 2).sum())
    ssw = float(((frame["s"] - frame["g"].map(means)) ** 2).sum())
    msb, msw = ssb / (a - 1), ssw / (n - a)
    k0 = (n - float((sizes ** 2).sum()) / n) / (a - 1)
    denom = msb + (k0 - 1) * msw
    if denom <= 0:
        return None, a, n, k0
    return (msb - msw) / denom, a, n, k0


def individual_differences(values: Any) -> tuple[Any, Any]:
    """(per participant x dimension: mean, sd, n turns; per dimension: ICC(1))."""
    import pandas as pd

    rated = values[~values["na"] & values["participant_id"].notna()]
    per = (rated.groupby(["participant_id", "dimension"], sort=False, observed=True)["value"]
           .agg(["mean", "std", "size"]).reset_index()
           .rename(columns={"std": "sd", "size": "n"}))
    rows = []
    for dim, part in rated.groupby("dimension", sort=False, observed=True):
        icc, a, n, k0 = icc1(part["value"].to_numpy(float), part["participant_id"].to_numpy())
        rows.append((dim, icc, a, n, k0))
    icc_table = pd.DataFrame(rows, columns=["dimension", "icc1", "participants", "n", "k0"])
    return per, icc_table


def course(values: Any) -> Any:
    """dimension, turn_index, n, mean, sd, ci_low, ci_high (assistant-turn number)."""
    import pandas as pd

    rated = values[~values["na"] & (values["turn_index"] > 0)]
    rows = []
    for (dim, idx), part in rated.groupby(["dimension", "turn_index"], sort=False,
                                          observed=True):
        mean, sd, low, high, n = _t_interval(part["value"])
        rows.append((dim, int(idx), n, mean, sd, low, high))
    table = pd.DataFrame(rows, columns=["dimension", "turn_index", "n", "mean", "sd",
                                        "ci_low", "ci_high"])
    order = {d: i for i, d in enumerate(dict.fromkeys(rated["dimension"]))}
    return table.sort_values(["dimension", "turn_index"], key=lambda c: c.map(order)
                             if c.name == "dimension" else c, kind="stable"
                             ).reset_index(drop=True)


def continuity_breaks(values: Any, drop: int = 2) -> Any:
    """Consecutive rated assistant turns (per conversation, rater, dimension) where the value
    falls by ``drop`` levels or more: conversation_id, participant_id, rater, dimension,
    previous_position, position, previous_value, value, fall."""
    rated = values[~values["na"] & (values["position"] > 0)].sort_values(
        ["rater", "dimension", "conversation_id", "position"], kind="stable")
    key = ["rater", "dimension", "conversation_id"]
    prev = rated.groupby(key, sort=False, observed=True)[["value", "position"]].shift(1)
    out = rated.assign(previous_value=prev["value"], previous_position=prev["position"])
    out = out[(out["previous_value"] - out["value"]) >= drop].copy()
    out["fall"] = out["previous_value"] - out["value"]
    out["previous_position"] = out["previous_position"].astype("int64")
    cols = ["conversation_id", "participant_id", "model", "rater", "dimension",
            "previous_position", "position", "previous_value", "value", "fall"]
    return out[cols].reset_index(drop=True)


def desired_vs_experienced(conversations: Any, conv_means: Any, desired: str,
                           experienced: Sequence[str]) -> tuple[Any, Any]:
    """Per conversation the desired empathy (attribute ``desired``), the experienced one
    (mean of the ``experienced`` attributes, e.g. the post-task empathy items) and the
    mean rating over its turns; plus a one-row summary with Spearman's rho of each."""
    import pandas as pd

    from .prediction.evaluation import spearman

    rating = conv_means.groupby("conversation_id", sort=False)["value"].mean()
    attrs = pd.DataFrame(list(conversations["attributes"]), index=conversations.index)
    table = pd.DataFrame({
        "conversation_id": conversations["conversation_id"],
        "participant_id": conversations["participant_id"],
        "desired": pd.to_numeric(attrs.get(desired), errors="coerce"),
    })
    if experienced:
        post = attrs.reindex(columns=list(experienced)).apply(pd.to_numeric, errors="coerce")
        table["experienced"] = post.mean(axis=1, skipna=True)
    else:
        table["experienced"] = math.nan
    table["mean_turn_rating"] = table["conversation_id"].map(rating)
    table["experienced_minus_desired"] = table["experienced"] - table["desired"]
    rows = []
    for col in ("experienced", "mean_turn_rating"):
        both = table[["desired", col]].dropna()
        rows.append({"compared": col, "n": len(both),
                     "mean_desired": both["desired"].mean() if len(both) else math.nan,
                     "mean_other": both[col].mean() if len(both) else math.nan,
                     "spearman": spearman(both["desired"].tolist(), both[col].tolist())})
    return table, pd.DataFrame(rows)


def code_frequency(codings: Any) -> Any:
    """code, value, n, share (of the code's values) from a frame of coder, code, value."""
    import pandas as pd

    rows = []
    for code, part in codings.groupby("code", sort=False, observed=True):
        total = len(part)
        shown = part["value"].astype(object).map(_shown)
        for value, n in shown.value_counts(sort=False).sort_index().items():
            rows.append((code, value, int(n), n / total))
    return pd.DataFrame(rows, columns=["code", "value", "n", "share"])


def cooccurrence(codings: Any, binary_codes: Sequence[str]) -> Any:
    """code_a, code_b, n_both, n_a, n_b, jaccard: present binary codes on the same unit
    (rater, conversation, turn)."""
    import pandas as pd

    present = codings[codings["code"].isin(list(binary_codes)) & (codings["value"] == 1)]
    units = present.groupby(["rater", "conversation_id", "position"], observed=True)["code"]
    sets = [frozenset(s) for s in units.agg(lambda s: tuple(s)).tolist()]
    count = {c: sum(c in s for s in sets) for c in binary_codes}
    rows = []
    for i, a in enumerate(binary_codes):
        for b in binary_codes[i:]:
            both = sum(a in s and b in s for s in sets)
            union = count[a] + count[b] - both
            rows.append((a, b, both, count[a], count[b], both / union if union else math.nan))
    return pd.DataFrame(rows, columns=["code_a", "code_b", "n_both", "n_a", "n_b", "jaccard"])


def crosstabs(codings: Any, conversations: Any, max_values: int = 20) -> Any:
    """code, attribute, attribute_value, value, n: every code's values by every
    conversation attribute (and model, topic) with at most ``max_values`` distinct values."""
    import pandas as pd

    attrs = pd.DataFrame(list(conversations["attributes"]), index=conversations.index)
    attrs["model"] = conversations["model"].to_numpy()
    attrs["topic"] = conversations["topic"].to_numpy()
    attrs["conversation_id"] = conversations["conversation_id"].to_numpy()
    shown = codings.assign(value=codings["value"].astype(object).map(_shown))
    parts = []
    for name in [c for c in attrs.columns if c != "conversation_id"]:
        col = attrs[["conversation_id", name]].dropna()
        if col.empty or col[name].astype(str).nunique() > max_values:
            continue
        merged = shown.merge(col.assign(**{name: col[name].astype(str)}), on="conversation_id")
        if merged.empty:
            continue
        counts = merged.groupby(["code", name, "value"], observed=True).size().reset_index(
            name="n")
        counts = counts[counts["n"] > 0].rename(columns={name: "attribute_value"})
        counts.insert(1, "attribute", name)
        parts.append(counts)
    if not parts:
        return pd.DataFrame(columns=["code", "attribute", "attribute_value", "value", "n"])
    return pd.concat(parts, ignore_index=True)
