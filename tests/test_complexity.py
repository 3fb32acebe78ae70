"""The complexity ratchet: functions too complex (ruff C901), with too many branches
(PLR0912) or statements (PLR0915) only ever get fewer.

``tests/complexity_ratchet.json`` records, per file, how many such functions it held; the
files are exempted in pyproject's per-file-ignores so that ``ruff check`` passes while new
code is held to the limits. A file that gains one fails here; a file that loses one fails
too until its record (and, at zero, its per-file-ignores line) is lowered, so the record
never stays above what the code needs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORD = Path(__file__).with_name("complexity_ratchet.json")
CODES = ("C901", "PLR0912", "PLR0915")
#: the record's totals: lowered with it (the rewrite below says the new figures), never
#: raised. Two branches that each re-recorded their files upward would merge into a record
#: higher than either; this line changes in both, so the merge stops on it instead.
TOTALS = {"C901": 54, "PLR0912": 20, "PLR0915": 31}


def _counts() -> dict[str, dict[str, int]]:
    """Per file and code, the functions over ruff's default limits (10 for complexity, 12
    branches, 50 statements), with no file exempted (``--isolated``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--exit-zero",
         "--select", ",".join(CODES), "--output-format", "json",
         "sense7_coder", "tests", "benchmarks"],
        capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0 or not proc.stdout.strip().startswith("["):
        pytest.fail(f"ruff did not run: {proc.stderr or proc.stdout}")
    found: Counter[tuple[str, str]] = Counter()
    for item in json.loads(proc.stdout):
        path = Path(item["filename"]).resolve().relative_to(ROOT).as_posix()
        found[(path, item["code"])] += 1
    out: dict[str, dict[str, int]] = {}
    for (path, code), n in sorted(found.items()):
        out.setdefault(path, {})[code] = n
    return out


def test_complex_functions_only_get_fewer() -> None:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    now = _counts()
    grew = [f"{path} {code}: {n} (recorded {record.get(path, {}).get(code, 0)})"
            for path, codes in now.items() for code, n in codes.items()
            if n > record.get(path, {}).get(code, 0)]
    assert not grew, ("functions over the complexity limits were added; split them "
                      "instead:\n" + "\n".join(grew))
    shrank = [f"{path} {code}: {now.get(path, {}).get(code, 0)} (recorded {n})"
              for path, codes in record.items() for code, n in codes.items()
              if now.get(path, {}).get(code, 0) < n]
    assert not shrank, ("fewer complex functions than recorded: lower "
                        f"{RECORD.name} (and pyproject's per-file-ignores at zero):\n"
                        + "\n".join(shrank))


def test_the_record_never_rises() -> None:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    totals = {code: sum(codes.get(code, 0) for codes in record.values()) for code in CODES}
    assert totals == TOTALS, ("the record's totals moved: lower TOTALS with a lowered "
                              f"record; a raised one is refused ({totals} against {TOTALS})")


def test_the_exemptions_are_the_record() -> None:
    """pyproject exempts exactly the recorded files from exactly the recorded checks."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ignores = config["tool"]["ruff"]["lint"]["per-file-ignores"]
    exempt = {path: sorted(c for c in codes if c in CODES) for path, codes in ignores.items()}
    exempt = {path: codes for path, codes in exempt.items() if codes}
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    assert exempt == {path: sorted(codes) for path, codes in record.items()}
    assert set(CODES) <= set(config["tool"]["ruff"]["lint"]["select"])


#: the most lines a module may have
MAX_MODULE_LINES = 600


def test_no_module_is_over_600_lines() -> None:
    """Short modules named after what they hold: a module that outgrows 600 lines is split
    along its seams (as frames/plain_frames, db/snapshots, project/coders, main_window/opening,
    importers/common into options, roles, values, ticker and domain/file_reading were)."""
    long = {p.relative_to(ROOT).as_posix(): n for p in (ROOT / "sense7_coder").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long


if __name__ == "__main__":  # lowering the record: `python tests/test_complexity.py`
    counts = _counts()
    old = json.loads(RECORD.read_text(encoding="utf-8"))
    raised = [f"{path} {code}: {n} (recorded {old.get(path, {}).get(code, 0)})"
              for path, codes in counts.items() for code, n in codes.items()
              if n > old.get(path, {}).get(code, 0)]
    if raised:  # the ratchet only lowers: split the function instead
        sys.exit("not recorded: more complex functions than the record allows\n"
                 + "\n".join(raised))
    RECORD.write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print("recorded; TOTALS in tests/test_complexity.py:",
          {code: sum(c.get(code, 0) for c in counts.values()) for code in CODES})
    print("recorded; pyproject's [tool.ruff.lint.per-file-ignores] for these checks:")
    for path, codes in counts.items():
        print(f'"{path}" = [' + ", ".join(f'"{c}"' for c in sorted(codes)) + "]")
