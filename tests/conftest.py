"""Shared test fixtures: offscreen Qt, the shared data folder, a fresh demo project."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# the cache (the record of checked project files) of this test run alone, for the command
# lines the tests start as well: no test skips a page check because of the developer's own use
_RUN_CACHE = tempfile.mkdtemp(prefix="sense7-coder-test-cache-")
os.environ["SENSE7_CODER_CACHE"] = _RUN_CACHE
atexit.register(shutil.rmtree, _RUN_CACHE, ignore_errors=True)

#: the ``shared/data`` folder that sits beside the repository (read in place, never copied)
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not present ({SHARED_DATA})")
    return SHARED_DATA


@pytest.fixture(scope="session")
def _demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sense7_coder.project.demo import build_demo

    return build_demo(tmp_path_factory.mktemp("demo-template"))


@pytest.fixture
def demo_project(tmp_path: Path, _demo_template: Path) -> Path:
    """A fresh copy of the demo project (built once per session with build_demo)."""
    target = tmp_path / _demo_template.name
    shutil.copyfile(_demo_template, target)
    return target


@pytest.fixture(autouse=True)
def _private_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GUI's QSettings and the cache go to files of the test, never the user's own."""
    monkeypatch.setenv("SENSE7_CODER_SETTINGS", str(tmp_path / "settings.ini"))
    # the record of checked project files, too (a test never skips a check because of
    # another test or the developer's own use)
    monkeypatch.setenv("SENSE7_CODER_CACHE", str(tmp_path / "cache"))


# -- driving the real window (GUI tests) ---------------------------------------------------------

class GuiDriver:
    """Opens a real main window on a project and types into it like a person would."""

    def __init__(self, qtbot: Any) -> None:
        self.qtbot = qtbot
        from sense7_coder.store import codings as store_codings

        self.MISSING = store_codings.MISSING

    def open(self, path: Path, coder: str | None = "dana") -> Any:
        from PySide6.QtWidgets import QApplication

        from sense7_coder.ui.main_window import MainWindow

        window = MainWindow()
        self.qtbot.addWidget(window)
        window.show()
        self.qtbot.waitExposed(window)
        assert window.open_project(path, coder=coder)
        window.activateWindow()
        assert window.workspace is not None
        window.workspace.coding.setFocus()
        self.qtbot.waitUntil(lambda: QApplication.focusWidget() is window.workspace.coding,
                             timeout=2000)
        return window

    def press(self, window: Any, *keys: Any, modifier: Any = None) -> None:
        """Type keys where a person's keys would go: the widget that has the focus."""
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QApplication

        mod = modifier if modifier is not None else Qt.KeyboardModifier.NoModifier
        for key in keys:
            target = QApplication.focusWidget() or window
            if isinstance(key, str):
                self.qtbot.keyClicks(target, key, mod)
            else:
                self.qtbot.keyClick(target, key, mod)

    @staticmethod
    def stored(path: Path, coder: str, cid: str, pos: int, code: str, sentence: int = 0) -> Any:
        """A coding as a second program reading the file sees it (MISSING if absent)."""
        from sense7_coder.domain.models import Unit
        from sense7_coder.project import Project
        from sense7_coder.store import codings as store_codings

        with Project.open(path, backup=False) as p:
            return store_codings.get_coding(p.db, coder, Unit(cid, pos, sentence), code)

    @staticmethod
    def stored_done(path: Path, coder: str, cid: str, pos: int) -> bool:
        from sense7_coder.project import Project
        from sense7_coder.store import codings as store_codings

        with Project.open(path, backup=False) as p:
            return store_codings.get_done(p.db, coder, cid, pos)

    @staticmethod
    def synthetic(path: Path, conversations: int, turns: int = 4,
                  codebook: str = "sense7") -> Path:
        """A project of many small generated conversations, written straight through the store."""
        from sense7_coder.domain.models import Conversation, Turn
        from sense7_coder.project import Project
        from sense7_coder.resources import resolve_codebook
        from sense7_coder.store import conversations as store_conv

        convs = [
            Conversation(
                conversation_id=f"c{i:05d}", participant_id=f"P{i % 7}",
                model=("GPT4", "Llama2-70b", "IC")[i % 3],
                turns=[Turn(t + 1, "user" if t % 2 == 0 else "assistant",
                            f"Message {t + 1} of conversation {i}. It has two sentences.")
                       for t in range(turns)],
            )
            for i in range(conversations)
        ]
        with Project.create(path, resolve_codebook(codebook)) as p, p.pdb.atomic() as db:
            store_conv.insert_conversations(db, convs)
        return path


@pytest.fixture
def gui(qtbot: Any) -> GuiDriver:
    return GuiDriver(qtbot)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that drives Qt (through ``qtbot`` or ``gui``) is a GUI test, whatever its
    file: ``-m "not gui"`` runs only the headless ones."""
    for item in items:
        if {"qtbot", "gui"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.gui)
