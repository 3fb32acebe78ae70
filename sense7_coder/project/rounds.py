"""Calibration rounds: the training procedure of content analysis (Krippendorff; Neuendorf)
as the project holds it.

A lead starts a round: a seeded sample of conversations no one is assigned yet (stratified
by a conversation attribute when asked: each value gets its share, largest remainders
first), assigned to every listed coder, under the codebook version as it stands, with the
threshold set before any value is seen (alpha's 95% interval's lower end must reach it;
Krippendorff recommends .800, .667 for tentative conclusions). When the coders are done,
the round's status gives alpha per code with its interval and the verdict, and the
disagreements furthest apart first; closing it records those figures. The next round starts
after the codebook was revised (a new version), unless the lead says the codebook stays.

The main coding keeps a reliability subsample: the conversations assigned with overlap
(every coder codes them) outside the rounds. :func:`drift` compares its alpha per code with
the last closed round's.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..domain.agreement import ALPHA
from ..domain.agreement.records import APPLICABILITY, MIN_UNITS, AgreementRecord
from ..domain.agreement_settings import DRAWS_DEFAULT, AgreementSettings
from ..domain.errors import Hint, ProjectError
from ..store import assignments as store_assignments
from ..store import attributes as store_attributes
from ..store import codebook_versions as store_versions
from ..store import codings as store_codings
from ..store import rounds as store
from .agreement import project_agreement
from .changes import CODERS, Changes
from .coders import typed_coder_name
from .project import Project
from .ratings import RESERVED
from .reconcile import Disagreement, disagreements
from .selection import Selection

#: bootstrap draws of a round's intervals
ROUND_DRAWS = DRAWS_DEFAULT


@dataclass
class CodeVerdict:
    """One code's alpha in a round (or the reliability subsample) against the threshold."""

    code: str
    alpha: float | None
    ci_low: float | None
    ci_high: float | None
    ci_method: str
    units: int
    threshold: float

    @property
    def met(self) -> bool:
        return self.ci_low is not None and self.ci_low >= self.threshold

    def verdict(self) -> str:
        if self.alpha is None:
            return "undefined"
        if self.met:
            return "met"
        if self.ci_high is not None and self.ci_high < self.threshold:
            return "not met"
        return "not met (interval spans the threshold)"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "alpha": self.alpha, "ci_low": self.ci_low,
                "ci_high": self.ci_high, "ci_method": self.ci_method, "units": self.units,
                "threshold": self.threshold, "met": self.met, "verdict": self.verdict()}


@dataclass
class RoundStatus:
    round: dict[str, Any]
    verdicts: list[CodeVerdict]
    #: the disagreements furthest apart first (the ones worth discussing)
    discuss: list[Disagreement] = field(default_factory=list)

    def to_dict(self, listed: int = 10) -> dict[str, Any]:
        return {"round": self.round, "codes": [v.to_dict() for v in self.verdicts],
                "discuss": [d.to_dict() for d in self.discuss[:listed]],
                "discuss_total": len(self.discuss)}


def rounds(project: Project) -> list[dict[str, Any]]:
    return store.rounds(project.db)


def _round(project: Project, number: int | None) -> dict[str, Any]:
    found = rounds(project)
    if not found:
        raise ProjectError("no calibration round yet: a lead starts one with a sample, its "
                           "coders and the threshold")
    if number is None:
        return found[-1]
    for r in found:
        if r["number"] == number:
            return r
    raise ProjectError(f"no round {number}; the project has rounds 1 to {found[-1]['number']}")


def _strata(project: Project, attribute: str) -> dict[str, str]:
    """conversation id -> its value of ``attribute`` (a column or an attributes entry)."""
    out = {}
    for cid, participant, model, topic, _, attrs in store_attributes.sheet_rows(project.db):
        columns = {"model": model, "participant_id": participant, "topic": topic}
        value = columns[attribute] if attribute in columns else attrs.get(attribute)
        out[cid] = "" if value is None else str(value)
    if not any(out.values()):
        raise ProjectError(f"stratifying by '{attribute}': no conversation has that "
                           "attribute")
    return out


def sample(pool: Sequence[str], n: int, seed: int, strata: dict[str, str] | None = None
           ) -> list[str]:
    """``n`` of ``pool`` drawn with ``seed``; with ``strata`` each stratum gets its share of
    ``n`` (largest remainders first, ties by the stratum's name) drawn within it."""
    rng = random.Random(seed)
    if strata is None:
        return rng.sample(list(pool), n)
    groups: dict[str, list[str]] = defaultdict(list)
    for cid in pool:
        groups[strata.get(cid, "")].append(cid)
    shares = {k: n * len(v) / len(pool) for k, v in groups.items()}
    take = {k: int(s) for k, s in shares.items()}
    rest = n - sum(take.values())
    for k in sorted(shares, key=lambda k: (-(shares[k] - take[k]), k))[:rest]:
        take[k] += 1
    out: list[str] = []
    for k in sorted(groups):
        out += rng.sample(groups[k], min(take[k], len(groups[k])))
    return out


def _check_next(db: Any, same_codebook: bool) -> None:
    """Refuse a new round while one is open, or on the codebook the last one used."""
    earlier = store.rounds(db)
    if earlier and earlier[-1]["closed_at"] is None:
        raise ProjectError(f"round {earlier[-1]['number']} is still open: close it first")
    version_now = store_versions.latest_number(db)
    if earlier and not same_codebook and earlier[-1]["codebook_version"] == version_now:
        raise ProjectError(
            f"the codebook has not changed since round {earlier[-1]['number']} (version "
            f"{version_now}): revise the codes that missed the threshold first",
            hint=Hint("same-codebook", "", "or run the next round on it as it is"))


def start_round(project: Project, *, sample_size: int, seed: int, coders: Sequence[str],
                threshold: float, stratify: str | None = None,
                same_codebook: bool = False) -> tuple[int, Changes]:
    """Start a calibration round (see the module notes); its number and what changed."""
    project.require_lead("start a calibration round")
    names = [typed_coder_name(c) for c in coders if c.strip()]
    if len(names) < 2 or len(set(names)) != len(names):
        raise ProjectError("a round needs two or more different coders",
                           hint=Hint("coders", "A,B,C", "list every coder of the round"))
    if not 0 < threshold < 1:
        raise ProjectError(f"the threshold is alpha's lower interval end to reach, between 0 "
                           f"and 1 (Krippendorff: .800, or .667 for tentative conclusions); "
                           f"got {threshold}")
    if sample_size < 2:
        raise ProjectError(f"a round needs two conversations or more, got {sample_size}")
    # every check and the draw inside the write transaction: two leads starting rounds at
    # once get one each, never the same conversations
    with project.pdb.acting("round"), project.pdb.atomic() as db:
        _check_next(db, same_codebook)
        taken = {a["conversation_id"] for a in store_assignments.all_assignments(db)}
        pool = [cid for _, cid in store_assignments.conversation_order(db) if cid not in taken]
        if len(pool) < sample_size:
            raise ProjectError(f"only {len(pool)} conversations are assigned to no one; a "
                               f"round of {sample_size} needs that many")
        chosen = sample(pool, sample_size, seed,
                        _strata(project, stratify) if stratify else None)
        existing = store_assignments.all_assignments(db)
        rows = []
        for coder in names:
            first = 1 + max((a["ord"] for a in existing if a["coder"] == coder), default=0)
            rows += [(coder, cid, 1, first + i) for i, cid in enumerate(chosen)]
        version = store_versions.ensure_first(db, project.coder)
        for coder in names:
            store_codings.ensure_coder(db, coder)
        store_assignments.insert(db, rows)
        number = store.start(db, by=project.coder, codebook_version=version,
                             threshold=threshold, seed=seed, stratify=stratify, coders=names,
                             conversation_ids=chosen)
    return number, CODERS


def _verdicts(project: Project, coders: Sequence[str], conversation_ids: Sequence[str],
              threshold: float, seed: int, draws: int, where: str) -> list[CodeVerdict]:
    selection = Selection(coders=coders, conversation_ids=conversation_ids,
                          include_consensus=False, include_models=False)
    try:
        report = project_agreement(project, selection,
                                   AgreementSettings(bootstrap=draws, seed=seed,
                                                     measures="alpha"))
    except ProjectError as e:
        if "no codings match" not in str(e):
            raise
        raise ProjectError(f"{where}: no two coders coded its conversations yet; nothing "
                           "to compare") from None
    among: dict[str, AgreementRecord] = {}
    for r in report.records:
        if (r.measure == ALPHA and r.level != APPLICABILITY
                and not set(r.coders) & set(RESERVED)):
            among.setdefault(r.code, r)
    return [CodeVerdict(r.code, r.value, r.ci_low, r.ci_high, r.ci_method, r.n_units,
                        threshold) for r in among.values()]


def round_status(project: Project, number: int | None = None,
                 draws: int = ROUND_DRAWS) -> RoundStatus:
    """Alpha per code of a round's coders on its conversations, each against the round's
    threshold, and the disagreements furthest apart first."""
    project.require_unblinded("see a round's agreement")
    r = _round(project, number)
    cids = store.conversations(project.db, r["number"])
    if r["closed_at"] is not None:  # the figures as the round was closed
        verdicts = [CodeVerdict(f["code"], f["alpha"], f["ci_low"], f["ci_high"],
                                f["ci_method"], f["units"], r["threshold"])
                    for f in store.results(project.db) if f["round"] == r["number"]]
    else:
        verdicts = _verdicts(project, r["coders"], cids, r["threshold"], r["seed"], draws,
                             f"round {r['number']}")
    queue = disagreements(project, Selection(coders=r["coders"], conversation_ids=cids))
    return RoundStatus(r, verdicts, queue)


def close_round(project: Project, number: int | None = None,
                draws: int = ROUND_DRAWS) -> RoundStatus:
    """Close a round, recording each code's alpha, interval and verdict."""
    project.require_lead("close a calibration round")
    r = _round(project, number)
    if r["closed_at"] is not None:
        raise ProjectError(f"round {r['number']} was closed at {r['closed_at']}")
    status = round_status(project, r["number"], draws)
    results = [(v.code, v.alpha, v.ci_low, v.ci_high, v.ci_method, v.units, int(v.met))
               for v in status.verdicts]
    with project.pdb.acting("round"), project.pdb.atomic() as db:
        again = next(x for x in store.rounds(db) if x["number"] == status.round["number"])
        if again["closed_at"] is not None:  # closed by another window meanwhile
            raise ProjectError(f"round {again['number']} was closed at {again['closed_at']}")
        store.close(db, status.round["number"], results)
    status.round = _round(project, status.round["number"])
    return status


def results(project: Project) -> list[dict[str, Any]]:
    """Every closed round's alpha per code (the calibration story's figures)."""
    return store.results(project.db)


@dataclass
class Drift:
    """One code's alpha in the main coding's reliability subsample against the last round."""

    code: str
    round_alpha: float | None
    main: CodeVerdict

    def reading(self) -> str:
        m = self.main
        if m.alpha is None:
            return "no figure yet"
        if m.units < MIN_UNITS:
            return f"too few units (under {MIN_UNITS}) to read"
        if self.round_alpha is not None and m.ci_high is not None \
                and m.ci_high < self.round_alpha:
            return "drift: lower than in the round"
        if not m.met:
            return "below the threshold"
        return "holds"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "round_alpha": self.round_alpha, **self.main.to_dict(),
                "reading": self.reading()}


def drift(project: Project, draws: int = ROUND_DRAWS) -> tuple[dict[str, Any], int, list[Drift]]:
    """The reliability subsample of the main coding (conversations assigned with overlap,
    outside the rounds) against the last closed round: (round, conversations, per code)."""
    project.require_unblinded("see the coders' agreement")
    closed = [r for r in rounds(project) if r["closed_at"] is not None]
    if not closed:
        raise ProjectError("no closed calibration round to compare with: close a round "
                           "first")
    last = closed[-1]
    in_rounds = store.in_any_round(project.db)
    shared = sorted({a["conversation_id"] for a in store_assignments.all_assignments(project.db)
                     if a["overlap"] and a["conversation_id"] not in in_rounds})
    if not shared:
        raise ProjectError("the main coding has no reliability subsample: assign "
                           "conversations with an overlap, so that every coder codes some "
                           "of them", hint=Hint("overlap", "0.2", "assign with an overlap"))
    before = {r["code"]: r["alpha"] for r in store.results(project.db)
              if r["round"] == last["number"]}
    verdicts = _verdicts(project, last["coders"], shared, last["threshold"], last["seed"],
                         draws, "the reliability subsample")
    return last, len(shared), [Drift(v.code, before.get(v.code), v) for v in verdicts]

