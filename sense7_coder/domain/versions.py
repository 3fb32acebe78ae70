"""The versions of the libraries that compute the figures, for the methods paragraph and
the metadata of every export: a study's figures can only be recomputed with the same
numpy, scipy and krippendorff (``requirements/lock.txt`` pins them)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

#: the libraries whose code computes the agreement figures and intervals
LIBRARIES = ("numpy", "scipy", "krippendorff")


def library_versions() -> dict[str, str]:
    """Each of :data:`LIBRARIES` with its installed version (read from the installed
    metadata, so nothing heavy is imported; "not installed" where absent)."""
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def computed_with(app: str, app_version: str) -> dict[str, str]:
    """The app and each library with its version, the app first."""
    return {app: app_version, **library_versions()}


def versions_text(app: str, app_version: str) -> str:
    """'sense7-coder 0.2.0 (numpy 2.4.6, scipy 1.17.1, krippendorff 0.9.0)'."""
    libs = ", ".join(f"{name} {v}" for name, v in library_versions().items())
    return f"{app} {app_version} ({libs})"
