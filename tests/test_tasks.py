"""The off-thread task runner: results, errors and cancellation reach the GUI thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QDialogButtonBox, QWidget

from sense7_coder.domain.errors import Cancelled, InputError
from sense7_coder.project import Project
from sense7_coder.ui.tasks import (
    ProgressDialog,
    TaskError,
    TaskRunner,
    run_blocking,
    stop_all_jobs,
    with_own_project,
)

pytestmark = pytest.mark.gui


def wait_for_cancel(progress: Any, cancel: Any) -> None:
    """A job that runs until Cancel is pressed (at most 10 s), then stops like the domain does."""
    deadline = time.monotonic() + 10
    while not cancel():
        progress(0, 0)
        if time.monotonic() > deadline:
            raise AssertionError("never cancelled")
        time.sleep(0.005)
    raise Cancelled()


def test_result_and_progress_arrive_on_the_gui_thread(qtbot: Any) -> None:
    gui = threading.get_ident()
    seen: dict[str, Any] = {"progress": []}

    def job(progress: Any, cancel: Any) -> int:
        seen["worker"] = threading.get_ident()
        for i in range(1, 6):
            progress(i, 5)
            time.sleep(0.05)
        return 42

    def on_result(value: int) -> None:
        seen["result"] = value
        seen["result_thread"] = threading.get_ident()

    runner = TaskRunner(None)
    task = runner.start(job, show_progress=False, on_result=on_result)
    task.progressed.connect(lambda done, total: seen["progress"].append((done, total)))
    qtbot.waitUntil(lambda: "result" in seen, timeout=5000)
    assert seen["result"] == 42
    assert seen["worker"] != gui  # the job ran off the GUI thread
    assert seen["result_thread"] == gui  # the callback ran on it
    assert seen["progress"][-1] == (5, 5)
    assert not runner.running


def test_domain_error_is_its_own_message(qtbot: Any) -> None:
    errors: list[TaskError] = []

    def job(progress: Any, cancel: Any) -> None:
        raise InputError("talks.csv", "the conversation id is empty", "line 7", "conversation_id")

    TaskRunner(None).start(job, show_progress=False, on_error=errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert errors[0].message == "talks.csv, line 7, field 'conversation_id': the conversation id is empty"
    assert errors[0].details == ""


def test_unexpected_error_gets_a_short_message_and_the_traceback(qtbot: Any) -> None:
    errors: list[TaskError] = []

    def job(progress: Any, cancel: Any) -> float:
        return 1 / 0

    TaskRunner(None).start(job, show_progress=False, on_error=errors.append)
    qtbot.waitUntil(lambda: bool(errors), timeout=5000)
    assert errors[0].message.startswith("Something went wrong: ZeroDivisionError")
    assert "Traceback" in errors[0].details and "1 / 0" in errors[0].details


def test_cancel_stops_the_job_and_reports_cancelled(qtbot: Any) -> None:
    events: list[str] = []
    runner = TaskRunner(None)
    task = runner.start(wait_for_cancel, show_progress=False,
                        on_result=lambda _r: events.append("result"),
                        on_error=lambda _e: events.append("error"),
                        on_cancelled=lambda: events.append("cancelled"))
    qtbot.wait(50)
    assert not task.done
    task.cancel()
    assert task.wait(5)
    assert events == ["cancelled"]
    assert task.was_cancelled


def test_progress_dialog_cancel_button_cancels(qtbot: Any) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    cancelled: list[bool] = []
    task = TaskRunner(parent).start(wait_for_cancel, title="Slow job",
                                    on_cancelled=lambda: cancelled.append(True))
    dialogs = parent.findChildren(ProgressDialog)
    assert len(dialogs) == 1
    dialog = dialogs[0]
    qtbot.waitUntil(dialog.isVisible, timeout=3000)  # shown once the job takes a while
    assert dialog.windowTitle() == "Slow job"
    dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    assert "Cancelling" in dialog.label.text()
    assert task.wait(5)
    assert cancelled == [True]
    assert not dialog.isVisible()


def test_the_window_has_the_keyboard_again_after_a_slow_job(qtbot: Any) -> None:
    """Closing the progress dialog hands the keyboard back to the window the job came from
    (Enter then runs the next thing there, not nowhere)."""
    from PySide6.QtWidgets import QApplication

    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    parent.activateWindow()
    qtbot.waitUntil(parent.isActiveWindow, timeout=2000)
    release = threading.Event()
    task = TaskRunner(parent).start(lambda p, c: release.wait(10), title="Slow job")
    dialog = parent.findChildren(ProgressDialog)[0]
    qtbot.waitUntil(lambda: dialog.isVisible() and dialog.isActiveWindow(), timeout=3000)
    release.set()
    assert task.wait(5)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is parent, timeout=2000)


class ShowSpy(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.shown = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            self.shown += 1
        return False


def test_quick_job_never_flashes_a_dialog(qtbot: Any) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    task = TaskRunner(parent).start(lambda p, c: "done")
    dialog = parent.findChildren(ProgressDialog)[0]
    spy = ShowSpy()
    dialog.installEventFilter(spy)
    assert task.wait(5)
    qtbot.wait(400)  # past the moment a slow job's dialog appears
    assert task.result == "done"
    assert spy.shown == 0


def test_quitting_cancels_running_jobs(qtbot: Any) -> None:
    cancelled: list[bool] = []
    task = TaskRunner(None).start(wait_for_cancel, show_progress=False,
                                  on_cancelled=lambda: cancelled.append(True))
    qtbot.wait(20)
    assert stop_all_jobs(5)  # what the app does when it quits
    assert task.wait(5)
    assert cancelled == [True]


def test_run_blocking_returns_and_raises(qapp: Any) -> None:
    assert run_blocking(lambda p, c: "ok") == "ok"
    with pytest.raises(InputError, match="bad row"):
        run_blocking(lambda p, c: (_ for _ in ()).throw(InputError("f.csv", "bad row")))
    with pytest.raises(Cancelled):
        run_blocking(lambda p, c: (_ for _ in ()).throw(Cancelled()))


def test_with_own_project_writes_on_its_own_connection(qapp: Any, tmp_path: Path) -> None:
    project = Project.create(tmp_path / "p.sense7")
    try:
        def job(own: Project, progress: Any, cancel: Any) -> bool:
            own.set_setting("note", "written by the worker")
            return own.pdb.conn is not project.pdb.conn

        assert run_blocking(with_own_project(project.path, job)) is True
        assert project.changed_elsewhere()
        assert project.setting("note") == "written by the worker"
    finally:
        project.close()


def test_a_job_that_outlives_its_window_calls_nothing_of_it(qtbot: Any) -> None:
    """The backup copied on opening a project can finish after the window is closed and
    deleted (on a busy machine it does): its callbacks must not run then, or the next
    event loop raises 'Internal C++ object (MainWindow) already deleted' in whatever test
    or window runs it. A job whose window is alive still reports as before."""
    import shiboken6

    release = threading.Event()
    calls: list[str] = []

    def slow(progress: Any, cancel: Any) -> int:
        release.wait(10)
        return 1

    def boom(progress: Any, cancel: Any) -> int:
        release.wait(10)
        raise InputError("late.csv", "late failure")

    window = QWidget()
    runner = TaskRunner(window)
    done = runner.start(slow, show_progress=False,
                        on_result=lambda _v: calls.append(window.windowTitle()),
                        on_finished=lambda: calls.append(window.objectName()))
    failed = runner.start(boom, show_progress=False,
                          on_error=lambda _e: calls.append(window.objectName()))
    window.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(window), timeout=5000)
    release.set()
    qtbot.waitUntil(lambda: done.done and failed.done, timeout=10000)
    qtbot.wait(20)
    assert calls == []
    assert failed.error is not None and "late failure" in failed.error.message

    alive = QWidget()
    qtbot.addWidget(alive)
    alive.setWindowTitle("here")
    task = TaskRunner(alive).start(lambda _p, _c: 2, show_progress=False,
                                   on_result=lambda v: calls.append(f"{alive.windowTitle()} {v}"))
    qtbot.waitUntil(lambda: task.done, timeout=10000)
    assert calls == ["here 2"]
