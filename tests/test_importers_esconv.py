"""ESConv: the real FailedESConv.json and small files built here."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.errors import InputError
from sense7_coder.domain.importers import ImportOptions, detect_format, read_files

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FAILED_ESCONV = SHARED_DATA / "esconv" / "FailedESConv.json"


def read(path: Path, **kw: Any) -> Any:
    return read_files([path], ImportOptions(**kw))[0]


def test_failed_esconv() -> None:
    if not FAILED_ESCONV.exists():
        pytest.skip("shared data not available")
    assert detect_format(FAILED_ESCONV) == "esconv"
    batch = read(FAILED_ESCONV)
    convs = batch.conversations
    assert len(convs) == 196
    assert sum(len(c.turns) for c in convs) == 5230
    assert Counter(t.role for c in convs for t in c.turns) == {"user": 2853, "assistant": 2377}
    assert [c.conversation_id for c in convs[:2]] == ["FailedESConv-1", "FailedESConv-2"]
    # every supporter turn keeps its strategy; every seeker feedback is kept on its turn
    assert sum(1 for c in convs for t in c.turns if "strategy" in t.attributes) == 2377
    feedback = [t for c in convs for t in c.turns if "feedback" in t.attributes]
    assert len(feedback) == 987 and all(t.role == "user" for t in feedback)
    # 987 feedbacks, 3 of them follow a supporter turn that already had one
    rated = [t for c in convs for t in c.turns if "overall" in t.ratings]
    assert len(rated) == 984 and all(t.role == "assistant" for t in rated)
    assert any("3 feedback(s)" in w for w in batch.warnings)
    first = convs[0]
    assert first.topic == "ongoing depression"
    assert first.attributes["emotion_type"] == "depression"
    assert first.attributes["survey_seeker_empathy"] == 1
    assert first.attributes["situation"].startswith("General depression")
    texts = [t.text for t in first.turns[:5]]
    assert texts == ["Hey there", "How are you?", "hi", "I AM FINE, AND YOU",
                     "I am depressed about the Covid-19 pandemic"]
    # the seeker's feedback 4 on turn 5 rates the supporter's turn 4 before it
    assert first.turns[3].ratings == {"overall": 4}
    assert first.turns[3].attributes["strategy"] == "Questions"
    assert first.turns[4].attributes["feedback"] == 4 and first.turns[4].ratings == {}
    assert first.turns[8].ratings == {"overall": 1}  # feedback 1 on turn 10
    assert (first.turns[0].speaker, first.turns[2].speaker) == ("seeker", "supporter")


def esconv(dialog: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"experience_type": "Current Experience", "emotion_type": "anxiety",
             "problem_type": "job crisis", "situation": "s", "survey_score": {
                 "seeker": {"empathy": "4"}, "supporter": {"relevance": "3"}},
             "dialog": dialog}]


def test_small_file(tmp_path: Path) -> None:
    path = tmp_path / "ESConv.json"
    path.write_text(json.dumps(esconv([
        {"speaker": "seeker", "annotation": {"feedback": "5"}, "content": "early"},
        {"speaker": "supporter", "annotation": {"strategy": "Question"}, "content": "why?\n"},
        {"speaker": "seeker", "annotation": {"feedback": "2"}, "content": "because"},
        {"speaker": "seeker", "annotation": {"feedback": "3"}, "content": "and so"},
    ])), encoding="utf-8")
    batch = read(path)
    conv = batch.conversations[0]
    assert conv.conversation_id == "ESConv-1"
    assert conv.attributes["survey_supporter_relevance"] == 3
    assert conv.turns[1].text == "why?"
    assert conv.turns[1].ratings == {"overall": 3}  # the later feedback wins
    assert conv.turns[0].attributes == {"feedback": 5}  # no supporter turn before it


@pytest.mark.parametrize(
    ("message", "location", "field", "expect"),
    [
        ({"speaker": "speaker", "annotation": {"feedback": "9"}, "content": "x"},
         "conversation 1, message 2", "annotation.feedback", "feedback '9' is not a rating 1-5"),
        ({"speaker": "moderator", "annotation": {}, "content": "x"},
         "conversation 1, message 2", "speaker", "unknown speaker 'moderator'"),
    ],
)
def test_errors(tmp_path: Path, message: dict[str, Any], location: str, field: str,
                expect: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(esconv([
        {"speaker": "listener", "annotation": {"strategy": "Others"}, "content": "hi"},
        message])), encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path, format="esconv")
    assert (e.value.file, e.value.location, e.value.field) == (str(path), location, field)
    assert expect in e.value.message
