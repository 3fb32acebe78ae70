"""The users' own judgments among a project's attributes, and which attributes coders see.

An importer knows some attributes to be the judgments of the people who had the
conversations: ESConv's per-turn ``feedback`` and its survey scores, a SENSE-7 workbook's
post-task ratings, any attribute read as a rating. The import marks them
(``judgment_attributes``); a blind coder does not see them until the lead chooses to show
one (``shown_attributes``), and a blind coder package never holds them. What the lead hides
besides (``hidden_attributes``) adds to that: coders see what is left, and a blind package
holds only that (an allow-list: an attribute the project does not list as shown never goes
out).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class ProjectRules(Protocol):
    """What this module needs of a project: its settings and its file."""

    pdb: Any

    @property
    def db(self) -> Any: ...

    def setting(self, key: str, default: str | None = None) -> str | None: ...

    def set_setting(self, key: str, value: str | None) -> Any: ...


def _names(raw: str | None) -> list[str]:
    return [n for n in (raw or "").split("\n") if n]


def _text(names: Iterable[str]) -> str:
    return "\n".join(sorted({n.strip() for n in names if n.strip()}))


def judgments(project: ProjectRules) -> list[str]:
    """The attributes the imports marked as the users' own judgments."""
    return _names(project.setting("judgment_attributes"))


def shown(project: ProjectRules) -> list[str]:
    """The judgments the lead chose to show coders."""
    return _names(project.setting("shown_attributes"))


def hidden(project: ProjectRules) -> list[str]:
    """What a blind coder does not see: the attributes the lead hid, and the judgments
    the lead did not choose to show."""
    chosen = _names(project.setting("hidden_attributes"))
    shown_now = set(shown(project))
    return chosen + sorted(set(judgments(project)) - shown_now - set(chosen))


def hide_only(project: ProjectRules, names: Sequence[str]) -> None:
    """The lead's choice: exactly ``names`` are hidden; a judgment not among them is shown
    (one transaction; each setting changed a history row)."""
    marked = set(judgments(project))
    wanted = {n.strip() for n in names if n.strip()}
    with project.pdb.atomic():
        project.set_setting("hidden_attributes", _text(wanted - marked) or None)
        project.set_setting("shown_attributes", _text(marked - wanted) or None)


def show(project: ProjectRules, names: Iterable[str], on: bool) -> None:
    """Show (``on``) or hide these attributes from coders, leaving the others as chosen."""
    now = set(hidden(project))
    names = {n.strip() for n in names if n.strip()}
    hide_only(project, sorted(now - names if on else now | names))


def marked_text(names: Iterable[str]) -> str | None:
    """The ``judgment_attributes`` setting for these names (None: none)."""
    return _text(names) or None


def attribute_list(project: ProjectRules) -> list[tuple[str, bool]]:
    """What a lead chooses to show or hide: 'model', the conversations' attributes, then
    the turns' (each once), with whether an import marked it as the users' judgment."""
    from ..store import attributes as store_attrs
    from ..store import conversations as store_conv

    marked = set(judgments(project))
    names = ["model", *store_conv.attribute_names(project.db)]
    names += [n for n in store_attrs.turn_attribute_names(project.db) if n not in names]
    return [(n, n in marked) for n in names]
