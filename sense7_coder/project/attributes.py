"""The attribute sheet of a project: every conversation's attributes (participant, model,
topic and the columns its source carried), seen by anyone (less what blinding hides) and
edited by a lead only, each edit one transaction followed by the history; and the turn
attributes (ESConv's supporter strategy) that the ``long``, ``segments`` and ``final``
exports carry as ``turn_<name>`` columns."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..domain import attributes as attrs
from ..domain import rows
from ..domain.errors import ProjectError
from ..store import attributes as store_attrs
from .changes import NOTHING, Changes
from .project import Project

SHEET_FIXED = ("conversation_id", "participant_id", "model", "topic", "turns")


def attribute_sheet(project: Project) -> pd.DataFrame:
    """One row per conversation: ``conversation_id, participant_id, model, topic, turns``
    and one column per attribute (empty where a conversation lacks it). A coder working
    blind does not see the model or the attributes the lead hid."""
    data = list(store_attrs.sheet_rows(project.db))
    names = sorted({k for *_, a in data for k in a} - set(SHEET_FIXED))
    hidden = {n for n in ("model", *names) if project.hides(n)}
    columns = [c for c in (*SHEET_FIXED, *names) if c not in hidden]
    out = []
    for cid, pid, model, topic, n, a in data:
        row: dict[str, Any] = {"conversation_id": cid, "participant_id": pid or "",
                               "model": model or "", "topic": topic or "", "turns": n}
        for name in names:
            row[name] = a.get(name)
        out.append([row[c] for c in columns])
    return pd.DataFrame(out, columns=columns)


def set_attribute(project: Project, conversation_id: str, name: str, value: Any) -> Changes:
    """Set (``value`` None: remove) one attribute of a conversation. A lead only; checked
    like every imported attribute; one transaction, recorded in the history. What changed:
    the conversation (its attributes), or nothing (false) when the value was already that."""
    project.require_lead("edit conversation attributes")
    try:
        key, value = attrs.checked(name, value)
        rows.conversation_id(conversation_id)
    except rows.RowError as e:
        raise ProjectError(f"{conversation_id}: {e.field}: {e.message}") from None
    if key in ("conversation_id", "turns", "n_turns"):
        raise ProjectError(f"'{key}' is not an attribute that can be edited")
    with project.pdb.atomic():
        before = store_attrs.conversation_attributes(project.db, conversation_id)
        if before is None:
            raise ProjectError(f"no conversation '{conversation_id}' in this project")
        if isinstance(before, str):
            raise ProjectError(f"the attributes of '{conversation_id}' are not a JSON object "
                               "(changed by another program): nothing was changed, so that "
                               "nothing of them is lost")
        if key in attrs.COLUMN_NAMES:
            current = store_attrs.get_column(project.db, conversation_id, key)
            if value is not None and not isinstance(value, str):
                value = attrs.shown(value)
            if current == value:
                return NOTHING
            store_attrs.put_column(project.db, conversation_id, key, value)
            return Changes(conversations=frozenset({conversation_id}))
        after = dict(before)
        if value is None:
            if key not in after:
                return NOTHING
            del after[key]
        else:
            if key in after and after[key] == value and type(after[key]) is type(value):
                return NOTHING
            after[key] = value
        store_attrs.put_attributes(project.db, conversation_id, after)
    return Changes(conversations=frozenset({conversation_id}))


def attribute_history(project: Project, conversation_id: str | None = None
                      ) -> list[dict[str, Any]]:
    """The edits of conversation attributes, oldest first: one row per attribute that
    changed (``code`` its name, ``before``/``after`` its values as a cell shows them)."""
    from ..store import history as store_history
    from ..store.conversations import json_object

    out = []
    for r in store_history.rows(project.db, conversation_id, kinds=("attribute",)):
        if r["code"] is not None:
            changes = [(r["code"], r["before"], r["after"])]
        else:
            old, new = json_object(r["before"]), json_object(r["after"])
            changes = [(k, attrs.shown(old.get(k)) if k in old else None,
                        attrs.shown(new.get(k)) if k in new else None)
                       for k in sorted(old.keys() | new.keys())
                       if k not in old or k not in new or old[k] != new[k]
                       or type(old[k]) is not type(new[k])]
        for name, before, after in changes:
            if project.hides(name):
                continue
            action = "set" if before is None else "clear" if after is None else "change"
            out.append({**r, "code": name, "before": before, "after": after,
                        "action": action})
    return out


def with_turn_attributes(project: Project, table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (with ``conversation_id`` and ``turn`` columns) with one ``turn_<name>``
    column per attribute the turns of its conversations carry; empty where a row is no
    turn or its turn lacks it."""
    if not len(table) or "conversation_id" not in table.columns or "turn" not in table.columns:
        return table
    found = store_attrs.turn_attributes(project.db, set(table["conversation_id"].astype(str)))
    if not found:
        return table
    names = sorted({k for a in found.values() for k in a if not project.hides(k)})
    keys = []
    for cid, turn in zip(table["conversation_id"].astype(str), table["turn"], strict=True):
        try:
            keys.append((cid, int(turn)))
        except (TypeError, ValueError):  # a conversation-level row
            keys.append((cid, -1))
    table = table.copy()
    taken = set(table.columns)
    for name in names:
        column = attrs.turn_column(name, taken)
        taken.add(column)
        table[column] = [attrs.shown(found.get(k, {}).get(name)) for k in keys]
    return table


def filter_choices(project: Project, limit: int = 500) -> dict[str, list[str]]:
    """The conversation attributes a coder may filter on (participant, model and the
    imported ones, less what blinding hides) and the values each takes, as text."""
    sheet = attribute_sheet(project)
    out: dict[str, list[str]] = {}
    for name in sheet.columns:
        if name in ("conversation_id", "turns", "topic"):
            continue
        values = sorted({attrs.shown(v) for v in sheet[name] if v is not None and v == v}
                        - {""}, key=lambda t: (not t.replace(".", "", 1).isdigit(), t))
        if values:
            out[str(name)] = values[:limit]
    return out
