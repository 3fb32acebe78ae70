"""REFI-QDA exchange: codebooks as ``.qdc`` and coded projects as ``.qdpx``.

REFI-QDA (www.qdasoftware.org) is the exchange standard of ATLAS.ti, MAXQDA, NVivo,
QualCoder and others: a codebook is an XML file in the namespace
``urn:QDA-XML:codebook:1.0``; a project is a zip holding ``project.qde`` (namespace
``urn:QDA-XML:project:1.0``) and the texts in ``sources/``.

How sense7-coder maps onto it:

* A code is a ``Code`` with a GUID made from its key (UUID version 5, so every export of
  the same code carries the same GUID), its label as name, its colour and description.
  Each level of an ordinal or nominal code is a child code named
  ``"<code name>: <value> = <label>"`` (``"Warmth: NA = not applicable"`` when not
  applicable is allowed; every name in a file unique, as QualCoder and ATLAS.ti need); a
  coder codes the level, so the parent is not codable. A binary (present/absent) code has no children and is codable
  itself. Groups become ``Sets``. What REFI has no field for (key, kind, unit, guidance,
  shortcut, users' rating key) rides in the description's last paragraph as
  ``[sense7-coder] {json}``, so a codebook makes the round trip whole.
* Reading a ``.qdc`` written by another tool: a code whose children are all named like
  ``"1 = very poor"`` (or ``"1 very poor"``, ``"1: very poor"``, with or without the
  parent's name before it) is an ordinal code with
  those levels; any other code is a present/absent code, its parent codes becoming its
  ``group`` (``"Emotions / Positive"``); a codable parent is a code too. Keys are made
  from the names. The XML is read without DTDs: a file declaring a DOCTYPE or entities is
  refused.
* A project: each conversation is a text source (``"User: ..."``/``"Assistant: ..."`` per
  turn, a blank line between turns); every coded turn and sentence is a
  ``PlainTextSelection`` per coder at its character positions (counted in Unicode
  characters from 0, end exclusive; ``creatingUser`` the coder) holding one ``Coding`` per
  code, pointing at the level's child code; conversation-level codes are codings of a
  selection of the whole source; coders (and the consensus) are users; a memo is the
  ``Description`` of its coder's selection; conversation fields and attributes are text
  variables of each source (see :mod:`.writing`). A binary code's "absent"
  is left out (a REFI coding says that a code applies).
"""

from __future__ import annotations

import io
import json
import re
import uuid
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

from ... import __version__
from .. import rows
from ..codebook.codes import KEY_RE, MAX_CODES, Code, Codebook, code_from_dict, validate_codes
from ..errors import CodebookError, InputError

CODEBOOK_NS = "urn:QDA-XML:codebook:1.0"
PROJECT_NS = "urn:QDA-XML:project:1.0"
CODEBOOK_SCHEMA = "http://schema.qdasoftware.org/versions/Codebook/v1.0/Codebook.xsd"
PROJECT_SCHEMA = "http://schema.qdasoftware.org/versions/Project/v1.0/Project.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
#: the ``origin`` sense7-coder writes into its REFI-QDA files: the program and its version
ORIGIN = f"sense7-coder {__version__}"
MARKER = "[sense7-coder] "
NA_CHILD = "NA = not applicable"
_GUID_NS = uuid.uuid5(uuid.NAMESPACE_URL, "https://schema.qdasoftware.org/sense7-coder")
_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
#: a level's child code: "3", "3 = warm", "3: warm", "3) warm", "3 warm" (not "2022-05-10")
_LEVEL_NAME = re.compile(r"^\s*(-?\d+)\s*(?:(?:=|:|\)|\.|-|–)\s*|\s)?\s*([^\d\s=:).\-–].*?)?\s*$")
#: what a name from another tool may hold that becomes one space (line breaks, tabs)
_BREAKS = re.compile(r"[\r\n\t\v\f\x1c-\x1e\x85\u2028\u2029]+")
_COLOR = re.compile(r"^#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$")
#: Code fields carried in the description's ``[sense7-coder]`` paragraph
_EXTRA_FIELDS = ("key", "kind", "unit", "applies_to", "allow_na", "include", "exclude",
                 "examples", "shortcut", "user_rating", "retired")


def guid(*parts: object) -> str:
    """A stable GUID for a thing named by ``parts`` (same parts, same GUID)."""
    return str(uuid.uuid5(_GUID_NS, "\x1f".join(str(p) for p in parts))).upper()


def code_guid(key: str) -> str:
    return guid("code", key)


def level_guid(key: str, value: object) -> str:
    """The child code of a level (``None`` = not applicable)."""
    return guid("level", key, "NA" if value is None else f"{type(value).__name__}:{value}")


def xml_text(s: object) -> str:
    return _ILLEGAL_XML.sub("\ufffd", str(s))


def level_name(value: object, label: str) -> str:
    return str(value) if label == str(value) or not label else f"{value} = {label}"


# -- writing a codebook ----------------------------------------------------------------------

def _description(code: Code, shown: str) -> str:
    extra = {name: getattr(code, name) for name in _EXTRA_FIELDS}
    extra = {k: v for k, v in extra.items() if v not in ("", [], None) or k == "key"}
    if shown != code.label:  # the name was made unique: the label as it is
        extra["label"] = code.label
    if code.kind == "binary":  # no child codes: its two levels' labels ride here
        extra["levels"] = [{"value": lv.value, "label": lv.label, "description": lv.description}
                           for lv in code.levels]
    else:  # the values as they are, so that any label reads back from "<value> = <label>"
        extra["values"] = code.values
        if any(lv.label in ("", str(lv.value)) for lv in code.levels):
            # a child named "<value>" alone: its label is empty or the value itself
            extra["labels"] = [lv.label for lv in code.levels]
    marker = MARKER + json.dumps(extra, ensure_ascii=False, sort_keys=True)
    return f"{code.description}\n\n{marker}" if code.description else marker


def shown_names(codes: Sequence[Code]) -> dict[str, str]:
    """Each code's name in a REFI file (key -> name): its label, or ``"<label> (<key>)"``
    where two codes share a label. QualCoder and ATLAS.ti keep one code per name (a second
    code of the same name takes the first one's codings), so every name is unique."""
    seen: dict[str, int] = {}
    for c in codes:
        seen[c.label.casefold()] = seen.get(c.label.casefold(), 0) + 1
    return {c.key: c.label if seen[c.label.casefold()] == 1 else f"{c.label} ({c.key})"
            for c in codes}


def level_child_name(parent: str, value: object, label: str) -> str:
    """A level's child code name, unique in the file: ``"Warmth: 3 = warm"``."""
    return f"{parent}: {level_name(value, label)}"


def code_element(ns: str, code: Code, shown: str | None = None) -> ET.Element:
    """The code as a REFI ``Code`` (``shown``: its name in the file, unique there)."""
    shown = shown or code.label
    levels = code.kind != "binary"
    el = ET.Element(f"{{{ns}}}Code", {
        "guid": code_guid(code.key), "name": xml_text(shown),
        "isCodable": "false" if levels else "true",
    })
    if code.color:
        el.set("color", code.color.upper())
    ET.SubElement(el, f"{{{ns}}}Description").text = xml_text(_description(code, shown))
    if not levels:
        return el
    children: list[tuple[int | str | None, str, str]] = [
        (lv.value, level_child_name(shown, lv.value, lv.label), lv.description)
        for lv in code.levels]
    if code.allow_na:
        children.append((None, f"{shown}: {NA_CHILD}", ""))
    for value, name, description in children:
        child = ET.SubElement(el, f"{{{ns}}}Code", {
            "guid": level_guid(code.key, value), "name": xml_text(name), "isCodable": "true"})
        if code.color:
            child.set("color", code.color.upper())
        if description:
            ET.SubElement(child, f"{{{ns}}}Description").text = xml_text(description)
    return el


def code_sets(ns: str, codes: Sequence[Code]) -> ET.Element | None:
    """Groups as sets of codes (the codebook schema names a member by ``guid``, the
    project schema by ``targetGUID``)."""
    groups: dict[str, list[Code]] = {}
    for c in codes:
        if c.group:
            groups.setdefault(c.group, []).append(c)
    if not groups:
        return None
    sets = ET.Element(f"{{{ns}}}Sets")
    for name, members in groups.items():
        s = ET.SubElement(sets, f"{{{ns}}}Set", {"guid": guid("set", name), "name": xml_text(name)})
        attr = "guid" if ns == CODEBOOK_NS else "targetGUID"
        for c in members:
            ET.SubElement(s, f"{{{ns}}}MemberCode", {attr: code_guid(c.key)})
    return sets


def xml_bytes(root: ET.Element, default_ns: str) -> bytes:
    ET.register_namespace("", default_ns)
    ET.register_namespace("xsi", XSI)
    ET.indent(root, space="  ")
    out = io.BytesIO()
    ET.ElementTree(root).write(out, encoding="utf-8", xml_declaration=True)
    return out.getvalue()


def codebook_qdc(codebook: Codebook, origin: str = "sense7-coder") -> bytes:
    """The codebook as a REFI-QDA ``.qdc`` document (UTF-8 XML)."""
    root = ET.Element(f"{{{CODEBOOK_NS}}}CodeBook", {
        "origin": origin, f"{{{XSI}}}schemaLocation": f"{CODEBOOK_NS} {CODEBOOK_SCHEMA}"})
    codes = ET.SubElement(root, f"{{{CODEBOOK_NS}}}Codes")
    shown = shown_names(codebook.codes)
    for code in codebook.codes:
        codes.append(code_element(CODEBOOK_NS, code, shown[code.key]))
    sets = code_sets(CODEBOOK_NS, codebook.codes)
    if sets is not None:
        root.append(sets)
    return xml_bytes(root, CODEBOOK_NS)


# -- reading a codebook ----------------------------------------------------------------------

#: the deepest nesting of elements read (a codebook's code tree is a few levels deep)
MAX_XML_DEPTH = 200


def parse_xml(data: bytes, where: str) -> tuple[ET.Element, dict[int, int]]:
    """Parse XML that declares no DTD or entities; returns the root and each element's
    line (by ``id``). Raises :class:`CodebookError` naming ``where`` and the line."""
    lines: list[int] = []
    checker = expat.ParserCreate()

    def refuse(*_: Any) -> None:
        raise CodebookError(f"{where}, line {checker.CurrentLineNumber}: the file declares a "
                            "DTD or entities, which are not read (a REFI-QDA file has none)")

    checker.StartDoctypeDeclHandler = refuse
    checker.EntityDeclHandler = refuse
    depth = 0

    def start(*_: Any) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_XML_DEPTH:  # reading it (and its codes) would exhaust Python's stack
            raise CodebookError(f"{where}, line {checker.CurrentLineNumber}: elements nested "
                                f"more than {MAX_XML_DEPTH} deep")
        lines.append(checker.CurrentLineNumber)

    def end(*_: Any) -> None:
        nonlocal depth
        depth -= 1

    checker.StartElementHandler = start
    checker.EndElementHandler = end
    try:
        checker.Parse(data, True)
    except expat.ExpatError as e:
        raise CodebookError(f"{where}, line {e.lineno}: not well-formed XML "
                            f"({expat.ErrorString(e.code)})") from None
    root = ET.fromstring(data)
    return root, {id(el): line for el, line in zip(root.iter(), lines, strict=False)}


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _children(el: ET.Element, name: str) -> list[ET.Element]:
    return [c for c in el if _local(c.tag) == name]


def _desc(el: ET.Element) -> str:
    d = _children(el, "Description")
    return (d[0].text or "").strip() if d else ""


def _color(value: str | None) -> str:
    m = _COLOR.match((value or "").strip())
    if not m:
        return ""
    hexes = m.group(1)
    if len(hexes) == 3:
        hexes = "".join(ch * 2 for ch in hexes)
    return "#" + hexes.lower()


def _slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    if not s or not s[0].isalpha():
        s = "c_" + s if s else "code"
    return re.sub(r"_+", "_", s)[:40].rstrip("_")


@dataclass
class _Found:
    data: dict[str, Any]
    line: int
    parents: list[str] = field(default_factory=list)
    guid: str = ""


def _split_marker(text: str) -> tuple[str, dict[str, Any] | None]:
    head, sep, tail = text.rpartition(MARKER)
    if not sep:
        return text, None
    try:
        extra = json.loads(tail.strip())
    except json.JSONDecodeError:
        return text, None
    return head.strip(), extra if isinstance(extra, dict) else None


def child_level_name(parent: str, child: str) -> str:
    """A child code's name without its parent's name before it (``"Warmth: 3 = warm"``
    under ``Warmth`` reads ``"3 = warm"``; QualCoder needs unique names, so tools and
    people write levels this way)."""
    for name in dict.fromkeys((parent, parent.strip(), " ".join(parent.split()))):
        for sep in (": ", ":", " - ", " "):
            if name and child.startswith(name + sep) and child[len(name) + len(sep):].strip():
                return child[len(name) + len(sep):]  # as it is: a label may end in a space
    return child


def _known_levels(children: list[ET.Element], values: list[Any], parent: str = ""
                  ) -> tuple[list[dict[str, Any]], bool] | None:
    """Levels of a code sense7-coder wrote, whose values its marker lists: each child is
    ``"<value>"`` or ``"<value> = <label>"`` in order, whatever the label starts with (a
    digit, ``-``, ``=``) or holds; then perhaps the not-applicable child. None when the
    children are not that (renamed in another tool: read them as any other file's)."""
    names = [child_level_name(parent, child.get("name", "")) for child in children]
    allow_na = len(names) == len(values) + 1 and names[-1].strip() == NA_CHILD
    if len(names) - allow_na != len(values) or any(_children(c, "Code") for c in children):
        return None
    levels = []
    for value, name, child in zip(values, names, children, strict=False):
        if not isinstance(value, int | str) or isinstance(value, bool):
            return None
        head = str(value)
        if name == head:
            label = head
        elif name.startswith(head + " = "):
            label = name[len(head) + 3:]
        else:
            return None
        levels.append({"value": value, "label": label, "description": _desc(child)})
    return levels, allow_na


#: the exact form sense7-coder writes: "<value> = <label>", the label as it is
_WRITTEN_LEVEL = re.compile(r"^(-?\d+) = (.+)$", re.S)


#: the names a child code for "not applicable" goes by
NA_NAMES = frozenset({NA_CHILD.casefold(), "na", "n/a", "not applicable", "n.a.", "na = n/a"})


def level_value(name: str, kind: str = "ordinal") -> tuple[Any, str] | None:
    """(value, label) a level child's name (its parent's name taken off) says, or None:
    ``"1 = low"``, ``"2 medium"``, ``"3: high"``, ``"4) very high"``; for a nominal code
    ``"<value> = <label>"`` or a bare value. The same reading for the codebook and for each
    coding, so a level read in one is found in the other."""
    name = name.strip()
    written = _WRITTEN_LEVEL.match(name) if kind != "nominal" else None
    if written:
        return int(written.group(1)), written.group(2)
    if kind == "nominal":
        value, _, label = name.partition(" = ")
        return (value.strip(), (label or value).strip()) if value.strip() else None
    m = _LEVEL_NAME.match(name)
    return (int(m.group(1)), m.group(2) or m.group(1)) if m else None


def _levels(children: list[ET.Element], kind: str, parent: str = ""
            ) -> tuple[list[dict[str, Any]], bool] | None:
    """Levels from child codes named ``"<value> = <label>"``; None when they are not."""
    levels: list[dict[str, Any]] = []
    allow_na = False
    for child in children:
        if _children(child, "Code"):
            return None
        name = child_level_name(parent, child.get("name", "")).strip()
        if name.casefold() in NA_NAMES:
            allow_na = True
            continue
        found = level_value(name, kind)
        if found is None:
            return None
        levels.append({"value": found[0], "label": found[1], "description": _desc(child)})
    if len({str(lv["value"]) for lv in levels}) != len(levels):
        return None  # the same number twice: not a scale
    return (levels, allow_na) if len(levels) >= 2 or (kind == "nominal" and levels) else None


def _restored(base: dict[str, Any], extra: dict[str, Any], children: list[ET.Element],
              where: str, written: str) -> dict[str, Any]:
    """A code sense7-coder wrote, from its name (``written``: as in the file), colour,
    description and marker."""
    name = base["label"]
    data = {**base, **{k: v for k, v in extra.items() if k in _EXTRA_FIELDS}}
    if isinstance(extra.get("label"), str) and extra["label"].strip():
        data["label"] = extra["label"]
    kind = str(data.get("kind", "binary"))
    if kind == "binary" and isinstance(extra.get("levels"), list):
        data["levels"] = extra["levels"]
    if kind != "binary":
        values = extra.get("values")
        found = ((_known_levels(children, values, written) if isinstance(values, list)
                  else None) or _levels(children, kind, written))
        if found is None:
            raise CodebookError(f"{where}: code '{name}': its levels (child codes named "
                                "'<value> = <label>') cannot be read")
        data["levels"] = found[0]
        labels = extra.get("labels")
        if isinstance(labels, list) and len(labels) == len(found[0]) and all(
                isinstance(x, str) for x in labels):
            for level, label in zip(found[0], labels, strict=True):
                level["label"] = label
    return data


def _walk(el: ET.Element, parents: list[str], lines: dict[int, int],
          out: list[_Found], where: str) -> None:
    name = _BREAKS.sub(" ", el.get("name", "")).strip()  # a line break or tab: a space
    odd = rows.odd_character(name)
    if odd is not None:
        raise CodebookError(f"{where}, line {lines.get(id(el), 0)}: the code name "
                            f"{name[:40]!r} holds the character {odd} (a control, "
                            "zero-width or direction character)")
    children = _children(el, "Code")
    description, extra = _split_marker(_desc(el))
    base = {"label": name, "description": description, "color": _color(el.get("color"))}
    line = lines.get(id(el), 0)
    if extra is not None:  # written by sense7-coder: restore it whole
        data = _restored(base, extra, children, f"{where}, line {line}", el.get("name", ""))
        out.append(_Found(data, line, parents, el.get("guid", "")))
        return
    found = _levels(children, "ordinal", el.get("name", "")) if children else None
    if found is not None:
        levels, allow_na = found
        out.append(_Found({**base, "kind": "ordinal", "levels": levels, "allow_na": allow_na},
                          line, parents, el.get("guid", "")))
        return
    if not children or el.get("isCodable", "true").strip().lower() in ("true", "1"):
        out.append(_Found({**base, "kind": "binary"}, line, parents, el.get("guid", "")))
    for child in children:
        _walk(child, [*parents, name], lines, out, where)


def codebook_from_qdc(data: bytes, where: str, name: str = "") -> Codebook:
    """A codebook from a REFI-QDA ``.qdc`` (or the code book of a ``project.qde``).

    Raises :class:`CodebookError` naming ``where``, the line and the code."""
    root, lines = parse_xml(data, where)
    tag = _local(root.tag)
    ns = root.tag[1:].partition("}")[0] if root.tag.startswith("{") else ""
    sets_parent = root  # a project keeps its sets beside the code book
    if tag == "Project" and ns in (PROJECT_NS, ""):
        books = _children(root, "CodeBook")
        if not books:
            raise CodebookError(f"{where}: the project holds no code book")
        root = books[0]
    elif tag != "CodeBook" or ns not in (CODEBOOK_NS, ""):
        raise CodebookError(f"{where}, line {lines.get(id(root), 1)}: not a REFI-QDA codebook "
                            f"(root element {tag!r} in namespace {ns or 'none'!r}; expected "
                            f"CodeBook in {CODEBOOK_NS!r})")
    code_lists = _children(root, "Codes")
    found: list[_Found] = []
    for codes in code_lists:
        for el in _children(codes, "Code"):
            _walk(el, [], lines, found, where)
    if not found:
        raise CodebookError(f"{where}: the codebook holds no codes")
    if len(found) > MAX_CODES:
        raise CodebookError(f"{where}: {len(found):,} codes; a codebook has at most "
                            f"{MAX_CODES:,} codes")
    groups = {guid_.strip("{}").upper(): s.get("name", "")
              for sets in _children(sets_parent, "Sets") for s in _children(sets, "Set")
              for m in _children(s, "MemberCode")
              if (guid_ := m.get("guid") or m.get("targetGUID"))}
    used: set[str] = set()
    codes_out: list[Code] = []
    for item in found:
        fields = dict(item.data)
        if not fields.get("label"):
            raise CodebookError(f"{where}, line {item.line}: a code without a name")
        key = str(fields.get("key") or "")
        if not KEY_RE.match(key) or key in used:
            key = _unique(_slug(key or fields["label"]), used)
        used.add(key)
        fields["key"] = key
        if item.parents:
            fields["group"] = " / ".join(item.parents)
        else:  # a set the code belongs to (sense7-coder writes groups as sets)
            fields["group"] = groups.get(item.guid.strip("{}").upper(), "")
        codes_out.append(code_from_dict(fields, f"{where}, line {item.line}: code"))
    validate_codes(codes_out, where)
    stem = name or Path(where).stem
    return Codebook(name=stem, codes=codes_out,
                    title=f"imported from {root.get('origin') or 'a REFI-QDA codebook'}")


def _unique(key: str, used: set[str]) -> str:
    if key not in used:
        return key
    n = 2
    while f"{key[:36]}_{n}" in used:
        n += 1
    return f"{key[:36]}_{n}"


#: the largest code book read from a ``.qdc`` or from a ``.qdpx``'s ``project.qde``
MAX_QDC_BYTES = 64 * 1024 * 1024


def load_qdc(path: str | Path) -> Codebook:
    """The codebook of a REFI-QDA ``.qdc`` file, or of the project inside a ``.qdpx``."""
    from ..file_reading import read_bytes, regular_file

    path = Path(path)
    try:
        size = regular_file(path).st_size
        if path.suffix.lower() == ".qdpx":
            with zipfile.ZipFile(path) as z:
                try:
                    member = z.getinfo("project.qde")
                except KeyError:
                    raise CodebookError(
                        f"{path}: not a REFI-QDA project (no project.qde)") from None
                if member.file_size > MAX_QDC_BYTES:
                    raise CodebookError(f"{path}: project.qde unpacks to "
                                        f"{member.file_size:,} bytes; at most "
                                        f"{MAX_QDC_BYTES // 2**20} MiB are read")
                data = z.read(member)
        else:
            if size > MAX_QDC_BYTES:
                raise CodebookError(f"{path}: {size:,} bytes; a codebook file has at most "
                                    f"{MAX_QDC_BYTES // 2**20} MiB")
            data = read_bytes(path, MAX_QDC_BYTES + 1)
    except InputError as e:
        if e.message in ("no such file", "is a folder, not a file"):
            raise CodebookError(f"{path}: {e.message.replace('file', 'codebook file')}") from None
        raise CodebookError(str(e)) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError,
            RuntimeError) as e:  # RuntimeError: an encrypted member
        raise CodebookError(f"{path}: not a REFI-QDA project (not a readable zip: {e})") from None
    except OSError as e:
        raise CodebookError(f"{path}: cannot be read ({e.strerror or e})") from None
    return codebook_from_qdc(data, str(path))
