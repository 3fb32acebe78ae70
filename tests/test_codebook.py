"""The bundled codebooks load and say what the research needs; bad codebooks are refused clearly."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.domain.codebook.codes import Codebook, load_codebook
from sense7_coder.domain.errors import CodebookError
from sense7_coder.domain.models import DIMENSIONS, RATING_KEYS, SCALE_LABELS
from sense7_coder.resources import bundled_codebooks, codebooks_dir, resolve_codebook

TACTICS = (
    "advice",
    "assistance",
    "emotional_expression",
    "empowerment",
    "information",
    "paraphrasing",
    "questioning",
    "reappraisal",
    "self_disclosure",
    "validation",
)
#: letters the coding window keeps for itself (not applicable, undo, done)
RESERVED_SHORTCUTS = {"N", "U", "D"}


@pytest.fixture(scope="module")
def sense7() -> Codebook:
    return load_codebook(codebooks_dir() / "sense7.json")


@pytest.fixture(scope="module")
def tactics() -> Codebook:
    return load_codebook(codebooks_dir() / "tactics.json")


# -- colour helpers (WCAG relative luminance, CIE L*a*b* distance) ----------------------------


def _linear(h: str) -> tuple[float, float, float]:
    rgb = [int(h[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
    return r, g, b


def _luminance(h: str) -> float:
    r, g, b = _linear(h)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _lab(h: str) -> tuple[float, float, float]:
    r, g, b = _linear(h)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _delta_e(a: str, b: str) -> float:
    return float(sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b), strict=True)) ** 0.5)


# -- the bundled codebooks --------------------------------------------------------------------


def test_both_codebooks_are_bundled_and_resolvable_by_name() -> None:
    assert {"sense7", "tactics"} <= set(bundled_codebooks())
    assert resolve_codebook("sense7").name == "sense7"
    assert resolve_codebook("tactics").name == "tactics"


def test_sense7_has_overall_and_the_seven_dimensions(sense7: Codebook) -> None:
    assert sense7.name == "sense7"
    assert sense7.title and sense7.description
    assert [c.key for c in sense7.codes] == list(RATING_KEYS)
    assert [c.key for c in sense7.codes[1:]] == list(DIMENSIONS)


def test_sense7_codes_are_five_point_turn_ratings_with_not_applicable(sense7: Codebook) -> None:
    for code in sense7.codes:
        assert code.kind == "ordinal"
        assert code.measurement_level == "ordinal"
        assert code.unit == "turn"
        assert code.applies_to == "assistant"
        assert code.allow_na is True
        assert code.values == [1, 2, 3, 4, 5]
        assert {lv.label: lv.value for lv in code.levels} == SCALE_LABELS
        assert code.user_rating == code.key
        assert code.group in {"overall", "dimension"}
        assert not code.retired


def test_sense7_guidance_is_complete_and_specific(sense7: Codebook) -> None:
    level_texts: list[str] = []
    for code in sense7.codes:
        assert len(code.description) > 60, code.key
        assert len(code.include) > 40, code.key
        assert len(code.exclude) > 40, code.key
        assert 2 <= len(code.examples) <= 3, code.key
        assert all(e.strip() for e in code.examples)
        descriptions = [lv.description for lv in code.levels]
        assert all(d.strip() for d in descriptions), code.key
        level_texts.extend(descriptions)
    # each dimension has its own level descriptions, not a shared boilerplate
    assert len(set(level_texts)) == len(level_texts)


def test_sense7_exclusions_point_to_neighbouring_dimensions(sense7: Codebook) -> None:
    labels = {c.key: c.label for c in sense7.codes}
    for code in sense7.codes[1:]:
        others = [labels[k] for k in DIMENSIONS if k != code.key]
        assert any(o in code.exclude for o in others), code.key


def test_sense7_reads_the_release_labels(sense7: Codebook) -> None:
    affective = sense7.code("affective")
    assert affective.parse_value("very good") == 5
    assert affective.parse_value("Very Poor") == 1
    assert affective.parse_value("3") == 3
    assert affective.parse_value("NA") is None
    assert affective.level_label(4) == "good"
    with pytest.raises(ValueError, match="allowed: 1, 2, 3, 4, 5"):
        affective.parse_value("6")


def test_tactics_are_ten_binary_sentence_codes(tactics: Codebook) -> None:
    assert tactics.name == "tactics"
    assert [c.key for c in tactics.codes] == list(TACTICS)
    for code in tactics.codes:
        assert code.kind == "binary"
        assert code.measurement_level == "nominal"
        assert code.unit == "sentence"
        assert code.applies_to == "assistant"
        assert code.allow_na is False
        assert code.values == [0, 1]
        assert [lv.label for lv in code.levels] == ["absent", "present"]
        assert code.user_rating is None
        assert code.description and code.include and code.exclude
        assert 2 <= len(code.examples) <= 3


def test_tactics_take_present_absent_and_refuse_not_applicable(tactics: Codebook) -> None:
    advice = tactics.code("advice")
    assert advice.parse_value("present") == 1
    assert advice.parse_value("0") == 0
    assert advice.parse_value("yes") == 1
    with pytest.raises(ValueError, match="does not allow not-applicable"):
        advice.parse_value("NA")


@pytest.mark.parametrize("name", ["sense7", "tactics"])
def test_shortcuts_are_unique_letters_clear_of_the_gui_keys(name: str) -> None:
    codebook = resolve_codebook(name)
    shortcuts = [c.shortcut for c in codebook.codes]
    assert all(len(s) == 1 and s.isalpha() and s.isupper() for s in shortcuts)
    assert len(set(shortcuts)) == len(shortcuts)
    assert not set(shortcuts) & RESERVED_SHORTCUTS


def test_sense7_shortcuts_are_the_documented_ones(sense7: Codebook) -> None:
    assert {c.key: c.shortcut for c in sense7.codes} == {
        "overall": "O",
        "affective": "A",
        "cognitive": "C",
        "response": "R",
        "prosocial": "P",
        "interest": "I",
        "contextual": "X",
        "relational": "L",
    }


@pytest.mark.parametrize("name", ["sense7", "tactics"])
def test_colours_are_distinct_and_readable_on_light_and_dark(name: str) -> None:
    colours = [c.color for c in resolve_codebook(name).codes]
    assert all(colours)
    for colour in colours:
        assert _contrast(colour, "#ffffff") >= 3.0, colour
        assert _contrast(colour, "#1e1e1e") >= 3.0, colour
    for a, b in itertools.combinations(colours, 2):
        assert _delta_e(a, b) >= 25, (a, b)


@pytest.mark.parametrize("name", ["sense7", "tactics"])
def test_bundled_codebook_survives_a_save_and_reload(name: str, tmp_path: Path) -> None:
    original = resolve_codebook(name)
    path = tmp_path / f"{name}.json"
    path.write_text(original.to_json(), encoding="utf-8")
    again = load_codebook(path)
    assert again == original


# -- invalid codebooks ------------------------------------------------------------------------


def _minimal() -> dict[str, Any]:
    return {
        "format": "sense7-codebook/1",
        "name": "mini",
        "codes": [
            {"key": "warmth", "kind": "ordinal", "levels": [{"value": 1}, {"value": 2}]},
            {"key": "advice", "kind": "binary", "unit": "sentence"},
        ],
    }


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "bad.json"
    text = data if isinstance(data, str) else json.dumps(data, indent=2)
    path.write_text(text, encoding="utf-8")
    return path


def test_minimal_codebook_loads(tmp_path: Path) -> None:
    codebook = load_codebook(_write(tmp_path, _minimal()))
    assert [c.key for c in codebook.codes] == ["warmth", "advice"]
    assert codebook.code("advice").values == [0, 1]


def _broken(change: str) -> dict[str, Any]:
    data = copy.deepcopy(_minimal())
    codes = data["codes"]
    if change == "duplicate key":
        codes[1]["key"] = "warmth"
    elif change == "bad kind":
        codes[0]["kind"] = "likert"
    elif change == "binary with three levels":
        codes[1]["levels"] = [{"value": 1}, {"value": 2}, {"value": 3}]
    elif change == "bad colour":
        codes[0]["color"] = "red"
    elif change == "missing name":
        del data["name"]
    elif change == "duplicate shortcut":
        codes[0]["shortcut"] = "W"
        codes[1]["shortcut"] = "w"
    elif change == "bad key":
        codes[0]["key"] = "Warmth Level"
    elif change == "unknown field":
        codes[0]["colour"] = "#ffffff"
    return data


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("duplicate key", "code key 'warmth' appears twice"),
        ("bad kind", "field 'kind' must be one of ordinal, nominal, binary, got 'likert'"),
        ("binary with three levels", "a binary code has exactly the levels 0 and 1"),
        ("bad colour", "field 'color' must look like #rrggbb, got 'red'"),
        ("missing name", "field 'name' is required"),
        ("duplicate shortcut", "shortcut 'W' is used by both 'warmth' and 'advice'"),
        ("bad key", "field 'key' must be lower-case"),
        ("unknown field", "unknown field(s) colour"),
    ],
)
def test_invalid_codebook_names_the_file_and_the_problem(
    tmp_path: Path, change: str, expected: str
) -> None:
    path = _write(tmp_path, _broken(change))
    with pytest.raises(CodebookError) as info:
        load_codebook(path)
    message = str(info.value)
    assert str(path) in message
    assert expected in message


def test_code_errors_say_which_code(tmp_path: Path) -> None:
    path = _write(tmp_path, _broken("bad colour"))
    with pytest.raises(CodebookError, match=r"code 1 'warmth'"):
        load_codebook(path)


def test_non_json_names_the_line(tmp_path: Path) -> None:
    text = '{\n  "name": "mini",\n  "codes": [\n    {"key": "warmth",}\n  ]\n}\n'
    path = _write(tmp_path, text)
    with pytest.raises(CodebookError) as info:
        load_codebook(path)
    assert f"{path}, line 4: not valid JSON" in str(info.value)


def test_missing_file_is_a_codebook_error(tmp_path: Path) -> None:
    with pytest.raises(CodebookError, match="no such codebook file"):
        load_codebook(tmp_path / "absent.json")


def test_unknown_bundled_name_lists_the_bundled_ones() -> None:
    with pytest.raises(CodebookError, match="bundled: .*sense7.*tactics"):
        resolve_codebook("no-such-scheme")
