"""Every file reader against two kinds of hostile input that used to end in a traceback:
JSON nested far deeper than any real file (RecursionError) and whole numbers too large for
SQLite (OverflowError). Each reader either takes the file or refuses it with one
:class:`Sense7Error` naming the file; nothing is written on a refusal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from analysis_support import make_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sense7_coder.domain.errors import Sense7Error
from sense7_coder.project import Project
from sense7_coder.project.codebook.editing import read_codebook_file
from sense7_coder.project.imports import import_codings, import_files
from sense7_coder.project.prediction.predictors import import_predictions

DEPTHS = st.sampled_from([50, 1_000, 20_000, 100_000])
HUGE = st.one_of(
    st.integers(min_value=2**63 - 2, max_value=2**70),
    st.integers(max_value=-(2**63) - 1, min_value=-(2**70)),
    st.sampled_from(["1e30", "1e308", "99999999999999999999", "-1e400", "1e-400"]),
)
SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    yield project
    project.close()


def nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def counts(project: Project) -> tuple[int, int]:
    return (int(project.db.execute("SELECT COUNT(*) FROM conversations").fetchone()[0]),
            int(project.db.execute("SELECT COUNT(*) FROM codings").fetchone()[0]))


def refused_or_taken(action: object, path: Path) -> None:
    """Run ``action``; a refusal must be a Sense7Error naming the file, in one line."""
    try:
        action()  # type: ignore[operator]
    except Sense7Error as e:
        assert path.name in str(e) and "\n" not in str(e).strip(), str(e)


@SETTINGS
@given(depth=DEPTHS, where=st.sampled_from(["messages", "content", "ratings", "file"]))
def test_a_deeply_nested_chat_file(study: Project, tmp_path: Path, depth: int,
                                   where: str) -> None:
    path = tmp_path / f"deep-{where}-{depth}.json"
    body = {
        "messages": '[{"conversation_id": "z1", "messages": ' + nested(depth) + "}]",
        "content": '[{"conversation_id": "z1", "messages": [{"role": "user", "content": '
                   + nested(depth, '"hi"') + "}]}]",
        "ratings": '[{"conversation_id": "z1", "messages": [{"role": "assistant", '
                   '"content": "hi", "ratings": ' + nested(depth) + "}]}]",
        "file": nested(depth),
    }[where]
    path.write_text(body, encoding="utf-8")
    before = counts(study)
    try:
        import_files(study, [path])
    except Sense7Error as e:
        assert path.name in str(e), str(e)
        assert counts(study) == before
    for lines in (tmp_path / f"deep-{where}-{depth}.jsonl",):
        lines.write_text(body.replace("\n", " ") + "\n", encoding="utf-8")
        refused_or_taken(lambda p=lines: import_files(study, [p]), lines)


@SETTINGS
@given(depth=DEPTHS)
def test_a_deeply_nested_codebook(tmp_path: Path, depth: int) -> None:
    path = tmp_path / f"book-{depth}.json"
    path.write_text('{"name": "x", "codes": ' + nested(depth, "{}") + "}", encoding="utf-8")
    with pytest.raises(Sense7Error) as e:
        read_codebook_file(path)
    assert path.name in str(e.value)


@SETTINGS
@given(number=HUGE, column=st.sampled_from(["turn", "value"]))
def test_huge_numbers_in_a_codings_file(study: Project, tmp_path: Path, number: object,
                                        column: str) -> None:
    path = tmp_path / "codings.csv"
    turn, value = (number, 3) if column == "turn" else (2, number)
    path.write_text(f"coder,conversation_id,turn,code,value\nana,c1,{turn},overall,{value}\n",
                    encoding="utf-8")
    before = counts(study)
    with pytest.raises(Sense7Error) as e:
        import_codings(study, path)
    assert path.name in str(e.value) and "line 2" in str(e.value), str(e.value)
    assert counts(study) == before


@SETTINGS
@given(number=HUGE, column=st.sampled_from(["run", "turn", "score"]))
def test_huge_numbers_in_a_predictions_file(study: Project, tmp_path: Path, number: object,
                                            column: str) -> None:
    path = tmp_path / "predictions.csv"
    row = {"run": ("c1", 2, 4, number), "turn": ("c1", number, 4, 1),
           "score": ("c1", 2, number, 1)}[column]
    path.write_text("conversation_id,turn,score,run\n" + ",".join(map(str, row)) + "\n",
                    encoding="utf-8")
    refused_or_taken(lambda: import_predictions(study, path, "judge"), path)
