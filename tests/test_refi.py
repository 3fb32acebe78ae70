"""REFI-QDA exchange: codebooks as .qdc both ways, coded projects as .qdpx, valid against
the standard's schemas (tests/refi/), stable GUIDs, and safe XML reading."""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from analysis_support import code, make_project

from sense7_coder.cli import main
from sense7_coder.domain.codebook.codes import Codebook
from sense7_coder.domain.errors import CodebookError
from sense7_coder.domain.models import Unit
from sense7_coder.domain.refi.qdc import (
    CODEBOOK_NS,
    PROJECT_NS,
    code_guid,
    codebook_from_qdc,
    codebook_qdc,
    level_guid,
    load_qdc,
    parse_xml,
)
from sense7_coder.project import Project
from sense7_coder.project.exchange import export_qdc, export_qdpx, import_qdc
from sense7_coder.resources import resolve_codebook

HERE = Path(__file__).parent / "refi"
C = f"{{{CODEBOOK_NS}}}"
P = f"{{{PROJECT_NS}}}"


@pytest.fixture(scope="module")
def codebook_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(HERE / "Codebook.xsd")


@pytest.fixture(scope="module")
def project_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(HERE / "Project.xsd")


@pytest.fixture
def study(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path)
    code(project, "alice", {
        ("c1", 2, "overall"): 4, ("c3", 4, "overall"): None, ("c1", 2, "strategy"): "advice",
        ("c1", 2, 2, "question"): 1, ("c1", 0, "quality"): 5, ("c2", 2, "validation"): 0,
        ("c2", 4, "validation"): 1,
    })
    project.set_memo(Unit("c1", 2), "warm but generic")
    code(project, "bashir", {("c1", 2, "overall"): 3, ("c2", 2, "overall"): 2})
    yield project
    project.close()


def comparable(book: Codebook) -> list[dict[str, Any]]:
    return [c.to_dict() for c in book.codes]


def test_sense7_codebook_round_trips_through_qdc(codebook_schema: xmlschema.XMLSchema,
                                                 tmp_path: Path) -> None:
    for name in ("sense7", "tactics"):
        book = resolve_codebook(name)
        data = codebook_qdc(book)
        codebook_schema.validate(data.decode("utf-8"))
        back = codebook_from_qdc(data, f"{name}.qdc")
        assert comparable(back) == comparable(book)
        assert codebook_qdc(back) == data  # a re-export is the same file, GUIDs and all


def test_qdc_shape_levels_are_child_codes_with_stable_guids() -> None:
    root, _ = parse_xml(codebook_qdc(resolve_codebook("sense7")), "x.qdc")
    overall = next(c for c in root.iter(f"{C}Code") if c.get("name") == "Overall empathy")
    assert overall.get("guid") == code_guid("overall") and overall.get("isCodable") == "false"
    assert overall.get("color", "").startswith("#")
    children = overall.findall(f"{C}Code")
    # named after their code: QualCoder and ATLAS.ti keep one code per name
    assert [c.get("name") for c in children] == [
        "Overall empathy: 1 = very poor", "Overall empathy: 2 = poor",
        "Overall empathy: 3 = neutral", "Overall empathy: 4 = good",
        "Overall empathy: 5 = very good", "Overall empathy: NA = not applicable"]
    names = [c.get("name") for c in root.iter(f"{C}Code")]
    assert len(names) == len(set(names))
    assert children[0].get("guid") == level_guid("overall", 1)
    assert overall.find(f"{C}Description").text.startswith("Your overall judgement")


def test_import_qualcoder_style_nested_categories(codebook_schema: xmlschema.XMLSchema,
                                                  study: Project) -> None:
    path = HERE / "qualcoder-style.qdc"
    codebook_schema.validate(path)
    book = load_qdc(path)
    got = {c.key: (c.kind, c.label, c.group, c.color) for c in book.codes}
    assert got == {
        "validation": ("binary", "Validation", "Emotional reactions", "#f781f3"),
        "warm_tone": ("binary", "Warm tone", "Emotional reactions", "#f5a9f2"),
        "explorations": ("binary", "Explorations", "", "#81bef7"),  # codable parent
        "open_question": ("binary", "Open question", "Explorations", ""),
        "advice_unsolicited": ("binary", "Advice (unsolicited)", "", "#aaaaaa"),
    }
    assert book.get("validation").description == "Acknowledges a feeling as understandable."
    before = len(study.codebook.codes)
    result = import_qdc(study, path)
    # 'validation' exists (binary, same kind): updated; the other four are new
    assert (result.added, result.updated) == (4, 1)
    assert result.changes.codebook  # the window's views read the codebook again
    assert len(study.codebook.codes) == before + 4


def test_import_atlas_style_scale_and_sets(codebook_schema: xmlschema.XMLSchema) -> None:
    path = HERE / "atlas-style.qdc"
    codebook_schema.validate(path)
    book = load_qdc(path)
    warmth = book.code("warmth")
    assert warmth.kind == "ordinal" and warmth.allow_na
    assert [(lv.value, lv.label) for lv in warmth.levels] == [(1, "cold"), (2, "neutral"),
                                                               (3, "warm")]
    assert warmth.levels[2].description == "Friendly, personal, caring."
    assert book.code("self_disclosure").group == "Relational moves"
    assert book.code("self_disclosure_2").label == "self disclosure"  # keys kept unique


def test_bad_qdc_files_are_refused_with_file_and_line(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.qdc"
    bomb.write_text('<?xml version="1.0"?>\n<!DOCTYPE CodeBook [\n<!ENTITY a "aaaaaaaa">\n'
                    '<!ENTITY b "&a;&a;&a;&a;&a;&a;">\n]>\n'
                    f'<CodeBook xmlns="{CODEBOOK_NS}"><Codes/></CodeBook>\n', encoding="utf-8")
    with pytest.raises(CodebookError, match=r"bomb\.qdc, line 2: the file declares a DTD"):
        load_qdc(bomb)
    broken = tmp_path / "broken.qdc"
    broken.write_text(f'<CodeBook xmlns="{CODEBOOK_NS}">\n<Codes>\n</CodeBook>\n',
                      encoding="utf-8")
    with pytest.raises(CodebookError, match=r"broken\.qdc, line 3: not well-formed XML"):
        load_qdc(broken)
    other = tmp_path / "other.qdc"
    other.write_text('<Project xmlns="urn:example"/>', encoding="utf-8")
    with pytest.raises(CodebookError, match="not a REFI-QDA codebook"):
        load_qdc(other)
    bad_level = tmp_path / "level.qdc"
    bad_level.write_text(
        f'<CodeBook xmlns="{CODEBOOK_NS}">\n<Codes>\n'
        '<Code guid="2F6A3C1E-1D3B-4B8A-9E0C-7C1A2B3C4D01" name="Warmth" isCodable="true">\n'
        '<Description>[sense7-coder] {"key": "warmth", "kind": "ordinal"}</Description>\n'
        '<Code guid="2F6A3C1E-1D3B-4B8A-9E0C-7C1A2B3C4D02" name="cold" isCodable="true"/>\n'
        '</Code>\n</Codes>\n</CodeBook>\n', encoding="utf-8")
    with pytest.raises(CodebookError, match=r"level\.qdc, line 3: code 'Warmth'"):
        load_qdc(bad_level)


def test_cli_codebook_qdc_both_ways(study: Project, tmp_path: Path,
                                    codebook_schema: xmlschema.XMLSchema) -> None:
    out = tmp_path / "book.qdc"
    assert main(["codebook", str(study.path), "export", str(out)]) == 0
    codebook_schema.validate(out)
    fresh = Project.create(tmp_path / "fresh.sense7", resolve_codebook("sense7"))
    fresh.close()
    assert main(["codebook", str(tmp_path / "fresh.sense7"), "import", str(out)]) == 0
    with Project.open(tmp_path / "fresh.sense7", backup=False) as p:
        strategy = p.codebook.code("strategy")
        assert strategy.kind == "nominal" and strategy.values == ["advice", "question",
                                                                  "validation"]
        assert p.codebook.code("overall").user_rating == "overall"


def test_qdpx_project_is_valid_and_places_every_coding(study: Project, tmp_path: Path,
                                                       project_schema: xmlschema.XMLSchema
                                                       ) -> None:
    out = tmp_path / "study.qdpx"
    summary = export_qdpx(study, out)
    assert summary.sources == 4 and summary.notes == 1  # memos
    with zipfile.ZipFile(out) as z:
        qde = z.read("project.qde")
        texts = {n: z.read(n).decode("utf-8") for n in z.namelist() if n.startswith("sources/")}
    project_schema.validate(qde.decode("utf-8"))
    root, _ = parse_xml(qde, "project.qde")
    users = {u.get("guid"): u.get("name") for u in root.iter(f"{P}User")}
    assert sorted(users.values()) == ["alice", "bashir"]
    sources = {s.get("name"): s for s in root.iter(f"{P}TextSource")}
    assert sorted(sources) == ["c1", "c2", "c3", "c4"]
    c1 = sources["c1"]
    text = texts["sources/" + c1.get("plainTextPath").removeprefix("internal://")]
    turn_two = study.db.execute(
        "SELECT text FROM turns WHERE conversation_id='c1' AND position=2").fetchone()[0]
    # one selection per coder, its creatingUser the coder (QualCoder reads the owner there)
    by_name: dict[str, list[ET.Element]] = {}
    for s in c1.iter(f"{P}PlainTextSelection"):
        by_name.setdefault(s.get("name"), []).append(s)
    turn_sels = by_name["c1 turn 2"]
    for sel in turn_sels:
        assert text[int(sel.get("startPosition")):int(sel.get("endPosition"))] == turn_two
        assert sel.get("creationDateTime")
        assert {c.get("creatingUser") for c in sel.findall(f"{P}Coding")} <= {
            sel.get("creatingUser")}
    codings = {(users[c.get("creatingUser")], c.find(f"{P}CodeRef").get("targetGUID"))
               for sel in turn_sels for c in sel.findall(f"{P}Coding")}
    assert codings == {("alice", level_guid("overall", 4)), ("bashir", level_guid("overall", 3)),
                       ("alice", level_guid("strategy", "advice"))}
    assert sorted(users[s.get("creatingUser")] for s in turn_sels) == ["alice", "bashir"]
    # the sentence-level code sits on the second sentence of the turn
    (sentence,) = by_name["c1 turn 2 sentence 2"]
    start, end = int(sentence.get("startPosition")), int(sentence.get("endPosition"))
    s0, s1 = study.db.execute("SELECT start, end FROM sentences WHERE conversation_id='c1' "
                              "AND position=2 AND sentence=2").fetchone()
    assert text[start:end] == turn_two[s0:s1] and text[start:end].startswith("Which meeting")
    assert sentence.find(f"{P}Coding/{P}CodeRef").get("targetGUID") == code_guid("question")
    # not applicable is the NA child; a binary 'absent' is no coding at all
    c3 = {s.get("name"): s for s in sources["c3"].iter(f"{P}PlainTextSelection")}
    assert c3["c3 turn 4"].find(f"{P}Coding/{P}CodeRef").get("targetGUID") == \
        level_guid("overall", None)
    c2 = {s.get("name") for s in sources["c2"].iter(f"{P}PlainTextSelection")}
    assert "c2 turn 4" in c2
    c2_refs = {r.get("targetGUID") for r in sources["c2"].iter(f"{P}CodeRef")}
    assert code_guid("validation") in c2_refs and len(
        [r for r in sources["c2"].iter(f"{P}CodeRef")
         if r.get("targetGUID") == code_guid("validation")]) == 1
    # a conversation-level code codes a selection of the whole text (QualCoder reads codings
    # only from selections); the memo is the Description of its coder's selection
    (whole,) = by_name["c1"]
    assert (whole.get("startPosition"), whole.get("endPosition")) == ("0", str(len(text)))
    assert [w.get("targetGUID") for w in whole.iter(f"{P}CodeRef")] == [
        level_guid("quality", 5)]
    memo_sel = next(s for s in turn_sels if s.find(f"{P}Description") is not None)
    assert memo_sel.find(f"{P}Description").text == "warm but generic"
    assert users[memo_sel.get("creatingUser")] == "alice"
    values = {v.find(f"{P}TextValue").text for v in c1.findall(f"{P}VariableValue")}
    assert {"P1", "GPT4"} <= values


def test_qdpx_reexport_keeps_guids_and_codebook_reads_back(study: Project,
                                                           tmp_path: Path) -> None:
    export_qdpx(study, tmp_path / "a.qdpx")
    export_qdpx(study, tmp_path / "b.qdpx")

    def guids(path: Path) -> list[str]:
        with zipfile.ZipFile(path) as z:
            root, _ = parse_xml(z.read("project.qde"), str(path))
        return [el.get("guid") for el in root.iter() if el.get("guid")]

    assert guids(tmp_path / "a.qdpx") == guids(tmp_path / "b.qdpx")
    back = load_qdc(tmp_path / "a.qdpx")  # the project's code book, as another tool sees it
    assert comparable(back) == comparable(study.codebook)


def test_cli_export_qdpx_and_qdc(study: Project, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export-qdpx", str(study.path), str(tmp_path / "s.qdpx")]) == 0
    assert "4 conversations" in capsys.readouterr().out
    assert main(["export-qdpx", str(study.path), str(tmp_path / "s.zip")]) == 2
    assert "ends in .qdpx" in capsys.readouterr().err
    export_qdc(study, tmp_path / "s.qdc")
    assert load_qdc(tmp_path / "s.qdc").code("quality").unit == "conversation"


def test_children_named_with_numbers_are_not_taken_for_a_scale(tmp_path: Path) -> None:
    path = tmp_path / "commits.qdc"
    path.write_text(
        f'<CodeBook xmlns="{CODEBOOK_NS}" origin="ATLAS.ti"><Codes>'
        '<Code guid="A182CD3A-D83C-4D8C-BC80-26D9103EC6D6" name="Commits" isCodable="true">'
        '<Code guid="2D2466F0-D77F-4F8C-BDF9-628966B6B74D" name="2022-05-10 19e4dce" '
        'isCodable="true"/>'
        '<Code guid="086AC733-7B1C-4749-A138-D7182F63A5C9" name="2022-02-11 cdbfd92" '
        'isCodable="true"/></Code>'
        '<Code guid="086AC733-7B1C-4749-A138-D7182F63A5C0" name="Stars" isCodable="true">'
        '<Code guid="086AC733-7B1C-4749-A138-D7182F63A5C1" name="1 star" isCodable="true"/>'
        '<Code guid="086AC733-7B1C-4749-A138-D7182F63A5C2" name="1 bad star" isCodable="true"/>'
        '</Code></Codes></CodeBook>', encoding="utf-8")
    book = load_qdc(path)
    assert {c.key: (c.kind, c.group) for c in book.codes} == {
        "commits": ("binary", ""), "c_2022_05_10_19e4dce": ("binary", "Commits"),
        "c_2022_02_11_cdbfd92": ("binary", "Commits"), "stars": ("binary", ""),
        "c_1_star": ("binary", "Stars"), "c_1_bad_star": ("binary", "Stars")}
    assert book.title == "imported from ATLAS.ti"


# -- a new project from a REFI-QDA codebook ---------------------------------------------------

def test_init_takes_a_qdc_codebook(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = resolve_codebook("tactics")
    qdc = tmp_path / "from-atlas.qdc"
    qdc.write_bytes(codebook_qdc(book))
    target = tmp_path / "new.sense7"
    assert main(["init", str(target), "--codebook", str(qdc)]) == 0
    assert f"created {target}" in capsys.readouterr().out
    with Project.open(target, backup=False) as project:
        assert comparable(project.codebook) == comparable(book)


def test_init_from_a_qdpx_reads_its_code_book(study: Project, tmp_path: Path) -> None:
    qdpx = tmp_path / "team.qdpx"
    export_qdpx(study, qdpx)
    target = tmp_path / "again.sense7"
    assert main(["init", str(target), "--codebook", str(qdpx)]) == 0
    with Project.open(target, backup=False) as project:
        assert [c.key for c in project.codebook.codes] == [c.key for c in study.codebook.codes]


@pytest.mark.parametrize("content, expected", [
    (b"<CodeBook xmlns='urn:QDA-XML:codebook:1.0'><Codes><Code guid='x'", "line 1: not well-formed"),
    (b"<Other/>", "not a REFI-QDA codebook"),
    (b"PK\x03\x04 broken", "not well-formed"),
])
def test_init_refuses_a_bad_qdc_in_one_line_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, expected: str) -> None:
    qdc = tmp_path / "bad.qdc"
    qdc.write_bytes(content)
    target = tmp_path / "new.sense7"
    assert main(["init", str(target), "--codebook", str(qdc)]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(qdc) in err and expected in err, err
    assert not target.exists()


def test_a_qdpx_without_a_project_or_unpacking_too_large_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.qdpx"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("sources/a.txt", "hello")
    with pytest.raises(CodebookError, match="no project.qde"):
        load_qdc(empty)
    not_zip = tmp_path / "text.qdpx"
    not_zip.write_text("just text", encoding="utf-8")
    with pytest.raises(CodebookError, match="not a readable zip"):
        load_qdc(not_zip)
    bomb = tmp_path / "bomb.qdpx"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("project.qde", b" " * (65 * 1024 * 1024))  # a few kB packed
    assert bomb.stat().st_size < 1024 * 1024
    with pytest.raises(CodebookError, match="unpacks to"):
        load_qdc(bomb)


def test_an_encrypted_qdpx_is_refused_in_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain.qdpx"
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("project.qde", "<Project/>")
    data = bytearray(plain.read_bytes())
    # mark the member encrypted (general purpose flag bit 0), in its local and central
    # headers, as a password-protected export would be
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(signature)
        data[at + offset] |= 1
    locked = tmp_path / "locked.qdpx"
    locked.write_bytes(bytes(data))
    with pytest.raises(CodebookError, match="not a readable zip"):
        load_qdc(locked)
