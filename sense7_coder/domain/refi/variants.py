"""Parts of reading a REFI-QDA project that other tools write their own way: duplicate
GUIDs, names with control characters, Windows line ends, cases and sets, notes.

Line ends: REFI-QDA counts a selection's positions in characters of the source text, but
tools disagree on a Windows line end (CR LF). ATLAS.ti counts it as one character, and so
do QualCoder's files written with its "MAXQDA line endings" option (the text gets CR LF,
the positions stay those of its LF text); a tool that counts the characters of the file
as stored counts two. A source with CR LF is therefore read with its line ends as LF
(one character each) unless a selection reaches past that text's end (then they count
two), or the selections' edges fall on word boundaries clearly more often when counted as
two. When neither tells, the file is read as one and a warning names the source.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import Any

from .. import rows
from ..errors import InputError
from . import qdc as refi

#: elements whose GUIDs must be unique among their own kind
_GUID_KINDS = ("User", "Code", "TextSource", "PictureSource", "PDFSource", "AudioSource",
               "VideoSource", "Note", "Variable", "Set", "Case", "PlainTextSelection")
_SOURCE_KINDS = frozenset(_GUID_KINDS[2:7])


def key(value: str | None) -> str:
    """A GUID as compared: braces and case do not matter."""
    return (value or "").strip().strip("{}").upper()


def check_guids(root: Any, lines: dict[int, int], where: str) -> None:
    """Refuse two elements of one kind (two users, two codes, two sources...) that share a
    GUID: every reference to it would be read as the first of them."""
    seen: dict[tuple[str, str], tuple[str, int, int]] = {}
    for el in root.iter():
        kind = refi._local(el.tag)
        if kind not in _GUID_KINDS or not el.get("guid"):
            continue
        group = "source" if kind in _SOURCE_KINDS else kind
        line = lines.get(id(el), 0)
        first = seen.setdefault((group, key(el.get("guid"))), (kind, line, id(el)))
        if first[2] != id(el):
            raise InputError(where, f"the {kind} {el.get('name')!r} has the GUID "
                             f"{el.get('guid')} of the {first[0]} on line {first[1]}; GUIDs "
                             "must be unique", location=f"project.qde line {line}",
                             field="guid")


_SPACES = re.compile(r"\s+")


def clean_name(value: str | None, kind: str, where: str, line: int) -> str:
    """A name from the file: line breaks and tabs become one space; a name that still holds
    a control, zero-width or direction character (U+202E...) is refused naming it."""
    text = _SPACES.sub(" ", value or "").strip()
    text = "".join(" " if unicodedata.category(ch) in ("Zl", "Zp") else ch for ch in text)
    odd = rows.odd_character(text)
    if odd is not None:
        raise InputError(where, f"the {kind} name {text[:40]!r} holds the character {odd} "
                         "(a control, zero-width or direction character)",
                         location=f"project.qde line {line}", field="name")
    return text


# -- line ends ---------------------------------------------------------------------------

def _word_edges(text: str, points: Iterable[tuple[int, int]]) -> int:
    def edge(i: int) -> bool:
        if i <= 0 or i >= len(text):
            return True
        return not (text[i - 1].isalnum() and text[i].isalnum())
    return sum(edge(a) + edge(b) for a, b in points)


def line_ends(raw: str, selections: list[tuple[int, int]], origin: str, name: str
              ) -> tuple[str, Callable[[int], int], str | None]:
    """The source text with LF line ends, the map from the file's positions to that text's,
    and a warning where the file does not tell how it counts a CR LF."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    if "\r\n" not in raw:
        return text, lambda i: i, None
    crlf = [m.start() for m in re.finditer("\r\n", raw)]  # where each CR sits in the file

    def two(i: int) -> int:  # positions count the CR of every line end before them
        return i - bisect_right(crlf, i - 1)

    if not selections or origin.upper().startswith("ATLAS"):
        return text, lambda i: i, None
    if max(b for _a, b in selections) > len(text):
        return text, two, None
    as_one = _word_edges(text, selections)
    as_two = _word_edges(text, [(two(a), two(b)) for a, b in selections])
    if as_two > as_one:
        return text, two, None
    warning = None
    if as_two == as_one and any(b > crlf[0] for _a, b in selections):  # past a line end
        warning = (f"source {name!r}: Windows line ends (CR LF); its selections were read "
                   "counting each line end as one character (as ATLAS.ti, MAXQDA and "
                   "QualCoder do); check that they sit on the right words")
    return text, lambda i: i, warning


# -- cases, sets, notes -------------------------------------------------------------------

def set_attributes(root: Any, sources: set[str], taken: set[str]) -> dict[str, dict[str, str]]:
    """Source GUID -> {attribute: value} from the project's sets of documents (MAXQDA's
    document sets, NVivo's sets): an attribute named after each set, ``yes`` for its
    members, so a user can filter by it (``set: NAME`` where a variable has the name)."""
    out: dict[str, dict[str, str]] = {}
    for sets in refi._children(root, "Sets"):
        for s in refi._children(sets, "Set"):
            members = [key(m.get("targetGUID")) for m in refi._children(s, "MemberSource")]
            name = _SPACES.sub(" ", s.get("name") or "").strip() or "set"
            attribute = name if name not in taken else f"set: {name}"
            for g in members:
                if g in sources:
                    out.setdefault(g, {})[attribute] = "yes"
    return out


def case_attributes(root: Any, sources: set[str], variables: dict[str, str]
                    ) -> dict[str, dict[str, str]]:
    """Source GUID -> {attribute: value} from the project's cases: ``case`` names the
    case(s) a source belongs to, and each case variable becomes an attribute."""
    out: dict[str, dict[str, str]] = {}
    for cases in refi._children(root, "Cases"):
        for case in refi._children(cases, "Case"):
            name = _SPACES.sub(" ", case.get("name") or "").strip()
            values = variable_values(case, variables)
            for ref in refi._children(case, "SourceRef"):
                g = key(ref.get("targetGUID"))
                if g not in sources:
                    continue
                attrs = out.setdefault(g, {})
                if name:
                    attrs["case"] = "; ".join(x for x in (attrs.get("case"), name) if x)
                for k, v in values.items():
                    attrs.setdefault(k, v)
    return out


def variable_values(el: Any, variables: dict[str, str]) -> dict[str, str]:
    """The ``VariableValue``s of a source or case: variable name -> text."""
    out: dict[str, str] = {}
    for vv in refi._children(el, "VariableValue"):
        refs = refi._children(vv, "VariableRef")
        name = variables.get(key(refs[0].get("targetGUID")), "") if refs else ""
        for value_el in vv:
            if refi._local(value_el.tag).endswith("Value") and name:
                out[name] = (value_el.text or "").strip()
    return out


def note_passage(note: Any) -> tuple[int, int] | None:
    """The passage a note is about (QualCoder writes an annotation as a note holding a
    ``PlainTextSelection``), or None."""
    for sel in refi._children(note, "PlainTextSelection"):
        try:
            return int(sel.get("startPosition", "")), int(sel.get("endPosition", ""))
        except ValueError:
            return None
    return None


def note_text(note: Any) -> str:
    content = refi._children(note, "PlainTextContent")
    text = (content[0].text or "").strip() if content else ""
    return text or refi._desc(note)
