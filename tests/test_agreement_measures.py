"""Alpha alone (``measures='alpha'`` / ``agreement --measures alpha``): the same alpha
values and intervals as the full run, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from sense7_coder.cli import main
from sense7_coder.domain.agreement import ALPHA
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.demo import build_demo
from sense7_coder.project.selection import Selection


def _key(r: object) -> tuple:
    return (r.code, r.measure, r.level, tuple(r.coders))  # type: ignore[attr-defined]


def test_alpha_only_gives_the_full_runs_alphas_and_nothing_else(tmp_path: Path) -> None:
    path = build_demo(tmp_path)
    with Project.open(path, backup=False) as project:
        full = project_agreement(project, Selection(include_users=True),
                                 AgreementSettings(bootstrap=40))
        alone = project_agreement(project, Selection(include_users=True),
                                  AgreementSettings(bootstrap=40, measures="alpha"))
    alphas = [r for r in full.records if r.measure == ALPHA]
    assert alone.records and {r.measure for r in alone.records} == {ALPHA}
    assert [_key(r) for r in alone.records] == [_key(r) for r in alphas]
    for mine, theirs in zip(alone.records, alphas, strict=True):
        assert mine.to_dict() == theirs.to_dict()
    # the users and each code's applicability are among them
    assert any("users" in r.coders for r in alone.records)
    assert full.diagnostics and not alone.diagnostics


def test_unknown_measures_and_diagnostics_with_alpha_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = build_demo(tmp_path)
    with Project.open(path, backup=False) as project, pytest.raises(ProjectError,
                                                                    match="measures"):
        project_agreement(project, Selection(), AgreementSettings(bootstrap=0, measures="kappa"))
    assert main(["agreement", str(path), "--measures", "alpha", "--diagnostics", "bias"]) != 0
    assert "--diagnostics needs every figure" in capsys.readouterr().err
    assert main(["agreement", str(path), "--measures", "alpha", "--bootstrap", "0",
                 "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 1 and all(",krippendorff_alpha," in line for line in lines[1:])
