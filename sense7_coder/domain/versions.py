"""The versions of the libraries that compute the figures, for the methods paragraph and
the metadata of every export: a study's figures can only be recomputed with the same
numpy, scipy and krippendorff (``requirements/lock.txt`` pins them)."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec

#: the libraries whose code computes the agreement figures and intervals
LIBRARIES = ("numpy", "scipy", "krippendorff")
#: what Help > About names besides the app, Qt and Python: the computing libraries and the
#: ones that read, write and draw the files
ABOUT_LIBRARIES = ("numpy", "scipy", "pandas", "krippendorff", "matplotlib", "openpyxl",
                   "pyreadstat", "spacy", "xmlschema")
NOT_INSTALLED = "not installed"
#: a library that imports but whose installed metadata is missing (a bundle built without
#: it): its version cannot be told, which is not the same as its absence
UNKNOWN = "version unknown"


def library_version(name: str) -> str:
    """The installed version of the distribution ``name`` (its import name is the same),
    read from its metadata, so nothing heavy is imported."""
    try:
        return version(name)
    except PackageNotFoundError:
        return UNKNOWN if find_spec(name) is not None else NOT_INSTALLED


def library_versions(names: Iterable[str] = LIBRARIES) -> dict[str, str]:
    """Each of ``names`` (default :data:`LIBRARIES`) with its installed version ("not
    installed" where absent)."""
    return {name: library_version(name) for name in names}


def computed_with(app: str, app_version: str) -> dict[str, str]:
    """The app and each library with its version, the app first."""
    return {app: app_version, **library_versions()}


