"""A model is a rater, never a coder: it joins agreement as model:NAME beside the coders
and the users, is left out on request, and is exported apart from the codings."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from sense7_coder.domain.agreement_settings import AgreementSettings
from sense7_coder.domain.errors import ProjectError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.agreement import methods_paragraph, project_agreement
from sense7_coder.project.selection import Selection
from sense7_coder.project.suggestions.stored import NewSuggestion, store_run


def _copy_alice(p: Project, name: str = "mirror", shift: int = 0) -> int:
    """A model that suggests alice's own values of affective (shifted)."""
    rows = p.db.execute("SELECT conversation_id, position, value FROM codings "
                        "WHERE coder = 'alice' AND code = 'affective'").fetchall()
    items = [NewSuggestion(Unit(c, pos), "affective", "ok",
                           None if v is None else min(5, v + shift)) for c, pos, v in rows]
    store_run(p, name, "llm", "turn", items, api_model="m", prompt_digest="abcd")
    return sum(v is not None for *_, v in rows)  # not applicable enters no figure


def test_a_model_joins_agreement_beside_each_coder_and_the_users(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        n = _copy_alice(p)
        options = (Selection(codes=["affective"], include_users=True),
                   AgreementSettings(bootstrap=20))
        report = project_agreement(p, *options)
        alphas = {tuple(r.coders): r for r in report.records
                  if r.measure == "krippendorff_alpha" and r.level != "applicability"}
        mirror_alice = alphas[("alice", "model:mirror")]
        assert mirror_alice.value == pytest.approx(1.0) and mirror_alice.n_units == n
        assert ("model:mirror", "users") in alphas and ("bashir", "model:mirror") in alphas
        assert alphas[("model:mirror", "users")].ci_low is not None
        # the coders' own coefficient is the coders' alone
        coders_alpha = next(r for r in report.records if r.measure == "krippendorff_alpha"
                            and len(r.coders) > 2)
        assert not any(c.startswith("model:") for c in coders_alpha.coders)
        text = methods_paragraph(p, report, *options)
        assert "model:mirror: an LLM (m), run 1, prompt abcd" in text.replace("\\", "")
        assert "rated by 3 coders" in text
        without = project_agreement(p,
                                    Selection(codes=["affective"], include_models=False),
                                    AgreementSettings(bootstrap=0))
        assert not any(c.startswith("model:") for r in without.records for c in r.coders)
        with pytest.raises(ProjectError, match="no model 'nobody'"):
            project_agreement(p, Selection(model_raters=["nobody"]), AgreementSettings(bootstrap=0))


def test_only_the_latest_run_of_a_model_counts(demo_project: Path):
    with Project.open(demo_project, backup=False) as p:
        _copy_alice(p, shift=1)
        _copy_alice(p)  # the later run agrees with alice exactly
        report = project_agreement(p, Selection(codes=["affective"]),
                                   AgreementSettings(bootstrap=0))
        pair = next(r for r in report.records if r.measure == "krippendorff_alpha"
                    and tuple(r.coders) == ("alice", "model:mirror"))
        assert pair.value == pytest.approx(1.0)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sense7_coder", *args], capture_output=True,
                          text=True, timeout=300)


def test_command_line_agreement_and_exports_keep_models_apart(demo_project: Path,
                                                              tmp_path: Path):
    with Project.open(demo_project, backup=False) as p:
        n = _copy_alice(p)
        store_run(p, "mirror", "llm", "turn", [
            NewSuggestion(Unit("101", 2), "overall", "no_answer", reply="no idea",
                          rationale="overall: no level in the reply")])
    shown = _cli("agreement", str(demo_project), "--codes", "affective", "--bootstrap", "0")
    assert shown.returncode == 0, shown.stderr
    assert "model:mirror" in shown.stdout
    hidden = _cli("agreement", str(demo_project), "--codes", "affective", "--bootstrap", "0",
                  "--no-models")
    assert hidden.returncode == 0 and "model:mirror" not in hidden.stdout
    out = tmp_path / "suggestions.csv"
    done = _cli("export", str(demo_project), "--kind", "suggestions", str(out))
    assert done.returncode == 0, done.stderr
    with out.open(encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["rater"] for r in rows} == {"model:mirror"}
    assert sum(r["status"] == "ok" and r["value"] != "" for r in rows) == n
    gone = [r for r in rows if r["status"] == "no_answer"]
    assert len(gone) == 1 and gone[0]["reply"] == "no idea" and gone[0]["value"] == ""
    long = tmp_path / "long.csv"
    assert _cli("export", str(demo_project), "--kind", "long", str(long)
                ).returncode == 0
    assert "model:" not in long.read_text(encoding="utf-8-sig")


def test_a_blind_coder_cannot_export_suggestions(demo_project: Path):
    from sense7_coder.project.export import export_frame

    with Project.open(demo_project, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        _copy_alice(p)
        p.blind_coding = True
    with Project.open(demo_project, backup=False) as p:
        p.set_coder("dora")
        with pytest.raises(ProjectError, match="codes blind"):
            export_frame(p, "suggestions", Selection())
