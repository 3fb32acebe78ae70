"""What the transcript shows, as plain text pieces: every character of a message kept.

The message is inserted as text, never as markup, so each character of the stored text
is exactly one character of the document (a line break is one block break); sentence
offsets can then be highlighted without re-rendering. Code-like lines (fenced blocks,
spreadsheet formulas, indented code) are set in a monospace face.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...domain.models import Conversation, Turn

FORMULA_RE = re.compile(r"(^\s*=\s*[A-Za-z_][\w.]*\s*\()|(=\s*[A-Z][A-Z0-9.]{1,15}\()")
CODE_HINT_RE = re.compile(
    r"^\s*(def |class |import |from \S+ import |for .+:$|if .+:$|return\b|print\(|"
    r"SELECT\b|\{|\}|</?[a-z]+>|#include|function\b|const |let |var )"
)
PROSE_FORMULA_RE = re.compile(r"=\s*[A-Z][A-Z0-9.]{1,15}\(")
ROLE_LABELS = {"user": "User", "assistant": "Assistant", "system": "System"}
#: the most characters of one message the transcript shows: a message of megabytes (a
#: document pasted whole, a hand-edited project) took Qt minutes and gigabytes to lay out
MAX_SHOWN_CHARS = 100_000
#: the longest run without a space shown: Qt breaks such a run character by character,
#: which took 11 s for 20,000 characters in a narrow transcript
MAX_SHOWN_RUN = 2_000
_LONG_RUN = re.compile(rf"\S{{{MAX_SHOWN_RUN + 1}}}")


@dataclass
class Colours:
    """Hex colours taken from the window palette (light or dark)."""

    text: str
    muted: str
    user_bg: str
    assistant_bg: str
    code_bg: str
    user_label: str
    assistant_label: str


def code_lines(text: str) -> list[bool]:
    """For each line of ``text``: is it code-like (monospace)?"""
    lines = text.split("\n")
    out: list[bool] = []
    in_fence = False
    prev_code = False
    prev_blank = True
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            out.append(True)
            in_fence = not in_fence
            prev_code, prev_blank = True, False
            continue
        if in_fence:
            out.append(True)
            prev_code, prev_blank = True, not stripped
            continue
        indented = (line.startswith("    ") or line.startswith("\t")) and bool(stripped)
        is_code = bool(
            FORMULA_RE.search(line)
            or (indented and (prev_blank or prev_code) and not stripped.startswith(("-", "*", "•")))
            or (CODE_HINT_RE.match(line) and prev_code)
        )
        out.append(is_code)
        prev_code = is_code
        prev_blank = not stripped
    return out


def formula_spans(line: str) -> list[tuple[int, int]]:
    """Where spreadsheet formulas (``=NAME(...)``, brackets balanced) sit in a line of prose."""
    spans: list[tuple[int, int]] = []
    for m in PROSE_FORMULA_RE.finditer(line):
        if spans and m.start() < spans[-1][1]:
            continue
        depth, quoted, end = 0, False, len(line)
        for j in range(m.end() - 1, len(line)):
            ch = line[j]
            if ch == '"':
                quoted = not quoted
            elif not quoted and ch in "()":
                depth += 1 if ch == "(" else -1
                if depth == 0:
                    end = j + 1
                    break
        spans.append((m.start(), end))
    return spans


def line_segments(line: str, mono: bool) -> list[tuple[str, bool]]:
    """A line as (text, monospace?) pieces: a code line wholly in monospace; in a line of
    prose only its formulas."""
    if not mono or not line:
        return [(line, False)]
    spans = formula_spans(line) if not line.lstrip().startswith("=") else []
    prose = sum(b - a for a, b in spans) < len(line.strip()) * 0.6
    if not spans or not prose or line != line.lstrip():
        return [(line, True)]
    out: list[tuple[str, bool]] = []
    at = 0
    for a, b in spans:
        if a > at:
            out.append((line[at:a], False))
        out.append((line[a:b], True))
        at = b
    if at < len(line):
        out.append((line[at:], False))
    return out


def shown_text(text: str) -> tuple[str, str]:
    """The part of a message the transcript shows, and the note that follows it when the
    message is longer ('' when it is shown whole)."""
    head = text[:MAX_SHOWN_CHARS]
    run = _LONG_RUN.search(head)
    end = run.start() + MAX_SHOWN_RUN if run else len(head)
    if end >= len(text):
        return text, ""
    return text[:end], (
        f" \u2026 (this message holds {len(text):,} characters; the first {end:,} are "
        "shown: export it with its text to read it all)")


def body_segments(text: str) -> list[tuple[str, bool]]:
    """The message as (text, monospace?) pieces whose texts join to exactly ``text``:
    code-like lines in monospace (in prose, only the formulas), line breaks kept."""
    flags = code_lines(text)
    out: list[tuple[str, bool]] = []
    for i, (line, mono) in enumerate(zip(text.split("\n"), flags, strict=True)):
        if i:
            out.append(("\n", False))
        out.extend(seg for seg in line_segments(line, mono) if seg[0])
    return out


def format_offset(seconds: float | None) -> str:
    if seconds is None:
        return ""
    total = int(round(seconds))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def turn_header(conversation: Conversation, turn: Turn) -> tuple[str, str]:
    """A turn's heading: its role ("Assistant") and the muted facts after it (speaker,
    turn number, time)."""
    role = ROLE_LABELS.get(turn.role, turn.role.capitalize())
    speaker = turn.speaker or (conversation.model if turn.role == "assistant" else
                               conversation.participant_id if turn.role == "user" else None)
    extra = [f"turn {turn.position}"]
    if speaker and speaker.casefold() != role.casefold():
        extra.insert(0, speaker)
    offset = format_offset(turn.time_offset)
    if offset:
        extra.append(offset)
    extra += turn_tags(turn)
    return role, " · ".join(extra)


def turn_tags(turn: Turn, most: int = 4, width: int = 40) -> list[str]:
    """The turn's attributes as small tags ("strategy: Question"), at most ``most``."""
    from ...domain.attributes import shown

    tags = []
    for name, value in list(turn.attributes.items())[:most]:
        text = f"{name}: {shown(value)}"
        tags.append(text if len(text) <= width else text[:width - 1] + "…")
    return tags


def conversation_facts(conversation: Conversation) -> list[str]:
    """The muted lines under the conversation's id: who, which model, how long; the topic."""
    c = conversation
    facts = [x for x in (
        f"participant {c.participant_id}" if c.participant_id else "",
        f"model {c.model}" if c.model else "",
        f"{len(c.turns)} message" + ("" if len(c.turns) == 1 else "s"),
    ) if x]
    lines = [" · ".join(facts)]
    if c.topic:
        lines.append(f"Topic: {c.topic}")
    return lines
