"""The workspace: conversation list | transcript | coding panel, users' ratings and memo.

It keeps the cursor (conversation, turn, sentence) and turns the coder's keys and clicks
into project actions. Every action is written at once; the window only shows the result.
"""

from __future__ import annotations

from collections.abc import Collection
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QSplitter, QVBoxLayout, QWidget

from ...domain.codebook.codes import Code
from ...domain.models import Conversation, Turn, Unit
from ...domain.names import MOST_LISTED
from ...domain.words import and_list
from ...project import Project
from ...project import workspace as ws
from ...project.changes import Changes
from ...project.prediction.predictors import suggestions
from ...project.sight import RATINGS_HIDDEN, RATINGS_WITHHELD
from ..changes_hub import ChangesHub
from ..palette import tone
from .code_row import NOT_SET
from .coding_actions import CodingActions
from .coding_panel import CodingPanel, hint_text
from .conversation_list import ConversationListPanel
from .memo import MemoPanel
from .rationale_line import RowRationales
from .suggestion_line import RowSuggestions
from .transcript import TranscriptView
from .user_ratings import UserRatingsPanel


def _line() -> QFrame:
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Plain)
    line.setForegroundRole(line.backgroundRole())
    return line


class Workspace(CodingActions, QWidget):
    """Signals: ``saved`` after each write, ``moved`` after the cursor moved."""

    saved = Signal()
    moved = Signal()
    message = Signal(str)
    failed = Signal(str)

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        #: what changed in the project (this window's actions and other programs'); the
        #: views below refresh from it alone
        self.hub = ChangesHub(project, self)
        self.conversation: Conversation | None = None
        #: the current conversation as the store holds it for this coder (turn_state),
        #: read again whenever a change touches it
        self.state = ws.TurnState()
        self.sentences: dict[int, list[tuple[int, int]]] = {}
        self.codable: list[int] = []
        self.position = 0
        self.sentence = 0

        self.list_panel = ConversationListPanel(project, self)
        self.transcript = TranscriptView(self)
        self.coding = CodingPanel(self)
        self.ratings = UserRatingsPanel(self)
        self.memo = MemoPanel(self)

        right = QWidget(self)
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(0)
        self.right_split = QSplitter(Qt.Orientation.Vertical, right)
        self.right_split.setChildrenCollapsible(False)
        codes = QWidget(right)
        cl = QVBoxLayout(codes)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(0)
        cl.addWidget(self.coding.header)
        cl.addWidget(self.coding, 1)
        self.right_split.addWidget(codes)
        lower = QWidget(right)
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.setSpacing(0)
        ll.addWidget(_line())
        ll.addWidget(self.ratings)
        ll.addWidget(_line())
        ll.addWidget(self.memo, 1)
        self.right_split.addWidget(lower)
        self.right_split.setStretchFactor(0, 1)
        self.right_split.setStretchFactor(1, 0)
        self.right_split.setSizes([600, 170])
        rl.addWidget(self.right_split)

        self.split = QSplitter(Qt.Orientation.Horizontal, self)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(self.list_panel)
        self.split.addWidget(self.transcript)
        self.split.addWidget(right)
        self.split.setStretchFactor(0, 0)
        self.split.setStretchFactor(1, 1)
        self.split.setStretchFactor(2, 1)  # a wider screen widens the codes too (one line of values each)
        self.split.setSizes([290, 520, 470])  # the codes and the others' values on one line each
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.split)

        self.list_panel.conversationChosen.connect(self._list_chosen)
        self.list_panel.table.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self._list_chosen(self.list_panel.model.conversation_id(cur.row()) or "")
        )
        self.list_panel.table.activated.connect(lambda _i: self.coding.setFocus())
        self.list_panel.searchDone.connect(self.coding.setFocus)
        self.list_panel.search.textChanged.connect(self.transcript.set_search)  # hits marked
        self.transcript.turnClicked.connect(self._turn_clicked)
        self.coding.chosen.connect(self.choose)
        self.coding.cleared.connect(self.clear)
        self.memo.save.connect(self._save_memo)
        self.memo.escaped.connect(self.coding.setFocus)
        self.setup_shortcuts()
        self.coding.set_codebook(project.codebook)
        # the list first: the workspace's own refresh selects the current row in it
        self.hub.changed.connect(self.list_panel.show_changes)
        self.hub.changed.connect(self.show_changes)
        self.model_suggestions = RowSuggestions(self)
        self.rationales = RowRationales(self)
        from .span_coding import SpanCoding

        self.spans = SpanCoding(self)

    # -- where am I ---------------------------------------------------------------------------
    @property
    def conversation_id(self) -> str | None:
        return self.conversation.conversation_id if self.conversation else None

    def turn_role(self) -> str | None:
        turn = ws.turn_at(self.conversation, self.position) if self.conversation else None
        return turn.role if turn else None

    def sentence_codes(self) -> list[Code]:
        return ws.codes_for(self.project.codebook, "sentence", self.turn_role())

    def unit_for(self, code: Code) -> Unit:
        cid = self.conversation_id or ""
        if code.unit == "conversation":
            return Unit(cid, 0, 0)
        if code.unit == "sentence":
            return Unit(cid, self.position, self.sentence)
        return Unit(cid, self.position, 0)

    # -- moving -------------------------------------------------------------------------------
    def open_first(self) -> None:
        cid = self.list_panel.neighbour(None, 1)
        if cid:
            self.go_to(cid)

    def _list_chosen(self, cid: str) -> None:
        if cid and cid != self.conversation_id:
            self.go_to(cid)

    def _turn_clicked(self, position: int, sentence: int) -> None:
        self.go_to(self.conversation_id or "", position, sentence or None)

    def go_to(self, cid: str, position: int | None = None, sentence: int | None = None) -> bool:
        """Move the cursor; ``position`` None = this coder's first unfinished turn."""
        self.memo.flush()
        new_conv = cid != self.conversation_id
        if new_conv:
            conv = self.project.conversation_for_coder(cid)
            if conv is None:
                return False
            self.conversation = conv
            self.codable = ws.codable_positions(conv, self.project.codebook)
            self.state = ws.TurnState.read(self.project, cid)
            self.sentences = {}
            if any(c.unit == "sentence" for c in self.project.codebook.active):
                from ...project.imports import ensure_sentences  # spaCy, on first need

                ensure_sentences(self.project, cid)
                self.sentences = ws.sentences_of(self.project, cid)
        positions = [t.position for t in self.conversation.turns] if self.conversation else []
        if position is None or position not in positions:
            done = self.state.done
            position = next((p for p in self.codable if p not in done),
                            self.codable[0] if self.codable else (positions[0] if positions else 0))
        spans = self.sentences.get(position, [])
        if not self.sentence_codes() or not spans:
            sentence = 0
        elif sentence is None or not 1 <= sentence <= len(spans):
            sentence = 1
        moved_turn = new_conv or position != self.position
        self.position, self.sentence = position, sentence
        show_sentences = bool(self.sentence_codes()) and bool(spans)
        if new_conv:
            self.transcript.show_conversation(self.conversation, position, sentence,
                                              self.sentences, show_sentences)
            self.list_panel.select(cid)
        else:
            self.transcript.set_sentences(self.sentences, show_sentences)
            self.transcript.set_current(position, sentence)
        self.refresh_panel()
        if moved_turn:
            keys = self.coding.visible_keys()
            self.coding.focus_code(keys[0] if keys else None)
        self.moved.emit()
        return True

    def move_turn(self, step: int) -> bool:
        if not self.conversation:
            return False
        stops = self.codable or [t.position for t in self.conversation.turns]
        later = [p for p in stops if (p > self.position if step > 0 else p < self.position)]
        if not later:
            return self.move_conversation(step, last=step < 0)
        return self.go_to(self.conversation_id or "", later[0] if step > 0 else later[-1])

    def move_sentence(self, step: int) -> bool:
        spans = self.sentences.get(self.position, [])
        if not self.sentence or not spans:
            return self.move_turn(step)
        target = self.sentence + step
        if 1 <= target <= len(spans):
            return self.go_to(self.conversation_id or "", self.position, target)
        moved = self.move_turn(step)
        if moved and step < 0:
            last = len(self.sentences.get(self.position, []))
            if last:
                self.go_to(self.conversation_id or "", self.position, last)
        return moved

    def move_conversation(self, step: int, *, last: bool = False) -> bool:
        cid = self.list_panel.neighbour(self.conversation_id, step)
        if not cid:
            self.message.emit("No more conversations in the list")
            return False
        if not self.go_to(cid):  # gone since the list was read (another window)
            self.message.emit(f"Conversation {cid} is no longer in the project")
            return False
        if last and self.codable:
            self.go_to(cid, self.codable[-1])
        return True

    def next_unfinished(self) -> bool:
        cid = self.conversation_id
        after = (cid, self.position) if cid else None
        target = self.project.next_unfinished(after)
        if target is None:
            self.message.emit("You have finished every turn in this project")
            return False
        return self.go_to(*target)

    # -- showing ------------------------------------------------------------------------------
    def reload_state(self, positions: Collection[int] | None = None) -> None:
        """Read the current conversation's state again from the project (``positions``:
        only the codings of those turns, the rest as it was read)."""
        cid = self.conversation_id
        if not cid:
            return
        if positions is None:
            self.state = ws.TurnState.read(self.project, cid)
            return
        self.state = self.state.with_turns(
            ws.TurnState.read(self.project, cid, positions=positions), positions)

    def refresh_panel(self) -> None:
        """Fill the coding panel, users' ratings and memo for the current unit."""
        self.memo.flush()  # a memo being typed is saved (and read back) before it is shown
        book = self.project.codebook
        if self.conversation is None:
            self.coding.show_codes([], title="No conversation", status="",
                                   empty="Import conversations (File ▸ Import) to start coding.")
            self.ratings.show_nothing("")
            self.memo.set_unit(None, "")
            return
        role = self.turn_role()
        turn = ws.turn_at(self.conversation, self.position)
        turn_codes = ws.codes_for(book, "turn", role)
        sent_codes = self.sentence_codes() if self.sentence else []
        conv_codes = ws.codes_for(book, "conversation")
        codes = turn_codes + sent_codes + conv_codes
        done = self.position in self.state.done
        n = len(self.sentences.get(self.position, []))
        role_text = (role or "").capitalize()
        title = f"Turn {self.position} · {role_text}" if turn else "Conversation"
        if self.position not in self.codable:
            status = "<span>Context only: no turn codes apply to this message.</span>"
        elif self.project.sight().locked((self.conversation_id or "", self.position)):
            status = ("<b>Locked</b>: the others' values and the users' ratings were "
                      "shown to you here, so your values stay as you set them blind"
                      + (" · <b>Ctrl+Enter</b> goes on" if done else ""))
        elif done:
            status = (f"<span style='color:{tone(self, 'ok')}'>✓ Done</span> · <b>Ctrl+Enter</b> "
                      "goes on · Ctrl+Shift+Enter reopens")
        else:
            hidden = self.hidden_here()
            then = f"shows {and_list(hidden)}" if hidden else "moves on"
            status = f"Not done yet · <b>Ctrl+Enter</b> marks it done and {then}"
        self.coding.hint.setText(hint_text(self.auto_advance))
        self.coding.show_codes(
            codes, title=title, status=status,
            sentence_label=f"Sentence {self.sentence} of {n}  (Alt+↑/↓)" if self.sentence else None,
            empty="" if codes else "No code of the codebook applies here.",
        )
        turn_open = ws.revealed(self.project, self.state, self.position)
        conv_open = ws.revealed(self.project, self.state, 0, self.codable)
        for code in codes:
            unit = self.unit_for(code)
            value = self.state.codings.get((unit.position, unit.sentence, code.key), NOT_SET)
            visible = conv_open if code.unit == "conversation" else turn_open
            self.coding.set_row(code.key, value, self._others_text(code, unit, visible))
        self.model_suggestions.refresh(codes)
        self.rationales.refresh(codes)
        self._show_ratings(turn)
        self.ratings.show_suggestions(
            suggestions(self.project, self.conversation_id, self.position)
            if self.conversation_id and role == "assistant" else [])
        memo_unit = Unit(self.conversation_id or "", self.position, 0)
        self.memo.set_unit(memo_unit, self.state.memos.get((self.position, 0), ""))

    def _show_ratings(self, turn: Turn | None) -> None:
        """The users' ratings of the turn, or why they are not shown (the project's sight
        decides: hidden until the turn is done, withheld from a blind package)."""
        if turn is None:
            self.ratings.show_nothing("")
            return
        state = self.project.sight().ratings_state(self.conversation_id or "", turn.position)
        if state == RATINGS_WITHHELD:
            self.ratings.show_withheld()
        elif state == RATINGS_HIDDEN:
            self.ratings.show_hidden()
        elif not turn.ratings and not turn.comment:
            self.ratings.show_nothing("The user did not rate this turn.")
        else:
            self.ratings.show_ratings(turn.ratings, turn.comment)

    def _others_text(self, code: Code, unit: Unit, visible: bool) -> str | None:
        others = ws.others_values(self.state, unit.position, unit.sentence, code.key)
        if not others:
            return None
        if not visible:
            n = len(others)
            return f"<i>{n} other coder{'s' if n != 1 else ''} · hidden until you mark it done</i>"
        if len(others) <= MOST_LISTED:  # more are counted by level
            return "Others: " + " · ".join(
                f"{escape(name)} <b>{escape(ws.value_text(code, v))}</b>" for name, v in others
            )
        # a crowd: how many gave each level, in the scale's order
        return f"Others ({len(others):,}): " + " · ".join(
            f"<b>{escape(text)}</b> ×{n:,}"
            for text, n in ws.level_counts(code, (v for _, v in others)))

    def show_changes(self, changes: Changes) -> None:
        """Refresh what ``changes`` names (the list listens on its own): everything shown
        after an import, a merge, a change of codebook, coders or settings; else the
        current unit when a change touches its conversation."""
        if changes.wide or changes.conversations:
            self._reload_shown()
            return
        here = self.conversation_id
        if changes.touches(here):
            # codings alone: read those turns again (a crowd's conversation holds many
            # values); a done mark changes what blinding shows: read it all
            only_units = not (changes.done or changes.conversations or changes.wide)
            self.reload_state({u[1] for u in changes.units | changes.memos | changes.consensus
                               if u[0] == here} if only_units else None)
            if changes.done and self.project.sight().works_blind:
                self._show_opened()  # the users' ratings and turn attributes come in
            self.refresh_panel()

    def _show_opened(self) -> None:
        """Read the conversation again as this coder may see it now (a done mark opens a
        turn to a blind coder) and show it where the cursor is."""
        conv = self.project.conversation_for_coder(self.conversation_id or "")
        if conv is None:
            return
        self.conversation = conv
        show_sentences = bool(self.sentence_codes()) and bool(self.sentences.get(self.position))
        self.transcript.show_conversation(conv, self.position, self.sentence, self.sentences,
                                          show_sentences)

    def refresh_all(self) -> None:
        """Re-read everything: the list, then what the workspace shows."""
        self.list_panel.show_changes(Changes(everything=True))
        self._reload_shown()

    def _reload_shown(self) -> None:
        """Re-read the codebook, the conversation and the unit shown (the coder's place and
        focused code kept)."""
        self.memo.flush()
        focused = self.coding.focused_key
        self.project.invalidate_codebook()
        self.coding.set_codebook(self.project.codebook)
        self.setup_shortcuts()
        cid, pos, sent = self.conversation_id, self.position, self.sentence
        self.conversation = None
        if cid and self.go_to(cid, pos, sent):
            if focused in self.coding.visible_keys():
                self.coding.focus_code(focused)
            return
        self.open_first()
        if self.conversation is None:
            self.transcript.show_conversation(None)
            self.refresh_panel()
