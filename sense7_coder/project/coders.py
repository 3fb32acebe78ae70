"""Who codes in a project: the current coder, coders' roles, the adjudicator who decides
the consensus, and the lead passphrase a lead identity asks for (a mixin of
:class:`~sense7_coder.project.project.Project`).

Every change of identity or role is one transaction and a history row; a coder package
codes only as the coder it was made for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..domain import rows
from ..domain.errors import ProjectError
from ..store import codings as store_codings
from ..store import history as store_history
from .changes import CODERS, NOTHING, Changes
from .identity import PassphraseNeeded, check_passphrase
from .rules import ProjectRules
from .undo import UndoStack

if TYPE_CHECKING:
    from pathlib import Path

ROLES = rows.CODER_ROLES


class ProjectCoders(ProjectRules):
    """The current coder and the adjudicator; :class:`Project` supplies the file."""

    undo_stack: UndoStack
    _adjudicator: str | None

    if TYPE_CHECKING:
        @property
        def path(self) -> Path: ...

    @property
    def coder(self) -> str | None:
        return self._coder

    def coders(self) -> list[dict[str, Any]]:
        return store_codings.coders(self.db)

    def set_coder(self, name: str, role: str | None = None, *,
                  passphrase: str | None = None) -> Changes:
        """Work as ``name`` from now on. A new name is a coder; ``role`` changes the role
        (only a lead may, see :meth:`set_role`). Taking a lead identity asks for the lead
        passphrase where one is set (:class:`PassphraseNeeded` when not given). In a coder
        package only its coder can code. A switch from one name to another is a history row
        and clears the undo stack."""
        name = typed_coder_name(name)
        if role is not None and role not in ROLES:
            raise ProjectError(f"role must be one of {', '.join(ROLES)}")
        package = self.package_coder
        if package is not None and name != package:
            raise ProjectError(f"this is the coder package of '{package}': it codes only as "
                               f"'{package}', not as '{name}'")
        current = self.coder_role(name)
        change = role is not None and role != (current or "coder")
        if change:
            self.require_lead(f"make '{name}' {_article(role or '')} {role}")
        lead_ok = self._lead_ok and name == self._coder
        if (role or current) == "adjudicator" and package is None and not lead_ok:
            self._check_passphrase(name, passphrase)
            lead_ok = True
        with self.pdb.atomic() as db:
            store_codings.ensure_coder(db, name, "coder")
            if change:
                store_codings.set_coder_role(db, name, role or "coder")
            if self._coder is not None and name != self._coder:
                store_history.record_identity(db, self._coder, name)
        if name != self._coder:
            self.undo_stack.clear()
        self._coder = name
        self._lead_ok = lead_ok
        self.pdb.actor = name
        return CODERS  # what every view shows is this coder's

    def _check_passphrase(self, name: str, passphrase: str | None) -> None:
        stored = self.setting("lead_passphrase")
        if not stored:
            return
        if passphrase is None:
            raise PassphraseNeeded(f"'{name}' is a lead of this project: taking a lead "
                                   "identity needs the lead passphrase")
        if not check_passphrase(stored, passphrase):
            raise ProjectError(f"wrong lead passphrase: not coding as '{name}'")

    def set_role(self, name: str, role: str) -> Changes:
        """Give the existing coder ``name`` the role ``role``; only a lead may. The change
        is a history row (kind ``role``)."""
        name = name.strip()
        if role not in ROLES:
            raise ProjectError(f"role must be one of {', '.join(ROLES)}")
        current = self.coder_role(name)
        if current is None:
            raise ProjectError(f"no coder '{name}' in this project")
        if current == role:
            return NOTHING
        self.require_lead(f"make '{name}' {_article(role)} {role}")
        leads = [c["name"] for c in self.coders() if c["role"] == "adjudicator"]
        if leads == [name] and self.lead_passphrase_set:
            raise ProjectError(f"'{name}' is the only lead and a lead passphrase is set: "
                               "name another lead first, or remove the passphrase")
        with self.pdb.atomic() as db:
            store_codings.set_coder_role(db, name, role)
        if name == self._coder:
            self._lead_ok = role == "adjudicator"
        return CODERS

    def act_as(self, other: ProjectCoders) -> None:
        """Act as ``other`` does, on this connection to the same file (the same coder and
        the same proof of the lead passphrase): for a background job's own connection."""
        if other.path.resolve() != self.path.resolve():
            raise ProjectError(f"{self.path} is not {other.path}")
        if self.package_coder is None:
            self._coder, self._lead_ok = other._coder, other._lead_ok
            self.pdb.actor = other.pdb.actor
        self._adjudicator = other._adjudicator

    @property
    def adjudicator(self) -> str | None:
        """Who decides the consensus here: the adjudicator chosen with
        :meth:`set_adjudicator`, else the current coder when they are one. Deciding as
        someone never changes whose codings are written."""
        if self._adjudicator and self.coder_role(self._adjudicator) == "adjudicator":
            return self._adjudicator
        if self._coder and self.coder_role(self._coder) == "adjudicator":
            return self._coder
        return None

    def set_adjudicator(self, name: str) -> Changes:
        """Decide the consensus as ``name`` (an adjudicator; a lead may make a coder one).
        The coders changed when ``name`` became an adjudicator here."""
        name = typed_coder_name(name, "an adjudicator")
        changes = NOTHING
        if self.coder_role(name) != "adjudicator":
            self.require_lead(f"make '{name}' an adjudicator")
            with self.pdb.atomic() as db:
                store_codings.ensure_coder(db, name, "coder")
                store_codings.set_coder_role(db, name, "adjudicator")
            changes = CODERS
        self._adjudicator = name
        return changes

    def coder_role(self, name: str | None = None) -> str | None:
        name = name or self._coder
        return next((c["role"] for c in self.coders() if c["name"] == name), None)

    def _require_coder(self) -> str:
        if not self._coder:
            raise ProjectError("choose who you are coding as first (a coder name)")
        return self._coder


def _article(word: str) -> str:
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


def typed_coder_name(name: str, who: str = "a coder") -> str:
    """A name typed for a coder, surrounding spaces taken off, as every path checks it."""
    name = name.strip()
    if not name:
        raise ProjectError(f"{who} needs a name")
    try:
        return rows.coder_name(name)
    except rows.RowError as e:
        raise ProjectError(e.message) from None
