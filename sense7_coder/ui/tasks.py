"""Running slow work off the GUI thread, with a progress dialog and a Cancel button.

A *job* is a plain Python function ``fn(progress, cancel) -> T``:

* ``progress(done, total)`` may be called as often as the job likes, from the worker thread;
  updates reach the GUI at most every few tens of milliseconds. ``total <= 0`` means "busy,
  amount unknown".
* ``cancel()`` turns true once the user pressed Cancel. The job polls it and raises
  :class:`~sense7_coder.domain.errors.Cancelled` (the domain's importers and writers do).
* The job must not touch widgets, nor the GUI's :class:`~sense7_coder.project.Project`.

SQLite threading contract: a ``Project``'s connection belongs to the GUI thread that opened
it. A job that reads or writes the project opens its *own* connection inside the worker,
``Project.open(path, backup=False)``, and closes it before returning;
:func:`with_own_project` wraps a job that way. When a writing job has finished, the GUI calls
``project.changed_elsewhere()`` (which drops cached state such as the codebook) and refreshes
its views. Never hand the GUI's ``Project`` to a job.

Results and errors are delivered on the GUI thread: ``on_result(value)``; ``on_error(TaskError)``
where a :class:`~sense7_coder.domain.errors.Sense7Error` becomes its own message and anything
else a short message plus the traceback as details; ``on_cancelled()`` when the job raised
``Cancelled``. :func:`run_blocking` runs a job the same way and waits for it (tests, scripts).
When the application quits, :func:`stop_all_jobs` cancels what still runs and waits for it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from ..domain.errors import Cancelled, Sense7Error
from ..domain.progress import CancelFn, ProgressFn
from ..domain.words import sentence
from .wording import error_text

if TYPE_CHECKING:
    from ..project import Project

log = logging.getLogger(__name__)

T = TypeVar("T")
JobFn = Callable[[ProgressFn, CancelFn], T]

#: least time between two progress updates sent to the GUI thread
PROGRESS_INTERVAL_S = 0.04
#: a job that ends sooner than this never shows its progress dialog
SHOW_DIALOG_AFTER_MS = 300
_STEPS = 1000


@dataclass(frozen=True)
class TaskError:
    """What went wrong, ready to show: ``message`` for everyone, ``details`` for a bug report."""

    message: str
    details: str = ""
    exception: BaseException | None = None


def describe_error(exc: BaseException) -> TaskError:
    if isinstance(exc, Sense7Error):
        return TaskError(error_text(exc), "", exc)
    text = str(exc).strip()
    if len(text) > 300:
        text = text[:297] + "..."
    message = f"Something went wrong: {type(exc).__name__}" + (f": {text}" if text else "")
    details = "".join(traceback.format_exception(exc))
    return TaskError(message, details, exc)


class Task(QObject):
    """One run of a job. Signals arrive on the GUI thread."""

    progressed = Signal(int, int)
    succeeded = Signal(object)
    failed = Signal(object)  # TaskError
    cancelled = Signal()
    finished = Signal()  # after exactly one of succeeded / failed / cancelled

    # emitted from the worker thread, received (queued) on the GUI thread
    _raw_progress = Signal(int, int)
    _raw_done = Signal(str, object)

    def __init__(self, title: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self._cancel = threading.Event()
        self.done = False
        self.result: Any = None
        self.error: TaskError | None = None
        self.was_cancelled = False
        self._raw_progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        self._raw_done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)

    # -- from any thread -------------------------------------------------------------------
    def cancel(self) -> None:
        """Ask the job to stop; it notices the next time it polls ``cancel()``."""
        self._cancel.set()

    # -- GUI thread --------------------------------------------------------------------------
    def wait(self, timeout_s: float = 30.0) -> bool:
        """Spin an event loop until the outcome has been delivered; False on timeout."""
        if self.done:
            return True
        loop = QEventLoop()
        self.finished.connect(loop.quit)
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)
        timer.start(int(timeout_s * 1000))
        loop.exec()
        timer.stop()
        self.finished.disconnect(loop.quit)
        return self.done

    @Slot(int, int)
    def _on_progress(self, done: int, total: int) -> None:
        if not self.done:
            self.progressed.emit(done, total)

    @Slot(str, object)
    def _on_done(self, kind: str, payload: object) -> None:
        self.done = True
        if kind == "ok":
            self.result = payload
            self.succeeded.emit(payload)
        elif kind == "cancelled":
            self.was_cancelled = True
            self.cancelled.emit()
        else:
            assert isinstance(payload, TaskError)
            self.error = payload
            self.failed.emit(payload)
        self.finished.emit()


class _Worker:
    """Runs one job on a pool thread and sends its outcome to the task (queued)."""

    def __init__(self, task: Task, fn: JobFn[Any]) -> None:
        self.task = task
        self.fn = fn
        self._last = 0.0

    def _progress(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last >= PROGRESS_INTERVAL_S or (total > 0 and done >= total):
            self._last = now
            self.task._raw_progress.emit(int(done), int(total))

    def run(self) -> None:
        task = self.task
        try:
            result = self.fn(self._progress, task._cancel.is_set)
        except Cancelled:
            task._raw_done.emit("cancelled", None)
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the GUI
            if not isinstance(exc, Sense7Error):
                log.error("background job %r failed", task.title, exc_info=exc)
            task._raw_done.emit("error", describe_error(exc))
        else:
            task._raw_done.emit("ok", result)


# Jobs run on Python threads rather than a QThreadPool: Python joins them at exit, so no
# job object is ever torn down by Qt on a pool thread while the interpreter shuts down.
_executor: ThreadPoolExecutor | None = None
_running: dict[Task, Future[None]] = {}
_lock = threading.Lock()
_quit_hooked = False


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=max(2, min(4, os.cpu_count() or 2)),
                                       thread_name_prefix="sense7-job")
    return _executor


def _submit(task: Task, fn: JobFn[Any]) -> None:
    global _quit_hooked
    app = QCoreApplication.instance()
    if app is not None and not _quit_hooked:
        app.aboutToQuit.connect(stop_all_jobs)
        _quit_hooked = True
    future = _pool().submit(_Worker(task, fn).run)
    with _lock:
        _running[task] = future
    future.add_done_callback(lambda _f: _forget(task))


def _forget(task: Task) -> None:
    with _lock:
        _running.pop(task, None)


def stop_all_jobs(timeout_s: float = 15.0) -> bool:
    """Cancel every running job and wait for them to end; True when all did.

    Connected to the application's ``aboutToQuit``: closing the app cancels an import
    rather than leaving it half-way or keeping the process alive.
    """
    with _lock:
        running = dict(_running)
    for task in running:
        task.cancel()
    _done, pending = futures_wait(list(running.values()), timeout=timeout_s)
    return not pending


class ProgressDialog(QDialog):
    """A window-modal dialog with a label, a progress bar and Cancel."""

    def __init__(self, task: Task, label: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.task = task
        self.setWindowTitle(task.title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(420)
        self.label = QLabel(label or task.title)
        self.label.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.buttons)
        task.progressed.connect(self.set_progress)

    @Slot(int, int)
    def set_progress(self, done: int, total: int) -> None:
        if total <= 0:
            self.bar.setRange(0, 0)
            return
        self.bar.setRange(0, _STEPS)
        self.bar.setValue(max(0, min(_STEPS, done * _STEPS // total)))

    def reject(self) -> None:  # Esc and Cancel ask the job to stop; the dialog stays
        if not self.task.done:
            self.task.cancel()
            self.label.setText("Cancelling… (finishing the current step; nothing will be kept)")
            self.buttons.setEnabled(False)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.task.done:
            event.accept()
        else:
            self.reject()
            event.ignore()


class TaskRunner(QObject):
    """Starts jobs on worker threads and keeps them alive until their outcome is delivered.

    Several jobs may run at once (each with its own :class:`Task`); the caller drops results
    it no longer wants (e.g. an outdated preview) by comparing tasks.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._widget = parent
        self._tasks: set[Task] = set()

    def _live_widget(self) -> QWidget | None:
        return self._widget if self._widget is not None and shiboken6.isValid(self._widget) else None

    @property
    def running(self) -> bool:
        return bool(self._tasks)

    def _while_alive(self, callback: Callable[..., None]) -> Callable[..., None]:
        """``callback``, run only while this runner and the widget it was made for still
        exist. A job outlives the window that started it (the backup copied on opening
        a project finishes after the window is closed, sooner or later on a busy
        machine); its callbacks touch that window, and calling into a deleted one raises
        'Internal C++ object already deleted' in whatever runs the event loop next."""
        def call(*args: Any) -> None:
            if not shiboken6.isValid(self):
                return
            if self._widget is not None and not shiboken6.isValid(self._widget):
                return
            callback(*args)

        return call

    def start(
        self,
        fn: JobFn[Any],
        *,
        title: str = "Working",
        label: str = "",
        on_result: Callable[[Any], None] | None = None,
        on_error: Callable[[TaskError], None] | None = None,
        on_cancelled: Callable[[], None] | None = None,
        on_finished: Callable[[], None] | None = None,
        show_progress: bool = True,
    ) -> Task:
        """Run ``fn(progress, cancel)`` on a worker thread; callbacks run on the GUI thread.

        Without ``on_error`` an error is shown in a message box over the parent widget.
        With ``show_progress`` a window-modal progress dialog with Cancel appears when the
        job takes longer than a moment.
        """
        task = Task(title)
        dialog: ProgressDialog | None = None
        if show_progress:
            dialog = ProgressDialog(task, label, self._widget)
            timer = QTimer(dialog)
            timer.setSingleShot(True)
            timer.timeout.connect(lambda: None if task.done else dialog.show())
            timer.start(SHOW_DIALOG_AFTER_MS)

        def finish(*_: object) -> None:
            # runs first (connected first): the dialog is gone before the callbacks run,
            # so they may open dialogs of their own
            if dialog is not None and shiboken6.isValid(dialog):
                had_focus = dialog.isVisible() and dialog.isActiveWindow()
                dialog.hide()
                dialog.deleteLater()
                owner = self._live_widget()
                if had_focus and owner is not None:
                    # the window the job was started from gets the keyboard back (not
                    # every platform hands it back when a dialog closes)
                    owner.window().activateWindow()
            self._tasks.discard(task)

        task.succeeded.connect(finish)
        task.failed.connect(finish)
        task.cancelled.connect(finish)
        if on_result is not None:
            task.succeeded.connect(self._while_alive(on_result))
        if on_error is not None:
            task.failed.connect(self._while_alive(on_error))
        else:
            task.failed.connect(self._while_alive(
                lambda err: show_task_error(self._live_widget(), title, err)))
        if on_cancelled is not None:
            task.cancelled.connect(self._while_alive(on_cancelled))
        if on_finished is not None:
            task.finished.connect(self._while_alive(on_finished))
        self._tasks.add(task)
        _submit(task, fn)
        return task


def show_task_error(parent: QWidget | None, title: str, error: TaskError) -> None:
    box = QMessageBox(QMessageBox.Icon.Warning, title, sentence(error.message),
                      QMessageBox.StandardButton.Ok, parent)
    if error.details:
        box.setDetailedText(error.details)
    box.exec()


def run_blocking(fn: JobFn[T], *, timeout_s: float = 60.0, title: str = "Working") -> T:
    """Run a job on a worker thread and wait for it; raise what it raised.

    Needs a Q(Core)Application. For tests and scripts; the GUI uses :class:`TaskRunner`.
    """
    runner = TaskRunner(None)
    task = runner.start(fn, title=title, on_error=lambda _e: None, show_progress=False)
    if not task.wait(timeout_s):
        task.cancel()
        raise TimeoutError(f"{title}: still running after {timeout_s:g} s")
    if task.was_cancelled:
        raise Cancelled()
    if task.error is not None:
        if task.error.exception is not None:
            raise task.error.exception
        raise Sense7Error(task.error.message)
    return task.result


def with_own_project(
    source: str | Path | Project, job: Callable[[Project, ProgressFn, CancelFn], T]
) -> JobFn[T]:
    """Wrap ``job(project, progress, cancel)`` so it runs on its own project connection
    (given an open project: acting as its coder does, see :meth:`Project.act_as`)."""

    def run(progress: ProgressFn, cancel: CancelFn) -> T:
        from ..project import Project

        owner = source if isinstance(source, Project) else None
        project = Project.open(owner.path if owner is not None else source,  # type: ignore[arg-type]
                               backup=False)
        try:
            if owner is not None:
                project.act_as(owner)
            return job(project, progress, cancel)
        finally:
            project.close()

    return run
