"""The agreement filters: a filter on a conversation attribute matches what the
attribute holds, and one that matches nothing is an error, not an empty report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from analysis_support import code, conversation_lines, make_project

from sense7_coder.domain.agreement import ALPHA
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.selection import Selection


@pytest.fixture
def study(tmp_path: Path) -> Project:
    """Four conversations whose attributes are a yes/no answer and a number from a form."""
    lines = []
    for line, (consent, score) in zip(conversation_lines().splitlines(),
                                      ((True, 4.0), (True, 4.0), (False, 3), (False, 3)),
                                      strict=True):
        record = json.loads(line)
        record["attributes"] = {"consent": consent, "score": score}
        lines.append(json.dumps(record))
    project = make_project(tmp_path, conversations="\n".join(lines) + "\n")
    code(project, "alice", {("c1", 2, "overall"): 4, ("c3", 2, "overall"): 2})
    code(project, "bashir", {("c1", 2, "overall"): 4, ("c3", 2, "overall"): 3})
    yield project
    project.close()


def units(project: Project, **attributes: str) -> int:
    report = project_agreement(project,
                               Selection(codes=["overall"], attributes=attributes),
                               AgreementSettings(bootstrap=0))
    return next(r.n_units for r in report.records if r.measure == ALPHA)


@pytest.mark.parametrize(("attributes", "expected"), [
    ({"consent": "TRUE"}, 1), ({"consent": "true"}, 1), ({"consent": "yes"}, 1),
    ({"consent": "false"}, 1), ({"score": "4"}, 1), ({"score": "4.0"}, 1), ({"score": "3"}, 1),
    ({"consent": "true", "score": "4"}, 1),
])
def test_attribute_filters_match_what_the_attribute_holds(
    study: Project, attributes: dict[str, str], expected: int
) -> None:
    assert units(study, **attributes) == expected


def test_an_attribute_filter_that_matches_nothing_is_an_error(study: Project) -> None:
    with pytest.raises(ProjectError, match=r"consent = 'maybe' \(values: false, true\)"):
        units(study, consent="maybe")
    with pytest.raises(ProjectError, match="nope = '1' .*no conversation has that attribute"):
        units(study, nope="1")
    with pytest.raises(ProjectError, match="together with the other filters"):
        units(study, consent="true", score="3")


def test_a_negative_seed_is_named(study: Project) -> None:
    with pytest.raises(ProjectError, match="seed must be 0 or more"):
        project_agreement(study, Selection(), AgreementSettings(seed=-5, bootstrap=10))
