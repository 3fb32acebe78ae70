"""REFI-QDA files as other tools write and read them.

Our export is read by an independent parser that follows QualCoder's importer as its
source documents it (code names unique, categories = codes marked not codable, codings
only from PlainTextSelections, the owner from the selection's creatingUser, one coding per
code, source, positions and owner, a note needs a creationDateTime); files are built the
way QualCoder (level names, annotations, journals, cases, CR LF sources), MAXQDA
(document sets) and ATLAS.ti write them, and read here."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import pytest
import xmlschema

from sense7_coder.domain.errors import InputError
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.demo import build_demo
from sense7_coder.project.exchange import export_qdc, export_qdpx
from sense7_coder.project.refi.importing import new_project_from_qdpx

HERE = Path(__file__).parent / "refi"
P = "{urn:QDA-XML:project:1.0}"
NS = "urn:QDA-XML:project:1.0"


# -- an independent reader in QualCoder's manner ------------------------------------------

def qualcoder_read(path: Path) -> dict[str, Any]:
    """What QualCoder's importer would hold after reading ``path`` (see the module doc)."""
    with zipfile.ZipFile(path) as z:
        root = ET.fromstring(z.read("project.qde"))
        texts = {n: z.read(n) for n in z.namelist() if n.startswith("sources/")}
    users = {u.get("guid"): u.get("name") for u in root.iter(f"{P}User")}
    codes: dict[str, str] = {}
    categories: set[str] = set()

    def walk(el: ET.Element) -> None:
        name = el.get("name")
        if el.get("isCodable") == "false":
            assert name not in categories, f"category {name!r} twice: QualCoder merges them"
            categories.add(name)
        else:
            assert name not in codes.values(), f"code {name!r} twice: QualCoder merges them"
            codes[el.get("guid")] = name
        for child in el.findall(f"{P}Code"):
            walk(child)

    for top in root.find(f"{P}CodeBook").find(f"{P}Codes").findall(f"{P}Code"):
        walk(top)
    for note in root.iter(f"{P}Note"):  # QualCoder calls .replace on the date
        assert note.get("creationDateTime") or note.get("modifiedDateTime")
    rows: set[tuple[str, str, int, int, str]] = set()
    memos = []
    for src in root.iter(f"{P}TextSource"):
        raw = texts["sources/" + src.get("plainTextPath").removeprefix("internal://")]
        assert b"\r\n" not in raw  # else QualCoder shifts every later selection
        assert not src.findall(f"{P}Coding")  # QualCoder reads codings from selections only
        for sel in src.findall(f"{P}PlainTextSelection"):
            owner = users.get(sel.get("creatingUser"), "default")
            memo = sel.find(f"{P}Description")
            if memo is not None:
                memos.append((owner, memo.text))
            for coding in sel.findall(f"{P}Coding"):
                code = codes[coding.find(f"{P}CodeRef").get("targetGUID")]
                row = (code, src.get("name"), int(sel.get("startPosition")),
                       int(sel.get("endPosition")), owner)
                assert row not in rows, f"duplicated text coding {row}: only one loaded"
                rows.add(row)
    return {"codings": rows, "memos": memos, "codes": codes, "categories": categories}


def test_demo_export_reads_whole_the_way_qualcoder_reads_it(tmp_path: Path) -> None:
    with Project.open(build_demo(tmp_path)) as demo:
        demo.set_coder("alice")
        demo.set_memo(Unit("101", 2), "kind, but it skips the deadline")
        demo.set_memo(Unit("101"), "a conversation memo")
        export_qdpx(demo, tmp_path / "demo.qdpx")
        got = qualcoder_read(tmp_path / "demo.qdpx")
        xmlschema.XMLSchema(str(HERE / "Project.xsd")).validate(
            zipfile.ZipFile(tmp_path / "demo.qdpx").read("project.qde").decode())
        book = {c.key: c for c in demo.codebook.codes}
        want = set()
        for coder, cid, pos, _sent, key, value in demo.db.execute(
                "SELECT coder, conversation_id, position, sentence, code, value FROM codings"):
            if book[key].kind == "binary" and value != 1:
                continue  # absent: no REFI coding
            want.add((coder, cid, key, value, pos))
        spans = demo.db.execute("SELECT COUNT(*) FROM spans").fetchone()[0]
        consensus = demo.db.execute("SELECT COUNT(*) FROM consensus").fetchone()[0]
    # every coding on a code and its coder (the consensus is a user of its own)
    assert len(got["codings"]) == len(want) + spans + consensus > 600
    owners = {row[4] for row in got["codings"]}
    assert {"alice", "bashir", "chen"} <= owners and "default" not in owners
    assert ("alice", "kind, but it skips the deadline") in got["memos"]
    assert ("alice", "a conversation memo") in got["memos"]
    assert "Overall empathy" in got["categories"]
    assert "Overall empathy: NA = not applicable" in got["codes"].values()


def test_qdc_reads_whole_in_qualcoder_manner(tmp_path: Path) -> None:
    with Project.open(build_demo(tmp_path)) as demo:
        export_qdc(demo, tmp_path / "book.qdc")
        n_codes = len(demo.codebook.codes)
        levels = sum(len(c.levels) + c.allow_na for c in demo.codebook.codes
                     if c.kind != "binary")
        binaries = sum(c.kind == "binary" for c in demo.codebook.codes)
    xmlschema.XMLSchema(str(HERE / "Codebook.xsd")).validate(str(tmp_path / "book.qdc"))
    root = ET.parse(tmp_path / "book.qdc").getroot()
    c = "{urn:QDA-XML:codebook:1.0}"
    names = [el.get("name") for el in root.iter(f"{c}Code")]
    assert len(names) == len(set(names)) == n_codes + levels
    parents = [el for el in root.iter(f"{c}Code") if el.get("isCodable") == "false"]
    assert all(el.findall(f"{c}Code") for el in parents)  # no empty category
    assert len(parents) == n_codes - binaries


# -- files as other tools write them --------------------------------------------------------

U1, U2 = "11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002"
W, W1, W2, W3, WNA = (f"22222222-0000-4000-8000-00000000000{d}" for d in "01234")
Q = "22222222-0000-4000-8000-000000000009"
S1, S2 = "33333333-0000-4000-8000-000000000001", "33333333-0000-4000-8000-000000000002"
LF_TEXT = ("User: My sister stopped calling me.\n"
           "Assistant: That sounds lonely. Do you know why?\n"
           "User: No idea at all.\n")


def sel(guid: str, text: str, phrase: str, user: str, code: str, memo: str = "",
        crlf_two: bool = False) -> str:
    start = text.index(phrase)
    end = start + len(phrase)
    if crlf_two:  # positions of the file as stored: each earlier line end counts two
        start += text[:start].count("\n")
        end += text[:end].count("\n")
    desc = f"<Description>{memo}</Description>" if memo else ""
    return (f'<PlainTextSelection guid="{guid}" name="{phrase}" startPosition="{start}" '
            f'endPosition="{end}" creatingUser="{user}" '
            f'creationDateTime="2024-05-01T10:00:00Z">{desc}'
            f'<Coding guid="{guid[:-2]}CC" creatingUser="{user}"><CodeRef targetGUID="{code}"/>'
            '</Coding></PlainTextSelection>')


def qde(selections: str, *, origin: str = "QualCoder 3.6", extra: str = "",
        users: str = "", codes: str = "", sources: str = "", cases: str = "") -> str:
    return f"""<?xml version="1.0" encoding="utf-8"?>
<Project xmlns="{NS}" name="family" origin="{origin}">
  <Users>{users or f'<User guid="{U1}" name="Ana"/><User guid="{U2}" name="Ben"/>'}</Users>
  <CodeBook><Codes>
    <Code guid="{W}" name="Warmth" isCodable="false">
      <Code guid="{W1}" name="1 = low" isCodable="true"/>
      <Code guid="{W2}" name="2 medium" isCodable="true"/>
      <Code guid="{W3}" name="3: high" isCodable="true"/>
      <Code guid="{WNA}" name="N/A" isCodable="true"/>
    </Code>
    <Code guid="{Q}" name="Question" isCodable="true"/>{codes}
  </Codes></CodeBook>{cases}
  <Sources>
    <TextSource guid="{S1}" name="chat 1" plainTextPath="internal://{S1}.txt">{selections}</TextSource>{sources}
  </Sources>{extra}
</Project>"""


def qdpx(path: Path, qde_text: str, text: str = LF_TEXT, crlf: bool = False) -> Path:
    data = text.replace("\n", "\r\n") if crlf else text
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("project.qde", qde_text)
        z.writestr(f"sources/{S1}.txt", data.encode("utf-8-sig"))
    return path


def selections(text: str = LF_TEXT, crlf_two: bool = False) -> str:
    return "".join([
        sel("44444444-0000-4000-8000-000000000001", text, "My sister stopped calling me.",
            U1, W1, memo="flat opening", crlf_two=crlf_two),
        sel("44444444-0000-4000-8000-000000000002", text, "That sounds lonely.", U1, W3,
            crlf_two=crlf_two),
        sel("44444444-0000-4000-8000-000000000003", text, "That sounds lonely.", U2, W2,
            crlf_two=crlf_two),
        sel("44444444-0000-4000-8000-000000000004", text, "Do you know why?", U2, Q,
            crlf_two=crlf_two),
        sel("44444444-0000-4000-8000-000000000005", text, "No idea at all.", U2, WNA,
            crlf_two=crlf_two),
    ])


def spans_of(project: Project) -> set[tuple[Any, ...]]:
    out = set()
    for coder, cid, pos, start, end, code, value, memo in project.db.execute(
            "SELECT coder, conversation_id, position, start, end, code, value, memo "
            "FROM spans"):
        text = project.db.execute("SELECT text FROM turns WHERE conversation_id=? AND "
                                  "position=?", [cid, pos]).fetchone()[0]
        out.add((coder, text[start:end], code, value, memo or ""))
    return out


WANT = {("Ana", "My sister stopped calling me.", "warmth", 1, "flat opening"),
        ("Ana", "That sounds lonely.", "warmth", 3, ""),
        ("Ben", "That sounds lonely.", "warmth", 2, ""),
        ("Ben", "Do you know why?", "question", 1, "")}
#: a span holds a level: the N/A coding of a passage is listed as left out
NA_LEFT = ("1 not-applicable codings of 'warmth' on passages (a span holds one of its "
           "levels)")


@pytest.mark.parametrize("crlf", [False, True], ids=["LF", "CRLF as QualCoder writes"])
def test_qualcoder_levels_memos_and_line_ends_read_whole(tmp_path: Path, crlf: bool) -> None:
    """Every level form the README promises lands on its level; a CR LF source whose
    positions count a line end as one (QualCoder's "MAXQDA line endings") is not shifted."""
    path = qdpx(tmp_path / "q.qdpx", qde(selections()), crlf=crlf)
    project, summary = new_project_from_qdpx(tmp_path / "p.sense7", path)
    with project:
        warmth = project.codebook.get("warmth")
        assert [(lv.value, lv.label) for lv in warmth.levels] == [
            (1, "low"), (2, "medium"), (3, "high")] and warmth.allow_na
        assert spans_of(project) == WANT
        turns = [t for (t,) in project.db.execute("SELECT text FROM turns ORDER BY position")]
    assert turns == ["My sister stopped calling me.", "That sounds lonely. Do you know why?",
                     "No idea at all."]
    assert summary.skipped == [NA_LEFT] and summary.warnings == []


def test_crlf_counted_as_two_is_told_by_the_words(tmp_path: Path) -> None:
    path = qdpx(tmp_path / "q.qdpx", qde(selections(crlf_two=True), origin="MAXQDA 2022"),
                crlf=True)
    project, summary = new_project_from_qdpx(tmp_path / "p.sense7", path)
    with project:
        assert spans_of(project) == WANT
    assert summary.warnings == []


def test_crlf_that_words_cannot_tell_is_warned(tmp_path: Path) -> None:
    text = "User: hi\nAssistant: !! ?? !!\n"
    one = sel("44444444-0000-4000-8000-000000000001", text, "??", U1, Q)
    path = qdpx(tmp_path / "q.qdpx", qde(one, origin="Some tool"), text=text, crlf=True)
    project, summary = new_project_from_qdpx(tmp_path / "p.sense7", path)
    project.close()
    assert len(summary.warnings) == 1 and "'chat 1'" in summary.warnings[0]
    assert "line ends" in "\n".join(summary.lines())


def test_annotation_journal_case_and_maxqda_sets(tmp_path: Path) -> None:
    start = LF_TEXT.index("No idea")
    cases = f"""
  <Cases><Case guid="55555555-0000-4000-8000-000000000001" name="Family A">
    <SourceRef targetGUID="{S1}"/></Case></Cases>"""
    extra = f"""
  <Notes>
    <Note guid="66666666-0000-4000-8000-000000000001" creatingUser="{U2}"
          creationDateTime="2024-05-01T10:00:00Z">
      <PlainTextContent>short, guarded</PlainTextContent>
      <PlainTextSelection guid="66666666-0000-4000-8000-0000000000AA"
          startPosition="{start}" endPosition="{start + 15}"/>
    </Note>
    <Note guid="66666666-0000-4000-8000-000000000002" name="Journal: week 1"
          creatingUser="{U1}" creationDateTime="2024-05-01T10:00:00Z">
      <PlainTextContent>Started coding.</PlainTextContent></Note>
  </Notes>
  <Sets><Set guid="77777777-0000-4000-8000-000000000001" name="Pilot">
    <MemberSource targetGUID="{S1}"/></Set></Sets>"""
    sources = selections().replace(
        "</PlainTextSelection>",
        "</PlainTextSelection>", 1) + '<NoteRef targetGUID="66666666-0000-4000-8000-000000000001"/>'
    path = qdpx(tmp_path / "q.qdpx", qde(sources, extra=extra, cases=cases))
    xmlschema.XMLSchema(str(HERE / "Project.xsd")).validate(
        zipfile.ZipFile(path).read("project.qde").decode())
    project, summary = new_project_from_qdpx(tmp_path / "p.sense7", path)
    with project:
        attrs = json.loads(project.db.execute(
            "SELECT attributes FROM conversations").fetchone()[0])
        memos = set(project.db.execute("SELECT coder, position, text FROM memos"))
    assert attrs == {"case": "Family A", "Pilot": "yes"}
    assert ("Ben", 3, "short, guarded") in memos  # on its passage's turn, not the whole chat
    assert summary.skipped == ["1 notes on no source (journals, project memos)", NA_LEFT]


@pytest.mark.parametrize("kind", ["User", "Code", "TextSource"])
def test_duplicate_guids_are_refused_in_one_line(tmp_path: Path, kind: str) -> None:
    if kind == "User":
        text = qde(selections(), users=f'<User guid="{U1}" name="Ana"/><User guid="{U1}" '
                   'name="Ben"/>')
    elif kind == "Code":
        text = qde(selections(), codes=f'<Code guid="{Q}" name="Other" isCodable="true"/>')
    else:
        text = qde(selections(), sources=f'<TextSource guid="{S1}" name="again">'
                   '<PlainTextContent>User: x</PlainTextContent></TextSource>')
    path = qdpx(tmp_path / "q.qdpx", text)
    with pytest.raises(InputError) as err:
        new_project_from_qdpx(tmp_path / "p.sense7", path)
    message = str(err.value)
    assert "\n" not in message and f"the {kind}" in message and "GUID" in message
    assert "line" in message and not (tmp_path / "p.sense7").exists()


def test_names_with_direction_characters_refused_and_line_breaks_cleaned(
        tmp_path: Path) -> None:
    bad = qde(selections(), codes='<Code guid="22222222-0000-4000-8000-0000000000EE" '
              'name="evil&#x202E;txt" isCodable="true"/>')
    with pytest.raises(InputError) as err:
        new_project_from_qdpx(tmp_path / "p.sense7", qdpx(tmp_path / "q.qdpx", bad))
    assert "U+202E" in str(err.value) and "Code" in str(err.value)
    assert "\n" not in str(err.value)
    broken = qde(selections(), codes='<Code guid="22222222-0000-4000-8000-0000000000EE" '
                 'name="Two&#10;lines" isCodable="true"/>')
    project, _ = new_project_from_qdpx(tmp_path / "p2.sense7",
                                       qdpx(tmp_path / "q2.qdpx", broken))
    with project:
        assert "Two lines" in {c.label for c in project.codebook.codes}


def test_our_project_round_trips_ratings_attributes_done_marks(tmp_path: Path) -> None:
    with Project.open(build_demo(tmp_path)) as demo:
        demo.set_coder("alice")
        demo.set_memo(Unit("101", 2), "memo on a turn")
        export_qdpx(demo, tmp_path / "demo.qdpx")
        before = _content(demo)
    project, summary = new_project_from_qdpx(tmp_path / "back.sense7", tmp_path / "demo.qdpx")
    with project:
        after = _content(project)
    assert summary.skipped == [] and summary.warnings == []
    for table in before:
        assert after[table] == before[table], table


def _content(project: Project) -> dict[str, list[Any]]:
    queries = {
        "turns": "SELECT conversation_id, position, role, speaker, text, time_offset, comment, "
                 "attributes FROM turns",
        "conversations": "SELECT conversation_id, participant_id, model, topic, source, "
                         "attributes FROM conversations",
        "user_ratings": "SELECT conversation_id, position, rating, value FROM user_ratings",
        "done": "SELECT coder, conversation_id, position FROM turn_status WHERE done = 1",
        "codings": "SELECT coder, conversation_id, position, sentence, code, value FROM codings",
        "spans": "SELECT coder, conversation_id, position, start, end, code, value FROM spans",
        "memos": "SELECT coder, conversation_id, position, sentence, text FROM memos",
        "consensus": "SELECT conversation_id, position, sentence, code, value FROM consensus",
    }
    out = {}
    for name, sql in queries.items():
        rows = [tuple(json.loads(v) if isinstance(v, str) and v.startswith("{") else v
                      for v in r) for r in project.db.execute(sql)]
        out[name] = sorted(rows, key=repr)
    return out


def test_atlas_crlf_counts_a_line_end_as_one(tmp_path: Path) -> None:
    """ATLAS.ti stores CR LF texts but counts a line end as one character."""
    text = qde(selections(), origin="ATLAS.ti 23.2.1")
    project, summary = new_project_from_qdpx(tmp_path / "p.sense7",
                                             qdpx(tmp_path / "a.qdpx", text, crlf=True))
    with project:
        assert spans_of(project) == WANT
    assert summary.warnings == []


def test_qdc_nominal_level_with_empty_label_comes_back_empty() -> None:
    from sense7_coder.domain.codebook.codes import Codebook, code_from_dict
    from sense7_coder.domain.refi.qdc import codebook_from_qdc, codebook_qdc

    kind = code_from_dict({"key": "kind", "label": "Kind", "kind": "nominal", "unit": "turn",
                           "levels": [{"value": "a", "label": ""},
                                      {"value": "b", "label": "Bee"}]}, "x")
    back = codebook_from_qdc(codebook_qdc(Codebook("x", [kind])), "x.qdc")
    assert [(lv.value, lv.label) for lv in back.codes[0].levels] == [("a", ""), ("b", "Bee")]


def test_our_turns_come_back_whole_even_holding_a_speaker_line(tmp_path: Path) -> None:
    with Project.open(build_demo(tmp_path)) as demo:
        with demo.db.conn:
            demo.db.execute("UPDATE turns SET text = text || ? WHERE conversation_id = '101' "
                            "AND position = 2", ["\nUser: a quoted line, not a turn"])
        export_qdpx(demo, tmp_path / "demo.qdpx")
        before = _content(demo)["turns"]
    project, _ = new_project_from_qdpx(tmp_path / "back.sense7", tmp_path / "demo.qdpx")
    with project:
        assert _content(project)["turns"] == before


def _with_extra(tmp_path: Path, extra: str) -> Path:
    """The sense7-coder variable of a source, as a hostile file could set it."""
    variable = "99999999-0000-4000-8000-000000000001"
    text = qde(selections()).replace(
        "</Codes></CodeBook>",
        f'</Codes></CodeBook><Variables><Variable guid="{variable}" name="sense7-coder" '
        'typeOfVariable="Text"/></Variables>').replace(
        "</TextSource>", f'<VariableValue><VariableRef targetGUID="{variable}"/>'
        f"<TextValue>{extra}</TextValue></VariableValue></TextSource>", 1)
    return qdpx(tmp_path / "h.qdpx", text)


@pytest.mark.parametrize(("extra", "said"), [
    ('{"turns": [{"position": 1, "role": "evil"}, {"position": 2, "role": "assistant"}, '
     '{"position": 3, "role": "user"}]}', "the role 'evil'"),
    ('{"turns": [{"position": 1, "role": "user", "attributes": "x"}, {"position": 2, '
     '"role": "assistant"}, {"position": 3, "role": "user"}]}', "attributes are not"),
    ('{"turns": [{"position": 1, "role": "user", "ratings": {"overall": 9}}, '
     '{"position": 2, "role": "assistant"}, {"position": 3, "role": "user"}]}', "rating 9"),
    ('{"turns": [], "done": {"Ana": [1]}}', "turns do not match"),
    ("[" * 100_000 + "]" * 100_000, "not a JSON object"),
])
def test_a_hostile_sense7_variable_is_refused_in_one_line(tmp_path: Path, extra: str,
                                                          said: str) -> None:
    with pytest.raises(InputError) as err:
        new_project_from_qdpx(tmp_path / "p.sense7", _with_extra(tmp_path, extra))
    assert said in str(err.value) and "\n" not in str(err.value)
    assert "sense7-coder" in str(err.value) and not (tmp_path / "p.sense7").exists()


def test_done_marks_of_a_user_the_file_does_not_have_are_refused(tmp_path: Path) -> None:
    extra = ('{"turns": [{"position": 1, "role": "user"}, {"position": 2, "role": '
             '"assistant"}, {"position": 3, "role": "user"}], "done": {"Mallory": [1]}}')
    with pytest.raises(InputError) as err:
        new_project_from_qdpx(tmp_path / "p.sense7", _with_extra(tmp_path, extra))
    assert "'Mallory' is not a user of the file" in str(err.value)


def test_a_coding_that_cannot_be_read_names_its_cause(tmp_path: Path) -> None:
    on_parent = sel("44444444-0000-4000-8000-0000000000A1", LF_TEXT, "No idea at all.", U1, W)
    path = qdpx(tmp_path / "q.qdpx", qde(selections() + on_parent))
    project, summary = new_project_from_qdpx(tmp_path / "p.sense7", path)
    project.close()
    assert "1 codings of 'Warmth' itself, whose levels are its child codes" in summary.skipped
    assert not any("not codable" in s for s in summary.skipped)


def test_attributes_named_like_a_field_or_the_variable_come_back(tmp_path: Path) -> None:
    with Project.open(build_demo(tmp_path)) as demo:
        with demo.db.conn:
            demo.db.execute("UPDATE conversations SET attributes = ? WHERE "
                            "conversation_id = '101'",
                            [json.dumps({"model": "attribute, not field", "sense7-coder": "x",
                                         "score": 2.5, "tags": ["a", "b"]})])
        export_qdpx(demo, tmp_path / "demo.qdpx")
        before = _content(demo)["conversations"]
    project, _ = new_project_from_qdpx(tmp_path / "back.sense7", tmp_path / "demo.qdpx")
    with project:
        assert _content(project)["conversations"] == before


def test_qdc_codes_sharing_a_label_or_spaced_oddly_come_back() -> None:
    from sense7_coder.domain.codebook.codes import Codebook, code_from_dict
    from sense7_coder.domain.refi.qdc import codebook_from_qdc, codebook_qdc

    def ordinal(key: str, label: str) -> Any:
        return code_from_dict({"key": key, "label": label, "kind": "ordinal", "unit": "turn",
                               "allow_na": True, "levels": [{"value": 1, "label": "low "},
                                                            {"value": 2, "label": "high"}]}, "x")

    book = Codebook("x", [ordinal("a", "Warm  th"), ordinal("b", "Warm  th")])
    data = codebook_qdc(book)
    names = [el.get("name") for el in ET.fromstring(data).iter(
        "{urn:QDA-XML:codebook:1.0}Code")]
    assert len(names) == len(set(names)) and "Warm  th (b): 1 = low " in names
    back = codebook_from_qdc(data, "x.qdc")
    assert [(c.key, c.label, [(lv.value, lv.label) for lv in c.levels], c.allow_na)
            for c in back.codes] == [(k, "Warm  th", [(1, "low "), (2, "high")], True)
                                     for k in ("a", "b")]
