"""Who may do what in a project: its settings, the lead and blinding (a mixin of
:class:`~sense7_coder.project.project.Project`).

What blinding hides is refused here, whatever the front end: :meth:`require_lead`,
:meth:`require_unblinded` and :meth:`blind_for` are the checks every API call makes; they
and every other question of sight are answered by :class:`~.sight.Sight` (:meth:`sight`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..domain.codebook.codes import Code, Codebook
from ..domain.errors import ProjectError
from ..domain.models import Unit
from ..store import meta as store_meta
from . import judgments
from .changes import SETTINGS, Changes
from .hints import AS_LEAD
from .identity import hash_passphrase
from .sight import Sight

if TYPE_CHECKING:
    from ..store.db import ProjectDB


class ProjectRules:
    """Settings, the lead and blinding; :class:`Project` supplies the file and the coder."""

    pdb: ProjectDB
    _coder: str | None
    _lead_ok: bool

    if TYPE_CHECKING:
        @property
        def db(self) -> Any: ...

        @property
        def codebook(self) -> Codebook: ...

        def coders(self) -> list[dict[str, Any]]: ...

        def coder_role(self, name: str | None = None) -> str | None: ...

        @property
        def coder(self) -> str | None: ...

    # -- settings --------------------------------------------------------------------------
    def setting(self, key: str, default: str | None = None) -> str | None:
        return store_meta.get_meta(self.db, key, default)

    def set_setting(self, key: str, value: str | None) -> Changes:
        with self.pdb.atomic() as db:
            store_meta.set_meta(db, key, value)
        return SETTINGS

    @property
    def blind_coding(self) -> bool:
        return self.setting("blind_coding", "0") == "1"

    @blind_coding.setter
    def blind_coding(self, on: bool) -> None:
        self.require_lead("switch blind coding")
        self.set_setting("blind_coding", "1" if on else "0")

    @property
    def lock_after_reveal(self) -> bool:
        """In a blind project, a coder's values of a turn are locked once the turn was
        revealed to them (on unless the lead turned it off); with the lock off a change is
        kept beside the blind value, marked as made after the reveal."""
        return self.setting("lock_after_reveal", "1") != "0"

    @lock_after_reveal.setter
    def lock_after_reveal(self, on: bool) -> None:
        self.require_lead("change whether revealed turns are locked")
        self.set_setting("lock_after_reveal", "1" if on else "0")

    def sight(self, person: str | None = None) -> Sight:
        """What ``person`` (default: the current coder) sees of the project: the one place
        that decides blinding (see :mod:`.sight` for what *open*, *revealed* and *locked*
        mean)."""
        return Sight(self, person if person is not None else self._coder)

    def revealed_to(self, coder: str, conversation_id: str, position: int) -> bool:
        """Whether blinding has shown ``coder`` what it hides of this unit (position 0: the
        conversation): :meth:`.Sight.revealed`."""
        return self.sight(coder).revealed(conversation_id, position)

    def _after_reveal(self, coder: str, unit: Unit, code: Code) -> bool:
        """True when a change of ``coder``'s value goes beside the blind one (the turn was
        revealed and the lock is off); raises when the lock refuses it."""
        sight = self.sight(coder)
        if not sight.revealed(unit.conversation_id, unit.position):
            return False
        if sight.locked(unit):
            where = ("conversation" if unit.position == 0
                     else f"turn {unit.position}")
            raise ProjectError(
                f"{where} of '{unit.conversation_id}' was revealed to '{coder}' when they "
                f"marked it done: its values are locked, so {code.label} keeps the value "
                "set blind (a lead can turn off 'lock a turn's values once they are "
                "revealed' to keep later changes beside the blind values)"
            )
        return True

    @property
    def package_coder(self) -> str | None:
        """The coder a coder package was made for (None in a lead's project)."""
        return self.setting("package_coder") or None

    @property
    def require_all_codes(self) -> bool:
        """A turn can be marked done only when every applicable code has a value."""
        return self.setting("require_all_codes", "0") == "1"

    @require_all_codes.setter
    def require_all_codes(self, on: bool) -> None:
        self.require_lead("change what marking a turn done requires")
        self.set_setting("require_all_codes", "1" if on else "0")

    @property
    def hidden_attributes(self) -> list[str]:
        """Attributes (and 'model') a blind coder does not see until done, and a blind
        package never holds: those the lead hid, and the users' own judgments an import
        marked, unless the lead chose to show them (:mod:`.judgments`)."""
        return judgments.hidden(self)

    @hidden_attributes.setter
    def hidden_attributes(self, names: Sequence[str]) -> None:
        self.require_lead("choose the hidden attributes")
        judgments.hide_only(self, names)

    @property
    def lead_passphrase_set(self) -> bool:
        """Taking a lead identity asks for the lead passphrase."""
        return bool(self.setting("lead_passphrase"))

    def set_lead_passphrase(self, passphrase: str | None) -> None:
        """Set (or with None, remove) the passphrase that taking a lead identity asks for.
        Stored as a salted scrypt hash; only a lead may."""
        self.require_lead("set the lead passphrase")
        stored = hash_passphrase(passphrase) if passphrase is not None else None
        self.set_setting("lead_passphrase", stored)
        self._lead_ok = True

    def is_lead(self, name: str | None = None) -> bool:
        """The coder (default: the current one) may run the study: an adjudicator outside
        a coder package (the current one: who gave the lead passphrase, where one is set)."""
        name = name or self._coder
        if (self.package_coder is not None or name is None
                or self.coder_role(name) != "adjudicator"):
            return False
        return name != self._coder or self._lead_ok or not self.lead_passphrase_set

    def require_lead(self, what: str) -> None:
        """Refuse ``what`` unless the current coder leads the study.

        In a coder package nobody may; in a project with no adjudicator yet (a study being
        set up) and on the command line without a coder name, the person at the file may.
        """
        package = self.package_coder
        if package is not None:
            raise ProjectError(
                f"this is the coder package of '{package}'; only the lead's project can {what}"
            )
        if self.is_lead():
            return
        if not any(c["role"] == "adjudicator" for c in self.coders()) and (
                self._lead_ok or not self.lead_passphrase_set):
            return  # a study being set up: whoever is at the file names its lead
        if self._coder is None:
            if not (self.blind_coding or self.lead_passphrase_set):
                return
            raise ProjectError(f"only a lead (an adjudicator) can {what}, and nobody is named",
                               hint=AS_LEAD)
        raise ProjectError(f"only a lead (an adjudicator) can {what}; you are coding as "
                           f"'{self._coder}'")

    def require_unblinded(self, what: str) -> None:
        """Refuse ``what`` (which shows other coders' values) to a coder working blind
        (:meth:`.Sight.require_everything`)."""
        self.sight().require_everything(what)

    def blind_for(self, conversation_id: str, position: int, coder: str | None = None) -> bool:
        """Whether what blinding hides stays hidden from ``coder`` on this unit: it is not
        open to them (:meth:`.Sight.is_open`)."""
        return not self.sight(coder).is_open(conversation_id, position)
