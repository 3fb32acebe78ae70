"""What a change to a project touched: the one value every mutation hands back.

A :class:`Changes` names the units whose codings changed, the turns whose done marks
changed, memos, consensus decisions, and whether the codebook, the coders, the settings or
the conversations themselves changed, or a predictor's scores; ``everything`` stands for an import, merge or restore
after which a view reloads all it shows. Every coding action, undo and redo carries one
(``Command.changes``); imports, merges, restores and batch operations return one with their
result. The window turns these -- its own and those it sees from other programs -- into
one signal its views listen to, so no view has to guess what to refresh.

Changes are plain values: frozen, comparable, combined with ``|``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields

#: a unit: (conversation id, turn position (0: the whole conversation), sentence (0: the turn))
UnitKey = tuple[str, int, int]
#: a turn: (conversation id, position)
TurnKey = tuple[str, int]


@dataclass(frozen=True)
class Changes:
    """What one operation (or several, combined with ``|``) changed."""

    #: units whose codings changed (any coder's value, a value changed after the reveal)
    units: frozenset[UnitKey] = frozenset()
    #: turns whose done marks changed (for any coder)
    done: frozenset[TurnKey] = frozenset()
    #: units whose memos changed
    memos: frozenset[UnitKey] = frozenset()
    #: units whose consensus decisions changed
    consensus: frozenset[UnitKey] = frozenset()
    #: codes added, edited, retired or removed
    codebook: bool = False
    #: coders added, renamed, or their roles or assignments changed
    coders: bool = False
    #: project settings (blind coding, hidden attributes, required codes, ...)
    settings: bool = False
    #: conversations added, removed or replaced (their turns, attributes, sentences)
    conversations: frozenset[str] = frozenset()
    #: a predictor's scores stored (imported, a baseline trained, a model asked)
    predictions: bool = False
    #: a model's suggestions stored or removed (a run, a run deleted), or the prompt a model
    #: reads for a code
    suggestions: bool = False
    #: reload everything (an import, merge or restore, or a change from outside too large
    #: or too vague to name)
    everything: bool = False

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def all(cls) -> Changes:
        """Everything may have changed."""
        return cls(everything=True)

    @classmethod
    def union(cls, many: Iterable[Changes]) -> Changes:
        out = cls()
        for c in many:
            out = out | c
        return out

    def __or__(self, other: Changes) -> Changes:
        if not isinstance(other, Changes):
            return NotImplemented
        merged = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            merged[f.name] = (a | b) if isinstance(a, frozenset) else (a or b)
        return Changes(**merged)

    # -- asking ------------------------------------------------------------------------------
    @property
    def empty(self) -> bool:
        """Nothing changed."""
        return not any(getattr(self, f.name) for f in fields(self))

    def __bool__(self) -> bool:
        """True when something changed (``if project.set_...(...):``)."""
        return not self.empty

    @property
    def conversation_ids(self) -> frozenset[str]:
        """Every conversation something named here belongs to (not counting ``everything``,
        the codebook, coders or settings, which touch them all)."""
        ids = {u[0] for u in self.units | self.memos | self.consensus}
        ids.update(t[0] for t in self.done)
        ids.update(self.conversations)
        return frozenset(ids)

    @property
    def wide(self) -> bool:
        """Does this change touch every conversation (a reload of all views)?"""
        return self.everything or self.codebook or self.coders or self.settings

    def touches(self, conversation_id: str | None) -> bool:
        """Does a view of ``conversation_id`` need to refresh?"""
        if conversation_id is None:
            return self.wide or bool(self.conversations)
        # a conversation's view shows the predictions and suggestions beside its turns
        return (self.wide or self.predictions or self.suggestions
                or conversation_id in self.conversation_ids)

    @property
    def progress(self) -> bool:
        """Can the counts of turns done (the list, the status bar) have changed?"""
        return bool(self.everything or self.done or self.codebook or self.conversations
                    or self.coders)

    def describe(self) -> str:
        """A short account, for logs and test messages: "2 units, 1 done mark, codebook"."""
        if self.everything:
            return "everything"
        parts = []
        for name, word in (("units", "unit"), ("done", "done mark"), ("memos", "memo"),
                           ("consensus", "consensus decision"),
                           ("conversations", "conversation")):
            n = len(getattr(self, name))
            if n:
                parts.append(f"{n} {word}{'s' if n != 1 else ''}")
        parts += [name for name in ("codebook", "coders", "settings", "predictions",
                                    "suggestions")
                  if getattr(self, name)]
        return ", ".join(parts) or "nothing"


NOTHING = Changes()
EVERYTHING = Changes(everything=True)
CODERS = Changes(coders=True)
SETTINGS = Changes(settings=True)
PREDICTIONS = Changes(predictions=True)
SUGGESTIONS = Changes(suggestions=True)
