"""Who decides: the current coder's role, and a way to work as an adjudicator."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QLabel, QPushButton, QWidget

from ...domain.errors import ProjectError
from ...project import Project
from ...project.analysis_view import adjudicators
from ..palette import error_style
from ..wording import error_text


def can_decide(project: Project) -> bool:
    """Only an adjudicator sets the consensus."""
    return project.adjudicator is not None


class AdjudicatorBar(QWidget):
    """'Adjudicating as dana', or a warning that a coder cannot decide, and a button to switch."""

    switched = Signal()  # the project's current coder changed here
    failed = Signal(str)

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.label = QLabel(self)
        self.button = QPushButton("Adjudicate as…", self)
        self.button.setAutoDefault(False)
        self.button.clicked.connect(self.ask)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.button)
        self.refresh()

    def refresh(self) -> None:
        coder = self.project.coder
        decider = self.project.adjudicator
        if decider is not None:
            text = f"Adjudicating as <b>{html.escape(decider)}</b>"
            if coder and coder != decider:
                # a separate identity: the workspace still codes as the coder
                text += f" (your codings stay <b>{html.escape(coder)}</b>'s)"
            self.label.setText(text)
            self.button.setText("Switch adjudicator…")
        elif coder:
            self.label.setText(
                f"<span style='{error_style(self)}'>Working as <b>{html.escape(coder)}</b> (a coder): "
                "only an adjudicator can decide.</span>")
            self.button.setText("Adjudicate as…")
        else:
            self.label.setText("Choose who adjudicates to decide.")
            self.button.setText("Adjudicate as…")

    def become(self, name: str) -> None:
        """Decide as ``name`` (an adjudicator; a lead may make a new name or a coder one).

        Whose codings the workspace writes does not change."""
        self.project.set_adjudicator(name)
        self.refresh()
        self.switched.emit()

    def ask(self) -> None:
        name, ok = QInputDialog.getItem(
            self, "Who adjudicates?",
            "Decide as (adjudicating is separate from coding: your own codings stay yours;\n"
            "a lead may add a new adjudicator or make a coder one):",
            adjudicators(self.project), 0, True)
        if ok and name.strip():
            try:
                self.become(name.strip())
            except ProjectError as e:
                self.failed.emit(error_text(e))
