"""The team tables an export can write (kinds of ``export --kind``):

* ``assignments`` -- ``coder, conversation_id, overlap`` (overlap 1 = coded by every
  assigned coder, for reliability), in each coder's presentation order;
* ``history`` -- every change, oldest first: ``time, coder, action, kind,
  conversation_id, turn, sentence, code, before, after, source, actor, origin``.
  ``action`` is set (nothing before), change or clear (nothing after); ``before`` /
  ``after`` are empty where there was no value and ``NA`` for not applicable; ``kind`` is
  coding, done (1/0), memo (its text), consensus, assignment (the overlap flag) or code
  (its definition). ``coder`` is whose value it is (the adjudicator for the consensus),
  ``actor`` who made the change where that differs or is known, ``source`` how (edit, undo,
  redo, import, import codings, merge FILE, assign, package, codebook, upgrade) and
  ``origin`` the file a merged-in event happened in;
* ``segments`` -- retrieval: ``coder, conversation_id, turn, sentence, code, value,
  level_label, text, start, end, context``, the text being the coded sentence or turn, or
  a span's text with its offsets (code points, end exclusive) and its context in the turn
  (the span in «»);
* ``memos`` -- ``coder, conversation_id, turn, sentence, text, start, end, code``: the
  memos on units, then on spans in the same order, a span memo with its offsets (code
  points, end exclusive) and code (the last three empty for a memo on a unit);
* ``ratings`` -- the users' own ratings, whether or not anyone coded:
  ``conversation_id, participant_id, model, turn, rating, value`` (``NA`` = the user
  marked it not applicable).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...domain.errors import ProjectError
from ...domain.export.tables import NA_TEXT
from ...store import assignments as store_assignments
from ...store import frames
from ...store import history as store_history
from ...store import segments as store_segments
from ...store.conversations import ConversationFilter
from ..project import Project

HISTORY_COLUMNS = ("time", "coder", "action", "kind", "conversation_id", "turn", "sentence",
                   "code", "before", "after", "source", "actor", "origin")
SEGMENT_COLUMNS = ("coder", "conversation_id", "turn", "sentence", "code", "value",
                   "level_label", "text", "start", "end", "context")


def _blank(n: Any) -> Any:
    return "" if n is None or n == 0 else n


def assignments_table(project: Project) -> pd.DataFrame:
    rows = store_assignments.all_assignments(project.db)
    return pd.DataFrame([(r["coder"], r["conversation_id"], int(r["overlap"])) for r in rows],
                        columns=["coder", "conversation_id", "overlap"])


def _shown(action: str, side: str, value: Any) -> Any:
    if (side == "before" and action == "set") or (side == "after" and action == "clear"):
        return ""
    return NA_TEXT if value is None else value


def history_table(project: Project) -> pd.DataFrame:
    project.require_unblinded("see the whole project's history")
    out = []
    for r in store_history.rows(project.db):
        unit = r["kind"] not in ("code",)
        out.append((
            r["at"], r["coder"] or "", r["action"], r["kind"], r["conversation_id"] or "",
            _blank(r["position"]) if unit else "", _blank(r["sentence"]) if unit else "",
            r["code"] or "", _shown(r["action"], "before", r["before"]),
            _shown(r["action"], "after", r["after"]), r["source"], r["actor"] or "",
            r["origin"] or "",
        ))
    return pd.DataFrame(out, columns=list(HISTORY_COLUMNS))


def segments_table(project: Project, *, codes: list[str] | None = None,
                   coders: list[str] | None = None, value: Any = None, with_value: bool = False,
                   conversations: ConversationFilter | None = None) -> pd.DataFrame:
    """Every unit coded with ``codes`` (holding ``value`` when ``with_value``), with its text."""
    book = project.codebook
    out = []
    for coder, cid, pos, sent, key, val, text in store_segments.coded_segments(
            project.db, codes=codes or (), coders=coders or (), value=value,
            with_value=with_value, conversations=conversations):
        code = book.get(key)
        label = "not applicable" if val is None else (code.level_label(val) if code else "")
        out.append((coder, cid, _blank(pos), _blank(sent), key,
                    NA_TEXT if val is None else val, label, text or "", "", "", ""))
    spans = span_segments(project, codes=codes, coders=coders, value=value,
                          with_value=with_value, conversations=conversations)
    table = pd.DataFrame(out + spans, columns=list(SEGMENT_COLUMNS))
    if spans and out:  # the spans among the other units, in conversation order
        from ...store.attributes import sheet_rows

        rank = {row[0]: i for i, row in enumerate(sheet_rows(project.db))}
        order = sorted(range(len(table)), key=lambda i: (
            rank.get(table.at[i, "conversation_id"], -1),
            int(table.at[i, "turn"] or 0)))
        table = table.iloc[order].reset_index(drop=True)
    return table


def span_segments(project: Project, *, codes: list[str] | None = None,
                  coders: list[str] | None = None, value: Any = None,
                  with_value: bool = False, conversations: ConversationFilter | None = None
                  ) -> list[tuple[Any, ...]]:
    """The ``segments`` rows of coded spans: the span's text, its offsets (code points,
    end exclusive) and its context in the turn."""
    from ..spans.queries import span_rows_of

    book = project.codebook
    out = []
    for coder, cid, pos, start, end, key, val, text, context in span_rows_of(
            project, codes=codes, coders=coders, value=value, with_value=with_value,
            conversations=conversations):
        code = book.get(key)
        label = code.level_label(val) if code and val is not None else ""
        out.append((coder, cid, pos, "", key, NA_TEXT if val is None else val, label or "",
                    text, start, end, context))
    return out


MEMO_COLUMNS = ("coder", "conversation_id", "turn", "sentence", "text", "start", "end", "code")


def memos_table(project: Project, *, coders: list[str] | None = None,
                conversations: ConversationFilter | None = None) -> pd.DataFrame:
    """Every memo: on units, and on spans (with the span's offsets and code), in
    conversation and turn order; to a coder working blind (:meth:`.Sight.sees_memo`) only
    their own and those of units open to them."""
    from ...store.spans import table as store_spans

    frame = frames.memos_frame(project.db, coders=coders or (), conversations=conversations)
    units = pd.DataFrame({
        "coder": frame["coder"], "conversation_id": frame["conversation_id"],
        "turn": [_blank(p) for p in frame["position"]],
        "sentence": [_blank(s) for s in frame["sentence"]], "text": frame["text"],
        "start": "", "end": "", "code": "",
    }, columns=list(MEMO_COLUMNS))
    spans = store_spans.spans_frame(project.db, coders=coders or (), conversations=conversations)
    spans = spans[spans["memo"].fillna("").astype(str) != ""]
    if spans.empty:
        return _memos_seen(project, units)
    marked = pd.DataFrame({
        "coder": spans["coder"], "conversation_id": spans["conversation_id"],
        "turn": spans["position"].astype(int), "sentence": "", "text": spans["memo"],
        "start": spans["start"].astype(int), "end": spans["end"].astype(int),
        "code": spans["code"],
    }, columns=list(MEMO_COLUMNS))
    order = frames.conversation_order(project.db)
    both = pd.concat([units, marked], ignore_index=True)
    rank = both["conversation_id"].map(order).fillna(-1)
    turn = pd.to_numeric(both["turn"].replace("", 0), errors="coerce").fillna(0)
    both = both.assign(_c=rank, _t=turn).sort_values(["_c", "_t"], kind="stable")
    return _memos_seen(project, both.drop(columns=["_c", "_t"]).reset_index(drop=True))


def _memos_seen(project: Project, memos: pd.DataFrame) -> pd.DataFrame:
    """The memos the current person may read (:meth:`.Sight.sees_memo`)."""
    sight = project.sight()
    if not sight.works_blind or memos.empty:
        return memos
    turns = pd.to_numeric(memos["turn"].replace("", 0), errors="coerce").fillna(0)
    keep = [sight.sees_memo(c, int(t), w) for c, t, w in
            zip(memos["conversation_id"], turns, memos["coder"], strict=True)]
    return memos[keep].reset_index(drop=True)


def ratings_table(project: Project, *, conversations: ConversationFilter | None = None
                  ) -> pd.DataFrame:
    frame = frames.user_ratings_frame(project.db, conversations=conversations)
    meta = {r[0]: (r[1] or "", r[2] or "") for r in store_segments.conversation_meta(project.db)}
    return pd.DataFrame({
        "conversation_id": frame["conversation_id"],
        "participant_id": [meta.get(c, ("", ""))[0] for c in frame["conversation_id"]],
        "model": [meta.get(c, ("", ""))[1] for c in frame["conversation_id"]],
        "turn": frame["position"], "rating": frame["rating"],
        "value": [NA_TEXT if pd.isna(v) else int(v) for v in frame["value"]],
    }, columns=["conversation_id", "participant_id", "model", "turn", "rating", "value"])


def unit_texts(project: Project, table: pd.DataFrame) -> list[str]:
    """The text of each row's unit in a long table (turn, or sentence; empty for
    conversation-level codes)."""
    wanted = set(table["conversation_id"].astype(str))
    turns = {(cid, pos): text for cid, pos, text in store_segments.turn_texts(project.db)
             if cid in wanted}
    spans = {(r[0], r[1], r[2]): (r[3], r[4]) for r in store_segments.sentence_spans(project.db)
             if r[0] in wanted} if (table["sentence"].astype(str) != "").any() else {}
    out = []
    for cid, turn, sent in zip(table["conversation_id"].astype(str), table["turn"],
                               table["sentence"], strict=True):
        if turn == "" or pd.isna(turn):
            out.append("")
            continue
        text = turns.get((cid, int(turn)), "")
        if sent != "" and not pd.isna(sent) and (cid, int(turn), int(sent)) in spans:
            start, end = spans[(cid, int(turn), int(sent))]
            text = text[start:end]
        out.append(text)
    return out


def turn_history(project: Project, conversation_id: str, position: int) -> list[dict[str, Any]]:
    """The history of one turn, oldest first, as the current coder may see it: under blind
    coding a coder who has not finished the turn sees only their own rows."""
    rows = store_history.rows(project.db, conversation_id, position)
    sight = project.sight()
    if not sight.sees_history(conversation_id, position):
        rows = [r for r in rows if r["coder"] == sight.person]
    for r in rows:
        r["before"] = _shown(r["action"], "before", r["before"])
        r["after"] = _shown(r["action"], "after", r["after"])
    return rows


def retrieve(project: Project, code: str, value: Any = None, with_value: bool = False,
             *, coders: list[str] | None = None,
             attributes: dict[str, str] | None = None) -> pd.DataFrame:
    """Every unit coded ``code`` (holding ``value`` when ``with_value``; by ``coders``; in
    conversations whose ``attributes`` hold those values), with its text; spans with their
    offsets and context. A coder working blind retrieves only their own codings."""
    sight = project.sight()
    if not sight.sees_everything:
        coders = [sight.person or ""]
    conversations = None
    if attributes:
        for name in attributes:
            if not sight.sees_attribute(name):
                raise ProjectError(f"'{name}' is hidden from coders working blind")
        rest = {k: v for k, v in attributes.items() if k not in ("model", "participant_id")}
        conversations = ConversationFilter(
            models=[attributes["model"]] if "model" in attributes else (),
            participants=([attributes["participant_id"]] if "participant_id" in attributes
                          else ()),
            attributes=rest or None)
    return segments_table(project, codes=[code], coders=coders or None, value=value,
                          with_value=with_value, conversations=conversations)


def tab_separated(frame: pd.DataFrame) -> str:
    """A table as tab-separated text with a header (for the clipboard): tabs and line
    breaks inside a cell become spaces."""
    def cell(v: Any) -> str:
        return "" if v is None or (isinstance(v, float) and pd.isna(v)) else " ".join(
            str(v).split())
    lines = ["\t".join(str(c) for c in frame.columns)]
    lines += ["\t".join(cell(v) for v in row) for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"
