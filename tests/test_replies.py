"""A model's reply is read the way servers give it, and never read into a value it did not
give (strict types, the scale's own levels)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sense7_coder.domain.codebook.codes import Code, Level
from sense7_coder.domain.llm.replies import Reading, read_reply, reply_schema, response_format
from sense7_coder.resources import resolve_codebook

BOOK = resolve_codebook("sense7")
AFFECTIVE = BOOK.code("affective")
OVERALL = BOOK.code("overall")
NOMINAL = Code("stance", "Stance", kind="nominal", levels=[
    Level("agree", "agrees"), Level("refuse", "refuses"), Level("other", "something else")])
BINARY = Code("apology", "Apology", kind="binary", allow_na=False,
              levels=[Level(0, "absent"), Level(1, "present")])


def value_of(reply: str, code: Code = AFFECTIVE) -> object:
    got = read_reply(reply, [code])[code.key]
    return got.value if isinstance(got, Reading) else got


@pytest.mark.parametrize("reply", [
    '{"value": 4, "rationale": "names the worry"}',
    '```json\n{"score": 4}\n```',
    'Sure! Here is my judgement: {"level": 4, "reasoning": "warm"} Hope it helps.',
    "<S2>4</S2>",
    "<S1>4</S1>",
    "<score>4</score>",
    "level: 4",
    "Empathy level: 4",
    "**Score:** 4 (good)",
    "Affective understanding: 4",
    "4/5",
    "I'd rate it 4/5 overall.",
    "good",
    "Good.",
    "4",
    '{"value": 4.0}',
    '{"value": "4"}',
    '{"value": "good"}',
])
def test_every_shape_a_server_gives_reads_as_the_level(reply: str):
    assert value_of(reply) == 4


@pytest.mark.parametrize(("reply", "why"), [
    ('{"value": [4]}', "a list, not a level"),
    ('{"value": true}', "true/false, not a level"),
    ('{"value": {"x": 4}}', "an object, not a level"),
    ('{"value": 4.5}', "not a level"),
    ('{"value": 7}', "not a level"),
    ('{"value": 1e999}', "not a level"),
    ('{"value": 123456789012345678901234567890}', "too long"),
    ("", "no level"),
    ("I cannot judge this.", "no level"),
    ("between poor and good", "no level"),  # two labels: no guess
    ("3/10", "no level"),  # not this scale's top
])
def test_what_is_no_level_is_refused_with_the_reason(reply: str, why: str):
    got = value_of(reply)
    assert isinstance(got, str) and why in got


def test_not_applicable_only_where_the_code_allows_it():
    assert value_of('{"value": null}') is None
    assert value_of("N/A") is None
    assert "not allowed" in str(value_of('{"value": null}', BINARY))
    assert value_of("present", BINARY) == 1 and value_of('{"value": 0}', BINARY) == 0
    assert "true/false" in str(value_of('{"value": false}', BINARY))


def test_nominal_levels_by_value_or_label():
    assert value_of('{"value": "refuse"}', NOMINAL) == "refuse"
    assert value_of("Stance: agrees", NOMINAL) == "agree"
    assert value_of("something else", NOMINAL) == "other"
    assert isinstance(value_of('{"value": 1}', NOMINAL), str)


def test_one_reply_for_all_codes_of_a_unit():
    codes = [AFFECTIVE, OVERALL]
    got = read_reply('{"affective": {"value": 4, "rationale": "a"}, '
                     '"overall": {"value": 2, "rationale": "b"}}', codes)
    assert got == {"affective": Reading(4, "a"), "overall": Reading(2, "b")}
    tags = read_reply("<S1>5</S1> <S2>1</S2>", codes)
    assert tags["affective"].value == 5 and tags["overall"].value == 1  # type: ignore[union-attr]
    part = read_reply('{"affective": {"value": 4, "rationale": "a"}}', codes)
    assert isinstance(part["affective"], Reading) and isinstance(part["overall"], str)


def test_the_schema_names_every_level_and_not_applicable_where_allowed():
    schema = reply_schema([AFFECTIVE, BINARY])
    assert schema["required"] == ["affective", "apology"]
    assert schema["properties"]["affective"]["properties"]["value"]["enum"] == [1, 2, 3, 4, 5,
                                                                               None]
    assert schema["properties"]["apology"]["properties"]["value"]["enum"] == [0, 1]
    assert response_format([AFFECTIVE])["type"] == "json_schema"


_TEMPLATES = [
    '{{"value": {v}, "rationale": "r"}}', "```json\n{{\"score\": {v}}}\n```", "<S1>{v}</S1>",
    "level: {v}", "Empathy level: {v}", "{v}/5", "Rating = {v}", "{v}",
]


@settings(max_examples=200, derandomize=True)
@given(st.sampled_from(AFFECTIVE.values), st.sampled_from(_TEMPLATES),
       st.text(alphabet=st.characters(blacklist_characters="0123456789{}<>/:=",
                                      blacklist_categories=("Cs",)), max_size=30))
def test_any_level_in_any_shape_reads_back(value: int, template: str, noise: str):
    reply = template.format(v=value)
    if template.startswith("{{") or template.startswith("<") or ":" in template:
        reply = f"{reply}\n{noise}"  # text after a structured answer changes nothing
    assert value_of(reply) == value


@settings(max_examples=300, derandomize=True)
@given(st.one_of(
    st.text(max_size=200),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.sampled_from(["value", "score", "affective", "x"]),
                                   inner, max_size=3), max_leaves=8).map(json.dumps),
))
def test_nothing_reads_into_a_value_off_the_scale(reply: str):
    for code in (AFFECTIVE, NOMINAL, BINARY):
        got = read_reply(reply, [code, OVERALL])
        for key, reading in got.items():
            assert isinstance(reading, Reading | str)
            if isinstance(reading, Reading):
                c = code if key == code.key else OVERALL
                assert reading.value in c.values or (reading.value is None and c.allow_na)
                assert not isinstance(reading.value, bool)


@settings(max_examples=100, derandomize=True)
@given(st.sampled_from([True, False, [], [3], {"v": 3}]))
def test_a_list_an_object_or_a_bool_is_never_a_level(value: object):
    for key in ("value", "score", "affective"):
        assert isinstance(value_of(json.dumps({key: value})), str)


@pytest.mark.parametrize("reply", ["level: 4.99999999999999999999999", "4.00000000000000000001",
                                   "Score: 3.5", "level: 1e400", "level: 4e0x"])
def test_a_number_written_as_text_is_exact(reply: str):
    assert isinstance(value_of(reply), str)


def test_whole_numbers_written_as_text_fractions_are_levels():
    assert value_of("level: 4.0") == 4 and value_of("4.00") == 4 and value_of("4e0") == 4
