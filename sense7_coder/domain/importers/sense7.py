"""The SENSE-7 release: a ``Tasks`` and a ``Messages`` table joined on ``TaskId``.

Read from one workbook (``.xlsx``, sheets ``Tasks`` and ``Messages``, names matched ignoring
case) or from the same two tables saved as CSV files (given together; they form one batch).

* Tasks: ``TaskId`` (the conversation id; unique), ``PID`` (participant), ``Model``,
  ``PreTaskChoice`` (the topic). Every other column (``PreTaskImportance``,
  ``PreTaskDesiredEmpathy``, ``PostTaskExperience_*``, ``PostTaskEmpathy_<Dimension>``, ...)
  is kept as a conversation attribute under its own name; numbers as numbers, and the
  ``PostTaskEmpathy_*`` labels (``very poor`` .. ``very good``) as 1..5 (``unknown`` ->
  None). The ``PostTask*`` columns are the participant's own judgments
  (``ImportBatch.judgments``): hidden from blind coders unless the lead shows them.
* Messages: ``TaskId`` (must be in Tasks), ``MessageId`` (order; numbers are sorted as
  numbers, otherwise file order is kept; a MessageId given twice in a task is an error),
  ``Role`` (``user``/``assistant``; rows with ``error`` are skipped and counted), the text
  (``Content``, ``Message``, ``Text``, ``MessageText`` or ``Body``, or ``--map text=COL``;
  empty texts are kept), ``EmpathyOverall`` and the seven dimension columns (labels
  ``very poor`` .. ``very good`` or 1-5; ``unknown`` = not applicable; empty = not rated;
  anything else is an error naming row and column), ``Comment`` -> the turn's comment,
  ``TimeOffsetSeconds`` -> the turn's time offset. ``Retry``, ``MessageId`` and any other
  column are kept as turn attributes.

Turn positions are 1..n in MessageId order over the kept (non-error) messages. Tasks without
any kept message are left out, with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..models import DIMENSIONS, RATING_KEYS, Conversation, ImportBatch, Participant
from .options import ImportOptions
from .roles import RoleResolver
from .sheets import find_sheet, open_book, read_sheet, sheet_names
from .tables import ColumnChoice, Table, find_column, norm, read_csv_table, read_header
from .ticker import Ticker
from .turns import MessageColumns, build_conversations
from .values import ABSENT, coerce_scalar, parse_rating, rating_candidates

TEXT_COLUMNS = ("Content", "Message", "Text", "MessageText", "Body")
SHEETS = ("Tasks", "Messages")
SKIP_ROLES = frozenset({"error"})
SENSE7_ROLES = {"user": "user", "assistant": "assistant", "system": "system"}


def _rating_columns(key: str) -> tuple[str, ...]:
    release = "EmpathyOverall" if key == "overall" else key.capitalize()
    return (release, *rating_candidates(key))


def is_messages_header(columns: Sequence[str], options: ImportOptions) -> bool:
    names = {norm(c) for c in columns}
    role = norm(options.mapping.get("role", "Role"))
    return "taskid" in names and role in names


def is_tasks_header(columns: Sequence[str], options: ImportOptions) -> bool:
    names = {norm(c) for c in columns}
    return "taskid" in names and not is_messages_header(columns, options)


# -- reading the two tables -----------------------------------------------------------------------


def read_workbook(path: Path, options: ImportOptions) -> tuple[Table, Table]:
    """The Tasks and Messages sheets of a workbook, as all-text tables (read cell by cell,
    bounded by the cells that hold data: see :mod:`.sheets`)."""
    choices: tuple[ColumnChoice, ColumnChoice] = (
        lambda t: _task_fields(t, options), lambda t: _message_fields(t, options).values())
    with open_book(path) as book:
        tables: list[Table] = []
        for wanted, choose in zip(SHEETS, choices, strict=True):
            sheet = find_sheet(book, wanted)
            if sheet is None:
                raise InputError(
                    str(path),
                    f"the workbook has no sheet '{wanted}' (sheets present: "
                    f"{', '.join(sheet_names(book))}); a SENSE-7 workbook needs sheets "
                    "'Tasks' and 'Messages'",
                    location=f"sheet {wanted}",
                )
            table = read_sheet(path, book, sheet, choose=choose)
            if table.frame.empty:
                raise InputError(str(path), "the sheet has no rows", location=f"sheet {sheet}")
            tables.append(table)
    return tables[0], tables[1]


def split_csv_tables(paths: Sequence[Path], options: ImportOptions) -> tuple[Path, Path]:
    """Which of two CSV files is the Tasks and which the Messages table."""
    tasks = [p for p in paths if is_tasks_header(read_header(p, options.encoding), options)]
    messages = [p for p in paths
                if is_messages_header(read_header(p, options.encoding), options)]
    if len(paths) != 2 or len(tasks) != 1 or len(messages) != 1:
        names = ", ".join(str(p) for p in paths)
        raise InputError(
            names,
            "the SENSE-7 tables come as two CSV files read together: a Tasks table (TaskId, "
            "PID, Model, ...) and a Messages table (TaskId, MessageId, Role, ...); "
            f"found {len(tasks)} Tasks and {len(messages)} Messages table(s)",
        )
    return tasks[0], messages[0]


# -- joining ----------------------------------------------------------------------------------------


def read_sense7_workbook(path: Path, options: ImportOptions,
                         ticker: Ticker | None = None) -> ImportBatch:
    tasks, messages = read_workbook(path, options)
    batch = join_tables(tasks, messages, str(path), path.name, options, ticker)
    for table in (tasks, messages):
        batch.warnings += table.ignored_note()
    return batch


def read_sense7_csv(paths: Sequence[Path], options: ImportOptions,
                    ticker: Ticker | None = None) -> ImportBatch:
    tasks_path, messages_path = split_csv_tables(paths, options)
    tasks = read_csv_table(tasks_path, options.encoding, lambda t: _task_fields(t, options))
    messages = read_csv_table(messages_path, options.encoding,
                              lambda t: _message_fields(t, options).values())
    source = f"{tasks_path} + {messages_path}"
    batch = join_tables(tasks, messages, source, messages_path.name, options, ticker)
    for table in (tasks, messages):
        batch.warnings += [f"{table.file}: {note}" for note in table.ignored_note()]
    return batch


def _task_fields(tasks: Table, options: ImportOptions) -> set[str]:
    """The Tasks columns read from a file too wide to read whole."""
    task_col, cols = _task_rows(tasks, options)
    return {task_col, *(c for c in cols.values() if c)}


def _message_fields(messages: Table, options: ImportOptions) -> dict[str, str]:
    """field -> column of the Messages table (the fields present)."""
    mapping = options.mapping
    found: dict[str, str | None] = {
        "conversation_id": find_column(messages, "conversation_id", ("TaskId",), mapping,
                                       required=True, what="TaskId"),
        "role": find_column(messages, "role", ("Role",), mapping, required=True, what="Role"),
        "text": find_column(messages, "text", TEXT_COLUMNS, mapping, required=True,
                            what="message text"),
        "position": find_column(messages, "position", ("MessageId",), mapping),
        "comment": find_column(messages, "comment", ("Comment",), mapping),
        "time_offset": find_column(messages, "time_offset", ("TimeOffsetSeconds",
                                                             "time_offset"), mapping),
    }
    for key in RATING_KEYS:
        found[key] = find_column(messages, key, _rating_columns(key), mapping)
    return {k: v for k, v in found.items() if v is not None}


def _task_value(column: str, text: str) -> Any:
    """A Tasks cell as a conversation attribute. The whole-conversation empathy ratings
    (``PostTaskEmpathy_*``) given as labels become 1..5 (``unknown`` -> None)."""
    if norm(column).startswith("posttaskempathy"):
        try:
            value = parse_rating(text)
        except ValueError:
            return coerce_scalar(text)
        return None if value is ABSENT else value
    return coerce_scalar(text)


def _task_rows(tasks: Table, options: ImportOptions) -> tuple[str, dict[str, str | None]]:
    mapping = options.mapping
    task_id = find_column(tasks, "conversation_id", ("TaskId",), mapping, required=True,
                          what="TaskId")
    assert task_id is not None
    cols = {
        "participant_id": find_column(tasks, "participant_id", ("PID", "participant_id"), mapping),
        "model": find_column(tasks, "model", ("Model",), mapping),
        "topic": find_column(tasks, "topic", ("PreTaskChoice", "topic"), mapping),
    }
    return task_id, cols


def join_tables(
    tasks: Table,
    messages: Table,
    source: str,
    source_name: str,
    options: ImportOptions,
    ticker: Ticker | None = None,
) -> ImportBatch:
    task_col, task_cols = _task_rows(tasks, options)
    task_ids = tasks.frame[task_col].str.strip()
    empty = task_ids == ""
    if bool(empty.any()):
        raise tasks.error(tasks.first_label(empty), "the TaskId is empty", task_col)
    dup = task_ids.duplicated()
    if bool(dup.any()):
        label = tasks.first_label(dup)
        first = tasks.first_label(task_ids == task_ids[label])
        raise tasks.error(label, f"TaskId '{task_ids[label]}' appears twice (also "
                                 f"{tasks.locate(first)})", task_col)

    fields = _message_fields(messages, options)
    msg_task, role, text = fields["conversation_id"], fields["role"], fields["text"]
    position = fields.get("position")
    ratings = {key: fields[key] for key in RATING_KEYS if key in fields}
    missing = [k for k in DIMENSIONS if k not in ratings]
    comment, offset = fields.get("comment"), fields.get("time_offset")
    used = {msg_task, role, text, comment, offset, *ratings.values()}
    attributes = [c for c in messages.columns if c not in used]

    known = set(task_ids.tolist())
    msg_ids = messages.frame[msg_task].str.strip()
    unknown = ~msg_ids.isin(known) & (msg_ids != "")
    if bool(unknown.any()):
        label = messages.first_label(unknown)
        raise messages.error(label, f"TaskId '{msg_ids[label]}' is not in the Tasks table",
                             msg_task)

    cols = MessageColumns(text=text, conversation_id=msg_task, role=role, position=position,
                          time_offset=offset, comment=comment, ratings=ratings,
                          attributes=attributes)
    built = build_conversations(
        messages, cols, RoleResolver(options.roles, SENSE7_ROLES), id_prefix="task",
        skip_roles=SKIP_ROLES, positions_must_be_numbers=False, ticker=ticker,
    )
    by_id = {c.conversation_id: c for c in built.conversations}
    conversations: list[Conversation] = []
    participants: dict[str, Participant] = {}
    special = {task_col, *(c for c in task_cols.values() if c)}
    extra = [c for c in tasks.columns if c not in special]
    no_messages: list[str] = []
    for label, tid in task_ids.items():
        conv = by_id.get(tid)
        if conv is None:
            no_messages.append(tid)
            continue
        row = tasks.frame.loc[label]
        values = {k: (row[c].strip() or None) if c else None for k, c in task_cols.items()}
        conv.participant_id = values["participant_id"]
        conv.model = values["model"]
        conv.topic = values["topic"]
        conv.source = source_name
        conv.attributes = {c: _task_value(c, row[c].strip()) for c in extra if row[c].strip()}
        if conv.participant_id:
            participants.setdefault(conv.participant_id, Participant(conv.participant_id))
        conversations.append(conv)
    warnings: list[str] = []
    if built.skipped_rows:
        warnings.append(f"{built.skipped_rows} message(s) with role 'error' skipped")
    if no_messages:
        shown = ", ".join(no_messages[:10]) + (" ..." if len(no_messages) > 10 else "")
        warnings.append(f"{len(no_messages)} task(s) without messages left out: {shown}")
    if missing:
        warnings.append(f"no rating column for: {', '.join(missing)}")
    if not conversations:
        raise messages.error(0, "no messages to import (every row is an error row?)")
    return ImportBatch(
        source=source,
        conversations=conversations,
        participants=list(participants.values()),
        warnings=warnings,
        skipped_rows=built.skipped_rows,
        judgments={c for c in extra if is_judgment_column(c)},
    )


def is_judgment_column(column: str) -> bool:
    """A Tasks column that holds the participant's own judgment of the conversation (the
    post-task ratings and experience: ``PostTaskEmpathy_*``, ``PostTaskExperience_*``)."""
    return norm(column).startswith("posttask")
