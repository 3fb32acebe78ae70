"""Regenerate the README screenshots in this folder from the bundled demo project.

Run it from anywhere, headless::

    QT_QPA_PLATFORM=offscreen python docs/screenshots/make_screenshots.py [--out DIR]

or on a virtual X server of laptop size::

    xvfb-run -s "-screen 0 1280x800x24" python docs/screenshots/make_screenshots.py

It builds the demo project (``sense7_coder.project.demo.build_demo``) in a temporary folder,
keeps the window's settings in a temporary INI file (``SENSE7_CODER_SETTINGS``) so that the
user's own recent files and layout are never touched, drives the real windows through the
same public methods the GUI tests use, waits for their background tasks, and saves:

``welcome.png``          the welcome screen with two recent projects
``workspace.png``        the demo coded as *dana*, mid-way through an assistant turn
``workspace-1366x768.png``  the same on the most common laptop screen (all codes still in view)
``workspace-200pct.png``  the same at 200% scaling (QT_SCALE_FACTOR=2, a second process)
``workspace-contrast.png``  the same with the high-contrast palette (SENSE7_CODER_CONTRAST=1)
``workspace-dark.png``   the same with the dark palette (a second process, SENSE7_CODER_DARK=1)
``import-dialog.png``    the demo's Tasks.csv + Messages.csv checked in the import dialog
``codebook-editor.png``  the SENSE-7 codebook in the codebook editor
``agreement.png``        agreement among the demo's coders and with the users (1000 draws, seed 0)
``reconcile.png``        the reconciliation window, adjudicating with some decisions made
``spans.png``            span coding: bashir's tactic spans on conversation 101 tinted in
                         their codes' colours, alice's underlined, a new stretch selected
``analysis.png``         the Analysis window: the users' ratings over the course of the
                         conversations, after the baseline predictor was trained
``suggestions.png``      the workspace showing a model's suggestions on each code's row
                         (allowed by the lead; one taken with Y, two models apart on one code)

Main windows are grabbed at 1280x800, dialogs at the size they take on a 1280x800 screen.
With the offscreen platform the script gives Qt a 1280x800 screen itself. ``--only NAME ...``
makes just some of them (names without ``.png``).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
if str(REPO) not in sys.path and (REPO / "sense7_coder").is_dir():
    sys.path.insert(0, str(REPO))  # a source checkout that is not installed

SHOTS = ("welcome", "workspace", "workspace-1366x768", "workspace-dark", "workspace-200pct",
         "workspace-contrast", "import-dialog", "codebook-editor",
         "agreement", "reconcile", "analysis", "suggestions", "spans")
WIDTH, HEIGHT = 1280, 800
#: the folder the temporary one is shown as on the welcome screen (a README should not show
#: a random temporary path); only the displayed text changes, the files are the real ones
SHOWN_HOME = "/home/researcher"
DARK_ENV = "SENSE7_CODER_DARK"
#: the shots made by a second process with these settings
CHILD_SHOTS = {"workspace-dark": {DARK_ENV: "1"},
               "workspace-200pct": {"QT_SCALE_FACTOR": "2"},
               "workspace-contrast": {"SENSE7_CODER_CONTRAST": "1"}}
CHILD_ENV = "SENSE7_SCREENSHOTS_CHILD"
SETTINGS_ENV = "SENSE7_CODER_SETTINGS"
PLATFORM_ASKED = "SENSE7_SCREENSHOTS_PLATFORM"  # the platform asked for, before laptop_screen

# The turn the workspace shows: conversation 103, where the user said the assistant "ignored
# that I was upset"; dana has finished 101 and 102 and is half-way through this turn.
WORK_CONVERSATION, WORK_TURN = "103", 2
WORK_KEYS = ("2", "1", "2", "2")  # overall, affective, cognitive, response (auto-advance)
WORK_MEMO = ("Lists generic tips; never acknowledges that she is upset about the review. "
             "Compare with turn 6.")
FINISHED = ("101", "102")
# The code the codebook editor shows (its texts fit their boxes at 1280x800)
EDITOR_CODE = "response"
# The unit the reconciliation window shows, open, with the coders' memos on it.
REVIEW_CONVERSATION, REVIEW_TURN, REVIEW_CODE = "101", 4, "interest"
REVIEW_MEMOS = {
    "alice": "Ends with a real question about her situation, not only about the report.",
    "bashir": "The closing question is about the manager's format: a task follow-up.",
}


# -- Qt set-up ------------------------------------------------------------------------------------

def laptop_screen(folder: Path) -> None:
    """Give the offscreen platform a 1280x800 screen (its default is smaller)."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    os.environ.setdefault(PLATFORM_ASKED, platform)
    if platform.split(":")[0] != "offscreen" or "configfile" in platform:
        return
    config = folder / "screen.json"
    scale = float(os.environ.get("QT_SCALE_FACTOR", "1") or 1)  # 200%: twice the pixels
    config.write_text(json.dumps({"screens": [{  # wide enough for the 1366x768 one too
        "name": "laptop", "x": 0, "y": 0, "width": round(1366 * scale),
        "height": round(HEIGHT * scale),
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}), encoding="utf-8")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"


def quiet_platform_notes() -> None:
    """Drop the offscreen platform's notes that it cannot raise windows (they are harmless)."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(_kind: Any, _context: Any, message: str) -> None:
        if "This plugin does not support" not in message:
            print(message, file=sys.stderr)

    qInstallMessageHandler(handler)


def settle(ms: int = 100) -> None:
    """Let Qt lay out, paint and deliver queued signals for a moment."""
    from PySide6.QtCore import QCoreApplication, QEventLoop

    end = time.monotonic() + ms / 1000
    while time.monotonic() < end:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.005)


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 10.0) -> None:
    end = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > end:
            raise RuntimeError(f"timed out waiting for {what}")
        settle(20)


def show(widget: Any, size: tuple[int, int] | None = None) -> None:
    """Show a top-level window at ``size`` (or the size it chose), laid out and painted."""
    from PySide6.QtCore import QRect

    from sense7_coder.ui.screen import fitted_size

    if size is not None:
        widget.resize(*size)
    else:  # a dialog: the size it takes on a 1280x800 screen (whatever this screen is)
        widget.resize(fitted_size(widget.width(), widget.height(), QRect(0, 0, WIDTH, HEIGHT)))
    widget.show()
    widget.raise_()
    widget.activateWindow()
    settle(300)


def save(widget: Any, out: Path, name: str) -> Path:
    settle(150)
    path = out / f"{name}.png"
    if not widget.grab().save(str(path), "PNG", 0):  # 0: the smallest PNG
        raise RuntimeError(f"could not write {path}")
    print(f"{path}  {widget.width()}x{widget.height()}  {path.stat().st_size // 1024} KB")
    return path


def press(*keys: Any, modifier: Any = None) -> None:
    """Type where a person's keys would go: the widget that has the focus."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    mod = modifier if modifier is not None else Qt.KeyboardModifier.NoModifier
    for key in keys:
        target = QApplication.focusWidget()
        if target is None:
            raise RuntimeError("no widget has the keyboard focus")
        if isinstance(key, str):
            QTest.keyClicks(target, key, mod)
        else:
            QTest.keyClick(target, key, mod)
        settle(30)


# -- the projects ---------------------------------------------------------------------------------

def team_values() -> dict[tuple[str, int], dict[str, int | None]]:
    """Per turn of the demo, the median of the three demo coders' values (None: n/a)."""
    from sense7_coder.resources import demo_dir

    given: dict[tuple[str, int, str], list[int | None]] = defaultdict(list)
    with (demo_dir() / "codings.csv").open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            value = None if row["value"] == "NA" else int(row["value"])
            given[(row["conversation_id"], int(row["turn"]), row["code"])].append(value)
    turns: dict[tuple[str, int], dict[str, int | None]] = defaultdict(dict)
    for (cid, turn, code), values in given.items():
        numbers = [v for v in values if v is not None]
        turns[(cid, turn)][code] = (round(statistics.median(numbers))
                                    if len(numbers) * 2 > len(values) else None)
    return turns


def code_finished_conversations(path: Path, coder: str) -> None:
    """``coder`` has coded and finished the first conversations (through the project API)."""
    from sense7_coder.domain.models import Unit
    from sense7_coder.project import Project

    with Project.open(path, backup=False) as project:
        project.set_coder(coder)
        for (cid, turn), values in sorted(team_values().items()):
            if cid not in FINISHED:
                continue
            for code, value in values.items():
                project.set_value(Unit(cid, turn), code, value)
            project.set_done(cid, turn, True)


def add_memos(path: Path) -> None:
    """The demo coders' memos on the unit the reconciliation window shows."""
    from sense7_coder.domain.models import Unit
    from sense7_coder.project import Project

    with Project.open(path, backup=False) as project:
        for coder, text in REVIEW_MEMOS.items():
            project.set_coder(coder)
            project.set_memo(Unit(REVIEW_CONVERSATION, REVIEW_TURN), text)


class Studio:
    """The temporary folder, its projects and one main window."""

    def __init__(self, root: Path) -> None:
        from sense7_coder.project.demo import build_demo

        self.root = root
        self.docs = root / "Documents" / "empathy-study"
        self.docs.mkdir(parents=True)
        self.demo = build_demo(self.docs)
        self.team = self.docs / "team-coding.sense7"  # the demo as the three coders left it
        shutil.copyfile(self.demo, self.team)
        self.pilot = self.docs / "pilot-study.sense7"  # empty, waiting for its import
        add_memos(self.team)
        self._window: Any = None
        self.coded = False
        self.typed = ""  # the code focused after typing the workspace's keys

    def create_pilot(self) -> None:
        from sense7_coder.project import Project
        from sense7_coder.resources import resolve_codebook

        if not self.pilot.exists():
            Project.create(self.pilot, resolve_codebook("sense7")).close()

    @property
    def window(self) -> Any:
        if self._window is None:
            from sense7_coder.ui.main_window import MainWindow

            self._window = MainWindow()
            show(self._window, (WIDTH, HEIGHT))
        return self._window

    def open(self, path: Path, coder: str) -> Any:
        w = self.window
        if not w.open_project(path, coder=coder):
            raise RuntimeError(f"could not open {path}")
        w.activateWindow()
        w.workspace.coding.setFocus()
        wait_until(lambda: w.workspace.coding.hasFocus(), "the codes to take the keyboard")
        return w

    def shown_home(self, text: str) -> str:
        return text.replace(str(self.root.resolve()), SHOWN_HOME).replace(str(self.root),
                                                                          SHOWN_HOME)


# -- the screenshots ------------------------------------------------------------------------------

def shoot_welcome(studio: Studio, out: Path) -> None:
    from sense7_coder.ui.settings import Settings

    studio.create_pilot()
    settings = Settings()
    settings.add_recent(studio.pilot)
    settings.add_recent(studio.team)
    settings.add_recent(studio.demo)
    settings.sync()
    w = studio.window
    w.show_welcome()
    recent = w.welcome.recent
    for i in range(recent.count()):
        item = recent.item(i)
        item.setText(studio.shown_home(item.text()))
    settle(200)
    save(w, out, "welcome")


def shoot_workspace(studio: Studio, out: Path, name: str,
                    size: tuple[int, int] = (WIDTH, HEIGHT)) -> None:
    from PySide6.QtCore import Qt

    if not studio.coded:
        code_finished_conversations(studio.demo, "dana")
        studio.coded = True
    w = studio.open(studio.demo, "dana")
    w.resize(*size)
    settle(200)
    ws = w.workspace
    if w.project.blind_coding:
        w.actions_.blind.trigger()
    if not ws.go_to(WORK_CONVERSATION, WORK_TURN):
        raise RuntimeError(f"no turn {WORK_TURN} in conversation {WORK_CONVERSATION}")
    ws.coding.setFocus()
    wait_until(lambda: ws.coding.hasFocus(), "the codes to take the keyboard")
    if studio.typed:  # a second size of the same moment: back to the code dana is on
        ws.coding.focus_code(studio.typed)
    else:
        press(*WORK_KEYS)
        ws.memo.editor.setFocus()
        wait_until(lambda: ws.memo.editor.hasFocus(), "the memo to take the keyboard")
        press(WORK_MEMO)
        press(Qt.Key.Key_Escape)  # saves the memo and goes back to the codes
        wait_until(lambda: ws.coding.hasFocus(), "Esc to return to the codes")
        if ws.memo.dirty():
            raise RuntimeError("the memo was not saved")
        studio.typed = ws.coding.focused_key or ""
    w.statusBar().clearMessage()
    save(w, out, name)


def shoot_import(studio: Studio, out: Path) -> None:
    from sense7_coder.project import Project
    from sense7_coder.resources import demo_dir
    from sense7_coder.ui.dialogs.import_dialog import ImportDialog

    studio.create_pilot()
    with Project.open(studio.pilot, backup=False) as project:
        dialog = ImportDialog(project, None)
        show(dialog)
        dialog.set_files([demo_dir() / "Tasks.csv", demo_dir() / "Messages.csv"])
        if not dialog.wait_for_check(60):
            raise RuntimeError("the import check did not finish")
        if not dialog.import_button.isEnabled():
            raise RuntimeError("the import check found a problem: "
                               + "; ".join(m.text for m in dialog.message_items()))
        save(dialog, out, "import-dialog")
        dialog.reject()
        dialog.deleteLater()
        settle(50)


def shoot_codebook(studio: Studio, out: Path) -> None:
    from sense7_coder.ui.dialogs.codebook_editor import CodebookEditorDialog

    w = studio.window
    if w.project is None or w.project.path != studio.team:
        studio.open(studio.team, "dana")
    editor = CodebookEditorDialog(w.project, w)
    show(editor)
    editor.select_code(EDITOR_CODE)
    save(editor, out, "codebook-editor")
    editor.reject()
    editor.deleteLater()
    settle(50)


def shoot_agreement(studio: Studio, out: Path) -> None:
    w = studio.window
    if w.project is None or w.project.path != studio.team:
        studio.open(studio.team, "dana")
    panel = w.analysis.agreement()
    show(panel, (WIDTH, HEIGHT))
    panel.bootstrap.setValue(1000)
    panel.seed.setValue(0)
    panel.include_users.setChecked(True)
    panel.filters.lists["coders"].set_all(True)
    task = panel.run()
    if task is None or not panel.wait(300) or panel.error:
        raise RuntimeError(f"the agreement run failed: {panel.error}")
    panel.tabs.setCurrentIndex(0)
    save(panel, out, "agreement")
    panel.close()


def shoot_reconcile(studio: Studio, out: Path) -> None:
    w = studio.window
    if w.project is None or w.project.path != studio.team:
        studio.open(studio.team, "dana")
    panel = w.analysis.reconcile()
    show(panel, (WIDTH, HEIGHT))
    if not panel.wait(60):
        raise RuntimeError("the disagreements were not read")
    panel.become_adjudicator("dana")
    rows = list(panel.queue_model.rows)
    target = next(d for d in rows if (d.unit.conversation_id, d.unit.position, d.code)
                  == (REVIEW_CONVERSATION, REVIEW_TURN, REVIEW_CODE))
    # part-way through: about three in five decided, most by accepting the coders' majority
    for row, d in enumerate(rows):
        if d is target or d.decided or row % 5 in (2, 4):
            continue
        panel.select_row(row)
        if d.has_majority:
            ok = panel.accept_majority()
        else:
            values = sorted(v for v in d.values.values() if isinstance(v, int))
            panel.decision.rationale.setText("no majority: the middle of the coders' values")
            ok = panel.decide(values[len(values) // 2] if values else None)
        if not ok:
            raise RuntimeError(f"could not decide {d.code} on {d.unit}: {panel.status.text()}")
    panel.select_row(panel.queue_model.rows.index(target))
    if not panel.wait(60):
        raise RuntimeError("the agreement with the consensus was not computed")
    panel.queue_view.setFocus()
    settle(200)
    save(panel, out, "reconcile")
    panel.close()


def run_child(out: Path, name: str) -> None:
    env = dict(os.environ, **CHILD_SHOTS[name], **{CHILD_ENV: name})
    env.pop(SETTINGS_ENV, None)
    asked = env.pop(PLATFORM_ASKED, None)
    if asked:
        env["QT_QPA_PLATFORM"] = asked  # the child gives itself its own laptop screen
    elif asked is not None:
        env.pop("QT_QPA_PLATFORM", None)
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--out", str(out),
                    "--only", name], env=env, check=True)


def shoot_analysis(studio: Studio, out: Path) -> None:
    w = studio.window
    if w.project is None or w.project.path != studio.team:
        studio.open(studio.team, "dana")
    panel = w.analysis.analyses()
    show(panel, (WIDTH, HEIGHT))
    folder = studio.root / "analysis"
    panel.out_dir.setText(str(folder))
    task = panel.train_baseline()
    if not task.wait(300) or not panel.wait(60) or panel.error:
        raise RuntimeError(f"the baseline failed: {panel.error}")
    task = panel.run()
    if task is None or not panel.wait(300) or panel.error:
        raise RuntimeError(f"the analyses failed: {panel.error}")
    panel.tabs.setCurrentIndex(0)
    panel.figure_choice.setCurrentIndex(panel.figure_choice.findText("course"))
    settle(200)
    shown = f"{SHOWN_HOME}/team-coding-analysis"
    panel.status.setText(panel.status.text().replace(str(folder), shown))
    panel.out_dir.setText(shown)
    panel.out_dir.setCursorPosition(0)
    save(panel, out, "analysis")
    panel.close()


#: what the model said about turn 2 of conversation 101 (value, rationale), for the screenshot
SUGGESTED: dict[str, tuple[int | None, str]] = {
    "overall": (4, "Warm and on task: it answers the request and acknowledges the stress."),
    "affective": (4, "Names the user's frustration before moving to the fix."),
    "cognitive": (4, "Restates the goal (a deadline on Friday) correctly."),
    "response": (2, "Gives a full plan where the user only asked for a way in."),
    "prosocial": (4, "Offers to work through it together."),
    "interest": (3, "Asks which parts only the user can write, nothing more."),
    "contextual": (3, "Uses the deadline, not the team's situation."),
    "relational": (None, "First assistant turn: nothing earlier to continue."),
}


def shoot_suggestions(studio: Studio, out: Path) -> None:
    from sense7_coder.domain.models import Unit
    from sense7_coder.project import Project
    from sense7_coder.project.suggestions.stored import NewSuggestion, store_run
    from sense7_coder.project.suggestions.view import set_shown_in_workspace

    path = studio.docs / "suggestions.sense7"
    shutil.copyfile(studio.demo, path)
    unit = Unit("101", 2)
    with Project.open(path, backup=False) as p:
        p.set_coder("lee", "adjudicator")
        store_run(p, "baseline", "baseline", "turn", [
            NewSuggestion(unit, "response", "ok", 4, "", spread=0.8)])
        store_run(p, "qwen2.5-7b", "llm", "turn", [
            NewSuggestion(unit, k, "ok", v, why) for k, (v, why) in SUGGESTED.items()],
            api_model="qwen2.5-7b-instruct", endpoint_host="127.0.0.1:8080", requests=1)
        set_shown_in_workspace(p, True)
    w = studio.open(path, "dana")
    ws = w.workspace
    if not ws.go_to("101", 2):
        raise RuntimeError("no turn 2 in conversation 101")
    ws.coding.setFocus()
    wait_until(lambda: ws.coding.hasFocus(), "the codes to take the keyboard")
    press("Y")  # overall: the model's value taken, on to affective
    w.statusBar().clearMessage()
    save(w, out, "suggestions")
def shoot_spans(studio: Studio, out: Path) -> None:
    from PySide6.QtGui import QTextCursor

    w = studio.open(studio.team, "bashir")
    ws = w.workspace
    if not ws.go_to("101", 2):
        raise RuntimeError("no turn 2 in conversation 101")
    view = ws.transcript
    body = view.body_start(2)
    text = view.turn_text(2)
    start = text.index("That is a lot")
    cursor = QTextCursor(view.document())
    cursor.setPosition(body + start)
    cursor.setPosition(body + start + len("That is a lot to carry at once"),
                       QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    view.setFocus()
    w.statusBar().showMessage("Select with Shift+arrows (Ctrl: by word), then press a span "
                              "code's key; Escape returns to the codes")
    settle(200)
    save(w, out, "spans")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for the PNG files")
    parser.add_argument("--only", nargs="+", choices=SHOTS, metavar="NAME",
                        help=f"make only these ({', '.join(SHOTS)})")
    args = parser.parse_args(argv)
    wanted = list(args.only or SHOTS)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    child = os.environ.get(CHILD_ENV, "")
    here = child if wanted == [child] and child in CHILD_SHOTS else ""
    if not here:
        for setting in CHILD_SHOTS.values():  # the others stay light, at 100%
            for key in setting:
                os.environ.pop(key, None)

    root = Path(tempfile.mkdtemp(prefix="sense7-screenshots-"))
    try:
        os.environ[SETTINGS_ENV] = str(root / "settings.ini")
        laptop_screen(root)
        from sense7_coder.ui.app import make_app

        quiet_platform_notes()
        app = make_app([sys.argv[0]])
        studio = Studio(root)
        if here:
            shoot_workspace(studio, out, here)
        else:
            steps: list[tuple[str, Callable[[], None]]] = [
                ("welcome", lambda: shoot_welcome(studio, out)),
                ("workspace", lambda: shoot_workspace(studio, out, "workspace")),
                ("workspace-1366x768", lambda: shoot_workspace(studio, out, "workspace-1366x768",
                                                               (1366, 768))),
                ("import-dialog", lambda: shoot_import(studio, out)),
                ("codebook-editor", lambda: shoot_codebook(studio, out)),
                ("agreement", lambda: shoot_agreement(studio, out)),
                ("reconcile", lambda: shoot_reconcile(studio, out)),
                ("analysis", lambda: shoot_analysis(studio, out)),
                ("suggestions", lambda: shoot_suggestions(studio, out)),
                ("spans", lambda: shoot_spans(studio, out)),
            ]
            for name, step in steps:
                if name in wanted:
                    step()
        if studio._window is not None:
            studio._window.close()
        settle(50)
        app.processEvents()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for name in CHILD_SHOTS:
        if name in wanted and not here:
            run_child(out, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
