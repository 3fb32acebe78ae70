"""The agreement window shows a model beside the coders and the users, and leaves it out
when asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from test_suggest_agreement import _copy_alice

from sense7_coder.project import Project
from sense7_coder.ui.analysis.agreement_panel import AgreementPanel

pytestmark = pytest.mark.gui


def _raters(panel: AgreementPanel) -> list[str]:
    panel.tabs.setCurrentIndex(2)
    panel.results.pair_code.setCurrentIndex(panel.results.pair_code.findData("affective"))
    m = panel.results.pair_model
    return [m.headerData(c, Qt.Orientation.Horizontal) for c in range(1, m.columnCount())]


def test_the_window_compares_a_model_with_coders_and_users(qtbot: Any, demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        _copy_alice(p)
        panel = AgreementPanel(p)
        qtbot.addWidget(panel)
        panel.bootstrap.setValue(0)
        panel.show()
        assert panel.include_models.isChecked()
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        assert panel.wait(60) and panel.error is None, panel.error
        assert "model:mirror" in _raters(panel)
        panel.include_models.setChecked(False)
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        assert panel.wait(60) and panel.error is None, panel.error
        assert "model:mirror" not in _raters(panel)
