"""First start on Linux: missing system libraries are named, all at once, before Qt aborts."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from sense7_coder.ui import system_libs as sl

ROOT = Path(__file__).resolve().parents[1]
X11 = {"DISPLAY": ":0"}


class FakeLoader:
    """Loads everything except ``missing``; a library in ``needs`` fails for the first of its
    missing dependencies, worded as the system loader words it."""

    def __init__(self, missing: Iterable[str] = (), needs: dict[str, list[str]] | None = None):
        self.missing = set(missing)
        self.needs = needs or {}
        self.tried: list[str] = []

    def __call__(self, name: str) -> object:
        self.tried.append(name)
        for lib in [name, *self.needs.get(name, [])]:
            if lib in self.missing:
                raise OSError(f"{lib}: cannot open shared object file: No such file or directory")
        return object()


def test_all_present_means_no_message() -> None:
    loader = FakeLoader()
    assert sl.check(X11, "linux", loader) is None
    assert "libxcb-cursor.so.0" in loader.tried and "libEGL.so.1" in loader.tried


def test_every_missing_library_is_named_in_one_line_with_both_package_names() -> None:
    loader = FakeLoader(missing={"libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-shape.so.0",
                                 "libxcb-xkb.so.1", "libdbus-1.so.3"})
    line = sl.check(X11, "linux", loader)
    assert line is not None and "\n" not in line
    for soname in ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-shape.so.0",
                   "libxcb-xkb.so.1", "libdbus-1.so.3"):
        assert soname in line
    apt = re.search(r"sudo apt install ([^`]+)`", line)
    dnf = re.search(r"sudo dnf install ([^`]+)`", line)
    assert apt and dnf
    assert apt.group(1).split() == ["libdbus-1-3", "libxcb-cursor0", "libxcb-icccm4",
                                    "libxcb-shape0", "libxcb-xkb1"]
    # Fedora ships libxcb-shape and libxcb-xkb in one package: named once
    assert dnf.group(1).split() == ["dbus-libs", "xcb-util-cursor", "xcb-util-wm", "libxcb"]


def test_a_library_missing_a_dependency_reports_the_dependency() -> None:
    loader = FakeLoader(missing={"libxcb-xkb.so.1"},
                        needs={"libxkbcommon-x11.so.0": ["libxcb-xkb.so.1"]})
    missing = sl.missing_libraries(sl.XCB_LIBRARIES, loader)
    assert [lib.soname for lib in missing] == ["libxcb-xkb.so.1"]


def test_offscreen_and_wayland_skip_the_x11_libraries() -> None:
    for environ in ({"QT_QPA_PLATFORM": "offscreen"}, {"QT_QPA_PLATFORM": "wayland;xcb"},
                    {"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"},
                    {"WAYLAND_DISPLAY": "wayland-0"}):
        loader = FakeLoader(missing={"libxcb-cursor.so.0"})
        assert sl.check(environ, "linux", loader) is None, environ
        assert "libxcb-cursor.so.0" not in loader.tried
        assert "libGL.so.1" in loader.tried  # Qt's GUI library needs these everywhere


def test_the_platform_qt_will_use() -> None:
    assert sl.qt_platform({}) == "xcb"
    assert sl.qt_platform({"DISPLAY": ":0", "WAYLAND_DISPLAY": "w"}) == "xcb"
    assert sl.qt_platform({"QT_QPA_PLATFORM": "xcb:nograb"}) == "xcb"
    assert sl.qt_platform({"QT_QPA_PLATFORM": " XCB ;wayland"}) == "xcb"
    assert sl.qt_platform({"QT_QPA_PLATFORM": "minimal"}) == "minimal"
    assert sl.qt_platform({"XDG_SESSION_TYPE": "wayland"}) == "wayland"


def test_other_systems_are_not_checked() -> None:
    for platform in ("win32", "darwin"):
        loader = FakeLoader(missing={"libGL.so.1"})
        assert sl.check(X11, platform, loader) is None
        assert loader.tried == []


def test_a_library_the_table_does_not_know_is_named_by_its_soname(monkeypatch) -> None:
    """Loading the platform plugin itself catches what a newer Qt links against."""
    monkeypatch.setattr(sl, "xcb_plugin", lambda: "/opt/qt/platforms/libqxcb.so")
    loader = FakeLoader(missing={"libxcb-new.so.2"},
                        needs={"/opt/qt/platforms/libqxcb.so": ["libxcb-new.so.2"]})
    line = sl.check(X11, "linux", loader)
    assert line is not None
    assert "libxcb-new.so.2" in line and "sudo apt install libxcb-new.so.2" in line


def test_an_unreadable_plugin_is_left_to_qt(monkeypatch) -> None:
    monkeypatch.setattr(sl, "xcb_plugin", lambda: "/opt/qt/platforms/libqxcb.so")

    def load(name: str) -> object:
        if name.endswith("libqxcb.so"):
            raise OSError(f"{name}: invalid ELF header")
        return object()

    assert sl.check(X11, "linux", load) is None


def test_on_this_machine_the_real_loader_finds_what_the_tests_use() -> None:
    """The real check passes where the window's tests run (no false alarm)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux only")
    assert sl.check({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    missing = sl.missing_libraries([sl.Library("libsense7-none.so.9", "a", "b")])
    assert [lib.soname for lib in missing] == ["libsense7-none.so.9"]


PROBE = """
import json, sys
from sense7_coder.cli import main
code = main(["gui"])
qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6"))
print("PROBE " + json.dumps({"code": code, "qt": qt}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_the_command_line_stops_before_qt_with_one_line(tmp_path: Path) -> None:
    """With the real system loader: unloadable copies of two xcb libraries come first on
    the library path, as if they were missing."""
    for name in ("libxcb-cursor.so.0", "libxcb-icccm.so.4"):
        (tmp_path / name).write_bytes(b"")
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path), DISPLAY=":99")
    env.pop("QT_QPA_PLATFORM", None)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("XDG_SESSION_TYPE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("PROBE ")]
    assert line, proc.stderr
    result = json.loads(line[-1][len("PROBE "):])
    assert result == {"code": 2, "qt": []}
    errors = proc.stderr.strip().splitlines()
    assert len(errors) == 1
    assert errors[0].startswith("sense7-coder: error: the window cannot start")
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4" in errors[0]
    assert "sudo dnf install xcb-util-cursor xcb-util-wm" in errors[0]


def test_the_readme_names_every_package() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    apt = re.search(r"^sudo apt install (.+)$", text, re.M)
    dnf = re.search(r"^sudo dnf install (.+)$", text, re.M)
    assert apt and dnf
    libraries = [*sl.GUI_LIBRARIES, *sl.XCB_LIBRARIES]
    assert set(apt.group(1).split()) == {lib.debian for lib in libraries}
    assert set(dnf.group(1).split()) == {lib.fedora for lib in libraries}
