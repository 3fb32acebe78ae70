"""What a codebook version changed: the part of a code that makes its meaning
(:data:`MEANING_FIELDS`; a new order, shortcut, colour or group is no new version) and the
differences between two versions, one line each (:func:`codebook_diff`)."""

from __future__ import annotations

from typing import Any

from .codes import Code, Codebook

#: the fields of a code whose change makes a new codebook version
MEANING_FIELDS = ("label", "kind", "unit", "applies_to", "allow_na", "description", "include",
                  "exclude", "examples", "retired")


def _levels(code: Code) -> list[tuple[Any, str, str]]:
    return [(lv.value, lv.label, lv.description) for lv in code.levels]


def code_meaning(code: Code) -> tuple[Any, ...]:
    return (code.key, *(repr(getattr(code, f)) for f in MEANING_FIELDS), repr(_levels(code)))


def meaning(book: Codebook) -> tuple[Any, ...]:
    """What the codebook's codes mean, comparable between versions (order left out)."""
    return tuple(sorted(code_meaning(c) for c in book.codes))


def _short(text: Any, limit: int = 70) -> str:
    shown = str(text).replace("\n", " ")
    return repr(shown if len(shown) <= limit else shown[:limit - 1] + "…")


def _level_lines(key: str, old: Code, new: Code) -> list[str]:
    before = {lv.value: lv for lv in old.levels}
    after = {lv.value: lv for lv in new.levels}
    lines = []
    for value, lv in after.items():
        was = before.get(value)
        if was is None:
            lines.append(f"~ {key}: level {value} added ({_short(lv.label)})")
            continue
        if was.label != lv.label:
            lines.append(f"~ {key}: level {value} label {_short(was.label)} -> "
                         f"{_short(lv.label)}")
        if was.description != lv.description:
            lines.append(f"~ {key}: level {value} anchor {_short(was.description)} -> "
                         f"{_short(lv.description)}")
    lines += [f"~ {key}: level {value} removed" for value in before if value not in after]
    return lines


def codebook_diff(old: Codebook, new: Codebook) -> list[str]:
    """Every difference in meaning from ``old`` to ``new``: ``+`` a code added, ``-`` one
    removed, ``~`` a field or level of one changed (old -> new); empty when none."""
    before = {c.key: c for c in old.codes}
    after = {c.key: c for c in new.codes}
    lines = [f"+ {k}: added ({_short(c.label)}, {c.kind}, levels "
             f"{', '.join(str(v) for v in c.values) or 'none'})"
             for k, c in after.items() if k not in before]
    lines += [f"- {k}: removed" for k in before if k not in after]
    for key, code in after.items():
        was = before.get(key)
        if was is None:
            continue
        for f in MEANING_FIELDS:
            a, b = getattr(was, f), getattr(code, f)
            if a != b:
                lines.append(f"~ {key}: {f} {_short(a)} -> {_short(b)}")
        lines += _level_lines(key, was, code)
    return lines


def changed_codes(old: Codebook, new: Codebook) -> list[str]:
    """The keys of the codes whose meaning differs (added and removed ones too)."""
    keys = sorted({c.key for c in old.codes} | {c.key for c in new.codes})
    was = {c.key: code_meaning(c) for c in old.codes}
    now = {c.key: code_meaning(c) for c in new.codes}
    return [k for k in keys if was.get(k) != now.get(k)]
