"""Per-user folders (data, settings) without depending on Qt."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PROJECT_SUFFIX = ".sense7"


def user_data_dir() -> Path:
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / "sense7-coder"
