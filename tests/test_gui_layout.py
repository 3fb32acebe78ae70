"""A day in the window: on a laptop screen every code, the focused code's guidance and the
key hints are in view without scrolling, while the others' values and the users' ratings show."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QWidget

pytestmark = pytest.mark.gui


def _in_view(panel: QWidget, widget: QWidget) -> bool:
    """The widget's whole rectangle lies inside the part of the panel a person sees."""
    viewport = panel.viewport()  # type: ignore[attr-defined]
    top_left = widget.mapTo(viewport, widget.rect().topLeft())
    return viewport.rect().contains(QRect(top_left, widget.size()))


@pytest.mark.parametrize("size", [(1280, 800), (1366, 768)])
def test_every_code_guidance_and_hint_in_view_on_a_laptop(gui, qtbot, demo_project: Path,
                                                          size: tuple[int, int]) -> None:
    w = gui.open(demo_project)
    ws = w.workspace
    if w.project.blind_coding:
        w.actions_.blind.trigger()  # the others' values show
    w.resize(*size)
    qtbot.waitUntil(lambda: (w.width(), w.height()) == size, timeout=2000)
    assert ws.go_to("103", 2)  # three coders' values and the user's ratings on this turn
    coding = ws.coding
    keys = coding.visible_keys()
    assert len(keys) == 8  # the seven SENSE-7 dimensions and the overall rating
    # the demo's tactic span codes are marked on the text, not rated here: off the panel
    assert sum(c.unit == "span" for c in w.project.codebook.active) == 10
    assert not set(keys) & {c.key for c in w.project.codebook.active if c.unit == "span"}
    assert all("alice" in coding.rows[k].others_label.text() for k in keys)
    assert ws.ratings.isVisible() and "very poor" in ws.ratings.shown_text()
    for step, key in enumerate(keys):
        if step:
            gui.press(w, Qt.Key.Key_Down)
        qtbot.wait(10)
        assert coding.focused_key == key
        assert coding.verticalScrollBar().maximum() == 0, f"the codes scroll with {key} focused"
        for k in keys:
            row = coding.rows[k]
            assert row.isVisible() and _in_view(coding, row), f"{k} is out of view"
            assert _in_view(coding, row.others_label)
        assert coding.hint.isVisible() and _in_view(coding, coding.hint)
        guidance = coding.rows[key].description
        shown = guidance.texts()
        # the focused code's level anchors are where the eye is, at least "1 …" and "5 …"
        code = coding.rows[key].code
        assert guidance.isVisible() and _in_view(coding, guidance)
        assert any(t.startswith("1 very poor: ") for t in shown), shown
        assert any(t.startswith("5 very good: ") for t in shown), shown
        assert code.levels[0].description.split()[0] in " ".join(shown)


def test_f1_lists_every_codes_anchors_the_focused_code_first(gui, monkeypatch,
                                                            demo_project: Path) -> None:
    from sense7_coder.ui import help as help_module

    shown: list[str] = []

    def fake_exec(dialog) -> int:
        shown.append(dialog.browser.toPlainText())
        return 0

    monkeypatch.setattr(help_module.MarkdownDialog, "exec", fake_exec)
    w = gui.open(demo_project)
    gui.press(w, "A")  # affective
    gui.press(w, Qt.Key.Key_F1)
    assert len(shown) == 1
    text = shown[0]
    first = text.index("The code you are on")
    assert text.index("Affective understanding", first) < text.index("Overall empathy")
    codebook = w.project.codebook
    for code in codebook.active:  # every code, every anchor, its include/exclude notes
        assert code.label in text
        for lv in code.levels:  # an ordinal level by number and name, others by name
            name = f"{lv.value} {lv.label}" if code.kind == "ordinal" else lv.label
            assert f"{name}: {' '.join(lv.description.split())}" in text
        assert " ".join(code.exclude.split()) in text
    assert "Keyboard shortcuts" in text and "not applicable" in text


def test_the_guide_shows_codebook_text_literally(qapp) -> None:
    from sense7_coder.domain.codebook.codes import Code, Codebook, Level
    from sense7_coder.ui.help import shortcuts_and_guide

    code = Code("x", "*Warmth* <b>bold</b>", levels=[Level(1, "low_ish", "# not a heading"),
                                                     Level(2, "high", "[a](link)")],
                include="`tick` | pipe", shortcut="W")
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setMarkdown(shortcuts_and_guide(Codebook("b", [code], title="Pilot_1")))
    text = doc.toPlainText()
    assert "*Warmth* <b>bold</b> (key W)" in text
    assert "1 low_ish: # not a heading" in text and "2 high: [a](link)" in text
    assert "Include: `tick` | pipe" in text and "Coding guide: Pilot_1" in text


def test_a_scale_stays_together_with_or_without_others_beside_it(qtbot) -> None:
    from sense7_coder.domain.codebook.codes import Code, Level
    from sense7_coder.ui.workspace.code_row import CodeRow

    code = Code("advice", "Advice", kind="binary", allow_na=False,
                levels=[Level(0, "absent"), Level(1, "present")], shortcut="A")
    row = CodeRow(code)
    qtbot.addWidget(row)
    row.resize(460, row.sizeHint().height())
    row.show()
    qtbot.waitExposed(row)
    for others in (None, "Others: alice <b>present</b> · bashir <b>absent</b>"):
        row.set_others(others)
        qtbot.wait(20)
        absent, present = row.buttons
        gap = present.geometry().left() - absent.geometry().right()
        assert 0 < gap <= 6, gap  # side by side, not spread over the row
        if others:
            assert row.others_label.geometry().left() > present.geometry().right()
