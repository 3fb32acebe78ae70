"""The desktop bundle's pieces that can be checked without building it: the desktop,
AppStream and MIME files agree, the bundle is named with the version, and the start-up
check the bundle check relies on reports the window it opened."""

from __future__ import annotations

import configparser
import json
import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

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
    assert meta.find("releases/release").get("version") == "@VERSION@"  # filled at build
    ns = "{http://www.freedesktop.org/standards/shared-mime-info}"
    mime = ET.parse(LINUX / "sense7-coder-mime.xml").getroot().find(f"{ns}mime-type")
    assert mime.get("type") == MIME
    assert mime.find(f"{ns}glob").get("pattern") == "*.sense7"
    from sense7_coder.store.schema import APPLICATION_ID

    inner = mime.find(f"{ns}magic/{ns}match/{ns}match")
    assert int(inner.get("value"), 16) == APPLICATION_ID and inner.get("offset") == "68"


def test_bundle_is_named_with_the_pyproject_version() -> None:
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import build
    finally:
        sys.path.remove(str(ROOT / "packaging"))
    with open(ROOT / "pyproject.toml", "rb") as fh:
        version = tomllib.load(fh)["project"]["version"]
    assert build.version() == version
    assert build.bundle_name().startswith(f"sense7-coder-{version}-")


@pytest.mark.gui
def test_start_up_check_reports_the_open_workspace(demo_project: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SENSE7_CODER_SMOKE": str(report),
           "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "sense7_coder", "gui", str(demo_project)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    state = json.loads(report.read_text(encoding="utf-8"))
    assert state["shown"] and state["project"] == str(demo_project)
    assert state["conversation"] == "101" and state["turns"] > 0
    assert demo_project.name in state["title"]
