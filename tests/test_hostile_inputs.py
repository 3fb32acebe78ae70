"""Hostile and broken input files: one clear line each, bounded cost, an unchanged project.

Every case runs the real command line (``sense7_coder.cli.main``) on a project that holds
conversations and codings, and asserts the exact one-line refusal (the file, and the line,
column or field where there is one) and that the project is exactly as before. The second
half checks that every value of a long export reads back with ``import-codings``, however
it starts (``=x``, ``'=x``, ``''``...). Add a case here for every bad file found.
"""

from __future__ import annotations

import codecs
import gzip
import io
import json
import os
import random
import shutil
import socket
import sqlite3
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest

from sense7_coder.cli import main
from sense7_coder.domain.export.tables import neutralise, neutralise_text, unneutralise, write_csv
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project

JSONL = (
    '{"conversation_id": "c1", "participant_id": "P1", "model": "m", "messages": ['
    '{"role": "user", "content": "I feel stuck."}, '
    '{"role": "assistant", "content": "That sounds hard. What happened?"}]}\n'
    '{"conversation_id": "c2", "participant_id": "P2", "model": "m", "messages": ['
    '{"role": "user", "content": "Help me plan."}, '
    '{"role": "assistant", "content": "=SUM(A1) first."}]}\n'
)
CODINGS_HEADER = "coder,conversation_id,turn,code,value\n"
#: a nominal code whose levels start with the characters that neutralisation marks
TONE_LEVELS = "'=quoted,=plain,'',+1,-3,@at,'x"


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _init(capsys: pytest.CaptureFixture[str], path: Path, source: Path) -> Path:
    assert run(capsys, "init", path)[0] == 0
    assert run(capsys, "codebook", path, "add", "tone", "--kind", "nominal", "--levels",
               TONE_LEVELS)[0] == 0
    assert run(capsys, "import", path, source)[0] == 0
    return path


@pytest.fixture
def study(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A project with two conversations, a coder and two codings."""
    source = tmp_path / "chats.jsonl"
    source.write_text(JSONL, encoding="utf-8")
    path = _init(capsys, tmp_path / "study.sense7", source)
    codings = tmp_path / "first.csv"
    codings.write_text(CODINGS_HEADER + "ann,c1,2,overall,4\nann,c2,2,tone,=plain\n",
                       encoding="utf-8")
    assert run(capsys, "import-codings", path, codings)[0] == 0
    return path


def snapshot(path: Path) -> dict[str, object]:
    """What a user could see of a project: counts, coders, codebook, every coding."""
    with Project.open(path, backup=False) as project:
        info = {k: v for k, v in project.info().items() if k != "path"}
        coders = sorted(c["name"] for c in project.coders())
        codebook = project.codebook.to_dict()
    out = path.with_name("snapshot.csv")
    assert main(["export", str(path), str(out), "--kind", "long"]) == 0
    rows = out.read_text(encoding="utf-8")
    out.unlink()
    return {"info": info, "coders": coders, "codebook": codebook, "long": rows}


def refused(capsys: pytest.CaptureFixture[str], project: Path, args: list[object],
            *expected: str) -> str:
    """Run a command that must fail: one line on stderr holding every ``expected`` text,
    and the project unchanged. Returns the message."""
    before = snapshot(project)
    capsys.readouterr()
    code, out, err = run(capsys, *args)
    assert code == 2, (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    message = lines[0]
    assert message.startswith("sense7-coder: error: "), message
    for text in expected:
        assert text in message, (text, message)
    assert snapshot(project) == before
    return message


# -- files to refuse ----------------------------------------------------------------------------

def _write(name: str, data: bytes | str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return path
    return make


CSV = "conversation_id,role,text\nx1,user,Hello there\nx1,assistant,Hi. How are you?\n"
MESSAGES = '[{"conversation_id": "x1", "messages": [{"role": "user", "content": "hi"}]}]'


def _conversation(**message: object) -> str:
    return json.dumps([{"conversation_id": "x1",
                        "messages": [{"role": "user", "content": "hi", **message}]}])


def _many_columns(folder: Path) -> Path:
    path = folder / "wide.csv"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(",".join(f"c{i}" for i in range(1_000_000)) + "\n")
        fh.write("," * 999_999 + "\n")
    return path


def _long_cell(folder: Path) -> Path:
    path = folder / "long_cell.csv"
    path.write_text("conversation_id,role,text\nx1,user,hi\nx1,assistant,"
                    + "a" * 1_000_001 + "\n", encoding="utf-8")
    return path


def _unix_socket(folder: Path) -> Iterator[Path]:
    short = Path(tempfile.mkdtemp(prefix="s7"))
    path = short / "sock.csv"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    try:
        yield path
    finally:
        server.close()
        shutil.rmtree(short)


def _fifo(folder: Path) -> Path:
    path = folder / "pipe.csv"
    os.mkfifo(path)
    return path


def _dev_zero_link(folder: Path) -> Path:
    path = folder / "zero.csv"
    path.symlink_to("/dev/zero")
    return path


def _sqlite_file(folder: Path) -> Path:
    path = folder / "data.csv"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    return path


def _workbook(sheet_prefix: bytes = b"", extra: tuple[str, int] | None = None,
              name: str = "book.xlsx",
              part: tuple[str, bytes] | None = None) -> Callable[[Path], Path]:
    """A SENSE-7 workbook, with ``sheet_prefix`` put before its first sheet's XML, an
    ``extra`` part of that many zero bytes (a ZIP bomb) and another ``part``."""
    def make(folder: Path) -> Path:
        plain = folder / "plain.xlsx"
        with pd.ExcelWriter(plain) as writer:
            pd.DataFrame({"TaskId": ["x1"], "PID": ["p"], "Model": ["m"]}).to_excel(
                writer, sheet_name="Tasks", index=False)
            pd.DataFrame({"TaskId": ["x1", "x1"], "MessageId": [1, 2],
                          "Role": ["user", "assistant"], "Content": ["hi", "hello"]}).to_excel(
                writer, sheet_name="Messages", index=False)
        path = folder / name
        with zipfile.ZipFile(plain) as src, \
                zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
            for item in src.infolist():
                data = src.read(item)
                if item.filename == "xl/worksheets/sheet1.xml":
                    data = sheet_prefix + data
                out.writestr(item, data)
            if part is not None:
                out.writestr(*part)
            if extra is not None:
                with out.open(extra[0], "w", force_zip64=True) as fh:
                    block = bytes(1 << 24)
                    for _ in range(extra[1] >> 24):
                        fh.write(block)
        return path
    return make


DTD = (b'<?xml version="1.0" encoding="UTF-8"?>\n<!-- padding -->\n<!DOCTYPE worksheet '
       b'[<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>')
random_bytes = random.Random(7).randbytes

IMPORT_CASES: list[tuple[str, Callable[[Path], object], list[str], tuple[str, ...]]] = [
    ("json nested 100,000 deep", _write("deep.json", "[" * 100_000 + "]" * 100_000), [],
     ("deep.json, line 1, column 201: JSON nested more than 200 levels deep",)),
    ("jsonl nested deep on line 2", _write("deep.jsonl", MESSAGES[1:-1] + "\n"
                                           + "{\"a\": " + "[" * 300 + "]" * 300 + "}\n"), [],
     ("deep.jsonl, line 2, column ", "nested more than 200 levels")),
    ("lone high surrogate", _write("sur.json", '[{"conversation_id": "x1",\n"messages": [\n'
                                   '{"role": "user", "content": "a\\ud800b"}]}]'), [],
     ("sur.json, line 3, column 31: the escape \\ud800 is half of a UTF-16 surrogate pair",)),
    ("lone low surrogate", _write("low.json", _conversation(content="x").replace(
        '"x"', '"x\\uDC00"')), [], ("low.json, line 1, column", "\\uDC00 is half")),
    ("number of 5,000 digits", _write("big.json", _conversation(n=0).replace(
        '"n": 0', '"n": ' + "9" * 5000)), [],
     ("big.json, line 1, column", "a number of 5,000 digits; numbers of more than 4,300")),
    ("number of 5,000 digits in jsonl", _write("big.jsonl", MESSAGES[1:-1] + "\n"
                                               + '{"n": ' + "1" * 5000 + "}\n"), [],
     ("big.jsonl, line 2, column 7: a number of 5,000 digits",)),
    ("rating of 4,000 digits", _write("rating.json", _conversation(ratings={"overall": 0})
                                      .replace('"overall": 0', '"overall": ' + "7" * 4000)),
     [], ("rating.json, conversation 1 (id 'x1'), message 1, field 'ratings.overall': "
          "a number of 4,000 digits is not a rating",)),
    ("rating cell of 5,000 digits", _write("rating.csv", "conversation_id,role,text,overall\n"
                                           "x1,user,hi,\nx1,assistant,yo," + "9" * 5000 + "\n"),
     [], ("rating.csv, line 3, field 'overall': '9999", "... (5,000 characters)' is not a "
          "rating",)),
    ("position cell of 5,000 digits", _write("pos.csv", "conversation_id,position,role,text\n"
                                             "x1,1,user,hi\nx1," + "9" * 5000 + ",assistant,yo\n"),
     [], ("pos.csv, line 3, field 'position': '9999", "... (5,000 characters)' is not a "
          "number",)),
    ("time offset of 4,000 digits", _write("time.json", _conversation(time_offset=0)
                                           .replace('"time_offset": 0',
                                                    '"time_offset": ' + "5" * 4000)), [],
     ("time.json, conversation 1 (id 'x1'), message 1, field 'time_offset': a number of "
      "4,000 digits is too large",)),
    ("utf-16 csv without BOM", _write("u16.csv", CSV.encode("utf-16-le")), [],
     ("u16.csv: the file is UTF-16 (little-endian, no byte-order mark) encoded; re-save it "
      "as UTF-8; or read it as utf-16-le (--encoding utf-16-le)",)),
    ("utf-16 big-endian csv without BOM", _write("u16be.csv", CSV.encode("utf-16-be")), [],
     ("UTF-16 (big-endian", "--encoding utf-16-be")),
    ("utf-16 csv with BOM", _write("u16bom.csv", CSV.encode("utf-16")), [],
     ("u16bom.csv: the file is UTF-16 encoded", "--encoding utf-16")),
    ("utf-32 json without BOM", _write("u32.json", MESSAGES.encode("utf-32-le")), [],
     ("u32.json: the file is UTF-32 (little-endian", "--encoding utf-32-le")),
    ("utf-32 jsonl with BOM", _write("u32.jsonl", MESSAGES[1:-1].encode("utf-32")), [],
     ("u32.jsonl: the file is UTF-32 encoded",)),
    ("windows-1252 csv", _write("cp.csv", CSV.replace("Hello", "\u201cCaf\u00e9\u201d")
                                .encode("cp1252")), [],
     ("cp.csv, line 2: not UTF-8 text: byte 0x93 at byte offset 34", "Windows-1252",
      "--encoding cp1252")),
    ("latin-1 json", _write("latin.json", _conversation(content="CAFE").replace(
        "CAFE", "caf\u00e9").encode("latin-1")),
     [], ("latin.json, line 1: not UTF-8 text", "Latin-1", "--encoding latin-1")),
    ("wrong --encoding", _write("cp2.csv", CSV.replace("Hello", "Caf\u00e9").encode("cp1252")),
     ["--encoding", "utf-8"], ("cp2.csv, line 2: cannot be read as utf-8",)),
    ("unknown --encoding", _write("plain.csv", CSV), ["--encoding", "klingon"],
     ("encoding 'klingon': unknown encoding",)),
    ("a codec that is not a text encoding", _write("plain.csv", CSV), ["--encoding", "base64"],
     ("encoding 'base64': not a text encoding",)),
    ("--encoding that makes a lone surrogate",
     _write("escape.csv", CSV + "x1,user,a\\ud800b\n"), ["--encoding", "unicode_escape"],
     ("escape.csv, line 4: read as unicode-escape, the file holds a character no text can "
      "hold (U+D800)",)),
    ("xlsx whose sheet declares a DTD", _workbook(DTD, name="dtd.xlsx"), [],
     ("dtd.xlsx: the workbook's part xl/worksheets/sheet1.xml declares a DTD",)),
    ("xlsx with a DTD in a part not named .xml",
     _workbook(part=("xl/printerSettings/evil.bin", b"  \n" + DTD[39:] + b"<a/>"),
               name="dtd2.xlsx"), [],
     ("dtd2.xlsx: the workbook's part xl/printerSettings/evil.bin declares a DTD",)),
    ("xlsx with a DTD in a UTF-16 part",
     _workbook(part=("xl/custom.xml", DTD.decode().replace("UTF-8", "UTF-16").encode("utf-16")
                     + "<a/>".encode("utf-16-le")), name="dtd16.xlsx"), [],
     ("dtd16.xlsx: the workbook's part xl/custom.xml declares a DTD",)),
    ("xlsx inflating to 1 GiB", _workbook(extra=("xl/media/pad.bin", 1 << 30),
                                          name="bomb.xlsx"), [],
     ("bomb.xlsx: the workbook would inflate to 1,024 MiB; at most 512 MiB",)),
    ("xlsx part compressed 1000 to 1", _workbook(extra=("xl/media/pad.bin", 1 << 26),
                                                 name="ratio.xlsx"), [],
     ("ratio.xlsx: the workbook's part xl/media/pad.bin is compressed", "likely ZIP bomb")),
    ("password-protected or .xls workbook", _write("locked.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1"
                                                   b"\x1a\xe1" + bytes(600)), [],
     ("locked.xlsx: is an old Excel (.xls) workbook or a password-protected one",)),
    ("xlsx that is not a zip", _write("fake.xlsx", b"hello, this is not a workbook"), [],
     ("fake.xlsx: not a readable Excel workbook (.xlsx)",)),
    ("named pipe", _fifo, [], ("pipe.csv: is a named pipe (FIFO); only regular files",)),
    ("/dev/zero with a format", lambda _: Path("/dev/zero"), ["--format", "csv"],
     ("/dev/zero: is a device; only regular files are read",)),
    ("link to /dev/zero", _dev_zero_link, [], ("zero.csv: is a device",)),
    ("a folder", lambda folder: folder, [], (": is a folder, not a file",)),
    ("a socket", _unix_socket, [], ("sock.csv: is a socket; only regular files",)),
    ("no such file", lambda folder: folder / "missing.csv", [], ("missing.csv: no such file",)),
    ("empty file", _write("empty.csv", b""), [], ("empty.csv: the file is empty",)),
    ("BOM only", _write("bom.csv", b"\xef\xbb\xbf"), [], ("bom.csv: the file is empty",)),
    ("blank lines only", _write("blank.json", b"\n \n\t\n"), [], ("blank.json: the file is empty",)),
    ("only a header", _write("header.csv", "conversation_id,role,text\n"), [],
     ("header.csv, line 2: the table has a header but no rows",)),
    ("NUL bytes", _write("nul.csv", CSV + "x1,user,a\x00b\n"), [],
     ("nul.csv, line 4: holds a NUL byte at byte offset", "binary data, not text")),
    ("binary garbage as .csv", _write("garbage.csv", random_bytes(20_000)), [],
     ("garbage.csv", "binary data")),
    ("binary garbage without NUL", _write("noise.csv", bytes(
        b for b in random_bytes(20_000) if b)), [], ("noise.csv: holds binary data, not text",)),
    ("gzip as .json", _write("chats.json", gzip.compress(MESSAGES.encode())), [],
     ("chats.json: is a gzip-compressed file; decompress it first",)),
    ("zip as .csv", _write("zip.csv", b"PK\x03\x04" + bytes(40)), [],
     ("zip.csv: is a ZIP archive",)),
    ("sqlite database as .csv", _sqlite_file, [], ("data.csv: is an SQLite database",)),
    ("jsonl with a bad line in the middle", _write("bad.jsonl", "\n".join([
        MESSAGES[1:-1], MESSAGES[1:-1].replace("x1", "x2"), '{"conversation_id": "x3", ',
        MESSAGES[1:-1].replace("x1", "x4")])), [],
     ("bad.jsonl, line 3: not valid JSON", "each line must hold one whole conversation")),
    ("duplicate header columns", _write("dup.csv", "conversation_id,role,text,role\n"
                                        "x1,user,hi,user\n"), [],
     ("dup.csv, line 1, field 'role': column 'role' appears twice in the header",)),
    ("a million columns, none of them text", _many_columns, [],
     ("wide.csv, line 1, field 'text': missing the message text column",
      "c28, c29, ... (1,000,000 in all); name the column for text (--map text=COLUMN)")),
    ("a cell over 1,000,000 characters", _long_cell, [],
     ("long_cell.csv, line 3, field 'text': the cell holds 1,000,001 characters; at most "
      "1,000,000",)),
    ("a quote never closed", _write("quote.csv", CSV + 'x1,user,"never closed\nx1,user,b\n'), [],
     ("quote.csv, line 4: ", "never closed")),
    ("a row with too many cells", _write("cells.csv", CSV + "x1,user,a,b,c\n"), [],
     ("cells.csv, line 4: not a well-formed CSV table: this row has 5 cells",)),
    ("conversation id with a control character (csv)",
     _write("ctrl.csv", "conversation_id,role,text\nok,user,hi\nx\x07y,user,hi\n"), [],
     ("ctrl.csv, line 3, field 'conversation_id': the conversation id 'x\\x07y' holds the "
      "control character U+0007",)),
    ("conversation id with a line separator (json)",
     _write("ctrl.json", json.dumps([{"conversation_id": "a\u2028b",
                                      "messages": [{"role": "user", "content": "hi"}]}])), [],
     ("ctrl.json, conversation 1, field 'conversation_id': the conversation id "
      "'a\\u2028b' holds the control character U+2028",)),
    ("message text that is an object", _write("types.json", _conversation(content={"a": 1})),
     [], ("types.json, conversation 1 (id 'x1'), message 1, field 'content': the message "
          "text must be text, found dict",)),
    ("ratings that are a list", _write("ratings.json", _conversation(ratings=[4])), [],
     ("ratings.json, conversation 1 (id 'x1'), message 1, field 'ratings': 'ratings' must "
      "be an object",)),
    ("time offset that is text", _write("offset.json", _conversation(time_offset="soon")),
     [], ("offset.json, conversation 1 (id 'x1'), message 1, field 'time_offset': 'soon' is "
          "not a number",)),
    ("conversation id that is a list", _write("idlist.json", json.dumps(
        [{"conversation_id": [1], "messages": [{"role": "user", "content": "hi"}]}])), [],
     ("idlist.json, conversation 1, field 'conversation_id': the conversation id must be "
      "text or a number",)),
]


@pytest.mark.parametrize(("make", "extra", "expected"),
                         [pytest.param(m, e, x, id=i) for i, m, e, x in IMPORT_CASES])
def test_import_refuses_with_one_line(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], object], extra: list[str], expected: tuple[str, ...],
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    made = make(folder)
    if isinstance(made, Iterator):
        with _closing(made) as path:
            refused(capsys, study, ["import", study, path, *extra], *expected)
    else:
        assert isinstance(made, Path)
        refused(capsys, study, ["import", study, made, *extra], *expected)


class _closing:
    def __init__(self, gen: Iterator[Path]) -> None:
        self.gen = gen

    def __enter__(self) -> Path:
        return next(self.gen)

    def __exit__(self, *exc: object) -> None:
        for _ in self.gen:
            pass


# -- codings files to refuse ----------------------------------------------------------------------

CODINGS_CASES: list[tuple[str, bytes | str, list[str], tuple[str, ...]]] = [
    ("utf-16 codings without BOM", (CODINGS_HEADER + "bob,c1,2,overall,3\n").encode("utf-16-le"),
     [], ("codings.csv: the file is UTF-16 (little-endian, no byte-order mark) encoded",
          "--encoding utf-16-le")),
    ("utf-16 codings with BOM", (CODINGS_HEADER + "bob,c1,2,overall,3\n").encode("utf-16"),
     [], ("codings.csv: the file is UTF-16 encoded",)),
    ("cp1252 coder name", (CODINGS_HEADER + "b\u00e9a,c1,2,overall,3\n").encode("cp1252"), [],
     ("codings.csv, line 2: not UTF-8 text", "--encoding latin-1")),
    ("negative turn", CODINGS_HEADER + "bob,c1,-2,overall,3\n", [],
     ("codings.csv, line 2, field 'turn': turn -2 is not a turn number",)),
    ("fractional turn", CODINGS_HEADER + "bob,c1,1.5,overall,3\n", [],
     ("codings.csv, line 2, field 'turn': turn '1.5' is not a whole number",)),
    ("turn of 300 digits", CODINGS_HEADER + "bob,c1,1e300,overall,3\n", [],
     ("codings.csv, line 2, field 'turn': turn '1e300' is too large",)),
    ("turn of 5,000 digits", CODINGS_HEADER + "bob,c1," + "9" * 5000 + ",overall,3\n", [],
     ("codings.csv, line 2, field 'turn': turn '999", "(5,000 characters)' is not a whole")),
    ("turn that is text", CODINGS_HEADER + "bob,c1,two,overall,3\n", [],
     ("codings.csv, line 2, field 'turn': turn 'two' is not a whole number",)),
    ("coder with a tab", CODINGS_HEADER + "bo\tb,c1,2,overall,3\n", [],
     ("codings.csv, line 2, field 'coder': the coder name 'bo\\tb' holds the control "
      "character U+0009",)),
    ("coder with a line break in quotes", CODINGS_HEADER + 'ok,c1,2,overall,3\n'
     '"bo\r\nb",c1,2,overall,3\n', [],
     ("codings.csv, line 3, field 'coder': the coder name 'bo\\r\\nb' holds the control "
      "character U+000D",)),
    ("conversation id with ESC", CODINGS_HEADER + "bob,c\x1b1,2,overall,3\n", [],
     ("codings.csv, line 2, field 'conversation_id': ", "U+001B")),
    ("value off the scale", CODINGS_HEADER + "bob,c1,2,overall,9\n", [],
     ("codings.csv, line 2, field 'value': '9' is not a level of code 'overall'",)),
    ("unknown code of 100,000 characters", CODINGS_HEADER + "bob,c1,2," + "k" * 100_000
     + ",3\n", [], ("codings.csv, line 2, field 'code': unknown code 'kkk",
                    "(100,000 characters)")),
    ("unknown conversation", CODINGS_HEADER + "bob,nope,2,overall,3\n", [],
     ("codings.csv, line 2, field 'conversation_id': there is no conversation 'nope'",)),
    ("missing column", "coder,conversation_id,turn,value\nbob,c1,2,3\n", [],
     ("codings.csv, line 1, field 'code': missing column(s) code",)),
    ("the same coding twice", CODINGS_HEADER + "bob,c1,2,overall,3\r\nbob,c1,2,overall,4\n",
     [], ("codings.csv, line 3, field 'code': coder 'bob' coded 'overall' on this unit "
          "already on line 2",)),
    ("a BOM and nothing else", b"\xef\xbb\xbf", [], ("codings.csv: the file is empty",)),
    ("gzip codings", gzip.compress(CODINGS_HEADER.encode()), [],
     ("codings.csv: is a gzip-compressed file",)),
]


@pytest.mark.parametrize(("content", "extra", "expected"),
                         [pytest.param(c, e, x, id=i) for i, c, e, x in CODINGS_CASES])
def test_import_codings_refuses_with_one_line(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    content: bytes | str, extra: list[str], expected: tuple[str, ...],
) -> None:
    path = tmp_path / "codings.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    refused(capsys, study, ["import-codings", study, path, *extra], *expected)


def test_import_codings_refuses_a_pipe(study: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    pipe = _fifo(tmp_path)
    refused(capsys, study, ["import-codings", study, pipe], "pipe.csv: is a named pipe")


# -- codebook files to refuse ---------------------------------------------------------------------

def _codebook(**code: object) -> str:
    return json.dumps({"name": "x", "codes": [{"key": "a", "kind": "nominal", **code}]})


CODEBOOK_CASES: list[tuple[str, str | bytes, tuple[str, ...]]] = [
    ("100,000 levels", _codebook(levels=[{"value": f"l{i}"} for i in range(100_000)]),
     ("book.json, code 1 'a': 100,000 levels; a code has at most 1,000 levels",)),
    ("levels that are not a list", _codebook(levels="a,b,c"),
     ("book.json, code 1 'a': field 'levels' must be a list",)),
    ("2,000 codes", json.dumps({"name": "x", "codes": [{"key": f"c{i}"} for i in range(2000)]}),
     ("book.json: 2,000 codes; a codebook has at most 1,000 codes",)),
    ("nested 100,000 deep", "[" * 100_000 + "]" * 100_000,
     ("book.json: not a codebook (JSON nested too deeply)",)),
    ("a level of 5,000 digits", _codebook(kind="ordinal", levels=[{"value": 1}]).replace(
        '"value": 1', '"value": ' + "1" * 5000),
     ("book.json: not a codebook (Exceeds the limit (4300 digits)",)),
    ("utf-16", _codebook().encode("utf-16"), ("book.json: the file is UTF-16 encoded",)),
]


@pytest.mark.parametrize(("content", "expected"),
                         [pytest.param(c, x, id=i) for i, c, x in CODEBOOK_CASES])
def test_codebook_import_refuses_with_one_line(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    content: str | bytes, expected: tuple[str, ...],
) -> None:
    path = tmp_path / "book.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    refused(capsys, study, ["codebook", study, "import", path], *expected)


def test_codebook_import_refuses_a_device(study: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, study, ["codebook", study, "import", "/dev/zero"],
            "/dev/zero: is a device; only regular files are read")


@pytest.mark.parametrize(("levels", "expected"), [
    ("1..100000000000", "levels '1..100000000000': 100,000,000,000 levels; a code has at most "
                        "1,000 levels"),
    ("1.." + "9" * 5000, "ordinal codes need whole-number levels"),
    (",".join(str(i) for i in range(1001)), "levels: 1,001 levels; a code has at most 1,000"),
    ("1,2," + "9" * 5000, "ordinal codes need whole-number levels"),
])
def test_codebook_add_refuses_huge_scales(study: Path, capsys: pytest.CaptureFixture[str],
                                          levels: str, expected: str) -> None:
    refused(capsys, study, ["codebook", study, "add", "big", "--kind", "ordinal", "--levels",
                            levels], expected)


def test_stored_levels_that_are_not_a_list_are_one_error() -> None:
    from sense7_coder.domain.codebook.codes import stored_levels
    from sense7_coder.domain.errors import CodebookError

    for text in ('"1..5"', "{}", "not json", "[" * 10_000, "[1, 2]", '[{"value": true}]'):
        with pytest.raises(CodebookError, match="code 'a': "):
            stored_levels(text, "code 'a'")
    with pytest.raises(CodebookError, match="at most 1,000 levels"):
        stored_levels(json.dumps([{"value": i, "label": str(i)} for i in range(1001)]), "a")
    assert [lv.value for lv in stored_levels('[{"value": 1, "label": "x"}, {"value": 2}]',
                                             "a")] == [1, 2]


# -- what must be read ----------------------------------------------------------------------------

def _texts(project_path: Path, cid: str) -> list[str]:
    with Project.open(project_path, backup=False) as project:
        conv = project.conversation(cid)
        assert conv is not None
        return [t.text for t in conv.turns]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "cp1252",
                                   "latin-1", "utf-8"])
def test_encoding_option_reads_other_encodings(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], codec: str
) -> None:
    text = "Caf\u00e9 \u00bbcr\u00e8me\u00ab" if codec == "latin-1" else "Caf\u00e9 \u201ccr\u00e8me\u201d"
    source = tmp_path / "enc.csv"
    source.write_bytes(CSV.replace("Hello there", text).encode(codec))
    code, out, err = run(capsys, "import", study, source, "--encoding", codec)
    assert code == 0, err
    assert _texts(study, "x1") == [text, "Hi. How are you?"]


def test_encoding_option_reads_a_utf16_codings_file(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "codings.csv"
    path.write_bytes((CODINGS_HEADER + "b\u00e9a,c1,2,overall,3\n").encode("utf-16-le"))
    code, out, err = run(capsys, "import-codings", study, path, "--encoding", "utf-16-le")
    assert code == 0, err
    assert "new coders: b\u00e9a" in out


def test_utf8_with_bom_and_mixed_line_ends_is_read(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mixed.csv"
    source.write_bytes(b"\xef\xbb\xbfconversation_id,role,text\r\nx1,user,\"two\r\nlines\"\n"
                       b"x1,assistant,plain\r\nx2,user,\"a \"\"quote\"\"\"\n")
    code, out, err = run(capsys, "import", study, source)
    assert code == 0, err
    assert _texts(study, "x1") == ["two\r\nlines", "plain"]
    assert _texts(study, "x2") == ['a "quote"']


def test_a_header_longer_than_64_kib_is_read(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = [f"attribute_{i:04d}_" + "x" * 60 for i in range(1500)]  # about 110 KiB
    source = tmp_path / "long_header.csv"
    header = ",".join(["conversation_id", "role", "text", *extra])
    assert len(header) > 65536
    source.write_text(header + "\nx1,user,hi" + ",v" * len(extra) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "import", study, source)
    assert code == 0, err
    assert _texts(study, "x1") == ["hi"]


def test_a_long_quoted_header_cell_is_read(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_name = "note " + "y" * 200_000  # one quoted column name beyond csv's default limit
    source = tmp_path / "long_name.csv"
    source.write_text(f'conversation_id,role,text,"{long_name}"\nx1,user,hi,1\n',
                      encoding="utf-8")
    code, out, err = run(capsys, "import", study, source)
    assert code == 0, err


# -- exports read back exactly --------------------------------------------------------------------

ALPHABET = "'=+-@\t\r\n,\" ab1.é"


def _random_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = ["", "'", "''", "'=x", "=x", "-1", "'-1", "+", "@", "\t", "\r", "'\t"]
    for _ in range(n):
        out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8))))
    return out


def test_neutralising_is_undone_exactly() -> None:
    for text in _random_texts(5000, seed=1):
        marked = neutralise_text(text)
        assert unneutralise(marked) == text
        assert marked[:1] not in ("=", "+", "@", "\t", "\r") or marked == text
        if marked[:1] == "-":
            float(marked)  # only a plain number may still start with '-'


def test_neutralised_csv_cells_read_back_exactly(tmp_path: Path) -> None:
    texts = _random_texts(3000, seed=2)
    frame = pd.DataFrame({"plain": texts, "repeated": pd.Categorical(texts)})
    out = tmp_path / "cells.csv"
    write_csv(frame, out)
    back = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert [unneutralise(v) for v in back["plain"]] == texts
    assert [unneutralise(v) for v in back["repeated"]] == texts
    assert neutralise(frame)["plain"].tolist() == [neutralise_text(t) for t in texts]


def _coders(seed: int) -> list[str]:
    rng = random.Random(seed)
    names = {"'=x", "=x", "''=x", "'", "''", "-x", "'-x", "+1", "@a", "'@a", "a,b", 'say "hi"'}
    while len(names) < 40:
        name = "".join(rng.choice("'=+-@ ,\"ab") for _ in range(rng.randint(1, 6))).strip()
        if name:
            names.add(name)
    return sorted(names)


def test_long_export_reads_back_every_coder_and_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "chats.jsonl"
    source.write_text(JSONL, encoding="utf-8")
    first = _init(capsys, tmp_path / "first.sense7", source)
    levels = TONE_LEVELS.split(",")
    coders = _coders(seed=3)
    with Project.open(first, backup=False) as project:
        for i, name in enumerate(coders):
            project.set_coder(name)
            project.set_value(Unit("c1", 2, 0), "tone", levels[i % len(levels)])
            project.set_value(Unit("c2", 2, 0), "overall", 1 + i % 5)
        assert sorted(c["name"] for c in project.coders()) == coders
    exported = tmp_path / "long.csv"
    assert run(capsys, "export", first, exported, "--kind", "long")[0] == 0
    second = _init(capsys, tmp_path / "second.sense7", source)
    code, out, err = run(capsys, "import-codings", second, exported)
    assert code == 0, err
    assert f"imported {2 * len(coders)} codings" in out
    assert snapshot(second)["long"] == snapshot(first)["long"]
    assert snapshot(second)["coders"] == coders
    again = tmp_path / "again.csv"
    assert run(capsys, "export", second, again, "--kind", "long")[0] == 0
    assert again.read_bytes() == exported.read_bytes()
    rows = pd.read_csv(io.StringIO(exported.read_text(encoding="utf-8")), dtype=str,
                       keep_default_na=False)
    assert "''=x" in set(rows["coder"]) and "'=x" in set(rows["coder"])
    assert "''=quoted" in set(rows["value"]) and "'=plain" in set(rows["value"])


def test_codecs_named_in_messages_exist() -> None:
    for name in ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be",
                 "cp1252", "latin-1"):
        codecs.lookup(name)


# -- a project file given as input -----------------------------------------------------------------

def test_a_project_in_use_given_as_input_is_refused_by_name(
    study: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the project being imported into is named as such, its -wal too
    refused(capsys, study, ["import", study, study, "--format", "csv"],
            "study.sense7: this is the open project file study.sense7")
    refused(capsys, study, ["import-codings", study, study],
            "study.sense7: this is the open project file study.sense7")
    refused(capsys, study, ["import", study, study.with_name("study.sense7-wal"), "--format",
                            "jsonl"], "study.sense7-wal: this is the open project file")


def test_the_open_project_reached_through_another_name_is_refused(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One guard, by device and inode: a symbolic link and a hard link to the project are
    the project, for every reader and for the export; each refusal is one line naming the
    file given."""
    (tmp_path / "links").mkdir()
    symlink, hardlink = tmp_path / "links" / "alias.csv", tmp_path / "links" / "hard.csv"
    symlink.symlink_to(study)
    os.link(study, hardlink)
    for link in (symlink, hardlink):
        for args in (["import", study, link, "--format", "csv"],
                     ["import-codings", study, link], ["import-ratings", study, link],
                     ["export", study, link, "--kind", "long"]):
            refused(capsys, study, args, f"{link}: this is the open project file study.sense7")
    assert symlink.is_symlink() and hardlink.stat().st_ino == study.stat().st_ino


def test_a_file_named_like_the_project_elsewhere_is_read_and_written(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the project itself is refused, not its name: a CSV called study.sense7 in another
    folder (with a -wal beside it) is imported, and an export there is written."""
    other = tmp_path / "elsewhere" / "study.sense7"
    other.parent.mkdir()
    other.write_text("conversation_id,role,text\nc9,user,hello\nc9,assistant,hi\n",
                     encoding="utf-8")
    other.with_name("study.sense7-wal").write_bytes(b"")
    code, _, err = run(capsys, "import", study, other, "--format", "csv")
    assert code == 0, err
    conn = sqlite3.connect(study)
    assert ("c9",) in conn.execute("SELECT conversation_id FROM conversations").fetchall()
    conn.close()
    out = tmp_path / "elsewhere2" / "study.sense7"
    out.parent.mkdir()
    code, _, err = run(capsys, "export", study, out, "--kind", "long", "--to", "csv")
    assert code == 0, err
    assert out.read_text(encoding="utf-8").startswith("coder,")


def test_reading_inputs_never_opens_a_project_held_by_this_process(
    study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing any descriptor of a database file drops this process's locks on it: the
    readers must refuse a project in use without opening it."""
    from sense7_coder.domain.codebook.codes import load_codebook
    from sense7_coder.domain.codings_csv import read_codings_csv
    from sense7_coder.domain.errors import ProjectError
    from sense7_coder.domain.importers import ImportOptions, read_files

    opened: list[str] = []
    real_os_open, real_open = os.open, io.open

    def os_open(path: object, *args: object, **kwargs: object) -> int:
        opened.append(str(path))
        return real_os_open(path, *args, **kwargs)  # type: ignore[arg-type]

    def py_open(path: object, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    with Project.open(study, backup=False) as project:
        monkeypatch.setattr(os, "open", os_open)
        monkeypatch.setattr("builtins.open", py_open)
        monkeypatch.setattr(io, "open", py_open)
        for fmt in ("csv", "json", "jsonl", "transcript", "sense7-xlsx"):
            with pytest.raises(ProjectError, match="is the open project file study.sense7"):
                read_files([study], ImportOptions(format=fmt))
        with pytest.raises(ProjectError, match="is the open project file study.sense7"):
            read_codings_csv(study, project.codebook)
        with pytest.raises(ProjectError, match="is the open project file study.sense7"):
            load_codebook(study)
        monkeypatch.undo()
    assert not [p for p in opened if p.startswith(str(study))]


def test_text_that_is_not_utf8_in_a_project_is_read_not_fatal(
        study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bytes that are not UTF-8, written into a message and a participant by another tool:
    every reading command still runs, and the bytes read as U+FFFD."""
    conn = sqlite3.connect(study)
    conn.execute("UPDATE turns SET text = CAST(X'48656c6c6fff' AS TEXT) "
                 "WHERE conversation_id = 'c1' AND position = 2")
    conn.execute("UPDATE conversations SET topic = CAST(X'546f706963fe' AS TEXT) "
                 "WHERE conversation_id = 'c2'")
    conn.commit()
    conn.close()
    assert run(capsys, "info", study)[0] == 0
    assert run(capsys, "agreement", study)[0] == 0
    for kind in ("long", "wide", "consensus"):
        code, _, err = run(capsys, "export", study, "--kind", kind, tmp_path / f"{kind}.csv")
        assert code == 0, err
    code, _, err = run(capsys, "export-qdpx", study, tmp_path / "out.qdpx")
    assert code == 0, err
    with zipfile.ZipFile(tmp_path / "out.qdpx") as z:
        texts = [z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".txt")]
    assert any("Hello\ufffd" in t for t in texts)


@pytest.mark.parametrize(("table", "column", "where"), [
    ("conversations", "conversation_id", "conversation_id = 'c2'"),
    ("coders", "name", "name = 'ann'"),
])
def test_a_key_that_is_not_utf8_is_a_damaged_file(
        study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        table: str, column: str, where: str) -> None:
    """A key read back as another text would match nothing (an export would drop its
    rows without a word): the file is refused as damaged, naming table and row."""
    conn = sqlite3.connect(study)
    rowid = conn.execute(f"SELECT rowid FROM {table} WHERE {where}").fetchone()[0]
    conn.execute(f"UPDATE {table} SET {column} = CAST(X'6332ff' AS TEXT) WHERE {where}")
    conn.commit()
    conn.close()
    before = study.read_bytes()
    code, _, err = run(capsys, "info", study)
    assert code != 0 and err.count("\n") == 1
    assert f"table {table}, row {rowid}: its {column} is not UTF-8 text" in err
    assert "sense7-coder restore" in err
    code, _, err = run(capsys, "export-qdpx", study, tmp_path / "out.qdpx")
    assert code != 0 and "is not UTF-8 text" in err and not (tmp_path / "out.qdpx").exists()
    assert study.read_bytes() == before


def _edit(path: Path, sql: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql)
    conn.commit()
    conn.close()


@pytest.mark.parametrize("value", ["3.5", "'abc'", "X'0102'"])
def test_a_coded_value_off_the_scale_is_named_by_conversation_turn_and_coder(
        study: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    _edit(study, f"UPDATE codings SET value = {value} WHERE code = 'overall'")
    code, _, err = run(capsys, "agreement", study)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "codings of code 'overall'" in err
    assert "conversation 'c1', turn 2, coder 'ann'" in err and "not a level of the scale" in err


@pytest.mark.parametrize(("value", "shown"), [("-2", "-2 is"), ("99", "99 is"),
                                               ("3.5", "3.5 is"), ("'abc'", "'abc' is")])
def test_an_off_scale_value_is_shown_as_it_was_stored(
        study: Path, capsys: pytest.CaptureFixture[str], value: str, shown: str) -> None:
    """The message shows the stored value as a researcher would write it, not the
    representation of a numpy number (``np.float64(-2.0)``)."""
    other = study.parent / "other.csv"
    other.write_text(CODINGS_HEADER + "bo,c1,2,overall,NA\n", encoding="utf-8")
    assert run(capsys, "import-codings", study, other)[0] == 0
    _edit(study, "DELETE FROM codings WHERE code = 'tone'")  # every value left is a number
    _edit(study, f"UPDATE codings SET value = {value} WHERE code = 'overall' AND coder = 'ann'")
    for command in ("agreement", "analyze"):
        args = ("--out", study.parent / "out") if command == "analyze" else ()
        code, _, err = run(capsys, command, study, *args)
        assert code == 2 and err.count("\n") == 1
        assert f"field 'value': {shown} not a level of the scale 1..5" in err
        assert "np." not in err and "float64" not in err


def test_a_users_rating_that_is_not_a_number_is_named(
        study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conn = sqlite3.connect(study)
    conn.execute("INSERT INTO user_ratings (conversation_id, position, rating, value) "
                 "VALUES ('c1', 2, 'overall', 'great')")
    conn.commit()
    conn.close()
    code, _, err = run(capsys, "analyze", study, "--out", tmp_path / "an", "--no-figures")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "conversation 'c1', turn 2, rating 'overall'" in err and "'great'" in err


def test_attributes_left_malformed_read_as_none(
        study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Conversation and turn attributes another tool left as malformed JSON: the
    conversation still opens, the analyses run, and a filter on an attribute skips it."""
    _edit(study, "UPDATE conversations SET attributes = '{not json' "
                 "WHERE conversation_id = 'c1'")
    _edit(study, "UPDATE turns SET attributes = '[1, 2' WHERE conversation_id = 'c2'")
    with Project.open(study, backup=False) as project:
        assert project.conversation("c1").attributes == {}
        assert project.conversation("c2").turns[0].attributes == {}
    code, _, err = run(capsys, "analyze", study, "--out", tmp_path / "an", "--no-figures")
    assert code == 0, err
    _edit(study, "UPDATE conversations SET attributes = '{\"task\": \"x\"}' "
                 "WHERE conversation_id = 'c2'")
    code, out, err = run(capsys, "agreement", study, "--attribute", "task=x")
    assert "malformed" not in err and "Traceback" not in err
    code, _, err = run(capsys, "analyze", study, "--out", tmp_path / "an2", "--no-figures",
                       "--filter", "task=x")
    assert code == 0 and "malformed" not in err


@pytest.mark.parametrize("kind", ["long", "wide"])
@pytest.mark.parametrize("value", ["99", "'banana'"])
def test_an_export_refuses_a_value_off_the_scale_as_agreement_does(
        study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str,
        value: str) -> None:
    _edit(study, f"UPDATE codings SET value = {value} WHERE code = 'overall' AND coder = 'ann'")
    out = tmp_path / f"{kind}.csv"
    code, _, err = run(capsys, "export", study, out, "--kind", kind)
    assert code != 0 and err.count("\n") == 1 and "Traceback" not in err
    assert "codings of code 'overall'" in err and "coder 'ann'" in err
    assert "field 'value'" in err and "not a level of the scale 1..5" in err
    assert not out.exists()  # nothing half-written
