"""Changes made by another window or program, as a :class:`~.changes.Changes` value.

The window polls :meth:`ChangeWatch.poll`; it answers with what the history says was
written since it last looked (units coded, turns done, memos, consensus, codebook, coders,
settings, a conversation's attributes) and whether a model's runs or prompts changed, or
``everything`` when the file changed in a way neither names (an import, a merge of many
rows, a restore, a table another version keeps).
"""

from __future__ import annotations

from ..store import watch as store_watch
from .changes import NOTHING, SUGGESTIONS, Changes
from .project import Project

#: more rows than this since the last look: reload everything rather than list them
MOST_ROWS = 500
_WIDE = {"code": Changes(codebook=True), "role": Changes(coders=True),
         "identity": Changes(coders=True), "assignment": Changes(coders=True),
         "setting": Changes(settings=True)}


class ChangeWatch:
    """Turns what another connection committed to ``project`` into Changes."""

    def __init__(self, project: Project) -> None:
        self.project = project
        project.changed_elsewhere()  # what is in the file now is what the views read
        self._mark = store_watch.mark(project.db)

    def poll(self) -> Changes:
        """What changed since the last poll (NOTHING when this file's other connections
        wrote nothing)."""
        if not self.project.changed_elsewhere():
            return NOTHING
        return self.since_mark()

    def since_mark(self) -> Changes:
        """What the history says changed since the last look (everything when it cannot
        say), and a new mark."""
        db = self.project.db
        before, now = self._mark, store_watch.mark(db)
        self._mark = now
        if now[0] < before[0] or now[1:4] != before[1:4]:
            return Changes(everything=True)  # restored, imported or rows removed
        models = SUGGESTIONS if now[4] != before[4] else NOTHING
        if now[0] == before[0]:
            # a model's run or prompt, a window opened or closed (nothing shown changes),
            # or a change the history does not follow
            return models or (NOTHING if now[5] != before[5] else Changes(everything=True))
        rows = store_watch.history_after(db, before[0], MOST_ROWS + 1)
        if len(rows) > MOST_ROWS:
            return Changes(everything=True)
        return models | Changes.union(_row_changes(r) for r in rows)

    def forget(self) -> None:
        """Count what is in the file now as seen (after the window reloaded everything)."""
        self.project.changed_elsewhere()
        self._mark = store_watch.mark(self.project.db)


def _row_changes(row: dict[str, object]) -> Changes:
    kind = str(row["kind"])
    if kind in _WIDE:
        return _WIDE[kind]
    cid, pos, sent = row["conversation_id"], row["position"], row["sentence"]
    if kind == "attribute" and isinstance(cid, str):
        return Changes(conversations=frozenset({cid}))
    if not isinstance(cid, str) or not isinstance(pos, int):
        return Changes(everything=True)
    unit = (cid, pos, sent if isinstance(sent, int) else 0)
    if kind in ("coding", "span", "span memo"):
        return Changes(units=frozenset({unit}))
    if kind == "done":
        return Changes(done=frozenset({(cid, pos)}))
    if kind == "memo":
        return Changes(memos=frozenset({unit}))
    if kind == "consensus":
        return Changes(consensus=frozenset({unit}))
    return Changes(everything=True)  # a kind this version does not know
