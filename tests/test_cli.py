"""The command line as a researcher uses it: clear output, one-line errors, nothing half-done."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sense7_coder.cli import main

JSONL = (
    '{"conversation_id": "a1", "participant_id": "P1", "model": "GPT4", "messages": ['
    '{"role": "user", "content": "I have too many meetings."}, '
    '{"role": "assistant", "content": "That sounds draining. Which ones matter most?", '
    '"ratings": {"overall": 4, "affective": 5, "relational": null}}]}\n'
    '{"conversation_id": "a2", "participant_id": "P2", "model": "IC", "messages": ['
    '{"role": "user", "content": "Fix my formula =SUM(A1:A3)"}, '
    '{"role": "assistant", "content": "Use =SUM(A1:A4).", "ratings": {"overall": 2}}]}\n'
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def info(capsys: pytest.CaptureFixture[str], project: Path) -> dict:
    code, out, _ = run(capsys, "info", project, "--json")
    assert code == 0
    return json.loads(out)


@pytest.fixture
def project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "study.sense7"
    code, out, _ = run(capsys, "init", path)
    assert code == 0 and "sense7" in out
    return path


def test_init_uses_the_sense7_codebook(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "codebook", project, "list")
    assert code == 0
    keys = [line.split()[0] for line in out.splitlines()]
    assert keys[:1] == ["overall"] and "relational" in keys and len(keys) == 8


def test_import_and_info(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "chats.jsonl"
    src.write_text(JSONL, encoding="utf-8")
    code, out, _ = run(capsys, "import", project, src)
    assert code == 0
    assert "2 conversations" in out and "4 turns" in out
    counts = info(capsys, project)
    assert counts["conversations"] == 2 and counts["turns"] == 4
    assert counts["user_ratings"] == 3  # relational was not applicable
    # importing the same file again adds nothing
    code, out, _ = run(capsys, "import", project, src)
    assert code == 0 and "2 already in the project" in out
    assert info(capsys, project)["turns"] == 4


def test_dry_run_writes_nothing(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "chats.jsonl"
    src.write_text(JSONL, encoding="utf-8")
    code, out, _ = run(capsys, "import", project, src, "--dry-run")
    assert code == 0 and "would import 2 conversations" in out
    assert info(capsys, project)["conversations"] == 0


def test_bad_jsonl_line_is_named_and_nothing_lands(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(JSONL, encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(JSONL.splitlines()[0] + "\n{not json\n" + JSONL.splitlines()[1] + "\n")
    code, _, err = run(capsys, "import", project, good, bad)
    assert code != 0
    assert "bad.jsonl" in err and "line 2" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert info(capsys, project)["conversations"] == 0  # the good file did not land either


def test_codings_import_and_errors(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "chats.jsonl"
    src.write_text(JSONL, encoding="utf-8")
    assert run(capsys, "import", project, src)[0] == 0
    codings = tmp_path / "codings.csv"
    codings.write_text(
        "coder,conversation_id,turn,code,value\n"
        "alice,a1,2,affective,4\nalice,a1,2,relational,NA\nbashir,a1,2,affective,very good\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "import-codings", project, codings)
    assert code == 0 and "3 codings" in out and "alice" in out
    counts = info(capsys, project)
    assert counts["codings"] == 3 and counts["coders"] == 2

    for body, where in [
        ("alice,a1,2,affective,9\n", "value"),
        ("alice,a1,2,warmth,3\n", "code"),
        ("alice,zz,2,affective,3\n", "conversation_id"),
        ("alice,a1,7,affective,3\n", "turn"),
    ]:
        bad = tmp_path / "bad.csv"
        bad.write_text("coder,conversation_id,turn,code,value\nalice,a2,2,overall,3\n" + body)
        code, _, err = run(capsys, "import-codings", project, bad)
        assert code != 0, body
        assert "bad.csv" in err and "line 3" in err and where in err, err
        assert info(capsys, project)["codings"] == 3


def test_codebook_add(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "codebook", project, "add", "warmth", "--kind", "ordinal", "--levels", "1..7", "--label", "Warmth")
    assert code == 0 and "1, 2, 3, 4, 5, 6, 7" in out
    code, _, err = run(capsys, "codebook", project, "add", "warmth", "--kind", "binary")
    assert code != 0 and "already exists" in err
    code, _, err = run(capsys, "codebook", project, "add", "tone", "--kind", "nominal", "--levels", "warm,cold", "--unit", "conversation")
    assert code == 0
    assert info(capsys, project)["codes"] == 10


def test_a_span_code_gets_a_key_that_marks_a_selection(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A span code is given by its key on a selected stretch of text; added without
    --shortcut it had none, and could be given only through the context menu."""
    from sense7_coder.project import Project

    code, out, _ = run(capsys, "codebook", project, "add", "warmth", "--kind", "binary",
                       "--unit", "span")
    assert code == 0 and "key W" in out
    code, out, _ = run(capsys, "codebook", project, "add", "wit", "--kind", "binary",
                       "--unit", "span", "--label", "Wit")
    assert code == 0 and "key T" in out  # W is warmth's, I interest's: the next of its key
    code, out, _ = run(capsys, "codebook", project, "add", "tact", "--kind", "binary",
                       "--unit", "span", "--shortcut", "k")
    assert code == 0 and "key K" in out
    code, _, err = run(capsys, "codebook", project, "add", "kind", "--kind", "binary",
                       "--unit", "span", "--shortcut", "K")
    assert code != 0 and "shortcut 'K' is used by both 'tact' and 'kind'" in err
    code, out, _ = run(capsys, "codebook", project, "add", "dyn", "--kind", "binary",
                       "--unit", "span")
    assert code == 0 and "key D" not in out and "key Y" not in out  # the workspace's keys
    with Project.open(project, backup=False) as p:
        keys = {c.key: c.shortcut for c in p.codebook.codes}
    assert keys["warmth"] == "W" and keys["wit"] == "T" and keys["tact"] == "K"
    assert keys["dyn"] not in ("", "D", "N", "Y")


@pytest.mark.parametrize("content", [b"", b"hello, not a project", b"SQLite format 3\x00" + b"\x01" * 500])
def test_bad_project_files_give_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    path = tmp_path / "broken.sense7"
    path.write_bytes(content)
    code, _, err = run(capsys, "info", path)
    assert code != 0
    assert "broken.sense7" in err and "Traceback" not in err


def test_console_script_runs_as_a_module(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sense7_coder", "demo", str(tmp_path), "--no-gui"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    demo = next(tmp_path.glob("*.sense7"))
    proc = subprocess.run(
        [sys.executable, "-m", "sense7_coder", "info", str(demo), "--json"],
        capture_output=True, text=True, timeout=60,
    )
    data = json.loads(proc.stdout)
    assert data["conversations"] >= 12 and data["coders"] >= 2 and data["codings"] > 50


def test_gui_without_a_display_says_so(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    if sys.platform in ("win32", "darwin"):
        pytest.skip("a display is always there")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    for args in ([], ["gui"]):
        code, _, err = run(capsys, *args)
        assert code == 2
        assert "no display" in err and "Traceback" not in err
