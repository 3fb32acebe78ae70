"""Agreement on span codes: αu, Mathet's γ (optional) and the presence projection.

Per span code, over the conversations every compared coder worked on (marked a turn done
or made a span there; a coder who never opened a conversation does not disagree on it):

* **αu**, Krippendorff's unitizing alpha (:mod:`..domain.agreement.unitizing`), the
  categories being the code's levels (one, present, for a binary code); the continuum is
  the text of the turns the code applies to;
* **γ**, Mathet, Widlöcher and Métivier's gamma, through ``pygamma-agreement`` (the
  ``spans`` extra) when it is installed and asked for (it takes seconds to minutes;
  :mod:`.span_gamma`);
* **presence**: the code present in a turn (any span of it) or not, per coder, as
  nominal Krippendorff's alpha (``krippendorff``) -- what most studies report.

Intervals: a percentile bootstrap over conversations for αu and presence (γ has none).
Blind projects: only a lead may compute it, as every agreement figure.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..domain.agreement_settings import DRAWS_DEFAULT, SEED_DEFAULT
from ..domain.codebook import Code
from ..domain.errors import Cancelled
from ..domain.models import ROLES_OF
from ..domain.progress import CancelFn
from ..store import spans as store_spans

if TYPE_CHECKING:
    import numpy as np

    from .project import Project
    from .selection import Selection


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
    from .agreement import check_draws
    from .selection import Selection

    project.require_unblinded("see agreement on spans")
    check_draws(draws, seed)
    selection = selection or Selection()
    chosen = span_codes(project, selection.codes)
    if not chosen:
        return []
    db = project.db
    turns = store_spans.turn_lengths(db, selection.conversation_filter())
    covered = store_spans.covered_conversations(db)
    return [_one(project, code, selection.coders, turns, covered, draws, seed, gamma, cancel)
            for code in chosen]


def _one(project: Project, code: Code, coders: Sequence[str],
         turns: list[tuple[str, int, str, int]], covered: dict[str, set[str]], draws: int,
         seed: int | None, with_gamma: bool, cancel: CancelFn | None
         ) -> SpanAgreement:
    import numpy as np

    from ..domain.agreement import unitizing_arrays

    spans = store_spans.span_cuts(project.db, code.key)
    names = sorted({s[0] for s in spans if not coders or s[0] in coders})
    if len(names) < 2:
        return SpanAgreement(code.key, names, 0, 0, len(spans),
                             note="fewer than two coders made spans of this code")
    common = set.intersection(*(covered.get(n, set()) for n in names))
    roles = ROLES_OF.get(code.applies_to, ("assistant",))
    chosen = [(cid, pos, length) for cid, pos, role, length in turns
              if cid in common and role in roles]
    lengths = np.array([length for _, _, length in chosen], dtype=np.int64)
    categories: list[Hashable] = list(code.values) or [1]
    rows, values, outside = _inside(spans, chosen, names, categories)
    n_conversations = len({cid for cid, _, _ in chosen})
    result = SpanAgreement(code.key, names, n_conversations, len(chosen), len(rows))
    if outside:
        result.note = f"{outside} span(s) outside their turn's text left out"
    if not chosen:
        result.note = "the coders worked on no conversation in common"
        return result
    cols = np.array(rows, dtype=np.int64).reshape(-1, 5).T
    m = len(names)
    cuts = unitizing_arrays.by_category(lengths, cols[0], cols[1], cols[2], cols[3], cols[4],
                                        m, categories)
    first: dict[str, int] = {}
    group = np.array([first.setdefault(cid, len(first)) for cid, _, _ in chosen])
    result.alpha_u = unitizing_arrays.combine(cuts, lengths, m).alpha
    result.alpha_u_ci = unitizing_arrays.bootstrap(cuts, lengths, group, m, draws, seed,
                                                   cancel=cancel)
    presence = np.zeros((m, len(chosen)))  # coders x turns: any span of the code
    presence[cols[1], cols[0]] = 1
    result.presence, result.presence_ci = _presence(presence, group, draws, seed, cancel)
    if with_gamma:
        from .span_gamma import gamma

        by_turn: dict[tuple[str, int], list[list[tuple[int, int, Hashable]]]] = {
            (cid, pos): [[] for _ in names] for cid, pos, _ in chosen}
        keys = list(by_turn)
        for (t, o, start, end, _k), value in zip(rows, values, strict=True):
            by_turn[keys[t]][o].append((start, end, value))
        result.gamma, note = gamma(chosen, by_turn, names, seed)
        if note:
            result.note = note
    return result


def _inside(spans: list[tuple[str, str, int, int, int, Hashable]],
            chosen: list[tuple[str, int, int]], names: list[str], categories: list[Hashable]
            ) -> tuple[list[tuple[int, int, int, int, int]], list[Hashable], int]:
    """(turn, coder, start, end, category) indices of the spans of the compared coders on
    the ``chosen`` turns that lie inside their turn's text (category -1: a value not of the
    code), their values, and how many lay outside."""
    where = {(cid, pos): i for i, (cid, pos, _) in enumerate(chosen)}
    limit = [length for _, _, length in chosen]
    index = {n: i for i, n in enumerate(names)}
    category = {c: i for i, c in enumerate(categories)}
    rows: list[tuple[int, int, int, int, int]] = []
    values: list[Hashable] = []
    outside = 0
    for coder, cid, pos, start, end, value in spans:
        t = where.get((cid, pos))
        o = index.get(coder)
        if t is None or o is None:
            continue
        if not 0 <= start < end <= limit[t]:
            outside += 1  # a file edited by hand: never written by sense7-coder
            continue
        rows.append((t, o, start, end, category.get(value, -1)))
        values.append(value)
    return rows, values, outside


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
