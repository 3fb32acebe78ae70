"""Syncing through a team folder (see :mod:`.folder`).

A coder's sync turns every own row (codings, revisions, memos, spans, done marks) that
changed since the last sync into one change file, sealed to the lead and signed by her
machine, written once under a new name (her machine, a counter, the hash of the file).
The lead's sync reads each file it has not recorded, whole and checked (the hash in the
name, the signature of a machine that joined with that coder's invitation, the seal),
writes its rows into the lead's copy of that coder's package (each row keeps the newest
change by counter and machine, so files arriving in any order or twice leave the same
rows) and merges that package as a by-hand merge of her package with
``--on-conflict keep-source`` would: the same rules, the same report, only her own work.

Listing the folder costs one directory read; a name already recorded is never read
again, a file cut short or not yet downloaded (a placeholder, a zero-byte file) is left for
a later sync, and a renamed copy of a sync service matches no name and is ignored.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...domain import team_seal
from ...domain.errors import ProjectError
from ...store import team as store_team
from ..project import Project
from .downstream import refresh_packages, take_newer_package
from .folder import (
    FOR_CODERS,
    TO_LEAD,
    CoderState,
    LeadState,
    _whole,
    coder_state,
    lead_state,
    listing,
    mirror_path,
    one_at_a_time,
    write_once,
)


@dataclass
class SyncReport:
    side: str  # 'lead' or 'coder'
    applied: dict[str, int] = field(default_factory=dict)  # coder -> files applied
    refused: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    waiting: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    joined: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    received: list[str] = field(default_factory=list)
    merge_lines: list[str] = field(default_factory=list)
    crossed: list[str] = field(default_factory=list)  # one coder's two machines disagreeing
    cleared: int = 0  # own files the lead had read, taken out of the folder
    packages: list[str] = field(default_factory=list)  # new packages sent or taken

    def lines(self) -> list[str]:
        out = [f"joined: {c}" for c in self.joined]
        out += [f"applied from {c}: {n} change file(s)" for c, n in sorted(self.applied.items())]
        out += [f"refused {f}: {why}" for f, why in self.refused] + self.crossed
        out += [f"waiting for {f}: {why}" for f, why in self.waiting]
        out += [f"sent {f}" for f in self.sent] + [f"received {f}" for f in self.received]
        out += self.packages
        if self.cleared:
            out.append(f"took {self.cleared} file(s) the lead has read out of the folder")
        return (out + self.merge_lines) or ["nothing new"]


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# -- the lead's side -------------------------------------------------------------------------

def sync_lead(project: Project, keys: Path | None = None) -> SyncReport:
    state = lead_state(Path(project.path), keys)
    if state is None:
        raise ProjectError(f"{project.path}: not linked to a team folder")
    # a window's poll and a command syncing at once take turns (one counter, one key file)
    with one_at_a_time(state):
        state.reload()
        return _sync_lead(project, state)


def _sync_lead(project: Project, state: LeadState) -> SyncReport:
    report = SyncReport("lead")
    folder = state.folder / TO_LEAD
    known = store_team.known_files(project.db)
    new = [f for f in listing(folder, sizes=False) if f[1].digest not in known]
    if not new:
        report.packages = refresh_packages(project, state)
        return report
    records: list[tuple[Any, ...]] = []
    for name, parts, _ in sorted(new, key=lambda f: f[1].kind != "j"):
        if parts.kind == "j":
            _read_join(state, folder / name, parts, report, records)
    inbox = os.fspath(folder)
    # a month of files is many small objects kept to the end: the collector would walk
    # them again and again while nothing of them can be garbage yet
    collecting = gc.isenabled()
    gc.disable()
    try:
        changes = [_read_change(state, inbox, name, parts, report, records)
                   for name, parts, _ in new if parts.kind == "c"]
        touched = _apply_in_order(project, [c for c in changes if c is not None], report,
                                  records)
    finally:
        if collecting:
            gc.enable()
    _merge_touched(project, touched, report, records)
    with project.pdb.atomic():
        store_team.record_files(project.db, records)
    _acknowledge(project, state, {r[2] for r in records})
    report.packages = refresh_packages(project, state)
    return report


def _merge_touched(project: Project, touched: dict[str, list[tuple[Any, ...]]],
                   report: SyncReport, records: list[tuple[Any, ...]]) -> None:
    """Merge the package copies of the coders whose files were applied, as one by-hand
    merge of their packages (one after the other, in one transaction); when that is
    refused, each alone, so that only the coder it concerns waits."""
    from ..merge.merging import MergeReport, merge

    coders = sorted(touched)
    mirrors = [mirror_path(Path(project.path), c) for c in coders]
    if len(coders) > 1:
        try:
            result = merge(project, mirrors, on_conflict="keep-source")
        except ProjectError:
            pass
        else:
            for coder, mirror, source in zip(coders, mirrors, result.sources, strict=True):
                alone = MergeReport([source], result.dry_run, result.on_conflict,
                                    result.written)
                _merged(coder, mirror, alone, touched[coder], report, records)
            return
    for coder, mirror in zip(coders, mirrors, strict=True):
        try:
            result = merge(project, [mirror], on_conflict="keep-source")
        except ProjectError as e:
            # not the files' fault (who is at the project, a conflict of the study's own):
            # they stay unrecorded and are read again on the next sync
            report.waiting += [(r[1], f"merging {coder}'s package: {e}")
                               for r in touched[coder]]
            continue
        _merged(coder, mirror, result, touched[coder], report, records)


def _merged(coder: str, mirror: Path, result: Any, rows: list[tuple[Any, ...]],
            report: SyncReport, records: list[tuple[Any, ...]]) -> None:
    report.merge_lines += [f"{coder}: {line.replace(str(mirror), 'her package')}"
                           for line in result.lines()]
    report.applied[coder] = len(rows)
    records += rows


def _ranges(counters: set[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for n in sorted(counters):
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


def _acknowledge(project: Project, state: LeadState, coders: set[str]) -> None:
    """Tell each coder, sealed to her and signed, which of her files the lead has read: her
    machines then take them out of the folder (each takes away only its own files, so no
    two writers ever touch one name), which keeps the folder small. The lead's older
    acknowledgements for her go."""
    counters = store_team.counters(project.db)
    outbox = state.folder / FOR_CODERS
    for coder in sorted(coders & set(state.data["coders"])):
        body = {"coder": coder, "read": {install: _ranges(n) for (c, install), n in
                                         counters.items() if c == coder}}
        reader = team_seal.public_keys({"x25519": state.data["coders"][coder]["reader"]})
        data = team_seal.seal(json.dumps(body).encode(), state.data["keys"]["ed25519"],
                              [reader["x25519"]])
        name = team_seal.name_for("a", coder, state.data["install"], state.next_counter(), data)
        write_once(outbox, name.text, data)
        for old, parts, _ in listing(outbox):
            if parts.kind == "a" and parts.coder == coder and parts.install == \
                    state.data["install"] and parts.counter < name.counter:
                (outbox / old).unlink(missing_ok=True)


def _read_join(state: LeadState, path: Path, parts: team_seal.FileName, report: SyncReport,
               records: list[tuple[Any, ...]]) -> None:
    data = _whole(path, parts)
    if data is None:
        report.waiting.append((path.name, "not whole yet"))
        return
    why = None
    try:
        body = json.loads(team_seal.open_sealed(data, state.data["keys"]["x25519"],
                                                {team_seal.writer_of(data)}))
        entry = state.data["coders"].get(parts.coder)
        if entry is None:
            why = f"'{parts.coder}' was never invited"
        elif (body.get("coder"), body.get("install")) != (parts.coder, parts.install) or \
                body.get("signing") != team_seal.writer_of(data) or \
                not team_seal.proof_ok(entry["secret"], parts.install, body["signing"],
                                       str(body.get("proof"))):
            why = "it does not hold the invitation's secret"
        else:
            entry["installs"][parts.install] = body["signing"]
            state.save()
            report.joined.append(parts.coder)
    except (ProjectError, ValueError, TypeError, KeyError) as e:
        why = str(e)
    if why:
        report.refused.append((path.name, why))
    records.append((parts.digest, path.name, parts.coder, parts.install, parts.counter,
                    "refused" if why else "applied", why, _now()))


def _read_change(state: LeadState, inbox: str, name: str, parts: team_seal.FileName,
                 report: SyncReport, records: list[tuple[Any, ...]]) -> _Change | None:
    """The change file ``name`` in the folder ``inbox`` checked whole (name, signature,
    seal, rows), or None when it waits or is refused (reported)."""
    data = _whole(os.path.join(inbox, name), parts)
    if data is None:
        report.waiting.append((name, "not whole yet"))
        return None
    entry = state.data["coders"].get(parts.coder)
    signing = (entry or {}).get("installs", {}).get(parts.install)
    owner = next((c for c, e in state.data["coders"].items() if parts.install in e["installs"]),
                 None)
    why = None
    if signing is None and owner is not None:
        why = f"named as {parts.coder}'s but from a machine of {owner}"
    elif signing is None:
        # its machine's join may not have arrived yet: read it again on a later sync
        report.waiting.append((name, f"the join of {parts.coder}'s machine"))
        return None
    else:
        try:
            body = json.loads(team_seal.open_sealed(data, state.data["keys"]["x25519"],
                                                    {signing}))
            after = body.get("after", 0) if isinstance(body, dict) else None
            if not isinstance(after, int) or not 0 <= after < parts.counter:
                raise ProjectError("its contents do not match its name")
            return _Change(name, parts, _checked_rows(body, parts), after)
        except (ProjectError, ValueError, TypeError) as e:
            why = str(e)
    report.refused.append((name, why))
    records.append((parts.digest, name, parts.coder, parts.install, parts.counter,
                    "refused", why, _now()))
    return None


@dataclass
class _Change:
    name: str
    parts: team_seal.FileName
    rows: list[tuple[str, list[Any], Any]]
    after: int  # the counter of the file its machine wrote before it (0: none)


def _apply_in_order(project: Project, changes: list[_Change], report: SyncReport,
                    records: list[tuple[Any, ...]]) -> dict[str, list[tuple[Any, ...]]]:
    """Write each change into its coder's package copy once the one its machine wrote before
    it is in: the lead then passes through the states her package passed through, so a
    done mark never arrives before the values it follows. Returns the records per coder."""
    with contextlib.ExitStack() as stack:
        mirrors: dict[str, Project] = {}
        for coder in sorted({c.parts.coder for c in changes}):
            mirrors[coder] = stack.enter_context(
                Project.open(mirror_path(Path(project.path), coder), backup=False))
            # one commit per coder and sync; each file its own savepoint inside it
            stack.enter_context(mirrors[coder].pdb.atomic())
        return _apply_each(project, mirrors, changes, report, records)


def _apply_each(project: Project, mirrors: dict[str, Project], changes: list[_Change],
                report: SyncReport, records: list[tuple[Any, ...]]
                ) -> dict[str, list[tuple[Any, ...]]]:
    """Put the changes in the order their machines wrote them, check each file's columns
    (a file is refused whole), then write each coder's rows in one go."""
    done = store_team.counters(project.db)
    for r in records:  # read and refused in this sync: what follows it need not wait
        done.setdefault((r[2], r[3]), set()).add(r[4])
    allowed = {t: set(store_team.columns(project.db, t)) for t in store_team.OWN_TABLES}
    touched: dict[str, list[tuple[Any, ...]]] = {}
    ordered: dict[str, list[_Change]] = {}
    now = _now()
    waiting = sorted(changes, key=lambda c: (c.parts.coder, c.parts.install, c.parts.counter))
    progress = True
    while waiting and progress:
        progress = False
        left = []
        for change in waiting:
            p = change.parts
            if change.after and change.after not in done.get((p.coder, p.install), set()):
                left.append(change)
                continue
            progress = True
            done.setdefault((p.coder, p.install), set()).add(p.counter)
            record = (p.digest, change.name, p.coder, p.install, p.counter)
            bad = next((t for t, _, row in change.rows
                        if row is not None and not set(row) <= allowed[t]), None)
            if bad is not None:
                why = f"a {bad} row with columns the table has not"
                report.refused.append((change.name, why))
                records.append((*record, "refused", why, now))
                continue
            ordered.setdefault(p.coder, []).append(change)
            touched.setdefault(p.coder, []).append((*record, "applied", None, now))
        waiting = left
    for coder, mine in sorted(ordered.items()):
        _, crossed = store_team.apply_rows(
            mirrors[coder].db, coder,
            [(c.parts.install, c.parts.counter, c.rows) for c in mine])
        report.crossed += [f"{coder} gave {table} {key[1:]} different values on two "
                           f"machines: kept the change of machine {kept}"
                           for table, key, kept in crossed]
    report.waiting += [(c.name, f"the change its machine wrote before it ({c.after})")
                       for c in waiting]
    return touched


#: what JSON gives that no column holds
_NESTED = frozenset((dict, list))


def _checked_rows(body: Any, parts: team_seal.FileName) -> list[tuple[str, list[Any], Any]]:
    """The rows of a change file, refused whole when one is not its coder's own."""
    if not isinstance(body, dict) or (body.get("coder"), body.get("install"),
                                      body.get("counter")) != (parts.coder, parts.install,
                                                               parts.counter):
        raise ProjectError("its contents do not match its name")
    out = []
    for item in body.get("rows", []):
        table, key, row = item
        columns = store_team.OWN_TABLES.get(table)
        if columns is None:
            raise ProjectError(f"a row of '{table}', which a coder does not write")
        if not isinstance(key, list) or len(key) != len(columns) or key[0] != parts.coder:
            raise ProjectError(f"a {table} row of another coder than {parts.coder}")
        if not _NESTED.isdisjoint(map(type, key)):
            raise ProjectError(f"a {table} row named by a key that is not a row's")
        if row is not None and (not isinstance(row, dict) or [row.get(c) for c in columns]
                                != key or not _NESTED.isdisjoint(map(type, row.values()))):
            raise ProjectError(f"a {table} row that is not the one it names")
        out.append((table, key, row))
    if len({(t, *k) for t, k, _ in out}) != len(out):
        raise ProjectError("it names one row twice")
    return out


# -- a coder's side --------------------------------------------------------------------------

def sync_coder(state: CoderState, project: Project | None = None) -> SyncReport:
    """A coder's sync; ``project``: her package when this program has it open already (a
    window must never open and close a second connection to its own file)."""
    report = SyncReport("coder")
    package = Path(state.data["package"])
    folder = Path(state.data["folder"])
    if not package.exists():
        _receive_package(state, folder, package, report)
        if not package.exists():
            report.waiting.append((package.name, "the lead's package for you"))
            return report
    _clear_read(state, folder, report)
    with contextlib.ExitStack() as stack:
        # a window's poll and a command syncing at once must not both take one counter
        stack.enter_context(one_at_a_time(state))
        state.reload()
        p = project if project is not None else stack.enter_context(
            Project.open(package, backup=False))
        _send(state, p, folder, report)
    line = take_newer_package(state, project)
    if line:
        report.packages.append(line)
    return report


def _changed_rows(p: Project, coder: str) -> tuple[list[list[Any]], dict[tuple[str, str], str],
                                                   list[tuple[str, str]]]:
    """The coder's rows changed since the last sync (None for a row gone), the digest of
    each changed row, and the rows gone."""
    sent = store_team.sent(p.db)
    changed: dict[tuple[str, str], str] = {}
    seen = set()
    rows = []
    for table, key, row in store_team.own_rows(p.db, coder):
        digest = hashlib.sha256(json.dumps(row, sort_keys=True).encode()).hexdigest()
        seen.add((table, key))
        if sent.get((table, key)) != digest:
            changed[(table, key)] = digest
            rows.append([table, json.loads(key), row])
    gone = [k for k in sent if k not in seen]
    rows += [[t, json.loads(k), None] for t, k in gone]
    return rows, changed, gone


def _send(state: CoderState, p: Project, folder: Path, report: SyncReport) -> None:
    coder = state.data["coder"]
    if p.package_coder != coder:
        raise ProjectError(f"{p.path}: not the package of {coder}")
    rows, changed, gone = _changed_rows(p, coder)
    if not rows:
        return
    counter = state.next_counter()
    body = {"coder": coder, "install": state.data["install"], "counter": counter,
            "after": int(state.data.get("written", 0)), "made_at": _now(), "rows": rows}
    data = team_seal.seal(json.dumps(body).encode(), state.data["keys"]["ed25519"],
                          [state.data["lead"]["x25519"]])
    name = team_seal.name_for("c", coder, state.data["install"], counter, data)
    write_once(folder / TO_LEAD, name.text, data)
    state.data["written"] = counter
    state.save()
    with p.pdb.atomic():
        store_team.record_sent(p.db, changed, gone)
        store_team.record_files(p.db, [(name.digest, name.text, coder, state.data["install"],
                                        counter, "sent", None, _now())])
    report.sent.append(name.text)


def _clear_read(state: CoderState, folder: Path, report: SyncReport) -> None:
    """Take this machine's files the lead says it has read out of the folder."""
    acks = sorted((f for f in listing(folder / FOR_CODERS)
                   if f[1].kind == "a" and f[1].coder == state.data["coder"]),
                  key=lambda f: -f[1].counter)
    for name, parts, _ in acks:
        data = _whole(folder / FOR_CODERS / name, parts)
        if data is None:
            continue
        try:
            body = json.loads(team_seal.open_sealed(data, state.data["reader"],
                                                    {state.data["lead"]["ed25519"]}))
            ranges = body["read"].get(state.data["install"], [])
        except (ProjectError, ValueError, KeyError, AttributeError):
            continue
        for own, own_parts, _ in listing(folder / TO_LEAD):
            if own_parts.install == state.data["install"] and any(
                    lo <= own_parts.counter <= hi for lo, hi in ranges):
                (folder / TO_LEAD / own).unlink(missing_ok=True)
                report.cleared += 1
        return


def _receive_package(state: CoderState, folder: Path, package: Path,
                     report: SyncReport) -> None:
    mine = [f for f in listing(folder / FOR_CODERS)
            if f[1].kind == "p" and f[1].coder == state.data["coder"]]
    for name, parts, _ in sorted(mine, key=lambda f: -f[1].counter):
        data = _whole(folder / FOR_CODERS / name, parts)
        if data is None:
            report.waiting.append((name, "not whole yet"))
            continue
        try:
            body = team_seal.open_sealed(data, state.data["reader"],
                                         {state.data["lead"]["ed25519"]})
        except ProjectError as e:
            report.refused.append((name, str(e)))
            continue
        write_once(package.parent, package.name, body)
        state.data["package_counter"] = parts.counter
        state.save()
        report.received.append(name)
        return


def sync(path: Path, keys: Path | None = None) -> SyncReport:
    """Sync the project or package at ``path`` with its team folder, whichever side it is."""
    state = coder_state(path, keys)
    if state is not None:
        return sync_coder(state)
    lead = lead_state(path, keys)
    if lead is None:
        raise ProjectError(f"{path}: neither linked to a team folder nor joined to one")
    with Project.open(path, backup=False) as project:
        project.set_coder(lead.data["lead"])
        return sync_lead(project, keys)


def side(path: Path, keys: Path | None = None) -> str | None:
    """'coder', 'lead' or None: how ``path`` takes part in a team folder."""
    if coder_state(path, keys) is not None:
        return "coder"
    return "lead" if lead_state(path, keys) is not None else None
