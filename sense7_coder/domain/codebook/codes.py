"""Codebooks: the codes coders apply, their scales and their guidance.

File format (JSON, written by hand; documented in the README)::

    {
      "format": "sense7-codebook/1",
      "name": "sense7",
      "title": "SENSE-7 observable empathy",
      "description": "...",
      "codes": [
        {
          "key": "affective",            # [a-z0-9_], no "__", unique; what exports and merges match on
          "label": "Affective understanding",
          "kind": "ordinal",             # ordinal | nominal | binary
          "unit": "turn",                # turn | sentence | conversation | span
          "applies_to": "assistant",     # assistant | user | any  (turn/sentence codes)
          "levels": [{"value": 1, "label": "very poor", "description": "..."}, ...],
          "allow_na": true,              # may a coder mark it "not applicable"?
          "description": "...", "include": "...", "exclude": "...",
          "examples": ["..."],
          "shortcut": "A", "color": "#c0392b",
          "group": "affective",          # optional grouping
          "user_rating": "affective"     # which of the users' own ratings it corresponds to
        }
      ]
    }

Ordinal codes have integer level values; binary codes have levels 0 (absent) and 1
(present), filled in when omitted; nominal codes have string level values.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CodebookError

FORMAT = "sense7-codebook/1"
KINDS = ("ordinal", "nominal", "binary")
UNITS = ("turn", "sentence", "conversation", "span")
APPLIES_TO = ("assistant", "user", "any")
#: the roles of a conversation's turns ("any" in ``applies_to`` is every one of them)
TURN_ROLES = ("user", "assistant", "system")
#: no "__" in a key: the wide export names its columns <code>__<coder>
KEY_RE = re.compile(r"^(?!.*__)[a-z][a-z0-9_]{0,39}$")
COLOR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")
#: the most levels one code may have (agreement tables grow with the square of it)
MAX_LEVELS = 1000
#: the most codes a codebook may have
MAX_CODES = 1000
#: the largest whole-number level either way (agreement computes in floats, which hold
#: every whole number up to 2**53 exactly)
MAX_LEVEL_VALUE = 10**15
#: the largest codebook file read
MAX_CODEBOOK_BYTES = 16 * 1024 * 1024


def _reads_as_na(text: str) -> bool:
    """Is this cell "not applicable" (empty, NA, N/A, not applicable; any case)?"""
    text = text.strip()
    return text == "" or text.upper() in {"NA", "N/A"} or text.lower() == "not applicable"


@dataclass
class Level:
    value: int | str
    label: str
    description: str = ""


@dataclass
class Code:
    key: str
    label: str
    kind: str = "ordinal"
    unit: str = "turn"
    levels: list[Level] = field(default_factory=list)
    allow_na: bool = True
    applies_to: str = "assistant"
    description: str = ""
    include: str = ""
    exclude: str = ""
    examples: list[str] = field(default_factory=list)
    shortcut: str = ""
    color: str = ""
    group: str = ""
    user_rating: str | None = None
    retired: bool = False

    # -- scale helpers -------------------------------------------------------------------
    @property
    def values(self) -> list[int | str]:
        return [lv.value for lv in self.levels]

    @property
    def measurement_level(self) -> str:
        """Krippendorff level of measurement implied by the kind."""
        return "ordinal" if self.kind == "ordinal" else "nominal"

    def level_label(self, value: int | str | None) -> str:
        if value is None:
            return "not applicable"
        for lv in self.levels:
            if lv.value == value:
                return lv.label
        return str(value)

    def parse_value(self, raw: Any) -> int | str | None:
        """Turn user input (a level value or label; empty/NA = not applicable) into a value.

        Raises ValueError with a readable reason when the value is not on the scale.
        """
        is_nan = isinstance(raw, float) and raw != raw  # NaN from pandas
        text = "" if raw is None or is_nan else str(raw).strip()
        if _reads_as_na(text):
            if not self.allow_na:
                raise ValueError(f"code '{self.key}' does not allow not-applicable")
            return None
        # a value first, then a label: a level labelled like another level's value ("2"
        # for value 1) must not take the cells that name that value (what exports write)
        for lv in self.levels:
            if text == str(lv.value):
                return lv.value
        for lv in self.levels:
            if text.casefold() == lv.label.casefold():
                return lv.value
        if self.kind in ("ordinal", "binary"):
            try:
                number = float(text)
            except ValueError:
                number = None
            if number is not None and number.is_integer() and int(number) in self.values:
                return int(number)
            if self.kind == "binary" and text.casefold() in {"true", "yes", "present"}:
                return 1
            if self.kind == "binary" and text.casefold() in {"false", "no", "absent"}:
                return 0
        allowed = ", ".join(str(v) for v in self.values[:20])
        if len(self.values) > 20:
            allowed += ", ..."
        shown = text if len(text) <= 60 else f"{text[:60]}... ({len(text):,} characters)"
        raise ValueError(f"'{shown}' is not a level of code '{self.key}' (allowed: {allowed})")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Codebook:
    name: str
    codes: list[Code]
    title: str = ""
    description: str = ""

    def code(self, key: str) -> Code:
        for c in self.codes:
            if c.key == key:
                return c
        raise KeyError(key)

    def get(self, key: str) -> Code | None:
        return next((c for c in self.codes if c.key == key), None)

    @property
    def active(self) -> list[Code]:
        return [c for c in self.codes if not c.retired]

    @property
    def codable_roles(self) -> tuple[str, ...]:
        """Roles of the turns that turn- or sentence-level codes apply to (sorted)."""
        roles: set[str] = set()
        for code in self.active:
            if code.unit in ("turn", "sentence"):
                roles.update(TURN_ROLES if code.applies_to == "any" else (code.applies_to,))
        return tuple(sorted(roles))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "codes": [c.to_dict() for c in self.codes],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"


# -- building and validating -----------------------------------------------------------------

def _too_large() -> str:
    return (f"a whole-number level is at most {MAX_LEVEL_VALUE:,} either way (numbers "
            "beyond cannot be told apart in agreement)")


def default_levels(kind: str) -> list[Level]:
    if kind == "binary":
        return [Level(0, "absent"), Level(1, "present")]
    if kind == "ordinal":
        return [Level(i, str(i)) for i in range(1, 6)]
    return []


def parse_levels_spec(spec: str, kind: str) -> list[Level]:
    """Parse the command line's ``--levels``: ``1..5`` or ``a,b,c``."""
    spec = spec.strip()
    m = re.fullmatch(r"(-?\d{1,18})\s*\.\.\s*(-?\d{1,18})", spec)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        if max(abs(lo), abs(hi)) > MAX_LEVEL_VALUE:
            raise CodebookError(f"levels '{spec}': {_too_large()}")
        if hi <= lo:
            raise CodebookError(f"levels '{spec}': the upper bound must exceed the lower")
        if hi - lo + 1 > MAX_LEVELS:
            raise CodebookError(f"levels '{spec}': {hi - lo + 1:,} levels; a code has at "
                                f"most {MAX_LEVELS:,} levels")
        return [Level(i, str(i)) for i in range(lo, hi + 1)]
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if not items:
        raise CodebookError(f"levels '{spec}': give a range like 1..5 or a list like a,b,c")
    if len(items) > MAX_LEVELS:
        raise CodebookError(f"levels: {len(items):,} levels; a code has at most "
                            f"{MAX_LEVELS:,} levels")
    if kind in ("ordinal", "binary"):
        if all(re.fullmatch(r"[+-]?\d{1,18}", s) for s in items):
            if any(abs(int(s)) > MAX_LEVEL_VALUE for s in items):
                raise CodebookError(f"levels '{spec}': {_too_large()}")
            return [Level(int(s), s) for s in items]
        raise CodebookError(f"levels '{spec}': {kind} codes need whole-number levels")
    return [Level(s, s) for s in items]


def code_from_dict(data: Any, where: str = "code") -> Code:
    """Build and validate one code from its JSON form. Raises CodebookError."""
    if not isinstance(data, dict):
        raise CodebookError(f"{where}: expected an object")
    key = data.get("key")
    if not isinstance(key, str) or not KEY_RE.match(key):
        raise CodebookError(
            f"{where}: field 'key' must be lower-case letters, digits and _ "
            f"(starting with a letter, at most 40, no '__'), got {key!r}"
        )
    where = f"{where} '{key}'"
    known = set(Code.__dataclass_fields__)
    unknown = set(data) - known
    if unknown:
        raise CodebookError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    kind = data.get("kind", "ordinal")
    if kind not in KINDS:
        raise CodebookError(f"{where}: field 'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
    unit = data.get("unit", "turn")
    if unit not in UNITS:
        raise CodebookError(f"{where}: field 'unit' must be one of {', '.join(UNITS)}, got {unit!r}")
    applies_to = data.get("applies_to", "assistant")
    if applies_to not in APPLIES_TO:
        raise CodebookError(
            f"{where}: field 'applies_to' must be one of {', '.join(APPLIES_TO)}, got {applies_to!r}"
        )
    raw_levels = data.get("levels")
    if raw_levels is None:
        levels = default_levels(kind)
    else:
        if not isinstance(raw_levels, list):
            raise CodebookError(f"{where}: field 'levels' must be a list")
        if len(raw_levels) > MAX_LEVELS:
            raise CodebookError(f"{where}: {len(raw_levels):,} levels; a code has at most "
                                f"{MAX_LEVELS:,} levels")
        levels = []
        for i, lv in enumerate(raw_levels, 1):
            if not isinstance(lv, dict) or "value" not in lv:
                raise CodebookError(f"{where}: level {i} needs a 'value'")
            value = lv["value"]
            if kind in ("ordinal", "binary"):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise CodebookError(
                        f"{where}: level {i} value must be a whole number for a {kind} code, got {value!r}"
                    )
                if abs(value) > MAX_LEVEL_VALUE:
                    raise CodebookError(f"{where}: level {i}: {_too_large()}")
            elif not isinstance(value, str) or not value.strip():
                raise CodebookError(f"{where}: level {i} value must be a non-empty text for a nominal code")
            elif _reads_as_na(value):
                raise CodebookError(
                    f"{where}: level {i} value {value!r} would read as 'not applicable' in "
                    "files of codings; give the level another value (use allow_na for "
                    "not applicable)"
                )
            levels.append(Level(value, str(lv.get("label", value)), str(lv.get("description", ""))))
    if len(levels) < 2:
        raise CodebookError(f"{where}: a code needs at least two levels")
    values = [lv.value for lv in levels]
    if len(set(values)) != len(values):
        raise CodebookError(f"{where}: level values must be unique")
    if kind == "ordinal" and values != sorted(values):
        raise CodebookError(
            f"{where}: ordinal levels must be declared in order, lowest first (got "
            f"{', '.join(map(str, values))}); agreement and ICC read the order from the list"
        )
    if kind == "binary" and set(values) != {0, 1}:
        raise CodebookError(f"{where}: a binary code has exactly the levels 0 and 1")
    color = data.get("color", "") or ""
    if color and not COLOR_RE.match(color):
        raise CodebookError(f"{where}: field 'color' must look like #rrggbb, got {color!r}")
    shortcut = data.get("shortcut", "") or ""
    if shortcut and (len(shortcut) != 1 or not shortcut.isalpha()):
        raise CodebookError(f"{where}: field 'shortcut' must be a single letter, got {shortcut!r}")
    examples = data.get("examples", [])
    if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
        raise CodebookError(f"{where}: field 'examples' must be a list of texts")
    label = data.get("label") or key
    return Code(
        key=key,
        label=str(label),
        kind=kind,
        unit=unit,
        levels=levels,
        allow_na=bool(data.get("allow_na", kind != "binary")),
        applies_to=applies_to,
        description=str(data.get("description", "")),
        include=str(data.get("include", "")),
        exclude=str(data.get("exclude", "")),
        examples=list(examples),
        shortcut=shortcut.upper(),
        color=color,
        group=str(data.get("group", "") or ""),
        user_rating=data.get("user_rating") or None,
        retired=bool(data.get("retired", False)),
    )


def codebook_from_dict(data: Any, where: str = "codebook") -> Codebook:
    if not isinstance(data, dict):
        raise CodebookError(f"{where}: expected a JSON object with 'name' and 'codes'")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise CodebookError(f"{where}: field 'format' must be {FORMAT!r}, got {fmt!r}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CodebookError(f"{where}: field 'name' is required")
    raw_codes = data.get("codes")
    if not isinstance(raw_codes, list) or not raw_codes:
        raise CodebookError(f"{where}: field 'codes' must be a non-empty list")
    if len(raw_codes) > MAX_CODES:
        raise CodebookError(f"{where}: {len(raw_codes):,} codes; a codebook has at most "
                            f"{MAX_CODES:,} codes")
    codes = [code_from_dict(c, f"{where}, code {i}") for i, c in enumerate(raw_codes, 1)]
    validate_codes(codes, where)
    return Codebook(
        name=name.strip(),
        codes=codes,
        title=str(data.get("title", "")),
        description=str(data.get("description", "")),
    )


def validate_codes(codes: list[Code], where: str = "codebook") -> None:
    """Checks across codes: unique keys and unique shortcuts among active codes."""
    seen: set[str] = set()
    shortcuts: dict[str, str] = {}
    for c in codes:
        if c.key in seen:
            raise CodebookError(f"{where}: code key '{c.key}' appears twice")
        seen.add(c.key)
        if c.shortcut and not c.retired:
            if c.shortcut in shortcuts:
                raise CodebookError(
                    f"{where}: shortcut '{c.shortcut}' is used by both '{shortcuts[c.shortcut]}' and '{c.key}'"
                )
            shortcuts[c.shortcut] = c.key


#: letters the coding workspace keeps for itself (N: not applicable, D: done and next, Y:
#: take a model's suggestion), never given to a code by default
WORKSPACE_KEYS = frozenset("DNY")


def free_shortcut(codes: list[Code], *names: str) -> str:
    """A letter no active code of ``codes`` uses and the workspace does not keep: the
    first such letter of ``names`` (a code's key, its label), else the first of the
    alphabet; "" when every letter is taken."""
    taken = {c.shortcut for c in codes if c.shortcut and not c.retired} | WORKSPACE_KEYS
    candidates = [ch.upper() for name in names for ch in name if ch.isascii() and ch.isalpha()]
    candidates += [chr(n) for n in range(ord("A"), ord("Z") + 1)]
    return next((ch for ch in candidates if ch not in taken), "")


def stored_levels(text: Any, where: str) -> list[Level]:
    """A code's levels as a project file stores them (a JSON list of objects with a
    ``value`` and a ``label``); anything else raises one CodebookError naming the code."""
    try:
        raw = json.loads(text) if isinstance(text, str | bytes) else None
    except (ValueError, RecursionError):
        raw = None
    if not isinstance(raw, list):
        raise CodebookError(f"{where}: the stored levels are not a JSON list of levels; the "
                            "project file was changed outside sense7-coder")
    if len(raw) > MAX_LEVELS:
        raise CodebookError(f"{where}: {len(raw):,} levels; a code has at most "
                            f"{MAX_LEVELS:,} levels")
    levels = []
    for i, lv in enumerate(raw, 1):
        value = lv.get("value") if isinstance(lv, dict) else None
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise CodebookError(f"{where}: stored level {i} has no whole-number or text "
                                "value; the project file was changed outside sense7-coder")
        if isinstance(value, int) and abs(value) > MAX_LEVEL_VALUE:
            raise CodebookError(f"{where}: stored level {i}: {_too_large()}; the project file "
                                "was changed outside sense7-coder")
        levels.append(Level(value, str(lv.get("label", value)), str(lv.get("description", ""))))
    return levels


def load_codebook(path: str | Path) -> Codebook:
    from ..errors import InputError
    from ..file_reading import decode_text, read_bytes, regular_file

    path = Path(path)
    try:
        if regular_file(path).st_size > MAX_CODEBOOK_BYTES:
            raise CodebookError(f"{path}: {path.stat().st_size:,} bytes; a codebook file has "
                                f"at most {MAX_CODEBOOK_BYTES // 2**20} MiB")
        text = decode_text(path, read_bytes(path, MAX_CODEBOOK_BYTES + 1))
    except InputError as e:
        if e.message in ("no such file", "is a folder, not a file"):
            raise CodebookError(f"{path}: {e.message.replace('file', 'codebook file')}") from None
        raise CodebookError(str(e)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise CodebookError(f"{path}, line {e.lineno}: not valid JSON ({e.msg})") from None
    except RecursionError:
        raise CodebookError(f"{path}: not a codebook (JSON nested too deeply)") from None
    except ValueError as e:  # a number beyond Python's int-string conversion limit
        raise CodebookError(f"{path}: not a codebook ({str(e).split(';')[0]})") from None
    return codebook_from_dict(data, str(path))
