"""The lead's team sync of a month of a team's change files, against a by-hand merge of the
same work as packages.

A team of ``--coders`` coders each writes ``--files-per-day`` change files a day for
``--days`` days (each file a few codings, some changing earlier ones), sealed and signed as
a coder's sync writes them. A: the lead's ``team sync`` reads and applies every file into a
fresh copy of the lead's project. B: merging, by hand, each coder's package holding the same
final work into another fresh copy (``merge --on-conflict keep-source``). A and B alternate,
``--repeat`` times each; the two projects are checked equal. Also prints the folder's size
before and after the coders take the files the lead has read out of it.

    python benchmarks/bench_team.py --coders 10 --files-per-day 100 --days 30
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from analysis_support import conversation_lines, make_project  # noqa: E402

from sense7_coder.domain import team_seal  # noqa: E402
from sense7_coder.project import Project  # noqa: E402
from sense7_coder.project.assignments import assign  # noqa: E402
from sense7_coder.project.merge.merging import merge  # noqa: E402
from sense7_coder.project.team.folder import TO_LEAD, coder_state, invite, join, link  # noqa: E402
from sense7_coder.project.team.sync import sync_coder, sync_lead  # noqa: E402

COMPARED = ("SELECT coder, conversation_id, position, sentence, code, value FROM codings "
            "ORDER BY 1, 2, 3, 4, 5")


def setup(root: Path, coders: list[str], conversations: int) -> tuple[Path, dict[str, Path]]:
    chats = [(f"c{i}", f"P{i % 50}", "GPT4", 3, 4) for i in range(conversations)]
    project = make_project(root, conversations=conversation_lines(chats))
    project.set_coder("lee", "adjudicator")
    project.blind_coding = True
    for c in coders:
        project.set_coder(c, "coder")
    project.set_coder("lee")
    assign(project, coders, overlap=0.2, seed=1)
    link(project, root / "folder", keys=root / "keys-lee")
    packages = {}
    for c in coders:
        inv = invite(project, c, root / f"{c}.inv", keys=root / "keys-lee")
        packages[c] = root / c / f"{c}.sense7"
        join(inv, packages[c], folder=root / "folder", keys=root / c / "keys")
        sync_coder(coder_state(packages[c], root / c / "keys"))  # type: ignore[arg-type]
    project.close()
    return project.path, packages


def write_month(root: Path, coders: list[str], packages: dict[str, Path], files: int,
                rows_per_file: int) -> None:
    """Each coder's ``files`` change files, written as her sync writes them, and her package
    brought to the same final state (for the by-hand merge)."""
    rnd = random.Random(7)
    for c in coders:
        state = coder_state(packages[c], root / c / "keys")
        assert state is not None
        with Project.open(packages[c], backup=False) as p:
            template = p.db.execute("SELECT * FROM codings LIMIT 0").description
            cols = [d[0] for d in template if d[0] != "id"]
            turns = [tuple(r) for r in p.db.execute(
                "SELECT t.conversation_id, t.position FROM turns t JOIN assignments a "
                "ON a.conversation_id = t.conversation_id WHERE t.role = 'assistant'")]
        final: dict[tuple[object, ...], dict[str, object]] = {}
        for n in range(1, files + 1):
            rows = []
            for cid, pos in rnd.sample(turns, rows_per_file):
                row = {k: None for k in cols}
                row.update(coder=c, conversation_id=cid, position=pos, sentence=0,
                           code="overall", value=rnd.randint(1, 5),
                           updated_at=f"2026-12-{1 + n * 30 // (files + 1):02d}T10:00:00Z",
                           source="coded", blind=1)
                key = [c, cid, pos, 0, "overall"]
                final[tuple(key)] = row
                rows.append(["codings", key, row])
            body = {"coder": c, "install": state.data["install"], "counter": n,
                    "after": n - 1, "rows": rows}
            data = team_seal.seal(json.dumps(body).encode(), state.data["keys"]["ed25519"],
                                  [state.data["lead"]["x25519"]])
            name = team_seal.name_for("c", c, state.data["install"], n, data)
            (root / "folder" / TO_LEAD / name.text).write_bytes(data)
        con = sqlite3.connect(packages[c])
        names = ", ".join(f'"{k}"' for k in cols)
        con.executemany(f"INSERT INTO codings ({names}) VALUES ({','.join('?' * len(cols))})",
                        [tuple(r[k] for k in cols) for r in final.values()])
        con.commit()
        con.close()


def folder_size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def run_a(root: Path, lead: Path, i: int) -> tuple[float, Path]:
    work = root / f"a{i}"
    work.mkdir()
    target = work / lead.name
    shutil.copy(lead, target)
    shutil.copytree(lead.with_name(lead.name + ".team"), target.with_name(target.name + ".team"))
    keys = work / "keys-lee"
    shutil.copytree(root / "keys-lee", keys)
    for path in keys.glob("lead-*.json"):  # the copy's own key file
        data = json.loads(path.read_text())
        data["project"] = str(target.resolve())
        path.write_text(json.dumps(data))
    with Project.open(target, backup=False) as p:
        p.set_coder("lee")
        start = time.perf_counter()
        report = sync_lead(p, keys)
        took = time.perf_counter() - start
    assert not report.refused and not report.waiting, report.lines()[:5]
    return took, target


def run_b(root: Path, lead: Path, packages: dict[str, Path], i: int) -> tuple[float, Path]:
    work = root / f"b{i}"
    work.mkdir()
    target = work / lead.name
    shutil.copy(lead, target)
    with Project.open(target, backup=False) as p:
        p.set_coder("lee")
        start = time.perf_counter()
        merge(p, list(packages.values()), on_conflict="keep-source")
        took = time.perf_counter() - start
    return took, target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coders", type=int, default=10)
    ap.add_argument("--files-per-day", type=int, default=100)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--rows-per-file", type=int, default=3)
    ap.add_argument("--conversations", type=int, default=600)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    coders = [f"coder{i:02d}" for i in range(args.coders)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        lead, packages = setup(root, coders, args.conversations)
        write_month(root, coders, packages, args.files_per_day * args.days, args.rows_per_file)
        n, size = folder_size(root / "folder")
        print(f"set-up {time.perf_counter() - t0:.1f} s; folder: {n} files, "
              f"{size / 2**20:.1f} MiB")
        a_times, b_times = [], []
        for i in range(args.repeat):
            took, a = run_a(root, lead, i)
            a_times.append(took)
            took, b = run_b(root, lead, packages, i)
            b_times.append(took)
            with sqlite3.connect(a) as ca, sqlite3.connect(b) as cb:
                ra, rb = ca.execute(COMPARED).fetchall(), cb.execute(COMPARED).fetchall()
                assert ra == rb, ([r for r in ra if r not in rb][:3], [r for r in rb if r not in ra][:3], len(ra), len(rb))
            print(f"round {i + 1}: team sync {a_times[-1]:.2f} s, by-hand merge "
                  f"{b_times[-1]:.2f} s")
        # the coders take what the lead has read out of the folder (after the last A run's
        # acknowledgements, written into the shared folder)
        for c in coders:
            state = coder_state(packages[c], root / c / "keys")
            assert state is not None
            sync_coder(state)
        n2, size2 = folder_size(root / "folder")
        print(f"team sync best {min(a_times):.2f} s, by-hand merge best {min(b_times):.2f} s: "
              f"{min(a_times) / min(b_times):.1f}x (target: seconds); folder after the "
              f"coders' next sync: {n2} files, {size2 / 2**10:.0f} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
