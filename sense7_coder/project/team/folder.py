"""A team folder: the folder a sync service carries (Dropbox, OneDrive, Nextcloud,
Syncthing, a network share), through which the lead and the coders exchange sealed files
(:mod:`...domain.team_seal`); no live project file is ever in it.

Layout of the folder::

    sense7-team.json   the team's id and the lead's public keys (not secret)
    to-lead/           coders' change files and joins, sealed to the lead
    for-coders/        the lead's packages for each coder, sealed to that coder

Private keys and what each side remembers live outside the folder, in the user's data
folder (``team/``): the lead's ``lead-TEAM.json`` (the lead's keys, each coder's invitation
secret and receiving key, the signing key of each machine that joined), a coder's
``coder-TEAM-INSTALL.json`` (her signing key, her receiving key from the invitation, the
counter of her change files). The lead keeps a copy of each coder's package beside the
project (``PROJECT.team/CODER.sense7``), into which her changes are written before it is
merged: the lead's project then is what merging her own package by hand gives. An
invitation holds the coder's receiving key and a secret: it is handed to her privately,
never put in the shared folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...domain import team_seal
from ...domain.errors import ProjectError
from ...paths import user_data_dir
from ...store import team as store_team
from ..project import Project

MARKER = "sense7-team.json"
TO_LEAD = "to-lead"
FOR_CODERS = "for-coders"


def keys_dir(override: Path | None = None) -> Path:
    return Path(override) if override is not None else user_data_dir() / "team"


def write_private(path: Path, data: dict[str, Any]) -> None:
    """Write a key file readable by its owner only, whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, path)


def write_once(folder: Path, name: str, data: bytes) -> Path:
    """Put ``data`` in ``folder`` under ``name``: written under a temporary name the readers
    ignore, flushed, then renamed, so no reader ever sees it half-written under its name."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    part = folder / f".{name}.{os.getpid()}.part"
    with open(part, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, target)
    return target


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ProjectError(f"{path}: cannot read {what} ({e})") from None
    if not isinstance(data, dict):
        raise ProjectError(f"{path}: not {what}")
    return data


@dataclass
class LeadState:
    path: Path
    data: dict[str, Any]

    @property
    def folder(self) -> Path:
        return Path(self.data["folder"])

    def save(self) -> None:
        write_private(self.path, self.data)

    def reload(self) -> None:
        self.data = _read_json(self.path, "a team key file")

    def next_counter(self) -> int:
        self.data["counter"] = int(self.data.get("counter", 0)) + 1
        self.save()
        return int(self.data["counter"])


@dataclass
class CoderState(LeadState):
    pass


@contextlib.contextmanager
def one_at_a_time(state: LeadState) -> Iterator[None]:
    """Hold an exclusive lock on a lock file beside a key file (never on a project file)
    while a sync uses its counter."""
    lock = state.path.with_name(f".{state.path.name}.lock")
    with open(lock, "a+b") as f:
        try:
            import fcntl
        except ImportError:  # Windows: one program per computer is the rule there
            yield
            return
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def mirror_path(project_path: Path, coder: str) -> Path:
    folder = project_path.with_name(project_path.name + ".team")
    return folder / f"{coder.encode('utf-8').hex()}.sense7"


def lead_state(project_path: Path, keys: Path | None = None) -> LeadState | None:
    want = str(Path(project_path).resolve())
    for path in sorted(keys_dir(keys).glob("lead-*.json")):
        data = _read_json(path, "a team key file")
        if data.get("project") == want:
            return LeadState(path, data)
    return None


def coder_state(package_path: Path, keys: Path | None = None) -> CoderState | None:
    want = str(Path(package_path).resolve())
    for path in sorted(keys_dir(keys).glob("coder-*.json")):
        data = _read_json(path, "a team key file")
        if data.get("package") == want:
            return CoderState(path, data)
    return None


def link(project: Project, folder: Path, keys: Path | None = None) -> LeadState:
    """Link the lead's project to a team folder (a lead's act; nothing of the project is put
    in the folder). Linking again to the same folder changes nothing."""
    project.require_lead("link the project to a team folder")
    if project.package_coder is not None:
        raise ProjectError("a coder package joins a team from an invitation; only the "
                           "lead's project is linked")
    folder = Path(folder).resolve()
    if Path(project.path).resolve().is_relative_to(folder):
        raise ProjectError(f"{project.path}: the project itself is inside the team folder; "
                           "keep it on this computer's own disk, outside the folder")
    existing = lead_state(project.path, keys)
    if existing is not None:
        if existing.folder != folder:
            raise ProjectError(f"{project.path}: already linked to the team folder "
                               f"{existing.folder}")
        return existing
    if (folder / MARKER).exists():
        raise ProjectError(f"{folder}: already the folder of another team; link an empty "
                           "folder")
    team = os.urandom(8).hex()
    private = team_seal.new_keys()
    state = LeadState(keys_dir(keys) / f"lead-{team}.json", {
        "team": team, "folder": str(folder), "project": str(Path(project.path).resolve()),
        "install": team_seal.new_install(), "keys": private, "counter": 0, "coders": {},
        "lead": project.coder,
    })
    state.save()
    for sub in (TO_LEAD, FOR_CODERS):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    marker = {"sense7_team": 1, "team": team, "lead": team_seal.public_keys(private)}
    write_once(folder, MARKER, json.dumps(marker, indent=1).encode())
    return state


def invite(project: Project, coder: str, out: Path, keys: Path | None = None) -> Path:
    """Write ``out``, the invitation of ``coder`` (to hand her privately), and put her
    package, sealed to her, in the team folder."""
    from ..package import make_package

    state = lead_state(project.path, keys)
    if state is None:
        raise ProjectError(f"{project.path}: not linked to a team folder yet")
    project.require_lead(f"invite {coder} to the team")
    if coder not in {c["name"] for c in project.coders()}:
        raise ProjectError(f"'{coder}' is not a coder of this study")
    entry = state.data["coders"].get(coder)
    if entry is None:
        entry = {"secret": os.urandom(32).hex(),
                 "reader": team_seal.new_keys()["x25519"], "installs": {}}
        state.data["coders"][coder] = entry
        state.save()
    if Path(out).resolve().is_relative_to(state.folder):
        raise ProjectError(f"{out}: inside the team folder, where everyone could join as "
                           f"{coder} with it; write the invitation elsewhere and hand it to "
                           "her privately")
    mirror = mirror_path(Path(project.path), coder)
    mirror.parent.mkdir(parents=True, exist_ok=True)
    if not mirror.exists():
        make_package(project, coder, mirror)
    send_package(state, coder, mirror)
    remember_sent(project, state, coder)
    invitation = {"sense7_team_invitation": 1, "team": state.data["team"], "coder": coder,
                  "secret": entry["secret"], "reader": entry["reader"],
                  "lead": team_seal.public_keys(state.data["keys"])}
    write_private(Path(out), invitation)
    return Path(out)


def send_package(state: LeadState, coder: str, package: Path) -> Path:
    """The package ``package`` sealed to ``coder`` in the folder's ``for-coders``."""
    entry = state.data["coders"][coder]
    reader = team_seal.public_keys({"x25519": entry["reader"]})["x25519"]
    data = team_seal.seal(package.read_bytes(), state.data["keys"]["ed25519"], [reader])
    name = team_seal.name_for("p", coder, state.data["install"], state.next_counter(), data)
    return write_once(state.folder / FOR_CODERS, name.text, data)


def join(invitation: Path, package: Path, folder: Path | None = None,
         keys: Path | None = None) -> CoderState:
    """Join from an invitation on this machine: a signing key of this machine's own, and a
    join file in the folder the lead's next sync accepts. ``package`` is the coder's
    package: an existing file, or where the lead's package is written when it arrives."""
    inv = _read_json(Path(invitation), "an invitation")
    need = ("team", "coder", "secret", "reader", "lead")
    if inv.get("sense7_team_invitation") != 1 or any(k not in inv for k in need):
        raise ProjectError(f"{invitation}: not an invitation of sense7-coder")
    folder = Path(folder) if folder is not None else _find_folder(Path(invitation), inv)
    marker = _read_json(folder / MARKER, "a team folder's description")
    if marker.get("team") != inv["team"]:
        raise ProjectError(f"{folder}: the folder of another team than the invitation's")
    package = Path(package).resolve()
    if package.is_relative_to(folder.resolve()):
        raise ProjectError(f"{package}: inside the team folder; keep your package on this "
                           "computer's own disk, outside the folder")
    if coder_state(package, keys) is not None:
        raise ProjectError(f"{package}: already joined the team on this computer")
    install = team_seal.new_install()
    private = team_seal.new_keys()
    state = CoderState(keys_dir(keys) / f"coder-{inv['team']}-{install}.json", {
        "team": inv["team"], "coder": inv["coder"], "install": install,
        "folder": str(folder.resolve()), "package": str(package), "keys": private,
        "reader": inv["reader"], "lead": inv["lead"], "counter": 0,
    })
    state.save()
    signing = team_seal.public_keys(private)["ed25519"]
    body = {"coder": inv["coder"], "install": install, "signing": signing,
            "proof": team_seal.proof(inv["secret"], install, signing)}
    data = team_seal.seal(json.dumps(body).encode(), private["ed25519"], [inv["lead"]["x25519"]])
    name = team_seal.name_for("j", inv["coder"], install, 0, data)
    write_once(folder / TO_LEAD, name.text, data)
    return state


def _find_folder(invitation: Path, inv: dict[str, Any]) -> Path:
    for candidate in (invitation.parent, invitation.parent.parent):
        marker = candidate / MARKER
        if marker.exists() and _read_json(marker, "a team folder's description").get(
                "team") == inv["team"]:
            return candidate
    raise ProjectError(f"{invitation}: name the team folder this invitation is for")


def remember_sent(project: Project, state: LeadState, coder: str) -> None:
    """Note what the package last sent to ``coder`` took from the lead's project."""
    state.data["coders"][coder]["fingerprint"] = store_team.fingerprint(project.db, coder)
    state.save()


def listing(folder: Path, sizes: bool = True) -> list[tuple[str, team_seal.FileName, int]]:
    """(name, parts, size) of every file named as a team file, in one directory read (with
    ``sizes`` False, no file is asked its size, and each gives -1)."""
    out = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return []
    for entry in entries:
        parts = team_seal.parse_name(entry.name)
        if parts is not None and entry.is_file():
            out.append((entry.name, parts, entry.stat().st_size if sizes else -1))
    return out


def _whole(path: Path | str, parts: team_seal.FileName) -> bytes | None:
    """The file's bytes when they are the ones its name was given for; None when it is not
    there yet (empty, cut short, a placeholder that does not read)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if not data or hashlib.sha256(data).hexdigest() != parts.digest:
        return None
    return data
