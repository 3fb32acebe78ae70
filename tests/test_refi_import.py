"""REFI-QDA project import: a .qdpx in the shape other tools write opens with its codes,
coders, codings, spans and memos; a sense7-coder export comes back with the same codings;
hostile archives (bombs, traversal, entities, selections outside the text, schema
breaks) are refused before anything is written."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from analysis_support import code, make_project

from sense7_coder.domain.codebook.codes import code_from_dict
from sense7_coder.domain.errors import InputError
from sense7_coder.domain.models import Unit
from sense7_coder.domain.refi import reading as refi_import
from sense7_coder.project import Project
from sense7_coder.project.codebook.editing import add_code
from sense7_coder.project.exchange import export_qdpx
from sense7_coder.project.refi.importing import import_qdpx, new_project_from_qdpx
from sense7_coder.project.spans import editing as project_spans
from sense7_coder.store import frames
from sense7_coder.store.spans import table as store_spans

NS = "urn:QDA-XML:project:1.0"
U1 = "8F2A0C35-0C59-4D0C-9B0D-1A2B3C4D5E01"
U2 = "8F2A0C35-0C59-4D0C-9B0D-1A2B3C4D5E02"
C_EMO, C_JOY, C_ASK = ("1B4F2E3A-1111-4C3B-9A1D-00000000000" + d for d in "123")
S1, S2 = ("5D9E7A2B-2222-4A6C-8E3F-00000000000" + d for d in "12")
TRANSCRIPT = ("User: I lost my job today and I feel awful.\n\n"
              "Assistant: I am sorry. That sounds really hard. What happened?\n\n"
              "User: They closed the office.\n")
MEMO_TEXT = "Clear empathic opening."
ESSAY = "A field note without speakers. The participant seemed calm."


def _selection(guid: str, start: int, end: int, user: str, target: str,
               note: str = "") -> str:
    ref = f'<NoteRef targetGUID="{note}"/>' if note else ""
    return (f'<PlainTextSelection guid="{guid}" name="sel" startPosition="{start}" '
            f'endPosition="{end}" creatingUser="{user}">'
            f'<Coding guid="{guid[:-4]}C0DE" creatingUser="{user}">'
            f'<CodeRef targetGUID="{target}"/></Coding>{ref}</PlainTextSelection>')


def qualcoder_style_qde(selections: str = "", extra_source: str = "") -> str:
    """A project.qde in the shape the REFI-QDA standard's examples and QualCoder write:
    nested codes, users, text sources stored in sources/, selections, a note."""
    sorry = TRANSCRIPT.index("I am sorry")
    hard = TRANSCRIPT.index("That sounds really hard.")
    ask = TRANSCRIPT.index("What happened?")
    selections = selections or (
        _selection("AAAAAAAA-0000-4000-8000-000000000001", sorry, hard + 24, U1, C_JOY,
                   "BBBBBBBB-0000-4000-8000-000000000001")
        + _selection("AAAAAAAA-0000-4000-8000-000000000002", ask, ask + 14, U2, C_ASK)
        + _selection("AAAAAAAA-0000-4000-8000-000000000003", hard, ask + 14, U2, C_JOY))
    return f"""<?xml version="1.0" encoding="utf-8"?>
<Project xmlns="{NS}" name="Interviews" origin="QualCoder 3.5" creationDateTime="2024-01-02T10:00:00Z">
  <Users>
    <User guid="{U1}" name="Ana"/>
    <User guid="{U2}" name="Ben"/>
  </Users>
  <CodeBook>
    <Codes>
      <Code guid="{C_EMO}" name="Emotion" isCodable="false" color="#AA3355">
        <Code guid="{C_JOY}" name="Empathic statement" isCodable="true" color="#3A7"/>
      </Code>
      <Code guid="{C_ASK}" name="Open question" isCodable="true">
        <Description>Asks for more.</Description>
      </Code>
    </Codes>
  </CodeBook>
  <Sources>
    <TextSource guid="{S1}" name="interview 1" plainTextPath="internal://{S1}.txt" creatingUser="{U1}">
      {selections}
    </TextSource>
    <TextSource guid="{S2}" name="field note" creatingUser="{U2}">
      <PlainTextContent>{ESSAY}</PlainTextContent>
      <Coding guid="CCCCCCCC-0000-4000-8000-000000000001" creatingUser="{U2}"><CodeRef targetGUID="{C_ASK}"/></Coding>
    </TextSource>
    {extra_source}
  </Sources>
  <Notes>
    <Note guid="BBBBBBBB-0000-4000-8000-000000000001" name="memo" creatingUser="{U1}">
      <PlainTextContent>{MEMO_TEXT}</PlainTextContent>
    </Note>
  </Notes>
</Project>
"""


def write_qdpx(path: Path, qde: str, members: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("project.qde", qde)
        z.writestr(f"sources/{S1}.txt", TRANSCRIPT)
        for name, data in (members or {}).items():
            z.writestr(name, data)
    return path


def test_a_qualcoder_style_project_opens_with_its_codings(tmp_path: Path) -> None:
    path = write_qdpx(tmp_path / "interviews.qdpx", qualcoder_style_qde())
    project, summary = new_project_from_qdpx(tmp_path / "p.sense7", path)
    with project:
        book = {c.key: c for c in project.codebook.codes}
        assert set(book) == {"empathic_statement", "open_question"}
        assert book["empathic_statement"].unit == "span"
        assert book["empathic_statement"].group == "Emotion"
        assert book["open_question"].description == "Asks for more."
        conv = project.conversation("interview 1")
        assert conv is not None
        assert [(t.role, t.text) for t in conv.turns] == [
            ("user", "I lost my job today and I feel awful."),
            ("assistant", "I am sorry. That sounds really hard. What happened?"),
            ("user", "They closed the office.")]
        note = project.conversation("field note")
        assert note is not None and [t.text for t in note.turns] == [ESSAY]
        spans = {(s.coder, s.position, s.code, s.text_of(conv.turns[s.position - 1].text))
                 for s in store_spans.all_spans(project.db)}
        assert spans == {
            ("Ana", 2, "empathic_statement",
             "I am sorry. That sounds really hard."),
            ("Ben", 2, "open_question", "What happened?"),
            ("Ben", 2, "empathic_statement", "That sounds really hard. What happened?")}
        assert all(s.source == "imported" and s.origin == "interviews.qdpx"
                   for s in store_spans.all_spans(project.db))
        # the note on Ana's selection is the memo of the span it made
        assert {s.coder: s.memo for s in store_spans.all_spans(project.db)
                if s.code == "empathic_statement"} == {"Ana": MEMO_TEXT, "Ben": ""}
        assert len(frames.memos_frame(project.db)) == 0
        assert summary.spans == 3 and summary.conversations == 2
        # the coding of the whole field note is no span: it is said to be left out
        assert any("whole sources" in s for s in summary.skipped)
        assert {c["name"] for c in project.coders()} >= {"Ana", "Ben"}


def test_import_into_an_existing_project(tmp_path: Path) -> None:
    path = write_qdpx(tmp_path / "interviews.qdpx", qualcoder_style_qde())
    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    summary = import_qdpx(project, path)
    assert summary.codes_added == 2 and summary.conversations == 2
    assert project.codebook.get("overall") is not None  # the project's codes stay
    assert summary.changes.everything  # the window's views read everything again
    again = import_qdpx(project, path)  # the same file again: conversations kept
    assert again.unchanged == 2 and again.conversations == 0
    assert len(store_spans.all_spans(project.db)) == 3
    project.close()


def test_a_coder_may_not_import_a_project(tmp_path: Path) -> None:
    path = write_qdpx(tmp_path / "interviews.qdpx", qualcoder_style_qde())
    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    project.set_coder("ana")
    with pytest.raises(Exception, match="only a lead"):
        import_qdpx(project, path)
    project.close()


def _coded_study(tmp_path: Path) -> Project:
    project = make_project(tmp_path)
    add_code(project, code_from_dict({"key": "warmth", "label": "Warmth", "kind": "binary",
                                      "unit": "span"}))
    code(project, "alice", {("c1", 2, "overall"): 4, ("c1", 2, "strategy"): "advice",
                            ("c2", 4, "validation"): 1, ("c1", 0, "quality"): 5,
                            ("c1", 2, 1, "question"): 1})
    project_spans.add(project, "c1", 2, 0, 21, "warmth", memo="warm start")
    project.set_memo(Unit("c2", 2), "check this turn")
    code(project, "bashir", {("c1", 2, "overall"): 3, ("c3", 2, "strategy"): "question"})
    project_spans.add(project, "c1", 4, 9, 28, "warmth")
    project.set_coder("lee", "adjudicator")
    return project


def test_export_and_import_again_gives_the_same_codings(tmp_path: Path) -> None:
    project = _coded_study(tmp_path)
    out = tmp_path / "study.qdpx"
    export_qdpx(project, out, consensus=False)

    def codings(p: Project) -> set[tuple[object, ...]]:
        f = frames.codings_frame(p.db)
        return {(r.coder, r.conversation_id, int(r.position), int(r.sentence), r.code,
                 r.value) for r in f.itertuples()}

    def spans(p: Project) -> set[tuple[object, ...]]:
        return {(s.coder, s.conversation_id, s.position, s.start, s.end, s.code, s.value,
                 s.memo) for s in store_spans.all_spans(p.db)}

    def memos(p: Project) -> set[tuple[object, ...]]:
        f = frames.memos_frame(p.db)
        return {(r.coder, r.conversation_id, int(r.position), r.text) for r in f.itertuples()}

    copy, summary = new_project_from_qdpx(tmp_path / "copy.sense7", out)
    with copy:
        assert codings(copy) == codings(project)
        assert spans(copy) == spans(project)  # a span's memo too
        assert memos(copy) == memos(project)
        assert [c.key for c in copy.codebook.codes] == [c.key for c in project.codebook.codes]
        first = copy.conversation("c1")
        original = project.conversation("c1")
        assert first is not None and original is not None
        assert [(t.role, t.text) for t in first.turns] == [
            (t.role, t.text) for t in original.turns]
        assert first.model == original.model and first.participant_id == original.participant_id
    project.close()


# -- hostile archives ---------------------------------------------------------------------

def _refused(tmp_path: Path, path: Path, words: str) -> None:
    target = tmp_path / "new.sense7"
    with pytest.raises(InputError, match=words):
        new_project_from_qdpx(target, path)
    assert not target.exists()


def test_path_traversal_is_refused(tmp_path: Path) -> None:
    path = write_qdpx(tmp_path / "evil.qdpx", qualcoder_style_qde(),
                      {"../../etc/evil.txt": b"x"})
    _refused(tmp_path, path, "points outside the archive")


def test_zip_bomb_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refi_import, "MAX_MEMBER_BYTES", 1 << 20)
    path = write_qdpx(tmp_path / "bomb.qdpx", qualcoder_style_qde(),
                      {"sources/big.txt": b"0" * (4 << 20)})
    _refused(tmp_path, path, "unpacks to more than")


def test_too_many_members_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(refi_import, "MAX_MEMBERS", 5)
    path = write_qdpx(tmp_path / "many.qdpx", qualcoder_style_qde(),
                      {f"sources/{i}.txt": b"x" for i in range(10)})
    _refused(tmp_path, path, "members")


def test_entity_expansion_is_refused(tmp_path: Path) -> None:
    laughs = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
              '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>\n'
              f'<Project xmlns="{NS}" name="x"><Description>&lol2;</Description></Project>')
    path = write_qdpx(tmp_path / "laughs.qdpx", laughs)
    _refused(tmp_path, path, "DTD or entities")


def test_selection_outside_the_text_is_refused(tmp_path: Path) -> None:
    qde = qualcoder_style_qde(_selection("AAAAAAAA-0000-4000-8000-000000000009", 5, 9999,
                                         U1, C_JOY))
    path = write_qdpx(tmp_path / "outside.qdpx", qde)
    _refused(tmp_path, path, "lies outside its source")


def test_schema_break_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("xmlschema")
    qde = qualcoder_style_qde().replace(f'<User guid="{U2}" name="Ben"/>', '<User name="Ben"/>')
    path = write_qdpx(tmp_path / "schema.qdpx", qde)
    _refused(tmp_path, path, "breaks the REFI-QDA project schema")


def test_not_a_zip_and_no_project(tmp_path: Path) -> None:
    bad = tmp_path / "bad.qdpx"
    bad.write_bytes(b"not a zip")
    _refused(tmp_path, bad, "not a readable REFI-QDA project")
    empty = tmp_path / "empty.qdpx"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("readme.txt", "hi")
    _refused(tmp_path, empty, "no project.qde")


def test_split_turns_keeps_offsets() -> None:
    turns = refi_import.split_turns(TRANSCRIPT)
    for t in turns:
        assert TRANSCRIPT[t.start:t.start + len(t.text)] == t.text
    assert [t.role for t in turns] == ["user", "assistant", "user"]
    (one,) = refi_import.split_turns("Note: not a transcript.\nJust text.")
    assert one.role == "user" and one.start == 0


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sense7_coder.cli import main

    path = write_qdpx(tmp_path / "interviews.qdpx", qualcoder_style_qde())
    assert main(["init", str(tmp_path / "a.sense7"), "--from", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2 conversations (4 turns)" in out and "3 spans" in out
    assert main(["init", str(tmp_path / "b.sense7")]) == 0
    assert main(["import", str(tmp_path / "b.sense7"), str(path), "--dry-run"]) == 0
    assert "would import 2 conversations" in capsys.readouterr().out
    assert main(["import", str(tmp_path / "b.sense7"), str(path)]) == 0
    assert "imported 2 conversations" in capsys.readouterr().out


def test_an_atlas_style_project_without_sources_or_codes(tmp_path: Path) -> None:
    """ATLAS.ti writes the creating user on the project, codable parents with codable
    children, and may hold no sources or no code book at all."""
    head = (f'<?xml version="1.0" encoding="utf-8"?>\n<Project xmlns="{NS}" '
            'origin="ATLAS.ti for Windows" name="t" '
            f'creatingUserGUID="{U1}" creationDateTime="2023-08-16T15:49:36Z">'
            f'<Users><User guid="{U1}" name="Ana"/></Users>')
    book = (f'<CodeBook><Codes><Code guid="{C_EMO}" name="Commits" isCodable="true">'
            f'<Code guid="{C_JOY}" name="2022-05-10 first" isCodable="true"/>'
            '</Code></Codes></CodeBook>')
    coded = write_qdpx(tmp_path / "atlas.qdpx", head + book + "</Project>")
    project, summary = new_project_from_qdpx(tmp_path / "a.sense7", coded)
    with project:
        assert [(c.label, c.group, c.unit) for c in project.codebook.codes] == [
            ("Commits", "", "span"), ("2022-05-10 first", "Commits", "span")]
        assert summary.codes_added == 2 and summary.conversations == 0
    blank = write_qdpx(tmp_path / "blank.qdpx", head + "</Project>")
    project, summary = new_project_from_qdpx(tmp_path / "b.sense7", blank)
    with project:
        assert project.codebook.codes == [] and summary.codes_added == 0


def test_the_consensus_comes_back_as_the_consensus(tmp_path: Path) -> None:
    from sense7_coder.domain.models import Unit as U

    project = _coded_study(tmp_path)
    project.set_consensus(U("c1", 2), "overall", 4)
    out = tmp_path / "study.qdpx"
    export_qdpx(project, out)  # the consensus as the user "consensus"
    copy, summary = new_project_from_qdpx(tmp_path / "copy.sense7", out)
    with copy:
        decided = frames.consensus_frame(copy.db)
        assert decided[["conversation_id", "position", "code", "value"]].values.tolist() == [
            ["c1", 2, "overall", 4]]
        assert "consensus" not in {c["name"] for c in copy.coders()}
        assert summary.decisions == 1
    project.close()


def test_a_span_a_code_does_not_apply_to_is_refused_naming_the_file(tmp_path: Path) -> None:
    marker = ('[sense7-coder] {"key": "empathic_statement", "kind": "binary", '
              '"unit": "span", "applies_to": "user"}')
    qde = qualcoder_style_qde().replace(
        f'<Code guid="{C_JOY}" name="Empathic statement" isCodable="true" color="#3A7"/>',
        f'<Code guid="{C_JOY}" name="Empathic statement" isCodable="true">'
        f'<Description>{marker}</Description></Code>')
    path = write_qdpx(tmp_path / "interviews.qdpx", qde)
    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    before = (len(project.coders()), len(project.codebook.codes))
    with pytest.raises(InputError, match="interviews.qdpx.*applies to user turns"):
        import_qdpx(project, path)
    project.invalidate_codebook()
    assert project.conversation("interview 1") is None
    assert (len(project.coders()), len(project.codebook.codes)) == before
    project.close()


def test_a_dry_run_makes_every_check_and_writes_nothing(tmp_path: Path) -> None:
    path = write_qdpx(tmp_path / "interviews.qdpx", qualcoder_style_qde())
    project = make_project(tmp_path)
    project.set_coder("lee", "adjudicator")
    codes = len(project.codebook.codes)
    summary = import_qdpx(project, path, dry_run=True)
    assert summary.spans == 3 and summary.conversations == 2 and summary.dry_run
    assert summary.changes.empty  # nothing written, nothing to show again
    assert project.conversation("interview 1") is None
    assert len(project.codebook.codes) == codes
    assert store_spans.all_spans(project.db) == []
    project.close()


def test_importing_the_same_qdpx_again_counts_nothing_as_imported(
        demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A second import of one file said 'imported ... 624 codings, 15 spans' though not a
    value changed; what was already there is counted as already present."""
    from sense7_coder.cli import main

    qdpx, path = tmp_path / "d.qdpx", tmp_path / "n.sense7"
    assert main(["export-qdpx", str(demo_project), str(qdpx)]) == 0
    assert main(["init", str(path), "--from", str(qdpx)]) == 0
    capsys.readouterr()
    assert main(["import", str(path), str(qdpx)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("0 coders, 0 codings, 0 spans (639 already present), 0 memos")
    with Project.open(path, backup=False) as p:
        assert p.info()["codings"] == 624  # and 15 spans: 639
