"""Agreement on span codes: αu, Mathet's γ (optional) and the presence projection.

Per span code, over the conversations every compared coder worked on (marked a turn done
or made a span there; a coder who never opened a conversation does not disagree on it):

* **αu**, Krippendorff's unitizing alpha (:mod:`...domain.agreement.unitizing`), the
  categories being the code's levels (one, present, for a binary code); the continuum is
  the text of the turns the code applies to;
* **γ**, Mathet, Widlöcher and Métivier's gamma, through ``pygamma-agreement`` (the
  ``spans`` extra) when it is installed and asked for (it takes seconds to minutes;
  :mod:`.gamma`);
* **presence**: the code present in a turn (any span of it) or not, per coder, as
  nominal Krippendorff's alpha (``krippendorff``) -- what most studies report.

Intervals: a percentile bootstrap over conversations for αu and presence (γ has none).
Blind projects: only a lead may compute it, as every agreement figure.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ...domain.agreement_settings import DRAWS_DEFAULT, SEED_DEFAULT
from ...domain.codebook.codes import Code
from ...domain.errors import Cancelled
from ...domain.models import ROLES_OF
from ...domain.progress import CancelFn
from ...store.spans import arrays as span_arrays

if TYPE_CHECKING:
    import numpy as np

    from ...store.conversations import ConversationFilter
    from ..project import Project
    from ..selection import Selection


@dataclass
class SpanAgreement:
    code: str
    coders: list[str]
    conversations: int
    turns: int
    spans: int
    alpha_u: float | None = None
    alpha_u_ci: tuple[float, float] | None = None
    presence: float | None = None
    presence_ci: tuple[float, float] | None = None
    gamma: float | None = None
    note: str = ""

    def as_row(self) -> dict[str, object]:
        return {"code": self.code, "coders": ", ".join(self.coders),
                "conversations": self.conversations, "turns": self.turns,
                "spans": self.spans, "alpha_u": self.alpha_u,
                "alpha_u_low": self.alpha_u_ci[0] if self.alpha_u_ci else None,
                "alpha_u_high": self.alpha_u_ci[1] if self.alpha_u_ci else None,
                "presence_alpha": self.presence,
                "presence_low": self.presence_ci[0] if self.presence_ci else None,
                "presence_high": self.presence_ci[1] if self.presence_ci else None,
                "gamma": self.gamma, "note": self.note}


def span_codes(project: Project, codes: Sequence[str] = ()) -> list[Code]:
    book = project.codebook
    chosen = [book.code(k) for k in codes if book.get(k) is not None] if codes else book.active
    return [c for c in chosen if c.unit == "span"]


def span_agreement(project: Project, selection: Selection | None = None, *,
                   draws: int = DRAWS_DEFAULT, seed: int | None = SEED_DEFAULT,
                   gamma: bool = False, cancel: CancelFn | None = None) -> list[SpanAgreement]:
    """One :class:`SpanAgreement` per span code of ``selection`` (its codes, coders and
    conversations; every span code when it names none); ``cancel`` stops the bootstrap
    draws (:class:`Cancelled`)."""
    from ..agreement import check_draws
    from ..selection import Selection

    project.require_unblinded("see agreement on spans")
    check_draws(draws, seed)
    selection = selection or Selection()
    chosen = span_codes(project, selection.codes)
    if not chosen:
        return []
    return [_one(project, code, selection.coders, selection.conversation_filter(), draws,
                 seed, gamma, cancel)
            for code in chosen]


def _one(project: Project, code: Code, coders: Sequence[str],
         conversations: ConversationFilter | None, draws: int, seed: int | None,
         with_gamma: bool, cancel: CancelFn | None) -> SpanAgreement:
    import numpy as np

    from ...domain.agreement import unitizing_arrays

    categories: list[Hashable] = list(code.values) or [1]
    spans = span_arrays.span_rows(project.db, code.key, categories)
    names = [n for n in spans.coders if not coders or n in coders]
    if len(names) < 2:
        return SpanAgreement(code.key, names, 0, 0, len(spans.start),
                             note="fewer than two coders made spans of this code")
    roles = ROLES_OF.get(code.applies_to, ("assistant",))
    turns = span_arrays.common_turns(project.db, names, roles, conversations)
    units = _inside(spans, turns, names)
    rowids = turns.rowid
    first = np.ones(len(rowids), dtype=bool)
    first[1:] = rowids[1:] != rowids[:-1]
    group = np.cumsum(first) - 1  # each turn's conversation, 0..k-1 in import order
    result = SpanAgreement(code.key, names, int(first.sum()), len(rowids), len(units.turn))
    if units.outside:
        result.note = f"{units.outside} span(s) outside their turn's text left out"
    if not len(rowids):
        result.note = "the coders worked on no conversation in common"
        return result
    lengths, m = turns.length, len(names)
    cuts = unitizing_arrays.by_category(lengths, units.turn, units.coder, units.start,
                                        units.end, units.level, m, categories)
    result.alpha_u = unitizing_arrays.combine(cuts, lengths, m).alpha
    result.alpha_u_ci = unitizing_arrays.bootstrap(cuts, lengths, group, m, draws, seed,
                                                   cancel=cancel)
    presence = np.zeros((m, len(rowids)))  # coders x turns: any span of the code
    presence[units.coder, units.turn] = 1
    result.presence, result.presence_ci = _presence(presence, group, draws, seed, cancel)
    if with_gamma:
        result.gamma, note = _gamma(units, turns, names, categories, seed)
        if note:
            result.note = note
    return result


class _Units(NamedTuple):
    """The compared coders' spans on the chosen turns, inside their turn's text: turn
    index, coder index (into the compared names), start, end, level index."""

    turn: np.ndarray
    coder: np.ndarray
    start: np.ndarray
    end: np.ndarray
    level: np.ndarray
    outside: int


def _inside(spans: span_arrays.SpanRows, turns: span_arrays.TurnLengths,
            names: list[str]) -> _Units:
    """The spans of the compared coders on the chosen turns that lie inside their turn's
    text, and how many lay outside (a file edited by hand: sense7-coder never writes
    one)."""
    import numpy as np

    renumber = np.full(len(spans.coders) + 1, -1, dtype=np.int64)
    for i, name in enumerate(spans.coders):
        if name in names:
            renumber[i] = names.index(name)
    coder = renumber[spans.coder]
    turn_key, key = _keys(turns, spans)
    at = np.minimum(np.searchsorted(turn_key, key), max(len(turn_key) - 1, 0))
    on_turn = (coder >= 0) & (len(turn_key) > 0)
    on_turn &= turn_key[at] == key if len(turn_key) else False
    limit = turns.length[at] if len(turn_key) else np.zeros(len(key), dtype=np.int64)
    fits = (spans.start >= 0) & (spans.start < spans.end) & (spans.end <= limit)
    keep = on_turn & fits
    return _Units(at[keep], coder[keep], spans.start[keep], spans.end[keep],
                  spans.level[keep], int((on_turn & ~fits).sum()))


def _keys(turns: span_arrays.TurnLengths, spans: span_arrays.SpanRows
          ) -> tuple[np.ndarray, np.ndarray]:
    """One number per turn (ascending, as the turns come) and per span (that of its turn
    where it has one): the ranks of the conversation and the position among the turns'."""
    import numpy as np

    rowids, positions = np.unique(turns.rowid), np.unique(turns.position)

    def rank(values: np.ndarray, among: np.ndarray) -> np.ndarray:
        at = np.searchsorted(among, values)
        found = at < len(among)
        found[found] = among[at[found]] == values[found]
        return np.where(found, at, len(among))  # one past the end: no such turn

    width = len(positions) + 1
    return (rank(turns.rowid, rowids) * width + rank(turns.position, positions),
            rank(spans.rowid, rowids) * width + rank(spans.position, positions))


def _gamma(units: _Units, turns: span_arrays.TurnLengths, names: list[str],
           categories: list[Hashable], seed: int | None) -> tuple[float | None, str]:
    from .gamma import gamma

    chosen: list[tuple[Hashable, int, int]] = [(int(r), int(p), int(n))
              for r, p, n in zip(turns.rowid, turns.position, turns.length, strict=True)]
    by_turn: dict[tuple[Hashable, int], list[list[tuple[int, int, Hashable]]]] = {
        (r, p): [[] for _ in names] for r, p, _ in chosen}
    for t, o, start, end, level in zip(units.turn.tolist(), units.coder.tolist(),
                                       units.start.tolist(), units.end.tolist(),
                                       units.level.tolist(), strict=True):
        r, p, _ = chosen[t]
        by_turn[(r, p)][o].append((start, end, categories[level] if level >= 0 else None))
    return gamma(chosen, by_turn, names, seed)


def _presence(matrix: np.ndarray, group: np.ndarray, draws: int, seed: int | None,
              cancel: CancelFn | None = None
              ) -> tuple[float | None, tuple[float, float] | None]:
    """Nominal alpha of 'the code is present in the turn' (``matrix``: coders x turns),
    and its bootstrap interval over the turns' conversations (``group``: 0..k-1)."""
    import krippendorff
    import numpy as np

    def alpha(columns: np.ndarray) -> float | None:
        data = matrix[:, columns]
        if len(np.unique(data)) < 2:
            return None  # one value everywhere: alpha is not defined
        return float(krippendorff.alpha(reliability_data=data,
                                        level_of_measurement="nominal"))

    value = alpha(np.arange(matrix.shape[1]))
    k = int(group.max()) + 1 if len(group) else 0
    if value is None or k < 2 or draws <= 0:
        return value, None
    order = np.argsort(group, kind="stable")  # each conversation's turns, in turn order
    bounds = np.searchsorted(group[order], np.arange(k + 1))
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(draws):
        if cancel is not None and cancel():
            raise Cancelled()
        chosen_groups = rng.integers(0, k, k)
        columns = np.concatenate([order[bounds[g]:bounds[g + 1]] for g in chosen_groups])
        a = alpha(columns)
        if a is not None:
            values.append(a)
    if len(values) < max(10, draws // 2):
        return value, None
    low, high = np.percentile(values, [2.5, 97.5])
    return value, (float(low), float(high))


def _figure(value: float | None, ci: tuple[float, float] | None = None) -> str:
    if value is None:
        return "-"
    text = f"{value:.3f}"
    return text + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def span_agreement_lines(results: Sequence[SpanAgreement]) -> list[str]:
    """The span codes' agreement as an aligned table, with what each figure is."""
    header = ["span code", "coders", "conv.", "turns", "spans", "alpha_u [95% CI]",
              "presence alpha [95% CI]", "gamma"]
    rows = [[r.code, str(len(r.coders)), str(r.conversations), str(r.turns), str(r.spans),
             _figure(r.alpha_u, r.alpha_u_ci), _figure(r.presence, r.presence_ci),
             _figure(r.gamma)] for r in results]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, *rows]]
    lines += [f"{r.code}: {r.note}" for r in results if r.note]
    lines += ["alpha_u: Krippendorff's unitizing alpha (where and what the coders marked); "
              "presence: the code present in a turn or not, nominal alpha; intervals: "
              "percentile bootstrap over conversations (95%); gamma: Mathet's gamma (when asked for)"]
    return lines
