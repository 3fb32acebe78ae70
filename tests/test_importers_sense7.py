"""SENSE-7 release tables: a workbook built here with openpyxl, and the same as two CSVs."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from sense7_coder.domain.errors import InputError
from sense7_coder.domain.importers import ImportOptions, detect_format, preview, read_files

TASKS_HEADER = ["TaskId", "PID", "Model", "PreTaskChoice", "PreTaskImportance",
                "PreTaskDesiredEmpathy", "PostTaskExperience_Successful",
                "PostTaskEmpathy_Affective", "PostTaskEmpathy_Relational"]
TASKS = [
    [101, "P01", "GPT4-empathy", "Managing a stressful deadline", 5, 3, 4, "good", "unknown"],
    [102, "P02", "Llama2-70b", "Fixing a spreadsheet formula", 3, 1, 5, "very poor", None],
]
MESSAGES_HEADER = ["TaskId", "MessageId", "Role", "Content", "EmpathyOverall", "Affective",
                   "Cognitive", "Response", "Prosocial", "Interest", "Contextual",
                   "Relational", "Retry", "Comment", "TimeOffsetSeconds"]
NO_RATINGS: list[Any] = [None] * 8
MESSAGES: list[list[Any]] = [
    # out of MessageId order on purpose: positions follow MessageId, not the file
    [101, 5002, "assistant", "That is a lot to carry at once.", "very good", "very good",
     "good", "neutral", "poor", "very poor", "unknown", "unknown", 0, "felt heard", 14.5],
    [101, 5001, "user", "I have a report due Friday.", *NO_RATINGS, 0, None, 0],
    [101, 5003, "error", "(the model did not answer)", *NO_RATINGS, 1, None, 30],
    [101, 5004, "user", "Thanks, that helps.", *NO_RATINGS, 0, None, 64],
    [101, 5005, "assistant", "", 4, 5, 3, 2, 1, "unknown", "good", 3, 1, None, 80],
    [102, 7001, "user", "My VLOOKUP returns #N/A", *NO_RATINGS, 0, None, 0],
    [102, 7002, "assistant", "NA", "neutral", "neutral", "neutral", "neutral", "neutral",
     "neutral", "neutral", "unknown", 0, None, 9],
]


def write_workbook(path: Path, tasks: list[list[Any]] = TASKS,
                   messages: list[list[Any]] = MESSAGES,
                   messages_header: list[str] = MESSAGES_HEADER,
                   sheets: tuple[str, str] = ("Tasks", "Messages")) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = sheets[0]
    sheet.append(TASKS_HEADER)
    for row in tasks:
        sheet.append(row)
    msg = book.create_sheet(sheets[1])
    msg.append(messages_header)
    for row in messages:
        msg.append(row)
    book.save(path)
    return path


def write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows([["" if v is None else v for v in row] for row in rows])
    return path


def write_csvs(tmp_path: Path, messages: list[list[Any]] = MESSAGES) -> list[Path]:
    return [write_csv(tmp_path / "sense7_Messages.csv", MESSAGES_HEADER, messages),
            write_csv(tmp_path / "sense7_Tasks.csv", TASKS_HEADER, TASKS)]


def read_one(paths: list[Path], **kw: Any) -> Any:
    batches = read_files(paths, ImportOptions(**kw))
    assert len(batches) == 1
    return batches[0]


def check_release(batch: Any) -> None:
    assert [c.conversation_id for c in batch.conversations] == ["101", "102"]
    assert batch.skipped_rows == 1
    assert any("role 'error' skipped" in w for w in batch.warnings)
    c101, c102 = batch.conversations
    assert (c101.participant_id, c101.model, c101.topic) == (
        "P01", "GPT4-empathy", "Managing a stressful deadline")
    assert c101.attributes["PreTaskImportance"] == 5
    assert c101.attributes["PostTaskExperience_Successful"] == 4
    assert c101.attributes["PostTaskEmpathy_Affective"] == 4  # label "good" -> 4
    assert c101.attributes["PostTaskEmpathy_Relational"] is None  # unknown: not applicable
    assert c102.attributes["PostTaskEmpathy_Affective"] == 1
    assert "PostTaskEmpathy_Relational" not in c102.attributes  # empty cell
    # MessageId order, error row dropped, positions count kept messages
    assert [(t.position, t.role) for t in c101.turns] == [
        (1, "user"), (2, "assistant"), (3, "user"), (4, "assistant")]
    assert [t.attributes["MessageId"] for t in c101.turns] == [5001, 5002, 5004, 5005]
    first_reply = c101.turns[1]
    assert first_reply.text == "That is a lot to carry at once."
    assert first_reply.ratings == {"overall": 5, "affective": 5, "cognitive": 4, "response": 3,
                                   "prosocial": 2, "interest": 1, "contextual": None,
                                   "relational": None}
    assert first_reply.comment == "felt heard"
    assert first_reply.time_offset == 14.5
    assert first_reply.attributes["Retry"] == 0
    assert c101.turns[0].ratings == {}  # user turns are not rated
    numeric = c101.turns[3]
    assert numeric.text == ""  # empty messages are kept
    assert numeric.ratings["overall"] == 4 and numeric.ratings["interest"] is None
    assert c102.turns[1].text == "NA"  # never read as a missing value
    assert c102.turns[0].text == "My VLOOKUP returns #N/A"
    assert [p.participant_id for p in batch.participants] == ["P01", "P02"]
    rated = sum(1 for c in batch.conversations for t in c.turns
                for v in t.ratings.values() if v is not None)
    assert rated == 6 + 7 + 7  # "unknown" is not a rating


def test_workbook(tmp_path: Path) -> None:
    path = write_workbook(tmp_path / "sense7.xlsx")
    assert detect_format(path) == "sense7-xlsx"
    batch = read_one([path])
    check_release(batch)
    assert batch.conversations[0].source == "sense7.xlsx"


def test_two_csv_tables_form_one_batch(tmp_path: Path) -> None:
    paths = write_csvs(tmp_path)
    assert detect_format(paths[0]) == "sense7-csv"
    check_release(read_one(paths))
    check_release(read_one(paths, format="sense7-csv"))


def test_sheet_names_ignore_case_and_text_column_by_map(tmp_path: Path) -> None:
    header = [("Utterance" if c == "Content" else c) for c in MESSAGES_HEADER]
    path = write_workbook(tmp_path / "s.xlsx", messages_header=header,
                          sheets=("tasks", "MESSAGES"))
    with pytest.raises(InputError) as e:
        read_one([path])
    err = e.value
    assert err.field == "text"
    assert "missing the message text column" in err.message
    assert "'Content'" in err.message and "Utterance" in err.message  # expected and present
    assert err.location == "sheet MESSAGES, row 1"
    batch = read_one([path], mapping={"text": "Utterance"})
    assert batch.conversations[0].turns[0].text == "I have a report due Friday."


@pytest.mark.parametrize(
    ("row_index", "column", "value", "expect"),
    [
        (0, "Affective", 7, "'7' is not a rating"),
        (0, "Cognitive", "great", "'great' is not a rating"),
        (0, "TaskId", 999, "TaskId '999' is not in the Tasks table"),
        (1, "MessageId", 5002, "MessageId 5002 appears twice in conversation '101'"),
        (1, "Role", "moderator", "unknown role 'moderator'"),
        (1, "TimeOffsetSeconds", "soon", "'soon' is not a number"),
    ],
)
def test_bad_cells_name_sheet_row_and_column(tmp_path: Path, row_index: int, column: str,
                                             value: Any, expect: str) -> None:
    messages = [list(r) for r in MESSAGES]
    messages[row_index][MESSAGES_HEADER.index(column)] = value
    path = write_workbook(tmp_path / "bad.xlsx", messages=messages)
    with pytest.raises(InputError) as e:
        read_one([path])
    assert expect in e.value.message
    assert e.value.field == column
    assert e.value.location == f"sheet Messages, row {row_index + 2}"
    assert str(path) in str(e.value)


def test_bad_cell_in_csv_names_line(tmp_path: Path) -> None:
    messages = [list(r) for r in MESSAGES]
    messages[3][MESSAGES_HEADER.index("EmpathyOverall")] = "excellent"
    paths = write_csvs(tmp_path, messages)
    with pytest.raises(InputError) as e:
        read_one(paths)
    assert e.value.file == str(paths[0])
    assert e.value.location == "line 5" and e.value.field == "EmpathyOverall"
    assert str(e.value).startswith(f"{paths[0]}, line 5, field 'EmpathyOverall': ")


def test_duplicate_task_and_missing_sheet(tmp_path: Path) -> None:
    path = write_workbook(tmp_path / "dup.xlsx", tasks=[TASKS[0], TASKS[1], TASKS[0]])
    with pytest.raises(InputError) as e:
        read_one([path])
    assert "TaskId '101' appears twice" in e.value.message
    assert e.value.location == "sheet Tasks, row 4"
    path = write_workbook(tmp_path / "sheets.xlsx", sheets=("Tasks", "Chats"))
    with pytest.raises(InputError) as e:
        read_one([path])
    assert "no sheet 'Messages'" in e.value.message and "Chats" in e.value.message


def test_messages_table_alone_is_refused(tmp_path: Path) -> None:
    paths = write_csvs(tmp_path)
    with pytest.raises(InputError) as e:
        read_one([paths[0]])
    assert "Tasks table" in e.value.message


def test_not_a_workbook(tmp_path: Path) -> None:
    path = tmp_path / "fake.xlsx"
    path.write_text("TaskId,PID\n1,P1\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_one([path])
    assert "not a readable Excel workbook" in e.value.message


def test_preview_of_the_pair(tmp_path: Path) -> None:
    result = preview(write_csvs(tmp_path), ImportOptions(), n=3)
    assert result.ok and result.format == "sense7-csv"
    assert (result.conversations, result.turns, result.skipped_rows) == (2, 6, 1)
    assert list(result.frame["position"]) == [1, 2, 3]
    assert result.frame.loc[1, "overall"] == 5 and result.frame.loc[1, "relational"] == "n/a"
    assert "Content" in result.columns and "PID" in result.columns


def test_blank_rows_are_skipped_but_counted_in_row_numbers(tmp_path: Path) -> None:
    messages = [list(r) for r in MESSAGES]
    messages.insert(2, [None] * len(MESSAGES_HEADER))
    path = write_workbook(tmp_path / "blank.xlsx", messages=messages)
    batch = read_one([path])
    assert sum(len(c.turns) for c in batch.conversations) == 6
    messages[4][MESSAGES_HEADER.index("Relational")] = "sometimes"
    path = write_workbook(tmp_path / "blank_bad.xlsx", messages=messages)
    with pytest.raises(InputError) as e:
        read_one([path])
    assert e.value.location == "sheet Messages, row 6" and e.value.field == "Relational"
