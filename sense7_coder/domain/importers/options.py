"""What a person chose for an import: the format, speaker roles and column mapping, and
the parsing of their command-line spellings (``--roles``, ``--map``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import RATING_KEYS, ROLES

#: Fields a ``--map FIELD=COLUMN`` (or a JSON key) may be pointed at.
MAP_FIELDS = (
    "conversation_id",
    "participant_id",
    "model",
    "topic",
    "role",
    "speaker",
    "text",
    "position",
    "time_offset",
    "comment",
    "transcript",
    *RATING_KEYS,
)





@dataclass
class ImportOptions:
    """What the user chose on the command line or in the import dialog.

    ``roles`` maps speaker/role names as written in the file to ``user``/``assistant``/
    ``system``; ``mapping`` maps a field of :data:`MAP_FIELDS` to the column (or JSON key)
    that holds it; ``encoding`` names the files' text encoding when it is not UTF-8.
    """

    format: str = "auto"
    roles: dict[str, str] = field(default_factory=dict)
    mapping: dict[str, str] = field(default_factory=dict)
    #: ``--encoding``: the text encoding of the files (None = UTF-8, others refused)
    encoding: str | None = None


# -- command-line specs -------------------------------------------------------------------------


def _pairs(spec: str, what: str, example: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for item in spec.split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ValueError(
                f"{what} '{spec}': '{item.strip()}' is not NAME=VALUE; "
                f"give comma-separated pairs such as {example}"
            )
        pairs.append((name.strip(), value.strip()))
    return pairs


def parse_roles(spec: str) -> dict[str, str]:
    """Parse ``"Seeker=user,Supporter=assistant"``; raises ValueError with a clear reason."""
    example = "Seeker=user,Supporter=assistant"
    roles: dict[str, str] = {}
    seen: set[str] = set()
    for name, role in _pairs(spec, "speaker roles", example):
        role_key = role.casefold()
        if role_key not in ROLES:
            raise ValueError(
                f"speaker roles '{spec}': role '{role}' for '{name}' must be one of "
                f"{', '.join(ROLES)}"
            )
        if name.casefold() in seen:
            raise ValueError(f"speaker roles '{spec}': '{name}' is given twice")
        seen.add(name.casefold())
        roles[name] = role_key
    return roles


def parse_mapping(spec: str) -> dict[str, str]:
    """Parse ``"text=Content,conversation_id=Conv"``; raises ValueError with a clear reason."""
    mapping: dict[str, str] = {}
    for name, column in _pairs(spec, "column mapping", "text=Content,conversation_id=Conv"):
        key = name.casefold()
        if key not in MAP_FIELDS:
            raise ValueError(
                f"column mapping '{spec}': '{name}' is not a field; fields: "
                f"{', '.join(MAP_FIELDS)}"
            )
        if key in mapping:
            raise ValueError(f"column mapping '{spec}': field '{key}' is given twice")
        mapping[key] = column
    return mapping

