"""Folders where a project file is not safe: network drives and sync clients' folders.

SQLite's locks and its write-ahead log (``-wal``, ``-shm`` beside the file, shared memory
between the programs that have it open) need a local disk. On a network file system (NFS,
SMB/CIFS, AFS, 9p, FUSE mounts such as sshfs or a cloud drive) the locks may be ignored or
lost, and a sync client (Dropbox, OneDrive, Google Drive, iCloud Drive, Box, Syncthing)
copies the file and its log one by one, in the middle of a change, and makes "conflicted
copies" when two computers write. So a project in such a folder is not opened for writing
(see :func:`refuse_unsafe_folder`): the researcher copies it to a local folder, codes
there, and brings the work back with ``merge`` (which only reads the other file).
``SENSE7_CODER_ALLOW_SHARED_FOLDER=1`` opens it anyway, at the researcher's risk.

Detection: the file system's type (Linux ``statfs``'s ``f_type``, with
``/proc/self/mountinfo`` where ``statfs`` cannot be called or for FUSE's sub-type; macOS
``statfs``'s ``f_fstypename`` and ``MNT_LOCAL``; Windows ``GetDriveTypeW``), and the
folders sync clients use (by name, or the marker files they leave). Tests replace
:func:`file_system` since they run on local disks.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import re
import shlex
import sys
from pathlib import Path

from ..domain.errors import ProjectError

ALLOW_ENV = "SENSE7_CODER_ALLOW_SHARED_FOLDER"

#: Linux ``statfs`` f_type -> name, for file systems shared over a network (or a FUSE
#: mount, looked at more closely below)
LINUX_REMOTE = {
    0x6969: "nfs", 0x517B: "smb", 0xFF534D42: "cifs", 0xFE534D42: "smb2",
    0x65735546: "fuse", 0x5346414F: "afs", 0x6B414653: "afs", 0x01021997: "9p",
    0x73757245: "coda", 0x564C: "ncp", 0x00C36400: "ceph", 0x0BD00BD0: "lustre",
    0x01161970: "gfs2", 0x7461636F: "ocfs2", 0x19830326: "orangefs", 0x786F4256: "vboxsf",
    0x47504653: "gpfs",
}
#: mountinfo file system types shared over a network
REMOTE_TYPES = {"nfs", "nfs4", "smb", "smb2", "smb3", "smbfs", "cifs", "afs", "9p", "coda",
                "ncp", "ncpfs", "ceph", "lustre", "gfs2", "ocfs2", "orangefs", "vboxsf",
                "gpfs", "glusterfs", "davfs", "webdav", "afpfs", "fuse"}
#: FUSE file systems that keep their files on a local disk (everything else under FUSE --
#: sshfs, rclone, s3fs, google-drive-ocamlfuse, onedriver... -- counts as remote)
LOCAL_FUSE = {"fuseblk", "fuse.ntfs-3g", "fuse.exfat", "fuse.fuse-overlayfs",
              "fuse.gocryptfs", "fuse.encfs", "fuse.cryfs", "fuse.securefs", "fuse.bindfs",
              "fuse.mergerfs", "fuse.lxcfs", "fuse.portal", "fuse.gvfsd-fuse"}
#: macOS ``f_fstypename`` values shared over a network
MAC_REMOTE = {"nfs", "smbfs", "afpfs", "webdav", "ftp", "cifs", "macfuse", "osxfuse",
              "fusefs", "cddafs"}
_MNT_LOCAL = 0x1000
_DRIVE_REMOTE = 4

#: folder names sync clients use (compared without case)
SYNC_FOLDERS = (
    (re.compile(r"dropbox( \(.*\))?"), "Dropbox"),
    (re.compile(r"onedrive( - .*)?"), "OneDrive"),
    (re.compile(r"google ?drive(-.*)?|my drive|shared drives"), "Google Drive"),
    (re.compile(r"icloud ?drive.*|mobile documents|com~apple~clouddocs"), "iCloud Drive"),
    (re.compile(r"box sync|box drive"), "Box"),
    (re.compile(r"cloudstorage"), "a cloud storage provider"),
    (re.compile(r"pcloud ?drive|nextcloud|owncloud|seafile|megasync"), "a sync client"),
)
#: names too common to mean a sync client anywhere: only as a folder of the user's home
HOME_SYNC_FOLDERS = ((re.compile(r"box"), "Box"), (re.compile(r"mega"), "a sync client"))
#: files a sync client keeps at the top of the folder it syncs
SYNC_MARKERS = ((".dropbox", "Dropbox"), (".stfolder", "Syncthing"),
                (".owncloudsync.log", "ownCloud"))


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library (on Linux the process's own symbols: finding it by name would run
    ``ldconfig``)."""
    if sys.platform.startswith("linux"):
        return ctypes.CDLL(None, use_errno=True)
    return ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def _linux_statfs_type(path: Path) -> int | None:
    """``statfs(2)``'s f_type (``os.statvfs`` lacks it), or None where it cannot be called."""
    try:
        libc = _libc()
        buf = ctypes.create_string_buffer(256)  # struct statfs: f_type comes first
        if libc.statfs(os.fsencode(path), buf) != 0:
            return None
    except (OSError, AttributeError):
        return None
    # f_type is a C long (__fsword_t) on 64-bit systems, an int on 32-bit ones
    size = ctypes.sizeof(ctypes.c_long)
    return int.from_bytes(buf.raw[:size], sys.byteorder) & 0xFFFFFFFF


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def mount_type(path: Path, mountinfo: str) -> str | None:
    """The file system type (``nfs4``, ``fuse.sshfs``...) of the mount holding ``path``,
    from the text of ``/proc/self/mountinfo``."""
    best: tuple[int, str] | None = None
    target = str(path)
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5 or not right.split():
            continue
        point = _unescape(fields[4])
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= best[0]):
            best = (len(point), right.split()[0])
    return best[1] if best else None


def _mountinfo() -> str:
    with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
        return fh.read()


def _linux_type(path: Path) -> str | None:
    magic = _linux_statfs_type(path)
    if magic is not None and magic not in LINUX_REMOTE:
        return None  # a local file system
    name = LINUX_REMOTE.get(magic) if magic is not None else None
    if magic is None or name == "fuse":
        # which FUSE file system (or, without statfs, which at all): the mount table
        with contextlib.suppress(OSError):
            found = mount_type(path, _mountinfo())
            if found is not None:
                return found
    return name


class _MacStatfs(ctypes.Structure):
    _fields_ = [("f_bsize", ctypes.c_uint32), ("f_iosize", ctypes.c_int32),
                ("f_blocks", ctypes.c_uint64), ("f_bfree", ctypes.c_uint64),
                ("f_bavail", ctypes.c_uint64), ("f_files", ctypes.c_uint64),
                ("f_ffree", ctypes.c_uint64), ("f_fsid", ctypes.c_int32 * 2),
                ("f_owner", ctypes.c_uint32), ("f_type", ctypes.c_uint32),
                ("f_flags", ctypes.c_uint32), ("f_fssubtype", ctypes.c_uint32),
                ("f_fstypename", ctypes.c_char * 16), ("f_mntonname", ctypes.c_char * 1024),
                ("f_mntfromname", ctypes.c_char * 1024), ("f_flags_ext", ctypes.c_uint32),
                ("f_reserved", ctypes.c_uint32 * 7)]


def _mac_type(path: Path) -> str | None:  # pragma: no cover - macOS only
    try:
        libc = _libc()
        fn = getattr(libc, "statfs$INODE64", None) or libc.statfs
        buf = _MacStatfs()
        if fn(os.fsencode(path), ctypes.byref(buf)) != 0:
            return None
    except (OSError, AttributeError):
        return None
    name = buf.f_fstypename.decode("ascii", "replace")
    if name in MAC_REMOTE or not buf.f_flags & _MNT_LOCAL:
        return name
    return None


def _windows_type(path: Path) -> str | None:  # pragma: no cover - Windows only
    anchor = path.anchor
    if anchor.startswith(("\\\\", "//")) and not anchor.startswith(("\\\\?\\", "\\\\.\\")):
        return "a network share"
    try:
        kind = ctypes.windll.kernel32.GetDriveTypeW(anchor)  # type: ignore[attr-defined]
    except (OSError, AttributeError):
        return None
    return "a network drive" if kind == _DRIVE_REMOTE else None


def file_system(path: Path) -> str | None:
    """The name of the network or remote file system ``path`` lies on, or None for a
    local disk (or where the system does not tell)."""
    if sys.platform.startswith("linux"):
        name = _linux_type(path)
        if name is None or name in LOCAL_FUSE:
            return None
        if name in REMOTE_TYPES or name.startswith("fuse."):
            return name
        return None
    if sys.platform == "darwin":  # pragma: no cover
        return _mac_type(path)
    if sys.platform == "win32":  # pragma: no cover
        return _windows_type(path)
    return None


def sync_client(folder: Path) -> str | None:
    """The sync client whose folder holds ``folder`` (by the folders' names, or the
    marker a client leaves at the top of what it syncs), or None."""
    for part in folder.parts:
        low = part.lower()
        for pattern, name in SYNC_FOLDERS:
            if pattern.fullmatch(low):
                return name
    with contextlib.suppress(RuntimeError, OSError):  # no home folder known
        home = Path.home()
        if folder.is_relative_to(home) and folder != home:
            top = folder.relative_to(home).parts[0].lower()
            for pattern, name in HOME_SYNC_FOLDERS:
                if pattern.fullmatch(top):
                    return name
    for parent in [folder, *folder.parents][:40]:
        for marker, name in SYNC_MARKERS:
            with contextlib.suppress(OSError):
                if os.path.lexists(parent / marker):
                    return name
    return None


def unsafe_folder(path: Path) -> str | None:
    """Why the folder of ``path`` is no place to write a project, or None."""
    folder = path.resolve().parent
    client = sync_client(folder)
    if client is not None:
        return f"it is in a folder synced by {client}"
    fs = file_system(folder)
    if fs is not None:
        return f"it is on a network or remote file system ({fs})"
    return None


def refuse_unsafe_folder(path: Path) -> str | None:
    """Refuse to write a project kept where SQLite is unsafe, with one line saying why and
    what to do; with :data:`ALLOW_ENV` set, a note to show instead (None when safe)."""
    why = unsafe_folder(path)
    if why is None:
        return None
    if os.environ.get(ALLOW_ENV, "") not in ("", "0"):
        return (f"{path}: {why}; opened anyway ({ALLOW_ENV} is set): keep it open in one "
                "window on one computer only")
    raise ProjectError(
        f"{path}: {why}, where SQLite's locks and its -wal log are not safe (a sync client "
        "copies them half-written; two computers damage the file). Copy the project to a "
        "folder on this computer's own disk, code there, and bring the work back with "
        f"'sense7-coder merge' (or set {ALLOW_ENV}=1 to open it here anyway); nothing was "
        "changed")


#: "conflicted copy" names sync clients give a file two computers changed:
#: Dropbox "NAME (… conflicted copy …)", Google Drive / Box "NAME (1)", Syncthing
#: "NAME.sync-conflict-…", Nextcloud/ownCloud "NAME (conflicted copy …)", and inside their
#: own folders only (elsewhere such a name is just a name) OneDrive "NAME-COMPUTERNAME" and
#: iCloud "NAME 2"
def _conflict_patterns(stem: str, suffix: str, client: str | None) -> list[re.Pattern[str]]:
    s, x = re.escape(stem), re.escape(suffix)
    found = [
        rf"{s} \([^()]*conflict[^()]*\){x}",
        rf"{s} \(\d{{1,3}}\){x}",
        rf"{s}\.sync-conflict-[0-9]{{8}}-[0-9]{{6}}(-[A-Z0-9]{{7}})?{x}",
        rf"{s}_conflict-\d{{8}}-\d{{6}}{x}",
    ]
    if client == "OneDrive":
        found.append(rf"{s}-[A-Za-z0-9][A-Za-z0-9-]{{0,14}}{x}")
    if client == "iCloud Drive":
        found.append(rf"{s} \d{{1,3}}{x}")
    return [re.compile(p, re.IGNORECASE) for p in found]


def conflicted_copies(path: Path) -> list[Path]:
    """Files beside ``path`` named as sync clients name a conflicted copy of it."""
    folder = path.parent
    patterns = _conflict_patterns(path.stem, path.suffix, sync_client(path.resolve().parent))
    found = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names[:100_000]:
        if name != path.name and any(p.fullmatch(name) for p in patterns):
            candidate = folder / name
            if candidate.is_file():
                found.append(candidate)
    return found


def conflicted_note(path: Path) -> str | None:
    """One line offering to merge the conflicted copies beside ``path``, or None."""
    copies = conflicted_copies(path)
    if not copies:
        return None
    names = " ".join(_quote(c) for c in copies[:5])
    more = f" (and {len(copies) - 5} more)" if len(copies) > 5 else ""
    many = len(copies) != 1
    return (f"{path}: {len(copies)} file{'s' if many else ''} beside it look"
            f"{'' if many else 's'} like a sync client's conflicted "
            f"cop{'ies' if many else 'y'} of "
            f"it{more}; to bring their work in: sense7-coder merge {_quote(path)} {names}")


def _quote(path: Path) -> str:
    """``path`` as typed in this system's shell (in double quotes where they suffice)."""
    text = str(path)
    if sys.platform == "win32" or not re.search(r'["$`\\!]', text):
        return f'"{text}"'
    return shlex.quote(text)
