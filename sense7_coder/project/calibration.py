"""The calibration story (:func:`calibration_story`, for the methods paragraph) and the
analysis report's calibration section: the rounds told in words (as the methods
paragraph tells them), a table of alpha per code per round with its interval and verdict,
and the figure of alpha per code across the rounds."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..store import codebook_versions as store_versions
from ..store import rounds as store_rounds
from .project import Project


def calibration_html(project: Project, out_dir: Path, figures: bool,
                     image_html: Callable[[Path, str, str], str]) -> tuple[str, list[Path]]:
    """The section's HTML and the figure files written ('' and none without a closed round);
    ``image_html`` is the report's way of showing a figure."""
    from ..domain.agreement.calibration import calibration_sentences

    story = calibration_story(project)
    if story is None:
        return "", []
    closed, results, changed = story
    labels = {c.key: c.label for c in project.codebook.codes}
    parts = ['<h2 id="calibration">Calibration rounds</h2>',
             "<p>" + html.escape(" ".join(calibration_sentences(closed, results, changed)))
             + "</p>"]
    made: list[Path] = []
    if figures:
        from ..domain import plots
        from ..domain.plots_rounds import alpha_by_round

        fig = alpha_by_round(results, {r["number"]: r["threshold"] for r in closed}, labels)
        made = plots.save(fig, out_dir / "calibration_rounds")
        parts.append(image_html(made[0], "Calibration: alpha per code across rounds", ""))
    rows = []
    for f in results:
        ci = ("–" if f["ci_low"] is None else
              f"[{f['ci_low']:.3f}, {f['ci_high']:.3f}] "
              f"{ {'bca': 'BCa', 'percentile': 'percentile'}.get(f['ci_method'], '') }")
        alpha = "undefined" if f["alpha"] is None else f"{f['alpha']:.3f}"
        rows.append(f"<tr><td>{f['round']}</td><td>{html.escape(labels.get(f['code'], f['code']))}"
                    f"</td><td>{alpha}</td><td>{html.escape(ci)}</td><td>{f['units']}</td>"
                    f"<td>{'met' if f['met'] else 'not met'}</td></tr>")
    parts.append("<table><thead><tr><th>round</th><th>code</th><th>α</th><th>95% interval"
                 "</th><th>units</th><th>threshold</th></tr></thead><tbody>" + "".join(rows)
                 + "</tbody></table>")
    return "\n".join(parts), made


def calibration_story(project: Project) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                 dict[int, list[str]]] | None:
    """The closed rounds, their figures, and per round the codes whose meaning changed
    since the round before (None: no closed round), for the methods paragraph and report."""
    from ..domain.codebook.diff import changed_codes

    closed = [r for r in store_rounds.rounds(project.db) if r["closed_at"] is not None]
    if not closed:
        return None
    changed: dict[int, list[str]] = {}
    for before, after in zip(closed, closed[1:], strict=False):
        old = store_versions.version(project.db, before["codebook_version"])
        new = store_versions.version(project.db, after["codebook_version"])
        if old is not None and new is not None:
            changed[after["number"]] = changed_codes(old.codebook, new.codebook)
    return closed, store_rounds.results(project.db), changed
