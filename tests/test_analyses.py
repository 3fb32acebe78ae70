"""The paper's analyses: hand-worked figures and every table and figure written."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from sense7_coder.domain import analyses as an
from sense7_coder.project.analyses import run_analyses
from tests.analysis_support import code, make_project


def frame(rows: list[tuple]) -> pd.DataFrame:
    """(conversation, participant, position, turn_index, dimension, value or None)."""
    return pd.DataFrame([
        {"conversation_id": c, "participant_id": p, "model": "M", "topic": "T",
         "position": pos, "turn_index": idx, "rater": "users", "dimension": d,
         "value": math.nan if v is None else float(v), "na": v is None}
        for c, p, pos, idx, d, v in rows])


def test_icc1_worked_by_hand():
    # groups [1,2,3] and [4,5,6]: MSB 13.5, MSW 1, k0 3 -> (13.5 - 1) / (13.5 + 2)
    icc, groups, n, k0 = an.icc1([1, 2, 3, 4, 5, 6], ["A"] * 3 + ["B"] * 3)
    assert (groups, n, k0) == (2, 6, 3.0)
    assert icc == pytest.approx(12.5 / 15.5)
    # no difference between participants at all -> negative estimate kept, not clipped
    icc, *_ = an.icc1([1, 3, 1, 3], ["A", "A", "B", "B"])
    assert icc == pytest.approx(-1.0)  # MSB 0, MSW 2, k0 2: (0 - 2) / (0 + 2)
    assert an.icc1([1, 2], ["A", "A"])[0] is None  # one participant: undefined


def test_continuity_breaks_course_and_distribution():
    values = frame([
        ("c1", "P1", 2, 1, "overall", 5), ("c1", "P1", 4, 2, "overall", 3),
        ("c1", "P1", 6, 3, "overall", 4), ("c1", "P1", 8, 4, "overall", 1),
        ("c2", "P2", 2, 1, "overall", 4), ("c2", "P2", 4, 2, "overall", None),
        ("c2", "P2", 6, 3, "overall", 2),  # falls 2 over a not-applicable turn
    ])
    breaks = an.continuity_breaks(values)
    assert list(zip(breaks["conversation_id"], breaks["previous_position"],
                    breaks["position"], breaks["fall"], strict=True)) == [
        ("c1", 2, 4, 2.0), ("c1", 6, 8, 3.0), ("c2", 2, 6, 2.0)]
    course = an.course(values).set_index("turn_index")
    assert course.loc[1, "mean"] == 4.5 and course.loc[1, "n"] == 2
    assert course.loc[2, "n"] == 1 and math.isnan(course.loc[2, "ci_low"])
    dist = an.distribution(values).set_index("level")
    assert dist.loc["NA", "n"] == 1 and dist.loc["4", "share"] == pytest.approx(2 / 7)
    assert dist.loc["2", "n"] == 1 and dist["n"].sum() == 7


def test_means_by_group_use_conversations_as_units():
    values = frame([
        ("c1", "P1", 2, 1, "overall", 5), ("c1", "P1", 4, 2, "overall", 3),  # mean 4
        ("c2", "P1", 2, 1, "overall", 2),  # mean 2
    ])
    means = an.means_by(values, "participant_id")
    row = means.iloc[0]
    assert (row["n"], row["mean"], row["sd"]) == (2, 3.0, pytest.approx(math.sqrt(2)))
    # t(0.975, 1) = 12.706: 3 +- 12.706 * sqrt(2) / sqrt(2)
    assert row["ci_high"] == pytest.approx(3 + 12.7062, abs=1e-3)


def test_codes_cooccurrence_crosstabs_and_figures(tmp_path: Path):
    p = make_project(tmp_path)
    code(p, "alice", {("c1", 2, "validation"): 1, ("c1", 2, "overall"): 4,
                      ("c1", 2, 1, "question"): 1, ("c1", 4, "validation"): 1,
                      ("c2", 2, "validation"): 0, ("c2", 2, "overall"): 2,
                      ("c3", 2, "strategy"): "advice"})
    out = run_analyses(p, tmp_path / "out", source="alice")
    co = out.frames["cooccurrence"].set_index(["code_a", "code_b"])
    assert co.loc[("validation", "question"), "n_both"] == 1
    assert co.loc[("validation", "validation"), "n_both"] == 2
    assert co.loc[("validation", "question"), "jaccard"] == pytest.approx(0.5)
    cross = out.frames["crosstabs"]
    week = cross[(cross["attribute"] == "week") & (cross["code"] == "validation")]
    assert set(zip(week["attribute_value"], week["value"], week["n"], strict=True)) == {
        ("1", "1", 2), ("1", "0", 1)}
    freq = out.frames["code_frequency"].set_index(["code", "value"])
    assert freq.loc[("strategy", "advice"), "n"] == 1
    stems = {f.stem for f in out.figures}
    assert {"code_frequency", "cooccurrence", "distribution"} <= stems
    for f in out.figures:
        assert f.stat().st_size > 2000, f
    p.close()


def test_figures_people_read(tmp_path: Path):
    """One ordered ramp with not applicable hatched apart, level words in the legend,
    intervals cut to the 1-5 scale with n, a title and a caption on every figure."""
    import pandas as pd
    from matplotlib.colors import to_rgb

    from sense7_coder.domain import plots

    dist = pd.DataFrame({"dimension": ["affective"] * 6, "level": ["1", "2", "3", "4", "5", "NA"],
                         "n": [1, 2, 3, 4, 5, 6], "share": [v / 21 for v in (1, 2, 3, 4, 5, 6)]})
    fig = plots.distribution(dist, "Distribution")
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["1 very poor", "2 poor", "3 neutral", "4 good", "5 very good",
                      "not applicable"]
    bars = ax.patches
    # the levels darken in order (one sequential ramp), not applicable is white and hatched
    light = [sum(to_rgb(b.get_facecolor())) for b in bars[:5]]
    assert light == sorted(light, reverse=True)
    assert bars[5].get_hatch() and to_rgb(bars[5].get_facecolor()) == (1.0, 1.0, 1.0)
    assert "(n = 21)" in ax.get_yticklabels()[0].get_text()
    means = pd.DataFrame({"model": ["A", "A"], "dimension": ["overall", "affective"],
                          "n": [3, 2], "mean": [4.8, 1.2], "sd": [1.0, 1.0],
                          "ci_low": [2.0, -3.5], "ci_high": [7.6, 5.9]})
    fig = plots.means(means, "model", "Mean by assistant")
    ax = fig.axes[0]
    segments = [seg for coll in ax.collections for seg in coll.get_segments()]
    ys = [y for seg in segments for _x, y in seg]
    assert min(ys) >= 1.0 and max(ys) <= 5.0  # no interval past the scale
    assert "A (n = 3)" in [t.get_text() for t in ax.get_legend().get_texts()]
    for fig in (plots.distribution(dist), plots.means(means, "model", "M")):
        assert fig.axes[0].get_title(loc="left") and fig._supxlabel.get_text()
