"""Agreement over a project: the figures equal krippendorff on the same matrix; binary
codes count finished turns as absent; users and consensus as raters; filters."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import krippendorff
import numpy as np
import pandas as pd
import pytest
from analysis_support import code, make_project

from sense7_coder.domain.agreement import ALPHA, COHEN, SPEARMAN, AgreementRecord
from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.errors import Cancelled, ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import project_agreement
from sense7_coder.project.demo import build_demo
from sense7_coder.project.selection import Selection
from sense7_coder.resources import demo_dir

NA = None
Ratings = dict[tuple[str, int], Any]
OVERALL: dict[str, Ratings] = {
    "alice": {("c1", 2): 4, ("c1", 4): 5, ("c2", 2): 2, ("c2", 4): 3, ("c3", 2): 5,
              ("c3", 4): NA, ("c4", 2): 1, ("c4", 4): 2},
    "bashir": {("c1", 2): 4, ("c1", 4): 4, ("c2", 2): 3, ("c2", 4): 3, ("c3", 2): 5,
               ("c4", 2): 2, ("c4", 4): 2},
    "chen": {("c1", 2): 3, ("c2", 2): 2, ("c3", 4): 4, ("c4", 4): 1},
}
USERS: Ratings = {("c1", 2): 4, ("c1", 4): 5, ("c2", 2): 2, ("c2", 4): 3, ("c3", 2): 5,
                  ("c3", 4): NA, ("c4", 2): 1, ("c4", 4): 2}
Level = Literal["nominal", "ordinal", "interval", "ratio"]
UNITS = [(c, p) for c in ("c1", "c2", "c3", "c4") for p in (2, 4)]


def direct_alpha(rows: list[Ratings], level: Level = "ordinal",
                 units: list[tuple[str, int]] = UNITS,
                 domain: list[int] = [1, 2, 3, 4, 5]) -> float:  # noqa: B006
    matrix = np.array([[np.nan if r.get(u) is None else r[u] for u in units] for r in rows],
                      dtype=float)
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=level,
                                    value_domain=domain))


def find(records: list[AgreementRecord], measure: str, coders: list[str], code_key: str,
         weights: str | None = None, level: str | None = None) -> AgreementRecord:
    """The one record asked for; alpha on the code's values unless ``level`` says
    'applicability'."""
    hits = [r for r in records if r.measure == measure and r.coders == coders
            and r.code == code_key and (weights is None or r.weights == weights)
            and (r.level == "applicability") == (level == "applicability")]
    assert len(hits) == 1, (measure, coders, [(r.measure, r.coders) for r in records])
    return hits[0]


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    for coder, values in OVERALL.items():
        code(project, coder, {(c, p, "overall"): v for (c, p), v in values.items()})
    yield project
    project.close()


def test_alpha_equals_krippendorff_on_the_same_matrix(study: Project) -> None:
    report = project_agreement(study, Selection(codes=["overall"]), AgreementSettings(bootstrap=0))
    alpha = find(report.records, ALPHA, ["alice", "bashir", "chen"], "overall")
    assert alpha.value == pytest.approx(direct_alpha(list(OVERALL.values())), abs=1e-9)
    assert alpha.level == "ordinal"
    # units with values from two coders or more: all but c3 turn 4 (alice NA, chen 4)
    assert alpha.n_units == 7
    kappa = find(report.records, COHEN, ["alice", "bashir"], "overall", "none")
    assert kappa.n_units == 7  # alice's NA on c3/4 is missing, bashir did not rate it


def test_level_override_is_passed_to_alpha(study: Project) -> None:
    report = project_agreement(study, Selection(codes=["overall"]),
                               AgreementSettings(level="interval", bootstrap=0))
    alpha = find(report.records, ALPHA, ["alice", "bashir", "chen"], "overall")
    assert alpha.level == "interval"
    assert alpha.value == pytest.approx(direct_alpha(list(OVERALL.values()), "interval"))


def test_bootstrap_interval_brackets_alpha_and_is_reproducible(study: Project) -> None:
    opts = (Selection(codes=["overall"]), AgreementSettings(bootstrap=300, seed=7))
    first = find(project_agreement(study, *opts).records, ALPHA, ["alice", "bashir", "chen"],
                 "overall")
    again = find(project_agreement(study, *opts).records, ALPHA, ["alice", "bashir", "chen"],
                 "overall")
    assert first.ci_low is not None and first.ci_high is not None
    assert first.ci_low <= first.value <= first.ci_high  # type: ignore[operator]
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)


def test_users_take_part_only_when_asked(study: Project) -> None:
    without = project_agreement(study, Selection(codes=["overall"]), AgreementSettings(bootstrap=0))
    assert not any("users" in r.coders for r in without.records)
    report = project_agreement(study,
                               Selection(codes=["overall"], include_users=True),
                               AgreementSettings(bootstrap=0))
    alpha = find(report.records, ALPHA, ["alice", "users"], "overall")
    assert alpha.value == pytest.approx(direct_alpha([OVERALL["alice"], USERS]))
    # the user's "not applicable" on c3/4 and alice's NA there are both missing
    assert alpha.n_units == 7
    rho = find(report.records, SPEARMAN, ["chen", "users"], "overall")
    assert rho.n_units == 3  # chen rated c3/4, which the user marked not applicable
    # the coders' own alpha does not include the users
    coders_alpha = find(report.records, ALPHA, ["alice", "bashir", "chen"], "overall")
    assert coders_alpha.value == pytest.approx(direct_alpha(list(OVERALL.values())))


def test_codes_without_user_rating_have_no_users_figures(study: Project) -> None:
    code(study, "alice", {("c1", 2, "strategy"): "advice", ("c2", 2, "strategy"): "question"})
    code(study, "bashir", {("c1", 2, "strategy"): "advice", ("c2", 2, "strategy"): "advice"})
    report = project_agreement(study,
                               Selection(codes=["strategy"], include_users=True),
                               AgreementSettings(bootstrap=0))
    assert not any("users" in r.coders for r in report.records)
    alpha = find(report.records, ALPHA, ["alice", "bashir"], "strategy")
    assert alpha.level == "nominal" and alpha.n_units == 2


def test_a_code_the_users_did_not_rate_is_named_once_not_footnoted_per_pair(
        study: Project) -> None:
    """ESConv's users rated each supporter turn overall, not on the seven dimensions: an
    agreement with the users printed an undefined figure and a footnote for every coder,
    measure and dimension (16 on two coders). No figure now, and one line naming them."""
    from sense7_coder.cli.analysis import agreement_lines

    code(study, "alice", {("c1", 2, "cognitive"): 3, ("c2", 2, "cognitive"): 4,
                          ("c1", 2, "relational"): 2})
    code(study, "bashir", {("c1", 2, "cognitive"): 3, ("c2", 2, "cognitive"): 2,
                           ("c1", 2, "relational"): 2})
    report = project_agreement(study,
                               Selection(codes=["overall", "cognitive", "relational"],
                                         include_users=True), AgreementSettings(bootstrap=0))
    assert not any("users" in r.coders for r in report.records if r.code != "overall")
    assert find(report.records, ALPHA, ["alice", "users"], "overall").value is not None
    assert report.absent == {"users": ["cognitive", "relational"]}
    lines = agreement_lines(report)
    assert ("'users' rated none of cognitive, relational: no figure compares with them "
            "there") in lines
    assert not any("has no ratings" in line for line in lines)


def test_binary_finished_turn_without_the_code_counts_as_absent(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    code(project, "alice", {("c1", 2, "validation"): 1, ("c1", 4, "validation"): 1},
         done=[("c1", 2), ("c1", 4), ("c2", 4)])
    # bashir finished c1/4 and c2/4 without applying the code; c2/2 is coded but unfinished
    code(project, "bashir", {("c1", 2, "validation"): 1, ("c2", 2, "validation"): 1},
         done=[("c1", 2), ("c1", 4), ("c2", 4)])
    # chen coded c3/2 but finished nothing: only his explicit value counts
    code(project, "chen", {("c3", 2, "validation"): 1})
    report = project_agreement(project, Selection(codes=["validation"]),
                               AgreementSettings(bootstrap=0))
    alpha = find(report.records, ALPHA, ["alice", "bashir", "chen"], "validation")
    alice = {("c1", 2): 1, ("c1", 4): 1, ("c2", 4): 0}
    bashir = {("c1", 2): 1, ("c1", 4): 0, ("c2", 2): 1, ("c2", 4): 0}
    chen = {("c3", 2): 1}
    assert alpha.n_units == 3  # c1/2, c1/4, c2/4; c2/2 and c3/2 have one rater each
    assert alpha.value == pytest.approx(
        direct_alpha([alice, bashir, chen], "nominal", domain=[0, 1])
    )
    pct = find(report.records, "percent_agreement", ["alice", "bashir", "chen"], "validation")
    assert pct.value == pytest.approx(2 / 3)
    project.close()


def test_binary_sentence_code_counts_every_sentence_of_a_finished_turn(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    # turn 2 of c1 has three sentences
    code(project, "alice", {("c1", 2, 2, "question"): 1}, done=[("c1", 2)])
    code(project, "bashir", {("c1", 2, 2, "question"): 1, ("c1", 2, 3, "question"): 1},
         done=[("c1", 2)])
    report = project_agreement(project, Selection(codes=["question"]),
                               AgreementSettings(bootstrap=0))
    alpha = find(report.records, ALPHA, ["alice", "bashir"], "question")
    units = [("c1", 1), ("c1", 2), ("c1", 3)]  # (conversation, sentence) of turn 2
    alice = {("c1", 1): 0, ("c1", 2): 1, ("c1", 3): 0}
    bashir = {("c1", 1): 0, ("c1", 2): 1, ("c1", 3): 1}
    assert alpha.n_units == 3
    assert alpha.value == pytest.approx(
        direct_alpha([alice, bashir], "nominal", units=units, domain=[0, 1])
    )
    project.close()


def test_filters_by_model_participant_and_coder(study: Project) -> None:
    gpt4 = [u for u in UNITS if u[0] in ("c1", "c3")]
    report = project_agreement(study,
                               Selection(codes=["overall"], models=["GPT4"]),
                               AgreementSettings(bootstrap=0))
    alpha = find(report.records, ALPHA, ["alice", "bashir", "chen"], "overall")
    assert alpha.value == pytest.approx(direct_alpha(list(OVERALL.values()), units=gpt4))
    assert alpha.n_units == 3

    p2 = [u for u in UNITS if u[0] in ("c3", "c4")]
    report = project_agreement(study,
                               Selection(codes=["overall"], participants=["P2"],
                                         coders=["alice", "chen"]),
                               AgreementSettings(bootstrap=0))
    alpha = find(report.records, ALPHA, ["alice", "chen"], "overall")
    assert alpha.value == pytest.approx(
        direct_alpha([OVERALL["alice"], OVERALL["chen"]], units=p2)
    )
    assert not any("bashir" in r.coders for r in report.records)

    week2 = project_agreement(study,
                              Selection(codes=["overall"], attributes={"week": "2"}),
                              AgreementSettings(bootstrap=0))
    assert find(week2.records, ALPHA, ["alice", "bashir", "chen"], "overall").value == (
        pytest.approx(direct_alpha(list(OVERALL.values()), units=p2)))


def test_unknown_names_and_empty_selections_are_clear_errors(study: Project) -> None:
    with pytest.raises(ProjectError, match="no code 'warmth'.*known: overall"):
        project_agreement(study, Selection(codes=["warmth"]))
    with pytest.raises(ProjectError, match="no coder 'zoe'.*alice, bashir, chen"):
        project_agreement(study, Selection(coders=["zoe"]))
    with pytest.raises(ProjectError, match="no model 'Claude'"):
        project_agreement(study, Selection(models=["Claude"]))
    with pytest.raises(ProjectError, match="level must be one of"):
        project_agreement(study, Selection(), AgreementSettings(level="fuzzy"))
    empty = make_project(study.path.parent, "empty.sense7")
    with pytest.raises(ProjectError, match="no codings match"):
        project_agreement(empty, Selection(), AgreementSettings(bootstrap=0))
    empty.close()


def test_codes_nobody_coded_are_left_out_unless_asked(study: Project) -> None:
    report = project_agreement(study, Selection(), AgreementSettings(bootstrap=0))
    assert report.codes == ["overall"]
    asked = project_agreement(study, Selection(codes=["overall", "interest"]),
                              AgreementSettings(bootstrap=0))
    interest = find(asked.records, ALPHA, [], "interest")
    assert interest.value is None and interest.band() == "undefined"


def test_consensus_is_compared_with_coders_and_users(study: Project) -> None:
    study.set_coder("dana", "adjudicator")
    for (cid, pos), value in {("c1", 2): 4, ("c1", 4): 5, ("c2", 2): 2, ("c4", 4): 2}.items():
        study.set_consensus(Unit(cid, pos), "overall", value, "discussed")
    consensus = {("c1", 2): 4, ("c1", 4): 5, ("c2", 2): 2, ("c4", 4): 2}
    report = project_agreement(study,
                               Selection(codes=["overall"], include_users=True),
                               AgreementSettings(bootstrap=0))
    alpha = find(report.records, ALPHA, ["bashir", "consensus"], "overall")
    assert alpha.value == pytest.approx(direct_alpha([OVERALL["bashir"], consensus]))
    vs_users = find(report.records, ALPHA, ["consensus", "users"], "overall")
    assert vs_users.value == pytest.approx(direct_alpha([consensus, USERS]))
    # the consensus is not one of the coders
    assert find(report.records, ALPHA, ["alice", "bashir", "chen"], "overall").n_units == 7
    without = project_agreement(study,
                                Selection(codes=["overall"], include_consensus=False),
                                AgreementSettings(bootstrap=0))
    assert not any("consensus" in r.coders for r in without.records)


def test_a_coder_called_users_stays_distinct(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    code(project, "users", {("c1", 2, "overall"): 4, ("c2", 2, "overall"): 1})
    code(project, "alice", {("c1", 2, "overall"): 4, ("c2", 2, "overall"): 2})
    report = project_agreement(project,
                               Selection(codes=["overall"], include_users=True),
                               AgreementSettings(bootstrap=0))
    assert find(report.records, ALPHA, ["alice", "users (coder)"], "overall").n_units == 2
    assert find(report.records, ALPHA, ["users (coder)", "users"], "overall").n_units == 2
    project.close()


def test_progress_and_cancel(study: Project) -> None:
    calls: list[tuple[int, int]] = []
    project_agreement(study, Selection(codes=["overall"]), AgreementSettings(bootstrap=50),
                      progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1][0] == calls[-1][1]
    with pytest.raises(Cancelled):
        project_agreement(study, Selection(codes=["overall"]), AgreementSettings(bootstrap=50),
                          cancel=lambda: True)


def test_demo_project_matches_a_direct_computation_from_its_csv(tmp_path: Path) -> None:
    path = build_demo(tmp_path)
    raw = pd.read_csv(demo_dir() / "codings.csv", dtype={"conversation_id": str})
    with Project.open(path, backup=False) as project:
        report = project_agreement(project, Selection(), AgreementSettings(bootstrap=0))
    assert set(report.codes) == set(raw["code"])
    for key in ("overall", "relational"):
        rows = raw[raw["code"] == key]
        matrix = rows.pivot(index="coder", columns=["conversation_id", "turn"], values="value")
        expected = krippendorff.alpha(reliability_data=matrix.to_numpy(dtype=float),
                                      level_of_measurement="ordinal",
                                      value_domain=[1, 2, 3, 4, 5])
        coders = sorted(rows["coder"].unique())
        alpha = find(report.records, ALPHA, coders, key)
        assert alpha.value is not None and not math.isnan(alpha.value)
        assert alpha.value == pytest.approx(float(expected), abs=1e-9)


def test_binary_conversation_code_needs_every_turn_finished(tmp_path: Path) -> None:
    from sense7_coder.domain.codebook.codes import code_from_dict
    from sense7_coder.project.codebook import editing as codebook_ops

    project = make_project(tmp_path)
    codebook_ops.add_code(project, code_from_dict(
        {"key": "resolved", "kind": "binary", "unit": "conversation"}))
    # alice finished both assistant turns of c1 and c2 and applied the code to c1 only;
    # bashir applied it to c1 and finished c2 only halfway (c2 stays missing for him)
    code(project, "alice", {("c1", 0, "resolved"): 1},
         done=[("c1", 2), ("c1", 4), ("c2", 2), ("c2", 4)])
    code(project, "bashir", {("c1", 0, "resolved"): 1}, done=[("c2", 2)])
    code(project, "chen", {}, done=[("c2", 2), ("c2", 4)])
    report = project_agreement(project, Selection(codes=["resolved"]),
                               AgreementSettings(bootstrap=0))
    alpha = find(report.records, ALPHA, ["alice", "bashir", "chen"], "resolved")
    # c1: alice 1, bashir 1; c2: alice 0, chen 0 (bashir unfinished -> missing)
    assert (alpha.n_units, alpha.n_values) == (2, 4)
    pct = find(report.records, "percent_agreement", ["alice", "bashir", "chen"], "resolved")
    assert pct.value == 1.0
    project.close()


def test_applicability_counts_stored_codings_not_the_binary_rule_s_absences(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A binary code that allows "not applicable": its applicability alpha is over what
    coders stored (a value or not applicable), not the zeros the binary rule adds for
    finished turns left without the code."""
    import analysis_support

    codes = [dict(c, allow_na=True) if c["key"] == "validation" else c
             for c in analysis_support.EXTRA_CODES]
    monkeypatch.setattr(analysis_support, "EXTRA_CODES", codes)
    project = make_project(tmp_path)
    finished = [("c1", 2), ("c1", 4), ("c2", 2), ("c2", 4)]
    code(project, "alice", {("c1", 2, "validation"): 1, ("c1", 4, "validation"): None},
         done=finished)
    code(project, "bob", {("c1", 2, "validation"): 1, ("c1", 4, "validation"): 1},
         done=finished)
    records = project_agreement(project, Selection(codes=["validation"]),
                                AgreementSettings(bootstrap=0)).records
    applicability = find(records, ALPHA, ["alice", "bob"], "validation",
                         level="applicability")
    assert applicability.n_units == 2  # c1's two turns; c2's absences are not stored
    # the values: c1's turn 2 and c2's two absences (alice's c1 turn 4 is not applicable)
    assert find(records, ALPHA, ["alice", "bob"], "validation").n_units == 3
    project.close()
