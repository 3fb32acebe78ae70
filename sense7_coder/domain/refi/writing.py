"""REFI-QDA projects (``.qdpx``): a coded sense7-coder project for other QDA tools.

The mapping is described in :mod:`.qdc`; the code book inside a project is written the
same way as a ``.qdc``.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..codebook.codes import Codebook
from ..models import Conversation
from .qdc import (
    PROJECT_NS,
    PROJECT_SCHEMA,
    XSI,
    code_element,
    code_guid,
    code_sets,
    guid,
    level_guid,
    shown_names,
    xml_bytes,
    xml_text,
)

#: the text variable that carries what only sense7-coder reads (turns' speakers, times,
#: users' ratings, comments and attributes; coders' done marks) as JSON
EXTRA_VARIABLE = "sense7-coder"


@dataclass
class SourceTurn:
    position: int
    role: str
    text: str
    sentences: list[tuple[int, int]] = field(default_factory=list)  # (start, end) in text


@dataclass
class Source:
    """One conversation as REFI sees it."""
    conversation_id: str
    turns: list[SourceTurn]
    variables: dict[str, str] = field(default_factory=dict)


@dataclass
class Mark:
    """A coding, a consensus decision or a memo: who, where, what."""
    user: str
    position: int  # 0 = the whole conversation
    sentence: int  # 0 = the whole turn
    code: str = ""
    value: Any = None  # None = not applicable
    memo: str = ""
    #: a span: (start, end) in the turn's text, code points, end exclusive
    span: tuple[int, int] | None = None


def conversation_variables(conv: Conversation) -> dict[str, str]:
    """A conversation's fields and attributes as REFI text variables (name -> text)."""
    out = {"participant_id": conv.participant_id or "", "model": conv.model or "",
           "topic": conv.topic or ""}
    for name, value in conv.attributes.items():
        if name not in out and name != EXTRA_VARIABLE and value not in (None, ""):
            out[name] = value if isinstance(value, str) else json.dumps(value,
                                                                       ensure_ascii=False)
    return out


def conversation_extra(conv: Conversation, done: Mapping[str, Iterable[int]]
                       ) -> dict[str, Any]:
    """What REFI has no place for, carried in the ``sense7-coder`` variable: each turn's
    role, speaker, time, users' ratings, comment and attributes; the attributes that are
    not text; the coders' done marks."""
    turns = []
    for t in conv.turns:
        item: dict[str, Any] = {"position": t.position, "role": t.role, "length": len(t.text)}
        for name in ("speaker", "time_offset", "comment"):
            if getattr(t, name) is not None:
                item[name] = getattr(t, name)
        if t.ratings:
            item["ratings"] = dict(t.ratings)
        if t.attributes:
            item["attributes"] = dict(t.attributes)
        turns.append(item)
    extra: dict[str, Any] = {"turns": turns}
    reserved = ("participant_id", "model", "topic", EXTRA_VARIABLE)  # variables of their own
    typed = {k: v for k, v in conv.attributes.items()
             if not isinstance(v, str) or k in reserved}
    if typed:
        extra["attributes"] = typed
    if conv.source:
        extra["source"] = conv.source
    marks = {coder: sorted(positions) for coder, positions in done.items() if positions}
    if marks:
        extra["done"] = marks
    return extra


def source_text(turns: Sequence[SourceTurn]) -> tuple[str, dict[int, tuple[int, int]]]:
    """The plain text of a conversation and each turn's (start, end) in it."""
    parts: list[str] = []
    spans: dict[int, tuple[int, int]] = {}
    at = 0
    for t in turns:
        prefix = f"{t.role.capitalize() or 'Turn'}: "
        start = at + len(prefix)
        spans[t.position] = (start, start + len(t.text))
        piece = prefix + t.text + "\n\n"
        parts.append(piece)
        at += len(piece)
    return "".join(parts), spans


class ProjectDocument:
    """Builds ``project.qde`` and the source texts of a ``.qdpx``, one source at a time.

    Every coded unit is a ``PlainTextSelection`` per coder (its ``creatingUser``: the
    tools that read the coder from the selection, QualCoder among them, see each coding's
    coder), a conversation-level unit a selection of the whole text (QualCoder reads
    codings only from selections); a coder's memo on the unit is the selection's
    ``Description`` (QualCoder's and MAXQDA's coding memo)."""

    def __init__(self, name: str, codebook: Codebook, users: Iterable[str],
                 origin: str = "sense7-coder", variables: Sequence[str] = ()) -> None:
        ns = PROJECT_NS
        self.ns = ns
        self.codebook = codebook
        self.codes = {c.key: c for c in codebook.codes}
        self.users = {u: guid("user", u) for u in users}
        self.now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.root = ET.Element(f"{{{ns}}}Project", {
            "name": name, "origin": origin, "creationDateTime": self.now,
            f"{{{XSI}}}schemaLocation": f"{ns} {PROJECT_SCHEMA}"})
        users_el = ET.SubElement(self.root, f"{{{ns}}}Users")
        for user, g in self.users.items():
            ET.SubElement(users_el, f"{{{ns}}}User", {"guid": g, "name": xml_text(user)})
        if not self.users:
            self.root.remove(users_el)
        book = ET.SubElement(self.root, f"{{{ns}}}CodeBook")
        codes = ET.SubElement(book, f"{{{ns}}}Codes")
        shown = shown_names(codebook.codes)
        for code in codebook.codes:
            codes.append(code_element(ns, code, shown[code.key]))
        self.variables = {v: guid("variable", v) for v in variables}
        self.vars_el = ET.SubElement(self.root, f"{{{ns}}}Variables")
        for v in variables:
            self._variable(v)
        self.sources = ET.SubElement(self.root, f"{{{ns}}}Sources")
        self.notes = ET.Element(f"{{{ns}}}Notes")
        self.texts: dict[str, str] = {}
        self.selections = 0
        self.codings = 0
        self.memos = 0

    def _variable(self, name: str) -> str:
        if name not in self.variables or not any(
                v.get("name") == xml_text(name) for v in self.vars_el):
            g = self.variables.setdefault(name, guid("variable", name))
            ET.SubElement(self.vars_el, f"{{{self.ns}}}Variable",
                          {"guid": g, "name": xml_text(name), "typeOfVariable": "Text"})
        return self.variables[name]

    def _target(self, mark: Mark) -> str | None:
        code = self.codes.get(mark.code)
        if code is None:
            return None
        if code.kind == "binary":
            return code_guid(code.key) if mark.value == 1 else None
        return level_guid(code.key, mark.value)

    def _coding(self, parent: ET.Element, cid: str, mark: Mark) -> None:
        target = self._target(mark)
        if target is None:
            return
        coding = ET.SubElement(parent, f"{{{self.ns}}}Coding", {
            "guid": guid("coding", mark.user, cid, mark.position, mark.sentence, mark.code,
                         *(mark.span or ())),
            "creatingUser": self.users[mark.user], "creationDateTime": self.now})
        ET.SubElement(coding, f"{{{self.ns}}}CodeRef", {"targetGUID": target})
        self.codings += 1

    def _selection(self, el: ET.Element, cid: str, where: tuple[object, ...], name: str,
                   start: int, end: int, marks: Sequence[Mark]) -> None:
        """One selection per coder of ``marks`` at ``start``-``end`` of the source."""
        by_user: dict[str, list[Mark]] = {}
        for m in marks:
            by_user.setdefault(m.user, []).append(m)
        for user, mine in by_user.items():
            sel = ET.Element(f"{{{self.ns}}}PlainTextSelection", {
                "guid": guid("selection", cid, *where, user), "name": xml_text(name),
                "startPosition": str(start), "endPosition": str(end),
                "creatingUser": self.users[user], "creationDateTime": self.now})
            memo = "\n\n".join(m.memo for m in mine if m.memo)
            if memo:
                ET.SubElement(sel, f"{{{self.ns}}}Description").text = xml_text(memo)
                self.memos += 1
            for m in mine:
                if not m.memo:
                    self._coding(sel, cid, m)
            if len(sel):
                el.append(sel)
                self.selections += 1

    def add_source(self, source: Source, marks: Sequence[Mark],
                   extra: dict[str, Any] | None = None) -> None:
        """A conversation and its marks; ``extra``: what only sense7-coder reads (turn
        data, done marks), written as the text variable ``sense7-coder`` (JSON)."""
        ns = self.ns
        cid = source.conversation_id
        g = guid("source", cid)
        text, spans = source_text(source.turns)
        self.texts[g] = text
        el = ET.SubElement(self.sources, f"{{{ns}}}TextSource", {
            "guid": g, "name": xml_text(cid), "plainTextPath": f"internal://{g}.txt",
            "creationDateTime": self.now})
        sentences = {t.position: t.sentences for t in source.turns}
        units: dict[tuple[int, int, tuple[int, int]], list[Mark]] = {}
        whole: list[Mark] = []
        for m in marks:
            if m.position == 0:
                whole.append(m)
            elif m.position in spans:
                units.setdefault((m.position, m.sentence, m.span or (-1, -1)), []).append(m)
        if whole and text:
            self._selection(el, cid, (0, 0), cid, 0, len(text), whole)
        for (pos, sent, part), unit_marks in sorted(units.items()):
            start, end = spans[pos]
            if part != (-1, -1):  # a span of the turn
                if not 0 <= part[0] < part[1] <= end - start:
                    continue
                self._selection(el, cid, (pos, "span", *part),
                                f"{cid} turn {pos} {part[0]}-{part[1]}",
                                start + part[0], start + part[1], unit_marks)
                continue
            if sent:
                offsets = sentences.get(pos, [])
                if not 0 < sent <= len(offsets):
                    continue
                s0, s1 = offsets[sent - 1]
                start, end = start + s0, start + s1
            if start >= end:
                continue
            name = f"{cid} turn {pos}" + (f" sentence {sent}" if sent else "")
            self._selection(el, cid, (pos, sent), name, start, end, unit_marks)
        values = dict(source.variables)
        if extra:
            values[EXTRA_VARIABLE] = json.dumps(extra, ensure_ascii=False, sort_keys=True)
        for name, value in values.items():
            if value:
                vv = ET.SubElement(el, f"{{{ns}}}VariableValue")
                ET.SubElement(vv, f"{{{ns}}}VariableRef", {"targetGUID": self._variable(name)})
                ET.SubElement(vv, f"{{{ns}}}TextValue").text = xml_text(value)

    def qde(self) -> bytes:
        if not len(self.vars_el):
            self.root.remove(self.vars_el)
        if not len(self.sources):
            self.root.remove(self.sources)
        if len(self.notes):
            self.root.append(self.notes)
        sets = code_sets(self.ns, self.codebook.codes)
        if sets is not None:
            self.root.append(sets)
        return xml_bytes(self.root, PROJECT_NS)

    def files(self) -> Iterator[tuple[str, bytes]]:
        """The zip's members: ``project.qde`` and ``sources/<GUID>.txt``."""
        yield "project.qde", self.qde()
        for g, text in self.texts.items():
            yield f"sources/{g}.txt", text.encode("utf-8")


def write_qdpx(fh: Any, document: ProjectDocument) -> None:
    """Write the project as a ``.qdpx`` zip to the binary file ``fh``."""
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in document.files():
            z.writestr(name, data)
