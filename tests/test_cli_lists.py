"""A list on the command line is given one way everywhere: names separated by commas,
the option repeated, and by spaces where the option takes several words."""

from __future__ import annotations

import pytest

from sense7_coder.cli import build_parser


@pytest.mark.parametrize("words", [
    ["--codes", "affective,overall,warmth"],
    ["--codes", "affective", "overall", "warmth"],
    ["--codes", "affective", "overall,warmth"],
    ["--codes", "affective,", "--codes", "overall", "warmth"],
])
def test_suggest_takes_codes_with_commas_or_spaces(words: list[str]) -> None:
    args = build_parser().parse_args(["suggest", "p.sense7", *words])
    assert args.codes == ["affective", "overall", "warmth"]


@pytest.mark.parametrize("command", [["agreement", "p.sense7"], ["consensus", "p.sense7"],
                                     ["export", "p.sense7", "out.csv", "--kind", "long"]])
def test_the_analysis_commands_take_codes_with_commas_and_repeats(command: list[str]) -> None:
    args = build_parser().parse_args([*command, "--codes", "affective, overall",
                                      "--codes", "warmth"])
    assert args.codes == ["affective", "overall", "warmth"]
