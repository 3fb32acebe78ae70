"""A study's set-up as one scriptable step: roles, blind coding, the reveal lock, the lead
passphrase, whether every code is required, and the attributes coders see.

:func:`set_up` makes every change a lead may make in *Assignments and packages* and the
identity dialog, through the same checks (:mod:`.authority`), in one transaction: all of
it lands or none does, and each change is a history row (roles and settings are followed
by the history). :func:`setup` says how the study is set up now.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..domain.errors import ProjectError
from ..store import codings as store_codings
from . import judgments
from .authority import require_study
from .coders import ROLES, typed_coder_name
from .identity import hash_passphrase
from .project import Project


@dataclass
class StudyChange:
    """What :func:`set_up` is asked to change (None or empty: leave as it is)."""

    blind: bool | None = None
    lock: bool | None = None
    require_all: bool | None = None
    roles: Mapping[str, str] = field(default_factory=dict)
    show: Sequence[str] = ()
    hide: Sequence[str] = ()
    #: a new lead passphrase; ``remove_passphrase`` takes it away
    passphrase: str | None = None
    remove_passphrase: bool = False

    @property
    def empty(self) -> bool:
        return (self.blind is None and self.lock is None and self.require_all is None
                and not self.roles and not self.show and not self.hide
                and self.passphrase is None and not self.remove_passphrase)


def setup(project: Project) -> dict[str, Any]:
    """How the study is set up: its settings, coders and roles, and the attributes (each
    with whether it is the users' judgment and whether blind coders see it)."""
    hidden = set(project.hidden_attributes)
    return {
        "blind_coding": project.blind_coding,
        "lock_after_reveal": project.lock_after_reveal,
        "require_all_codes": project.require_all_codes,
        "lead_passphrase": project.lead_passphrase_set,
        "package_coder": project.package_coder,
        "coders": [{"name": c["name"], "role": c["role"]} for c in project.coders()],
        "attributes": [{"name": n, "users_judgment": judged, "shown": n not in hidden}
                       for n, judged in judgments.attribute_list(project)],
    }


def setup_lines(project: Project) -> list[str]:
    s = setup(project)

    def onoff(v: bool) -> str:
        return "on" if v else "off"

    def attrs(shown: bool) -> str:
        names = [a["name"] + (" (users' judgment)" if a["users_judgment"] else "")
                 for a in s["attributes"] if a["shown"] is shown]
        return ", ".join(names) or "none"

    lines = [f"blind coding: {onoff(s['blind_coding'])}",
             f"lock a turn's values once revealed: {onoff(s['lock_after_reveal'])}",
             f"every applicable code required: {onoff(s['require_all_codes'])}",
             f"lead passphrase: {'set' if s['lead_passphrase'] else 'none'}",
             "coders: " + (", ".join(f"{c['name']} ({c['role']})" for c in s["coders"])
                           or "none")]
    if s["package_coder"]:
        lines.insert(0, f"coder package of: {s['package_coder']}")
    lines += [f"attributes blind coders see: {attrs(True)}",
              f"attributes hidden from blind coders: {attrs(False)}"]
    return lines


def set_up(project: Project, change: StudyChange) -> list[str]:
    """Make ``change`` (a lead only), in one transaction; one line per change made."""
    if change.passphrase is not None and change.remove_passphrase:
        raise ProjectError("give a new lead passphrase or remove it, not both")
    require_study(project, "set the study up")
    known = {n for n, _ in judgments.attribute_list(project)}
    for name in (*change.show, *change.hide):
        if name not in known:
            raise ProjectError(f"no attribute '{name}' in this project (it has: "
                               f"{', '.join(sorted(known)) or 'none'})")
    both = set(change.show) & set(change.hide)
    if both:
        raise ProjectError(f"'{sorted(both)[0]}' is both shown and hidden")
    lines: list[str] = []
    # checked once above: each step below is the lead's, even where an earlier one (blind
    # coding on, a passphrase set) would make the person at the file need to say so
    with project.pdb.acting("study"), project.pdb.atomic():
        lines += _roles(project, change.roles)
        lines += _passphrase(project, change)
        lines += _settings(project, change)
        before = set(project.hidden_attributes)
        if change.show:
            judgments.show(project, change.show, True)
        if change.hide:
            judgments.show(project, change.hide, False)
        after = set(project.hidden_attributes)
        lines += [f"shown to blind coders: {n}" for n in sorted(before - after)]
        lines += [f"hidden from blind coders: {n}" for n in sorted(after - before)]
    return lines or ["nothing changed"]


def _passphrase(project: Project, change: StudyChange) -> list[str]:
    if change.passphrase is not None:
        if not any(c["role"] == "adjudicator" for c in project.coders()):
            raise ProjectError("a lead passphrase protects the lead identities, and this "
                               "project has no lead yet: make someone an adjudicator first")
        project.set_setting("lead_passphrase", hash_passphrase(change.passphrase))
        return ["lead passphrase: set"]
    if change.remove_passphrase and project.lead_passphrase_set:
        project.set_setting("lead_passphrase", None)
        return ["lead passphrase: removed"]
    return []


def _roles(project: Project, roles: Mapping[str, str]) -> list[str]:
    lines = []
    for raw, role in roles.items():
        name = typed_coder_name(raw)
        if role not in ROLES:
            raise ProjectError(f"role of '{name}' must be one of {', '.join(ROLES)}")
        if project.coder_role(name) is None:
            store_codings.ensure_coder(project.db, name, role)
            lines.append(f"new coder: {name} ({role})")
        elif project.set_role(name, role):
            lines.append(f"role: {name} is now {role}")
    return lines


def _settings(project: Project, change: StudyChange) -> list[str]:
    lines = []
    for what, wanted, current, name in (
            ("blind coding", change.blind, project.blind_coding, "blind_coding"),
            ("lock a turn's values once revealed", change.lock, project.lock_after_reveal,
             "lock_after_reveal"),
            ("every applicable code required", change.require_all,
             project.require_all_codes, "require_all_codes")):
        if wanted is not None and wanted != current:
            project.set_setting(name, "1" if wanted else "0")
            lines.append(f"{what}: {'on' if wanted else 'off'}")
    return lines
