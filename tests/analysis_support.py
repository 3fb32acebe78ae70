"""Small projects for the agreement, reconciliation, merge and export tests.

A study of four conversations (two participants, two assistants; attribute ``week`` 1 for
c1 and c2, 2 for the others), each with two user and two assistant turns, imported from a
JSONL file written here; the users rated the assistant turns. The codebook is the bundled
``sense7`` one plus a binary turn code (``validation``), a sentence-level binary code
(``question``), a nominal turn code (``strategy``) and an ordinal conversation-level code
(``quality``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sense7_coder.domain.codebook.codes import code_from_dict
from sense7_coder.domain.models import Unit
from sense7_coder.project import Project
from sense7_coder.project.imports import import_files
from sense7_coder.resources import resolve_codebook

EXTRA_CODES = [
    {"key": "validation", "label": "Validation", "kind": "binary", "unit": "turn"},
    {"key": "question", "label": "Question", "kind": "binary", "unit": "sentence"},
    {"key": "strategy", "label": "Strategy", "kind": "nominal", "unit": "turn",
     "levels": [{"value": "advice"}, {"value": "question"}, {"value": "validation"}]},
    {"key": "quality", "label": "Conversation quality", "kind": "ordinal",
     "unit": "conversation"},
]

#: (conversation id, participant, model, user ratings of turn 2 and turn 4 on 'overall';
#: None = not applicable)
CONVERSATIONS = [
    ("c1", "P1", "GPT4", 4, 5),
    ("c2", "P1", "IC", 2, 3),
    ("c3", "P2", "GPT4", 5, None),
    ("c4", "P2", "IC", 1, 2),
]


def na(rating: int | None) -> int | str:
    """None = the user marked the turn not applicable ('unknown' in the SENSE-7 release)."""
    return "unknown" if rating is None else rating


def conversation_lines(
    conversations: Sequence[tuple[str, str, str, int | None, int | None]] = CONVERSATIONS,
) -> str:
    lines = []
    for cid, pid, model, r2, r4 in conversations:
        messages = [
            {"role": "user", "content": f"{cid}: my week is full of meetings."},
            {"role": "assistant",
             "content": f"That sounds draining. Which meeting matters most to you? ({cid})",
             "ratings": {"overall": na(r2), "affective": 4}},
            {"role": "user", "content": "The Monday one. I dread it."},
            {"role": "assistant",
             "content": "Let us plan it together. What outcome would make it worth it?",
             "ratings": {"overall": na(r4), "affective": 3}},
        ]
        week = "1" if cid in ("c1", "c2") else "2"
        lines.append(json.dumps({"conversation_id": cid, "participant_id": pid,
                                 "model": model, "attributes": {"week": week},
                                 "messages": messages}))
    return "\n".join(lines) + "\n"


def codebook() -> Any:
    book = resolve_codebook("sense7")
    book.codes += [code_from_dict(c) for c in EXTRA_CODES]
    return book


def make_project(folder: Path, name: str = "study.sense7",
                 conversations: str | None = None) -> Project:
    """A fresh project with the study's conversations imported (no codings yet)."""
    src = folder / f"{Path(name).stem}-chats.jsonl"
    src.write_text(conversations or conversation_lines(), encoding="utf-8")
    project = Project.create(folder / name, codebook())
    import_files(project, [src])
    return project


def code(project: Project, coder: str, values: dict[tuple[Any, ...], Any],
         done: Sequence[tuple[str, int]] = (), role: str | None = None) -> None:
    """Set ``coder``'s values: {(cid, position, code) or (cid, position, sentence, code): v}."""
    project.set_coder(coder, role)
    for key, value in values.items():
        if len(key) == 3:
            cid, pos, k = key
            unit = Unit(cid, pos)
        else:
            cid, pos, sent, k = key
            unit = Unit(cid, pos, sent)
        project.set_value(unit, k, value)
    for cid, pos in done:
        project.set_done(cid, pos)


def codings(project: Project) -> list[tuple[Any, ...]]:
    """Every stored coding, sorted, as plain tuples (for before/after comparisons)."""
    return sorted(
        tuple(r) for r in project.db.execute(
            "SELECT coder, conversation_id, position, sentence, code, value FROM codings"
        )
    )


def state(project: Project) -> dict[str, Any]:
    """What a project holds, in content (counts plus every coder-owned row)."""
    db = project.db
    return {
        "info": {k: v for k, v in project.info().items() if k != "path"},
        "codings": codings(project),
        "status": sorted(tuple(r) for r in db.execute(
            "SELECT coder, conversation_id, position, done FROM turn_status")),
        "memos": sorted(tuple(r) for r in db.execute(
            "SELECT coder, conversation_id, position, sentence, text FROM memos")),
        "consensus": sorted(tuple(r) for r in db.execute(
            "SELECT conversation_id, position, sentence, code, value FROM consensus")),
        "coders": sorted(tuple(r) for r in db.execute("SELECT name, role FROM coders")),
        "turns": sorted(tuple(r) for r in db.execute(
            "SELECT conversation_id, position, text FROM turns")),
    }
