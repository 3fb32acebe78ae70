"""The version locks (requirements/*.txt): every dependency pyproject names is pinned there
at a version its specifier allows, with hashes, and the README's test line -- the one CI
runs -- installs from them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCKS = ROOT / "requirements"
#: the environment the locks are compiled for (requirements/README.md)
TARGET = {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.0",
          "sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
          "platform_machine": "x86_64"}


def pins(path: Path) -> dict[str, tuple[Version, list[str]]]:
    """name -> (version, hashes) of a pip-compile/uv style lock."""
    out: dict[str, tuple[Version, list[str]]] = {}
    name = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ \\;]+)", line):
            name = canonicalize_name(m[1])
            out[name] = (Version(m[2]), [])
        elif m := re.search(r"--hash=sha256:([0-9a-f]{64})", line):
            assert name, f"{path.name}: a hash before any pin"
            out[name][1].append(m[1])
    return out


def declared(extra: str | None) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = project["dependencies"] + (project["optional-dependencies"][extra] if extra else [])
    return [r for r in map(Requirement, names)
            if r.marker is None or r.marker.evaluate(TARGET)]


@pytest.mark.parametrize(("lock", "extra"), [("lock.txt", None), ("test-lock.txt", "test")])
def test_lock_pins_every_declared_dependency_within_its_range(lock: str,
                                                              extra: str | None) -> None:
    pinned = pins(LOCKS / lock)
    assert len(pinned) >= 40, f"{lock}: too few pins ({len(pinned)}) for this project"
    for name, (version, hashes) in pinned.items():
        assert hashes, f"{lock}: {name}=={version} has no hash (compile with hashes)"
    for req in declared(extra):
        name = canonicalize_name(req.name)
        assert name in pinned, (f"{lock} does not pin {req.name}, which pyproject.toml "
                                "names: recompile it (requirements/README.md)")
        version = pinned[name][0]
        assert req.specifier.contains(version, prereleases=True), (
            f"{lock} pins {req.name}=={version}, outside pyproject's {req.specifier}: "
            "recompile it (requirements/README.md)")


def test_test_lock_holds_the_runtime_lock_at_the_same_versions() -> None:
    runtime, test = pins(LOCKS / "lock.txt"), pins(LOCKS / "test-lock.txt")
    for name, (version, _) in runtime.items():
        assert name in test and test[name][0] == version, (
            f"{name}: {version} in lock.txt, {test.get(name, ('absent',))[0]} in "
            "test-lock.txt: the tests would run on other versions than users get")


def test_reference_packages_installed_without_their_pins_are_locked_too() -> None:
    """irrCAC pins scipy==1.12.0 and pandas<3, which the project outgrew; it works with
    the locked versions, so it is installed --no-deps from its own hashed lock."""
    no_deps = pins(LOCKS / "no-deps.txt")
    assert "irrcac" in no_deps and no_deps["irrcac"][1]
    test = pins(LOCKS / "test-lock.txt")
    for name in ("pingouin", "statsmodels", "scipy", "pandas"):
        assert name in test, f"the cross-checks need {name} in test-lock.txt"


def _readme_test_line() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Quick start")
    section = text[start:text.index("\n## ", start + 1)]
    blocks = re.findall(r"```bash\n(.*?)\n```", section, flags=re.S)
    assert len(blocks) == 2, "the Quick start keeps exactly two command lines"
    return blocks[1]


def test_readme_test_line_installs_from_the_locks_and_ci_runs_it_verbatim() -> None:
    line = _readme_test_line()
    assert "--require-hashes -r requirements/test-lock.txt" in line
    assert "--no-deps --require-hashes -r requirements/no-deps.txt" in line
    assert "-m pytest" in line
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert line in ci, ".ci/run must run the README's test line, verbatim"
