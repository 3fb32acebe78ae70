"""What the window remembers between sessions, in QSettings.

Recent project files, the window's geometry and layout, and per project the last coder and
the last position (conversation, turn, sentence). Set ``SENSE7_CODER_SETTINGS`` to an INI
file path to keep settings somewhere else (the tests do, so they never touch the user's).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from .. import APP_NAME

ORGANIZATION = "sense7-coder"
ENV_VAR = "SENSE7_CODER_SETTINGS"
RECENT_MAX = 10


@functools.lru_cache(maxsize=64)
def _key(path: str | Path) -> str:
    resolved = str(Path(path).expanduser().resolve())
    return hashlib.sha1(resolved.encode("utf-8")).hexdigest()[:16]


class Settings:
    """A thin, typed wrapper over QSettings."""

    def __init__(self) -> None:
        override = os.environ.get(ENV_VAR)
        if override:
            self.qs = QSettings(override, QSettings.Format.IniFormat)
        else:
            self.qs = QSettings(ORGANIZATION, APP_NAME)

    def sync(self) -> None:
        self.qs.sync()

    # -- recent files ------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.qs.value("recent/files", [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return []
        return [str(v) for v in value if v]

    def add_recent(self, path: str | Path) -> None:
        text = str(Path(path).expanduser().resolve())
        files = [f for f in self.recent_files() if f != text]
        self.qs.setValue("recent/files", [text, *files][:RECENT_MAX])

    def remove_recent(self, path: str | Path) -> None:
        text = str(Path(path).expanduser().resolve())
        self.qs.setValue("recent/files", [f for f in self.recent_files() if f != text])

    # -- window ------------------------------------------------------------------------------
    def window_state(self, name: str) -> QByteArray | None:
        value = self.qs.value(f"window/{name}")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_window_state(self, name: str, data: QByteArray) -> None:
        self.qs.setValue(f"window/{name}", data)

    # -- preferences -------------------------------------------------------------------------
    def auto_advance(self) -> bool:
        return str(self.qs.value("coding/auto_advance", "true")).lower() in ("true", "1")

    def set_auto_advance(self, on: bool) -> None:
        self.qs.setValue("coding/auto_advance", "true" if on else "false")

    # -- per project -------------------------------------------------------------------------
    def last_coder(self, project: str | Path) -> str | None:
        value = self.qs.value(f"projects/{_key(project)}/coder")
        return str(value) if value else None

    def set_last_coder(self, project: str | Path, coder: str) -> None:
        self.qs.setValue(f"projects/{_key(project)}/coder", coder)

    def last_position(self, project: str | Path) -> tuple[str, int, int] | None:
        group = f"projects/{_key(project)}"
        cid = self.qs.value(f"{group}/conversation")
        if not cid:
            return None
        try:
            pos = int(str(self.qs.value(f"{group}/position", 0)))
            sent = int(str(self.qs.value(f"{group}/sentence", 0)))
        except (TypeError, ValueError):
            return None
        return str(cid), pos, sent

    def set_last_position(self, project: str | Path, cid: str, pos: int, sent: int = 0) -> None:
        group = f"projects/{_key(project)}"
        self.qs.setValue(f"{group}/conversation", cid)
        self.qs.setValue(f"{group}/position", pos)
        self.qs.setValue(f"{group}/sentence", sent)
