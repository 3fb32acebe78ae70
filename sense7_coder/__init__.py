"""sense7-coder: offline qualitative coding of human-AI conversations for empathy research."""

from __future__ import annotations

from pathlib import Path

APP_NAME = "sense7-coder"
#: the distribution's name on PyPI and in the installed metadata
DIST_NAME = "sense7-coder"
#: shown when neither a checkout's pyproject.toml nor installed metadata is found
UNKNOWN_VERSION = "0+unknown"


def read_version(checkout: Path | None = None) -> str:
    """The version: one source, ``version`` in pyproject.toml.

    Running from a checkout (pyproject.toml of this project beside the package), it is read
    from there, since an editable install's metadata keeps the version it was installed
    with; otherwise from the installed package's metadata, which pip copied from the same
    file. Cheap either way: no heavy import.
    """
    root = checkout if checkout is not None else Path(__file__).resolve().parent.parent
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        import tomllib

        try:
            with pyproject.open("rb") as fh:
                project = tomllib.load(fh).get("project", {})
            if project.get("name") == DIST_NAME and isinstance(project.get("version"), str):
                return str(project["version"])
        except (OSError, ValueError):
            pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DIST_NAME)
    except PackageNotFoundError:
        return UNKNOWN_VERSION


def __getattr__(name: str) -> str:
    """``__version__`` is read on first use: reading pyproject.toml loads ``tomllib``, which
    a light command (``--help``, ``info``) never needs."""
    if name == "__version__":
        version = read_version()
        globals()["__version__"] = version
        return version
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
