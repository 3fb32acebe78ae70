"""Coding › Team folder in the window: the lead's window applies a coder's change file on
its poll and shows who sent what and what was refused; a coder's window sends her work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from analysis_support import make_project

from sense7_coder.domain.models import Unit
from sense7_coder.project.assignments import assign
from sense7_coder.project.team.folder import TO_LEAD, coder_state, invite, join, link
from sense7_coder.project.team.sync import sync_coder, sync_lead
from sense7_coder.ui.team_folder_panel import TeamFolderDialog, install, poll


def test_the_window_syncs_on_its_poll_and_shows_each_coder(gui: Any, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "lee-data"))
    shared, ana_keys = tmp_path / "shared", tmp_path / "ana-keys"
    shared.mkdir()
    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    project.blind_coding = True
    project.set_coder("ana", "coder")
    project.set_coder("lee")
    assign(project, ["ana"])
    link(project, shared)
    inv = invite(project, "ana", tmp_path / "ana.invitation")
    path = project.path
    project.close()
    package = tmp_path / "ana" / "ana.sense7"
    state = join(inv, package, folder=shared, keys=ana_keys)
    sync_coder(state)

    # ana's window: her typing goes out on its poll
    window = gui.open(package, coder=None)
    watch = install(window)
    window.project.set_value(Unit("c1", 2), "overall", 4)
    poll(window, watch)
    assert watch.report is None or not watch.report.sent  # not joined with these keys here
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "ana-data"))
    watch.keys = ana_keys
    watch.forget()
    poll(window, watch)
    assert watch.report is not None and len(watch.report.sent) == 1
    poll(window, watch)  # nothing moved: nothing done, nothing written
    assert len(list((shared / TO_LEAD).iterdir())) == 2
    dialog = TeamFolderDialog(window, watch)
    gui.qtbot.addWidget(dialog)
    assert [dialog.table.item(0, j).text() for j in range(3)] == ["ana", "1", "1"]
    window.close()

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "lee-data"))
    window = gui.open(path, coder="lee")
    watch = install(window)
    poll(window, watch)
    assert watch.report is not None and watch.report.applied == {"ana": 1}
    assert gui.stored(path, "ana", "c1", 2, "overall") == 4
    dialog = TeamFolderDialog(window, watch)
    gui.qtbot.addWidget(dialog)
    # her computer's join and her change file, none refused
    assert [dialog.table.item(0, j).text() for j in range(4)] == ["ana", "1", "2", "0"]
    assert "applied from ana: 1 change file(s)" in dialog.lines.text()
    assert coder_state(package, ana_keys) is not None
    window.close()


def test_a_coder_s_window_takes_the_lead_s_new_package(gui: Any, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "lee-data"))
    shared, ana_keys = tmp_path / "shared", tmp_path / "ana-keys"
    shared.mkdir()
    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    project.blind_coding = True
    project.set_coder("ana", "coder")
    project.set_coder("lee")
    assign(project, ["ana"], per_coder=1)
    link(project, shared)
    inv = invite(project, "ana", tmp_path / "ana.invitation")
    package = tmp_path / "ana" / "ana.sense7"
    sync_coder(join(inv, package, folder=shared, keys=ana_keys))
    window = gui.open(package, coder=None)
    watch = install(window)
    watch.keys = ana_keys
    cid = window.project.db.execute("SELECT conversation_id FROM conversations").fetchone()[0]
    window.project.set_value(Unit(cid, 2), "overall", 4)
    poll(window, watch)
    assert not watch.new_package
    assign(project, ["ana"])  # the rest of the study, to ana
    sync_lead(project)
    project.close()
    window.project.set_value(Unit(cid, 4), "overall", 2)
    poll(window, watch)
    assert watch.new_package and len(watch.report.sent) == 1
    dialog = TeamFolderDialog(window, watch)
    gui.qtbot.addWidget(dialog)
    assert dialog.take_button.isVisibleTo(dialog)
    dialog.take_button.click()
    assert window.project is not None and window.project.path == package
    assert window.project.db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0] == 4
    assert gui.stored(package, "ana", cid, 4, "overall") == 2
    assert not dialog.take_button.isVisibleTo(dialog)
    window.close()
