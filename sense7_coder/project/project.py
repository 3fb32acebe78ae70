"""Project: open/close a project file, coding actions with undo; the current coder and
the roles are its mixin :mod:`.coders`.

Contract: every public method that changes the project runs in exactly one transaction
(everything lands or nothing does) and, for coding actions, pushes one undo command.
A Project belongs to the thread that opened it; background jobs open their own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..domain.codebook.codes import Code, Codebook
from ..domain.errors import CodebookError, ProjectError
from ..domain.models import Conversation, Unit, Value
from ..store import codes as store_codes
from ..store import codings as store_codings
from ..store import conversations as store_conv
from ..store import meta as store_meta
from ..store.db import ProjectDB, backup_project_file, create_project_db, open_project_db
from ..store.folders import conflicted_copies
from . import authority
from .cells import Cell, CodingCell, ConsensusCell, DoneCell, MemoCell, RevisionCell, WriteContext
from .coders import ProjectCoders
from .hints import MAKE_ADJUDICATOR
from .undo import Command, UndoStack, changed_elsewhere

#: what a blind coder gets in place of another coder's value of a turn not finished yet
HIDDEN_VALUE = "(hidden)"


class Project(ProjectCoders):
    """An open project file. Create with :meth:`create` or :meth:`open`."""

    def __init__(self, pdb: ProjectDB) -> None:
        self.pdb = pdb
        self.undo_stack = UndoStack()
        self._coder: str | None = None
        self._adjudicator: str | None = None
        self._codebook: Codebook | None = None
        self._data_version = pdb.data_version()
        #: the lead passphrase was given for the current identity (or none was asked)
        self._lead_ok = False
        package = self.package_coder
        if package is not None:  # a package opens as the coder it was made for
            self._coder = package
            pdb.actor = package
        #: how the codings written now are made ('coded', or 'suggestion_accepted')
        self._coding_source = "coded"

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, codebook: Codebook | None = None, *,
               shared_folder: bool = False) -> Project:
        """A new project file (``shared_folder``: also in a network or synced folder, for a
        file written once and closed, such as a coder package)."""
        pdb = create_project_db(path, shared_folder=shared_folder)
        project = cls(pdb)
        if codebook is not None:
            with pdb.atomic() as db:
                store_meta.set_meta(db, "codebook_name", codebook.name)
                store_meta.set_meta(db, "codebook_title", codebook.title)
                store_meta.set_meta(db, "codebook_description", codebook.description)
                for i, code in enumerate(codebook.codes, 1):
                    store_codes.upsert_code(db, code, i)
        return project

    @classmethod
    def open(cls, path: str | Path, *, backup: bool = True) -> Project:
        return cls(open_project_db(path, backup=backup))

    def close(self) -> None:
        self.pdb.close()

    def conflicted_copies(self) -> list[Path]:
        """Files beside the project named as sync clients name a conflicted copy of it."""
        return conflicted_copies(self.path)

    @property
    def notes(self) -> list[str]:
        """What opening the file found and did beside it (a journal set aside, conflicted
        copies to merge...), one line each."""
        return list(self.pdb.notes)

    @staticmethod
    def back_up(path: str | Path) -> Path | None:
        """Copy the project file into its backups folder when it changed since the newest
        backup; the new backup, or None. For a worker thread while the window keeps the
        project open: it reads through a connection of its own, and the window may keep
        saving meanwhile."""
        return backup_project_file(Path(path))

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> Path:
        return self.pdb.path

    @property
    def db(self) -> Any:
        """The underlying sqlite-utils Database (for the store functions)."""
        return self.pdb.db

    def snapshot(self) -> contextlib.AbstractContextManager[None]:
        """Every read inside sees one state of the file while other windows save (a read
        transaction; nothing may be written inside)."""
        return self.pdb.snapshot()

    def changed_elsewhere(self) -> bool:
        """True once since another window or program committed to this file."""
        version = self.pdb.data_version()
        changed = version != self._data_version
        self._data_version = version
        if changed:
            self._codebook = None
        return changed

    # -- codebook --------------------------------------------------------------------------
    @property
    def codebook(self) -> Codebook:
        if self._codebook is None:
            try:
                self._codebook = store_codes.codebook_from_db(self.db)
            except CodebookError as e:  # a codebook changed by hand inside the file
                raise ProjectError(f"{self.path}: {e}") from None
        return self._codebook

    def invalidate_codebook(self) -> None:
        self._codebook = None

    def code(self, key: str) -> Code:
        code = self.codebook.get(key)
        if code is None:
            raise ProjectError(f"no code '{key}' in this project's codebook")
        return code

    # -- reading ---------------------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        counts = store_conv.counts(self.db)
        return {
            "path": str(self.path),
            "codebook": self.codebook.name,
            "blind_coding": self.blind_coding,
            **counts,
        }

    def conversation(self, conversation_id: str) -> Conversation | None:
        return store_conv.load_conversation(self.db, conversation_id)

    # -- coding actions --------------------------------------------------------------------
    def _check_unit(self, code: Code, unit: Unit, *, strict_sentences: bool = False) -> None:
        if code.unit == "conversation":
            if unit.position != 0 or unit.sentence != 0:
                raise ProjectError(f"code '{code.key}' applies to whole conversations, not turns")
            if store_conv.conversation_index(self.db, unit.conversation_id) is None:
                raise ProjectError(f"no conversation '{unit.conversation_id}' in this project")
            return
        if unit.position < 1:
            raise ProjectError(f"code '{code.key}' applies to {code.unit}s; give a turn")
        if code.unit == "turn" and unit.sentence != 0:
            raise ProjectError(f"code '{code.key}' applies to whole turns, not sentences")
        if code.unit == "sentence" and unit.sentence < 1:
            raise ProjectError(f"code '{code.key}' applies to sentences; give a sentence")
        role = store_conv.turn_role(self.db, unit.conversation_id, unit.position)
        if role is None:
            raise ProjectError(
                f"no turn {unit.position} in conversation '{unit.conversation_id}'"
            )
        if code.applies_to not in ("any", role):
            raise ProjectError(
                f"code '{code.key}' applies to {code.applies_to} turns; turn {unit.position} "
                f"of '{unit.conversation_id}' is a {role} turn"
            )
        if unit.sentence:
            # checked where the turn is segmented (the workspace segments it before showing)
            # (``strict_sentences``: the turn must be segmented already, as in a merge)
            n = store_conv.turn_sentence_count(self.db, unit.conversation_id, unit.position)
            if (n or strict_sentences) and unit.sentence > n:
                raise ProjectError(
                    f"turn {unit.position} of '{unit.conversation_id}' has {n} sentences; "
                    f"there is no sentence {unit.sentence}"
                )

    def _check_value(self, code: Code, value: Value) -> Value:
        if value is None:
            if not code.allow_na:
                raise ProjectError(f"code '{code.key}' cannot be marked not applicable")
            return None
        try:
            return code.parse_value(value)
        except ValueError as e:
            raise ProjectError(str(e)) from None

    def checked_value(self, unit: Unit, code_key: str, value: Value, *,
                      strict_sentences: bool = False) -> Value:
        """The value as stored for ``code_key`` on ``unit``, after every check the API makes:
        the code exists, applies to that kind of unit and that turn's role, the turn (and
        sentence) exist, the value is on the scale or not applicable where allowed.
        Raises ProjectError saying which."""
        code = self.code(code_key)
        self._check_unit(code, unit, strict_sentences=strict_sentences)
        return self._check_value(code, value)

    def check_turn(self, conversation_id: str, position: int) -> None:
        """Raise ProjectError unless the turn exists (position 0: the conversation)."""
        if position == 0:
            if store_conv.conversation_index(self.db, conversation_id) is None:
                raise ProjectError(f"no conversation '{conversation_id}' in this project")
        elif store_conv.turn_text(self.db, conversation_id, position) is None:
            raise ProjectError(f"no turn {position} in conversation '{conversation_id}'")

    def set_value(self, unit: Unit, code_key: str, value: Value, *,
                  suggested: bool = False) -> Command:
        """Set this coder's value of a code on a unit (None = not applicable);
        ``suggested``: the coder accepted a model's suggestion (recorded as its source)."""
        label, cell = self._value_cell(unit, code_key, value)
        return self._apply_values(label, [cell], suggested)

    def set_values(self, values: Sequence[tuple[Unit, str, Value]], label: str, *,
                   suggested: bool = False) -> Command:
        """Set several of this coder's values -- (unit, code key, value) -- as one
        transaction and one undo step; every value is checked before anything is written."""
        cells = [self._value_cell(unit, key, value)[1] for unit, key, value in values]
        return self._apply_values(label, cells, suggested)

    def _value_cell(self, unit: Unit, code_key: str, value: Value
                    ) -> tuple[str, CodingCell | RevisionCell]:
        """The checked cell that sets this coder's value, and its undo label."""
        coder = self._require_coder()
        code = self.code(code_key)
        value = self.checked_value(unit, code_key, value)
        label = f"set {code.label} to {code.level_label(value)}"
        kind = RevisionCell if self._after_reveal(coder, unit, code) else CodingCell
        if kind is RevisionCell:
            label += " (after the reveal)"
        return label, kind(coder=coder, conversation_id=unit.conversation_id,
                           position=unit.position, sentence=unit.sentence, code=code.key,
                           after=value)

    def _apply_values(self, label: str, cells: Sequence[Cell], suggested: bool) -> Command:
        self._coding_source = "suggestion_accepted" if suggested else "coded"
        try:
            return self.apply(label, cells)
        finally:
            self._coding_source = "coded"

    def clear_value(self, unit: Unit, code_key: str) -> Command:
        coder = self._require_coder()
        code = self.code(code_key)
        if self._after_reveal(coder, unit, code):
            # only the change made after the reveal can go; the blind value stays
            if store_codings.get_revision(self.db, coder, unit, code.key) is store_codings.MISSING:
                raise ProjectError(
                    f"{code.label} on turn {unit.position} of '{unit.conversation_id}' was set "
                    f"blind by '{coder}' before the turn was revealed and is kept as it is"
                )
            return self.apply(f"clear {code.label} (after the reveal)",
                                   [RevisionCell(coder=coder, conversation_id=unit.conversation_id,
                                                 position=unit.position, sentence=unit.sentence,
                                                 code=code.key, after=store_codings.MISSING)])
        return self.apply(
            f"clear {code.label}",
            [CodingCell(coder=coder, conversation_id=unit.conversation_id, position=unit.position,
                        sentence=unit.sentence, code=code.key, after=store_codings.MISSING)])

    def set_done(self, conversation_id: str, position: int, done: bool = True) -> Command:
        coder = self._require_coder()
        if position < 1:
            raise ProjectError(f"no turn {position} in conversation '{conversation_id}'")
        self.check_turn(conversation_id, position)
        if done and self.require_all_codes:
            empty = self.empty_codes(conversation_id, position)
            if empty:
                raise ProjectError(
                    f"turn {position} of '{conversation_id}' cannot be marked done: this "
                    f"project requires every applicable code, and {', '.join(empty)} "
                    f"{'is' if len(empty) == 1 else 'are'} empty"
                )
        return self.apply(
            f"mark turn {position} {'done' if done else 'not done'}",
            [DoneCell(coder=coder, conversation_id=conversation_id, position=position,
                      after=bool(done))],
        )

    def set_memo(self, unit: Unit, text: str) -> Command:
        coder = self._require_coder()
        self.check_turn(unit.conversation_id, unit.position)
        return self.apply(
            "edit memo",
            [MemoCell(coder=coder, conversation_id=unit.conversation_id,
                      position=unit.position, sentence=unit.sentence, after=text.strip())],
        )

    def empty_codes(self, conversation_id: str, position: int) -> list[str]:
        """Turn-level codes that apply to this turn and the current coder left empty."""
        coder = self._require_coder()
        role = store_conv.turn_role(self.db, conversation_id, position)
        have = {r["code"] for r in store_codings.codings_of_conversation(
            self.db, conversation_id, coder) if r["position"] == position}
        return [c.key for c in self.codebook.codes
                if not c.retired and c.unit == "turn" and c.kind != "binary"
                and c.applies_to in ("any", role)
                and c.key not in have]

    def _require_adjudicator(self) -> str:
        authority.require_decider(self)
        decider = self.adjudicator
        if decider is not None:
            return decider
        coder = self._require_coder()
        if self.coder_role(coder) != "adjudicator":
            raise ProjectError(
                f"only an adjudicator can set the consensus; '{coder}' is a coder",
                hint=MAKE_ADJUDICATOR,
            )
        return coder

    def _consensus_cell(self, coder: str, unit: Unit, code: Code, value: Value,
                        rationale: str, source: str = "adjudicated") -> ConsensusCell:
        value = self.checked_value(unit, code.key, value)
        decision = {"value": value, "adjudicator": coder, "rationale": rationale.strip(),
                    "source": source}
        return ConsensusCell(conversation_id=unit.conversation_id, position=unit.position,
                             sentence=unit.sentence, code=code.key, after=decision)

    def set_consensus(
        self, unit: Unit, code_key: str, value: Value, rationale: str = "", *,
        source: str = "adjudicated",
    ) -> Command:
        """Record the adjudicated value of a unit (``source`` 'majority': the coders'
        strict majority, accepted). Coders' own codings never change."""
        coder = self._require_adjudicator()
        code = self.code(code_key)
        cell = self._consensus_cell(coder, unit, code, value, rationale, source)
        return self.apply(
            f"consensus {code.label} = {code.level_label(cell.after['value'])}", [cell]
        )

    def set_consensus_many(
        self, decisions: Sequence[tuple[Unit, str, Value]], rationale: str = "",
        label: str | None = None, *, source: str = "adjudicated",
    ) -> Command:
        """Record many adjudicated values -- (unit, code key, value) -- as one transaction
        and one undo step. Every decision is checked before anything is written."""
        coder = self._require_adjudicator()
        cells = [self._consensus_cell(coder, unit, self.code(key), value, rationale, source)
                 for unit, key, value in decisions]
        return self.apply(label or f"consensus on {len(cells)} units", cells)

    def clear_consensus(self, unit: Unit, code_key: str) -> Command:
        self._require_adjudicator()
        code = self.code(code_key)
        return self.apply(
            f"clear consensus {code.label}",
            [ConsensusCell(conversation_id=unit.conversation_id, position=unit.position,
                           sentence=unit.sentence, code=code.key, after=None)],
        )

    # -- undo ------------------------------------------------------------------------------
    def undo(self) -> Command | None:
        """Put back what the last command replaced, unless it was changed elsewhere since.

        When another window (or program) has changed a value the command wrote, undoing
        would silently throw that change away: the command is then dropped from the
        history instead and a :class:`ProjectError` says what changed.
        """
        cmd = self.undo_stack.peek_undo()
        if cmd is not None:
            with self.pdb.acting("undo"):
                self._replay(cmd, reverse=True)
            self.undo_stack.pop_undo()
        return cmd

    def redo(self) -> Command | None:
        """Write again what the last undone command wrote (same check as :meth:`undo`)."""
        cmd = self.undo_stack.peek_redo()
        if cmd is not None:
            with self.pdb.acting("redo"):
                self._replay(cmd, reverse=False)
            self.undo_stack.pop_redo()
        return cmd

    @property
    def undo_label(self) -> str | None:
        return self.undo_stack.undo_label

    @property
    def redo_label(self) -> str | None:
        return self.undo_stack.redo_label

    # -- cell plumbing ---------------------------------------------------------------------
    def _write_context(self) -> WriteContext:
        return WriteContext(self.db, self._coding_source,
                            lambda coder: self.sight(coder).works_blind)

    def apply(self, label: str, cells: Sequence[Cell]) -> Command:
        """Write new cells (each with its ``after`` value) in one transaction and push one
        undo step; the command holds each cell with the value (and how it was made) before
        and after, and ``.changes`` says what it touched. The way a new undoable kind is
        written (after its checks); the methods above are the checked ones."""
        applied: list[Cell] = []
        with self.pdb.atomic():
            ctx = self._write_context()
            for cell in cells:
                before, made_before = cell.read(self.db), cell.read_made(self.db)
                cell.write(ctx, cell.after)
                applied.append(replace(cell, before=before, made_before=made_before,
                                       made_after=cell.read_made(self.db)))
        cmd = Command(label, applied)
        if not cmd.empty:
            self.undo_stack.push(cmd)
        return cmd


    def _replay(self, cmd: Command, *, reverse: bool) -> None:
        """Undo (``reverse``) or redo a command in one transaction, after checking that
        every cell still holds what the command left there."""
        what = "undo" if reverse else "redo"
        for cell in cmd.cells:
            turn = cell.blind_turn()
            if turn is not None and self.revealed_to(*turn):
                # the value set blind stays as it was once the others' values were shown
                self.undo_stack.drop(cmd)
                coder, cid, pos = turn
                raise ProjectError(
                    f"cannot {what} '{cmd.label}': turn {pos} of '{cid}' has "
                    f"been revealed to '{coder}' since, and the values set blind stay"
                )
        with self.pdb.atomic():
            changed = [
                cell for cell in cmd.cells
                if not type(cell).same(cell.read(self.db),
                                       cell.after if reverse else cell.before)
            ]
            if changed:
                self.undo_stack.drop(cmd)
                raise ProjectError(changed_elsewhere(what, cmd, changed))
            ctx = self._write_context()
            for cell in reversed(cmd.cells) if reverse else cmd.cells:
                cell.write(ctx, cell.before if reverse else cell.after,
                           cell.made_before if reverse else cell.made_after)

    # -- per-turn view data ----------------------------------------------------------------
    def turn_state(self, conversation_id: str, coder: str | None = None,
                   positions: Collection[int] | None = None) -> dict[str, Any]:
        """Everything the workspace shows for a conversation, for the given coder
        (``positions``: the codings and others' values of those turns only, for a view that
        reads again what a change named).

        Returns ``{"codings": {(pos, sent, code): value}, "done": set(pos),
        "memos": {(pos, sent): text}, "others": [...], "others_done": {coder: set(pos)}}``.
        """
        coder = coder or self._coder
        mine: dict[tuple[int, int, str], Any] = {}
        others: list[dict[str, Any]] = []
        for row in store_codings.codings_of_conversation(self.db, conversation_id,
                                                         positions=positions):
            if row["coder"] == coder:
                mine[(row["position"], row["sentence"], row["code"])] = row["value"]
            else:
                others.append(row)
        # a value changed after the reveal is what its coder sees as theirs now
        for row in store_codings.revisions_of_conversation(self.db, conversation_id):
            if row["coder"] == coder and (positions is None or row["position"] in positions):
                mine[(row["position"], row["sentence"], row["code"])] = row["value"]
        done = store_codings.done_positions(self.db, conversation_id)
        sight = self.sight(coder)
        revealed: set[int] = set()
        seen: set[int] | None = None  # every unit is open
        if sight.works_blind:
            # blind: other coders' values of a unit only once it is open to this coder (she
            # marked it done, now or before; the conversation once every codable turn is);
            # until then only that there are some
            seen = sight.open_positions(conversation_id)
            revealed = sight.revealed_positions(conversation_id)
            others = [r if r["position"] in seen else {**r, "value": HIDDEN_VALUE}
                      for r in others]
            done = {k: (v if k == coder else v & seen) for k, v in done.items()}
        memos = {
            (m["position"], m["sentence"]): m["text"]
            for m in store_codings.memos_of_conversation(self.db, conversation_id)
            if m["coder"] == coder
        }
        return {
            "codings": mine,
            "done": done.get(coder or "", set()),
            "memos": memos,
            "others": others,
            "others_done": {k: v for k, v in done.items() if k != coder},
            "open": seen,
            "revealed": revealed,
        }

    def hides(self, attribute: str) -> bool:
        """Whether the current coder works blind to ``attribute`` ('model' or a conversation
        attribute the lead marked hidden) across the project (:meth:`.Sight.sees_attribute`)."""
        return not self.sight().sees_attribute(attribute)

    def conversation_for_coder(self, conversation_id: str) -> Conversation | None:
        """The conversation as the current coder may see it (:class:`.Sight`): under blind
        coding the model and the attributes the lead marked hidden are left out until the
        conversation is open to her (every codable turn done); a turn's users' ratings,
        comment and attributes (another annotator's label, ESConv's feedback, which is the
        user's rating) until the turn is open."""
        conv = self.conversation(conversation_id)
        sight = self.sight()
        if conv is None or not sight.works_blind:
            return conv
        for turn in conv.turns:
            if not sight.sees_turn_attributes(conversation_id, turn.position):
                turn.attributes = {}
            if not sight.sees_ratings(conversation_id, turn.position):
                turn.ratings = {}
                turn.comment = None
        hidden = [a for a in sight.hidden_attributes
                  if not sight.sees_attribute(a, conversation_id)]
        if "model" in hidden and conv.model:
            for turn in conv.turns:
                if turn.speaker == conv.model:
                    turn.speaker = None
            conv.model = None
        conv.attributes = {k: v for k, v in conv.attributes.items() if k not in hidden}
        return conv

    def next_unfinished(self, after: tuple[str, int] | None = None) -> tuple[str, int] | None:
        coder = self._require_coder()
        anchor = None
        if after is not None:
            rowid = store_conv.conversation_index(self.db, after[0])
            anchor = (rowid, after[1]) if rowid is not None else None
        return store_codings.next_unfinished(self.db, coder, anchor)
