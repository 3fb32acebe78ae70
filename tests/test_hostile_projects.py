"""Hostile project files: every command and the window answer in one line, in bounded time.

Another program (an SQLite browser, a script) can store in a project what sense7-coder
never writes: a coder's name or a code key as binary data, a turn number as text, a run
of 25 digits, 100,000 codes, a level of 23 digits, attributes nested 100,000 deep, a turn
of 64 MB, names holding a mathtext pair (``$\\x$``). Each case edits a copy of the demo
project with sqlite3 and runs the commands over it: exit status 2 and one line naming the
file and what is wrong (the table, row and column), or success; never a traceback, and
the file unchanged. The window gives the same line in a message, and never hangs (checked
in a subprocess with a timeout).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sense7_coder.cli import main

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}


def edit(path: Path, *statements: str) -> None:
    """Change a project file as another program would (no foreign keys, no checks)."""
    conn = sqlite3.connect(path)
    try:
        for sql in statements:
            conn.execute(sql)
        conn.commit()
    finally:
        conn.close()


def commands(project: Path, out: Path, other: Path) -> list[list[object]]:
    """Every command that reads a project, each given the hostile one."""
    kinds = ("long", "wide", "consensus", "agreement", "codebook", "assignments", "history",
             "segments", "memos", "ratings")
    return [
        ["info", project], ["info", project, "--json"],
        ["agreement", project, "--measures", "alpha"],
        *[["export", project, out / f"{kind}.csv", "--kind", kind] for kind in kinds],
        ["export", project, out / "long.xlsx", "--kind", "long", "--to", "xlsx"],
        ["analyze", project, "--out", out / "analyses"],
        ["consensus", project], ["codebook", project, "list"],
        ["codebook", project, "export", out / "book.qdc"],
        ["export-qdpx", project, out / "project.qdpx"],
        ["classify", project, "--evaluate"],
        ["package", project, "alice", out / "alice.sense7"],
        ["assign", project, "--coders", "alice,bashir"],
        ["merge", project, other, "--dry-run"],
    ]


def _codes(n: int) -> str:
    return ("INSERT INTO codes (key, ord, label, kind, unit, levels) "
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
            f"{n}) SELECT 'extra_' || i, 100 + i, 'extra ' || i, 'ordinal', 'turn', "
            "(SELECT levels FROM codes WHERE key = 'overall') FROM n")


REFUSED_ON_OPENING: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "coder name stored as binary data": (
        ["UPDATE coders SET name = CAST(name AS BLOB) WHERE name = 'alice'",
         "UPDATE codings SET coder = CAST(coder AS BLOB) WHERE coder = 'alice'"],
        ("table coders, row ", "its name is binary data (a BLOB), not text")),
    "a coding's coder stored as binary data": (
        ["UPDATE codings SET coder = CAST(coder AS BLOB) WHERE coder = 'bashir'"],
        ("table codings, row ", "its coder is binary data (a BLOB), not text")),
    "a revision's coder stored as binary data": (
        ["INSERT INTO revisions(coder, conversation_id, position, sentence, code, value) "
         "VALUES (CAST('alice' AS BLOB), '101', 2, 0, 'affective', 3)"],
        ("table revisions, row 1: its coder is binary data (a BLOB), not text",)),
    "code key stored as binary data": (
        ["UPDATE codes SET key = CAST(key AS BLOB) WHERE key = 'affective'"],
        ("table codes, row ", "its key is binary data (a BLOB), not text")),
    "a coding's code stored as binary data": (
        ["UPDATE codings SET code = CAST(code AS BLOB) WHERE code = 'affective'"],
        ("table codings, row ", "its code is binary data (a BLOB), not text")),
    "turn number stored as text": (
        ["UPDATE turns SET position = 'two' WHERE rowid = 2"],
        ("table turns, row 2: its position is text 'two', not a whole number",)),
    "prediction run of 25 digits": (
        ["INSERT INTO predictions VALUES ('101', 'baseline', 1234567890123456789012345, 3, '')"],
        ("table predictions, row 1: its run is a fractional number 1.2345678901234568e+24",)),
    "turn prediction run that is text": (
        ["INSERT INTO turn_predictions VALUES ('101', 2, 'baseline', 'first', 3, '')"],
        ("table turn_predictions, row 1: its run is text 'first'",)),
    "turn count of 24 digits": (
        ["UPDATE conversations SET n_turns = 123456789012345678901234 WHERE rowid = 3"],
        ("table conversations, row 3: its n_turns is a fractional number",)),
    "memo on a turn that is text": (
        ["INSERT INTO memos VALUES ('alice', '101', 'x2', 0, 'note', NULL)"],
        ("table memos, row 1: its position is text 'x2'",)),
    "done flag of 7": (
        ["UPDATE turn_status SET done = 7 WHERE rowid = 1"],
        ("table turn_status, row 1: its done is 7, not 0 or 1",)),
    "sentence offset that is binary": (
        ["INSERT INTO sentences VALUES ('101', 2, 1, X'00', 5)"],
        ("table sentences, row 1: its start is binary data (a BLOB), not a whole number",)),
    "100,000 codes": (
        [_codes(100_000)], ("the codebook holds 100,0", "codes; a codebook has at most 1,000 codes")),
    "a level of 23 digits": (
        ["UPDATE codes SET levels = '[{\"value\": 12345678901234567890123, \"label\": \"big\"}, "
         "{\"value\": 2, \"label\": \"b\"}]' WHERE key = 'affective'"],
        ("sense7-demo.sense7: code 'affective': stored level 1: a whole-number level is at "
         "most 1,000,000,000,000,000",)),
}


def _one_line(code: int, err: str, project: Path, expected: tuple[str, ...]) -> None:
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1, (code, err)
    assert lines[0].startswith(f"sense7-coder: error: {project}"), lines[0]
    for text in expected:
        assert text in lines[0], (text, lines[0])


@pytest.mark.parametrize("case", sorted(REFUSED_ON_OPENING))
def test_every_command_refuses_a_hostile_project_in_one_line(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        case: str) -> None:
    statements, expected = REFUSED_ON_OPENING[case]
    other = tmp_path / "other.sense7"
    other.write_bytes(demo_project.read_bytes())
    edit(demo_project, *statements)
    before = demo_project.read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    capsys.readouterr()
    for args in commands(demo_project, out, other):
        code = main([str(a) for a in args])
        _, err = capsys.readouterr()
        _one_line(code, err, demo_project, expected)
    assert demo_project.read_bytes() == before
    assert not (out / "alice.sense7").exists() and not (out / "project.qdpx").exists()


def test_a_turn_number_stored_as_text_among_millions_is_named_where_it_is_read(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The codings table is not read whole on opening (it holds millions of rows); a
    value of the wrong kind in it is named by the read that meets it."""
    edit(demo_project, "UPDATE codings SET position = 'two' WHERE rowid = 5")
    before = demo_project.read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    expected = ("table codings, row 5: its position is text 'two', not a whole number",)
    for args in (["agreement", demo_project, "--measures", "alpha"],
                 ["export", demo_project, out / "long.csv", "--kind", "long"],
                 ["export", demo_project, out / "wide.csv", "--kind", "wide"],
                 ["consensus", demo_project],
                 ["export-qdpx", demo_project, out / "project.qdpx"]):
        capsys.readouterr()
        code = main([str(a) for a in args])
        _one_line(code, capsys.readouterr()[1], demo_project, expected)
    assert demo_project.read_bytes() == before


def test_the_command_line_itself_gives_one_line_not_a_traceback(demo_project: Path) -> None:
    edit(demo_project, "UPDATE coders SET name = CAST(name AS BLOB) WHERE name = 'chen'")
    proc = subprocess.run([sys.executable, "-m", "sense7_coder", "analyze", str(demo_project),
                           "--out", str(demo_project.with_name("an"))],
                          capture_output=True, text=True, env=ENV, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "its name is binary data" in proc.stderr


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("table", ["conversations", "turns", "participants"])
def test_attributes_nested_100000_deep_read_as_none(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        table: str) -> None:
    edit(demo_project, f"UPDATE {table} SET attributes = '{DEEP}' WHERE rowid = 1")
    code = main(["analyze", str(demo_project), "--out", str(tmp_path / "an"), "--no-figures",
                 "--filter", "PreTaskImportance=5"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err, err
    target = tmp_path / "target.sense7"
    assert main(["init", str(target)]) == 0
    capsys.readouterr()
    code = main(["merge", str(target), str(demo_project), "--dry-run"])
    _, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and str(demo_project) in err, err


# -- names that hold a mathtext pair ------------------------------------------------------------

MATH = "$\\x$"


def test_analyze_draws_names_holding_a_dollar_pair_as_they_are(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(demo_project,
         f"UPDATE conversations SET model = '{MATH} m' || (rowid % 2)",
         f"UPDATE codes SET label = '{MATH} ' || label WHERE key = 'affective'",
         "UPDATE codes SET levels = replace(levels, 'very poor', '$\\\\x$')")
    out = tmp_path / "an"
    code = main(["analyze", str(demo_project), "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err, err
    svgs = "".join(p.read_text(encoding="utf-8") for p in out.glob("*.svg"))
    assert MATH + " m1" in svgs  # the model's name, drawn as written


def test_the_alpha_plot_draws_labels_holding_a_dollar_pair_as_they_are() -> None:
    from sense7_coder.domain import plots

    items = [plots.AlphaItem(f"{MATH} code", 0.5, 0.3, 0.7, "low", note=f"{MATH} note"),
             plots.AlphaItem("$5 and $6", None, None, None, "undefined")]
    assert plots.png_bytes(plots.alpha(items)).startswith(b"\x89PNG")


# -- the window -------------------------------------------------------------------------------

WINDOW = """
import sys, time
from PySide6.QtWidgets import QApplication, QMessageBox
app = QApplication([])
shown = []
QMessageBox.critical = lambda *a: shown.append(a[-1])
from sense7_coder.ui.main_window import MainWindow
window = MainWindow()
window.show()
start = time.monotonic()
opened = window.open_project(sys.argv[1], coder="alice")
for _ in range(20):
    app.processEvents()
print(opened, round(time.monotonic() - start, 1))
print(shown[0] if shown else window.workspace.transcript.toPlainText())
"""


def window(project: Path, timeout: float = 90) -> list[str]:
    """Open the real window on ``project`` in another process (killed after ``timeout``
    seconds: a hang fails the test) and return what it printed."""
    proc = subprocess.run([sys.executable, "-c", WINDOW, str(project)], capture_output=True,
                          text=True, env=ENV, timeout=timeout)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout.splitlines()


def test_the_window_refuses_100000_codes_in_one_message(demo_project: Path) -> None:
    edit(demo_project, _codes(100_000))
    opened, message = window(demo_project)
    assert opened.startswith("False")
    assert message.startswith(str(demo_project)) and "codebook has at most 1,000 codes" in message


def test_the_window_refuses_a_coder_stored_as_binary_data_in_one_message(
        demo_project: Path) -> None:
    edit(demo_project, "UPDATE coders SET name = CAST(name AS BLOB) WHERE name = 'alice'")
    opened, message = window(demo_project)
    assert opened.startswith("False") and "its name is binary data" in message


def test_the_window_shows_the_start_of_a_64_mb_turn_in_seconds(demo_project: Path) -> None:
    edit(demo_project, "UPDATE turns SET text = printf('%.*c', 64000000, 'a') "
                       "WHERE conversation_id = '101' AND position = 2")
    opened, *transcript = window(demo_project)
    assert opened.startswith("True")
    assert float(opened.split()[1]) < 30
    assert "this message holds 64,000,000 characters; the first 2,000 are shown" in \
        "\n".join(transcript)


# -- damaged workbooks and codebooks given to a project ------------------------------------------

def _workbook(folder: Path, change: bytes | None = None, sheet: int = 1,
              replace: tuple[bytes, bytes] | None = None) -> Path:
    """A SENSE-7 workbook whose sheet ``sheet`` is ``change`` (or has ``replace`` done)."""
    import zipfile

    import pandas as pd

    plain = folder / "plain.xlsx"
    with pd.ExcelWriter(plain) as writer:
        pd.DataFrame({"TaskId": ["x1"], "PID": ["p"], "Model": ["m"]}).to_excel(
            writer, sheet_name="Tasks", index=False)
        pd.DataFrame({"TaskId": ["x1", "x1"], "MessageId": [1, 2],
                      "Role": ["user", "assistant"], "Content": ["hi", "hello"]}).to_excel(
            writer, sheet_name="Messages", index=False)
    path = folder / "book.xlsx"
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == f"xl/worksheets/sheet{sheet}.xml":
                if replace is not None:
                    assert replace[0] in data
                    data = data.replace(*replace)
                data = data if change is None else change
            out.writestr(item, data)
    return path


WORKBOOKS = {
    "sheet XML cut short": (dict(change=b'<?xml version="1.0"?><worksheet><sheetData><row r="1">'
                                 b'<c r="A1" t="inlineStr"><is><t>Task'),
                            "book.xlsx: not a readable Excel workbook (.xlsx): its XML is "
                            "malformed (no element found"),
    "an attribute twice": (dict(replace=(b'r="A1"', b'r="A1" r="B1"')),
                           "book.xlsx, sheet Tasks: cannot read the sheet: its XML is malformed "
                           "(duplicate attribute"),
    "a number beyond floats": (dict(sheet=2, replace=(b"<v>1</v>", b"<v>1e999999</v>")),
                               "book.xlsx, sheet Messages: cannot read the sheet: a cell holds inf, "
                               "a number no spreadsheet holds"),
}


@pytest.mark.parametrize("case", sorted(WORKBOOKS))
def test_a_damaged_workbook_is_one_line(demo_project: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str], case: str) -> None:
    how, expected = WORKBOOKS[case]
    book = _workbook(tmp_path, **how)  # type: ignore[arg-type]
    before = demo_project.read_bytes()
    capsys.readouterr()
    code = main(["import", str(demo_project), str(book)])
    err = capsys.readouterr()[1]
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{book}" in err and expected in err, err
    assert demo_project.read_bytes() == before


@pytest.mark.parametrize("element", ["Code", "Description"])
def test_a_codebook_nested_100000_deep_is_one_line(demo_project: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   element: str) -> None:
    qdc = tmp_path / "deep.qdc"
    opening = (f'<{element} guid="00000000-0000-0000-0000-000000000001" name="a">'
               if element == "Code" else f"<{element}>")
    qdc.write_text('<?xml version="1.0" encoding="utf-8"?>\n<CodeBook xmlns="urn:QDA-XML:'
                   'codebook:1.0"><Codes>' + opening * 100_000 + f"</{element}>" * 100_000
                   + "</Codes></CodeBook>", encoding="utf-8")
    before = demo_project.read_bytes()
    for args in (["codebook", demo_project, "import", qdc],
                 ["init", tmp_path / "new.sense7", "--codebook", qdc]):
        capsys.readouterr()
        code = main([str(a) for a in args])
        err = capsys.readouterr()[1]
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert f"{qdc}, line 2: elements nested more than 200 deep" in err
    assert demo_project.read_bytes() == before and not (tmp_path / "new.sense7").exists()


@pytest.mark.parametrize(("sql", "expected"), [
    ("UPDATE user_ratings SET position = 'two' WHERE rowid = 3",
     "(table user_ratings, row 3: its position is text 'two', not a whole number"),
    ("UPDATE user_ratings SET value = 123456789012345678901234 WHERE rowid = 3",
     "users' ratings, conversation '101', turn 2, rating 'cognitive', field 'value': "
     "1.2345678901234569e+23 is not a whole number"),
], ids=["turn as text", "24 digits"])
def test_a_users_rating_of_the_wrong_kind_is_named_where_it_is_read(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        sql: str, expected: str) -> None:
    edit(demo_project, sql)
    before = demo_project.read_bytes()
    for args in (["export", demo_project, tmp_path / "ratings.csv", "--kind", "ratings"],
                 ["analyze", demo_project, "--out", tmp_path / "an", "--no-figures"],
                 ["agreement", demo_project, "--measures", "alpha", "--include-users"]):
        capsys.readouterr()
        code = main([str(a) for a in args])
        _one_line(code, capsys.readouterr()[1], demo_project, (expected,))
    assert demo_project.read_bytes() == before


MERGED: dict[str, list[str]] = {
    "turn number stored as text": REFUSED_ON_OPENING["turn number stored as text"][0],
    "turn role stored as binary data": [
        "UPDATE turns SET role = CAST(role AS BLOB) WHERE rowid = 2"],
}


@pytest.mark.parametrize("case", sorted(MERGED))
def test_a_hostile_merge_source_is_refused_in_one_line(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        case: str) -> None:
    """Such files given to ``merge`` as a source (whose rows the merge checks one by one,
    in its own words): one line naming the source, the target unchanged."""
    target = tmp_path / "target.sense7"
    target.write_bytes(demo_project.read_bytes())
    edit(demo_project, *MERGED[case])
    before = target.read_bytes()
    capsys.readouterr()
    code = main(["merge", str(target), str(demo_project)])
    err = capsys.readouterr()[1]
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert str(demo_project) in err
    assert target.read_bytes() == before
