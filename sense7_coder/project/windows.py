"""Who codes in which window on a project file, across programs.

Each window records itself in the file when it takes a coder (:func:`enter`), says when
it switches coder (:func:`switch`) and deletes its row when it closes (:func:`leave`).
Another window opening the same file -- in this program or another, on this computer or
another one that shares the folder -- reads the record (:func:`others`): when another
window is open it asks who is coding instead of taking the last coder used, and before
two windows write as the same coder it says so (:func:`same_coder`). A row left by a
program that ended without closing (killed, a crash) is recognised on the computer that
wrote it by its process being gone, and deleted; one from another computer counts until
that computer's window closes it.

The record changes no value: the history does not follow it and a merge or package does
not carry it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import socket
from dataclasses import dataclass

from ..store import windows as store_windows
from .project import Project


@dataclass(frozen=True)
class OpenWindow:
    """A window recorded as open on the file."""

    id: int
    coder: str
    host: str
    pid: int
    started_at: str

    def line(self) -> str:
        """'ann (since 10:42, program 4242 on this computer)'."""
        since = self.started_at
        with contextlib.suppress(ValueError):
            moment = dt.datetime.fromisoformat(since.replace("Z", "+00:00")).astimezone()
            since = moment.strftime("%H:%M" if moment.date() == dt.date.today()
                                    else "%Y-%m-%d %H:%M")
        where = "this computer" if self.host == host_name() else self.host
        return f"{self.coder} (since {since}, program {self.pid} on {where})"


def host_name() -> str:
    return socket.gethostname() or "unknown"


def _alive(pid: int) -> bool:
    """Is the process ``pid`` of this computer running (when unsure: yes)?"""
    if pid == os.getpid():
        return True
    if pid <= 0:
        return False
    if os.name == "nt":  # os.kill would end the process there
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process, or a check not allowed: it exists
    return True


def _alive_windows(pid: int) -> bool:  # pragma: no cover - Windows only
    import ctypes

    kernel32 = getattr(ctypes, "windll").kernel32  # noqa: B009 - on Windows only
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return kernel32.GetLastError() == 5  # access denied: it exists
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def others(project: Project, mine: int | None = None) -> list[OpenWindow]:
    """The windows open on the file besides ``mine``; stale rows are deleted."""
    here = host_name()
    found = [OpenWindow(**row) for row in store_windows.windows(project.db)]
    stale = [w.id for w in found if w.host == here and not _alive(w.pid)]
    if stale:
        with project.pdb.atomic() as db:
            store_windows.remove(db, stale)
    return [w for w in found if w.id not in stale and w.id != mine]


def same_coder(project: Project, coder: str | None, mine: int | None = None
               ) -> list[OpenWindow]:
    """The other open windows that write as ``coder``."""
    return [w for w in others(project, mine) if coder is not None and w.coder == coder]


def enter(project: Project, coder: str) -> int:
    """Record a window of this program coding as ``coder``; its id."""
    with project.pdb.atomic() as db:
        return store_windows.add(db, coder, host_name(), os.getpid())


def switch(project: Project, window: int, coder: str) -> int:
    """The window now codes as ``coder`` (recorded again if its row was deleted); its id."""
    with project.pdb.atomic() as db:
        if store_windows.set_coder(db, window, coder):
            return window
        return store_windows.add(db, coder, host_name(), os.getpid())


def leave(project: Project, window: int) -> None:
    """The window closes: its row goes."""
    with project.pdb.atomic() as db:
        store_windows.remove(db, [window])
