"""A coder's package is whole on its own: after every acknowledged write the one .sense7
file holds it, whether the window was quit, sent SIGTERM or killed with kill -9; the
window treats SIGTERM and SIGHUP as File › Quit; a journal beside a package is played
back only when it is the package's own."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from analysis_support import conversation_lines, make_project
from test_beside_files import dump  # the whole file as SQL, read from a copy

from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.assignments import assign, assigned_to
from sense7_coder.project.merge.merging import merge
from sense7_coder.project.package import make_package

REPO = Path(__file__).resolve().parents[1]
#: POSIX signals (on Windows os.kill ends a process outright, whatever the signal)
POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
SIGNAL = {name: getattr(signal, name, None) for name in ("SIGTERM", "SIGHUP", "SIGKILL")}
SIDE = ("-wal", "-shm", "-journal")

#: the real window, offscreen, coding through its project once every 20 ms and printing
#: each value once the window's call returned (acknowledged), until it is stopped
WINDOW = textwrap.dedent("""
    import os, sys
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QTimer
    from sense7_coder.domain.models import Unit
    from sense7_coder.ui import app as ui_app
    from sense7_coder.ui.main_window import MainWindow

    path, coder, ids = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    qapp = ui_app.make_app()
    count = [0]

    def window():
        return next(w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow))

    def tick():
        w = window()
        if w.project is None or count[0] >= 3000:
            return
        i = count[0]
        cid, value = ids[i % len(ids)], i % 5 + 1
        w.workspace.hub.publish(w.project.set_value(Unit(cid, 2), "overall", value).changes)
        print(cid, value, flush=True)
        count[0] += 1
        QTimer.singleShot(20, tick)

    def start():
        if not window().open_project(path, coder):
            sys.exit(3)
        print("open", flush=True)
        tick()

    QTimer.singleShot(0, start)
    sys.exit(ui_app.run_app(None))
""")


def beside(path: Path) -> list[str]:
    """What SQLite keeps beside the file (the backups folder is the project's own)."""
    return sorted(p.name for p in path.parent.iterdir()
                  if p.name in (path.name + s for s in SIDE))


def study_and_package(tmp_path: Path) -> tuple[Project, Path, list[str]]:
    study = make_project(tmp_path, "study.sense7", conversation_lines(
        [(f"k{i:02d}", f"P{i}", "M", 3, 4) for i in range(6)]))
    assign(study, ["a", "b"], seed=0)
    package = tmp_path / "a.sense7"
    make_package(study, "a", package)
    return study, package, assigned_to(study, "a")


def run_window(path: Path, coder: str, ids: list[str], stop: signal.Signals,
               after: int = 12) -> tuple[dict[str, int], int]:
    """Start the window on ``path``, let it acknowledge ``after`` values, send ``stop``;
    every value it acknowledged (the last per conversation) and its exit status."""
    proc = subprocess.Popen([sys.executable, "-c", WINDOW, str(path), coder, ",".join(ids)],
                            cwd=REPO, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.stdout is not None
    acknowledged: dict[str, int] = {}
    n = 0
    try:
        for line in proc.stdout:
            if line.strip() == "open":
                continue
            cid, value = line.split()
            acknowledged[cid] = int(value)
            n += 1
            if n == after:
                os.kill(proc.pid, stop)
                if stop == SIGNAL["SIGKILL"]:
                    break
        # what it acknowledged between the signal and its quit is read too
        status = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert n >= after, "the window did not start coding"
    return acknowledged, status


def values_of(path: Path, coder: str) -> dict[str, int]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return dict(conn.execute(
            "SELECT conversation_id, value FROM codings WHERE coder = ? AND code = 'overall' "
            "AND position = 2", [coder]).fetchall())
    finally:
        conn.close()


def send_alone(package: Path, folder: Path) -> Path:
    """The package as a coder mails it: the one file, copied to another folder."""
    folder.mkdir()
    sent = folder / package.name
    shutil.copyfile(package, sent)
    return sent


def test_a_package_is_made_and_kept_in_rollback_mode_with_nothing_beside_it(
        tmp_path: Path) -> None:
    study, package, mine = study_and_package(tmp_path)
    study.close()
    assert package.read_bytes()[18:20] == b"\x01\x01"  # rollback journal, not WAL
    assert beside(package) == []
    with Project.open(package, backup=False) as coder:
        coder.set_coder("a")
        coder.set_value(Unit(mine[0], 2), "overall", 4)
        # open and just written: the file alone holds it, nothing lies beside it
        assert beside(package) == []
        assert values_of(send_alone(package, tmp_path / "sent"), "a") == {mine[0]: 4}


def test_a_package_of_an_earlier_version_in_wal_mode_is_switched_when_opened(
        tmp_path: Path) -> None:
    study, package, mine = study_and_package(tmp_path)
    study.close()
    conn = sqlite3.connect(package)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    assert package.read_bytes()[18:20] == b"\x02\x02"
    with Project.open(package, backup=False) as coder:
        coder.set_coder("a")
        coder.set_value(Unit(mine[0], 2), "overall", 2)
        assert beside(package) == []
    assert package.read_bytes()[18:20] == b"\x01\x01"


@POSIX
@pytest.mark.gui
@pytest.mark.parametrize("stop", [SIGNAL["SIGTERM"], SIGNAL["SIGKILL"]],
                         ids=["sigterm", "kill-9"])
def test_a_package_stopped_and_sent_alone_merges_with_every_acknowledged_value(
        tmp_path: Path, stop: signal.Signals) -> None:
    study, package, mine = study_and_package(tmp_path)
    acknowledged, status = run_window(package, "a", mine, stop)
    if stop == SIGNAL["SIGTERM"]:
        assert status == 0  # a clean quit
    assert beside(package) == []
    sent = send_alone(package, tmp_path / "mail")
    merge(study, [sent])
    merged = dict(study.db.execute(
        "SELECT conversation_id, value FROM codings WHERE coder = 'a' AND code = 'overall'"))
    for cid, value in acknowledged.items():
        # the last acknowledged value, or (killed) the next one, written just before
        assert merged[cid] in (value, value % 5 + 1), (cid, merged[cid], value)
    if stop == SIGNAL["SIGTERM"]:
        assert {cid: merged[cid] for cid in acknowledged} == acknowledged
    study.close()


@POSIX
@pytest.mark.gui
@pytest.mark.parametrize("stop", [SIGNAL["SIGTERM"], SIGNAL["SIGHUP"]],
                         ids=["sigterm", "sighup"])
def test_the_window_quits_cleanly_on_sigterm_and_sighup_leaving_no_log(
        tmp_path: Path, stop: signal.Signals) -> None:
    """A project shared in WAL mode: the signal closes it, so its log is folded in."""
    study = make_project(tmp_path, "study.sense7", conversation_lines(
        [(f"k{i:02d}", f"P{i}", "M", 3, 4) for i in range(4)]))
    study.close()
    path = tmp_path / "study.sense7"
    acknowledged, status = run_window(path, "ann", ["k00", "k01", "k02", "k03"], stop)
    assert status == 0
    assert beside(path) == []
    assert values_of(send_alone(path, tmp_path / "alone"), "ann") == acknowledged


# -- a journal beside a package ----------------------------------------------------------------

CRASH_MID_COMMIT = textwrap.dedent("""
    import os, sqlite3, sys
    c = sqlite3.connect(sys.argv[1], isolation_level=None)
    c.execute("PRAGMA cache_size = 1")  # pages reach the file before the commit
    c.execute("BEGIN IMMEDIATE")
    version = c.execute("PRAGMA user_version").fetchone()[0]
    c.execute(f"PRAGMA user_version = {version}")  # the first page is journaled
    c.execute("CREATE TABLE z (y)")
    c.execute("INSERT INTO z WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
              "WHERE i < 200) SELECT randomblob(3000) FROM n")
    os._exit(0)  # killed half-way: the file holds some new pages, the journal the old
""")


def crash_mid_commit(path: Path) -> Path:
    """Kill a commit on ``path`` half-way; its journal (left beside it)."""
    before = path.read_bytes()
    subprocess.run([sys.executable, "-c", CRASH_MID_COMMIT, str(path)], check=True, timeout=60)
    journal = path.with_name(path.name + "-journal")
    assert journal.stat().st_size > 0
    assert path.read_bytes() != before  # the file was written to: the journal must undo it
    return journal


def test_a_package_s_own_journal_of_an_interrupted_commit_is_played_back(
        tmp_path: Path) -> None:
    study, package, mine = study_and_package(tmp_path)
    study.close()
    with Project.open(package, backup=False) as coder:
        coder.set_coder("a")
        coder.set_value(Unit(mine[0], 2), "overall", 5)
        texts = coder.db.execute("SELECT text FROM turns ORDER BY rowid").fetchall()
    crash_mid_commit(package)
    with Project.open(package, backup=False) as again:  # integrity-checked on opening
        assert again.db.execute("SELECT text FROM turns ORDER BY rowid").fetchall() == texts
        assert again.db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'z'"
                                ).fetchone()[0] == 0
        values = values_of(package, "a")
        # SQLite leaves the played journal with its header zeroed (nothing to play) until
        # the next commit deletes it
        again.set_coder("a")
        again.set_value(Unit(mine[1], 2), "overall", 1)
    assert values == {mine[0]: 5}
    assert values_of(package, "a") == {mine[0]: 5, mine[1]: 1}
    assert beside(package) == []


def test_a_journal_of_another_database_or_of_a_copy_beside_a_package_is_refused(
        tmp_path: Path) -> None:
    study, package, mine = study_and_package(tmp_path)
    study.close()
    # the package's copy, interrupted in a commit after the package itself moved on
    copy = tmp_path / "copy" / package.name
    copy.parent.mkdir()
    shutil.copyfile(package, copy)
    with Project.open(package, backup=False) as coder:
        coder.set_coder("a")
        coder.set_value(Unit(mine[0], 2), "overall", 3)
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE u (y)")
    conn.executemany("INSERT INTO u VALUES (?)", [("b" * 500,)] * 300)
    conn.commit()
    conn.close()
    journals = {"another database": crash_mid_commit(other),
                "a copy": crash_mid_commit(copy)}
    before = dump(package)
    side = package.with_name(package.name + "-journal")
    target = Project.create(tmp_path / "target.sense7")
    for what, journal in journals.items():
        shutil.copyfile(journal, side)
        with pytest.raises(ProjectError) as refused:
            Project.open(package, backup=False)
        message = str(refused.value)
        assert str(package) in message and side.name in message, what
        assert "\n" not in message and "nothing was changed" in message, what
        assert dump(package) == before, what  # not played back
        assert side.read_bytes() == journal.read_bytes(), what  # and left as it was
        with pytest.raises(ProjectError, match=side.name):
            merge(target, [package])
        assert dump(package) == before, what
    target.close()
    side.unlink()
    with Project.open(package, backup=False):
        assert values_of(package, "a") == {mine[0]: 3}


# -- merge and a log beside its source ---------------------------------------------------------

#: an earlier version's package: WAL mode, its program killed with the last value in -wal
KILLED_IN_WAL = textwrap.dedent("""
    import os, sqlite3, sys
    c = sqlite3.connect(sys.argv[1], isolation_level=None)
    c.execute("PRAGMA journal_mode = WAL")
    c.execute("PRAGMA wal_autocheckpoint = 0")
    c.execute("INSERT INTO codings(coder, conversation_id, position, sentence, code, value) "
              "VALUES ('a', ?, 2, 0, 'overall', 4)", [sys.argv[2]])
    os._exit(0)
""")


def test_merge_reads_the_log_beside_a_package_and_warns_when_none_came_with_it(
        tmp_path: Path) -> None:
    study, package, mine = study_and_package(tmp_path)
    subprocess.run([sys.executable, "-c", KILLED_IN_WAL, str(package), mine[0]], check=True,
                   timeout=60)
    wal = package.with_name(package.name + "-wal")
    assert wal.stat().st_size > 0
    sent = send_alone(package, tmp_path / "mail")  # before anything reads it
    before = package.read_bytes(), wal.read_bytes()
    report = merge(study, [package], dry_run=True)
    assert report.sources[0].codings == 1  # the value in the log is merged
    assert any(wal.name in note and "read with" in note for note in report.sources[0].notes)
    assert (package.read_bytes(), wal.read_bytes()) == before  # the source left as it was
    alone = merge(study, [sent], dry_run=True)
    assert alone.sources[0].codings == 0  # the log did not travel: not merged in silence
    warning = [line for line in alone.lines() if wal.name in line]
    assert len(warning) == 1 and str(sent) in warning[0] and "earlier version" in warning[0]
    study.close()


def test_merge_of_a_project_open_in_a_window_reads_what_it_committed(tmp_path: Path) -> None:
    target = make_project(tmp_path, "target.sense7", conversation_lines(
        [(f"k{i:02d}", f"P{i}", "M", 3, 4) for i in range(3)]))
    source_folder = tmp_path / "source"
    source_folder.mkdir()
    source = make_project(source_folder, "source.sense7", conversation_lines(
        [(f"k{i:02d}", f"P{i}", "M", 3, 4) for i in range(3)]))
    source.set_coder("ann")
    for i in range(3):
        source.set_value(Unit(f"k{i:02d}", 2), "overall", i + 1)
    report = merge(target, [source.path])
    assert report.sources[0].codings == 3
    assert dict(target.db.execute("SELECT conversation_id, value FROM codings")) == {
        "k00": 1, "k01": 2, "k02": 3}
    source.close()
    target.close()
