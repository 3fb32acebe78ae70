"""The domain's agreement report is whole when the domain returns it: each code's
applicability alpha in its place, the notes on the figures against a reference, the
figures against a consensus that is the coders' own majority flagged, and which values
entered said by the report and every figure. The project reads rows and calls the domain;
it edits nothing the domain returned."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_support import code, make_project

from sense7_coder.domain.agreement import (
    APPLICABILITY,
    CONSENSUS_RATER,
    USERS_RATER,
    AgreementRecord,
    AgreementReport,
    CodeFrameSpec,
    agreement_report,
)
from sense7_coder.domain.agreement.majority import BY_CONSTRUCTION_NOTE, majority_codes
from sense7_coder.domain.agreement.units import rater_table, unit_ids, unit_key
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.selection import Selection

ROOT = Path(__file__).resolve().parent.parent


def _frame(rows: list[tuple[int, str, float | None]]) -> pd.DataFrame:
    return pd.DataFrame({"unit": [r[0] for r in rows], "coder": [r[1] for r in rows],
                         "value": [np.nan if r[2] is None else r[2] for r in rows]})


def _spec(majority: bool, note: str | None) -> CodeFrameSpec:
    rows = [(u, c, v) for u, values in enumerate([(1, 1, 1, 1), (2, 2, 2, 2), (3, 2, 3, 3),
                                                  (1, None, 1, 1), (3, 3, 2, 3)])
            for c, v in zip(("ann", "bob", USERS_RATER, CONSENSUS_RATER), values,
                            strict=True)]
    applicable = _frame([(u, c, 0.0 if v is None else 1.0) for u, c, v in rows
                         if c in ("ann", "bob")])
    return CodeFrameSpec(_frame(rows), "ordinal", [1, 2, 3],
                         references=[USERS_RATER, CONSENSUS_RATER], applicability=applicable,
                         reference_notes={USERS_RATER: note} if note else {},
                         majority_consensus=majority)


def test_the_domain_returns_the_report_whole() -> None:
    specs = {"a": _spec(majority=True, note="2 users' ratings off the scale left out"),
             "b": _spec(majority=False, note=None)}
    bias = pd.DataFrame({"code": ["a"], "coder": ["ann"]})
    report = agreement_report(specs, bootstrap=20, seed=1, min_units=3, values="final",
                              after_reveal=2, codebook_version=4, diagnostics={"bias": bias})
    for key in specs:
        mine = report.for_code(key)
        # the code's applicability alpha right after its alpha among the coders, once
        assert [r.level for r in mine].count(APPLICABILITY) == 1
        assert mine[1].level == APPLICABILITY and mine[1].coders == ["ann", "bob"]
        assert mine[0].level != APPLICABILITY and mine[0].coders == ["ann", "bob"]
    noted = [r for r in report.records if r.note.endswith("off the scale left out")]
    assert noted and all(r.code == "a" and USERS_RATER in r.coders for r in noted)
    assert all(r in noted for r in report.for_code("a") if USERS_RATER in r.coders)
    flagged = [r for r in report.records if r.by_construction]
    assert flagged == [r for r in report.for_code("a") if CONSENSUS_RATER in r.coders]
    assert all(r.note.startswith(BY_CONSTRUCTION_NOTE) for r in flagged)
    assert not any(BY_CONSTRUCTION_NOTE in r.note for r in report.for_code("b"))
    assert {(r.values, r.min_units) for r in report.records} == {("final", 3)}
    assert (report.values, report.after_reveal, report.codebook_version) == ("final", 2, 4)
    assert list(report.diagnostics) == ["bias"]


def test_majority_codes_are_those_whose_every_decision_is_the_majority() -> None:
    consensus = pd.DataFrame({"code": ["a", "a", "b", "b", "c"],
                              "source": ["majority", "majority", "majority", "adjudicated",
                                         "adjudicated"]})
    assert majority_codes(consensus) == {"a"}
    assert majority_codes(consensus.iloc[:0]) == set()


def test_units_pack_into_one_integer_each_and_fall_back_past_16_bits() -> None:
    small = pd.DataFrame({"conversation_id": ["x", "y", "x", "x"], "position": [2, 2, 2, 4],
                          "sentence": [0, 0, 0, 1]})
    ids = unit_ids(small)
    assert ids[0] == ids[2] and len(set(ids)) == 3
    assert ids[3] == (0 << 32) | (4 << 16) | 1
    big = small.assign(position=[2, 2, 2, 70_000])
    ids = unit_ids(big)
    assert ids[0] == ids[2] and len(set(ids)) == 3
    assert list(unit_key(small))[3] == "x\x1f4\x1f1"
    parts = [small.assign(coder=["ann", "bob", "bob", "ann"], value=[1, 2, 2, 3]),
             small.iloc[:1].assign(coder=["users"], value=[4])]
    table = rater_table(parts)
    assert list(table["coder"].astype(str)) == ["ann", "bob", "bob", "ann", "users"]
    assert table["unit"].iloc[4] == table["unit"].iloc[0] == table["unit"].iloc[2]
    assert list(table["value"]) == [1.0, 2.0, 2.0, 3.0, 4.0]


@pytest.fixture
def off_scale(tmp_path: Path) -> Iterator[Project]:
    """A code on a scale of 1 to 3 compared with the users' overall rating (1 to 5): their
    4s and 5s are off its scale."""
    from sense7_coder.domain.codebook.codes import Code
    from sense7_coder.project.codebook.editing import add_code

    project = make_project(tmp_path)
    add_code(project, Code(key="short", label="Short", kind="ordinal", unit="turn",
                           levels=project.code("overall").levels[:3], user_rating="overall"))
    for coder, value in (("alice", 2), ("bashir", 3)):
        code(project, coder, {(cid, 2, "short"): value for cid in ("c1", "c2", "c3", "c4")})
    yield project
    project.close()


def test_the_users_ratings_off_the_scale_are_noted_on_their_figures(off_scale: Project) -> None:
    report = project_agreement(off_scale, Selection(codes=["short"], include_users=True),
                               AgreementSettings(bootstrap=0))
    # the users rated the assistant's turns 4, 5; 2, 3; 5, NA; 1, 2 (analysis_support)
    note = "3 users' ratings off the scale 1, 2, 3 left out"
    with_users = [r for r in report.records if USERS_RATER in r.coders]
    assert with_users and all(r.note.endswith(note) for r in with_users)
    assert not any(note in r.note for r in report.records if USERS_RATER not in r.coders)


def test_the_project_edits_nothing_the_domain_returned() -> None:
    """project/agreement.py reads rows and calls the domain: it sets no attribute of a
    report or a figure and inserts no figure."""
    names = {f.name for f in fields(AgreementReport)} | {f.name for f in fields(AgreementRecord)}
    tree = ast.parse((ROOT / "sense7_coder" / "project" / "agreement.py").read_text())
    edits = [f"line {node.lineno}: .{target.attr}" for node in ast.walk(tree)
             if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
             for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(target, ast.Attribute) and target.attr in names]
    edits += [f"line {node.lineno}: records.{node.func.attr}" for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("insert", "append", "extend")
              and isinstance(node.func.value, ast.Attribute)
              and node.func.value.attr == "records"]
    assert edits == []
