"""Tidy CSV exports (pure: pandas frames in, a CSV file out).

Kinds (``EXPORT_KINDS``):

* ``long`` -- one row per coder x unit x code: ``coder, conversation_id, participant_id,
  model, turn, sentence, role, code, value, level_label, user_rating``. ``turn`` is empty
  for conversation-level codes, ``sentence`` empty unless the code is sentence level.
  ``value`` is ``NA`` for "not applicable" (never empty), so the file reads back with
  ``import-codings``. ``user_rating`` is the user's own rating of that turn on the code's
  ``user_rating`` key (``NA`` when the user marked it not applicable, empty when unrated).
* ``wide`` -- one row per unit (``conversation_id, participant_id, model, turn,
  sentence, role``) and one column per code and coder named ``<code>__<coder>`` (two
  underscores), codes in codebook order, coders by name. ``NA`` = not applicable; an
  empty cell = that coder did not code it.
* ``consensus`` -- one row per decided unit x code: the ``long`` columns without
  ``coder``, plus ``adjudicator, rationale, decided_at``.
* ``agreement`` -- the agreement report, one row per figure.
* ``codebook`` -- one row per code x level.
* ``assignments``, ``history``, ``segments``, ``memos``, ``ratings`` -- the team tables
  (see :mod:`sense7_coder.project.team.tables`).

Files are UTF-8 with CRLF line ends (RFC 4180), so that a cell holding a line break or a
carriage return is quoted and every reader sees one record per row.

Spreadsheet formula injection: a text cell that starts with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return and is not a plain number is written with a leading ``'`` so that
spreadsheet programs show it as text; so is every text cell that already starts with
``'``, so that the marking can be undone exactly: :func:`unneutralise` (used by
``import-codings``) takes exactly one ``'`` off any cell that starts with one. ``=x`` is
written ``'=x``, ``'=x`` is written ``''=x``, and both read back as they were.
``raw=True`` writes every cell unchanged (such a file does not read back cells that start
with ``'``).

A file is written under a temporary name in the same folder and renamed when complete
(:mod:`.files`), so a failed or cancelled export never leaves a half-written CSV behind.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..codebook.codes import Code, Codebook
from ..errors import Cancelled, InputError
from ..files import ExportError as ExportError  # re-exported: export errors live in .files
from ..files import atomic_text_file
from ..progress import CancelFn, ProgressFn
from .kinds import EXPORT_KINDS as EXPORT_KINDS  # re-exported: defined without pandas

LONG_COLUMNS = (
    "coder", "conversation_id", "participant_id", "model", "turn", "sentence", "role", "code",
    "value", "level_label", "user_rating", "user_rating_na",
)
UNIT_META = ("conversation_id", "participant_id", "model", "turn", "sentence", "role")
CONSENSUS_COLUMNS = (
    *UNIT_META, "code", "value", "level_label", "adjudicator", "rationale", "decided_at",
    "user_rating", "user_rating_na",
)
CODEBOOK_COLUMNS = (
    "code", "label", "kind", "unit", "applies_to", "group", "user_rating", "allow_na",
    "retired", "level_value", "level_label", "level_description", "description", "include",
    "exclude",
)
#: separator between code and coder in the wide table's column names
WIDE_SEPARATOR = "__"
#: the end of the name of the column that tells not applicable from not coded
NA_FLAG = "__na"
NA_TEXT = "NA"
#: the mark a neutralised cell starts with
MARK = "'"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
CHUNK_ROWS = 200_000
LINE_END = "\r\n"



# -- building the tables ---------------------------------------------------------------------

def categorical(values: pd.Series | np.ndarray) -> pd.Categorical:
    """The column as a Categorical (missing values stay missing).

    Export columns repeat few values (coders, models, codes, levels); as categoricals
    they are formatted once per distinct value when written, and the formula check looks
    at each distinct value once.
    """
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        return values.array
    arr = values.to_numpy(dtype=object) if isinstance(values, pd.Series) else values
    codes, uniques = pd.factorize(arr)
    return pd.Categorical.from_codes(codes, categories=pd.Index(uniques, dtype=object))


def _factorized(col: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(codes, distinct values) of a column; free for a categorical one."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.cat.codes.to_numpy(), col.cat.categories.to_numpy(dtype=object)
    codes, uniques = pd.factorize(col.to_numpy(dtype=object))
    return codes, np.asarray(uniques, dtype=object)


def _turn_columns(frame: pd.DataFrame) -> tuple[pd.Categorical, pd.Categorical]:
    """``turn`` (empty for conversation level) and ``sentence`` (empty unless sentence level)."""
    out = []
    for name in ("position", "sentence"):
        numbers = frame[name].to_numpy(dtype=np.int64)
        codes, uniques = pd.factorize(np.where(numbers > 0, numbers, -1))
        keep = uniques > 0
        remap = np.where(keep, np.cumsum(keep) - 1, -1)
        out.append(pd.Categorical.from_codes(
            remap[codes] if len(codes) else codes, categories=pd.Index(uniques[keep])
        ))
    return out[0], out[1]


def _values_and_labels(
    frame: pd.DataFrame, codebook: Codebook
) -> tuple[pd.Categorical, pd.Categorical]:
    """``value`` with not applicable written as 'NA', and each value's level label.

    Works on the distinct (code, value) pairs: the labels are looked up once per pair.
    """
    code_idx, code_keys = _factorized(frame["code"])
    value_idx, values = pd.factorize(frame["value"].to_numpy(dtype=object))  # -1 = NA
    width = len(values) + 1  # slot 0 of each code = not applicable
    table = np.full(len(code_keys) * width, None, dtype=object)
    for i, key in enumerate(code_keys):
        code = codebook.get(str(key))
        mapping = {lv.value: lv.label for lv in code.levels} if code is not None else {}
        table[i * width] = "not applicable"
        for j, v in enumerate(values):
            table[i * width + j + 1] = mapping.get(v)
    label_idx, labels = pd.factorize(table)
    pair = code_idx.astype(np.int64) * width + value_idx + 1
    label = pd.Categorical.from_codes(
        label_idx[pair] if len(pair) else pair, categories=pd.Index(labels, dtype=object)
    )
    value_codes = np.where(value_idx < 0, len(values), value_idx)
    shown = pd.Index([*values, NA_TEXT], dtype=object)
    if shown.has_duplicates:  # a nominal level literally called 'NA'
        plain = np.append(np.asarray(values, dtype=object), NA_TEXT)
        return categorical(plain[value_codes]), label
    return pd.Categorical.from_codes(value_codes, categories=shown), label


def _user_rating(frame: pd.DataFrame) -> pd.Categorical:
    if "user_rating" not in frame.columns:
        return pd.Categorical([None] * len(frame))
    return categorical(frame["user_rating"])


def na_flag(values: Any) -> pd.arrays.IntegerArray:
    """1 where a value is not applicable (``NA``), 0 where it is a value, empty where there
    is none: R's read.csv and pandas read both ``NA`` and an empty cell as missing, so
    this column is what keeps not applicable apart from not coded (or not rated)."""
    out = [None if v is None or (isinstance(v, float) and v != v) else int(v == NA_TEXT)
           for v in np.asarray(values, dtype=object)]
    return pd.array(out, dtype="Int64")


def _coded_units(frame: pd.DataFrame, codebook: Codebook) -> dict[str, Any]:
    """The columns a coding and a consensus decision share: the unit, the code, the value."""
    turn, sentence = _turn_columns(frame)
    value, label = _values_and_labels(frame, codebook)
    return {
        "conversation_id": categorical(frame["conversation_id"]),
        "participant_id": categorical(frame["participant_id"]),
        "model": categorical(frame["model"]),
        "turn": turn,
        "sentence": sentence,
        "role": categorical(frame["role"]),
        "code": categorical(frame["code"]),
        "value": value,
        "level_label": label,
        "user_rating": _user_rating(frame),
        "user_rating_na": na_flag(frame["user_rating"]) if "user_rating" in frame.columns
        else pd.array([None] * len(frame), dtype="Int64"),
    }


def check_levels(frame: pd.DataFrame, codebook: Codebook, what: str = "codings") -> None:
    """Refuse a stored value that is no level of its code's scale (a project edited by
    another program), naming the first unit that holds it, as agreement does: an export
    never hands on a value the tool would not have written. Looks at each distinct (code,
    value) pair once."""
    from ..agreement.ratings import scale_text, shown_value

    if not len(frame):
        return
    code_idx, code_keys = _factorized(frame["code"])
    value_idx, values = pd.factorize(frame["value"].to_numpy(dtype=object))  # -1 = NA
    width = len(values) + 1
    pair = code_idx.astype(np.int64) * width + value_idx + 1
    for p in np.unique(pair):
        i, j = divmod(int(p), width)
        code = codebook.get(str(code_keys[i]))
        if j == 0 or code is None:
            continue
        value = values[j - 1]
        levels = [lv.value for lv in code.levels]
        if any(value == lv and isinstance(value, str) == isinstance(lv, str) for lv in levels):
            continue
        row = frame.iloc[int(np.flatnonzero(pair == p)[0])]
        where = [f"conversation '{row['conversation_id']}'"]
        if int(row["position"]):
            where.append(f"turn {int(row['position'])}")
        if int(row["sentence"]):
            where.append(f"sentence {int(row['sentence'])}")
        if "coder" in frame.columns:
            where.append(f"coder '{row['coder']}'")
        raise InputError(f"{what} of code '{code.key}'",
                         f"{shown_value(value)} is not a level of the scale "
                         f"{scale_text([lv.value for lv in code.levels])} (written by another "
                         "program); nothing was exported", location=", ".join(where),
                         field="value")


def long_table(codings: pd.DataFrame, codebook: Codebook) -> pd.DataFrame:
    """The ``long`` export from the store's codings frame (see the module notes)."""
    check_levels(codings, codebook)
    columns = {"coder": categorical(codings["coder"]), **_coded_units(codings, codebook)}
    return pd.DataFrame(columns, columns=list(LONG_COLUMNS))


def consensus_table(consensus: pd.DataFrame, codebook: Codebook) -> pd.DataFrame:
    """The ``consensus`` export from the store's consensus frame."""
    check_levels(consensus, codebook, "consensus decisions")
    columns = {
        **_coded_units(consensus, codebook),
        "adjudicator": consensus["adjudicator"],
        "rationale": consensus["rationale"],
        "decided_at": consensus["decided_at"],
    }
    return pd.DataFrame(columns, columns=list(CONSENSUS_COLUMNS))


def wide_column(code: str, coder: str) -> str:
    return f"{code}{WIDE_SEPARATOR}{coder}"


def wide_table(codings: pd.DataFrame, codebook: Codebook) -> pd.DataFrame:
    """The ``wide`` export: one row per unit, a ``<code>__<coder>`` column per code and coder."""
    check_levels(codings, codebook)
    keys = ["conversation_id", "position", "sentence"]
    meta = codings[[*keys, "participant_id", "model", "role"]].drop_duplicates(keys)
    if not len(codings):
        turn, sentence = _turn_columns(meta)
        return pd.DataFrame({"conversation_id": meta["conversation_id"], "participant_id": [],
                             "model": [], "turn": turn, "sentence": sentence, "role": []},
                            columns=list(UNIT_META))
    rank = {c.key: i for i, c in enumerate(codebook.codes)}
    pairs = codings[["code", "coder"]].drop_duplicates()
    ordered = sorted(
        zip(pairs["code"].astype(str), pairs["coder"].astype(str), strict=True),
        key=lambda p: (rank.get(p[0], len(rank)), p[0], p[1]),
    )
    names = [wide_column(code, coder) for code, coder in ordered]
    flagged = {wide_column(c, k) for c, k in ordered
               if (code := codebook.get(c)) is not None and code.allow_na}
    every = [x for n in names for x in ((n, n + NA_FLAG) if n in flagged else (n,))]
    if len(set(every)) != len(every):
        clash = next(n for n in every if every.count(n) > 1)
        raise ExportError(f"the wide export would name two columns '{clash}'; use the long "
                          "export, or rename the coder")
    if len(set(names)) != len(names):  # codes made before keys could not hold "__"
        clash = next(n for n in names if names.count(n) > 1)
        pairs_of = [f"code '{c}' of coder '{k}'" for c, k in ordered if wide_column(c, k) == clash]
        raise ExportError(
            f"the wide export would name two columns '{clash}' ({' and '.join(pairs_of)}); "
            "use the long export, or rename the coder"
        )
    value, _ = _values_and_labels(codings, codebook)
    column = codings["code"].astype(str) + WIDE_SEPARATOR + codings["coder"].astype(str)
    cells = pd.DataFrame({"column": column, "value": value})
    for k in keys:
        cells[k] = codings[k]
    table = cells.pivot(index=keys, columns="column", values="value")
    table = meta.merge(table[names], left_on=keys, right_index=True, how="left")
    turn, sentence = _turn_columns(table)
    out = table[["conversation_id", "participant_id", "model"]].copy()
    out["turn"] = turn
    out["sentence"] = sentence
    out["role"] = table["role"]
    cells = {}
    for name in names:  # a code that allows not applicable: its flag after each column
        cells[name] = table[name]
        if name in flagged:
            cells[name + NA_FLAG] = na_flag(table[name].to_numpy(dtype=object))
    return pd.concat([out, pd.DataFrame(cells, index=table.index)], axis=1
                     ).reset_index(drop=True)


def codebook_table(codebook: Codebook) -> pd.DataFrame:
    """The ``codebook`` export: one row per code and level."""
    rows = []
    for code in codebook.codes:
        rows += [_code_row(code, lv.value, lv.label, lv.description) for lv in code.levels]
    return pd.DataFrame(rows, columns=list(CODEBOOK_COLUMNS))


def _code_row(code: Code, value: int | str, label: str, description: str) -> dict[str, object]:
    return {
        "code": code.key, "label": code.label, "kind": code.kind, "unit": code.unit,
        "applies_to": code.applies_to, "group": code.group, "user_rating": code.user_rating,
        "allow_na": int(code.allow_na), "retired": int(code.retired), "level_value": value,
        "level_label": label, "level_description": description,
        "description": code.description, "include": code.include, "exclude": code.exclude,
    }


# -- formula neutralisation ------------------------------------------------------------------

def is_formula(text: str) -> bool:
    """Would a spreadsheet read this cell as a formula? (plain numbers are fine)."""
    return text[:1] in FORMULA_START and not _NUMBER.match(text)


def needs_mark(text: str) -> bool:
    """Does :func:`neutralise` prefix ``'`` to this cell? Formula-like cells, and cells
    that already start with ``'`` (so that the mark can be told from the text)."""
    return text[:1] == MARK or is_formula(text)


def neutralise_text(text: str) -> str:
    """One cell as :func:`neutralise` writes it."""
    return MARK + text if needs_mark(text) else text


def unneutralise(text: str) -> str:
    """A cell as it was before :func:`neutralise`: exactly one leading ``'`` is removed
    from a cell that starts with one (every such cell was marked when written)."""
    return text[1:] if text[:1] == MARK else text


def _formulas(values: np.ndarray) -> list[str]:
    return [u for u in pd.unique(values) if isinstance(u, str) and needs_mark(u)]


def neutralise(frame: pd.DataFrame) -> pd.DataFrame:
    """Prefix ``'`` to every text cell (header cells included) that a spreadsheet would
    take for a formula, and to every text cell that starts with ``'`` (see
    :func:`unneutralise`).

    Looks at the distinct values of each text column (the categories of a categorical
    one), so millions of repeated ids cost one hash pass. Returns ``frame`` itself when
    nothing needs changing.
    """
    changed: dict[str, pd.Series | pd.Categorical] = {}
    for name in frame.columns:
        col = frame[name]
        if isinstance(col.dtype, pd.CategoricalDtype):
            cats = col.cat.categories
            bad = set(_formulas(cats.to_numpy(dtype=object)))
            if not bad:
                continue
            renamed = pd.Index(["'" + c if c in bad else c for c in cats], dtype=object)
            if not renamed.has_duplicates:
                changed[name] = pd.Categorical.from_codes(col.cat.codes.to_numpy(),
                                                          categories=renamed)
                continue
            col = col.astype(object)
        elif not (col.dtype == object or isinstance(col.dtype, pd.StringDtype)):
            continue
        values = col.to_numpy(dtype=object)
        bad_list = _formulas(values)
        if not bad_list:
            continue
        mask = col.isin(bad_list).to_numpy()
        fixed = values.copy()
        fixed[mask] = ["'" + v for v in values[mask]]
        changed[name] = pd.Series(fixed, index=col.index, dtype=object)
    # header cells too: codes-by-attribute names its columns after attribute values
    names = {n: neutralise_text(n) for n in frame.columns
             if isinstance(n, str) and needs_mark(n)}
    if not changed and not names:
        return frame
    out = frame.copy()
    for name, new_col in changed.items():
        out[name] = new_col
    return out.rename(columns=names) if names else out


# -- writing ---------------------------------------------------------------------------------

def write_csv(
    frame: pd.DataFrame,
    path: str | Path,
    *,
    raw: bool = False,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> int:
    """Write ``frame`` as UTF-8 CSV at ``path``, atomically; returns the number of rows.

    Formula-like text cells are neutralised unless ``raw``. ``progress(rows, total)`` is
    called after each chunk; ``cancel()`` is asked before each chunk and raises
    :class:`Cancelled` (the destination is then untouched).
    """
    data = frame if raw else neutralise(frame)
    total = len(data)
    with atomic_text_file(path) as fh:
        if total == 0:
            data.to_csv(fh, index=False, lineterminator=LINE_END)
        for start in range(0, total, max(chunk_rows, 1)):
            if cancel and cancel():
                raise Cancelled()
            part = data.iloc[start : start + chunk_rows]
            part.to_csv(fh, index=False, header=start == 0, lineterminator=LINE_END)
            if progress:
                progress(min(start + chunk_rows, total), total)
    return total
