"""Round trips and escaping: what sense7-coder writes comes back as it was, and a name
never turns into markup (LaTeX, Markdown, HTML) or splits a record (U+2028 in JSON Lines)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from analysis_support import code, make_project

from sense7_coder.cli import main
from sense7_coder.domain.codebook.codes import Code, Codebook, CodebookError, Level
from sense7_coder.domain.refi.qdc import codebook_from_qdc, codebook_qdc, load_qdc
from sense7_coder.project import Project
from sense7_coder.project.exchange import export_qdc, import_qdc

LABELS = ["1st impression only", "-2 points", "=SUM(A1)", "3 = three", "- ", "10",
          "a | b & <c> \"d\""]


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_level_labels_that_start_with_a_digit_minus_or_equals_come_back_from_qdc(
        tmp_path: Path):
    ordinal = Code("warmth", "Warmth", levels=[Level(i, label) for i, label in
                                               enumerate(LABELS, 1)], shortcut="W")
    nominal = Code("stance", "Stance", kind="nominal", allow_na=False, levels=[
        Level("a = b", "x = y"), Level("1", "-1 = one"), Level("=x", "=")])
    book = Codebook("cb", [ordinal, nominal])
    path = tmp_path / "cb.qdc"
    path.write_bytes(codebook_qdc(book))
    back = load_qdc(path)
    for before, after in zip(book.codes, back.codes, strict=True):
        assert [(lv.value, lv.label) for lv in after.levels] == \
            [(lv.value, lv.label) for lv in before.levels]
        assert (after.kind, after.allow_na, after.shortcut) == \
            (before.kind, before.allow_na, before.shortcut)


def test_another_tools_level_names_in_the_written_form_keep_labels_starting_with_digits():
    qdc = b"""<?xml version="1.0" encoding="utf-8"?>
<CodeBook xmlns="urn:QDA-XML:codebook:1.0"><Codes>
 <Code guid="A" name="Length" isCodable="false">
  <Code guid="B" name="1 = 10 words or fewer" isCodable="true"/>
  <Code guid="C" name="2 = 11 to 50 words" isCodable="true"/>
  <Code guid="D" name="3 = -" isCodable="true"/>
 </Code></Codes></CodeBook>"""
    length = codebook_from_qdc(qdc, "other.qdc").codes[0]
    assert length.kind == "ordinal"
    assert [(lv.value, lv.label) for lv in length.levels] == [
        (1, "10 words or fewer"), (2, "11 to 50 words"), (3, "-")]


def test_a_qdc_whose_shortcuts_are_taken_moves_them_to_free_letters_with_a_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = make_project(tmp_path)  # the SENSE-7 codebook
    taken = sorted((c.shortcut, c.key) for c in project.codebook.codes if c.shortcut)
    assert len(taken) >= 2, "the test needs a codebook with shortcuts"
    (first, owner), (second, neighbour) = taken[:2]
    old = project.code(owner)
    # a new code with the first letter, and the first letter's owner moved to the second
    book = Codebook("theirs", [
        Code("tone", "Tone", kind="binary", levels=[Level(0, "absent"), Level(1, "present")],
             allow_na=False, shortcut=first),
        Code(owner, old.label, kind=old.kind, unit=old.unit, levels=old.levels,
             allow_na=old.allow_na, applies_to=old.applies_to, shortcut=second)])
    path = tmp_path / "theirs.qdc"
    path.write_bytes(codebook_qdc(book))
    notes: list[str] = []
    result = import_qdc(project, path, notes)
    assert (result.added, result.updated) == (1, 1)
    free = next(ch for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if ch not in dict(taken))
    # 'tone' takes the letter its owner gives up; the owner's new letter belongs to another
    # code of the project, so it gets the first free letter instead
    assert project.code("tone").shortcut == first
    assert project.code(neighbour).shortcut == second
    assert project.code(owner).shortcut == free
    assert notes == [f"shortcut '{second}' of code '{owner}' is already used by "
                     f"'{neighbour}'; '{owner}' gets '{free}'"]
    project.close()
    # on the command line: done, with the note on stderr
    book.codes[:] = [Code("tone2", "Tone 2", kind="binary", allow_na=False, shortcut=second,
                          levels=[Level(0, "absent"), Level(1, "present")])]
    path.write_bytes(codebook_qdc(book))
    status, out, err = run(capsys, "codebook", tmp_path / "study.sense7", "import", path)
    assert status == 0, err
    assert "1 code added, 0 updated" in out
    assert f"note: shortcut '{second}' of code 'tone2' is already used by '{neighbour}'" in err


def test_a_value_is_read_as_that_value_even_when_another_level_carries_it_as_label():
    from sense7_coder.domain.codebook.codes import code_from_dict

    rank = code_from_dict({"key": "rank", "kind": "ordinal", "levels": [
        {"value": 1, "label": "2"}, {"value": 2, "label": "1"}, {"value": 3, "label": "last"}]},
        "test")
    assert [rank.parse_value(x) for x in ("1", "2", 2, "3", "last", "LAST")] == [1, 2, 2, 3, 3, 3]


def test_a_qdc_holding_more_than_1000_codes_is_refused(tmp_path: Path):
    codes = "".join(f'<Code guid="G{i}" name="code {i}" isCodable="true"/>'
                    for i in range(1001))
    path = tmp_path / "many.qdc"
    path.write_text('<?xml version="1.0" encoding="utf-8"?><CodeBook '
                    f'xmlns="urn:QDA-XML:codebook:1.0"><Codes>{codes}</Codes></CodeBook>')
    with pytest.raises(CodebookError, match="1,001 codes; a codebook has at most 1,000"):
        load_qdc(path)


def test_imports_never_grow_a_projects_codebook_past_1000_codes(tmp_path: Path):
    project = make_project(tmp_path)
    have = len(project.codebook.codes)
    codes = "".join(f'<Code guid="G{i}" name="extra {i}" isCodable="true"/>'
                    for i in range(1001 - have))
    path = tmp_path / "more.qdc"
    path.write_text('<?xml version="1.0" encoding="utf-8"?><CodeBook '
                    f'xmlns="urn:QDA-XML:codebook:1.0"><Codes>{codes}</Codes></CodeBook>')
    with pytest.raises(Exception, match="would hold 1,001 codes; a codebook has at most 1,000"):
        import_qdc(project, path)
    assert len(project.codebook.codes) == have
    project.close()


def test_a_projects_codebook_makes_the_qdc_round_trip_through_a_second_project(
        tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = make_project(tmp_path / "a")
    from sense7_coder.project.codebook import editing as codebook_ops

    codebook_ops.add_code(first, Code("odd", "Odd labels", levels=[
        Level(i, label) for i, label in enumerate(LABELS, 1)]))
    export_qdc(first, tmp_path / "cb.qdc")
    want = {c.key: (c.kind, [(lv.value, lv.label) for lv in c.levels], c.shortcut)
            for c in first.codebook.codes}
    first.close()
    second = make_project(tmp_path / "b")
    import_qdc(second, tmp_path / "cb.qdc")
    got = {c.key: (c.kind, [(lv.value, lv.label) for lv in c.levels], c.shortcut)
           for c in second.codebook.codes}
    assert got == want
    second.close()


HOSTILE_CODER = "a_b ^x~ {y} #1 $2 %3 &4 \\5"
HTML_CODER = "<b>bold</b> *em* [link](x) | `tick`"


def test_the_methods_paragraph_escapes_names_for_latex_and_markdown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = make_project(tmp_path)
    units = [("c1", 2), ("c1", 4), ("c2", 2), ("c2", 4), ("c3", 2), ("c3", 4)]
    for coder, values in ((HOSTILE_CODER, [1, 2, 3, 4, 5, 3]),
                          (HTML_CODER, [1, 2, 3, 4, 4, 3])):
        code(project, coder, {(c, p, "affective"): v
                              for (c, p), v in zip(units, values, strict=True)})
    project.close()
    path = tmp_path / "study.sense7"
    status, latex, err = run(capsys, "agreement", path, "--codes", "affective", "--format",
                             "report", "--latex", "--bootstrap", "0", "--no-consensus")
    assert status == 0, err
    assert ("a\\_b \\textasciicircum{}x\\textasciitilde{} \\{y\\} \\#1 \\$2 \\%3 \\&4 "
            "\\textbackslash{}5") in latex
    assert "\\textless{}b\\textgreater{}bold\\textless{}/b\\textgreater{}" in latex
    paragraph = latex.split("\n\n")[1]
    # outside the two math symbols and the escapes, no special character is left bare
    bare = (paragraph.replace("$\\alpha$", "").replace("$\\geq$", "")
            .replace("\\textasciicircum{}", "").replace("\\textasciitilde{}", "")
            .replace("\\textbackslash{}", "").replace("\\textless{}", "")
            .replace("\\textgreater{}", "").replace("\\textbar{}", ""))
    for ch in "^~{}#$%&_":
        assert bare.count(ch) == bare.count("\\" + ch), ch
    status, markdown, err = run(capsys, "agreement", path, "--codes", "affective", "--format",
                                "report", "--bootstrap", "0", "--no-consensus")
    assert status == 0, err
    assert "<b>" not in markdown and "</b>" not in markdown
    assert ("&lt;b&gt;bold&lt;/b&gt; \\*em\\* \\[link\\](x) \\| \\`tick\\`" in markdown)
    assert "a\\_b ^x\\~ {y} #1 \\$2 %3 &amp;4 \\\\5" in markdown


def test_json_lines_holding_raw_line_separators_inside_strings_are_read_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    project = make_project(tmp_path)
    project.close()
    texts = ["first\u2028second", "para\u2029graph", "next\x85line"]
    lines = [json.dumps({"conversation_id": f"ls{i}", "messages": [
        {"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]},
        ensure_ascii=False) for i, text in enumerate(texts)]
    src = tmp_path / "chats.jsonl"
    src.write_text("\r\n".join(lines) + "\n", encoding="utf-8")
    assert "\u2028" in src.read_text(encoding="utf-8")  # raw, as JSON allows
    status, out, err = run(capsys, "import", tmp_path / "study.sense7", src)
    assert status == 0, err
    with Project.open(tmp_path / "study.sense7") as study:
        got = [study.conversation(f"ls{i}").turns[0].text  # type: ignore[union-attr]
               for i in range(len(texts))]
    assert got == texts


def test_a_transcript_keeps_unicode_line_separators_inside_a_message(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]):
    project = make_project(tmp_path)
    project.close()
    src = tmp_path / "chat.txt"
    src.write_text("User: I feel\u2028User: alone\nAssistant: I hear you.\n", encoding="utf-8")
    status, out, err = run(capsys, "import", tmp_path / "study.sense7", src)
    assert status == 0, err
    with Project.open(tmp_path / "study.sense7") as study:
        conversation = study.conversation("chat")
        assert conversation is not None
        turns = conversation.turns
    assert [(t.role, t.text) for t in turns] == [("user", "I feel\u2028User: alone"),
                                                 ("assistant", "I hear you.")]
