"""Coders' codings from a CSV file: ``coder,conversation_id,turn,code,value[,sentence]``.

* ``coder``: the coder's name (required).
* ``conversation_id``: as imported (required).
* ``turn``: the turn's position (1-based). Empty (or 0) for conversation-level codes, which
  are stored at position 0; required for turn- and sentence-level codes.
* ``sentence``: optional column; the sentence number (1-based) for sentence-level codes,
  which need it; empty (or 0) for other codes.
* ``code``: a code key of the codebook.
* ``value``: a level value or label of that code (``Code.parse_value``); empty, ``NA`` or
  ``not applicable`` for not applicable where the code allows it.

* ``start``, ``end``: optional columns; a span code's stretch of the turn's text, as
  code-point offsets (end exclusive, as REFI-QDA counts them); required for span codes,
  empty for the others. The value of a binary span code may be left empty (present).
  Whether the span lies inside the turn's text is checked by the project (it has the text).

* ``done``: optional column; ``1`` (or yes, true, done) marks that turn done for that coder,
  so work coded in a spreadsheet counts as finished; ``0``, no, false or empty leaves the
  turn's mark as it is.

A long export marks a cell that a spreadsheet could take for a formula, and every cell
that already starts with ``'``, with one more leading ``'`` (``=x`` is written ``'=x``,
``'=x`` is written ``''=x``); reading takes exactly one leading ``'`` off any cell that
starts with one, so every value of a long export reads back as it was. Coder names and
conversation ids must not hold control, zero-width or direction characters.

Column names are matched ignoring case. A coding given twice (same coder, unit and code) is
an error. Whether the conversations and turns exist (and, given the turns' roles, whether a
code applies to that turn's role) is checked with what the caller, who knows the project,
passes in; errors name the line and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from . import rows
from .codebook.codes import Code, Codebook
from .errors import InputError
from .export.tables import unneutralise
from .importers.tables import norm, read_named_columns
from .importers.values import shown
from .models import Coding, Unit
from .spans import SpanCoding

REQUIRED = ("coder", "conversation_id", "turn", "code", "value")
OPTIONAL = ("sentence", "done", "start", "end")
_YES = ("1", "yes", "true", "done", "y")
_NO = ("", "0", "no", "false", "n")

#: ``known(conversation_id, position)``: does that turn exist? Position 0 asks whether the
#: conversation exists. A collection of ``(conversation_id, position)`` pairs works too
#: (include ``(id, 0)`` for every conversation).
Known = Callable[[str, int], bool] | Collection[tuple[str, int]]


#: the largest turn or sentence number read
MAX_NUMBER = rows.MAX_NUMBER


def _whole(text: str, what: str) -> int:
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{what} '{shown(text)}' is not a whole number") from None
    if not number.is_integer():
        raise ValueError(f"{what} '{shown(text)}' is not a whole number")
    if abs(number) > MAX_NUMBER:
        raise ValueError(f"{what} '{shown(text)}' is too large (at most {MAX_NUMBER:,})")
    return int(number)


def _position(code: Code, text: str) -> int:
    if code.unit == "conversation":
        if text in ("", "0"):
            return 0
        raise ValueError(f"code '{code.key}' is coded on whole conversations; leave turn empty")
    if text == "":
        raise ValueError(f"code '{code.key}' is coded on turns; give the turn number")
    position = _whole(text, "turn")
    if position < 1:
        raise ValueError(f"turn {position} is not a turn number (turns count from 1)")
    return position


def _sentence(code: Code, text: str) -> int:
    if code.unit != "sentence":
        if text in ("", "0"):
            return 0
        raise ValueError(f"code '{code.key}' is not coded on sentences; leave sentence empty")
    if text == "":
        raise ValueError(f"code '{code.key}' is coded on sentences; give the sentence number")
    sentence = _whole(text, "sentence")
    if sentence < 1:
        raise ValueError(f"sentence {sentence} is not a sentence number (they count from 1)")
    return sentence


class _Existence:
    """Answers "does this conversation / turn exist, and what is the turn's role?"."""

    def __init__(self, turns: Mapping[tuple[str, int], str] | Collection[tuple[str, int]] | None,
                 conversations: Collection[str] | None, known: Known | None):
        self.turns = turns
        self.roles = turns if isinstance(turns, Mapping) else None
        self.conversations = conversations
        if conversations is None and turns is not None:
            self.conversations = {cid for cid, _ in turns}
        if known is not None and not callable(known):
            pairs = known
            self.known: Callable[[str, int], bool] | None = lambda c, p: (c, p) in pairs
        else:
            self.known = known
        self.cache: dict[tuple[str, int], bool] = {}

    def exists(self, cid: str, position: int) -> bool | None:
        """True/False, or None when nothing was given to check with."""
        key = (cid, position)
        if key not in self.cache:
            answers = []
            if position == 0 and self.conversations is not None:
                answers.append(cid in self.conversations)
            if position > 0 and self.turns is not None:
                answers.append(key in self.turns)
            if self.known is not None:
                answers.append(bool(self.known(cid, position)))
            if not answers:
                return None
            self.cache[key] = all(answers)
        return self.cache[key]

    def role(self, cid: str, position: int) -> str | None:
        return self.roles.get((cid, position)) if self.roles is not None else None


def _offsets(code: Code, start: str, end: str, start_col: str | None, end_col: str | None
             ) -> tuple[int, int] | None:
    """A span code's (start, end); None for other codes. Raises RowError naming the
    field (``start`` or ``end``)."""
    start, end = unneutralise(str(start).strip()), unneutralise(str(end).strip())
    if code.unit != "span":
        if start or end:
            raise rows.RowError("start" if start else "end",
                                f"code '{code.key}' applies to {code.unit}s; only a span "
                                "code has a start and an end")
        return None
    if start_col is None or end_col is None:
        raise rows.RowError("start" if start_col is None else "end",
                            f"code '{code.key}' codes spans; the file needs start and end "
                            "columns (code-point offsets into the turn's text)")
    numbers = []
    for text, what in ((start, "start"), (end, "end")):
        if not text:
            raise rows.RowError(what, f"a span of '{code.key}' needs a {what}")
        try:
            numbers.append(_whole(text, f"the span {what}"))
        except ValueError as e:
            raise rows.RowError(what, str(e)) from None
    # inside the turn's text is checked by the project, which has the text
    return rows.span_offsets(numbers[0], numbers[1], text_length=rows.MAX_NUMBER)


def read_codings_csv(
    path: Path | str,
    codebook: Codebook,
    *,
    turns: Mapping[tuple[str, int], str] | Collection[tuple[str, int]] | None = None,
    conversations: Collection[str] | None = None,
    known: Known | None = None,
    encoding: str | None = None,
) -> list[tuple[int, Coding]]:
    """The codings of the file with their line numbers (see :func:`read_codings_file`)."""
    return read_codings_file(path, codebook, turns=turns, conversations=conversations,
                             known=known, encoding=encoding)[0]


def read_codings_file(
    path: Path | str,
    codebook: Codebook,
    *,
    turns: Mapping[tuple[str, int], str] | Collection[tuple[str, int]] | None = None,
    conversations: Collection[str] | None = None,
    known: Known | None = None,
    encoding: str | None = None,
) -> tuple[list[tuple[int, Coding]], list[tuple[str, str, int]]]:
    """The codings of the file with their line numbers, and the (coder, conversation,
    turn) its ``done`` column marks done; or one InputError.

    ``conversations`` (ids) and ``turns`` (``(conversation_id, position)`` pairs, or a
    mapping of them to the turn's role) let the caller's project check that every coding
    refers to something that exists; with roles, a code that applies to assistant (or user)
    turns is refused on a turn of the other role. ``known`` is a callable alternative.
    ``encoding`` names the file's text encoding when it is not UTF-8.
    """
    path = Path(path)
    table, by_norm = read_named_columns(
        path, encoding, REQUIRED, OPTIONAL,
        f"a codings file has the columns {', '.join(REQUIRED)} (and optionally sentence)")
    names = [by_norm[norm(c)] for c in REQUIRED]
    sentence_col = by_norm.get("sentence")
    if sentence_col is None and any(c.unit == "sentence" for c in codebook.codes):
        names.append("")
    else:
        names.append(sentence_col or "")
    done_col = by_norm.get("done")
    names.append(done_col or "")
    start_col, end_col = by_norm.get("start"), by_norm.get("end")
    names += [start_col or "", end_col or ""]
    where = _Existence(turns, conversations, known)
    seen: dict[tuple[str | int, ...], int] = {}
    frame = table.frame
    columns = [frame[n].tolist() if n else [""] * len(frame) for n in names]
    out: list[tuple[int, Coding]] = []
    marks: dict[tuple[str, str, int], None] = {}
    for label, coder, cid, turn, key, raw_value, sentence, done, start, end in zip(
        frame.index.tolist(), *columns, strict=True
    ):
        line = table.line_number(label)

        def bad(message: str, field: str, line: int = line) -> InputError:
            return InputError(str(path), message, location=f"line {line}", field=field)

        # a long export marks formula-like cells and cells starting with ' by one more '
        coder, cid, turn, key, sentence = (
            unneutralise(s.strip()) for s in (coder, cid, turn, key, sentence)
        )
        raw_value = unneutralise(raw_value)
        if not coder:
            raise bad("the coder is empty", names[0])
        if not cid:
            raise bad("the conversation id is empty", names[1])
        for check, name, column in ((rows.coder_name, coder, names[0]),
                                    (rows.conversation_id, cid, names[1])):
            try:  # the same check as every other path that writes a coding
                check(name)
            except rows.RowError as e:
                raise bad(e.message, column) from None
        if not key:
            raise bad("the code is empty", names[3])
        code = codebook.get(key)
        if code is None:
            known_keys = ", ".join(c.key for c in codebook.codes)
            raise bad(f"unknown code '{shown(key)}' (codebook '{codebook.name}' has: {known_keys})",
                      names[3])
        try:
            position = _position(code, turn)
        except ValueError as e:
            raise bad(str(e), names[2]) from None
        try:
            sentence_no = _sentence(code, sentence)
        except ValueError as e:
            if not sentence_col:
                raise bad(f"{e}; the file has no sentence column", "sentence") from None
            raise bad(str(e), sentence_col) from None
        try:
            offsets = _offsets(code, start, end, start_col, end_col)
        except rows.RowError as e:
            raise bad(e.message, {"start": start_col, "end": end_col}[e.field] or e.field
                      ) from None
        if offsets is not None and code.kind == "binary" and not raw_value.strip():
            raw_value = "1"  # a span marks that its code is present there
        try:
            value = code.parse_value(raw_value)
        except ValueError as e:
            raise bad(str(e), names[4]) from None
        if offsets is not None and value is None:
            raise bad(f"a span of '{code.key}' cannot be not applicable", names[4])
        if where.exists(cid, 0) is False:
            raise bad(f"there is no conversation '{shown(cid)}' in the project", names[1])
        if position and where.exists(cid, position) is False:
            raise bad(f"conversation '{shown(cid)}' has no turn {position}", names[2])
        role = where.role(cid, position) if position else None
        if role is not None and code.applies_to not in ("any", role):
            raise bad(f"code '{code.key}' applies to {code.applies_to} turns; turn {position} "
                      f"of '{cid}' is a {role} turn", names[2])
        ident: tuple[str | int, ...] = (coder, cid, position, sentence_no, code.key)
        if offsets is not None:
            ident += offsets
        if ident in seen:
            what = "this span" if offsets is not None else "this unit"
            raise bad(f"coder '{coder}' coded '{code.key}' on {what} already on line "
                      f"{seen[ident]}", names[3])
        seen[ident] = line
        unit = Unit(cid, position, sentence_no)
        out.append((line, Coding(coder, unit, code.key, value) if offsets is None
                    else SpanCoding(coder, unit, code.key, value, *offsets)))
        flag = str(done).strip().casefold()
        if flag in _YES:
            if not position:
                raise bad("done marks a turn; leave it empty for a code of whole "
                          "conversations", done_col or "done")
            marks[(coder, cid, position)] = None
        elif flag not in _NO:
            raise bad(f"done '{done}' is not 1 or 0 (yes or no)", done_col or "done")
    return out, list(marks)
