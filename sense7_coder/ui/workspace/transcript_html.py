"""HTML for the transcript: one table per turn, every character of the message kept.

The message body is escaped and laid out with ``white-space: pre-wrap`` so that each
character of the stored text is exactly one character of the document; sentence offsets
can then be highlighted without re-rendering. Code-like lines (fenced blocks, spreadsheet
formulas, indented code) are set in a monospace face.
"""

from __future__ import annotations

import html
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


def _mono(text: str, colours: Colours) -> str:
    escaped = html.escape(text, quote=False)
    return (f'<span style="font-family: monospace; background-color: {colours.code_bg}">'
            f"{escaped}</span>")


def _line_html(line: str, mono: bool, colours: Colours) -> str:
    """A code line wholly in monospace; in a line of prose only its formulas."""
    if not mono or not line:
        return html.escape(line, quote=False)
    spans = formula_spans(line) if not line.lstrip().startswith("=") else []
    prose = sum(b - a for a, b in spans) < len(line.strip()) * 0.6
    if not spans or not prose or line != line.lstrip():
        return _mono(line, colours)
    out, at = [], 0
    for a, b in spans:
        out += [html.escape(line[at:a], quote=False), _mono(line[a:b], colours)]
        at = b
    out.append(html.escape(line[at:], quote=False))
    return "".join(out)


def body_html(text: str, colours: Colours) -> str:
    """The escaped message, code-like lines in monospace (in prose, only the formulas); one
    document character per character of the text."""
    flags = code_lines(text)
    parts = []
    for i, (line, mono) in enumerate(zip(text.split("\n"), flags, strict=True)):
        parts.append(_line_html(line, mono, colours))
        if i < len(flags) - 1:
            parts.append("<br />")
    return "".join(parts)


def format_offset(seconds: float | None) -> str:
    if seconds is None:
        return ""
    total = int(round(seconds))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def turn_header(conversation: Conversation, turn: Turn, colours: Colours) -> str:
    role = ROLE_LABELS.get(turn.role, turn.role.capitalize())
    colour = colours.user_label if turn.role == "user" else colours.assistant_label
    speaker = turn.speaker or (conversation.model if turn.role == "assistant" else
                               conversation.participant_id if turn.role == "user" else None)
    extra = [f"turn {turn.position}"]
    if speaker and speaker.casefold() != role.casefold():
        extra.insert(0, speaker)
    offset = format_offset(turn.time_offset)
    if offset:
        extra.append(offset)
    meta = " · ".join(html.escape(x) for x in extra)
    return (
        f'<span style="font-weight: 600; color: {colour}">{html.escape(role)}</span>'
        f'<span style="color: {colours.muted}">&nbsp;&nbsp;{meta}</span>'
    )


def conversation_html(conversation: Conversation, colours: Colours) -> str:
    """The whole conversation: a heading, then one two-row table (header, body) per turn."""
    c = conversation
    facts = [x for x in (
        f"participant {c.participant_id}" if c.participant_id else "",
        f"model {c.model}" if c.model else "",
        f"{len(c.turns)} messages",
    ) if x]
    out = [
        f'<html><body style="color: {colours.text}">',
        f'<p style="margin: 2px 0 0 0; font-size: large; font-weight: 600">'
        f"{html.escape(c.conversation_id)}</p>",
        f'<p style="margin: 0 0 2px 0; color: {colours.muted}">{html.escape(" · ".join(facts))}</p>',
    ]
    if c.topic:
        out.append(
            f'<p style="margin: 0 0 6px 0; color: {colours.muted}">Topic: {html.escape(c.topic)}</p>'
        )
    for turn in c.turns:
        user = turn.role == "user"
        bg = colours.user_bg if user else colours.assistant_bg
        indent = "margin-left: 90px; " if user else "margin-right: 40px; "
        out.append(
            f'<table width="100%" cellspacing="0" cellpadding="0" '
            f'bgcolor="{bg}" style="{indent}margin-top: 10px">'
            f'<tr><td rowspan="2" width="4" bgcolor="{bg}"></td>'
            f'<td style="padding: 8px 12px 2px 10px">{turn_header(c, turn, colours)}</td></tr>'
            f'<tr><td style="padding: 2px 12px 10px 10px; white-space: pre-wrap">'
            f"{body_html(turn.text, colours)}</td></tr>"
            "</table>"
        )
    out.append("</body></html>")
    return "".join(out)
