"""One place for an agreement's choices, defaults and limits: the command line and the
window read the same numbers and lists (domain/agreement_settings.py), and a request over
the limit is refused in one line wherever it comes from."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_support import code, make_project

from sense7_coder.cli import build_parser
from sense7_coder.domain import agreement_settings as limits
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.export import export_project
from sense7_coder.project.selection import Selection

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    code(project, "alice", {("c1", 2, "overall"): 4, ("c2", 2, "overall"): 2})
    code(project, "bashir", {("c1", 2, "overall"): 4, ("c2", 2, "overall"): 3})
    yield project
    project.close()


def _options(command: str) -> dict[str, argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a for a in sub.choices[command]._actions}


@pytest.mark.parametrize("command", ["agreement", "export"])
def test_the_command_line_offers_the_one_places_choices(command: str) -> None:
    options = _options(command)
    assert tuple(options["level"].choices) == limits.LEVELS
    assert tuple(options["ci"].choices) == limits.CI_METHODS
    assert tuple(options["values"].choices) == limits.VALUES
    if command == "agreement":  # export keeps None: an option its kind ignores is refused
        assert options["bootstrap"].default == limits.DRAWS_DEFAULT
        assert options["seed"].default == limits.SEED_DEFAULT
        assert options["ci"].default == limits.CI_DEFAULT
        assert tuple(options["kappa_weights"].choices) == limits.KAPPA_BASES
        assert tuple(options["measures"].choices) == limits.MEASURES
    assert f"{limits.DRAWS_MAX:,}" in options["bootstrap"].help


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "sense7_coder", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("kind", [None, "agreement"])
def test_the_command_line_refuses_more_draws_than_the_limit_in_one_line(
        study: Project, tmp_path: Path, kind: str | None) -> None:
    path = study.path
    study.close()
    over = str(limits.DRAWS_MAX + 1)
    args = (["agreement", str(path)] if kind is None
            else ["export", str(path), str(tmp_path / "out.csv"), "--kind", kind])
    proc = _cli(*args, "--bootstrap", over)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"sense7-coder: error: at most {limits.DRAWS_MAX:,} bootstrap draws are taken, got "
        f"{limits.DRAWS_MAX + 1:,}"]
    assert not (tmp_path / "out.csv").exists()


def test_the_project_refuses_the_same_limit(study: Project, tmp_path: Path) -> None:
    over = AgreementSettings(bootstrap=limits.DRAWS_MAX + 1)
    with pytest.raises(ProjectError, match=f"at most {limits.DRAWS_MAX:,} bootstrap draws"):
        project_agreement(study, Selection(codes=["overall"]), over)
    with pytest.raises(ProjectError, match=f"at most {limits.DRAWS_MAX:,} bootstrap draws"):
        export_project(study, tmp_path / "a.csv", "agreement", Selection(), over)
    assert not (tmp_path / "a.csv").exists()
    # a kind that computes nothing is handed no settings: none to check, none to reset
    summary = export_project(study, tmp_path / "long.csv", "long", Selection(), over)
    assert summary.rows == 4


def test_a_selection_is_a_value_of_its_own(study: Project) -> None:
    codes, attributes = ["overall"], {"week": "1"}
    chosen = Selection(codes=codes, attributes=attributes)
    codes.append("affective")
    attributes["week"] = "2"
    assert chosen.codes == ("overall",) and dict(chosen.attributes) == {"week": "1"}
    with pytest.raises(AttributeError):
        chosen.codes = ("affective",)  # type: ignore[misc]
    assert chosen == Selection(codes=("overall",), attributes={"week": "1"})
    assert Selection(codes="overall", coders="alice").codes == ("overall",)
    assert Selection(coders="alice").coders == ("alice",)
    assert {chosen: "shown"}[Selection(codes=["overall"], attributes={"week": "1"})] == "shown"
    report = project_agreement(study, chosen, AgreementSettings(bootstrap=0))
    assert report.codes == ["overall"]


def test_the_windows_read_the_same_limits(qtbot: Any, study: Project) -> None:
    from sense7_coder.ui.analysis.agreement_panel import AgreementPanel
    from sense7_coder.ui.analysis.export_dialog import ExportDialog

    panel = AgreementPanel(study)
    qtbot.addWidget(panel)
    dialog = ExportDialog(study, kind="agreement")
    qtbot.addWidget(dialog)
    for box in (panel.bootstrap, dialog.bootstrap):
        assert (box.minimum(), box.maximum(), box.value()) == (
            0, limits.DRAWS_MAX, limits.DRAWS_DEFAULT)
        box.setValue(limits.DRAWS_MAX + 1)  # typed over the limit: the box holds the limit
        assert box.value() == limits.DRAWS_MAX
    assert (panel.seed.maximum(), panel.seed.value()) == (limits.SEED_MAX, limits.SEED_DEFAULT)
    assert panel.min_units.maximum() == limits.MIN_UNITS_MAX
    assert tuple(panel.ci.itemData(i) for i in range(panel.ci.count())) == limits.CI_METHODS
    assert panel.ci.currentData() == limits.CI_DEFAULT
    assert str(limits.BCA_BELOW_UNITS) in panel.ci.itemText(0)
    assert panel.settings() == AgreementSettings(
        bootstrap=limits.DRAWS_MAX, min_units=limits.MIN_UNITS_DEFAULT)
