"""Small words said right: counts with the noun in the right number, sentences that start
with a capital."""

from __future__ import annotations

IRREGULAR = {"is": "are", "was": "were", "has": "have", "analysis": "analyses"}


def plural(word: str) -> str:
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith(("s", "x", "sh", "ch")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def count(n: int, word: str, many: str | None = None) -> str:
    """'1 memo', '2 memos', '1,200 codings'; the last word of ``word`` takes the number."""
    if n == 1:
        return f"1 {word}"
    head, _, last = word.rpartition(" ")
    noun = many or ((head + " " if head else "") + plural(last))
    return f"{n:,} {noun}"


def sentence(text: str) -> str:
    """The text with its first word capitalised when it is a plain lower-case word (a
    message shown on its own); a file name, key or quoted name first stays as written."""
    first = text.split(" ", 1)[0].rstrip(",;")
    if first.isalpha() and first.islower():
        return text[0].upper() + text[1:]
    return text


def and_list(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
