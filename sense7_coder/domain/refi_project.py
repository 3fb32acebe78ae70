"""REFI-QDA projects (``.qdpx``): a coded sense7-coder project for other QDA tools.

The mapping is described in :mod:`.refi`; the code book inside a project is written the
same way as a ``.qdc``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .codebook import Codebook
from .refi import (
    PROJECT_NS,
    PROJECT_SCHEMA,
    XSI,
    code_element,
    code_guid,
    code_sets,
    guid,
    level_guid,
    xml_bytes,
    xml_text,
)


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
    """Builds ``project.qde`` and the source texts of a ``.qdpx``, one source at a time."""

    def __init__(self, name: str, codebook: Codebook, users: Iterable[str],
                 origin: str = "sense7-coder", variables: Sequence[str] = ()) -> None:
        ns = PROJECT_NS
        self.ns = ns
        self.codebook = codebook
        self.codes = {c.key: c for c in codebook.codes}
        self.users = {u: guid("user", u) for u in users}
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.root = ET.Element(f"{{{ns}}}Project", {
            "name": name, "origin": origin, "creationDateTime": now,
            f"{{{XSI}}}schemaLocation": f"{ns} {PROJECT_SCHEMA}"})
        users_el = ET.SubElement(self.root, f"{{{ns}}}Users")
        for user, g in self.users.items():
            ET.SubElement(users_el, f"{{{ns}}}User", {"guid": g, "name": xml_text(user)})
        if not self.users:
            self.root.remove(users_el)
        book = ET.SubElement(self.root, f"{{{ns}}}CodeBook")
        codes = ET.SubElement(book, f"{{{ns}}}Codes")
        for code in codebook.codes:
            codes.append(code_element(ns, code))
        self.variables = {v: guid("variable", v) for v in variables}
        if self.variables:
            vars_el = ET.SubElement(self.root, f"{{{ns}}}Variables")
            for v, g in self.variables.items():
                ET.SubElement(vars_el, f"{{{ns}}}Variable",
                              {"guid": g, "name": xml_text(v), "typeOfVariable": "Text"})
        self.sources = ET.SubElement(self.root, f"{{{ns}}}Sources")
        self.notes = ET.Element(f"{{{ns}}}Notes")
        self.texts: dict[str, str] = {}
        self.selections = 0
        self.codings = 0

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
            "creatingUser": self.users[mark.user]})
        ET.SubElement(coding, f"{{{self.ns}}}CodeRef", {"targetGUID": target})
        self.codings += 1

    def _note(self, cid: str, mark: Mark) -> str:
        g = guid("memo", mark.user, cid, mark.position, mark.sentence, *(mark.span or ()))
        where = cid if not mark.position else f"{cid} turn {mark.position}" + (
            f" sentence {mark.sentence}" if mark.sentence else "")
        note = ET.SubElement(self.notes, f"{{{self.ns}}}Note", {
            "guid": g, "name": xml_text(f"memo of {mark.user} on {where}"),
            "creatingUser": self.users[mark.user]})
        ET.SubElement(note, f"{{{self.ns}}}PlainTextContent").text = xml_text(mark.memo)
        return g

    def add_source(self, source: Source, marks: Sequence[Mark]) -> None:
        ns = self.ns
        cid = source.conversation_id
        g = guid("source", cid)
        text, spans = source_text(source.turns)
        self.texts[g] = text
        el = ET.SubElement(self.sources, f"{{{ns}}}TextSource", {
            "guid": g, "name": xml_text(cid), "plainTextPath": f"internal://{g}.txt"})
        sentences = {t.position: t.sentences for t in source.turns}
        units: dict[tuple[int, int, tuple[int, int]], list[Mark]] = {}
        whole: list[Mark] = []
        for m in marks:
            if m.position == 0:
                whole.append(m)
            elif m.position in spans:
                units.setdefault((m.position, m.sentence, m.span or (-1, -1)), []).append(m)
        for (pos, sent, part), unit_marks in sorted(units.items()):
            start, end = spans[pos]
            if part != (-1, -1):  # a span of the turn
                if not 0 <= part[0] < part[1] <= end - start:
                    continue
                start, end = start + part[0], start + part[1]
                sel = ET.Element(f"{{{ns}}}PlainTextSelection", {
                    "guid": guid("selection", cid, pos, "span", *part),
                    "name": xml_text(f"{cid} turn {pos} {part[0]}-{part[1]}"),
                    "startPosition": str(start), "endPosition": str(end)})
                for m in unit_marks:
                    if not m.memo:
                        self._coding(sel, cid, m)
                for m in unit_marks:
                    if m.memo:
                        ET.SubElement(sel, f"{{{ns}}}NoteRef",
                                      {"targetGUID": self._note(cid, m)})
                if len(sel):
                    el.append(sel)
                    self.selections += 1
                continue
            if sent:
                offsets = sentences.get(pos, [])
                if not 0 < sent <= len(offsets):
                    continue
                s0, s1 = offsets[sent - 1]
                start, end = start + s0, start + s1
            name = f"{cid} turn {pos}" + (f" sentence {sent}" if sent else "")
            sel = ET.Element(f"{{{ns}}}PlainTextSelection", {
                "guid": guid("selection", cid, pos, sent), "name": xml_text(name),
                "startPosition": str(start), "endPosition": str(end)})
            for m in unit_marks:
                if not m.memo:
                    self._coding(sel, cid, m)
            for m in unit_marks:
                if m.memo:
                    ET.SubElement(sel, f"{{{ns}}}NoteRef", {"targetGUID": self._note(cid, m)})
            if len(sel):
                el.append(sel)
                self.selections += 1
        for m in whole:
            if not m.memo:
                self._coding(el, cid, m)
        for m in whole:
            if m.memo:
                ET.SubElement(el, f"{{{ns}}}NoteRef", {"targetGUID": self._note(cid, m)})
        for name, value in source.variables.items():
            if name in self.variables and value:
                vv = ET.SubElement(el, f"{{{ns}}}VariableValue")
                ET.SubElement(vv, f"{{{ns}}}VariableRef", {"targetGUID": self.variables[name]})
                ET.SubElement(vv, f"{{{ns}}}TextValue").text = xml_text(value)

    def qde(self) -> bytes:
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
