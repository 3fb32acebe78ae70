"""The prompts a model is sent to suggest codes: built from the codebook, editable per code.

A request's system message holds the instructions and, for each code asked, its
*guidance*: the code's label, description, levels (value, label and anchor), inclusion and
exclusion notes and examples, as :func:`code_guidance` writes them, or the text a lead
stored for that code in its place. The user message holds the unit inside its context:
the turns before it (:data:`CONTEXT_TURNS`, whole conversation for a conversation-level
code), with the unit marked ``>>> ... <<<`` (a sentence is marked inside its turn).

Cost: a token is estimated as four characters (:func:`estimate_tokens`), the usual
figure for English text with the tokenizers of current open models.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..codebook.codes import Code

#: turns before the unit that go with it as its context
CONTEXT_TURNS = 4
#: the most characters of one turn sent (a longer one is cut in the middle, said so)
MAX_TURN_CHARS = 6000
CHARS_PER_TOKEN = 4
#: tokens a reply is budgeted at per code asked (value and a one-sentence rationale)
REPLY_TOKENS_PER_CODE = 60

INSTRUCTIONS = """\
You are a careful qualitative coder. You will read part of a conversation between a user \
and an AI assistant; the unit to code is marked between >>> and <<<. Code only the marked \
unit, using the turns before it as context. Apply each code below exactly as its guidance \
says.

{guidance}

Answer with one JSON object and nothing else: for each code, its key with an object \
{{"value": <one of the code's level values{na}>, "rationale": "<one short sentence>"}}. \
Keys: {keys}."""


def code_guidance(code: Code) -> str:
    """A code's guidance as the codebook gives it."""
    lines = [f"## Code `{code.key}`: {code.label}"]
    if code.description:
        lines.append(code.description.strip())
    lines.append(f"Kind: {code.kind}; unit: {code.unit}.")
    lines.append("Levels:")
    for level in code.levels:
        anchor = f": {level.description.strip()}" if level.description else ""
        lines.append(f"- {json.dumps(level.value)} = {level.label}{anchor}")
    if code.allow_na:
        lines.append("- null = not applicable (the code does not apply to this unit)")
    if code.include:
        lines.append(f"Include: {code.include.strip()}")
    if code.exclude:
        lines.append(f"Exclude: {code.exclude.strip()}")
    for example in code.examples[:5]:
        lines.append(f"Example: {example.strip()}")
    return "\n".join(lines)


def system_prompt(codes: Sequence[Code], stored: Mapping[str, str]) -> str:
    """The instructions with each code's guidance (the stored text where there is one)."""
    guidance = "\n\n".join(stored.get(c.key) or code_guidance(c) for c in codes)
    na = ", or null for not applicable" if any(c.allow_na for c in codes) else ""
    return INSTRUCTIONS.format(guidance=guidance, na=na,
                               keys=", ".join(f'"{c.key}"' for c in codes))


def prompts_digest(codes: Sequence[Code], stored: Mapping[str, str]) -> str:
    """A short hash of everything a run's prompts hold but the units (codes in order)."""
    digest = hashlib.sha256(INSTRUCTIONS.encode("utf-8"))
    for code in codes:
        digest.update(b"\0" + (stored.get(code.key) or code_guidance(code)).encode("utf-8"))
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class ShownTurn:
    position: int
    role: str
    text: str


def _cut(text: str) -> str:
    if len(text) <= MAX_TURN_CHARS:
        return text
    half = MAX_TURN_CHARS // 2
    return f"{text[:half]} [... {len(text) - MAX_TURN_CHARS:,} characters left out ...] " \
           f"{text[-half:]}"


def unit_text(turns: Sequence[ShownTurn], position: int,
              span: tuple[int, int] | None = None, *, context: int = CONTEXT_TURNS) -> str:
    """The unit inside its context: ``position`` 0 marks the whole conversation; ``span``
    (start, end in the turn's text) marks one sentence of the turn."""
    if position == 0:
        body = "\n\n".join(f"[turn {t.position}, {t.role}]\n{_cut(t.text)}" for t in turns)
        return f">>>\n{body}\n<<<"
    before = [t for t in turns if t.position < position][-context:] if context else []
    lines = [f"[turn {t.position}, {t.role}]\n{_cut(t.text)}" for t in before]
    unit = next((t for t in turns if t.position == position), None)
    if unit is None:
        raise ValueError(f"no turn {position}")
    text = unit.text
    if span is not None:
        start, end = span
        marked = f"{text[:start]}>>>{text[start:end]}<<<{text[end:]}"
        lines.append(f"[turn {unit.position}, {unit.role}; the marked sentence is the unit]\n"
                     f"{_cut(marked)}")
    else:
        lines.append(f"[turn {unit.position}, {unit.role}]\n>>> {_cut(text)} <<<")
    return "\n\n".join(lines)


def messages(system: str, unit: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": unit}]


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)
