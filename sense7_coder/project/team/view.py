"""What the window shows of a team folder, and when its poll syncs.

:class:`TeamWatch` decides cheaply whether a sync has anything to do: on the lead's side
when the names in ``to-lead/`` changed since its last look (one directory read, no file
opened), on a coder's side when her own work moved (a few index look-ups) or the names in
``for-coders/`` changed. :func:`team_view` gathers the panel's rows.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...store import team as store_team
from ..project import Project
from .downstream import WAITING_PACKAGE
from .folder import FOR_CODERS, TO_LEAD, coder_state, lead_state, listing
from .sync import SyncReport, sync_coder, sync_lead


@dataclass
class TeamView:
    side: str  # 'lead' or 'coder'
    folder: Path
    #: lead: one row per coder (coder, machines, applied, refused, last arrived, why the
    #: last refusal); coder: one row (coder, machine, sent, not yet read by the lead, last
    #: sent, the lead's package received)
    rows: list[dict[str, Any]] = field(default_factory=list)


def team_view(project: Project, keys: Path | None = None) -> TeamView | None:
    lead = lead_state(Path(project.path), keys)
    if lead is not None:
        record: dict[str, dict[str, Any]] = {}
        for coder, state, count, last, why in store_team.file_record(project.db):
            entry = record.setdefault(coder, {"applied": 0, "refused": 0, "last": "",
                                              "why": ""})
            entry[state] = count
            entry["last"] = max(entry["last"], last or "")
            if state == "refused":
                entry["why"] = why or ""
        rows = [{"coder": c, "machines": len(e["installs"]),
                 **record.get(c, {"applied": 0, "refused": 0, "last": "", "why": ""})}
                for c, e in sorted(lead.data["coders"].items())]
        return TeamView("lead", lead.folder, rows)
    state = coder_state(Path(project.path), keys)
    if state is None:
        return None
    folder = Path(state.data["folder"])
    mine = [p for _, p, _ in listing(folder / TO_LEAD)
            if p.kind == "c" and p.install == state.data["install"]]
    sent = [r for r in store_team.file_record(project.db) if r[1] == "sent"]
    return TeamView("coder", folder, [{
        "coder": state.data["coder"], "machine": state.data["install"],
        "sent": sent[0][2] if sent else 0, "unread": len(mine),
        "last": sent[0][3] if sent else "", "received": True}])


class TeamWatch:
    """The window's poll of its project's team folder (see the module notes)."""

    def __init__(self, keys: Path | None = None) -> None:
        self.keys = keys
        self._side: tuple[str, str | None] | None = None  # (project path, side)
        self._last: Any = None
        self._inbox: Path | None = None  # the folder this side reads from
        self.report: SyncReport | None = None
        #: a newer package from the lead waits until the window lets go of the file
        self.new_package = False
        self.when: str = ""
        self.error: str = ""

    def side(self, project: Project) -> str | None:
        path = str(project.path)
        if self._side is None or self._side[0] != path:
            lead = lead_state(project.path, self.keys)
            coder = coder_state(project.path, self.keys) if lead is None else None
            side = "lead" if lead is not None else "coder" if coder is not None else None
            self._side = (path, side)
            self._inbox = (lead.folder / TO_LEAD if lead is not None else
                           Path(coder.data["folder"]) / FOR_CODERS if coder is not None
                           else None)
            self._last = None
        return self._side[1]

    def forget(self) -> None:
        """Look again whether the project is linked (after a link or a join)."""
        self._side = None

    def _where(self, project: Project) -> Any:
        """Where the project and the folder it reads from stand: its last change, and the
        folder's own time of change (a name added, removed or renamed), or, while a file
        there is not whole yet, every name and size (a file may grow under its name)."""
        assert self._inbox is not None
        waiting = self.report is not None and bool(self.report.waiting)
        try:
            changed = self._inbox.stat().st_mtime_ns
            # a file system keeping times to the second (FAT, some shares) may show no
            # change for a name added within the second of the last look
            if waiting or time.time() - changed / 1e9 < 3:
                folder: Any = frozenset((n, size) for n, _, size in listing(self._inbox))
            else:
                folder = changed
        except FileNotFoundError:
            folder = None
        return store_team.last_change(project.db), folder

    def poll(self, project: Project, force: bool = False) -> SyncReport | None:
        """Sync when something moved (or ``force``); None when there was nothing to do."""
        side = self.side(project)
        if side is None:
            return None
        where = self._where(project)
        if where == self._last and not force:
            return None
        if side == "lead":
            report = sync_lead(project, self.keys)
        else:
            state = coder_state(project.path, self.keys)
            assert state is not None
            report = sync_coder(state, project)
        self._last = self._where(project)  # what the sync itself wrote is seen
        self.report = report
        self.new_package = any(line.startswith(WAITING_PACKAGE) for line in report.packages)
        self.when = dt.datetime.now().strftime("%H:%M:%S")
        return report
