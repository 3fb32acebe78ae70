"""The calibration story in words, for the methods paragraph and the report: how many
rounds, on how many units and coders, under which codebook versions, alpha per code per
round with its interval, what changed in the codebook between rounds, the threshold and
when each code first met it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


def _f(x: float | None) -> str:
    if x is None:
        return "undefined"
    text = f"{x:.3f}"
    return text.replace("0.", ".", 1) if abs(x) < 1 else text


def calibration_sentences(rounds: Sequence[Mapping[str, Any]],
                          results: Sequence[Mapping[str, Any]],
                          changed: Mapping[int, Sequence[str]],
                          esc: Callable[[str], str] = str, minus: str = "-") -> list[str]:
    """Sentences telling the calibration (closed rounds only); ``changed[n]`` are the codes
    whose meaning changed between round n-1's codebook version and round n's."""
    closed = [r for r in rounds if r.get("closed_at")]
    if not closed:
        return []

    def num(x: float | None) -> str:
        return _f(x).replace("-", minus)

    thresholds = sorted({float(r["threshold"]) for r in closed})
    out = [
        f"Before the main coding the coders were calibrated in {len(closed)} round"
        f"{'s' if len(closed) != 1 else ''} (Krippendorff, 2019; Neuendorf, 2017). In each, "
        "a seeded sample of conversations was coded by every coder of the round and a code "
        "met the threshold when the lower end of its alpha's 95% confidence interval "
        f"reached {' or '.join(num(t) for t in thresholds)}, a threshold set before the "
        "round began."]
    first_met: dict[str, int] = {}
    for r in closed:
        mine = [x for x in results if x["round"] == r["number"]]
        figures = "; ".join(
            f"{esc(str(x['code']))} {num(x['alpha'])} [{num(x['ci_low'])}, {num(x['ci_high'])}]"
            for x in mine)
        met = [str(x["code"]) for x in mine if x["met"]]
        for code in met:
            first_met.setdefault(code, int(r["number"]))
        what = changed.get(int(r["number"]), [])
        revised = (f" after the codebook was revised ({esc(', '.join(what))} changed)"
                   if what else "")
        out.append(
            f"Round {r['number']}{revised}: {r['sample']} conversations, "
            f"{len(r['coders'])} coders, codebook version {r['codebook_version']}; alpha "
            f"[95% CI]: {figures}; {len(met)} of {len(mine)} codes met the threshold.")
    all_codes = sorted({str(x["code"]) for x in results})
    never = [c for c in all_codes if c not in first_met]
    if first_met:
        out.append("Each code first met the threshold in: " + ", ".join(
            f"{esc(c)} round {n}" for c, n in sorted(first_met.items())) + "."
            + (f" {esc(', '.join(never))} did not meet it in any round." if never else ""))
    return out
