"""Reading a REFI-QDA project (``.qdpx``) written by QualCoder, ATLAS.ti, MAXQDA, NVivo or
sense7-coder itself: checked and bounded before anything is written.

* The zip: at most :data:`MAX_MEMBERS` members and :data:`MAX_TOTAL_BYTES` unpacked (each
  member read with a limit, whatever its header claims), no member name that leaves the
  archive (absolute, ``..``, a drive), no encrypted member; ``project.qde`` required.
* ``project.qde``: XML without DTD or entities (so no entity expansion, "billion laughs"),
  nested at most a few hundred deep, valid against the REFI-QDA project schema (checked by
  ``xmlschema``, a dependency; the schema ships with sense7-coder).
* Text sources (``plainTextPath`` ``internal://NAME`` read from ``sources/NAME``, or
  ``PlainTextContent``) become conversations: split into turns when the text is a
  transcript whose lines start with known speakers (``User:``, ``Assistant:``, ``Seeker:``
  ...), else one ``user`` turn. Other sources (pictures, audio, PDF) are counted and left.
* Codes become the codebook (:func:`sense7_coder.domain.refi.codebook_from_qdc`); codes of
  other tools are span codes that apply to any turn. Users become coders.
* Each ``Coding`` of a ``PlainTextSelection`` (code-point offsets into the source, end
  exclusive) lands on the turns it covers: clipped to each turn's text; a turn code whose
  selection covers its turn is a turn coding, a sentence code's selection of a sentence a
  sentence coding (given by the caller who segments turns), anything else a span. A coding
  of a whole source is a conversation coding. Notes referred to from a selection or a
  source become memos of their turn or conversation.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import refi
from .codebook import Code, Codebook
from .errors import CodebookError, InputError
from .importers.common import RoleResolver

MAX_MEMBERS = 20_000
MAX_TOTAL_BYTES = 1024 * 2**20
MAX_MEMBER_BYTES = 128 * 2**20
MAX_SOURCES = 50_000
_SPEAKER = re.compile(r"(?m)^[ \t]*([^\s:][^:\n]{0,39}?)[ \t]*:[ \t]?")
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass
class RefiTurn:
    role: str
    speaker: str | None
    text: str
    start: int  # where the text begins in its source (code points)


@dataclass
class RefiSource:
    guid: str
    name: str
    text: str
    turns: list[RefiTurn]
    variables: dict[str, Any] = field(default_factory=dict)


@dataclass
class RefiCoding:
    """A code applied by a user to a stretch of a source (``start`` None: the whole of it)."""
    user: str
    source: str
    code: str
    value: Any
    start: int | None = None
    end: int | None = None


@dataclass
class RefiNote:
    user: str
    source: str
    text: str
    start: int | None = None
    end: int | None = None


@dataclass
class RefiProject:
    name: str
    origin: str
    codebook: Codebook
    users: list[str]
    sources: list[RefiSource]
    codings: list[RefiCoding]
    notes: list[RefiNote]
    #: what was left out, in words
    skipped: list[str] = field(default_factory=list)


def _safe_name(name: str) -> bool:
    parts = name.replace("\\", "/").split("/")
    return not (name.startswith(("/", "\\")) or _DRIVE.match(name) or ".." in parts
                or "\x00" in name)


def _read_zip(path: Path) -> dict[str, bytes]:
    """The members of the archive, bounded."""
    where = str(path)
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_MEMBERS:
                raise InputError(where, f"the archive holds {len(infos):,} members; at most "
                                 f"{MAX_MEMBERS:,} are read")
            claimed = sum(i.file_size for i in infos)
            if claimed > MAX_TOTAL_BYTES:
                raise InputError(where, f"the archive unpacks to {claimed:,} bytes; at most "
                                 f"{MAX_TOTAL_BYTES // 2**20} MiB are read")
            out: dict[str, bytes] = {}
            total = 0
            for info in infos:
                if not _safe_name(info.filename):
                    raise InputError(where, f"the member name {info.filename!r} points outside "
                                     "the archive", field="member")
                if info.is_dir():
                    continue
                if info.flag_bits & 0x1:
                    raise InputError(where, f"the member {info.filename!r} is encrypted",
                                     field="member")
                if not (info.filename == "project.qde"
                        or info.filename.startswith("sources/")):
                    continue
                with z.open(info) as fh:
                    data = fh.read(MAX_MEMBER_BYTES + 1)
                total += len(data)
                if len(data) > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
                    raise InputError(where, f"the member {info.filename!r} unpacks to more than "
                                     f"{MAX_MEMBER_BYTES // 2**20} MiB (or the archive to more "
                                     f"than {MAX_TOTAL_BYTES // 2**20} MiB)", field="member")
                out[info.filename] = data
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError,
            RuntimeError, ValueError) as e:
        raise InputError(where, f"not a readable REFI-QDA project (zip: {e})") from None
    except OSError as e:
        raise InputError(where, f"cannot be read ({e.strerror or e})") from None
    if "project.qde" not in out:
        raise InputError(where, "not a REFI-QDA project (no project.qde)")
    return out


def schema_problem(data: bytes, schema_path: Path | None) -> str | None:
    """Why ``project.qde`` breaks the REFI-QDA project schema at ``schema_path`` (None: it
    does not, or the ``xmlschema`` package that checks it is not installed)."""
    if schema_path is None or not schema_path.is_file():
        return None
    try:
        import xmlschema
    except ImportError:
        return None
    import io

    schema = xmlschema.XMLSchema(str(schema_path))
    for error in schema.iter_errors(io.BytesIO(data)):
        line = getattr(getattr(error, "sourceline", None), "__int__", None)
        where = f"line {error.sourceline}: " if line is not None else ""
        return f"{where}{error.reason or error.message} (at {error.path})"
    return None


def split_turns(text: str, resolver: RoleResolver | None = None) -> list[RefiTurn]:
    """The turns of a source text: a transcript whose first line and at least one more
    start with a known speaker (``User:``) is cut at every such line; any other text is
    one turn. Each turn's text is a stretch of the source, blanks around it trimmed."""
    resolver = resolver or RoleResolver({})
    marks = [(m.start(), m.end(), m.group(1).strip()) for m in _SPEAKER.finditer(text)
             if resolver.knows(m.group(1))]
    first = len(text) - len(text.lstrip())
    if len(marks) >= 2 and marks[0][0] <= first + (len(text[first:]) - len(
            text[first:].lstrip(" \t"))):
        out = []
        for i, (_line, body, name) in enumerate(marks):
            stop = marks[i + 1][0] if i + 1 < len(marks) else len(text)
            raw = text[body:stop]
            lead = len(raw) - len(raw.lstrip())
            role = resolver.role(name) or "user"
            out.append(RefiTurn(role, name, raw.strip(), body + lead))
        return [t for t in out if t.text]
    lead = len(text) - len(text.lstrip())
    return [RefiTurn("user", None, text.strip(), lead)] if text.strip() else []


def _codes(root: Any, data: bytes, where: str
           ) -> tuple[Codebook, dict[str, tuple[str, Any]]]:
    """The codebook and, for every code GUID, the (code key, value) a coding of it means
    (a project without codes: an empty codebook)."""
    found: list[refi._Found] = []
    lines: dict[int, int] = {}
    for cb in refi._children(root, "CodeBook"):
        for codes in refi._children(cb, "Codes"):
            for el in refi._children(codes, "Code"):
                refi._walk(el, [], lines, found, where)
    if not found:
        return Codebook(name=root.get("name") or "imported", codes=[],
                        title="imported from a REFI-QDA project"), {}
    book = refi.codebook_from_qdc(data, where)
    elements = {el.get("guid", "").strip("{}").upper(): el for el in root.iter()
                if refi._local(el.tag) == "Code"}
    targets: dict[str, tuple[str, Any]] = {}
    out_codes: list[Code] = []
    for item, code in zip(found, book.codes, strict=True):
        if "unit" not in item.data:  # another tool's code: a span of any turn
            code = replace(code, unit="span", applies_to="any")
        out_codes.append(code)
        g = item.guid.strip("{}").upper()
        if code.kind == "binary":
            targets[g] = (code.key, 1)
            continue
        parent = elements.get(g)
        for child in refi._children(parent, "Code") if parent is not None else []:
            value = _level_of(code, child.get("name", ""))
            if value is not _NO_LEVEL:
                targets[child.get("guid", "").strip("{}").upper()] = (code.key, value)
    return Codebook(book.name, out_codes, book.title, book.description), targets


_NO_LEVEL = object()


def _level_of(code: Code, name: str) -> Any:
    name = name.strip()
    if name in (refi.NA_CHILD, "NA", "N/A", "not applicable"):
        return None if code.allow_na else _NO_LEVEL
    for level in code.levels:
        if name in (refi.level_name(level.value, level.label), str(level.value)):
            return level.value
    head = name.partition(" = ")[0].strip()
    for level in code.levels:
        if head == str(level.value):
            return level.value
    return _NO_LEVEL


def _text_of(el: Any, members: dict[str, bytes], where: str) -> str | None:
    path = el.get("plainTextPath")
    inline = refi._children(el, "PlainTextContent")
    if path:
        if not path.startswith("internal://"):
            return None  # a file outside the archive: not read
        name = "sources/" + path.removeprefix("internal://")
        if name not in members:
            raise InputError(where, f"the source {el.get('name')!r} names {path!r}, which the "
                             "archive does not hold", field="plainTextPath")
        data = members[name]
        return data.decode("utf-8-sig", errors="replace")
    if inline:
        return inline[0].text or ""
    return None


def read_qdpx(path: str | Path, resolver: RoleResolver | None = None,
              schema: Path | None = None) -> RefiProject:
    """Read and check a ``.qdpx``; :class:`InputError` naming the file, line and field."""
    path = Path(path)
    where = str(path)
    members = _read_zip(path)
    data = members["project.qde"]
    try:
        root, lines = refi.parse_xml(data, f"{where}: project.qde")
    except CodebookError as e:
        raise InputError(where, str(e).removeprefix(f"{where}: ")) from None
    if refi._local(root.tag) != "Project":
        raise InputError(where, f"project.qde: the root element is {refi._local(root.tag)!r}, "
                         "not Project")
    problem = schema_problem(data, schema)
    if problem is not None:
        raise InputError(where, f"project.qde breaks the REFI-QDA project schema: {problem}")
    try:
        codebook, targets = _codes(root, data, f"{where}: project.qde")
    except CodebookError as e:
        raise InputError(where, str(e).removeprefix(f"{where}: ")) from None
    users = {u.get("guid", "").strip("{}").upper(): (u.get("name") or u.get("id") or "").strip()
             for us in refi._children(root, "Users") for u in refi._children(us, "User")}
    variables = {v.get("guid", "").strip("{}").upper(): (v.get("name") or "").strip()
                 for vs in refi._children(root, "Variables")
                 for v in refi._children(vs, "Variable")}
    notes = {n.get("guid", "").strip("{}").upper(): n
             for ns in refi._children(root, "Notes") for n in refi._children(ns, "Note")}
    project = RefiProject(root.get("name") or path.stem, root.get("origin") or "",
                          codebook, [], [], [], [])
    used_users: set[str] = set()
    skipped: dict[str, int] = {}

    def user_of(el: Any, fallback: str) -> str:
        name = users.get((el.get("creatingUser") or "").strip("{}").upper(), "") or fallback
        used_users.add(name)
        return name

    def note_text(ref: Any) -> tuple[str, str] | None:
        note = notes.get((ref.get("targetGUID") or "").strip("{}").upper())
        if note is None:
            return None
        content = refi._children(note, "PlainTextContent")
        text = (content[0].text or "").strip() if content else ""
        return (user_of(note, "imported"), text) if text else None

    sources = [el for srcs in refi._children(root, "Sources") for el in srcs]
    if len(sources) > MAX_SOURCES:
        raise InputError(where, f"{len(sources):,} sources; at most {MAX_SOURCES:,} are read")
    for el in sources:
        kind = refi._local(el.tag)
        line = lines.get(id(el), 0)
        text = _text_of(el, members, f"{where}, project.qde line {line}") \
            if kind == "TextSource" else None
        if text is None:
            skipped[f"{kind} sources"] = skipped.get(f"{kind} sources", 0) + 1
            continue
        g = (el.get("guid") or "").strip("{}").upper()
        src = RefiSource(g, (el.get("name") or g).strip(), text, split_turns(text, resolver))
        for vv in refi._children(el, "VariableValue"):
            refs = refi._children(vv, "VariableRef")
            name = variables.get((refs[0].get("targetGUID") or "").strip("{}").upper(), "") \
                if refs else ""
            for value_el in vv:
                if refi._local(value_el.tag).endswith("Value") and name:
                    src.variables[name] = (value_el.text or "").strip()
        project.sources.append(src)
        creator = user_of(el, "imported") if el.get("creatingUser") else "imported"
        for coding in refi._children(el, "Coding"):
            _add_coding(project, targets, coding, src, None, None, user_of(coding, creator),
                        skipped)
        for ref in refi._children(el, "NoteRef"):
            found = note_text(ref)
            if found:
                project.notes.append(RefiNote(found[0], g, found[1]))
        for sel in refi._children(el, "PlainTextSelection"):
            sline = lines.get(id(sel), line)
            try:
                start, end = int(sel.get("startPosition", "")), int(sel.get("endPosition", ""))
            except ValueError:
                raise InputError(where, "a selection's positions are not whole numbers",
                                 location=f"project.qde line {sline}",
                                 field="startPosition") from None
            if not 0 <= start < end <= len(text):
                raise InputError(where, f"the selection {start}-{end} lies outside its source "
                                 f"{src.name!r} ({len(text):,} characters)",
                                 location=f"project.qde line {sline}", field="endPosition")
            sel_user = user_of(sel, creator) if sel.get("creatingUser") else creator
            for coding in refi._children(sel, "Coding"):
                _add_coding(project, targets, coding, src, start, end,
                            user_of(coding, sel_user), skipped)
            for ref in refi._children(sel, "NoteRef"):
                found = note_text(ref)
                if found:
                    project.notes.append(RefiNote(found[0], g, found[1], start, end))
    project.users = sorted(used_users | {u for u in users.values() if u})
    project.skipped = [f"{n} {what}" for what, n in sorted(skipped.items())]
    return project


def _add_coding(project: RefiProject, targets: dict[str, tuple[str, Any]], coding: Any,
                src: RefiSource, start: int | None, end: int | None, user: str,
                skipped: dict[str, int]) -> None:
    refs = refi._children(coding, "CodeRef")
    target = targets.get((refs[0].get("targetGUID") or "").strip("{}").upper()) if refs else None
    if target is None:
        skipped["codings of codes that are not codable"] = skipped.get(
            "codings of codes that are not codable", 0) + 1
        return
    project.codings.append(RefiCoding(user, src.guid, target[0], target[1], start, end))


def turn_pieces(source: RefiSource, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """(turn position, start, end in the turn's text) of each turn a selection touches."""
    for position, turn in enumerate(source.turns, 1):
        a = max(start, turn.start) - turn.start
        b = min(end, turn.start + len(turn.text)) - turn.start
        if a < b:
            yield position, a, b
