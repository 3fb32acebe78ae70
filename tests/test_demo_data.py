"""The bundled demo data set is internally consistent and exercises what the tool must handle."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from sense7_coder.domain.codebook.codes import Codebook
from sense7_coder.domain.models import NA_LABELS, SCALE_LABELS
from sense7_coder.resources import demo_dir, resolve_codebook

DIMENSION_COLUMNS = [
    "Affective",
    "Cognitive",
    "Response",
    "Prosocial",
    "Interest",
    "Contextual",
    "Relational",
]
RATING_COLUMNS = ["EmpathyOverall", *DIMENSION_COLUMNS]
TASK_COLUMNS = [
    "TaskId",
    "PID",
    "Model",
    "PreTaskChoice",
    "PreTaskImportance",
    "PreTaskDesiredEmpathy",
    "PostTaskExperience_Successful",
    "PostTaskExperience_Engaged",
    "PostTaskExperience_PositiveInteraction",
    "PostTaskExperience_UseAgain",
    *(f"PostTaskEmpathy_{d}" for d in DIMENSION_COLUMNS),
]
MESSAGE_COLUMNS = [
    "TaskId",
    "MessageId",
    "Role",
    "Message",
    *RATING_COLUMNS,
    "Retry",
    "Comment",
    "TimeOffsetSeconds",
]
RATING_KEY_OF = dict(
    zip(
        RATING_COLUMNS,
        ["overall", *(c.lower() for c in DIMENSION_COLUMNS)],
        strict=True,
    )
)


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(demo_dir() / name, dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def tasks() -> pd.DataFrame:
    return _read("Tasks.csv")


@pytest.fixture(scope="module")
def messages() -> pd.DataFrame:
    df = _read("Messages.csv")
    df["MessageId"] = df["MessageId"].astype(int)
    df["TimeOffsetSeconds"] = df["TimeOffsetSeconds"].astype(float)
    return df


@pytest.fixture(scope="module")
def kept(messages: pd.DataFrame) -> pd.DataFrame:
    """Messages as the importer keeps them, with their 1-based position per conversation."""
    df = messages[messages["Role"] != "error"].sort_values(["TaskId", "MessageId"]).copy()
    df["position"] = df.groupby("TaskId").cumcount() + 1
    return df


@pytest.fixture(scope="module")
def codings() -> pd.DataFrame:
    return _read("codings.csv")


@pytest.fixture(scope="module")
def sense7() -> Codebook:
    return resolve_codebook("sense7")


def test_readme_states_fiction_and_licence() -> None:
    text = (demo_dir() / "README.md").read_text(encoding="utf-8")
    assert "fictional" in text
    assert "CC0" in text


def test_tasks_have_the_release_columns_and_plausible_values(tasks: pd.DataFrame) -> None:
    assert list(tasks.columns) == TASK_COLUMNS
    assert len(tasks) >= 12
    assert tasks["TaskId"].is_unique
    assert set(tasks["PID"]) == {f"P0{i}" for i in range(1, 7)}
    assert {"GPT4", "GPT4-empathy", "Llama2-70b", "IC"} <= set(tasks["Model"])
    assert (tasks["PreTaskChoice"].str.len() > 5).all()
    assert tasks["PreTaskDesiredEmpathy"].astype(int).between(1, 3).all()
    for column in TASK_COLUMNS[4:]:
        if column != "PreTaskDesiredEmpathy":
            assert tasks[column].astype(int).between(1, 5).all(), column


def test_messages_have_the_release_columns(messages: pd.DataFrame) -> None:
    assert list(messages.columns) == MESSAGE_COLUMNS
    assert messages["MessageId"].is_unique
    assert set(messages["Role"]) == {"user", "assistant", "error"}
    assert (messages["Message"].str.strip() != "").all()


def test_every_task_has_messages_and_every_message_a_task(
    tasks: pd.DataFrame, messages: pd.DataFrame
) -> None:
    assert set(tasks["TaskId"]) == set(messages["TaskId"])


def test_conversations_alternate_user_and_assistant(kept: pd.DataFrame) -> None:
    for task_id, conv in kept.groupby("TaskId"):
        roles = list(conv["Role"])
        assert 4 <= len(roles) <= 10, task_id
        assert roles == [("user", "assistant")[i % 2] for i in range(len(roles))], task_id
        assert conv["TimeOffsetSeconds"].is_monotonic_increasing, task_id
        assert conv["TimeOffsetSeconds"].iloc[0] == 0, task_id


def test_the_error_row_is_the_last_message_of_its_conversation(messages: pd.DataFrame) -> None:
    errors = messages[messages["Role"] == "error"]
    assert len(errors) == 1
    for _, row in errors.iterrows():
        conv = messages[messages["TaskId"] == row["TaskId"]]
        assert row["MessageId"] == conv["MessageId"].max()
        assert all(row[c] == "" for c in RATING_COLUMNS)


def test_ratings_sit_on_assistant_rows_as_release_labels(messages: pd.DataFrame) -> None:
    assistant = messages[messages["Role"] == "assistant"]
    allowed = set(SCALE_LABELS) | {"unknown"}
    for column in RATING_COLUMNS:
        assert set(assistant[column]) <= allowed, column
        assert (messages.loc[messages["Role"] != "assistant", column] == "").all(), column
    assert (messages.loc[messages["Role"] != "assistant", "Comment"] == "").all()
    assert (assistant["Comment"] != "").sum() >= 3
    assert set(assistant["Retry"]) == {"0", "1"}


def test_relational_is_most_often_not_applicable(messages: pd.DataFrame) -> None:
    assistant = messages[messages["Role"] == "assistant"]
    share = {c: (assistant[c] == "unknown").mean() for c in RATING_COLUMNS}
    assert 0.5 <= share["Relational"] <= 0.75
    assert share["Relational"] == max(share.values())
    assert "unknown" in NA_LABELS


def test_ratings_span_the_scale_and_track_quality(messages: pd.DataFrame) -> None:
    assistant = messages[messages["Role"] == "assistant"]
    overall = assistant["EmpathyOverall"].map(SCALE_LABELS)
    assert set(overall) == {1, 2, 3, 4, 5}
    # the turn that loses the thread is rated very poor on relational continuity
    lost = assistant[assistant["Message"].str.contains("full-time bootcamp")]
    assert list(lost["Relational"]) == ["very poor"]
    # a refusal to engage is rated very poor overall; a warm, specific turn very good
    refusal = assistant[assistant["Message"].str.startswith("As an AI, I cannot")]
    assert list(refusal["EmpathyOverall"]) == ["very poor"]
    warm = assistant[assistant["Message"].str.contains("stretched thin with half the team")]
    assert list(warm["EmpathyOverall"]) == ["very good"]


def test_some_assistant_turns_hold_code_like_text(messages: pd.DataFrame) -> None:
    assistant = messages.loc[messages["Role"] == "assistant", "Message"]
    assert assistant.str.contains('=SUMIFS(C:C, A:A, ">"&E1)', regex=False).any()
    assert assistant.str.contains("```python\n", regex=False).any()


def test_codings_refer_to_assistant_turns_that_exist(
    codings: pd.DataFrame, kept: pd.DataFrame, sense7: Codebook
) -> None:
    assert list(codings.columns) == ["coder", "conversation_id", "turn", "code", "value"]
    assistant_turns = {
        (t, str(p)) for t, p in kept.loc[kept["Role"] == "assistant", ["TaskId", "position"]].values
    }
    refs = set(zip(codings["conversation_id"], codings["turn"], strict=True))
    assert refs <= assistant_turns
    assert codings["conversation_id"].nunique() >= 8
    assert set(codings["code"]) == {c.key for c in sense7.codes}
    assert not codings.duplicated(["coder", "conversation_id", "turn", "code"]).any()


def test_coded_values_are_on_the_codebook_scale(codings: pd.DataFrame, sense7: Codebook) -> None:
    parsed = [sense7.code(k).parse_value(v) for k, v in codings[["code", "value"]].values]
    assert set(parsed) == {None, 1, 2, 3, 4, 5}
    nas = codings[[p is None for p in parsed]]
    assert "relational" in set(nas["code"])


def _coded_wide(codings: pd.DataFrame) -> pd.DataFrame:
    df = codings.assign(value=pd.to_numeric(codings["value"].replace("NA", None)))
    return df.pivot_table(
        index=["conversation_id", "turn", "code"], columns="coder", values="value", aggfunc="first"
    )


def test_three_coders_partly_disagree(codings: pd.DataFrame) -> None:
    wide = _coded_wide(codings)
    assert list(wide.columns) == ["alice", "bashir", "chen"]
    complete = wide.dropna()
    spread = complete.max(axis=1) - complete.min(axis=1)
    assert (spread == 0).mean() > 0.2  # often unanimous ...
    assert (spread > 0).mean() > 0.2  # ... but far from always
    diffs = pd.concat(
        [(wide[a] - wide[b]).abs().dropna() for a, b in itertools.combinations(wide.columns, 2)]
    )
    assert (diffs <= 1).mean() >= 0.75  # mostly within one point
    assert (diffs >= 2).sum() >= 5  # with some larger disagreements


def test_coders_roughly_follow_the_users(codings: pd.DataFrame, kept: pd.DataFrame) -> None:
    assistant = kept[kept["Role"] == "assistant"]
    user = assistant.melt(
        id_vars=["TaskId", "position"], value_vars=RATING_COLUMNS, var_name="column"
    )
    user["code"] = user["column"].map(RATING_KEY_OF)
    user["rating"] = user["value"].map(SCALE_LABELS)
    user["turn"] = user["position"].astype(str)
    coded = _coded_wide(codings).mean(axis=1).rename("coders").reset_index()
    joined = coded.merge(
        user, left_on=["conversation_id", "turn", "code"], right_on=["TaskId", "turn", "code"]
    ).dropna(subset=["coders", "rating"])
    assert len(joined) > 100
    assert (joined["coders"] - joined["rating"]).abs().mean() < 1.0
    assert joined["coders"].corr(joined["rating"], method="spearman") > 0.6
