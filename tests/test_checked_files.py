"""A project file that passed the page check and has not changed since is not checked again;
any change to it, or a record someone edited, means it is checked again."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from sense7_coder.domain.errors import ProjectError
from sense7_coder.paths import user_cache_dir
from sense7_coder.project import Project
from sense7_coder.store import checked, db


@pytest.fixture
def page_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether each verify_project call of the test read every page."""
    calls: list[bool] = []
    real = db.verify_project

    def spy(conn: object, path: Path, **kw: bool) -> int:
        calls.append(kw.get("pages", True))
        return real(conn, path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(db, "verify_project", spy)
    yield calls


def open_and_close(path: Path, calls: list[bool]) -> list[bool]:
    calls.clear()
    Project.open(path, backup=False).close()
    return list(calls)


def test_an_unchanged_file_is_checked_once(demo_project: Path, page_checks: list[bool]) -> None:
    assert any(open_and_close(demo_project, page_checks))
    assert not any(open_and_close(demo_project, page_checks))
    assert not any(open_and_close(demo_project, page_checks))


def test_a_saved_change_means_the_next_open_checks_again(demo_project: Path,
                                                         page_checks: list[bool]) -> None:
    open_and_close(demo_project, page_checks)
    p = Project.open(demo_project, backup=False)
    try:
        p.set_setting("export_note", "after the check")
    finally:
        p.close()
    assert any(open_and_close(demo_project, page_checks))


def test_damage_written_after_a_check_is_still_found(demo_project: Path,
                                                     page_checks: list[bool]) -> None:
    open_and_close(demo_project, page_checks)
    size = demo_project.stat().st_size
    stamp = demo_project.stat().st_mtime_ns
    with open(demo_project, "r+b") as f:  # the same size, the old modification time
        f.seek(size // 2)
        f.write(b"\xff" * 4096)
    os.utime(demo_project, ns=(stamp, stamp))
    with pytest.raises(ProjectError, match="damaged"):
        Project.open(demo_project, backup=False)


def test_a_hand_edited_or_broken_record_only_costs_a_check(demo_project: Path,
                                                          page_checks: list[bool]) -> None:
    open_and_close(demo_project, page_checks)
    record = user_cache_dir() / f"checked-projects-v{checked.CHECKS}.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    key = str(demo_project.resolve())
    data[key] = [x + 1 for x in data[key]]
    record.write_text(json.dumps(data), encoding="utf-8")
    assert any(open_and_close(demo_project, page_checks))
    for junk in ("not json", "[1, 2]", json.dumps({key: "healthy"}), ""):
        record.write_text(junk, encoding="utf-8")
        assert any(open_and_close(demo_project, page_checks)), junk
    assert checked.known_healthy(demo_project)  # and the record is whole again


def test_a_pass_recorded_by_an_older_version_is_checked_again(
        demo_project: Path, page_checks: list[bool]) -> None:
    """A version whose checks on opening were fewer recorded the file as healthy: this
    version checks it once in its own right (a value an older one let through is found)."""
    open_and_close(demo_project, page_checks)
    record = user_cache_dir() / f"checked-projects-v{checked.CHECKS}.json"
    (record.parent / "checked-projects.json").write_text(record.read_text(encoding="utf-8"),
                                                         encoding="utf-8")
    record.unlink()
    assert any(open_and_close(demo_project, page_checks))
    assert not any(open_and_close(demo_project, page_checks))


def test_a_copy_is_checked_in_its_own_right(demo_project: Path, tmp_path: Path,
                                            page_checks: list[bool]) -> None:
    import shutil

    open_and_close(demo_project, page_checks)
    copy = tmp_path / "copy" / demo_project.name
    copy.parent.mkdir()
    shutil.copy2(demo_project, copy)  # the same size and times, another file
    assert any(open_and_close(copy, page_checks))


def test_links_planted_in_the_cache_never_reach_a_project_file(
        demo_project: Path, tmp_path: Path, page_checks: list[bool]) -> None:
    """Someone links the record (and the names a writer might use) to a project file: the
    record is neither read through the link nor written through it."""
    import shutil
    import sqlite3

    other = tmp_path / "other" / demo_project.name
    other.parent.mkdir()
    shutil.copyfile(demo_project, other)
    before = other.read_bytes()
    cache = user_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    for pid in range(os.getpid() - 5, os.getpid() + 5):  # the old fixed partial names
        (cache / f".checked-projects-v{checked.CHECKS}.json.{pid}.part").symlink_to(other)
    record = cache / f"checked-projects-v{checked.CHECKS}.json"
    record.symlink_to(other)
    with Project.open(other, backup=False):  # held open while another file is opened
        assert any(open_and_close(demo_project, page_checks))
        assert not any(open_and_close(demo_project, page_checks))  # the record works again
    assert other.read_bytes() == before
    assert not record.is_symlink()  # replaced by a file of its own, the link target kept
    record.unlink()
    os.link(other, record)  # a hard link: the same file under the record's name
    assert not checked.known_healthy(demo_project)
    with sqlite3.connect(other) as conn:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
