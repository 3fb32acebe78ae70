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


def user_cache_dir() -> Path:
    """Where sense7-coder keeps what it can always rebuild (``SENSE7_CODER_CACHE`` wins)."""
    override = os.environ.get("SENSE7_CODER_CACHE")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
        return base / "sense7-coder" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "sense7-coder"
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sense7-coder"
