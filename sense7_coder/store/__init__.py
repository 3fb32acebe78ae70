"""Storage layer: the only place with SQL. One SQLite file per project, via sqlite-utils."""

from __future__ import annotations

import sqlite3
import sys

#: what SQLite raises when a project file fails below the store's own checks (a damaged or
#: unreadable file); the layers above catch this name and never import sqlite3 themselves
StorageError = sqlite3.Error


def sqlite_version() -> str:
    """The version of the SQLite library the store runs on (for the About box)."""
    return sqlite3.sqlite_version


#: imported by sqlite-utils when present, only to map their scalar types to column types
_OPTIONAL_OF_SQLITE_UTILS = ("pandas", "numpy")


def _import_sqlite_utils_alone() -> None:
    """Import sqlite-utils without letting it load pandas and numpy.

    ``sqlite_utils.db`` imports pandas and numpy whenever they are installed, only so that
    ``table.insert()`` can pick a column type for their scalars (``numpy.int64`` ->
    INTEGER). The store creates every table with its own SQL and never lets sqlite-utils
    infer a type, but the import alone costs a quarter of a second, which a light command
    (``info``, ``codebook list``) must not pay. So the first import of sqlite-utils sees
    them as absent; a later ``import pandas`` anywhere works as usual. Where pandas or
    numpy are already loaded nothing is hidden.
    """
    if "sqlite_utils.db" in sys.modules:
        return
    hidden = [name for name in _OPTIONAL_OF_SQLITE_UTILS if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` fail
    try:
        import sqlite_utils.db  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]


_import_sqlite_utils_alone()
