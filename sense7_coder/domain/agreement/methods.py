"""A methods paragraph and results table for a paper, from an agreement report
(:func:`methods_text`), in Markdown or LaTeX.

The paragraph states what is needed to reproduce the numbers: the coefficients and their
levels and weights, the coders and units, how missing and "not applicable" ratings were
handled, the interval method, draws and seed, the minimum number of units, the software
and version and the versions of numpy, scipy and krippendorff that computed them, with
references.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..measures import ALPHA, CITATIONS, ICC, MEASURES_BY_KEY, name_of, paper_measures
from ..versions import library_versions
from ..words import count
from .records import APPLICABILITY, BAND_RULE, AgreementRecord
from .report import AgreementReport

FORMATS = ("markdown", "latex")

#: the works the interval sentences cite whatever the measures (BCa intervals)
METHOD_CITATIONS = ("efron",)


@dataclass
class MethodsContext:
    """How the report was computed (what the records alone do not say)."""

    software: str
    version: str
    bootstrap: int
    seed: int | None
    ci: str
    min_units: int
    filters: str = ""
    #: which coders' values entered (one sentence; '' = not said)
    values: str = ""
    #: the sentence on figures against a consensus made of the coders' own majority
    by_construction: str = ""
    #: library -> version of what computed the figures (None: the installed ones)
    libraries: dict[str, str] | None = None
    #: the sentence on models' suggestions compared as raters ('' = none entered)
    models: str = ""
    #: the calibration rounds: (rounds, their figures, round -> codes changed since the
    #: round before), told after the agreement (None: no round)
    calibration: tuple[Any, Any, Any] | None = None


def _fmt(value: float | None) -> str:
    if value is None:
        return "undefined"
    text = f"{value:.3f}"
    return text.replace("0.", ".", 1) if text.startswith(("0.", "-0.")) else text


def _ci(r: AgreementRecord) -> str:
    if r.ci_low is None or r.ci_high is None:
        return ""
    return f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]"


def _q(value: float | None) -> str:
    return "" if value is None else _fmt(value)


def _what(r: AgreementRecord) -> str:
    """A figure in the table's Coefficient column: the measure's short name, with its
    level or weights (an ICC by its form)."""
    if r.form:
        return r.form
    m = MEASURES_BY_KEY.get(r.measure)
    what = m.short if m else r.measure
    if r.level:
        return f"{what} ({r.level})"
    if r.weights and r.weights != "none":
        return f"{what} ({r.weights})"
    return what


def paper_records(report: AgreementReport) -> list[AgreementRecord]:
    """The figures a paper's table holds: per code, the coefficients over all its coders
    of every measure the measures table marks for the paper (alpha and applicability
    alpha, AC1, AC2, Brennan–Prediger, ICC, ...), in the table's order -- not the pairs,
    the comparisons with references, or a measure of fewer raters than the code has (Scott's
    pi with three coders: the command line and the window say why it is undefined)."""
    paper = paper_measures()
    order = {m.key: i for i, m in enumerate(paper)}
    covers = {m.key: m.covers for m in paper}
    out = []
    for code in report.codes:
        records = report.for_code(code)
        group = next((r.coders for r in records if r.measure == ALPHA), None)
        mine = [r for r in records if r.measure in order and r.coders == group
                and covers[r.measure](len(r.coders))]
        out += sorted(mine, key=lambda r: order[r.measure])
    return out


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_LATEX = {"\\": "\\textbackslash{}", "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#",
          "_": "\\_", "{": "\\{", "}": "\\}", "~": "\\textasciitilde{}",
          "^": "\\textasciicircum{}", "<": "\\textless{}", ">": "\\textgreater{}",
          "|": "\\textbar{}"}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX))
_MARKDOWN = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
#: backslash-escaped in Markdown: what could start emphasis, code, a link, a table cell,
#: math or strike-through in the middle of a line (HTML's < > & as entities)
_MARKDOWN_RE = re.compile(r"[\\`*_\[\]|~$&<>]")


def _latex_escape(text: str) -> str:
    """Text as LaTeX prints it literally (every special character, control characters as
    spaces)."""
    return _LATEX_RE.sub(lambda m: _LATEX[m.group()], _CONTROL.sub(" ", text))


def _markdown_escape(text: str) -> str:
    """Text as Markdown shows it literally: no HTML, emphasis, link, code, math or table
    cell break from a name (control characters as spaces)."""
    return _MARKDOWN_RE.sub(lambda m: _MARKDOWN.get(m.group(), "\\" + m.group()),
                            _CONTROL.sub(" ", text))


def _paragraph(report: AgreementReport, rows: Sequence[AgreementRecord],
               ctx: MethodsContext, latex: bool) -> str:
    """The paragraph, names escaped for the format (Markdown or LaTeX) and the prose
    written in it."""
    esc = _latex_escape if latex else _markdown_escape
    codes = [esc(c) for c in report.codes]
    coders = [esc(c) for c in sorted({c for r in rows for c in r.coders})]
    measures = {r.measure for r in rows}
    levels = sorted({r.level for r in rows if r.measure == ALPHA and r.level != APPLICABILITY
                     and r.level})
    units = [r.n_units for r in rows if r.measure == ALPHA and r.level != APPLICABILITY]
    alpha = "$\\alpha$" if latex else "alpha"
    pct = "\\%" if latex else "%"
    amp = "\\&" if latex else "&"
    quote = ("``", "''") if latex else ('"', '"')
    libraries = ctx.libraries if ctx.libraries is not None else library_versions()
    with_libs = ", ".join(f"{name} {v}" for name, v in libraries.items())
    parts = [
        f"Inter-rater agreement was computed with {esc(ctx.software)} {esc(ctx.version)} "
        + (f"({esc(with_libs)}) " if with_libs else "") + "for "
        f"{len(codes)} code{'s' if len(codes) != 1 else ''} ({', '.join(codes)}) rated by "
        f"{count(len(coders), 'coder')} ({', '.join(coders)})"
        + (f", restricted to {esc(ctx.filters)}" if ctx.filters else "") + ".",
        f"We report Krippendorff's {alpha} (Krippendorff, 2011) at each code's level of "
        f"measurement ({', '.join(esc(lv) for lv in levels) or 'as declared'}) over the "
        f"code's declared scale; a unit entered when at least two coders rated it"
        + (f" ({min(units)} to {max(units)} units per code)" if units and min(units) != max(units)
           else f" ({units[0]} units)" if units else "") + ".",
    ]
    if ctx.values:
        parts.append(esc(ctx.values))
    extra = [m.methods.replace("&", amp) for m in paper_measures()
             if m.methods and m.key in measures]
    if extra:
        parts.append("We also report " + "; ".join(extra) + ".")
    if any(r.level == APPLICABILITY for r in rows):
        parts.append(
            f"{quote[0]}Not applicable{quote[1]} was treated as missing in these figures; "
            f"whether a code applied was assessed separately by nominal {alpha} on "
            f"applicable versus not applicable over every coding of the codes that allow it.")
    if ctx.by_construction:
        parts.append(esc(ctx.by_construction))
    if ctx.models:
        parts.append(esc(ctx.models))
    parts += _interval_sentences(rows, ctx, alpha, esc, pct)
    parts.append(_band_sentence(ctx, alpha, latex, esc))
    if ctx.calibration is not None:
        from .calibration import calibration_sentences

        parts += calibration_sentences(*ctx.calibration, esc=esc,
                                       minus="$-$" if latex else "-")
    return " ".join(parts)


def _undefined_draws_text(rows: Sequence[AgreementRecord],
                          esc: Callable[[str], str]) -> str:
    """Which figures lost draws to being undefined, as the table's figures are named."""
    lost = [r for r in rows if r.draws and r.undefined_draws]
    if not lost:
        return "no draw left a coefficient undefined"
    listed = ", ".join(f"{esc(r.code)} {esc(_what(r))}: {r.undefined_draws} of {r.draws}"
                       for r in lost)
    return f"draws in which a coefficient was undefined were left out ({listed})"


def _method_words(booted: Sequence[AgreementRecord]) -> str:
    """The bootstrap method(s) the intervals were made with, as each record says."""
    bca = "bias-corrected and accelerated (BCa; Efron, 1987)"
    used = {r.ci_method for r in booted}
    if used == {"bca"}:
        return bca
    if used == {"percentile"}:
        return "percentile"
    from .bootstrap import BCA_BELOW_UNITS

    return (f"{bca} for figures over fewer than {BCA_BELOW_UNITS} units, where the "
            "percentile interval covered the true value too seldom in simulated studies "
            "(the tool's validation document), and percentile from "
            f"{BCA_BELOW_UNITS} units on")


def _interval_sentences(rows: Sequence[AgreementRecord], ctx: MethodsContext,
                        alpha: str, esc: Callable[[str], str], pct: str) -> list[str]:
    """How each coefficient's interval was made, and what q is."""
    if ctx.bootstrap <= 0:
        return ["No confidence intervals were computed."]
    out = []
    booted = [r for r in rows if r.draws]
    if booted:
        method = _method_words(booted)
        seed = "a random seed" if ctx.seed is None else f"seed {ctx.seed}"
        names = sorted({name_of(r.measure) for r in booted})
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        out.append(
            f"95{pct} confidence intervals of {esc(listed)} are {method} bootstrap intervals "
            f"over units, holding the coders fixed ({ctx.bootstrap} draws, {seed}); "
            f"{_undefined_draws_text(booted, esc)}.")
    if any(r.measure == ICC and r.ci_method for r in rows):
        out.append(
            f"95{pct} confidence intervals of ICC1, ICC1k, ICC3 and ICC3k are McGraw and "
            "Wong's (1996) F-based intervals, each under its form's model (ICC1 and ICC1k "
            "one-way random, ICC3 and ICC3k with the coders fixed); those of ICC2 and ICC2k, "
            "with the coders a random sample, are generalized confidence intervals "
            "(Weerahandi, 1993) from 20,000 chi-square pivots of the variance components, "
            "because McGraw and Wong's Satterthwaite-based interval for them covered only "
            f"about 90{pct} of simulated studies with three coders at 100 units (the tool's "
            "validation document).")
        if any(r.warning and r.value is not None for r in rows if r.form in ("ICC1", "ICC1k")):
            out.append(
                "ICC1 and ICC1k are reported with a caution: every coder rated every unit (a "
                "crossed design), while their one-way model assumes each unit rated by other, "
                "randomly drawn coders, so a difference in the coders' levels counts as error "
                f"and their intervals can hold the true value far less often than 95{pct} "
                "of the time; ICC2 (coders a random sample) and ICC3 (these coders) fit the "
                "design.")
    if any(r.measure == ALPHA and r.q_below_667 is not None for r in rows):
        out.append(
            f"q is the share of the unit-bootstrap draws in which {alpha} fell below .667 "
            f"and .800, read as the probability Hayes and Krippendorff (2007) propose of "
            f"falling short of these minimums (their own procedure resamples pairs of "
            f"values; ours resamples units).")
    return out


def _band_sentence(ctx: MethodsContext, alpha: str, latex: bool,
                   esc: Callable[[str], str]) -> str:
    """How a band was read (the rule every front end states)."""
    geq = "$\\geq$" if latex else ">="
    return (f"Following Krippendorff's conventions, {alpha} {geq} .800 was read as good and "
            f".667 to .800 as tentative, and {esc(BAND_RULE)}; figures from fewer than "
            f"{ctx.min_units} units are marked as too few units.")


#: the table's columns that hold numbers (estimate, interval, the two q columns)
_NUMBER_COLUMNS = frozenset({5, 6, 7, 8})


def _latex_cell(text: str, number: bool) -> str:
    """A table cell for LaTeX; in a number a minus sign is typeset as one (a bare hyphen
    prints as a short dash in text mode)."""
    escaped = _latex_escape(text)
    return escaped.replace("-", "$-$") if number else escaped


def references(rows: Sequence[AgreementRecord], ctx: MethodsContext) -> list[tuple[str, str]]:
    """The works cited, by key: those of every measure in the paragraph (from the
    measures table), the interval methods', and the calibration's two only when rounds
    are told."""
    keys = set(METHOD_CITATIONS)
    present = {r.measure for r in rows}
    keys.update(c for m in paper_measures() if m.key in present for c in m.citations)
    if ctx.calibration is not None:
        keys.update(("kripp2019", "neuendorf"))
    return sorted((key, CITATIONS[key]) for key in keys)


def methods_text(report: AgreementReport, ctx: MethodsContext, fmt: str = "markdown") -> str:
    """The methods paragraph, the results table and the references."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    rows = paper_records(report)
    latex = fmt == "latex"
    header = ["Code", "Coefficient", "Coders", "Units", "Values", "Estimate", "95% CI",
              "q(<.667)", "q(<.800)", "Band"]
    table = [[r.code, _what(r), str(len(r.coders)), str(r.n_units), str(r.n_values),
              _fmt(r.value), _ci(r),
              _q(r.q_below_667) if r.measure == ALPHA else "",
              _q(r.q_below_800) if r.measure == ALPHA else "", r.band()] for r in rows]
    body = _paragraph(report, rows, ctx, latex)
    if not latex:
        esc = _markdown_escape
        lines = ["## Inter-rater agreement", "", body, "",
                 "| " + " | ".join(header) + " |",
                 "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(esc(cell) or " " for cell in row) + " |" for row in table]
        lines += ["", "### References", ""]
        lines += [f"- {text}" for _, text in references(rows, ctx)]
        return "\n".join(lines) + "\n"
    lines = ["\\subsection*{Inter-rater agreement}", "", body, "",
             "\\begin{table}[ht]", "\\centering", "\\small",
             "\\begin{tabular}{ll" + "r" * (len(header) - 3) + "l}", "\\hline",
             " & ".join(_latex_escape(h).replace("<", "$<$") for h in header) + " \\\\",
             "\\hline"]
    lines += [" & ".join(_latex_cell(c, i in _NUMBER_COLUMNS) for i, c in enumerate(row))
              + " \\\\" for row in table]
    lines += ["\\hline", "\\end{tabular}",
              f"\\caption{{Inter-rater agreement ({_latex_escape(ctx.software)} "
              f"{_latex_escape(ctx.version)}).}}", "\\end{table}", "",
              "\\begin{thebibliography}{9}"]
    lines += [f"\\bibitem{{{key}}} {_latex_escape(text)}" for key, text in references(rows, ctx)]
    lines += ["\\end{thebibliography}"]
    return "\n".join(lines) + "\n"
