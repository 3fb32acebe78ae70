"""The Analysis menu of the main window: agreement, reconciliation, analyses, export, merge.

The windows are imported when first opened. One agreement and one reconciliation window per
main window; both close when their project closes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QMessageBox, QStackedWidget, QWidget

from ...project import Project
from ...project.changes import EVERYTHING, Changes


@runtime_checkable
class AnalysisHost(Protocol):
    """What the menu needs of the window it serves (the main window provides it; the menu
    does not import the main window, which imports the menu)."""

    project: Project | None
    stack: QStackedWidget

    def add_analysis_action(self, action: QAction) -> None: ...

    def coder_changed(self) -> None: ...

    def check_elsewhere(self) -> None: ...

    def publish_changes(self, changes: Changes, *, outside: bool = False) -> None: ...

    def listen(self, slot: Callable[[Changes], None]) -> None: ...


class AnalysisMenu(QObject):
    """Adds the analysis actions to ``window`` (through ``window.add_analysis_action``)."""

    def __init__(self, window: QWidget) -> None:
        if not isinstance(window, AnalysisHost):
            raise TypeError(f"{type(window).__name__} cannot hold the Analysis menu")
        super().__init__(window)
        self.window = window
        self.panels: dict[str, QWidget] = {}
        self.menu_actions: dict[str, QAction] = {}
        for name, text, keys, tip, slot in (
            ("agreement", "&Agreement…", "Ctrl+Shift+A",
             "Krippendorff's alpha, kappa and the coders against the users", self.agreement),
            ("reconcile", "&Reconcile disagreements…", "Ctrl+Shift+R",
             "Decide the consensus where coders differ", self.reconcile),
            ("analyses", "Analyses and &predictions…", "",
             "The paper's analyses (tables, figures) and empathy-level predictors",
             self.analyses),
            ("export", "&Export tables…", "Ctrl+E",
             "Long, wide, consensus, agreement or codebook tables as CSV, Excel (.xlsx) or "
             "SPSS (.sav), or the coded project for other QDA tools (REFI-QDA .qdpx)",
             self.export),
            ("merge", "&Merge coders' project files…", "",
             "Bring the coders' copies of this project together", self.merge),
        ):
            action = QAction(text, window)
            if keys:
                action.setShortcut(QKeySequence(keys))
            action.setStatusTip(tip)
            action.setToolTip(tip)
            action.triggered.connect(slot)
            window.add_analysis_action(action)
            self.menu_actions[name] = action
        # the window as the timer's context: closing it switches the stack, and a timer
        # that fired after the window was deleted would call into a deleted window
        window.stack.currentChanged.connect(
            lambda _i: QTimer.singleShot(0, window, self.close_stale))

    def _project(self) -> Any:
        project = self.window.project
        if project is None:
            QMessageBox.information(self.window, "Analysis", "Open a project first.")
        return project

    def _blind(self, project: Any, title: str, name: str) -> bool:
        """Refuse a window that would show what blind coding hides; True when refused (the
        item is greyed with the reason then: this answers a call from elsewhere)."""
        from ..sight_actions import closed_reason

        why = closed_reason(project.sight(), name)
        if why is None:
            return False
        QMessageBox.information(self.window, title, f"{why[:1].upper()}{why[1:]}. Ask your "
                                "lead, or code as the lead.")
        return True

    def close_stale(self) -> None:
        """Close windows whose project is no longer the window's open project."""
        for name, panel in list(self.panels.items()):
            if getattr(panel, "project", None) is not self.window.project:
                panel.close()
                panel.deleteLater()
                del self.panels[name]

    def _show(self, panel: QWidget) -> None:
        from ..accessibility import name_controls

        name_controls(panel)  # every control a name a screen reader can say
        panel.show()
        panel.raise_()
        panel.activateWindow()

    def agreement(self) -> QWidget | None:
        project = self._project()
        if project is None:
            return None
        from .agreement_panel import AgreementPanel

        if self._blind(project, "Agreement", "agreement"):
            return None
        panel = self.panels.get("agreement")
        if isinstance(panel, AgreementPanel):
            panel.load_choices()  # coders or conversations may have come in since
        else:
            panel = self.panels["agreement"] = AgreementPanel(project, self.window)
            self.window.listen(panel.show_changes)  # figures go out of date, choices follow
        self._show(panel)
        return panel

    def reconcile(self) -> QWidget | None:
        project = self._project()
        if project is None:
            return None
        from .reconcile_panel import ReconcilePanel

        if self._blind(project, "Reconcile", "reconcile"):
            return None
        panel = self.panels.get("reconcile")
        if isinstance(panel, ReconcilePanel):
            panel.update_role()
        else:
            panel = ReconcilePanel(project, self.window)
            panel.changed.connect(self.window.publish_changes)
            panel.coderChanged.connect(self.window.coder_changed)
            self.window.listen(panel.show_changes)
            self.panels["reconcile"] = panel
        self._show(panel)
        return panel

    def analyses(self) -> QWidget | None:
        project = self._project()
        if project is None:
            return None
        from .analysis_panel import AnalysisPanel

        if self._blind(project, "Analyses", "analyses"):
            return None
        panel = self.panels.get("analyses")
        if isinstance(panel, AnalysisPanel):
            panel.load_choices()
        else:
            panel = self.panels["analyses"] = AnalysisPanel(project, self.window)
            panel.changed.connect(lambda changes, outside: self.window.publish_changes(
                changes, outside=outside))
            self.window.listen(panel.show_changes)
            panel.evaluate()
        self._show(panel)
        return panel

    def export(self) -> None:
        project = self._project()
        if project is None:
            return
        from .export_dialog import ExportDialog

        if self._blind(project, "Export", "export"):
            return
        ExportDialog(project, self.window).exec()

    def merge(self) -> None:
        self.merge_files(())

    def merge_files(self, sources: Sequence[Path]) -> None:
        """The merge dialog with ``sources`` listed already (say a sync client's conflicted
        copies of the project)."""
        project = self._project()
        if project is None:
            return
        from .merge_dialog import MergeDialog

        if self._blind(project, "Merge", "merge"):
            return
        dialog = MergeDialog(project, self.window)
        if sources:
            dialog.set_sources(list(sources))
        if dialog.exec() == QDialog.DialogCode.Accepted or dialog.merged:
            # the merge wrote through its own connection: what it changed goes to the views
            # (not reported as "changed in another window")
            report = dialog.report
            self.window.publish_changes(report.changes if report is not None else EVERYTHING,
                                        outside=True)
