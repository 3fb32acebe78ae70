"""The top bar of the reconciliation window: who decides, which code and units are shown,
how many are decided, reading the queue again."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from ...domain.codebook.codes import Codebook
from ...project import Project
from ...project.reconcile import Disagreement
from .adjudicator import AdjudicatorBar

SHOW_CHOICES = (("all", "All"), ("open", "Undecided"), ("decided", "Decided"))


class ReconcileBar(QWidget):
    """Filters and progress of the queue; the panel connects the combos and buttons."""

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = AdjudicatorBar(project, self)
        self.code_filter = QComboBox(self)
        self.code_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.show_filter = QComboBox(self)
        for key, text in SHOW_CHOICES:
            self.show_filter.addItem(text, key)
        self.progress = QProgressBar(self)
        self.progress.setFixedWidth(160)
        self.progress.setTextVisible(False)
        self.progress_label = QLabel(self)
        self.reload_button = QPushButton("Reload", self)
        self.reload_button.setAutoDefault(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.role)
        layout.addStretch(1)
        layout.addWidget(QLabel("Code", self))
        layout.addWidget(self.code_filter)
        layout.addWidget(QLabel("Show", self))
        layout.addWidget(self.show_filter)
        layout.addWidget(self.progress_label)
        layout.addWidget(self.progress)
        layout.addWidget(self.reload_button)

    def fill_codes(self, queue: Sequence[Disagreement], book: Codebook) -> None:
        """'all codes (n)' and every code with disagreements; keeps the code chosen."""
        counts: dict[str, int] = {}
        for d in queue:
            counts[d.code] = counts.get(d.code, 0) + 1
        wanted = self.code_filter.currentData()
        self.code_filter.blockSignals(True)
        self.code_filter.clear()
        self.code_filter.addItem(f"all codes ({len(queue)})", None)
        for code in book.codes:
            if code.key in counts:
                self.code_filter.addItem(f"{code.label} ({counts[code.key]})", code.key)
        if wanted is not None and self.code_filter.findData(wanted) >= 0:
            self.code_filter.setCurrentIndex(self.code_filter.findData(wanted))
        self.code_filter.blockSignals(False)

    def show_progress(self, decided: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(decided)
        self.progress.setFormat(f"{decided} of {total} decided")
        self.progress_label.setText(f"<b>{decided}</b> of {total} decided")
