"""Projects kept on network drives or in sync clients' folders: not written there, with one
line saying why and what to do; a sync client's conflicted copies are pointed out, with the
command that merges them. (The tests run on a local disk: the file system is injected.)"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.errors import ProjectError
from sense7_coder.store import folders

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
ENV.pop(folders.ALLOW_ENV, None)


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sense7_coder", *map(str, args)],
                          capture_output=True, text=True, env=ENV, timeout=120)


MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
40 27 0:50 / /home rw,relatime - nfs4 server:/export/home rw,vers=4.2
41 40 0:51 / /home/ana/shared\\040drive rw - fuse.sshfs ana@host:/data rw
42 27 0:52 / /media/usb rw - fuseblk /dev/sdb1 rw
43 27 0:53 / /mnt/gd rw - fuse.rclone gdrive: rw
44 27 0:54 / /mnt/smb rw - cifs //nas/share rw
"""


@pytest.mark.parametrize("path, kind", [
    ("/home/ana/study.sense7", "nfs4"),
    ("/home/ana/shared drive/study.sense7", "fuse.sshfs"),  # the nearest mount wins
    ("/home/ana/shared drivex/study.sense7", "nfs4"),
    ("/media/usb/study.sense7", "fuseblk"),
    ("/mnt/gd/x/study.sense7", "fuse.rclone"),
    ("/mnt/smb/study.sense7", "cifs"),
    ("/srv/study.sense7", "ext4"),
])
def test_the_mount_table_names_the_file_system_of_a_path(path: str, kind: str) -> None:
    assert folders.mount_type(Path(path), MOUNTINFO) == kind


@pytest.mark.parametrize("magic, mounted, remote", [
    (0x6969, None, "nfs"),                      # NFS
    (0xFF534D42, None, "cifs"),                 # SMB/CIFS
    (0xFE534D42, None, "smb2"),
    (0x01021997, None, "9p"),                   # 9p (WSL's Windows drives, VMs)
    (0x5346414F, None, "afs"),
    (0x65735546, "fuse.sshfs", "fuse.sshfs"),   # FUSE: the mount table says which
    (0x65735546, "fuse.onedriver", "fuse.onedriver"),
    (0x65735546, "fuseblk", None),              # ntfs-3g on a local disk
    (0xEF53, None, None),                       # ext4
    (None, "nfs", "nfs"),                       # no statfs: the mount table alone
    (None, "xfs", None),
])
def test_network_and_fuse_file_systems_are_told_from_local_ones(
        monkeypatch: pytest.MonkeyPatch, magic: int | None, mounted: str | None,
        remote: str | None) -> None:
    monkeypatch.setattr(folders.sys, "platform", "linux")
    monkeypatch.setattr(folders, "_linux_statfs_type", lambda _p: magic)
    table = f"27 1 0:1 / / rw - {mounted or 'ext4'} src rw\n"
    monkeypatch.setattr(folders, "_mountinfo", lambda: table)
    assert folders.file_system(Path("/data/study.sense7")) == remote


def test_the_real_statfs_of_this_disk_is_read() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux statfs")
    assert folders._linux_statfs_type(Path("/proc")) == 0x9FA0  # procfs
    assert folders.file_system(Path("/proc")) is None


@pytest.mark.parametrize("parts, client", [
    (("Dropbox",), "Dropbox"),
    (("Dropbox (Univ of X)", "lab"), "Dropbox"),
    (("OneDrive - Contoso",), "OneDrive"),
    (("Google Drive", "My Drive"), "Google Drive"),
    (("Library", "Mobile Documents", "com~apple~CloudDocs"), "iCloud Drive"),
    (("Box",), "Box"),
    (("Box", "study"), "Box"),
    (("Library", "CloudStorage", "Whatever-ana"), "a cloud storage provider"),
    (("research", "dropboxes"), None),
    (("boxes",), None),
    # a common word is a sync folder only at the top of the home folder
    (("research", "Box"), None),
    (("projects", "mega"), None),
])
def test_sync_clients_folders_are_known_by_name(tmp_path: Path, parts: tuple[str, ...],
                                                client: str | None,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path))
    assert folders.sync_client(tmp_path.joinpath(*parts)) == client


def test_a_syncthing_folder_is_known_by_its_marker(tmp_path: Path) -> None:
    (tmp_path / "synced").mkdir()
    (tmp_path / "synced" / ".stfolder").mkdir()
    assert folders.sync_client(tmp_path / "synced" / "a" / "b") == "Syncthing"


# -- what the researcher sees ----------------------------------------------------------------

def _in(folder: Path, demo_project: Path) -> Path:
    folder.mkdir(parents=True)
    target = folder / demo_project.name
    shutil.copyfile(demo_project, target)
    return target


@pytest.mark.parametrize("folder", ["Dropbox", "OneDrive - Univ", "Google Drive/My Drive",
                                    "Library/Mobile Documents/com~apple~CloudDocs"])
def test_a_project_in_a_synced_folder_is_not_written_and_says_what_to_do(
        demo_project: Path, tmp_path: Path, folder: str) -> None:
    path = _in(tmp_path / folder, demo_project)
    before = path.read_bytes()
    proc = cli("info", path)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "synced by" in lines[0] and "sense7-coder merge" in lines[0]
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no -wal, no backup
    # a new project there too
    proc = cli("init", path.with_name("new.sense7"))
    assert proc.returncode != 0 and "synced by" in proc.stderr
    assert not path.with_name("new.sense7").exists()


def test_a_project_on_a_network_file_system_is_refused_unless_allowed(
        demo_project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from sense7_coder.cli import main
    from sense7_coder.project import Project

    monkeypatch.setattr(folders, "file_system", lambda _p: "nfs4")
    monkeypatch.delenv(folders.ALLOW_ENV, raising=False)
    before = demo_project.read_bytes()
    with pytest.raises(ProjectError, match=r"network or remote file system \(nfs4\)"):
        Project.open(demo_project)
    assert main(["agreement", str(demo_project)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nfs4" in err[0] and "merge" in err[0]
    assert demo_project.read_bytes() == before
    assert not demo_project.with_name(demo_project.name + "-wal").exists()
    # the researcher who knows the risk (one user, one computer) may open it anyway
    monkeypatch.setenv(folders.ALLOW_ENV, "1")
    assert main(["info", str(demo_project)]) == 0
    assert "opened anyway" in capsys.readouterr().err


def test_a_package_may_be_written_into_a_synced_folder_and_merged_from_there(
        demo_project: Path, tmp_path: Path) -> None:
    """Handing a package to a coder through a sync client is what such folders are for:
    it is written once, closed, and only read again (by merge)."""
    from sense7_coder.project import Project
    from sense7_coder.project.assignments import assign

    with Project.open(demo_project, backup=False) as project:
        project.set_coder("lead", "adjudicator")
        coder = project.coders()[0]["name"]
        assign(project, [coder], seed=0)
    out = tmp_path / "Dropbox" / "package.sense7"
    out.parent.mkdir()
    proc = cli("package", demo_project, coder, out)
    assert proc.returncode == 0, proc.stderr
    assert cli("merge", demo_project, out).returncode == 0


# -- conflicted copies ----------------------------------------------------------------------

CONFLICTED = ["sense7-demo (Ana's conflicted copy 2024-05-01).sense7",
              "sense7-demo (1).sense7",
              "sense7-demo.sync-conflict-20240501-101010-ABCDEFG.sense7",
              "sense7-demo (conflicted copy 2024-05-01 101010).sense7"]
NOT_CONFLICTED = ["sense7-demo-notes.sense7", "sense7-demo (1).csv", "other (1).sense7",
                  "sense7-demo-LAPTOP7.sense7"]


def test_conflicted_copies_beside_a_project_are_offered_for_merging(
        demo_project: Path) -> None:
    for name in CONFLICTED + NOT_CONFLICTED:
        shutil.copyfile(demo_project, demo_project.with_name(name))
    proc = cli("info", demo_project)
    assert proc.returncode == 0, proc.stderr
    notes = [ln for ln in proc.stderr.splitlines() if "conflicted" in ln]
    assert len(notes) == 1
    for name in CONFLICTED:
        assert name in notes[0]
    for name in NOT_CONFLICTED:
        assert name not in notes[0]
    # the line holds the command that brings them in, as it stands
    command = shlex.split(notes[0].split("to bring their work in: ", 1)[1])
    assert command[:2] == ["sense7-coder", "merge"]
    proc = cli(*command[1:])
    assert proc.returncode == 0, proc.stderr


def test_onedrive_s_computer_name_copies_are_spotted_in_its_folder_only(
        demo_project: Path, tmp_path: Path) -> None:
    path = _in(tmp_path / "OneDrive", demo_project)
    shutil.copyfile(path, path.with_name("sense7-demo-LAPTOP7.sense7"))
    assert folders.conflicted_copies(path) == [path.with_name("sense7-demo-LAPTOP7.sense7")]
    shutil.copyfile(demo_project, demo_project.with_name("sense7-demo-LAPTOP7.sense7"))
    assert folders.conflicted_copies(demo_project) == []


def test_the_window_says_which_conflicted_copies_to_merge_and_offers_to(
        gui: Any, demo_project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sense7_coder.ui.analysis.menu import AnalysisMenu

    copy = demo_project.with_name("sense7-demo (Ana's conflicted copy 2024-05-01).sense7")
    shutil.copyfile(demo_project, copy)
    asked: list[list[Path]] = []
    monkeypatch.setattr(AnalysisMenu, "merge_files", lambda self, sources: asked.append(
        list(sources)))
    window = gui.open(demo_project)
    box = window.notes_box
    assert box is not None and box.isVisible()
    assert copy.name in box.text() and "merge" in box.text()
    merge = next(b for b in box.buttons() if b.text().startswith("Merge"))
    merge.click()
    assert asked == [[copy]]  # the merge dialog, the copies listed in it
