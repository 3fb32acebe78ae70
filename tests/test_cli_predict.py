"""`sense7-coder classify` and `sense7-coder analyze` as a researcher runs them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sense7_coder.cli import main

KEYS = {"accuracy", "macro_f1", "within_one", "mae", "spearman", "n"}


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_classify_baseline_and_given_predictions_evaluate_as_json(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    code, out, err = run(capsys, "classify", demo_project, "--model", "baseline", "--runs", "2",
                         "--evaluate", "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    assert isinstance(result, dict) and result["predictor"] == "baseline"
    assert KEYS | {f"{k}_sd" for k in KEYS - {"n"}} <= set(result)
    assert result["n"] == 12 and result["runs"] == 2
    assert "grouped by participant" in err

    ids = sorted({line.split(",")[0] for line in
                  (Path(__file__).parents[1] / "resources/demo/Tasks.csv")
                  .read_text().splitlines()[1:]})
    f = tmp_path / "judge.csv"
    f.write_text("conversation_id,score\n" + "".join(f"{c},3\n" for c in ids))
    code, out, err = run(capsys, "classify", demo_project, "--predictions", f, "--evaluate",
                         "--format", "json")
    assert code == 0, err
    one = json.loads(out)
    assert one["predictor"] == "judge" and one["spearman"] is None and one["n"] == 12
    # without a model or a file: every stored predictor, one object each
    code, out, _ = run(capsys, "classify", demo_project, "--evaluate", "--format", "json")
    assert [r["predictor"] for r in json.loads(out)] == ["baseline", "judge"]
    code, out, _ = run(capsys, "classify", demo_project, "--evaluate")
    assert re.search(r"^baseline\s+12\s+2\s+\d\.\d{3} ± \d\.\d{3}", out, re.M)
    assert re.search(r"^judge\s+12\s+1\s+\d\.\d{3}\s", out, re.M)

    code, out, _ = run(capsys, "info", demo_project, "--json")
    assert json.loads(out)["predictors"] == {
        "baseline": {"conversation": 24, "turn": 0},
        "judge": {"conversation": 12, "turn": 0},
    }


def test_classify_bad_input_is_one_line(demo_project: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]):
    f = tmp_path / "p.csv"
    f.write_text("conversation_id,score\n101,x\n")
    code, _, err = run(capsys, "classify", demo_project, "--predictions", f, "--evaluate")
    assert code == 2
    assert err.strip() == (f"sense7-coder: error: {f}, line 2, field 'score': "
                           "score 'x' is not a number")
    code, _, err = run(capsys, "classify", demo_project, "--model", "llm")
    assert code == 2 and "--endpoint" in err
    code, _, err = run(capsys, "classify", demo_project, "--evaluate", "--level", "turn")
    assert code == 2 and "no turn-level predictions stored" in err


def test_analyze_writes_tables_figures_and_an_index(demo_project: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "analyze", demo_project, "--out", out_dir)
    assert code == 0, err
    index = (out_dir / "index.html").read_text()
    tables = sorted(p.name for p in out_dir.glob("*.csv"))
    for name in ("distribution.csv", "means_by_assistant.csv", "means_by_task.csv",
                 "means_by_participant.csv", "participants.csv", "icc.csv", "course.csv",
                 "continuity_breaks.csv", "desired_vs_experienced.csv", "code_frequency.csv",
                 "crosstabs.csv"):
        assert name in tables
    figures = sorted(out_dir.glob("*.png"))
    assert len(figures) >= 7
    for png in figures:
        data = png.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5000, png.name
        svg = png.with_suffix(".svg").read_text()
        assert "<svg" in svg and len(svg) > 2000
        assert f'href="{png.name}"' in index  # embedded in the page, the file linked
    for name in tables:
        assert f'href="{name}"' in index

    # continuity breaks: a fall of two levels or more, with the turn and the one before
    breaks = (out_dir / "continuity_breaks.csv").read_text()
    header = breaks.splitlines()[0].split(",")
    assert header[-2:] == ["text", "turn_before"]
    assert "bootcamp" in breaks  # P03's rating of the off-topic answer in 106 fell to 1

    # a filter narrows the conversations; coders as the source
    code, _, err = run(capsys, "analyze", demo_project, "--out", tmp_path / "gpt",
                       "--filter", "model=GPT4", "--source", "alice")
    assert code == 0, err
    means = (tmp_path / "gpt" / "means_by_assistant.csv").read_text().splitlines()
    assert {line.split(",")[0] for line in means[1:]} == {"GPT4"}
    code, _, err = run(capsys, "analyze", demo_project, "--out", tmp_path / "x",
                       "--source", "nobody")
    assert code == 2 and "no coder 'nobody'" in err


def test_help_loads_no_heavy_libraries():
    code = ("import sys; from sense7_coder.cli import build_parser; build_parser(); "
            "print([m for m in ('sklearn', 'matplotlib') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parents[1]).stdout
    assert out.strip() == "[]"


def test_classify_llm_against_a_local_server_then_from_the_cache(
        demo_project: Path, capsys: pytest.CaptureFixture[str]):
    from tests.test_llm_judge import FakeServer, score_by_length

    server = FakeServer(score_by_length)
    try:
        args = ["classify", demo_project, "--model", "llm", "--endpoint", server.url,
                "--api-model", "local", "--evaluate", "--format", "json"]
        code, out, err = run(capsys, *args)
        assert code == 0, err
        result = json.loads(out)
        assert result["predictor"] == "llm:local" and result["n"] == 12
        assert "12 requests sent, 12 answered with a score, 0 from the project's cache" in err
        code, out, err = run(capsys, *args)
        assert "0 requests sent, 0 answered with a score, 12 from the project's cache" in err
        assert json.loads(out) == result
    finally:
        server.stop()
    code, _, err = run(capsys, "classify", demo_project, "--model", "llm", "--endpoint",
                       "http://127.0.0.1:9/v1", "--api-model", "other", "--concurrency", "1",
                       "--timeout", "1", "--retries", "0")
    assert code == 2 and "not reachable" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [
    ("classify", "--model", "baseline", "--evaluate"),
    ("suggest", "--model", "baseline", "--yes"),
])
def test_more_runs_than_can_finish_are_refused_at_once(
        demo_project: Path, capsys: pytest.CaptureFixture[str],
        command: tuple[str, ...]) -> None:
    """A hundred million runs (a typo for 100) ran the baseline's cross-validation for
    hours with no word; 1,000 is the most a predictor or a suggestion run is repeated."""
    before = demo_project.read_bytes()
    code, _, err = run(capsys, command[0], demo_project, *command[1:], "--runs", "100000000")
    assert code == 2
    assert err.splitlines()[-1] == ("sense7-coder: error: at most 1,000 runs are taken, "
                                    "got 100,000,000")
    assert err.count("\n") == 1
    assert demo_project.read_bytes() == before
