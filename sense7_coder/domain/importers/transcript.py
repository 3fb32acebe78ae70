"""Transcripts: ``Name: text`` lines, in a ``.txt`` file or in a column of a CSV table.

* A line starting with a known speaker name and a colon (``Seeker: I feel ...``) starts a
  message. Names are known from ``--roles`` and the defaults (User, Seeker, Human ->
  user; Assistant, Supporter, AI, Bot -> assistant; System), compared ignoring case.
* Any other line continues the message before it; blank lines inside a message are kept
  as paragraph breaks; blanks around a message are trimmed. A ``Name:`` line whose name is
  not a known speaker is read as text (assistants write "Note:" or "Step 1:"), and a warning
  lists such names, so that a speaker missing from ``--roles`` does not go unnoticed. The
  first line must start a message.
* A ``.txt`` file is one conversation whose id is the file stem.
* In a CSV table (``--format transcript``), each row holds one conversation: the transcript
  column is ``--map transcript=COL`` or one named ``transcript``, ``full_conversation``,
  ``conversation`` or ``dialog``; the id column is ``conversation_id`` (``conv_id``,
  ``id``) or ``--map conversation_id=COL``, else ``<file stem>-<row>`` (row counting data rows
  from 1). ``participant_id``, ``model`` and ``topic`` columns fill those fields; other
  columns become conversation attributes. Several rows may repeat one conversation (as in
  files with one row per rating or per utterance) when their transcripts are identical: it
  is read once, keeping only the columns that agree on all its rows; the extra rows are
  counted as skipped. Different transcripts under one id are an error.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..file_reading import read_text
from ..models import Conversation, ImportBatch, Participant, Turn
from .options import ImportOptions
from .roles import RoleResolver
from .tables import Table, find_column, read_csv_table
from .ticker import CHECK_EVERY, Ticker
from .values import RecordError, coerce_scalar

SPEAKER_RE = re.compile(r"^[ \t]*([^\s:][^:\n]{0,39}?)[ \t]*:[ \t]*(.*)$")
TRANSCRIPT_COLUMNS = ("transcript", "full_conversation", "conversation", "dialog", "dialogue")
ID_COLUMNS = ("conversation_id", "conv_id", "dialog_id", "id")
#: a line of a transcript ends at a line feed or carriage return, not at the other
#: characters str.splitlines takes for line ends (U+2028, U+0085, form feed, ...), which
#: stay in the message's text
LINE_END = re.compile(r"\r\n|[\r\n]")


def parse_transcript(text: str, resolver: RoleResolver) -> tuple[list[Turn], Counter[str]]:
    """The turns of one transcript, and how many lines began with each unknown ``Name:``
    (read as text). Raises RecordError(where='line N')."""
    turns: list[Turn] = []
    lines: list[str] = []
    unknown: Counter[str] = Counter()

    def close() -> None:
        if turns:
            turns[-1].text = "\n".join(lines).strip()

    for n, line in enumerate(LINE_END.split(text), 1):
        m = SPEAKER_RE.match(line)
        name = m.group(1).strip() if m else None
        if m and name is not None and resolver.knows(name):
            close()
            role = resolver.role(name)
            assert role is not None
            turns.append(Turn(position=len(turns) + 1, role=role, text="", speaker=name))
            lines = [m.group(2)]
            continue
        if not turns:
            if not line.strip():
                continue
            if name is not None:
                raise RecordError(resolver.unknown_message(name, "speaker"), f"line {n}",
                                  "speaker", resolver.unknown_hint(name))
            raise RecordError("expected 'Name: text' (e.g. 'User: hello') to start the "
                              "transcript", f"line {n}")
        if name is not None and len(name.split()) <= 3 and name[0].isalpha():
            unknown[name] += 1
        lines.append(line)
    close()
    if not turns:
        raise RecordError("the transcript is empty")
    return turns, unknown


def unknown_names_warning(unknown: Counter[str]) -> list[str]:
    """One warning listing the ``Name:`` prefixes that were read as text."""
    if not unknown:
        return []
    shown = ", ".join(f"'{name}' ({count} line{'s' if count > 1 else ''})"
                      for name, count in unknown.most_common(8))
    more = f" and {len(unknown) - 8} more" if len(unknown) > 8 else ""
    return [f"lines beginning with a name that is not a known speaker were read as message "
            f"text: {shown}{more}; if one of them is a speaker, say which role it has "
            "(user or assistant)"]


def read_transcript_txt(path: Path, options: ImportOptions,
                        ticker: Ticker | None = None) -> ImportBatch:
    text = read_text(path, options.encoding)
    try:
        turns, unknown = parse_transcript(text, RoleResolver(options.roles))
    except RecordError as e:
        raise InputError(str(path), e.message, location=e.where or None, field=e.field,
                         hint=e.hint) from None
    conv = Conversation(conversation_id=path.stem, turns=turns, source=path.name)
    return ImportBatch(source=str(path), conversations=[conv],
                       warnings=unknown_names_warning(unknown))


def _columns(table: Table, options: ImportOptions) -> list[str | None]:
    """The transcript, conversation id, participant, model and topic columns."""
    mapping = options.mapping
    column = find_column(table, "transcript", TRANSCRIPT_COLUMNS, mapping, required=True,
                         what="transcript")
    id_col = find_column(table, "conversation_id", ID_COLUMNS, mapping)
    return [column, id_col, *(find_column(table, name, cands, mapping) for name, cands in
                              (("participant_id", ("participant_id", "pid")),
                               ("model", ("model",)), ("topic", ("topic",))))]


def read_transcript_csv(path: Path, options: ImportOptions,
                        ticker: Ticker | None = None) -> ImportBatch:
    table = read_csv_table(path, options.encoding,
                           lambda header: {c for c in _columns(header, options) if c})
    column, id_col, *others = _columns(table, options)
    assert column is not None
    fields = dict(zip(("participant_id", "model", "topic"), others, strict=True))
    frame = table.frame
    if id_col is not None:
        ids = frame[id_col].str.strip()
        empty = ids == ""
        if bool(empty.any()):
            raise table.error(table.first_label(empty), "the conversation id is empty", id_col)
    else:
        ids = pd.Series([f"{path.stem}-{i}" for i in range(1, len(frame) + 1)],
                        index=frame.index)
    # one row per conversation; repeated rows must repeat the transcript
    pairs = pd.DataFrame({"id": ids, "t": frame[column]})
    firsts = ~ids.duplicated()
    differ = ~pairs.duplicated() & ~firsts
    if bool(differ.any()):
        label = table.first_label(differ)
        first = table.first_label(ids == ids[label])
        raise table.error(label, f"conversation '{ids[label]}' appears again with a different "
                                 f"transcript (first on {table.locate(first)})", column)
    constant = [c for c in table.columns
                if c not in (column, id_col)
                and bool((frame.groupby(ids.to_numpy(), sort=False)[c].nunique() <= 1).all())]
    dropped = [c for c in table.columns if c not in (column, id_col) and c not in constant]
    resolver = RoleResolver(options.roles)
    conversations: list[Conversation] = []
    participants: dict[str, Participant] = {}
    unknown: Counter[str] = Counter()
    firsts_labels = [int(x) for x in firsts[firsts].index]
    for k, label in enumerate(firsts_labels):
        if ticker is not None and k % max(1, CHECK_EVERY // 20) == 0:
            ticker.rows(k, len(firsts_labels))
        row = frame.loc[label]
        cid = str(ids[label])
        try:
            turns, notes = parse_transcript(str(row[column]), resolver)
            unknown.update(notes)
        except RecordError as e:
            where = table.locate(label) + (f", transcript {e.where}" if e.where else "")
            raise InputError(str(path), f"conversation '{cid}': {e.message}", location=where,
                             field=e.field or column, hint=e.hint) from None
        conv = Conversation(conversation_id=cid, turns=turns, source=path.name)
        for name, col in fields.items():
            if col is not None and col in constant and row[col].strip():
                setattr(conv, name, row[col].strip())
        special = {c for c in fields.values() if c}
        conv.attributes = {c: coerce_scalar(row[c].strip()) for c in constant
                           if c not in special and row[c].strip()}
        if conv.participant_id:
            participants.setdefault(conv.participant_id, Participant(conv.participant_id))
        conversations.append(conv)
    skipped = len(frame) - len(firsts_labels)
    warnings = table.ignored_note() + unknown_names_warning(unknown)
    if skipped:
        warnings.append(
            f"{skipped} row(s) repeat a conversation with the same transcript and were read "
            "once" + (f"; columns that differ between those rows were not kept: "
                      f"{', '.join(dropped)}" if dropped else ""))
    return ImportBatch(source=str(path), conversations=conversations,
                       participants=list(participants.values()), warnings=warnings,
                       skipped_rows=skipped)
