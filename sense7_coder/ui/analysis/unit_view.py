"""One disagreement in its context: the conversation with the unit marked, every coder's
value and memo, and the adjudicator's controls."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...domain.codebook.codes import Code
from ...domain.models import Conversation
from ...project.reconcile import Disagreement
from ..workspace.transcript import TranscriptView
from .decision_box import DecisionBox
from .reconcile_models import CoderValue, coder_value_columns, coder_values, where_text
from .table_model import RowsModel, table_view

Spans = dict[int, list[tuple[int, int]]]


class UnitView(QWidget):
    """Shows a :class:`Disagreement`; the window connects the decision box and the buttons."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.where = QLabel(self)
        self.where.setWordWrap(True)
        self.where.setMinimumWidth(200)
        self.where.setTextFormat(Qt.TextFormat.RichText)
        self.transcript = TranscriptView(self)
        self.values_model: RowsModel[CoderValue] = RowsModel(coder_value_columns(), self)
        self.values_view = table_view(self.values_model, self)
        self.values_view.horizontalHeader().setStretchLastSection(True)
        self.values_view.setMaximumHeight(self.values_view.fontMetrics().height() * 8)
        self.decision = DecisionBox(self)
        self.prev_button = QPushButton("◀ Previous  (PgUp)", self)
        self.next_button = QPushButton("Next  (PgDn) ▶", self)
        self.keys_hint = QLabel("Keys: 1–9 level · 0/N n/a · M majority · Del clear · "
                                "Ctrl+Z undo", self)
        self.keys_hint.setWordWrap(True)
        nav = QHBoxLayout()
        nav.addWidget(self.prev_button)
        nav.addWidget(self.next_button)
        nav.addStretch(1)
        nav.addWidget(self.keys_hint)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.where)
        layout.addWidget(self.transcript, 1)
        layout.addWidget(self.values_view)
        layout.addWidget(self.decision)
        layout.addLayout(nav)

    def show_unit(self, d: Disagreement | None, code: Code | None,
                  conversation: Conversation | None, sentences: Spans,
                  can_decide: bool) -> None:
        self.decision.set_code(code)
        if d is None:
            self.where.setText("")
            self.transcript.show_conversation(None)
            self.values_model.set_rows([])
            self.decision.show_state(None, False)
            return
        facts = [f"conversation <b>{html.escape(d.unit.conversation_id)}</b>", where_text(d)]
        if conversation is not None:
            if conversation.model:
                facts.append(f"model {html.escape(conversation.model)}")
            if conversation.participant_id:
                facts.append(f"participant {html.escape(conversation.participant_id)}")
        label = code.label if code is not None else d.code
        self.where.setText(f"<span style='font-size:large'><b>{html.escape(label)}</b></span>"
                           f" &nbsp;·&nbsp; {' · '.join(facts)}")
        if self.transcript.conversation is not conversation:
            self.transcript.show_conversation(conversation, d.unit.position, d.unit.sentence,
                                              sentences, bool(d.unit.sentence))
        else:
            self.transcript.set_sentences(sentences, bool(d.unit.sentence))
            self.transcript.set_current(d.unit.position, d.unit.sentence)
        self.values_model.set_rows(coder_values(d, code))
        self.decision.show_state(d, can_decide)
