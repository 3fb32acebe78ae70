"""Agreement on spans: αu against Krippendorff's published example, the presence
projection, gamma where pygamma-agreement installs, and the command line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from analysis_support import make_project
from hypothesis import given, settings
from hypothesis import strategies as st
from test_spans import with_span_codes

from sense7_coder.cli import main
from sense7_coder.domain.agreement.unitizing import unitizing_alpha
from sense7_coder.domain.errors import ProjectError
from sense7_coder.project import Project
from sense7_coder.project.selection import Selection
from sense7_coder.project.spans import editing as project_spans
from sense7_coder.project.spans.agreement import span_agreement

# Krippendorff (2004), "Measuring the reliability of qualitative text analysis data",
# Quality & Quantity 38: a continuum from 150 to 450 cut by observers i and j into units
# of categories c and k (here shifted to start at 0). Published: uDo_c = .0144,
# uDe_c = .0532, uDo_k = 0, uDe_k = .0490; the joint alpha_u = .8587 (c alone: .7285 from
# the unrounded figures).
OBSERVER_I = [(75, 145, "c"), (220, 250, "c"), (30, 90, "k"), (150, 200, "k")]
OBSERVER_J = [(70, 150, "c"), (205, 225, "c"), (250, 270, "c"), (30, 90, "k"), (150, 200, "k")]


def test_alpha_u_reproduces_krippendorffs_published_example() -> None:
    result = unitizing_alpha(300, [OBSERVER_I, OBSERVER_J], ["c", "k"])
    assert result.observed["c"] == pytest.approx(0.0144, abs=5e-5)
    assert result.observed["k"] == 0
    assert result.expected["c"] == pytest.approx(0.0532, abs=5e-5)
    assert result.expected["k"] == pytest.approx(0.0490, abs=5e-5)
    assert result.by_category["c"] == pytest.approx(0.7285, abs=2e-4)
    assert result.by_category["k"] == 1
    assert result.alpha == pytest.approx(0.8587, abs=1e-4)


def _every_pair(gs: list[tuple[int, int, int]], hs: list[tuple[int, int, int]]) -> float:
    """Krippendorff's (2004) observed disagreement of two observers, summed over every
    pair of sections as the definition reads (the reference for the faster walk)."""
    total = 0.0
    for bg, lg, wg in gs:
        for bh, lh, wh in hs:
            if wg and wh and -lg < bg - bh < lh:
                total += (bg - bh) ** 2 + (bg + lg - bh - lh) ** 2
            elif wg and not wh and lh - lg >= bg - bh >= 0:
                total += lg ** 2
            elif wh and not wg and lg - lh >= bh - bg >= 0:
                total += lh ** 2
    return total


@given(st.integers(1, 200).flatmap(lambda n: st.tuples(
    st.just(n),
    *[st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n)), max_size=6)
      for _ in range(2)])))
@settings(max_examples=300, deadline=None)
def test_the_pairwise_disagreement_walk_equals_the_definition(case: tuple) -> None:
    from sense7_coder.domain.agreement.unitizing import _pair, _sections

    length, *cuts = case
    g, h = (_sections([(a, min(length, a + w)) for a, w in cut], length) for cut in cuts)
    assert _pair(g, h) == _every_pair(g, h)
    assert _pair(h, g) == _every_pair(h, g)


def test_alpha_u_is_one_for_identical_cuts_and_falls_as_they_part() -> None:
    same = unitizing_alpha(100, [[(10, 30, "x")], [(10, 30, "x")]]).alpha
    near = unitizing_alpha(100, [[(10, 30, "x")], [(12, 30, "x")]]).alpha
    apart = unitizing_alpha(100, [[(10, 30, "x")], [(60, 80, "x")]]).alpha
    assert same == 1
    assert same > near > apart  # type: ignore[operator]
    assert apart is not None and apart < 0.2


def study(tmp_path: Path, agree: bool) -> Project:
    """Two coders mark 'warmth' on the assistant turns of four conversations: the same
    stretches (``agree``) or shifted ones on half of them."""
    project = with_span_codes(make_project(tmp_path))
    project.set_coder("lee", "adjudicator")
    for coder in ("alice", "bob"):
        project.set_coder(coder)
        for i, cid in enumerate(("c1", "c2", "c3", "c4")):
            shift = 0 if agree or coder == "alice" or i % 2 else 8
            project_spans.add(project, cid, 2, shift, 21 + shift, "warmth")
            if coder == "alice" or agree:
                project_spans.add(project, cid, 4, 0, 13, "warmth")
            for pos in (2, 4):
                project.set_done(cid, pos)
    project.set_coder("lee")
    return project


def test_span_agreement_per_code_with_intervals_and_presence(tmp_path: Path) -> None:
    agree = study(tmp_path, True)
    (row,) = span_agreement(agree, Selection(codes=["warmth"]), draws=200)
    assert (row.code, row.coders, row.conversations, row.turns, row.spans) == (
        "warmth", ["alice", "bob"], 4, 8, 16)
    assert row.alpha_u == 1 and row.presence is None  # present everywhere: undefined
    agree.close()
    (tmp_path / "b").mkdir()
    differ = study(tmp_path / "b", False)
    (row,) = span_agreement(differ, Selection(codes=["warmth"]), draws=200, seed=1)
    assert row.alpha_u is not None and row.alpha_u < 0.9
    assert row.alpha_u_ci is not None and row.alpha_u_ci[0] <= row.alpha_u <= row.alpha_u_ci[1]
    assert row.presence is not None and row.presence < 1
    differ.close()


def test_a_blind_coder_is_refused_span_agreement(tmp_path: Path) -> None:
    project = study(tmp_path, True)
    project.blind_coding = True
    project.set_coder("alice")
    with pytest.raises(ProjectError, match="codes blind"):
        span_agreement(project)
    project.close()


def test_the_agreement_command_shows_the_span_codes(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    project = study(tmp_path, False)
    path = project.path
    project.close()
    assert main(["agreement", str(path), "--bootstrap", "100"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("warmth"))
    assert "[" in line and "alpha_u" in out and "presence" in out


def test_gamma_through_pygamma_agreement_where_it_installs(tmp_path: Path) -> None:
    pytest.importorskip("pygamma_agreement")
    project = study(tmp_path, True)
    (row,) = span_agreement(project, Selection(codes=["warmth"]), draws=0, gamma=True)
    assert row.gamma is not None and row.gamma > 0.9  # identical spans: gamma near 1
    project.close()


def test_the_demo_shows_tactic_spans_from_two_coders(demo_project: Path) -> None:
    with Project.open(demo_project) as project:
        assert project.code("validation").unit == "span"
        spans = project_spans.all_spans(project)
        assert {s.coder for s in spans} == {"alice", "bashir"} and len(spans) >= 10
        turn = project.conversation("101").turns[1].text  # type: ignore[union-attr]
        marked = {s.text_of(turn) for s in spans
                  if (s.conversation_id, s.position, s.code) == ("101", 2, "validation")}
        assert "it makes sense that you feel stretched thin" in marked
        rows = {r.code: r for r in span_agreement(project, draws=50)}
        assert rows["validation"].alpha_u is not None


def test_naming_only_span_codes_gives_their_figures_alone(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    project = study(tmp_path, False)
    path = project.path
    project.close()
    assert main(["agreement", str(path), "--codes", "warmth", "--bootstrap", "50"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("span code") and "fleiss" not in out


def test_the_bootstrap_stops_when_cancelled(tmp_path: Path) -> None:
    from sense7_coder.domain.errors import Cancelled

    project = study(tmp_path, False)
    asked = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 5

    with pytest.raises(Cancelled):
        span_agreement(project, Selection(codes=["warmth"]), draws=100_000, cancel=cancel)
    assert len(asked) == 6
    project.close()


def test_a_hand_edited_span_beyond_its_turn_is_left_out_and_said(tmp_path: Path) -> None:
    project = study(tmp_path, True)
    project.db.execute("UPDATE spans SET end = 5000 WHERE coder = 'bob' AND "
                       "conversation_id = 'c1' AND position = 2")
    (row,) = span_agreement(project, Selection(codes=["warmth"]), draws=0)
    assert row.spans == 15 and "1 span(s) outside" in row.note
    assert row.alpha_u is not None and row.alpha_u < 1
    project.close()


# pygamma-agreement's own example (its test data AlexPaulSuzan.csv, the three annotators
# of Mathet et al. 2015): annotator, category, start, end. Its tests publish, with the
# combined dissimilarity alpha=3, beta=1, delta_empty=1: a best alignment of 6 unitary
# alignments with disorder 0.96, and gamma between 0.44 and 0.47 (shuffle sampler).
ALEX_PAUL_SUZAN = [
    ("Alex", "1", 2, 9), ("Alex", "2", 11, 17), ("Alex", "5", 24, 30), ("Alex", "6", 32, 36),
    ("Alex", "6", 36, 44), ("Alex", "7", 44, 60),
    ("Paul", "1", 2, 9), ("Paul", "3", 11, 17), ("Paul", "5", 19, 25), ("Paul", "6", 32, 44),
    ("Suzan", "1", 2, 9), ("Suzan", "4", 11, 17), ("Suzan", "5", 21, 27),
    ("Suzan", "6", 32, 36), ("Suzan", "6", 36, 40), ("Suzan", "6", 40, 44),
]


def test_gamma_reproduces_pygamma_agreements_published_example() -> None:
    pytest.importorskip("pygamma_agreement")
    from pygamma_agreement.sampler import ShuffleContinuumSampler

    from sense7_coder.project.spans import gamma as span_gamma

    names = ["Alex", "Paul", "Suzan"]
    # the example as one turn of 60 characters, as span_agreement hands it over
    units = [[(s, e, cat) for who, cat, s, e in ALEX_PAUL_SUZAN if who == n] for n in names]
    turn = [("c", 1, 60)]
    continuum = span_gamma.continuum_of(turn, {("c", 1): units}, names)
    best = continuum.get_best_alignment(span_gamma.dissimilarity())
    assert len(best.unitary_alignments) == 6
    assert best.disorder == pytest.approx(0.96, abs=0.01)
    import numpy as np

    np.random.seed(4772)  # as the library's own test
    published = continuum.compute_gamma(span_gamma.dissimilarity(),
                                        sampler=ShuffleContinuumSampler(), precision_level=0.05)
    assert 0.44 <= published.gamma <= 0.47
    # what sense7-coder reports (the library's default sampler): near it, and the same
    # figure every time for the same seed
    first, note = span_gamma.gamma(turn, {("c", 1): units}, names, seed=0)
    assert note == "" and first is not None and 0.39 <= first <= 0.47
    assert span_gamma.gamma(turn, {("c", 1): units}, names, seed=0)[0] == first
    # laid after an empty turn, the same spans give the same agreement on positions
    shifted = span_gamma.continuum_of([("c", 0, 30), *turn],
                                      {("c", 0): [[], [], []], ("c", 1): units}, names)
    assert shifted.get_best_alignment(span_gamma.dissimilarity()).disorder == \
        pytest.approx(best.disorder)


def test_a_negative_seed_is_refused_before_the_span_codes_draw(
        demo_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The demo codes spans: the seed was checked only after their bootstrap had run, so a
    negative one ended in numpy's traceback instead of the usual refusal."""
    before = demo_project.read_bytes()
    assert main(["agreement", str(demo_project), "--seed", "-5", "--bootstrap", "10"]) == 2
    err = capsys.readouterr().err
    assert err == "sense7-coder: error: the bootstrap seed must be 0 or more, got -5\n"
    with (pytest.raises(ProjectError, match="seed must be 0 or more"),
          Project.open(demo_project, backup=False) as project):
        span_agreement(project, draws=10, seed=-1)
    assert demo_project.read_bytes() == before


def _study_case(rng: random.Random) -> tuple[list[int], list[list[list[tuple[int, int, str]]]]]:
    """Random turns (some empty, some without units) cut by 2-4 observers into units of
    two categories that overlap, touch and nest."""
    m = rng.randint(2, 4)
    lengths = [rng.choice((0, 1, 5, 30, 120)) for _ in range(rng.randint(1, 6))]
    cuts = []
    for length in lengths:
        per_turn = []
        for _ in range(m):
            units = []
            for _ in range(rng.randint(0, 5) if length else 0):
                a = rng.randrange(length)
                units.append((a, rng.randint(a + 1, length), rng.choice("xy")))
            per_turn.append(units)
        cuts.append(per_turn)
    return lengths, cuts


def test_alpha_u_in_arrays_equals_the_turn_by_turn_definition() -> None:
    """Several hundred generated studies: every figure of the array path equals
    unitizing.combine's over the same pieces, and so do bootstrap intervals."""
    import numpy as np

    from sense7_coder.domain.agreement import unitizing, unitizing_arrays

    rng = random.Random(39)
    for case in range(400):
        lengths, cuts = _study_case(rng)
        m = len(cuts[0])
        pieces = [unitizing.piece(n, obs, ["x", "y"]) for n, obs in zip(lengths, cuts, strict=True)]
        rows = [(t, o, a, b, "xy".index(k)) for t, obs in enumerate(cuts)
                for o, units in enumerate(obs) for a, b, k in units]
        t, o, a, b, k = (np.array([r[i] for r in rows], dtype=np.int64) for i in range(5))
        arrays = unitizing_arrays.by_category(np.array(lengths), t, o, a, b, k, m, ["x", "y"])
        slow = unitizing.combine(pieces, m, ["x", "y"])
        fast = unitizing_arrays.combine(arrays, np.array(lengths), m)
        for name in ("observed", "expected", "by_category"):
            for c in ("x", "y"):
                s, f = getattr(slow, name)[c], getattr(fast, name)[c]
                assert (s is None) == (f is None), (case, name, c)
                if s is not None:
                    assert f == pytest.approx(s, abs=1e-12, rel=1e-12), (case, name, c)
        assert (slow.alpha is None) == (fast.alpha is None)
        if slow.alpha is not None:
            assert fast.alpha == pytest.approx(slow.alpha, abs=1e-12, rel=1e-12)
        if case % 20 == 0 and len(lengths) > 2:  # the same draws, the same interval
            group = np.array([i // 2 for i in range(len(lengths))])
            groups = {g: [p for i, p in enumerate(pieces) if i // 2 == g]
                      for g in range(int(group.max()) + 1)}
            want = unitizing.bootstrap(groups, m, ["x", "y"], 60, case)
            got = unitizing_arrays.bootstrap(arrays, np.array(lengths), group, m, 60, case)
            assert (want is None) == (got is None)
            if want is not None and got is not None:
                assert got == pytest.approx(want, abs=1e-12)


def test_alpha_u_in_arrays_reproduces_the_published_example() -> None:
    import numpy as np

    from sense7_coder.domain.agreement import unitizing_arrays

    rows = [(0, o, a, b, "ck".index(k)) for o, units in enumerate((OBSERVER_I, OBSERVER_J))
            for a, b, k in units]
    t, o, a, b, k = (np.array([r[i] for r in rows], dtype=np.int64) for i in range(5))
    result = unitizing_arrays.combine(
        unitizing_arrays.by_category(np.array([300]), t, o, a, b, k, 2, ["c", "k"]),
        np.array([300]), 2)
    assert result.by_category["c"] == pytest.approx(0.7285, abs=2e-4)
    assert result.by_category["k"] == 1
    assert result.alpha == pytest.approx(0.8587, abs=1e-4)


def _figures(project: Project, selection: Selection) -> list[dict[str, object]]:
    return [r.as_row() for r in span_agreement(project, selection, draws=50, seed=3)]


def test_the_packed_read_gives_the_figures_of_the_ordinary_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans and turns are read packed (a few code points a row); a number too big for one
    sends the read the ordinary way. Both give the same figures, on the study as made and
    on one edited by hand past what packing carries."""
    from sense7_coder.store.spans import arrays as span_arrays

    project = study(tmp_path, False)
    project.set_coder("carol")
    project_spans.add(project, "c1", 2, 2, 9, "warmth")
    project.set_done("c1", 2)
    project.set_coder("lee")
    asks = [Selection(), Selection(coders=("alice", "bob")),
            Selection(conversation_ids=("c1", "c2", "c3"))]
    packed = [_figures(project, ask) for ask in asks]
    assert packed[0] != packed[1]  # carol's one conversation narrows the first
    with monkeypatch.context() as m:
        m.setattr(span_arrays, "_points", lambda text, width: None)
        assert [_figures(project, ask) for ask in asks] == packed
    # past one code point (turn 2 of c4 moved to position 2,000,000 by hand), and a value
    # another tool wrote as text: read the ordinary way, the same figures as forced
    db = project.db
    db.execute("PRAGMA foreign_keys = OFF")
    for table in ("turns", "spans", "turn_status"):
        db.execute(f"UPDATE {table} SET position = 2000000 "
                   "WHERE conversation_id = 'c4' AND position = 2")
    db.execute("UPDATE spans SET value = 'yes' WHERE conversation_id = 'c3' AND "
               "coder = 'alice' AND position = 4")
    edited = [_figures(project, ask) for ask in asks]
    assert edited != packed
    assert edited[1][0]["turns"] == 8  # the moved turn still counted
    with monkeypatch.context() as m:
        m.setattr(span_arrays, "_points", lambda text, width: None)
        assert [_figures(project, ask) for ask in asks] == edited
    project.close()


def test_a_crowd_of_coders_reads_the_ordinary_way_to_the_same_figures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past 24 coders in the project the spans are not read packed (a CASE over every name
    would test each row against all of them); the figures are those of the packed read."""
    from sense7_coder.store.spans import arrays as span_arrays

    project = study(tmp_path, False)
    packed = _figures(project, Selection())
    calls: list[str] = []
    plain = span_arrays._span_rows_plain
    monkeypatch.setattr(span_arrays, "_span_rows_plain",
                        lambda *a: calls.append("plain") or plain(*a))
    for i in range(25):  # coders who made no span
        project.set_coder(f"crowd{i:02d}")
    project.set_coder("lee")
    assert _figures(project, Selection()) == packed and len(calls) == len(packed)  # per code
    project.close()
