"""A sync service that behaves badly, for the team folder's tests: each person has a folder
of their own, and :meth:`BadSync.round` copies what one has and another lacks the way
sync clients do at their worst: a file first as a zero-byte placeholder or cut in half,
some held back for a later round, the rest in a shuffled order, renamed conflicted copies
beside the real ones (some with other contents), and a file overwritten by an older
version under its own name (last writer wins). :meth:`settle` then copies everything
whole, as a sync service eventually does."""

from __future__ import annotations

import random
from pathlib import Path

from sense7_coder.domain.team_seal import parse_name


class BadSync:
    def __init__(self, folders: list[Path], seed: int = 0) -> None:
        self.folders = folders
        self.rnd = random.Random(seed)
        self.mangled = 0

    def _files(self, folder: Path) -> dict[str, bytes]:
        out = {}
        for path in sorted(folder.rglob("*")):
            name = path.name
            if path.is_file() and not name.startswith(".") and " (conflicted" not in name \
                    and "-CONFLICT" not in name and path.stat().st_size:
                out[str(path.relative_to(folder))] = path.read_bytes()
        return out

    def round(self, bad: bool = True) -> None:
        every: dict[str, bytes] = {}
        for folder in self.folders:
            for rel, data in self._files(folder).items():
                # a whole file (its hash matches its name) wins over a cut one
                parts = parse_name(Path(rel).name)
                if rel not in every or (parts is not None and _whole(data, parts.digest)):
                    every[rel] = data
        items = list(every.items())
        self.rnd.shuffle(items)
        for folder in self.folders:
            for rel, data in items:
                target = folder / rel
                if target.exists() and target.read_bytes() == data:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                if bad:
                    self._badly(target, data)
                else:
                    target.write_bytes(data)

    def _badly(self, target: Path, data: bytes) -> None:
        roll = self.rnd.random()
        self.mangled += 1
        if roll < 0.15:
            return  # held back: arrives in a later round
        if roll < 0.3:
            target.write_bytes(b"")  # a placeholder, listed but not downloaded
        elif roll < 0.45:
            target.write_bytes(data[: len(data) // 2])  # half-synced
        elif roll < 0.6:
            target.write_bytes(data)
            stem, dot, ext = target.name.partition(".")
            copy = target.with_name(f"{stem} (conflicted copy 2026-12-06 Ana's laptop).{ext}")
            copy.write_bytes(data[::-1])  # a renamed copy, contents garbled
            target.with_name(target.name + "-CONFLICT").write_bytes(data)
        else:
            self.mangled -= 1
            target.write_bytes(data)

    def settle(self) -> None:
        for _ in range(3):
            self.round(bad=False)


def _whole(data: bytes, digest: str) -> bool:
    import hashlib

    return hashlib.sha256(data).hexdigest() == digest
