"""Who may write what: the one set of rules every write path asks, whatever the front end.

The API (the window), ``import-codings``, ``import-ratings``, ``merge``, the ``.qdpx``
import, the consensus, ``assign``, the codebook operations and the study set-up all call
the checks below rather than writing a condition of their own:

* **whose values** (:func:`require_write_as`): in a coder package only its coder's; a coder
  only her own; a lead anyone's. Nobody named on the command line counts as a lead only
  where :meth:`~.rules.ProjectRules.require_lead` lets the person at the file act as one
  (no lead passphrase, no blind coding, or a study being set up);
* **the reveal lock** (:class:`Locks`): a blind coder's value of a turn revealed to her is
  locked while the lead keeps the lock on; with the lock off a change goes beside the blind
  value (a revision). Whether a turn was revealed is the project's own answer
  (:meth:`~.rules.ProjectRules.revealed_to`), so every path means the same by it;
* **the study** (:func:`require_study`): roles, settings, the codebook, assignments and the
  consensus are a lead's, never a coder package's;
* **merging** (:func:`require_merge`): in a blind project only a lead merges (a merge
  and its dry run show the target's values of the coders in the source); a whole project
  (not a coder package) brings roles, the consensus and every coder's work, so only a
  lead merges one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..domain.errors import InputError, ProjectError
from ..domain.spans import SpanCoding
from ..store import codings as store_codings
from ..store import sight as store_sight
from ..store.spans import table as store_spans
from .hints import AS_LEAD

if TYPE_CHECKING:
    from .rules import ProjectRules as Project

#: what :meth:`Locks.of` answers for a value to be written
FREE, REVISION, LOCKED = "free", "revision", "locked"


def require_write_as(project: Project, coder: str, what: str = "write") -> None:
    """Refuse unless the person acting may write ``coder``'s values (and create ``coder``
    when it is a new name)."""
    package = project.package_coder
    if package is not None:
        if coder != package:
            raise ProjectError(f"this is the coder package of '{package}': it holds only "
                               f"'{package}''s work, so it cannot {what} values of '{coder}'")
        return
    if coder == project.coder:
        return
    project.require_lead(f"{what} the values of '{coder}'")


def require_study(project: Project, what: str) -> None:
    """Refuse ``what`` (a change of how the study runs) unless a lead does it; never in a
    coder package."""
    project.require_lead(what)


def require_decider(project: Project, what: str = "set the consensus") -> None:
    """The consensus is decided in the lead's project, seeing the coders' values: never in
    a coder package, and in a blind project only by a lead."""
    package = project.package_coder
    if package is not None:
        raise ProjectError(f"this is the coder package of '{package}'; only the lead's "
                           f"project can {what}")
    project.require_unblinded(what)
    decider = getattr(project, "adjudicator", None)
    if (decider is not None and decider != project.coder
            and (project.blind_coding or project.lead_passphrase_set)):
        # deciding as another adjudicator (Adjudicate as...) is a lead's where being a
        # lead means something (a passphrase, blind coding): a coder naming the lead was
        # enough; elsewhere anyone may name herself adjudicator, and so decide as one
        project.require_lead(f"{what} as '{decider}'")


class Locks:
    """The reveal lock of many values, asked one at a time (each turn's answer kept)."""

    def __init__(self, project: Project, *, seen_here: bool = False) -> None:
        """``seen_here``: for a coder's package, where nothing was revealed to her (see
        :mod:`.sight`): a turn counts as revealed only where she marked it done in this
        file itself and could have seen its values here, not where her done mark came
        from her package through a merge."""
        self.project = project
        self.blind = project.blind_coding
        self.lock = project.lock_after_reveal
        self.seen_here = seen_here
        self._revealed: dict[tuple[str, str, int], bool] = {}
        self._done_here: dict[tuple[str, str], set[int]] = {}

    def revealed(self, coder: str, conversation_id: str, position: int) -> bool:
        key = (coder, conversation_id, position)
        if key not in self._revealed:
            revealed = self.blind and self.project.revealed_to(*key)
            if revealed and self.seen_here:
                where = (coder, conversation_id)
                if where not in self._done_here:
                    self._done_here[where] = store_sight.done_here_positions(
                        self.project.db, conversation_id, coder)
                here = self._done_here[where]
                if position == 0:  # the conversation: open once every codable turn is
                    codable = self.project.sight(coder).codable_positions(conversation_id)
                    revealed = bool(codable) and codable <= here
                else:
                    revealed = position in here
            self._revealed[key] = revealed
        return self._revealed[key]

    def of(self, coder: str, conversation_id: str, position: int) -> str:
        """FREE (written as usual), REVISION (goes beside the blind value) or LOCKED."""
        if not self.revealed(coder, conversation_id, position):
            return FREE
        return LOCKED if self.lock else REVISION


def locked_message(coder: str, conversation_id: str, position: int, code: str) -> str:
    where = "the conversation" if position == 0 else f"turn {position}"
    return (f"{where} of '{conversation_id}' was revealed to '{coder}' when they marked it "
            f"done: its values are locked, so '{code}' keeps the value set blind")


def split_by_lock(project: Project, rows: Iterable[tuple[Any, tuple[Any, ...]]],
                  refuse: Any) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Rows ``(where, (coder, cid, position, sentence, code, value))`` that change a value:
    (those written as usual, those that go beside the blind value); ``refuse(where,
    message)`` raises for the first one the lock refuses. A row repeating the value the
    project holds changes nothing and is never refused."""
    rows = list(rows)
    if not project.blind_coding:
        return [r for _, r in rows], []
    locks = Locks(project)
    keys = [r[:5] for _, r in rows]
    existing = store_codings.existing_codings(project.db, keys)
    plain: list[tuple[Any, ...]] = []
    beside: list[tuple[Any, ...]] = []
    for where, row in rows:
        coder, cid, pos, _sent, code, value = row
        state = locks.of(coder, cid, pos)
        if state == FREE:
            plain.append(row)
            continue
        key = tuple(row[:5])
        if key in existing and existing[key] == value:
            continue  # the same value: nothing changes
        if state == LOCKED:
            refuse(where, locked_message(coder, cid, pos, code))
        beside.append(row)
    return plain, beside


def require_merge(project: Project, package_coder: str | None, name: str) -> None:
    """Who may merge the file ``name`` (``package_coder``: the coder package's coder, None
    for a whole project)."""
    project.require_unblinded("merge project files (a merge shows the target's values of "
                              "the coders in the file)")
    if project.package_coder is not None:
        raise ProjectError(f"this is the coder package of '{project.package_coder}'; only "
                           "the lead's project can merge other files")
    if package_coder is None:
        what = (f"merge {name}, a whole project (its roles, consensus and every coder's "
                "work)")
        project.require_lead(what)
        if not project.is_lead() and any(c["role"] == "adjudicator" for c in project.coders()):
            # the person at the file may set a study up, not take a file's word for it
            raise ProjectError(f"only a lead (an adjudicator), named, can {what}",
                               hint=AS_LEAD)
    elif package_coder != project.coder:
        project.require_lead(f"merge the coder package of '{package_coder}'")


def check_import(project: Project, path: str, rows: Sequence[tuple[int, Any]],
                 marks: Iterable[tuple[str, str, int]] = ()) -> list[tuple[Any, ...]]:
    """The rules for a file of codings (``rows``: (line, coding or span coding); ``marks``:
    the turns it marks done): every coder one the person acting may write as, no locked
    value changed. Raises :class:`InputError` naming the file, line and field of the first
    refused row; returns the rows whose value goes beside the blind one (the lock off)."""
    _check_coders(project, path, rows, marks)

    def refuse(line: int, message: str) -> None:
        raise InputError(path, message, location=f"line {line}", field="value")

    if not project.blind_coding:
        return []
    locks = Locks(project)
    values = []
    for line, c in rows:
        u = c.unit
        if not isinstance(c, SpanCoding):
            values.append((line, (c.coder, u.conversation_id, u.position, u.sentence, c.code,
                                  c.value)))
        elif locks.of(c.coder, u.conversation_id, u.position) == LOCKED:
            old = store_spans.get_span(project.db, c.key())
            if old is None or old.value != c.value:
                refuse(line, locked_message(c.coder, u.conversation_id, u.position, c.code))
    return split_by_lock(project, values, refuse)[1]


def _check_coders(project: Project, path: str, rows: Sequence[tuple[int, Any]],
                  marks: Iterable[tuple[str, str, int]]) -> None:
    """Every coder of a file one the person acting may write as (the first line of each
    named where one is refused)."""
    first: dict[str, int] = {}
    for line, c in rows:
        first.setdefault(c.coder, line)
    for coder in sorted({m[0] for m in marks} - set(first)):
        first[coder] = 0
    for coder, line in sorted(first.items(), key=lambda item: item[1]):
        try:
            require_write_as(project, coder, "import")
        except ProjectError as e:
            raise InputError(path, e.plain(), location=f"line {line}" if line else None,
                             field="coder", hint=e.hint) from None
