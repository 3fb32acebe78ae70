"""Build the self-contained desktop bundle of sense7-coder (PyInstaller, onedir).

    python packaging/build.py [--archive] [--clean] [--unlocked] [--pack-only]

Run from the repository root with the build environment of packaging/README.md (the
hash-locked ``requirements/lock.txt`` and ``packaging/build-lock.txt``, and sense7-coder
itself installed with ``--no-deps``); started with another Python, or one holding another
version of a locked package, it names what differs, says how to make one and stops
(``--unlocked``: build anyway, a trial bundle). Steps:

1. render the icon (``resources/icons/sense7-coder.svg``) to PNGs at 16 to 1024 pixels
   with Qt (offscreen, no display needed), and with Pillow a Windows ``.ico`` (16 to 256)
   and a macOS ``.icns`` (16 to 512@2x);
2. run ``packaging/sense7-coder.spec`` (the app, ``resources/``, the codebooks, the demo,
   the REFI-QDA schema, spaCy's blank English pipeline, the metadata of every package it
   requires; no tests, no development tools);
3. add the desktop integration: on Linux ``share/`` with the ``.desktop`` entry, the icons,
   the AppStream metainfo and the MIME type of ``.sense7`` files, and
   ``install-desktop.sh`` that registers them for the current user;
4. name the folder ``sense7-coder-<version>-<os>-<arch>`` (version from pyproject.toml)
   under ``dist/`` (on macOS it holds ``sense7-coder.app``), and with ``--archive`` pack
   it (``.tar.gz`` on Linux and macOS, ``.zip`` on Windows).

Prints the bundle's folder and size at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
BUILD = ROOT / "build"
DIST = ROOT / "dist"
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # Windows uses none above 256
APP = "sense7-coder"
APP_ID = "org.sense7.coder"


def version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return str(tomllib.load(fh)["project"]["version"])


def release_date() -> str:
    """The date of this version's heading in CHANGELOG.md (``## [0.2.0] - 2026-12-03``), or
    today's while the version is not released yet (AppStream requires a date)."""
    import datetime
    import re

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    found = re.search(rf"^## \[{re.escape(version())}\] - ([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}})",
                      changelog, re.M)
    return found.group(1) if found else datetime.date.today().isoformat()


def bundle_name() -> str:
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(sys.platform,
                                                                         sys.platform)
    machine = platform.machine().lower().replace("amd64", "x86_64")
    return f"{APP}-{version()}-{system}-{machine}"


MAKE_ENVIRONMENT = (
    "build with the environment of packaging/README.md (from the repository root):\n"
    "  python3 -m venv .venv-build && .venv-build/bin/pip install --require-hashes"
    " -r requirements/lock.txt -r packaging/build-lock.txt"
    " && .venv-build/bin/pip install --no-deps .\n  .venv-build/bin/python packaging/build.py")


def locked_versions(*locks: Path) -> dict[str, str]:
    """name -> version of every pin in pip-compile/uv style locks (markers ignored)."""
    import re

    out = {}
    for lock in locks:
        for line in lock.read_text(encoding="utf-8").splitlines():
            if found := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ \\;]+)", line):
                out[found[1].lower().replace("_", "-").replace(".", "-")] = found[2]
    return out


def unlocked(locked: dict[str, str], installed: dict[str, str | None]) -> list[str]:
    """Each locked package installed at another version or not at all (a package the lock
    pins for one system only, such as colorama on Windows, may be absent elsewhere)."""
    return [f"{name} {installed.get(name) or 'missing'} (locked {version})"
            for name, version in sorted(locked.items())
            if installed.get(name) != version and name not in OTHER_SYSTEMS_ONLY]


#: pins of packaging/build-lock.txt that only some systems install
OTHER_SYSTEMS_ONLY = {"colorama", "pefile", "pywin32-ctypes", "macholib"}


def check_environment() -> None:
    """Stop, saying how to make one, unless this Python can build the bundle from the
    locked versions (requirements/lock.txt and packaging/build-lock.txt)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version
    from importlib.util import find_spec

    missing = [m for m in ("PyInstaller", "PySide6", "sense7_coder", "PIL") if not find_spec(m)]
    if missing:
        raise SystemExit(f"{sys.executable} lacks {', '.join(missing)}: {MAKE_ENVIRONMENT}")
    locked = locked_versions(ROOT / "requirements" / "lock.txt", PACKAGING / "build-lock.txt")
    installed: dict[str, str | None] = {}
    for name in locked:
        try:
            installed[name] = installed_version(name)
        except PackageNotFoundError:
            installed[name] = None
    differ = unlocked(locked, installed)
    if differ:
        raise SystemExit(f"{sys.executable} does not hold the locked versions ("
                         f"{'; '.join(differ)}): {MAKE_ENVIRONMENT}\n"
                         "(--unlocked builds anyway, for a trial bundle only)")


def render_icons(out: Path) -> list[Path]:
    """PNGs of the SVG icon at every size (Qt), a multi-size .ico and .icns (Pillow)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(ROOT / "resources" / "icons" / f"{APP}.svg"))
    if not renderer.isValid():
        raise SystemExit("the icon SVG cannot be read")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        png = out / f"{APP}-{size}.png"
        if not image.save(str(png)):
            raise SystemExit(f"could not write {png}")
        written.append(png)
    del _app
    write_icon_files(out, written)
    return written


def write_icon_files(out: Path, pngs: list[Path]) -> None:
    """``sense7-coder.ico`` (16 to 256 px) and ``sense7-coder.icns`` (16 to 1024 px) from the
    PNGs rendered at each size; Pillow writes both on any system."""
    from PIL import Image

    by_size = {int(p.stem.rsplit("-", 1)[1]): Image.open(p).convert("RGBA") for p in pngs}
    big = by_size[max(by_size)]
    # each size drawn from the SVG at that size, not scaled down from the largest
    big.save(out / f"{APP}.ico", sizes=[(s, s) for s in ICO_SIZES],
             append_images=[im for s, im in by_size.items() if s <= 256])
    big.save(out / f"{APP}.icns", append_images=list(by_size.values()))


def run_pyinstaller() -> Path:
    work = BUILD / "pyinstaller"
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", str(PACKAGING / f"{APP}.spec"), "--noconfirm",
         "--distpath", str(BUILD / "dist"), "--workpath", str(work), "--log-level", "WARN"],
        cwd=ROOT, check=True)
    if sys.platform == "darwin":  # the spec's BUNDLE: the .app holds the whole folder
        return BUILD / "dist" / f"{APP}.app"
    return BUILD / "dist" / APP


def executable(bundle: Path, console: bool = True) -> Path:
    """The program in a bundle folder: on Windows ``sense7-coder-cli.exe`` for the command
    line (``console``) or ``sense7-coder.exe``; on macOS inside the .app."""
    if sys.platform == "win32":
        return bundle / (f"{APP}-cli.exe" if console else f"{APP}.exe")
    if sys.platform == "darwin":
        return bundle / f"{APP}.app" / "Contents" / "MacOS" / APP
    return bundle / APP


def add_linux_integration(bundle: Path, icons: list[Path]) -> None:
    share = bundle / "share"
    apps = share / "applications"
    apps.mkdir(parents=True, exist_ok=True)
    desktop = (PACKAGING / "linux" / f"{APP_ID}.desktop").read_text(encoding="utf-8")
    (apps / f"{APP_ID}.desktop").write_text(desktop, encoding="utf-8")
    (share / "metainfo").mkdir(exist_ok=True)
    metainfo = (PACKAGING / "linux" / f"{APP_ID}.metainfo.xml").read_text(encoding="utf-8")
    (share / "metainfo" / f"{APP_ID}.metainfo.xml").write_text(
        metainfo.replace("@VERSION@", version()).replace("@DATE@", release_date()),
        encoding="utf-8")
    (share / "mime" / "packages").mkdir(parents=True, exist_ok=True)
    shutil.copy2(PACKAGING / "linux" / f"{APP}-mime.xml",
                 share / "mime" / "packages" / f"{APP}.xml")
    for png in icons:
        size = png.stem.rsplit("-", 1)[1]
        target = share / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(png, target / f"{APP}.png")
        mime_target = share / "icons" / "hicolor" / f"{size}x{size}" / "mimetypes"
        mime_target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(png, mime_target / "application-x-sense7-project.png")
    scalable = share / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "resources" / "icons" / f"{APP}.svg", scalable / f"{APP}.svg")
    script = bundle / "install-desktop.sh"
    shutil.copy2(PACKAGING / "linux" / "install-desktop.sh", script)
    script.chmod(0o755)


def drop_test_suites(bundle: Path) -> int:
    """Remove the libraries' own test folders that their PyInstaller hooks collect."""
    removed = 0
    for folder in sorted(bundle.rglob("tests"), key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir():
            shutil.rmtree(folder)
            removed += 1
    return removed


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", action="store_true", help="also pack the folder")
    parser.add_argument("--clean", action="store_true", help="remove build/ first")
    parser.add_argument("--unlocked", action="store_true",
                        help="build with whatever versions are installed (a trial bundle)")
    parser.add_argument("--pack-only", action="store_true",
                        help="only pack the folder already built (after signing it)")
    args = parser.parse_args(argv)
    if args.pack_only:
        return pack(DIST / bundle_name())
    if not args.unlocked:
        check_environment()
    if args.clean and BUILD.exists():
        shutil.rmtree(BUILD)
    icons = render_icons(BUILD / "icons")
    built = run_pyinstaller()
    drop_test_suites(built)
    DIST.mkdir(exist_ok=True)
    final = DIST / bundle_name()
    if final.exists():
        shutil.rmtree(final)
    if sys.platform == "darwin":
        # dist/<name>/sense7-coder.app, where packaging/README.md's codesign line finds it
        final.mkdir()
        shutil.move(str(built), final / built.name)
        shutil.rmtree(BUILD / "dist" / APP, ignore_errors=True)  # the same files, unwrapped
    else:
        shutil.move(str(built), final)
    for doc in ("README.md", "LICENSE"):  # at the top of the folder, where people look
        shutil.copy2(ROOT / doc, final / doc)
    if sys.platform.startswith("linux"):
        add_linux_integration(final, icons)
    print(f"bundle: {final} ({folder_size(final) / 2**20:.0f} MB)")
    return pack(final) if args.archive else 0


def pack(folder: Path) -> int:
    """``<folder>.zip`` on Windows, ``<folder>.tar.gz`` elsewhere."""
    if not folder.is_dir():
        print(f"{folder} does not exist: build first", file=sys.stderr)
        return 1
    fmt = "zip" if sys.platform == "win32" else "gztar"
    archive = shutil.make_archive(str(folder), fmt, root_dir=folder.parent, base_dir=folder.name)
    print(f"archive: {archive} ({Path(archive).stat().st_size / 2**20:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
