"""Transcripts: the real Lend an Ear and EmpatheticDialogues files, .txt files, errors."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from sense7_coder.domain.errors import InputError
from sense7_coder.domain.importers import ImportOptions, detect_format, read_files

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
LEND_AN_EAR = SHARED_DATA / "mint-empathy" / "lend_an_ear_eval"
ORIGINAL = SHARED_DATA / "empathic-communication-reliability" / "original_data"


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip("shared data not available")
    return path


def read(path: Path, **kw: Any) -> Any:
    return read_files([path], ImportOptions(**kw))[0]


def test_lend_an_ear_transcripts_match_the_authors_turns() -> None:
    path = need(LEND_AN_EAR / "lend_an_ear_50_conversations.csv")
    assert detect_format(path) == "transcript"
    batch = read(path)
    convs = {c.conversation_id: c for c in batch.conversations}
    assert len(convs) == 50
    assert sum(len(c.turns) for c in convs.values()) == 680
    roles = Counter(t.role for c in convs.values() for t in c.turns)
    assert roles == {"user": 365, "assistant": 315}
    first = convs["20241031145103738386"]
    assert first.turns[0].speaker == "Seeker"
    assert first.turns[1].text == "Oh no! I'm sorry to hear that. What position was it?"
    assert first.attributes == {"response_length": 86}
    # the authors' own tactic files list every supporter turn with its text
    per_conv = pd.read_csv(LEND_AN_EAR / "tactic_results" / "conversation_level_tactics.csv",
                           dtype=str)
    for cid, n in zip(per_conv["conversation_id"], per_conv["num_supporter_turns"], strict=True):
        assert sum(t.role == "assistant" for t in convs[cid].turns) == int(n)
    per_turn = pd.read_csv(LEND_AN_EAR / "tactic_results" / "turn_level_tactics.csv",
                           dtype=str, keep_default_na=False)
    assert len(per_turn) == 315
    for cid, k, text in zip(per_turn["conversation_id"], per_turn["supporter_turn_index"],
                            per_turn["whole_response"], strict=True):
        supporter = [t for t in convs[cid].turns if t.role == "assistant"]
        assert supporter[int(k) - 1].text == text.strip()


def test_same_transcripts_in_the_reliability_study() -> None:
    conversations = read(need(ORIGINAL / "sample_lend_an_ear_conversations.csv"))
    annotations = read(need(ORIGINAL / "sample_lend_an_ear_annotations.csv"),
                       format="transcript")
    assert len(conversations.conversations) == len(annotations.conversations) == 50
    # 196 rows, one per rating: each conversation read once, the repeats counted
    assert annotations.skipped_rows == 146
    assert any("validating_emotions" in w for w in annotations.warnings)
    by_id = {c.conversation_id: c for c in conversations.conversations}
    for conv in annotations.conversations:
        assert [t.text for t in conv.turns] == [t.text for t in by_id[conv.conversation_id].turns]
        assert "validating_emotions" not in conv.attributes  # differs between raters


def test_empatheticdialogues_sample() -> None:
    path = need(ORIGINAL / "sample_empatheticdialogues.csv")
    batch = read(path, format="transcript")
    assert len(batch.conversations) == 50
    assert sum(len(c.turns) for c in batch.conversations) == 262
    assert batch.skipped_rows == 162
    rows = pd.read_csv(path, dtype=str, keep_default_na=False)
    for conv in batch.conversations:
        mine = rows[rows["conv_id"] == conv.conversation_id]
        # the situation prompt, then one turn per utterance row
        assert len(conv.turns) == len(mine) + 1
        assert [t.text for t in conv.turns[1:]] == [u.strip() for u in mine["utterance"]]
        assert conv.attributes["context"] == mine["context"].iloc[0]
    first = batch.conversations[0]
    assert [t.role for t in first.turns] == ["user", "user", "assistant", "user", "assistant"]


def test_epitome_pairs_are_not_a_conversation_table() -> None:
    path = need(ORIGINAL / "sample_epitome.csv")
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.field == "text" and "seeker_post" in e.value.message


def test_txt_transcript(tmp_path: Path) -> None:
    path = tmp_path / "session 12.txt"
    path.write_text(
        "\n"
        "User: I can't sleep.\n"
        "It started last week.\n"
        "\n"
        "Note: I work nights.\n"
        "AI Assistant:That sounds exhausting.\n"
        "Note: this was the first reply.\n"
        "human:   ok\n\n\n",
        encoding="utf-8",
    )
    unmapped = read(path)
    assert len(unmapped.conversations[0].turns) == 2  # "AI Assistant:" was read as text
    assert unmapped.warnings == [
        "lines beginning with a name that is not a known speaker were read as message text: "
        "'Note' (2 lines), 'AI Assistant' (1 line); if one of them is a speaker, say "
        "which role it has (user or assistant)"]
    batch = read(path, roles={"AI Assistant": "assistant"})
    conv = batch.conversations[0]
    assert conv.conversation_id == "session 12"
    assert [(t.role, t.speaker) for t in conv.turns] == [
        ("user", "User"), ("assistant", "AI Assistant"), ("user", "human")]
    assert conv.turns[0].text == "I can't sleep.\nIt started last week.\n\nNote: I work nights."
    assert conv.turns[1].text == "That sounds exhausting.\nNote: this was the first reply."
    assert conv.turns[2].text == "ok"
    assert any("'Note' (2 lines)" in w for w in batch.warnings)


def test_txt_must_start_with_a_speaker(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("\nCoach: hello\nTrainee: hi\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path)
    assert (e.value.location, e.value.field) == ("line 2", "speaker")
    assert "unknown speaker 'Coach'" in e.value.message and e.value.hint is not None
    assert (e.value.hint.option, e.value.hint.value) == ("roles", "Coach=user")
    batch = read(path, roles={"Coach": "assistant", "trainee": "user"})
    assert [t.role for t in batch.conversations[0].turns] == ["assistant", "user"]
    path.write_text("hello there\nUser: hi\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.location == "line 1" and "expected 'Name: text'" in e.value.message


def test_transcript_csv_errors(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text('id,transcript\na,"User: hi\nBot: yo"\nb,"Moderator: hello"\n',
                    encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.location == "line 4, transcript line 1"
    assert "conversation 'b'" in e.value.message and "unknown speaker 'Moderator'" in e.value.message
    path.write_text('id,transcript\na,"User: hi"\na,"User: bye"\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path)
    assert e.value.location == "line 3" and "different transcript (first on line 2)" in e.value.message
    path.write_text('id,chat\na,"User: hi"\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        read(path, format="transcript")
    assert e.value.field == "transcript" and "columns present: id, chat" in e.value.message
    batch = read(path, format="transcript", mapping={"transcript": "chat"})
    assert batch.conversations[0].turns[0].text == "hi"


def test_transcript_csv_without_ids(tmp_path: Path) -> None:
    path = tmp_path / "chats.csv"
    path.write_text('full_conversation,model\n"Seeker: a\nSupporter: b",gpt\n"Seeker: c",x\n',
                    encoding="utf-8")
    batch = read(path)
    assert [c.conversation_id for c in batch.conversations] == ["chats-1", "chats-2"]
    assert batch.conversations[0].model == "gpt"


def test_speaker_pattern_is_strict_about_names() -> None:
    from sense7_coder.domain.importers.transcript import SPEAKER_RE

    assert SPEAKER_RE.match("Seeker: hi") is not None
    match = SPEAKER_RE.match(" Supporter:hello")
    assert match is not None and match.group(1) == "Supporter" and match.group(2) == "hello"
    assert SPEAKER_RE.match(": nothing") is None
    assert re.match(r"\d+", SPEAKER_RE.match("10:30 we met")[1])  # type: ignore[index]
