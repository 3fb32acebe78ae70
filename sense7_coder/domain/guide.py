"""The coding guide a coder reads at the keyboard (F1): every code with its shortcut, what it
means, what each level means (the anchors) and what it includes and excludes."""

from __future__ import annotations

import re

from .codebook.codes import Code, Codebook

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def md(text: str) -> str:
    """Codebook text as literal Markdown: one line, every markup character escaped."""
    return _MARKDOWN.sub(r"\\\1", " ".join(str(text).split()))


def code_guide(code: Code) -> str:
    head = f"### {md(code.label)}"
    if code.shortcut:
        head += f" (key {md(code.shortcut)})"
    parts = [head]
    if code.description:
        parts.append(md(code.description))
    levels = []
    for lv in code.levels:
        name = lv.label if code.kind != "ordinal" or str(lv.value) == lv.label \
            else f"{lv.value} {lv.label}"
        levels.append(f"- **{md(name)}**" + (f": {md(lv.description)}" if lv.description else ""))
    if code.allow_na:
        levels.append("- **n/a** (key 0 or N): not applicable, this code cannot be judged here")
    if levels:
        parts.append("\n".join(levels))
    for name, text in (("Include", code.include), ("Exclude", code.exclude)):
        if text:
            parts.append(f"**{name}:** {md(text)}")
    return "\n\n".join(parts)


def codebook_guide(codebook: Codebook) -> str:
    """Markdown: the active codes in codebook order, each with its anchors."""
    title = md(codebook.title or codebook.name or "Codebook")
    body = "\n\n".join(code_guide(c) for c in codebook.active)
    return f"## Coding guide: {title}\n\n{body or 'The codebook has no active codes.'}"
