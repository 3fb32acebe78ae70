"""About box, keyboard shortcuts and the user guide (shown offline from README.md)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import PySide6
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from .. import __version__
from ..domain.codebook.codes import Codebook
from ..domain.versions import ABOUT_LIBRARIES, library_versions
from ..project import sqlite_version
from .screen import fit_to_screen

SHORTCUTS = """
### Coding the focused code
| Key | Does |
|---|---|
| 1 … 9 | set the level (ordinal codes: the level value; nominal: the n-th choice); the focus then moves to the next code (*Coding › Move to the next code after rating*, on by default), and a ↓ right after that stays on it |
| 0 or N | not applicable |
| Delete, Backspace | clear the value |
| Space | toggle a present/absent code |
| ↑ ↓, Tab | move between codes (past the last one, Tab goes on to the next panel) |
| a code's letter | jump to that code (shown beside its name) |

### Moving
| Key | Does |
|---|---|
| Ctrl+Enter or D | mark the turn done and go to your next unfinished turn (codes left empty: the first press names them, the second marks it done; with blind coding a coder then sees the users' ratings and others' values, and the next press goes on; a lead goes straight on) |
| Ctrl+H | the history of this turn |
| Ctrl+Shift+F | retrieve every unit coded with a code or value |
| Ctrl+Shift+Enter | mark the turn not done |
| PgDown / PgUp, Ctrl+↓ / Ctrl+↑ | next / previous turn |
| Ctrl+J | next unfinished turn |
| Alt+↓ / Alt+↑ | next / previous sentence (sentence-level codes) |
| Ctrl+PgDown / Ctrl+PgUp | next / previous conversation |
| Ctrl+F | search conversations (Enter opens the first match, Esc goes back to the codes) |
| Ctrl+M, Esc | write a memo, back to the codes |
| Ctrl+R | a rationale for the focused code's value (Enter saves, Esc leaves it) |
| F2, Esc | a text cursor in the current turn (Shift+arrows select, a span code's key marks the selection), back to the codes |
| Tab, Shift+Tab | every panel in turn: codes, memo, list, transcript (framed when it has the focus) |

### Coding spans (span codes)
| Key | Does |
|---|---|
| F2 | put a text cursor at the start of the turn's message |
| Shift+← → ↑ ↓, Ctrl+Shift+← → | select text (Ctrl: word by word) |
| a span code's letter | mark the selection with that code |
| Shift+Alt+→ / Shift+Alt+← | grow / shrink the end of your span at the text cursor by a character (Ctrl+Shift+Alt: by a word); Ctrl+Z undoes each step |
| Menu key, Shift+F10 | mark with any span code; recode, resize, memo or delete the span under the cursor |
| Esc | back to the codes |

### Windows
| Key | Does |
|---|---|
| Ctrl+I | import conversations |
| Ctrl+Shift+B | edit the codebook |
| Ctrl+Shift+K | switch coder |
| Ctrl+L | show or hide the conversation list |
| Ctrl+Shift+M | the last 50 status-bar messages, whole, with their times (or click the status bar) |
| Ctrl+Shift+A, Ctrl+Shift+R | agreement, reconciliation (Ctrl+W closes them; Ctrl+Enter runs the agreement) |
| Ctrl+E | export as CSV |

### Never lose work
Every change is saved at once. Ctrl+Z undoes, Ctrl+Shift+Z redoes, and the view moves to
the turn that changed.
"""


def shortcuts_and_guide(codebook: Codebook | None, focused: str | None = None) -> str:
    """What F1 shows: with a project open, the coding guide (the focused code first, then
    every code with its level anchors) above the keyboard shortcuts."""
    if codebook is None:
        return SHORTCUTS
    from ..domain.guide import code_guide, codebook_guide

    code = codebook.get(focused) if focused else None
    first = f"## The code you are on\n\n{code_guide(code)}\n\n" if code is not None else ""
    return f"{first}{codebook_guide(codebook)}\n\n## Keyboard shortcuts\n{SHORTCUTS}"


def versions() -> dict[str, str]:
    """What Help > About lists: the app, Qt, Python, SQLite and the libraries that compute,
    read, write and draw (from their installed metadata, as the methods paragraph does)."""
    return {
        "sense7-coder": __version__,
        "Qt": qVersion(),
        "PySide6": PySide6.__version__,
        "Python": sys.version.split()[0],
        "SQLite": sqlite_version(),
        **library_versions(ABOUT_LIBRARIES),
    }


def about_html() -> str:
    rows = "".join(f"<tr><td>{k}&nbsp;&nbsp;</td><td>{v}</td></tr>" for k, v in versions().items())
    return (
        "<h3>sense7-coder</h3>"
        "<p>Offline qualitative coding of human–AI conversations for empathy research "
        "(the SENSE-7 taxonomy), with agreement, reconciliation and tidy export.</p>"
        f"<table>{rows}</table>"
    )


def readme_path() -> Path | None:
    here = Path(__file__).resolve().parents[2] / "README.md"
    if here.exists():
        return here
    shared = Path(sys.prefix) / "share" / "sense7-coder" / "README.md"
    return shared if shared.exists() else None


def user_guide_markdown() -> str:
    """The README's user guide section (or the whole README when it has none)."""
    path = readme_path()
    if path is None:
        return "# User guide\n\nThe README with the user guide was not found in this installation."
    text = path.read_text(encoding="utf-8")
    match = re.search(r"^(#{1,3}) .*user guide.*$", text, flags=re.IGNORECASE | re.MULTILINE)
    if not match:
        return text
    level = len(match.group(1))
    rest = text[match.end():]
    end = re.search(rf"^#{{1,{level}}} ", rest, flags=re.MULTILINE)
    return text[match.start(): match.end() + (end.start() if end else len(rest))]


class MarkdownDialog(QDialog):
    def __init__(self, title: str, markdown: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        fit_to_screen(self, 760, 640)
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(True)
        self.browser.setMarkdown(markdown)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
