"""Messages free of front ends: the lower layers never name a command-line option; a way
out travels as a structured hint that the command line and the window each word."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from sense7_coder.cli import main
from sense7_coder.cli.wording import error_text as cli_text
from sense7_coder.domain.errors import Hint, InputError, ProjectError
from sense7_coder.domain.importers import ImportOptions, read_files
from sense7_coder.ui.wording import error_text as window_text

ROOT = Path(__file__).resolve().parents[1] / "sense7_coder"
#: a command-line option as a user types it (not an em dash written as two hyphens)
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")


def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant in a module but its docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef
                          | ast.ClassDef)
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs]


def test_no_command_line_option_in_the_lower_layers_messages() -> None:
    found = [f"{path.relative_to(ROOT.parent)}:{line}: {text[:70]!r}"
             for layer in ("domain", "store", "project")
             for path in sorted((ROOT / layer).rglob("*.py"))
             for line, text in _strings(path) if FLAG.search(text)]
    assert not found, "\n".join(found)


def test_the_check_sees_a_flag(tmp_path: Path) -> None:
    """The check itself can fail: an option in a message is found, one in a docstring or
    an em dash typed as two hyphens is not."""
    probe = tmp_path / "probe.py"
    probe.write_text('"""Use --roles here."""\nX = "give --roles NAME=user"\n'
                     'Y = "a -- b"\n', encoding="utf-8")
    assert [bool(FLAG.search(text)) for _, text in _strings(probe)] == [True, False]


def _unknown_speaker(tmp_path: Path) -> InputError:
    path = tmp_path / "chat.csv"
    path.write_text("conversation_id,speaker,text\nc1,Coach,hello\nc1,Client,hi\n",
                    encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_files([path], ImportOptions())
    return e.value


def test_an_unknown_speaker_is_worded_by_each_front_end(tmp_path: Path) -> None:
    error = _unknown_speaker(tmp_path)
    assert error.hint == Hint("roles", "Coach=user",
                              "say which role 'Coach' has (user, assistant or system)")
    assert "--" not in str(error)  # the plain words name no front end
    assert cli_text(error).endswith(
        "unknown speaker 'Coach'; say which role 'Coach' has (user, assistant or system) "
        "(--roles Coach=user)")
    assert window_text(error).endswith(
        "unknown speaker 'Coach'; say which role 'Coach' has (user, assistant or system) "
        "(on the Speakers tab)")
    assert "--" not in window_text(error)


def test_a_missing_column_and_a_foreign_encoding_each_front_end_words(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("conversation_id,role,words\nc1,user,hi\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_files([path], ImportOptions())
    assert cli_text(e.value).endswith("name the column for text (--map text=COLUMN)")
    assert window_text(e.value).endswith(
        "name the column for text (choose the column for text on the Columns tab)")
    path = tmp_path / "latin.csv"
    path.write_bytes("conversation_id,role,text\nc1,user,caf\u00e9\n".encode("latin-1"))
    with pytest.raises(InputError) as e:
        read_files([path], ImportOptions())
    assert cli_text(e.value).endswith("re-save it as UTF-8; or read it as latin-1 "
                                      "(--encoding latin-1)")
    assert "--encoding" not in window_text(e.value)
    assert "the window reads UTF-8 only" in window_text(e.value)


def test_a_refusal_of_the_project_is_worded_by_each_front_end() -> None:
    from sense7_coder.project.hints import AS_LEAD

    error = ProjectError("only a lead (an adjudicator) can assign conversations", hint=AS_LEAD)
    assert str(error).endswith("; name who you are")
    assert cli_text(error).endswith("; name who you are (--as NAME)")
    assert window_text(error).endswith(
        "; name who you are (choose who you are with Coding › Switch coder)")


def test_the_command_line_prints_its_own_wording(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "p.sense7"
    assert main(["init", str(project)]) == 0
    capsys.readouterr()
    path = tmp_path / "chat.csv"
    path.write_text("conversation_id,speaker,text\nc1,Coach,hello\n", encoding="utf-8")
    assert main(["import", str(project), str(path)]) == 2
    err = capsys.readouterr().err
    assert "unknown speaker 'Coach'" in err and "(--roles Coach=user)" in err


@pytest.mark.gui
def test_the_import_dialog_shows_the_window_wording(qtbot: Any, demo_project: Path,
                                                    tmp_path: Path) -> None:
    from sense7_coder.project import Project
    from sense7_coder.ui.dialogs.import_check import check_import

    path = tmp_path / "chat.csv"
    path.write_text("conversation_id,speaker,text\nc1,Coach,hello\n", encoding="utf-8")
    with Project.open(demo_project) as project:
        check = check_import(project, [path], ImportOptions(), lambda *_: None, lambda: False)
    [problem] = [m.text for m in check.messages() if m.kind == "error"]
    assert "on the Speakers tab" in problem and "--" not in problem
    assert check.speakers() == {"Coach": None}


def test_a_choice_of_values_reads_as_the_help_shows_it(tmp_path: Path) -> None:
    from sense7_coder.domain.export.formats import table_format
    from sense7_coder.domain.files import ExportError

    with pytest.raises(ExportError) as e:
        table_format(tmp_path / "x.ods")
    assert cli_text(e.value).endswith("or choose the format (--to csv|xlsx|sav)")
    assert window_text(e.value).endswith("(choose the file type when you save)")
    assert cli_text(ProjectError("x", hint=Hint("roles", "Ann Lee=user"))).endswith(
        "give --roles 'Ann Lee=user'")
