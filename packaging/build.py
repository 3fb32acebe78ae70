"""Build the self-contained desktop bundle of sense7-coder (PyInstaller, onedir).

    python packaging/build.py [--archive] [--clean]

Run from the repository root with the Python environment that has sense7-coder's
dependencies and PyInstaller installed (``pip install . pyinstaller``). Steps:

1. render the icon (``resources/icons/sense7-coder.svg``) to PNGs at 16, 32, 48, 64, 128
   and 256 pixels and a Windows ``.ico`` with Qt (offscreen, no display needed);
2. run ``packaging/sense7-coder.spec`` (the app, ``resources/``, the codebooks, the demo,
   spaCy's blank English pipeline; no tests, no development tools);
3. add the desktop integration: on Linux ``share/`` with the ``.desktop`` entry, the icons,
   the AppStream metainfo and the MIME type of ``.sense7`` files, and
   ``install-desktop.sh`` that registers them for the current user;
4. name the folder ``sense7-coder-<version>-<os>-<arch>`` (version from pyproject.toml)
   under ``dist/``, and with ``--archive`` pack it (``.tar.gz`` on Linux and macOS,
   ``.zip`` on Windows).

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
ICON_SIZES = (16, 32, 48, 64, 128, 256)
APP = "sense7-coder"
APP_ID = "org.sense7.coder"


def version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return str(tomllib.load(fh)["project"]["version"])


def bundle_name() -> str:
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(sys.platform,
                                                                         sys.platform)
    machine = platform.machine().lower().replace("amd64", "x86_64")
    return f"{APP}-{version()}-{system}-{machine}"


def render_icons(out: Path) -> list[Path]:
    """PNGs of the SVG icon at every size, and a multi-size .ico, rendered with Qt."""
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
        if size == 256:
            image.save(str(out / f"{APP}.ico"))  # Qt's ico plugin; optional
    del _app
    return written


def run_pyinstaller() -> Path:
    work = BUILD / "pyinstaller"
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", str(PACKAGING / f"{APP}.spec"), "--noconfirm",
         "--distpath", str(BUILD / "dist"), "--workpath", str(work), "--log-level", "WARN"],
        cwd=ROOT, check=True)
    return BUILD / "dist" / APP


def add_linux_integration(bundle: Path, icons: list[Path]) -> None:
    share = bundle / "share"
    apps = share / "applications"
    apps.mkdir(parents=True, exist_ok=True)
    desktop = (PACKAGING / "linux" / f"{APP_ID}.desktop").read_text(encoding="utf-8")
    (apps / f"{APP_ID}.desktop").write_text(desktop, encoding="utf-8")
    (share / "metainfo").mkdir(exist_ok=True)
    metainfo = (PACKAGING / "linux" / f"{APP_ID}.metainfo.xml").read_text(encoding="utf-8")
    (share / "metainfo" / f"{APP_ID}.metainfo.xml").write_text(
        metainfo.replace("@VERSION@", version()), encoding="utf-8")
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
    args = parser.parse_args(argv)
    if args.clean and BUILD.exists():
        shutil.rmtree(BUILD)
    icons = render_icons(BUILD / "icons")
    built = run_pyinstaller()
    drop_test_suites(built)
    for doc in ("README.md", "LICENSE"):  # at the top of the folder, where people look
        if (built / "_internal" / doc).exists():
            shutil.copy2(built / "_internal" / doc, built / doc)
    if sys.platform.startswith("linux"):
        add_linux_integration(built, icons)
    DIST.mkdir(exist_ok=True)
    final = DIST / bundle_name()
    if final.exists():
        shutil.rmtree(final)
    shutil.move(str(built), final)
    print(f"bundle: {final} ({folder_size(final) / 2**20:.0f} MB)")
    if args.archive:
        fmt = "zip" if sys.platform == "win32" else "gztar"
        archive = shutil.make_archive(str(final), fmt, root_dir=DIST, base_dir=final.name)
        print(f"archive: {archive} ({Path(archive).stat().st_size / 2**20:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
