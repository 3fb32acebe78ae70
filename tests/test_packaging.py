"""The desktop bundle's pieces that can be checked without building it: the desktop,
AppStream and MIME files agree, the bundle is named with the version, the build lock pins
PyInstaller with hashes beside requirements/lock.txt, the start-up check the bundle check
relies on reports the window it opened (with a plot drawn and the versions About lists), and
the bundle check's own readings (packaging/check_bundle.py) are right."""

from __future__ import annotations

import configparser
import datetime
import importlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINUX = ROOT / "packaging" / "linux"
MIME = "application/x-sense7-project"


def test_desktop_metainfo_and_mime_type_agree() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.read(LINUX / "org.sense7.coder.desktop", encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Icon"] == "sense7-coder" and desktop["Exec"].endswith("%f")
    assert desktop["MimeType"].rstrip(";") == MIME
    meta = ET.parse(LINUX / "org.sense7.coder.metainfo.xml").getroot()
    assert meta.findtext("id") == "org.sense7.coder"
    assert meta.find("launchable").text == "org.sense7.coder.desktop"
    assert meta.findtext("provides/mediatype") == MIME
    release = meta.find("releases/release")
    assert release.get("version") == "@VERSION@" and release.get("date") == "@DATE@"  # at build
    ns = "{http://www.freedesktop.org/standards/shared-mime-info}"
    mime = ET.parse(LINUX / "sense7-coder-mime.xml").getroot().find(f"{ns}mime-type")
    assert mime.get("type") == MIME
    assert mime.find(f"{ns}glob").get("pattern") == "*.sense7"
    from sense7_coder.store.schema import APPLICATION_ID

    inner = mime.find(f"{ns}magic/{ns}match/{ns}match")
    assert int(inner.get("value"), 16) == APPLICATION_ID and inner.get("offset") == "68"


def build_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return str(tomllib.load(fh)["project"]["version"])


def packaging_module(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "packaging"))


def test_bundle_is_named_with_the_pyproject_version() -> None:
    build = packaging_module("build")
    with open(ROOT / "pyproject.toml", "rb") as fh:
        version = tomllib.load(fh)["project"]["version"]
    assert build.version() == version
    assert build.bundle_name().startswith(f"sense7-coder-{version}-")


def test_installed_metainfo_has_the_version_and_its_release_date(tmp_path: Path) -> None:
    """appstreamcli refused the metainfo without a release date."""
    build = packaging_module("build")
    build.add_linux_integration(tmp_path, [])
    installed = tmp_path / "share" / "metainfo" / "org.sense7.coder.metainfo.xml"
    release = ET.parse(installed).getroot().find("releases/release")
    assert release.get("version") == build.version()
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    if f"## [{build.version()}] - " in changelog:
        assert f"## [{build.version()}] - {release.get('date')}" in changelog
    else:  # not released yet: the build's date
        assert release.get("date") == datetime.date.today().isoformat()
    tool = shutil.which("appstreamcli")
    if tool:
        proc = subprocess.run([tool, "validate", "--no-net", str(installed)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_build_lock_pins_pyinstaller_with_hashes_beside_the_runtime_lock() -> None:
    """The bundle is built from locked versions: both locks go into one pip install with
    --require-hashes, so every pin has hashes and no package is pinned by both."""
    from test_lock import pins

    build_lock = pins(ROOT / "packaging" / "build-lock.txt")
    runtime = pins(ROOT / "requirements" / "lock.txt")
    assert {"pyinstaller", "pyinstaller-hooks-contrib", "colorama"} <= set(build_lock)
    assert all(hashes for _version, hashes in build_lock.values())
    assert not set(build_lock) & set(runtime), "pinned in both locks: recompile build-lock"
    line = ("pip install --require-hashes -r requirements/lock.txt -r packaging/build-lock.txt"
            " && .venv-build/bin/pip install --no-deps .")
    for readme in (ROOT / "README.md", ROOT / "packaging" / "README.md"):
        assert line in readme.read_text(encoding="utf-8"), readme


def test_build_refuses_an_environment_off_the_locks(tmp_path: Path) -> None:
    """The 0.2.0 bundle was built from the newest releases, two of which differed from
    lock.txt; build.py now names each package off the locks."""
    build = packaging_module("build")
    lock = tmp_path / "lock.txt"
    lock.write_text("scipy==1.17.1 \\\n    --hash=sha256:00\nPyYAML==6.0 \\\n"
                    "colorama==0.4.6 ; sys_platform == 'win32' \\\n", encoding="utf-8")
    locked = build.locked_versions(lock)
    assert locked == {"scipy": "1.17.1", "pyyaml": "6.0", "colorama": "0.4.6"}
    assert build.unlocked(locked, {"scipy": "1.17.1", "pyyaml": "6.0"}) == []  # no colorama
    assert build.unlocked(locked, {"scipy": "1.18.0", "pyyaml": None}) == [
        "pyyaml missing (locked 6.0)", "scipy 1.18.0 (locked 1.17.1)"]
    real = build.locked_versions(ROOT / "requirements" / "lock.txt",
                                 ROOT / "packaging" / "build-lock.txt")
    assert real["pyinstaller"] and real["scipy"] and real["pillow"]


def test_bundle_check_reads_the_versions_it_compares() -> None:
    check = packaging_module("check_bundle")
    paragraph = ("Inter-rater agreement was computed with sense7-coder 0.2.0 (numpy 2.4.6, "
                 "scipy version unknown, krippendorff 0.9.0) for 8 codes (overall, ...)")
    assert check.methods_versions(paragraph) == (
        "sense7-coder 0.2.0 (numpy 2.4.6, scipy version unknown, krippendorff 0.9.0)")
    html = ("<p>Computed with sense7-coder 0.2.0, pandas 3.1.1, numpy 2.4.6, scipy 1.17.1, "
            "matplotlib 3.11.2, krippendorff 0.9.0.</p>")
    assert check.versions_line(html) == ("sense7-coder 0.2.0, pandas 3.1.1, numpy 2.4.6, "
                                         "scipy 1.17.1, matplotlib 3.11.2, krippendorff 0.9.0")
    # a bundle without the metadata left the libraries out of analyze's report
    assert check.versions_line("<p>Computed with sense7-coder 0.2.0.</p>") is None


def test_bundle_check_finds_the_newest_glibc_a_binary_needs(tmp_path: Path) -> None:
    check = packaging_module("check_bundle")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.so").write_bytes(b"\x7fELF...GLIBC_2.17\x00GLIBC_2.34\x00")
    (tmp_path / "b.so").write_bytes(b"\x7fELF...GLIBC_2.4\x00GLIBC_PRIVATE\x00")
    (tmp_path / "notes.txt").write_bytes(b"GLIBC_2.99\x00")  # not a binary
    assert check.glibc_floor(tmp_path) == ((2, 34), tmp_path / "lib" / "a.so")


def test_bundle_checks_schema_breaking_qdpx_is_refused_for_the_schema_alone(
        demo_project: Path, tmp_path: Path) -> None:
    """The file check_bundle.py expects the bundle to refuse: well-formed, read by the app's
    own checks, refused only by the REFI-QDA schema (so its refusal proves xmlschema and the
    schema file are there)."""
    from sense7_coder.cli import main
    from sense7_coder.domain.errors import InputError
    from sense7_coder.domain.refi.reading import read_qdpx
    from sense7_coder.project.refi.importing import schema_file

    check = packaging_module("check_bundle")
    qdpx = tmp_path / "demo.qdpx"
    assert main(["export-qdpx", str(demo_project), str(qdpx)]) == 0
    broken = check.break_schema(qdpx, tmp_path / "broken.qdpx")
    assert read_qdpx(broken).sources  # without the schema it reads
    with pytest.raises(InputError, match="breaks the REFI-QDA project schema.*NotInTheSchema"):
        read_qdpx(broken, schema=schema_file())


@pytest.mark.gui
def test_start_up_check_reports_the_open_workspace(demo_project: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SENSE7_CODER_SMOKE": str(report),
           "SENSE7_CODER_SMOKE_PLOT": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "sense7_coder", "gui", str(demo_project)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    state = json.loads(report.read_text(encoding="utf-8"))
    assert state["shown"] and state["project"] == str(demo_project)
    assert state["conversation"] == "101" and state["turns"] > 0
    assert demo_project.name in state["title"]
    assert state["plot"] == {"drawn": True, "failure": None, "size": [640, 320]}
    assert state["about"]["scipy"] == importlib.metadata.version("scipy")
    assert state["about"]["sense7-coder"] == build_version()
