"""A window in another program on the same file: the second window asks who is coding, as
a second window in the same program does, and two windows never write as one coder
without saying so. A killed window's record is recognised as stale."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project import windows as project_windows
from sense7_coder.project.watch import ChangeWatch

REPO = Path(__file__).resolve().parents[1]

#: the real window in a program of its own, offscreen, open on a file as a coder
OTHER_WINDOW = textwrap.dedent("""
    import os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QTimer
    from sense7_coder.ui import app as ui_app
    from sense7_coder.ui.main_window import MainWindow

    qapp = ui_app.make_app()

    def start():
        window = next(w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow))
        window.confirm_same_coder = lambda *_a: True
        if not window.open_project(sys.argv[1], sys.argv[2]):
            sys.exit(3)
        print("open", window.project.coder, flush=True)

    QTimer.singleShot(0, start)
    sys.exit(ui_app.run_app(None))
""")


class OtherProgram:
    """A window in another process; ended by SIGTERM (its clean quit) or kill -9."""

    def __init__(self, path: Path, coder: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", OTHER_WINDOW, str(path), coder], cwd=REPO,
            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().split()
        assert line == ["open", coder], line

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self, how: int = signal.SIGTERM) -> int:
        os.kill(self.proc.pid, how)
        return self.proc.wait(timeout=120)

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def other_program() -> Any:
    if sys.platform == "win32":  # it is ended by POSIX signals (SIGTERM: its clean quit)
        pytest.skip("POSIX signals")
    started: list[OtherProgram] = []

    def start(path: Path, coder: str) -> OtherProgram:
        started.append(OtherProgram(path, coder))
        return started[-1]

    yield start
    for program in started:
        program.end()


def window(qtbot: Any) -> Any:
    from sense7_coder.ui.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    return w


def test_a_window_in_another_program_makes_a_second_window_ask_who_is_coding(
        gui: Any, qtbot: Any, demo_project: Path, other_program: Any) -> None:
    other = other_program(demo_project, "dana")  # and dana is remembered for the file
    second = window(qtbot)
    asked: list[Any] = []

    def ask(project: Any, suggested: Any) -> bool:
        asked.append(suggested)
        project.set_coder("emil")
        return True

    second.ask_coder = ask
    second.confirm_same_coder = lambda *_a: pytest.fail("took dana, remembered, unasked")
    assert second.open_project(demo_project)
    assert asked == [None] and second.project.coder == "emil"
    seen = project_windows.others(second.project, second.presence.id)
    assert [(w.coder, w.pid) for w in seen] == [("dana", other.pid)]
    assert other.stop() == 0  # its quit takes its record with it
    assert project_windows.others(second.project, second.presence.id) == []
    second.close()
    with Project.open(demo_project, backup=False) as project:
        assert project_windows.others(project) == []  # the last window's record went too


def test_two_windows_never_write_as_one_coder_without_saying_so(
        gui: Any, qtbot: Any, demo_project: Path, other_program: Any) -> None:
    other = other_program(demo_project, "dana")
    told: list[list[str]] = []

    def decline(project: Any, same: list[Any]) -> bool:
        told.append([w.line() for w in same])
        return False

    second = window(qtbot)
    second.confirm_same_coder = decline
    second.ask_coder = lambda project, _s: (project.set_coder("emil"), True)[1]
    assert second.open_project(demo_project, "dana")
    assert second.project.coder == "emil"  # said so, and another coder was chosen
    assert len(told) == 1 and told[0][0].startswith("dana (since ")
    assert f"program {other.pid} on this computer" in told[0][0]
    # switching to dana in this window says so too; declined, it stays emil
    second.ask_coder = lambda project, _s: (project.set_coder("dana"), True)[1]
    second.switch_coder()
    assert len(told) == 2 and second.project.coder == "emil"
    # accepted: both write as dana, knowingly
    second.confirm_same_coder = lambda *_a: True
    second.switch_coder()
    assert second.project.coder == "dana"
    coders = sorted(w.coder for w in project_windows.others(second.project))
    assert coders == ["dana", "dana"]
    second.close()
    assert other.stop() == 0


def test_a_killed_window_s_record_is_stale_and_asks_nothing(
        gui: Any, qtbot: Any, demo_project: Path, other_program: Any) -> None:
    other = other_program(demo_project, "dana")
    assert other.stop(getattr(signal, "SIGKILL")) != 0  # noqa: B009 - POSIX only
    second = window(qtbot)
    second.confirm_same_coder = lambda *_a: pytest.fail("asked about a killed window")
    second.ask_coder = lambda *_a: pytest.fail("asked who is coding beside a killed window")
    assert second.open_project(demo_project, "dana")
    rows = [(w.coder, w.pid) for w in project_windows.others(second.project)]
    assert rows == [("dana", os.getpid())]  # the killed window's row is gone
    second.close()


def test_a_package_open_in_another_program_is_not_opened_again_silently(
        gui: Any, qtbot: Any, tmp_path: Path, other_program: Any) -> None:
    from analysis_support import conversation_lines, make_project

    from sense7_coder.project.assignments import assign
    from sense7_coder.project.package import make_package

    with make_project(tmp_path, "study.sense7", conversation_lines(
            [(f"k{i:02d}", f"P{i}", "M", 3, 4) for i in range(4)])) as study:
        assign(study, ["a", "b"], seed=0)
        make_package(study, "a", tmp_path / "a.sense7")
    other = other_program(tmp_path / "a.sense7", "a")
    told: list[Any] = []
    second = window(qtbot)
    second.confirm_same_coder = lambda _p, same: told.append(same) is not None
    assert not second.open_project(tmp_path / "a.sense7")  # a package codes only as a
    assert len(told) == 1 and second.project is None
    assert other.stop() == 0


def test_the_record_of_windows_is_no_change_another_window_reloads_for(
        demo_project: Path) -> None:
    with Project.open(demo_project, backup=False) as first, \
            Project.open(demo_project, backup=False) as second:
        first.set_coder("ann")
        watch = ChangeWatch(first)
        entered = project_windows.enter(second, "bo")
        assert not watch.poll()  # nothing to show, nothing reloaded
        project_windows.leave(second, entered)
        assert not watch.poll()
        second.set_coder("bo")
        second.set_value(Unit("101", 2), "overall", 3)
        assert watch.poll().units == {("101", 2, 0)}


def test_a_hand_edited_record_of_windows_is_refused_in_one_line(demo_project: Path) -> None:
    from sense7_coder.domain.errors import ProjectError

    conn = sqlite3.connect(demo_project)
    conn.execute("INSERT INTO coder_windows(coder, host, pid, started_at) "
                 "VALUES ('ann', 'here', 'x1', '2026-01-01')")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError) as refused:
        Project.open(demo_project, backup=False)
    message = str(refused.value)
    assert str(demo_project) in message and "coder_windows" in message and "pid" in message
    assert "\n" not in message
