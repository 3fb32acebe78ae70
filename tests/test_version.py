"""One version: pyproject.toml's, shown by --version and the About box, and in the changelog."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

import sense7_coder
from sense7_coder import UNKNOWN_VERSION, read_version
from sense7_coder.cli import main

ROOT = Path(__file__).resolve().parents[1]


def pyproject_version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        return str(tomllib.load(fh)["project"]["version"])


def test_the_package_reports_pyprojects_version() -> None:
    assert sense7_coder.__version__ == pyproject_version()


def test_version_option_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"sense7-coder {pyproject_version()}"


def test_a_checkouts_pyproject_wins_over_stale_metadata(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "sense7-coder"\nversion = "9.8.7"\n', encoding="utf-8")
    assert read_version(tmp_path) == "9.8.7"


def test_another_projects_pyproject_is_not_ours(tmp_path: Path) -> None:
    """Installed into a folder that has some other pyproject.toml above it: use metadata."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "something-else"\nversion = "5.0"\n', encoding="utf-8")
    try:
        expected = version("sense7-coder")
    except PackageNotFoundError:
        expected = UNKNOWN_VERSION
    assert read_version(tmp_path) == expected


def test_a_broken_pyproject_falls_back_to_metadata(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project\nname = ", encoding="utf-8")
    assert read_version(tmp_path) in (UNKNOWN_VERSION, *_installed())


def _installed() -> tuple[str, ...]:
    try:
        return (version("sense7-coder"),)
    except PackageNotFoundError:
        return ()


def test_the_changelog_has_an_entry_for_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in text
    assert f"## [{pyproject_version()}]" in text


@pytest.mark.gui
def test_the_about_box_shows_it(qtbot: object) -> None:
    from sense7_coder.ui.help import about_html, versions

    assert versions()["sense7-coder"] == pyproject_version()
    assert f"<td>{pyproject_version()}</td>" in about_html()


def test_library_versions_tell_a_missing_record_from_a_missing_library() -> None:
    """A bundle without the libraries' metadata said "scipy not installed" while scipy
    computed the figures; an importable library without a record is "version unknown"."""
    from sense7_coder.domain.versions import library_version, library_versions

    assert library_versions() == {name: version(name)
                                  for name in ("numpy", "scipy", "krippendorff")}
    assert library_version("json") == "version unknown"  # imports; no distribution
    assert library_version("no_such_library_s7") == "not installed"
