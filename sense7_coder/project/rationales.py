"""Rationales on single values: a coder's short reason for one value (why this level on this
code and unit), written from the code row, read where disagreements are discussed.

Who reads what follows blinding exactly as the values do: a coder always reads their own; the
other coders' rationales are read only where their values are (the reconciliation queue and a
round's review, which need :meth:`Project.require_unblinded`; the ``rationales`` export,
which is a kind that shows what blinding hides). The reads are :func:`own` (a coder's own,
the workspace) and :func:`visible` (everyone's, after ``require_unblinded``): the two places
to route through the project's ``Sight`` once it exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..domain.errors import ProjectError
from ..domain.models import Unit
from ..domain.rows import RATIONALE_CHARS, odd_character
from ..store import codings as store_codings
from ..store import rationales as store
from .changes import Changes
from .project import Project

#: the longest rationale (a reason, not a memo)
MAX_CHARS = RATIONALE_CHARS


def check_text(text: str, where: str) -> str:
    """The rationale as stored: trimmed, one line, no control or invisible characters."""
    text = text.strip()
    if len(text) > MAX_CHARS:
        raise ProjectError(f"{where}: a rationale has at most {MAX_CHARS} characters (this one "
                           f"{len(text):,}); write longer notes in the turn's memo")
    odd = odd_character(text)
    if odd is not None:
        raise ProjectError(f"{where}: the rationale holds {odd}, which a rationale may not "
                           "(line breaks, control or invisible characters)")
    return text


def set_rationale(project: Project, unit: Unit, code_key: str, text: str) -> Changes:
    """Set (an empty ``text``: remove) the current coder's rationale of their value of
    ``code_key`` on ``unit``; one transaction."""
    coder = project.coder
    if coder is None:
        raise ProjectError("choose who you are first: a rationale is a coder's own")
    project.code(code_key)
    where = (f"code '{code_key}' on conversation '{unit.conversation_id}', turn "
             f"{unit.position}" + (f", sentence {unit.sentence}" if unit.sentence else ""))
    text = check_text(text, where)
    with project.pdb.acting("rationale"), project.pdb.atomic() as db:
        if text and store_codings.get_coding(db, coder, unit, code_key) is \
                store_codings.MISSING:
            raise ProjectError(f"{where}: '{coder}' has no value there; a rationale explains "
                               "a value, so give the value first")
        store.put(db, coder, unit, code_key, text)
    return Changes(units=frozenset({(unit.conversation_id, unit.position, unit.sentence)}))


def own(project: Project, conversation_id: str) -> dict[tuple[int, int, str], str]:
    """The current coder's rationales in a conversation: (position, sentence, code) -> text."""
    coder = project.coder
    if coder is None:
        return {}
    found = store.of_conversations(project.db, [conversation_id], coder)
    return {(pos, sent, code): text for (_, _, pos, sent, code), text in found.items()}


def visible(project: Project, conversation_ids: Sequence[str] | None = None
            ) -> dict[tuple[str, str, int, int, str], str]:
    """Every coder's rationales (of some conversations), for one who may see every coder's
    values: (coder, conversation, position, sentence, code) -> text."""
    project.require_unblinded("see the coders' rationales")
    return store.of_conversations(project.db, conversation_ids)


def rationale_table(project: Project) -> Any:
    """The ``rationales`` export: one row per rationale with the value it explains."""
    import pandas as pd

    project.require_unblinded("export the coders' rationales")
    rows = store.all_rows(project.db)
    return pd.DataFrame(rows, columns=["coder", "conversation_id", "turn", "sentence", "code",
                                       "value", "rationale", "updated_at"])
