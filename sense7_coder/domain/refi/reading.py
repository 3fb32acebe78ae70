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
* Codes become the codebook (:func:`sense7_coder.domain.refi.qdc.codebook_from_qdc`); codes of
  other tools are span codes that apply to any turn. Users become coders.
* Each ``Coding`` of a ``PlainTextSelection`` (code-point offsets into the source, end
  exclusive) lands on the turns it covers: clipped to each turn's text; a turn code whose
  selection covers its turn is a turn coding, a sentence code's selection of a sentence a
  sentence coding (given by the caller who segments turns), anything else a span. A coding
  of a whole source is a conversation coding. A selection's ``Description`` and notes
  referred to from a selection or a source become memos of their turn or conversation (a
  note holding a selection, QualCoder's annotation, of that passage's turn); notes on no
  source are listed. Cases and sets of documents become attributes; CR LF line ends,
  duplicate GUIDs and odd names are handled in :mod:`.variants`.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..codebook.codes import Code, Codebook
from ..errors import CodebookError, InputError
from ..importers.roles import RoleResolver
from . import qdc as refi
from . import variants as parts
from .writing import EXTRA_VARIABLE

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
    #: what sense7-coder wrote for itself (its ``sense7-coder`` variable), unchecked
    extra: dict[str, Any] | None = None


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
    #: what may not have been read as meant (ambiguous line ends), in words
    warnings: list[str] = field(default_factory=list)


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
            value = _level_of(code, child.get("name", ""),
                              parent.get("name", "") if parent is not None else "")
            if value is not _NO_LEVEL:
                targets[child.get("guid", "").strip("{}").upper()] = (code.key, value)
    return Codebook(book.name, out_codes, book.title, book.description), targets


_NO_LEVEL = object()


def _level_of(code: Code, name: str, parent: str = "") -> Any:
    """The value a coding of the child code ``name`` under ``parent`` means: every
    level-name form the codebook reads (``1 = low``, ``2 medium``, ``3: high``, ``N/A``,
    with or without the parent's name before it)."""
    name = refi.child_level_name(parent, name.strip()).strip()
    if name.casefold() in refi.NA_NAMES:
        return None if code.allow_na else _NO_LEVEL
    for level in code.levels:
        if name in (refi.level_name(level.value, level.label), str(level.value)):
            return level.value
    found = refi.level_value(name, code.kind)
    values = {str(level.value): level.value for level in code.levels}
    if found is not None and str(found[0]) in values:
        return values[str(found[0])]
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
    parts.check_guids(root, lines, where)
    for el in root.iter():
        if refi._local(el.tag) in ("Code", "User", "Variable", "Set", "Case") and el.get("name"):
            parts.clean_name(el.get("name"), refi._local(el.tag), where, lines.get(id(el), 0))
    try:
        codebook, targets = _codes(root, data, f"{where}: project.qde")
    except CodebookError as e:
        raise InputError(where, str(e).removeprefix(f"{where}: ")) from None
    reader = _Reader(root, lines, where, members, resolver, targets)
    reader.project.codebook = codebook
    reader.read_sources()
    reader.finish()
    return reader.project


class _Reader:
    """The state of reading one ``project.qde``."""

    def __init__(self, root: Any, lines: dict[int, int], where: str,
                 members: dict[str, bytes], resolver: RoleResolver | None,
                 targets: dict[str, tuple[str, Any]]) -> None:
        self.root, self.lines, self.where = root, lines, where
        self.members, self.resolver, self.targets = members, resolver, targets
        self.users = {parts.key(u.get("guid")): (u.get("name") or u.get("id") or "").strip()
                      for us in refi._children(root, "Users") for u in refi._children(us, "User")}
        self.variables = {parts.key(v.get("guid")): (v.get("name") or "").strip()
                          for vs in refi._children(root, "Variables")
                          for v in refi._children(vs, "Variable")}
        self.notes = {parts.key(n.get("guid")): n for ns in refi._children(root, "Notes")
                      for n in refi._children(ns, "Note")}
        self.codes = {parts.key(c.get("guid")): c for c in root.iter()
                      if refi._local(c.tag) == "Code"}
        self.used_notes: set[str] = set()
        self.used_users: set[str] = set()
        self.skipped: dict[str, int] = {}
        self.project = RefiProject(root.get("name") or Path(where).stem,
                                   root.get("origin") or "", Codebook("imported", []),
                                   [], [], [], [])

    def skip(self, what: str, n: int = 1) -> None:
        self.skipped[what] = self.skipped.get(what, 0) + n

    def user_of(self, el: Any, fallback: str) -> str:
        name = self.users.get(parts.key(el.get("creatingUser") or el.get("modifyingUser")),
                              "") or fallback
        self.used_users.add(name)
        return name

    def note(self, ref: Any) -> Any:
        g = parts.key(ref.get("targetGUID"))
        found = self.notes.get(g)
        if found is not None:
            self.used_notes.add(g)
        return found

    def read_sources(self) -> None:
        sources = [el for srcs in refi._children(self.root, "Sources") for el in srcs]
        if len(sources) > MAX_SOURCES:
            raise InputError(self.where, f"{len(sources):,} sources; at most "
                             f"{MAX_SOURCES:,} are read")
        for el in sources:
            kind = refi._local(el.tag)
            line = self.lines.get(id(el), 0)
            raw = _text_of(el, self.members, f"{self.where}, project.qde line {line}") \
                if kind == "TextSource" else None
            if raw is None:
                self.skip(f"{kind} sources")
                continue
            self.read_text_source(el, raw, line)

    def _positions(self, sel: Any, line: int) -> tuple[int, int]:
        sline = self.lines.get(id(sel), line)
        try:
            return int(sel.get("startPosition", "")), int(sel.get("endPosition", ""))
        except ValueError:
            raise InputError(self.where, "a selection's positions are not whole numbers",
                             location=f"project.qde line {sline}",
                             field="startPosition") from None

    def read_text_source(self, el: Any, raw: str, line: int) -> None:
        g = parts.key(el.get("guid"))
        name = parts.clean_name(el.get("name") or g, "source", self.where, line) or g
        selections = [(sel, *self._positions(sel, line))
                      for sel in refi._children(el, "PlainTextSelection")]
        text, to_text, warning = parts.line_ends(
            raw, [(a, b) for _s, a, b in selections], self.project.origin, name)
        if warning:
            self.project.warnings.append(warning)
        src = RefiSource(g, name, text, split_turns(text, self.resolver))
        src.variables = parts.variable_values(el, self.variables)
        extra = src.variables.pop(EXTRA_VARIABLE, None)
        if extra is not None:
            src.extra = _extra(extra, self.where, line)
            src.turns = _turns_of(text, src.extra) or src.turns
        self.project.sources.append(src)
        creator = self.user_of(el, "imported") if el.get("creatingUser") else "imported"
        for coding in refi._children(el, "Coding"):
            self.coding(coding, src, None, None, self.user_of(coding, creator))
        for ref in refi._children(el, "NoteRef"):
            self.source_note(ref, src, to_text)
        for sel, a, b in selections:
            start, end = to_text(a), to_text(b)
            if not 0 <= start < end <= len(text):
                raise InputError(self.where, f"the selection {a}-{b} lies outside its source "
                                 f"{src.name!r} ({len(text):,} characters)",
                                 location=f"project.qde line {self.lines.get(id(sel), line)}",
                                 field="endPosition")
            self.selection(sel, src, start, end, creator)

    def selection(self, sel: Any, src: RefiSource, start: int, end: int,
                  creator: str) -> None:
        user = self.user_of(sel, creator) if (sel.get("creatingUser")
                                              or sel.get("modifyingUser")) else creator
        for coding in refi._children(sel, "Coding"):
            self.coding(coding, src, start, end, self.user_of(coding, user))
        memo = refi._desc(sel)  # QualCoder's coding memo, MAXQDA's comment
        if memo:
            self.project.notes.append(RefiNote(user, src.guid, memo, start, end))
        for ref in refi._children(sel, "NoteRef"):
            note = self.note(ref)
            text = parts.note_text(note) if note is not None else ""
            if text:
                self.project.notes.append(RefiNote(self.user_of(note, user), src.guid, text,
                                                   start, end))

    def source_note(self, ref: Any, src: RefiSource, to_text: Any) -> None:
        note = self.note(ref)
        text = parts.note_text(note) if note is not None else ""
        if not text:
            return
        passage = parts.note_passage(note)  # an annotation: on its passage
        start = end = None
        if passage is not None and 0 <= to_text(passage[0]) < to_text(passage[1]) \
                <= len(src.text):
            start, end = to_text(passage[0]), to_text(passage[1])
        self.project.notes.append(RefiNote(self.user_of(note, "imported"), src.guid, text,
                                           start, end))

    def coding(self, coding: Any, src: RefiSource, start: int | None, end: int | None,
               user: str) -> None:
        refs = refi._children(coding, "CodeRef")
        g = parts.key(refs[0].get("targetGUID")) if refs else ""
        target = self.targets.get(g)
        if target is None:
            self.skip(self.unread(g))
            return
        self.project.codings.append(RefiCoding(user, src.guid, target[0], target[1],
                                               start, end))

    def unread(self, g: str) -> str:
        """Why a coding of the code ``g`` is not read, in words."""
        el = self.codes.get(g)
        if el is None:
            return "codings of codes the code book does not hold"
        name = el.get("name", "")
        if refi._children(el, "Code"):
            return f"codings of '{name}' itself, whose levels are its child codes"
        return f"codings of '{name}', which is not read as a level of its parent code"

    def finish(self) -> None:
        project = self.project
        guids = {s.guid for s in project.sources}
        taken = {k for s in project.sources for k in s.variables}
        for attrs in (parts.case_attributes(self.root, guids, self.variables),
                      parts.set_attributes(self.root, guids, taken)):
            for src in project.sources:
                for k, v in attrs.get(src.guid, {}).items():
                    src.variables.setdefault(k, v)
        journals = [n for g, n in self.notes.items() if g not in self.used_notes]
        if journals:
            self.skip("notes on no source (journals, project memos)", len(journals))
        project.users = sorted(self.used_users | {u for u in self.users.values() if u})
        project.skipped = [f"{n} {what}" for what, n in sorted(self.skipped.items())]


def _turns_of(text: str, extra: dict[str, Any]) -> list[RefiTurn] | None:
    """The turns of a source sense7-coder wrote, cut where its ``sense7-coder`` variable
    says (``"Role: "``, the text of its length, a blank line), whatever the texts hold (a
    line starting ``User:`` inside a turn); None when the text is not so made."""
    items = extra.get("turns")
    if not isinstance(items, list):
        return None
    out, at = [], 0
    for item in items:
        if not isinstance(item, dict):
            return None
        role, length = item.get("role"), item.get("length")
        if not isinstance(role, str) or not isinstance(length, int) or length < 0:
            return None
        prefix = f"{role.capitalize() or 'Turn'}: "
        if not text.startswith(prefix, at) or at + len(prefix) + length > len(text):
            return None
        start = at + len(prefix)
        out.append(RefiTurn(role, None, text[start:start + length], start))
        at = start + length + 2
    return out if at == len(text) else None


def _extra(text: str, where: str, line: int) -> dict[str, Any]:
    """The ``sense7-coder`` variable of a source: a JSON object (checked when used)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise InputError(where, f"the variable '{EXTRA_VARIABLE}' is not a JSON object",
                         location=f"project.qde line {line}", field=EXTRA_VARIABLE)
    return value


def turn_pieces(source: RefiSource, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """(turn position, start, end in the turn's text) of each turn a selection touches."""
    for position, turn in enumerate(source.turns, 1):
        a = max(start, turn.start) - turn.start
        b = min(end, turn.start + len(turn.text)) - turn.start
        if a < b:
            yield position, a, b
