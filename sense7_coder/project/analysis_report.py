"""``index.html`` of ``analyze``: a report that reads top to bottom, not a folder listing.

Key figures first (agreement per code among the coders with intervals, each coder against
the users), then the paper's tables, each with a sentence on what it shows and how it was
computed, the first rows of the table itself and a link to its CSV. The figures are
embedded (PNG as data URIs) so the one file can be mailed or archived; nothing is fetched
from a network, and every text that comes from the project is escaped.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..domain.agreement_settings import DRAWS_DEFAULT, AgreementSettings
from ..domain.errors import Cancelled, ProjectError
from ..domain.progress import CancelFn
from ..domain.words import sentence
from ..store.conversations import ConversationFilter
from .project import Project
from .selection import Selection

#: bootstrap draws of the report's agreement figures (fixed seed: the report is repeatable)
AGREEMENT_DRAWS = DRAWS_DEFAULT
TABLE_ROWS = 25
#: name -> (heading, what the table shows and how it was computed)
SECTIONS: dict[str, tuple[str, str]] = {
    "distribution": (
        "How the levels are spread",
        "For each dimension, how many ratings gave each level 1-5 and how many said not "
        "applicable, with their share of the dimension's ratings. Not applicable is missing, "
        "never a level."),
    "means_by_assistant": (
        "Means by assistant",
        "Each conversation's mean per dimension first (its rated turns and raters), then per "
        "assistant the mean of those conversation means with a 95% t-interval; n counts "
        "conversations, the independent units."),
    "means_by_task": (
        "Means by task",
        "As for the assistants, per task (topic) chosen by the participant."),
    "means_by_participant": (
        "Means by participant",
        "As for the assistants, per participant."),
    "icc": (
        "Individual differences (ICC(1))",
        "Per dimension, the share of the variance of turn ratings that lies between "
        "participants (one-way random-effects ICC(1), corrected for unequal group sizes); 0: "
        "participants differ no more than their turns do."),
    "participants": (
        "Each participant's mean and SD",
        "Per participant and dimension the mean, SD and number of rated turns."),
    "course": (
        "Ratings over the course of the conversation",
        "Per assistant-turn number (1st, 2nd, ... assistant turn) and dimension, the mean "
        "rating with a 95% t-interval and the number of ratings."),
    "continuity_breaks": (
        "Continuity breaks",
        "Consecutive rated assistant turns of one conversation (and rater) where the rating "
        "falls by two levels or more, with the turn's text and the message before it."),
    "desired_vs_experienced_summary": (
        "Desired vs experienced empathy",
        "Spearman's rho between the empathy the participant wanted before the task and what "
        "they experienced (or the mean turn rating), over conversations."),
    "desired_vs_experienced": (
        "Desired vs experienced, per conversation",
        "One row per conversation: the desired empathy and the experienced one."),
    "code_frequency": (
        "Code frequency",
        "How often each value of each code was given, and its share of the code's codings."),
    "cooccurrence": (
        "Co-occurrence of codes",
        "For each pair of present/absent codes, the units where both were present, and the "
        "Jaccard index (both / either)."),
    "crosstabs": (
        "Codes by conversation attribute",
        "How often each value of each code was given per value of each conversation "
        "attribute."),
}
FIGURE_FOR = {"distribution": "distribution", "means_by_assistant": "means_by_assistant",
              "means_by_task": "means_by_task", "means_by_participant": "means_by_participant",
              "participants": "participants", "course": "course",
              "desired_vs_experienced_summary": "desired_vs_experienced",
              "code_frequency": "code_frequency", "cooccurrence": "cooccurrence"}

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
 max-width:62em;margin:2em auto;padding:0 1em;color:#1f1f1f;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #ddd;
 padding-bottom:.2em}h3{margin-top:1.6em}
.lede{color:#333}.meta{color:#555;font-size:.9em}
figure{margin:1em 0 1.5em}figure img{max-width:100%;border:1px solid #e3e3e3}
figcaption{color:#444;font-size:.92em}
table{border-collapse:collapse;font-size:.88em;margin:.6em 0}
th,td{padding:.25em .6em;border-bottom:1px solid #e6e6e6;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
.more{color:#555;font-size:.9em}.note{background:#fff7e0;padding:.4em .7em}
nav ol{columns:2}a{color:#0b5cad}
"""


@dataclass
class ReportInput:
    """What the analyses produced: tables by name, figure files, notes, the source."""

    out_dir: Path
    source: str
    tables: dict[str, Path]
    frames: dict[str, Any]
    figures: list[Path]
    notes: list[str]


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _cell(value: Any) -> str:
    if value is None:
        return '<td class="num">–</td>'
    if isinstance(value, float):
        if math.isnan(value):
            return '<td class="num">–</td>'
        return f'<td class="num">{value:.3f}</td>'
    if isinstance(value, int) and not isinstance(value, bool):
        return f'<td class="num">{value:,}</td>'
    text = str(value)
    if len(text) > 160:
        text = text[:159] + "…"
    return f"<td>{_e(text)}</td>"


def table_html(frame: Any, rows: int = TABLE_ROWS) -> str:
    """The first ``rows`` rows of a table as escaped HTML (numbers right-aligned)."""
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = []
    for record in frame.head(rows).itertuples(index=False):
        body.append("<tr>" + "".join(_cell(_plain(v)) for v in record) + "</tr>")
    more = (f'<p class="more">The first {rows} of {len(frame):,} rows.</p>'
            if len(frame) > rows else "")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


def _plain(value: Any) -> Any:
    """numpy scalars as Python ones; pandas' missing values as None."""
    try:
        import pandas as pd

        if value is None or (not isinstance(value, (list, dict, str)) and pd.isna(value)):
            return None
    except (TypeError, ValueError):
        pass
    item = getattr(value, "item", None)
    return item() if callable(item) else value


def image_html(path: Path, alt: str, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    svg = path.with_suffix(".svg")
    links = f'<a href="{_e(path.name)}">PNG</a>'
    if svg.exists():
        links += f' · <a href="{_e(svg.name)}">SVG</a>'
    # the figure carries its own key; the caption adds what it does not say, and the files
    text = f"{_e(caption)} ({links})" if caption else f"The figure as {links}."
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{_e(alt)}">'
            f"<figcaption>{text}</figcaption></figure>")


def versions() -> str:
    from importlib import metadata

    from .. import APP_NAME, __version__

    parts = [f"{APP_NAME} {__version__}"]
    for name in ("pandas", "numpy", "scipy", "matplotlib", "krippendorff"):
        try:
            parts.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join(parts)


# -- agreement ------------------------------------------------------------------------------

@dataclass
class AgreementPart:
    html: str
    figures: list[Path]
    notes: list[str]


def agreement_part(project: Project, filt: ConversationFilter | None, out_dir: Path,
                   figures: bool, draws: int = AGREEMENT_DRAWS,
                   cancel: CancelFn | None = None) -> AgreementPart:
    """Alpha per code among the coders, and each coder against the users, as the report's
    key figures and tables; empty with a note when there are not two coders to compare."""
    from ..domain import plots
    from ..domain.agreement import USERS_RATER
    from ..domain.agreement.bootstrap import method_text
    from ..domain.agreement.records import APPLICABILITY
    from .agreement import project_agreement

    settings = AgreementSettings(bootstrap=draws, seed=0, measures="alpha")
    try:
        report = project_agreement(project, Selection.of_conversations(
            filt, include_users=True, include_consensus=False), settings, cancel=cancel)
    except Cancelled:
        raise
    except ProjectError as e:
        return AgreementPart("", [], [f"agreement not computed: {e}"])
    labels = {c.key: c.label for c in project.codebook.codes}
    among = [r for r in report.records if USERS_RATER not in r.coders
             and r.level != APPLICABILITY and len(r.coders) >= 2]
    first: dict[str, Any] = {}
    for r in among:
        first.setdefault(r.code, r)
    among = list(first.values())
    users = [r for r in report.records if USERS_RATER in r.coders and r.level != APPLICABILITY]
    from .calibration import calibration_html

    story, story_figures = calibration_html(project, out_dir, figures, image_html)
    if not among and not users:
        return AgreementPart(story, story_figures, ["agreement not computed: fewer than two "
                                                    "raters coded the same units"])
    parts: list[str] = []
    made: list[Path] = list(story_figures)
    interval = (f"95% bootstrap interval over units ({draws:,} draws, seed 0; "
                f"{method_text(settings.ci)}; each interval names its method)"
                if draws else "no interval (no bootstrap draws)")

    def figure(name: str, items: Sequence[Any], title: str, caption: str) -> None:
        if not figures or not items:
            return
        fig = plots.alpha(items, title=title)
        paths = plots.save(fig, out_dir / name)
        made.extend(paths)
        parts.append(image_html(paths[0], title, caption))

    def ci(r: Any) -> str:
        return ("–" if r.ci_low is None or r.ci_high is None
                else f"[{r.ci_low:.3f}, {r.ci_high:.3f}] {method_text(r.ci_method)}")

    def row(cells: Sequence[Any]) -> str:
        return "<tr>" + "".join(_cell(c) if not isinstance(c, str) else f"<td>{_e(c)}</td>"
                                for c in cells) + "</tr>"

    if among:
        coders = sorted({c for r in among for c in r.coders})
        parts.append('<h2 id="agreement">Agreement among the coders</h2>')
        parts.append(
            f"<p>Krippendorff's α per code among the coders {_e(', '.join(coders))}: 1 is "
            "perfect agreement, 0 what chance alone would give. Computed on the units at "
            f"least two coders rated, with its {_e(interval)}. Read .800 and above as good, "
            ".667 to .800 as tentative, below as low; an interval that spans a line is "
            "inconclusive.</p>")
        items = [plots.AlphaItem(labels.get(r.code, r.code), r.value, r.ci_low, r.ci_high,
                                 r.band(), r.note) for r in among]
        figure("agreement", items, "Agreement among the coders: Krippendorff's α per code",
               "")  # the figure's own caption explains dot, whisker and bands
        rows = [row([labels.get(r.code, r.code), r.value, ci(r), r.n_units, r.band()])
                for r in among]
        parts.append("<table><thead><tr><th>code</th><th>α</th><th>95% interval</th>"
                     "<th>units</th><th>reading</th></tr></thead><tbody>"
                     + "".join(rows) + "</tbody></table>")
    if users:
        parts.append('<h2 id="users">The coders against the users</h2>')
        parts.append(
            "<p>How closely each coder's values match the users' own ratings of the same "
            f"turns: Krippendorff's α of the pair (coder, users) per code, with its "
            f"{_e(interval)}. High values mean the coder judges empathy as the users "
            "experienced it.</p>")
        items = [plots.AlphaItem(f"{labels.get(r.code, r.code)} · "
                                 f"{next(c for c in r.coders if c != USERS_RATER)}",
                                 r.value, r.ci_low, r.ci_high, r.band(), r.note) for r in users]
        figure("users_vs_coders", items, "The coders against the users: α per code and coder",
               "One row per code and coder: α of the coder's values with the users' ratings.")
        rows = [row([labels.get(r.code, r.code),
                     ", ".join(c for c in r.coders if c != USERS_RATER), r.value, ci(r),
                     r.n_units, r.band()]) for r in users]
        parts.append("<table><thead><tr><th>code</th><th>coder</th><th>α with the users</th>"
                     "<th>95% interval</th><th>units</th><th>reading</th></tr></thead><tbody>"
                     + "".join(rows) + "</tbody></table>")
    parts.append(story)
    return AgreementPart("\n".join(parts), made, [])


# -- the page -------------------------------------------------------------------------------

def write_report(project: Project, data: ReportInput, filt: ConversationFilter | None,
                 agreement: AgreementPart | None = None) -> Path:
    """Write ``index.html`` into the output folder (under a temporary name, then renamed)."""
    shown: list[str] = []
    if filt is not None:
        shown += [f"{k} = {v}" for k, v in (filt.attributes or {}).items()]
        shown += [f"assistant in {', '.join(filt.models)}"] if filt.models else []
        shown += [f"participant in {', '.join(filt.participants)}"] if filt.participants else []
    name = project.path.name
    frames = data.frames
    values = frames.get("distribution")
    n_ratings = int(values["n"].sum()) if values is not None and len(values) else 0
    conv = frames.get("means_by_assistant")
    n_conv = int(conv.groupby("dimension")["n"].sum().max()) if conv is not None and len(
        conv) else 0
    pngs = {p.stem: p for p in data.figures if p.suffix == ".png"}
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Results of {_e(name)}</title><style>{STYLE}</style></head><body>",
        f"<h1>Results of {_e(name)}</h1>",
        f'<p class="lede">Ratings from <b>{_e(data.source)}</b>: {n_ratings:,} ratings of '
        f"{n_conv:,} conversations; conversations: {_e('; '.join(shown) if shown else 'all')}."
        " Each section says what it shows and how it was computed; every table is beside "
        "this file as CSV.</p>",
        f'<p class="meta">Written {_e(dt.datetime.now().strftime("%Y-%m-%d %H:%M"))} by '
        f"{_e(versions())}.</p>",
    ]
    if data.notes:
        notes = data.notes
        parts.append('<div class="note"><b>Notes.</b><ul>'
                     + "".join(f"<li>{_e(sentence(n))}</li>" for n in notes) + "</ul></div>")
    contents = []
    if agreement and agreement.html:
        if 'id="agreement"' in agreement.html:
            contents.append(("agreement", "Agreement among the coders"))
        if 'id="users"' in agreement.html:
            contents.append(("users", "The coders against the users"))
        if 'id="calibration"' in agreement.html:
            contents.append(("calibration", "Calibration rounds"))
    sections = [n for n in SECTIONS if n in frames]
    contents += [(n, SECTIONS[n][0]) for n in sections]
    if contents:
        parts.append("<nav><b>Contents</b><ol>" + "".join(
            f'<li><a href="#{_e(a)}">{_e(t)}</a></li>' for a, t in contents) + "</ol></nav>")
    if agreement and agreement.html:
        parts.append(agreement.html)
    for key in sections:
        heading, text = SECTIONS[key]
        frame = frames[key]
        parts.append(f'<h2 id="{_e(key)}">{_e(heading)}</h2><p>{_e(text)}</p>')
        figure = pngs.get(FIGURE_FOR.get(key, ""))
        if figure is not None:
            parts.append(image_html(figure, heading, text))
        if key == "distribution" and len(frame):
            shown_frame = frame.pivot_table(index="dimension", columns="level", values="share",
                                            sort=False).reset_index()
            shown_frame.columns = [str(c) if c != "NA" else "not applicable"
                                   for c in shown_frame.columns]
            parts.append("<p>Share of each level:</p>" + table_html(shown_frame))
        elif len(frame):
            parts.append(table_html(frame))
        else:
            parts.append('<p class="more">No rows.</p>')
        path = data.tables.get(key)
        if path is not None:
            parts.append(f'<p><a href="{_e(path.name)}">{_e(path.name)}</a> (all '
                         f"{len(frame):,} rows, CSV)</p>")
    parts.append('<h2 id="files">Every file</h2><ul>')
    for path in data.tables.values():
        parts.append(f'<li><a href="{_e(path.name)}">{_e(path.name)}</a></li>')
    for path in data.figures:
        parts.append(f'<li><a href="{_e(path.name)}">{_e(path.name)}</a></li>')
    parts.append("</ul></body></html>")
    path = data.out_dir / "index.html"
    tmp = path.with_name(path.name + ".part")
    tmp.write_text("\n".join(parts) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path
