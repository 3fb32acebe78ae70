"""The import dialog and the codebook editor, driven as a researcher would (offscreen)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtTest import QAbstractItemModelTester

from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.imports import import_files
from sense7_coder.resources import resolve_codebook
from sense7_coder.ui.dialogs import CodebookEditorDialog, ImportDialog, codebook_editor
from sense7_coder.ui.dialogs import import_dialog as import_dialog_module
from sense7_coder.ui.dialogs.code_list import RETIRED_ROLE
from sense7_coder.ui.dialogs.new_code import NewCodeDialog

pytestmark = pytest.mark.gui

LONG_CSV = (
    "conversation_id,role,text,overall,affective\n"
    "c1,user,My manager moved the deadline again and I am exhausted.,,\n"
    'c1,assistant,"That sounds draining. Which part is due first?",4,5\n'
    "c1,user,The budget report.,,\n"
    "c1,assistant,Let's start with its summary table.,3,unknown\n"
    "c2,user,Can you fix this formula?,,\n"
    "c2,assistant,Use XLOOKUP instead of VLOOKUP.,2,1\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    p = Project.create(tmp_path / "study.sense7", resolve_codebook("sense7"))
    yield p
    p.close()


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    path = tmp_path / "chats.csv"
    path.write_text(LONG_CSV, encoding="utf-8")
    return path


class ModelChecks:
    """Attach Qt's QAbstractItemModelTester to models; any FAIL it reports fails the test."""

    def __init__(self, qtlog: Any) -> None:
        self.qtlog = qtlog
        self.testers: list[QAbstractItemModelTester] = []

    def watch(self, *models: QAbstractItemModel) -> None:
        for model in models:
            self.testers.append(QAbstractItemModelTester(
                model, QAbstractItemModelTester.FailureReportingMode.Warning))

    def assert_clean(self) -> None:
        fails = [r.message for r in self.qtlog.records if "FAIL" in r.message]
        assert not fails, fails


@pytest.fixture
def model_checks(qtlog: Any) -> Iterator[ModelChecks]:
    checks = ModelChecks(qtlog)
    yield checks
    checks.assert_clean()


def open_import(qtbot: Any, project: Project, model_checks: ModelChecks) -> ImportDialog:
    dialog = ImportDialog(project, None)
    qtbot.addWidget(dialog)
    model_checks.watch(dialog.preview_model, dialog.mapping_model, dialog.roles_model)
    dialog.show()
    return dialog


def checked(dialog: ImportDialog, paths: list[Path]) -> ImportDialog:
    dialog.set_files(paths)
    assert dialog.wait_for_check(30)
    return dialog


def errors(dialog: ImportDialog) -> list[str]:
    return [m.text for m in dialog.message_items() if m.kind == "error"]


# -- import dialog ---------------------------------------------------------------------------


def test_preview_then_import_a_long_csv(qtbot: Any, project: Project, chats: Path,
                                         model_checks: ModelChecks) -> None:
    dialog = checked(open_import(qtbot, project, model_checks), [chats])
    model = dialog.preview_model
    assert model.rowCount() == 6
    columns = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    text_col = columns.index("text")
    assert model.index(1, text_col).data() == "That sounds draining. Which part is due first?"
    assert model.index(1, columns.index("overall")).data() == "4"
    assert errors(dialog) == []
    assert "2 conversations, 6 turns" in " ".join(m.text for m in dialog.message_items())
    assert dialog.import_button.isEnabled()
    assert project.info()["conversations"] == 0  # the check wrote nothing

    task = dialog.start_import()
    assert task is not None and task.wait(30)
    info = project.info()
    assert (info["conversations"], info["turns"]) == (2, 6)
    assert dialog.summary is not None and dialog.summary.conversations == 2
    assert dialog.message_items()[0].text.startswith("Imported 2 conversations")
    assert not dialog.import_button.isEnabled()


def test_malformed_file_is_reported_and_nothing_is_written(
        qtbot: Any, project: Project, chats: Path, tmp_path: Path,
        model_checks: ModelChecks) -> None:
    broken = tmp_path / "broken.csv"
    broken.write_text("conversation_id,role,words\nc9,user,hello\n", encoding="utf-8")
    bad_json = tmp_path / "half.json"
    bad_json.write_text('[{"messages": [{"role": "user", "content": "hi"}', encoding="utf-8")
    dialog = checked(open_import(qtbot, project, model_checks), [chats, broken, bad_json])
    problems = errors(dialog)
    assert len(problems) == 2  # one per bad file, not only the first
    assert "broken.csv" in problems[0] and "text" in problems[0]
    assert "choose the column for text on the Columns tab" in problems[0]
    assert "half.json" in problems[1]
    assert not dialog.import_button.isEnabled()
    assert dialog.start_import() is None
    assert project.info()["conversations"] == 0

    # mapping the text column repairs broken.csv; the broken JSON still blocks everything
    assert "words" in dialog.mapping_model.choices()
    dialog.mapping_model.set_value("text", "words")
    dialog.set_files([broken])
    assert dialog.wait_for_check(30)
    assert errors(dialog) == []
    assert dialog.import_button.isEnabled()
    assert dialog.preview_model.rowCount() == 1


def test_unknown_speaker_gets_a_role_in_the_dialog(qtbot: Any, project: Project,
                                                   tmp_path: Path,
                                                   model_checks: ModelChecks) -> None:
    coach = tmp_path / "coaching.csv"
    coach.write_text("conversation_id,speaker,text\nk1,Client,I keep procrastinating.\n"
                     "k1,Coach,What makes starting hard?\n", encoding="utf-8")
    dialog = checked(open_import(qtbot, project, model_checks), [coach])
    assert "unknown speaker 'Coach'" in errors(dialog)[0]
    assert "Coach" in dialog.roles_model.names()
    assert dialog.roles_model.value("Coach") is None
    assert dialog.tabs.currentIndex() == 1  # the Speakers tab is shown
    assert not dialog.import_button.isEnabled()

    dialog.roles_model.set_value("Coach", "assistant")
    assert dialog.wait_for_check(30)
    assert errors(dialog) == []
    dialog.import_button.click()
    qtbot.waitUntil(lambda: dialog.summary is not None, timeout=30000)
    conv = project.conversation("k1")
    assert conv is not None
    assert [t.role for t in conv.turns] == ["user", "assistant"]


def test_nothing_new_when_reimporting(qtbot: Any, project: Project, chats: Path,
                                      model_checks: ModelChecks) -> None:
    import_files(project, [chats])
    dialog = checked(open_import(qtbot, project, model_checks), [chats])
    text = " ".join(m.text for m in dialog.message_items())
    assert "2 already in the project" in text
    assert not dialog.import_button.isEnabled()


def test_cancelled_import_leaves_the_project_unchanged(qtbot: Any, project: Project,
                                                       chats: Path, monkeypatch: Any,
                                                       model_checks: ModelChecks) -> None:
    real = import_dialog_module.import_files

    def waits_for_cancel(*args: Any, **kwargs: Any) -> Any:
        cancel = kwargs["cancel"]
        for _ in range(1000):
            if cancel():
                break
            time.sleep(0.01)
        return real(*args, **kwargs)  # sees cancel() and raises Cancelled before writing

    monkeypatch.setattr(import_dialog_module, "import_files", waits_for_cancel)
    dialog = checked(open_import(qtbot, project, model_checks), [chats])
    task = dialog.start_import()
    assert task is not None
    task.cancel()
    assert task.wait(30)
    assert task.was_cancelled
    assert project.info()["conversations"] == 0
    assert "cancelled" in dialog.status_label.text()
    assert dialog.summary is None
    # the check that follows still says that nothing was written
    qtbot.waitUntil(lambda: "Ready to import" in dialog.status_label.text(), timeout=10000)
    assert dialog.status_label.text() == ("Import cancelled; nothing was written. "
                                          "Ready to import.")


def test_esconv_file_from_the_shared_data(qtbot: Any, project: Project, shared_data: Path,
                                          model_checks: ModelChecks) -> None:
    path = shared_data / "esconv" / "FailedESConv.json"
    dialog = checked(open_import(qtbot, project, model_checks), [path])
    assert errors(dialog) == []
    assert dialog.preview_model.rowCount() == 50
    assert "esconv" in dialog.detected_label.text()
    assert dialog.roles_model.chosen() == {"seeker": "user", "supporter": "assistant"}
    task = dialog.start_import()
    assert task is not None and task.wait(60)
    info = project.info()
    assert info["conversations"] == 196 and info["turns"] == 5230


# -- codebook editor -------------------------------------------------------------------------


@pytest.fixture
def coded(project: Project, chats: Path) -> Project:
    """The project with the chats imported and alice's affective rating 2 on one turn."""
    import_files(project, [chats])
    project.set_coder("alice")
    project.set_value(Unit("c1", 2), "affective", 2)
    return project


def open_editor(qtbot: Any, project: Project, model_checks: ModelChecks) -> CodebookEditorDialog:
    editor = CodebookEditorDialog(project, None)
    qtbot.addWidget(editor)
    model_checks.watch(editor.model, editor.form.levels)
    editor.show()
    return editor


def stored(project: Project, key: str) -> Any:
    with Project.open(project.path, backup=False) as other:
        return other.code(key)


def test_label_change_is_saved_at_once(qtbot: Any, coded: Project,
                                       model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    editor.select_code("affective")
    assert editor.form.key_edit.isReadOnly()
    editor.form.label_edit.setText("Affective understanding (feelings)")
    editor.form.label_edit.editingFinished.emit()
    assert stored(coded, "affective").label == "Affective understanding (feelings)"
    assert editor.message.kind == "ok"
    row = editor.model.row_of("affective")
    assert editor.model.index(row).data().startswith("Affective understanding (feelings)")

    editor.form.levels.setData(editor.form.levels.index(2, 1), "so-so")  # a level's label
    editor.form.set_color("#123456")
    code = stored(coded, "affective")
    assert (code.levels[2].label, code.color) == ("so-so", "#123456")


def test_edits_in_the_editor_make_versions_the_versions_window_compares_and_exports(
        qtbot: Any, coded: Project, model_checks: ModelChecks, tmp_path: Path) -> None:
    from sense7_coder.ui.dialogs.codebook_versions import CodebookVersionsDialog

    editor = open_editor(qtbot, coded, model_checks)
    editor.select_code("affective")
    editor.form.label_edit.setText("Affective understanding (feelings)")
    editor.form.label_edit.editingFinished.emit()
    editor.form.set_color("#123456")  # no change of meaning: no version
    versions = CodebookVersionsDialog(coded, editor)
    qtbot.addWidget(versions)
    assert versions.table.rowCount() == 2
    assert versions.table.item(1, 2).text() == "alice"
    assert versions.table.item(1, 4).text() == "changed: affective"
    assert versions.table.item(0, 3).text() == "1"  # alice's coding, under version 1
    text = versions.diff.toPlainText()
    assert text.startswith("Version 1 → 2: 1 difference (")
    assert "~ affective: label" in text and "'Affective understanding (feelings)'" in text
    out = tmp_path / "v1.json"
    assert versions.export_version(1, out)
    old = json.loads(out.read_text(encoding="utf-8"))
    assert next(c for c in old["codes"] if c["key"] == "affective")["label"] != \
        "Affective understanding (feelings)"
    versions.new.setCurrentIndex(0)
    assert "no difference in what the codes mean" in versions.diff.toPlainText()


def test_removing_a_used_level_is_refused_and_the_form_reverts(
        qtbot: Any, coded: Project, model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    editor.select_code("affective")
    form = editor.form
    assert form.levels.rowCount() == 5
    form.levels_view.setCurrentIndex(form.levels.index(1, 0))  # level 2, used by alice
    form.remove_level_button.click()
    assert editor.message.kind == "error"
    assert "2" in editor.message.text() and "used" in editor.message.text()
    assert form.levels.rowCount() == 5  # reverted
    assert [lv.value for lv in stored(coded, "affective").levels] == [1, 2, 3, 4, 5]

    # an unused level can go
    form.levels_view.setCurrentIndex(form.levels.index(4, 0))
    form.remove_level_button.click()
    assert editor.message.kind == "ok"
    assert [lv.value for lv in stored(coded, "affective").levels] == [1, 2, 3, 4]


def test_kind_of_a_used_code_cannot_change(qtbot: Any, coded: Project,
                                           model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    editor.select_code("affective")
    editor.form.kind_combo.setCurrentText("nominal")
    assert editor.message.kind == "error" and "kind cannot change" in editor.message.text()
    assert editor.form.kind_combo.currentText() == "ordinal"
    assert stored(coded, "affective").kind == "ordinal"


def test_invalid_input_is_explained_inline_and_not_saved(qtbot: Any, coded: Project,
                                                         model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    editor.select_code("cognitive")
    editor.form.shortcut_edit.setText("A")  # taken by affective
    editor.form.shortcut_edit.editingFinished.emit()
    assert editor.message.kind == "error" and "shortcut 'A'" in editor.message.text()
    assert stored(coded, "cognitive").shortcut == "C"
    editor.form.levels.setData(editor.form.levels.index(0, 0), "one")
    assert "whole number" in editor.message.text()
    assert [lv.value for lv in stored(coded, "cognitive").levels] == [1, 2, 3, 4, 5]


def test_add_a_new_code(qtbot: Any, coded: Project, model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    new = NewCodeDialog([c.key for c in coded.codebook.codes], editor)
    qtbot.addWidget(new)
    new.key_edit.setText("Validation")
    new.accept()
    assert new.result() != new.DialogCode.Accepted and "lower-case" in new.message.text()
    new.key_edit.setText("validation")
    new.label_edit.setText("Validation")
    new.kind_combo.setCurrentText("binary")
    new.unit_combo.setCurrentText("sentence")
    new.accept()
    assert new.code is not None
    assert editor.add_code(new.code)
    code = stored(coded, "validation")
    assert (code.kind, code.unit, code.values) == ("binary", "sentence", [0, 1])
    assert editor.current_key() == "validation"
    assert editor.model.rowCount() == 9


def test_add_button_asks_for_the_new_code(qtbot: Any, coded: Project, monkeypatch: Any,
                                          model_checks: ModelChecks) -> None:
    class FilledIn(NewCodeDialog):
        def exec(self) -> int:
            self.key_edit.setText("strategy")
            self.kind_combo.setCurrentText("nominal")
            self.levels_edit.setText("question,reflection,advice")
            self.accept()
            return self.result()

    monkeypatch.setattr(codebook_editor, "NewCodeDialog", FilledIn)
    editor = open_editor(qtbot, coded, model_checks)
    editor.add_button.click()
    assert stored(coded, "strategy").values == ["question", "reflection", "advice"]
    assert editor.form.key_edit.text() == "strategy"


def test_retire_and_unretire(qtbot: Any, coded: Project, model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    editor.select_code("relational")
    editor.retire_button.click()
    assert stored(coded, "relational").retired
    row = editor.model.row_of("relational")
    assert editor.model.index(row).data(RETIRED_ROLE) is True
    assert "(retired)" in editor.model.index(row).data()
    assert editor.model.index(row).data(Qt.ItemDataRole.ForegroundRole) is not None
    assert editor.retire_button.text() == "Unretire"
    editor.retire_button.click()
    assert not stored(coded, "relational").retired


def test_only_unused_codes_can_be_deleted(qtbot: Any, coded: Project,
                                          model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    editor.select_code("affective")
    assert not editor.delete_button.isEnabled()
    editor.select_code("interest")
    assert editor.delete_button.isEnabled()
    assert editor.delete_current(confirm=False)
    assert coded.codebook.get("interest") is None
    assert editor.model.row_of("interest") == -1


def test_reorder_codes(qtbot: Any, coded: Project, model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    editor.select_code("relational")
    assert editor.move_current(-1)
    with Project.open(coded.path, backup=False) as other:
        keys = [c.key for c in other.codebook.codes]
    assert keys[-2:] == ["relational", "contextual"]
    assert editor.current_key() == "relational"
    assert editor.model.keys() == keys
    # what a drag in the list does: overall dropped below cognitive
    assert editor.model.moveRows(QModelIndex(), 0, 1, QModelIndex(), 3)
    with Project.open(coded.path, backup=False) as other:
        assert [c.key for c in other.codebook.codes][:3] == ["affective", "cognitive", "overall"]


def test_codebook_file_round_trip(qtbot: Any, coded: Project, tmp_path: Path,
                                  model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    out = tmp_path / "book.json"
    assert editor.export_codebook_file(out)
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [c["key"] for c in data["codes"]][:2] == ["overall", "affective"]
    data["codes"][2]["label"] = "Cognitive understanding (goals)"
    out.write_text(json.dumps(data), encoding="utf-8")
    assert editor.import_codebook_file(out)
    assert stored(coded, "cognitive").label == "Cognitive understanding (goals)"
    assert "8 updated" in editor.message.text()

    data["codes"][1]["levels"] = data["codes"][1]["levels"][2:]  # drops level 2, in use
    out.write_text(json.dumps(data), encoding="utf-8")
    assert not editor.import_codebook_file(out)
    assert editor.message.kind == "error"
    assert [lv.value for lv in stored(coded, "affective").levels] == [1, 2, 3, 4, 5]


def test_codebook_files_are_never_the_project_file(qtbot: Any, coded: Project,
                                                         model_checks: ModelChecks) -> None:
    editor = open_editor(qtbot, coded, model_checks)
    for target in (coded.path, coded.path.with_name(coded.path.name + "-wal")):
        if not target.exists():
            continue
        assert not editor.export_codebook_file(target)
        assert editor.message.kind == "error" and "open project file" in editor.message.text()
        assert not editor.import_codebook_file(target)
        assert editor.message.kind == "error" and "open project file" in editor.message.text()
    with Project.open(coded.path, backup=False) as other:
        assert [c.key for c in other.codebook.codes][:2] == ["overall", "affective"]


def test_codebook_editor_reads_and_writes_refi_qdc(qtbot: Any, coded: Project, tmp_path: Path,
                                                  model_checks: ModelChecks) -> None:
    from sense7_coder.domain.refi.qdc import load_qdc

    editor = open_editor(qtbot, coded, model_checks)
    assert editor.import_codebook_file(Path(__file__).parent / "refi" / "atlas-style.qdc")
    assert "3 codes added" in editor.message.text()
    assert stored(coded, "warmth").kind == "ordinal"
    assert editor.model.keys().count("warmth") == 1
    out = tmp_path / "book.qdc"
    assert editor.export_codebook_file(out)
    assert [c.key for c in load_qdc(out).codes][-3:] == ["warmth", "self_disclosure",
                                                         "self_disclosure_2"]
