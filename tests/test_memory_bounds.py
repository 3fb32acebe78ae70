"""Small files that claim huge sizes: reading costs what the data holds, not what it declares.

Each hostile file is built here and read in a child process (so that its peak resident
size is its own, measured with ``getrusage``), under an address-space limit, so that a
reader that pads or believes declared sizes fails with a MemoryError instead of taking the
machine down. The bounds are generous correctness guards for a slow 2-core CI machine, not
performance targets.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from sense7_coder.domain.errors import InputError
from sense7_coder.domain.importers import ImportOptions, preview, read_files

ROOT = Path(__file__).resolve().parents[1]
#: the address space a child may map (pandas and numpy alone map a few hundred MiB)
CHILD_ADDRESS_SPACE = 3 << 30

CHILD = r"""
import json, resource, sys, time
def peak_mb():
    # ru_maxrss survives exec on Linux (it would be the test runner's); VmHWM does not
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
t0 = time.perf_counter()
from sense7_coder.domain.errors import InputError
from sense7_coder.domain.importers import ImportOptions, read_files
base = peak_mb()
out = {}
try:
    batches = read_files(sys.argv[1].split("|"), ImportOptions(format=sys.argv[3]))
    out["conversations"] = sum(len(b.conversations) for b in batches)
    out["turns"] = sum(len(c.turns) for b in batches for c in b.conversations)
    out["warnings"] = [w for b in batches for w in b.warnings]
except InputError as e:
    out["error"] = str(e)
except MemoryError:
    out["error"] = "MemoryError"
out["seconds"] = time.perf_counter() - t0
out["peak_mb"] = peak_mb()
out["import_mb"] = base
print(json.dumps(out))
"""


def read_in_child(paths: list[Path], fmt: str = "auto", timeout: float = 120) -> dict[str, Any]:
    """read_files in a fresh process: its result, seconds and peak resident MiB."""
    # one BLAS thread: on a many-core machine each thread reserves address space
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, "|".join(str(p) for p in paths),
         str(CHILD_ADDRESS_SPACE), fmt],
        capture_output=True, text=True, cwd=ROOT, timeout=timeout, env=env,
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr[-2000:]
    result: dict[str, Any] = json.loads(lines[-1])
    return result


# -- workbooks ----------------------------------------------------------------------------------

_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.'
    'openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.'
    'openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
    'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
    'schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/'
    'spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships"><sheets><sheet name="Tasks" sheetId="1" r:id="rId1"/>'
    '<sheet name="Messages" sheetId="2" r:id="rId2"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
    'openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet1.xml"/>'
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>'
)


def _row(number: int, values: list[str]) -> str:
    from openpyxl.utils import get_column_letter

    cells = "".join(f'<c r="{get_column_letter(i + 1)}{number}" t="inlineStr"><is><t>{v}</t>'
                    f"</is></c>" for i, v in enumerate(values))
    return f'<row r="{number}">{cells}</row>'


def _sheet(rows: str) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.'
            'openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:XFD1048576"/>'
            f"<sheetData>{rows}</sheetData></worksheet>")


TASK_ROWS = _row(1, ["TaskId", "PID", "Model"]) + _row(2, ["t1", "P1", "GPT4"])
MESSAGE_ROWS = (_row(1, ["TaskId", "MessageId", "Role", "Content"])
                + _row(2, ["t1", "1", "user", "hi"]) + _row(3, ["t1", "2", "assistant", "hello"]))


def hand_made_workbook(path: Path, tasks: str = TASK_ROWS, messages: str = MESSAGE_ROWS,
                       styles: str | None = None) -> Path:
    """A two-sheet SENSE-7 workbook written part by part (as no spreadsheet program would)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", _WORKBOOK)
        z.writestr("xl/_rels/workbook.xml.rels", _WORKBOOK_RELS)
        z.writestr("xl/worksheets/sheet1.xml", _sheet(tasks))
        z.writestr("xl/worksheets/sheet2.xml", _sheet(messages))
        if styles is not None:
            z.writestr("xl/styles.xml", styles)
    return path


def test_one_cell_at_xfd1048576_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """A 2 KB workbook whose Tasks sheet holds one stray cell at XFD1048576 (and which
    declares the whole sheet as its size): before, every row was padded to 16,384 columns
    (over 8 GB); now the stray cell is one cell, refused in one line naming its row."""
    path = hand_made_workbook(
        tmp_path / "xfd.xlsx",
        tasks=TASK_ROWS + '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>')
    assert path.stat().st_size < 4096
    out = read_in_child([path])
    assert out.get("error") == (f"{path}, sheet Tasks, row 1048576, field 'TaskId': "
                                "the TaskId is empty"), out
    assert out["peak_mb"] < 300 and out["seconds"] < 20, out


def test_stray_far_cells_in_a_data_row_become_one_column(tmp_path: Path) -> None:
    """Cells far to the right of a real message (XFD) and far below it: read as the cells
    they are (one column without a header), in bounded memory."""
    messages = _row(1, ["TaskId", "MessageId", "Role", "Content"]) + \
        _row(2, ["t1", "1", "user", "hi"]) + \
        _row(1048575, ["t1", "2", "assistant", "hello"]).replace(
            "</row>", '<c r="XFD1048575"><v>7</v></c></row>')
    path = hand_made_workbook(tmp_path / "far.xlsx", messages=messages)
    out = read_in_child([path])
    assert out.get("turns") == 2, out
    assert out["peak_mb"] < 300 and out["seconds"] < 20, out


def test_sheet_rows_are_named_by_their_sheet_row(tmp_path: Path) -> None:
    """Empty rows before the header and between messages: messages name the row a user
    sees in the spreadsheet program."""
    messages = (_row(3, ["TaskId", "MessageId", "Role", "Content"])
                + _row(5, ["t1", "1", "user", "hi"]) + _row(9, ["t1", "2", "robot", "hello"]))
    path = hand_made_workbook(tmp_path / "gaps.xlsx", messages=messages)
    with pytest.raises(InputError) as e:
        read_files([path], ImportOptions())
    assert e.value.location == "sheet Messages, row 9"
    assert "unknown role 'robot'" in e.value.message


def _styles(formats: int) -> str:
    rnd = random.Random(formats)
    xfs = "".join(f'<xf numFmtId="{rnd.randint(0, 200)}" fontId="0" fillId="0" borderId="0"/>'
                  for _ in range(formats))
    return ('<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.'
            'openxmlformats.org/spreadsheetml/2006/main"><fonts count="1"><font><sz val="11"/>'
            '</font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill>'
            '</fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf '
            'numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
            f'<cellXfs count="{formats}">{xfs}</cellXfs></styleSheet>')


def test_styles_part_with_a_million_formats_is_refused_in_one_line(tmp_path: Path) -> None:
    """A styles part of a million cell formats (2 MB on disk, compressed only 30 to 1, so
    not a ZIP bomb by ratio) was parsed whole: a GB and minutes. Now it is refused before
    parsing, naming the part; 64,000 formats, Excel's own limit, are still read."""
    at_limit = hand_made_workbook(tmp_path / "limit.xlsx", styles=_styles(64_000))
    assert len(read_files([at_limit], ImportOptions())[0].conversations) == 1
    path = hand_made_workbook(tmp_path / "styles.xlsx", styles=_styles(1_000_000))
    assert path.stat().st_size < 4 << 20
    out = read_in_child([path], timeout=180)
    assert out.get("error") == (
        f"{path}: the workbook's part xl/styles.xml holds more than 200,000 XML elements "
        "(Excel itself allows 64,000 cell formats); refused before reading"), out
    assert out["peak_mb"] < 300 and out["seconds"] < 20, out


def test_xlsm_and_preview_columns_read_streaming(tmp_path: Path) -> None:
    """A macro-enabled workbook (.xlsm) is read the same way; the import dialog's column
    list comes from the header rows alone."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Tasks"
    sheet.append(["TaskId", "PID"])
    sheet.append(["t1", "P1"])
    msg = book.create_sheet("Messages")
    msg.append(["TaskId", "Role", "Content", None, "Retry"])
    msg.append(["t1", "user", 1.0, None, True])
    msg.append(["t1", "assistant", "ok", "stray", 0.5])
    path = tmp_path / "book.xlsm"
    book.save(path)
    result = preview(path, ImportOptions())
    assert result.ok, result.messages
    assert result.columns == ["TaskId", "PID", "Role", "Content", "Retry"]
    turns = read_files([path], ImportOptions())[0].conversations[0].turns
    assert [t.text for t in turns] == ["1", "ok"]
    assert [t.attributes for t in turns] == [{"Retry": True},
                                            {"Unnamed: 3": "stray", "Retry": 0.5}]


# -- CSV files wider than the columns read whole -------------------------------------------------

EXTRA = [f"extra{i}" for i in range(12_000)]


def _wide_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    import csv

    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header + EXTRA)
        for i, row in enumerate(rows):
            # the ignored cells hold values, and one of them spans two lines
            extra = ["x\ny" if (i, j) == (1, 5) else (f"v{i}" if j % 7 == 0 else "")
                     for j in range(len(EXTRA))]
            writer.writerow(row + extra)
    return path


def test_long_csv_of_12003_columns_reads_the_mapped_columns(tmp_path: Path) -> None:
    """A valid long CSV with 12,003 columns was refused ("at most 2,000 columns are
    read"); now the columns the importer maps are read and the others ignored, with a
    note; an error still names the line the record starts on (an ignored cell above it
    spans two lines)."""
    rows = [["c1", "user", "hi"], ["c1", "assistant", "hello"], ["c2", "user", "bye"]]
    path = _wide_csv(tmp_path / "wide.csv", ["conversation_id", "role", "Content"], rows)
    batch = read_files([path], ImportOptions(mapping={"text": "Content"}))[0]
    assert [[t.text for t in c.turns] for c in batch.conversations] == [["hi", "hello"],
                                                                        ["bye"]]
    assert batch.conversations[0].turns[0].attributes == {}
    assert batch.warnings == [
        "the file is too large to read whole (12,003 columns): only the 3 the import needs "
        "were read (conversation_id, role, Content); the other 12,000 were ignored (extra0, "
        "extra1, extra2, extra3, extra4, ...)"]
    bad = _wide_csv(tmp_path / "bad.csv", ["conversation_id", "role", "text"],
                    [*rows, ["c2", "robot", "?"]])
    with pytest.raises(InputError) as e:
        read_files([bad], ImportOptions())
    assert (e.value.location, e.value.field) == ("line 6", "role")


def test_wide_sense7_tables_and_transcripts_read_their_columns(tmp_path: Path) -> None:
    """The SENSE-7 tables as CSV files and a transcript table, each 12,000 columns wider
    than its fields, are read (a note for each file)."""
    tasks = _wide_csv(tmp_path / "tasks.csv", ["TaskId", "PID", "Model"], [["t1", "P1", "m"]])
    messages = _wide_csv(tmp_path / "messages.csv", ["TaskId", "MessageId", "Role", "Content"],
                         [["t1", "1", "user", "hi"], ["t1", "2", "assistant", "hello"]])
    batch = read_files([tasks, messages], ImportOptions())[0]
    assert [t.text for t in batch.conversations[0].turns] == ["hi", "hello"]
    assert batch.conversations[0].participant_id == "P1"
    assert len(batch.warnings) == 3  # no ratings; two files with ignored columns
    assert batch.warnings[1].startswith(f"{tasks}: the file is too large to read whole (12,003 columns)")
    transcript = _wide_csv(tmp_path / "transcripts.csv", ["conversation_id", "transcript"],
                           [["k1", "User: hi\nAssistant: hello"]])
    batch = read_files([transcript], ImportOptions(format="transcript"))[0]
    assert [t.role for t in batch.conversations[0].turns] == ["user", "assistant"]
    assert batch.warnings[0].startswith("the file is too large to read whole (12,002 columns)")


# -- long CSV: many short messages -------------------------------------------------------------


def test_many_short_messages_cost_what_their_turns_need(tmp_path: Path) -> None:
    """600,000 short messages (13 MB): every turn without ratings or attributes took two
    empty dicts of its own (128 bytes, more than the turn itself); reading peaked at about
    480 bytes a message (1.4 GB for 3 M). Now empty ones are shared: under 380 bytes a
    message over what the process held before reading (about 310 now)."""
    path = tmp_path / "short.csv"
    words = ["ok", "hi", "yes", "no", "sure", "thanks"]
    with path.open("w", encoding="utf-8") as fh:
        fh.write("conversation_id,role,text\n")
        fh.writelines(f"c{i // 10},{'user' if i % 2 == 0 else 'assistant'},"
                      f"{words[i % 6]} {words[i % 5]}\n" for i in range(600_000))
    out = read_in_child([path], timeout=300)
    assert out.get("turns") == 600_000, out
    per_message = (out["peak_mb"] - out["import_mb"]) * 2**20 / 600_000
    assert per_message < 380, (per_message, out)


def test_shared_empty_values_cannot_be_changed_in_place(tmp_path: Path) -> None:
    """The empty ratings and attributes turns share refuse a change (it would change every
    turn); a turn with values has a dict of its own."""
    path = tmp_path / "two.csv"
    path.write_text("conversation_id,role,text,overall,topic_tag\n"
                    "c1,user,hi,,\nc1,assistant,hello,4,x\nc1,user,bye,,\n", encoding="utf-8")
    turns = read_files([path], ImportOptions())[0].conversations[0].turns
    assert [t.ratings for t in turns] == [{}, {"overall": 4}, {}]
    assert [t.attributes for t in turns] == [{}, {"topic_tag": "x"}, {}]
    assert turns[0].ratings is turns[2].ratings is turns[0].attributes
    with pytest.raises(TypeError):
        turns[0].ratings["overall"] = 3
    assert turns[2].ratings == {}


def test_workbook_sheet_of_12004_columns_reads_the_mapped_columns(tmp_path: Path) -> None:
    """A Messages sheet 12,000 columns wider than its fields (Excel allows 16,384) was
    refused; now its fields are read and the other columns ignored with a note."""
    book = openpyxl.Workbook(write_only=True)
    tasks = book.create_sheet("Tasks")
    tasks.append(["TaskId", "PID"])
    tasks.append(["t1", "P1"])
    messages = book.create_sheet("Messages")
    messages.append(["TaskId", "Role", "Content", *EXTRA, "MessageId"])
    messages.append(["t1", "assistant", "hello", *(["x"] * len(EXTRA)), 2])
    messages.append(["t1", "user", "hi", *([None] * len(EXTRA)), 1])
    path = tmp_path / "wide.xlsx"
    book.save(path)
    batch = read_files([path], ImportOptions())[0]
    turns = batch.conversations[0].turns
    assert [(t.role, t.text, t.attributes) for t in turns] == [
        ("user", "hi", {"MessageId": 1}), ("assistant", "hello", {"MessageId": 2})]
    assert batch.warnings[-1] == (
        "sheet Messages is too large to read whole (12,004 columns): only the 4 the import "
        "needs were read (TaskId, Role, Content, MessageId); the other 12,000 were ignored "
        "(extra0, extra1, extra2, extra3, extra4, ...)")


def test_sheet_of_few_values_over_many_rows_and_columns_builds_the_needed_ones(
        tmp_path: Path) -> None:
    """1,500 named columns over 20,000 messages that fill three of them (a 1 MB workbook):
    a table of every cell would be 30 M cells of padding; only the columns the import
    needs are built, with a note, in bounded memory."""
    header = ["TaskId", "Role", "Content", *EXTRA[:1_497]]
    rows = [_row(1, header)]
    rows += [f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>t1</t></is></c><c r="B{r}" '
             f't="inlineStr"><is><t>{"user" if r % 2 else "assistant"}</t></is></c><c r="C{r}">'
             f"<v>{r}</v></c></row>" for r in range(2, 20_002)]
    path = hand_made_workbook(tmp_path / "sparse.xlsx", messages="".join(rows))
    assert path.stat().st_size < 2 << 20
    out = read_in_child([path], timeout=300)
    assert out.get("turns") == 20_000, out
    assert out["warnings"][-1].startswith(
        "sheet Messages is too large to read whole (1,500 columns): only the 3 the import "
        "needs were read (TaskId, Role, Content)"), out
    assert out["peak_mb"] < 300 and out["seconds"] < 60, out


def test_json_lines_messages_share_their_empty_values(tmp_path: Path) -> None:
    """JSON Lines of 300,000 short messages: each message without ratings or attributes
    took two empty dicts of its own (about 440 bytes a message at the peak); now under 370
    (about 310)."""
    path = tmp_path / "short.jsonl"
    words = ["ok", "hi", "yes", "no", "sure", "thanks"]
    with path.open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps({"conversation_id": f"c{c}", "messages": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": words[(c + i) % 6]}
            for i in range(10)]}) + "\n" for c in range(30_000))
    out = read_in_child([path], timeout=300)
    assert out.get("turns") == 300_000, out
    per_message = (out["peak_mb"] - out["import_mb"]) * 2**20 / 300_000
    assert per_message < 370, (per_message, out)
