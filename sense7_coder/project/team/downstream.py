"""What flows from the lead back to the coders through a team folder: when a coder's
assignments, the codebook or the study's settings change in the lead's project, the
lead's sync makes her package afresh (``make_package``, as by hand), seals it to her and
puts it in ``for-coders/`` in place of the older one; her next sync, with her package
closed everywhere, sends what she has not sent yet, then moves her own work into the new
package and puts it where the old one was. The lead's copy of her package is made afresh
the same way, with her work and its record, so that her next changes land on the
conversations she now has."""

from __future__ import annotations

import os
from pathlib import Path

from ...domain import team_seal
from ...domain.errors import ProjectError
from ...store import locks
from ...store import team as store_team
from ..project import Project
from .folder import FOR_CODERS, CoderState, LeadState, _whole, listing, mirror_path, send_package

WAITING_PACKAGE = "a new package from the lead is waiting"


def refresh_packages(project: Project, state: LeadState) -> list[str]:
    """Send a new package to each coder whose share of the lead's project changed; returns
    a line per coder sent one."""
    from ..package import make_package

    lines = []
    for coder, entry in sorted(state.data["coders"].items()):
        now = store_team.fingerprint(project.db, coder)
        if entry.get("fingerprint") in (None, now):
            continue
        mirror = mirror_path(Path(project.path), coder)
        fresh = mirror.with_name(f".{mirror.name}.new")
        fresh.unlink(missing_ok=True)
        make_package(project, coder, fresh)
        sent = send_package(state, coder, fresh)
        with Project.open(mirror, backup=False) as old, \
                Project.open(fresh, backup=False) as new, new.pdb.atomic():
            store_team.copy_own(old.db, new.db, coder)
        os.replace(fresh, mirror)
        for name, parts, _ in listing(state.folder / FOR_CODERS):
            if parts.kind == "p" and parts.coder == coder and parts.counter < _counter(sent):
                (state.folder / FOR_CODERS / name).unlink(missing_ok=True)
        entry["fingerprint"] = now
        state.save()
        lines.append(f"sent {coder} a new package (her assignments, the codebook or the "
                     "study's settings changed)")
    return lines


def take_newer_package(state: CoderState, open_here: Project | None) -> str | None:
    """Move her work into a newer package from the lead, when one has come and nothing has
    her package open; a line saying what happened or why not yet, None when none came."""
    folder = Path(state.data["folder"]) / FOR_CODERS
    have = int(state.data.get("package_counter", 0))
    newer = sorted((f for f in listing(folder) if f[1].kind == "p"
                    and f[1].coder == state.data["coder"] and f[1].counter > have),
                   key=lambda f: -f[1].counter)
    if not newer:
        return None
    name, parts, _ = newer[0]
    package = Path(state.data["package"])
    if open_here is not None or locks.others_holding(package):
        return (f"{WAITING_PACKAGE}: close the project everywhere and sync again to move "
                "your work into it")
    data = _whole(folder / name, parts)
    if data is None:
        return "a new package from the lead is on its way"
    body = team_seal.open_sealed(data, state.data["reader"], {state.data["lead"]["ed25519"]})
    fresh = package.with_name(f".{package.name}.new")
    fresh.write_bytes(body)
    try:
        with Project.open(package, backup=False) as old, \
                Project.open(fresh, backup=False) as new:
            if new.package_coder != state.data["coder"]:
                raise ProjectError(f"{name}: not a package of {state.data['coder']}")
            with new.pdb.atomic():
                store_team.copy_own(old.db, new.db, state.data["coder"])
    except BaseException:
        fresh.unlink(missing_ok=True)
        raise
    os.replace(fresh, package)
    state.data["package_counter"] = parts.counter
    state.save()
    return "moved your work into the lead's new package (new assignments or codebook)"


def _counter(path: Path) -> int:
    parts = team_seal.parse_name(path.name)
    return parts.counter if parts is not None else 0
