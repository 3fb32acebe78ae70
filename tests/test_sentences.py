"""Sentence segmentation: what a coder sees as the sentence units of an assistant turn."""

from __future__ import annotations

import threading

from sense7_coder.domain.models import Sentence
from sense7_coder.domain.sentences import segment_turns, split_sentences


def pieces(text: str) -> list[str]:
    return [text[start:end] for start, end in split_sentences(text)]


def test_typical_assistant_turn_splits_into_its_sentences() -> None:
    text = (
        "That sounds like a really stressful week. It makes sense that you feel stretched "
        "thin! Would it help to list what is due first? We can sort it together."
    )
    assert pieces(text) == [
        "That sounds like a really stressful week.",
        "It makes sense that you feel stretched thin!",
        "Would it help to list what is due first?",
        "We can sort it together.",
    ]


def test_offsets_slice_back_to_trimmed_sentences_in_order() -> None:
    text = "  First one.   Second one?\n\n  Third one!  "
    spans = split_sentences(text)
    assert [text[a:b] for a, b in spans] == ["First one.", "Second one?", "Third one!"]
    assert all(a < b for a, b in spans)
    assert all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1))
    for a, b in spans:
        assert not text[a].isspace() and not text[b - 1].isspace()


def test_known_abbreviations_do_not_end_a_sentence() -> None:
    text = "Try a short break, e.g. a walk. Dr. Lee suggested it, i.e. twice a day."
    assert pieces(text) == [
        "Try a short break, e.g. a walk.",
        "Dr. Lee suggested it, i.e. twice a day.",
    ]


def test_decimal_numbers_do_not_split() -> None:
    assert pieces("The budget rose by 3.5 percent. That is fine.") == [
        "The budget rose by 3.5 percent.",
        "That is fine.",
    ]


def test_line_breaks_and_bullets_make_separate_units() -> None:
    text = (
        "Here are some options:\n- ask for an extension\n- split the report\n\n"
        "1. Draft\n2) Send it. Then relax\n• Breathe"
    )
    assert pieces(text) == [
        "Here are some options:",
        "- ask for an extension",
        "- split the report",
        "1. Draft",
        "2) Send it.",
        "Then relax",
        "• Breathe",
    ]


def test_windows_line_endings_are_boundaries_and_trimmed() -> None:
    assert pieces("Line one\r\nLine two.\r\n") == ["Line one", "Line two."]


def test_code_like_text_keeps_formula_whole() -> None:
    text = 'Use =SUMIFS(C:C, A:A, ">="&E1) instead. It sums only the dates after E1.'
    assert pieces(text) == [
        'Use =SUMIFS(C:C, A:A, ">="&E1) instead.',
        "It sums only the dates after E1.",
    ]


def test_code_block_lines_are_units() -> None:
    text = "Try this:\n```python\nfor row in rows:\n    print(row.total)\n```\nIt prints each total."
    assert pieces(text) == [
        "Try this:",
        "```python",
        "for row in rows:",
        "print(row.total)",
        "```",
        "It prints each total.",
    ]


def test_unicode_offsets_are_string_indices() -> None:
    text = "Ça va ? Très bien… 😀 Merci ! Das schaffst du schon."
    got = pieces(text)
    assert got[0] == "Ça va ?"
    assert got[-1] == "Das schaffst du schon."
    assert "😀" in "".join(got)
    assert pieces("Привет. Как дела?") == ["Привет.", "Как дела?"]


def test_empty_and_blank_text_give_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences("   \n\t ") == []


def test_text_without_final_punctuation_is_one_sentence() -> None:
    assert split_sentences("ok thanks") == [(0, 9)]


def test_segment_turns_numbers_sentences_per_turn() -> None:
    turns = [
        ("c1", 2, "Sorry to hear that. Let's fix it."),
        ("c1", 3, ""),
        ("c1", 4, "One step:\n- open the file"),
        ("c2", 2, "Done!"),
    ]
    got = list(segment_turns(turns))
    assert got == [
        Sentence("c1", 2, 1, 0, 19),
        Sentence("c1", 2, 2, 20, 33),
        Sentence("c1", 4, 1, 0, 9),
        Sentence("c1", 4, 2, 10, 25),
        Sentence("c2", 2, 1, 0, 5),
    ]


def test_segment_turns_agrees_with_split_sentences_across_batches() -> None:
    texts = [f"Turn {i} starts here. It has a second sentence?\nAnd a line {i}." for i in range(600)]
    got = list(segment_turns(("conv", i + 1, t) for i, t in enumerate(texts)))
    assert len(got) == 3 * 600
    for s in got:
        expected = split_sentences(texts[s.position - 1])[s.sentence - 1]
        assert (s.start, s.end) == expected
    assert texts[599][got[-1].start : got[-1].end] == "And a line 599."


def test_concurrent_first_use_gives_the_same_answer() -> None:
    text = "One. Two. Three."
    results: list[list[tuple[int, int]]] = []

    def work() -> None:
        results.append(split_sentences(text))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [[(0, 4), (5, 9), (10, 16)]] * 4


def test_numbered_list_at_the_very_start_keeps_numbers_with_items() -> None:
    assert pieces("1. Open the file.\n2. Check column B.") == [
        "1. Open the file.",
        "2. Check column B.",
    ]


def test_inline_numbered_list_keeps_numbers_with_items() -> None:
    text = "Here are some ways: 1. Share updates. 2. Volunteer for projects. 3. Ask for feedback."
    assert pieces(text) == [
        "Here are some ways:",
        "1. Share updates.",
        "2. Volunteer for projects.",
        "3. Ask for feedback.",
    ]


def test_a_number_ending_a_sentence_still_ends_it() -> None:
    assert pieces("The team has 12. We need 15. Meet at 10:30.") == [
        "The team has 12.",
        "We need 15.",
        "Meet at 10:30.",
    ]
