"""Before Qt is imported on Linux: are the system libraries its window needs installed?

Qt's X11 platform plugin (``platforms/libqxcb.so`` and ``libQt6XcbQpa``) and ``libQt6Gui``
link against system libraries that a minimal or fresh Linux install may lack. Without them
Qt aborts naming only the first one it missed, so a researcher installs one package, tries
again, and meets the next. This module tries to load every library they link against
(the ``NEEDED`` entries of those files in PySide6 6.6-6.11, less the libraries PySide6
ships and those of every Linux system) and names all missing packages at once, for
Debian/Ubuntu and for Fedora. Nothing here imports Qt.

``LoadFn`` is how a library is tried (``ctypes.CDLL`` by default; tests pass a fake).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

LoadFn = Callable[[str], object]


@dataclass(frozen=True)
class Library:
    soname: str
    debian: str  #: the Debian/Ubuntu package that provides it
    fedora: str  #: the Fedora package that provides it


#: what libQt6Gui (and so every platform, offscreen included) links against
GUI_LIBRARIES = (
    Library("libGL.so.1", "libgl1", "libglvnd-glx"),
    Library("libEGL.so.1", "libegl1", "libglvnd-egl"),
    Library("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    Library("libfreetype.so.6", "libfreetype6", "freetype"),
    Library("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
    Library("libgthread-2.0.so.0", "libglib2.0-0", "glib2"),
    Library("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
    Library("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    Library("libX11.so.6", "libx11-6", "libX11"),
)

#: what the X11 (xcb) platform plugin links against, beyond GUI_LIBRARIES
XCB_LIBRARIES = (
    Library("libxcb.so.1", "libxcb1", "libxcb"),
    Library("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    Library("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    Library("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    Library("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    Library("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    Library("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    Library("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    Library("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    Library("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    Library("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    Library("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    Library("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    Library("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    Library("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    Library("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
)

_BY_SONAME = {lib.soname: lib for lib in (*GUI_LIBRARIES, *XCB_LIBRARIES)}


def qt_platform(environ: Mapping[str, str]) -> str:
    """The platform plugin Qt will try first: ``QT_QPA_PLATFORM`` (its first choice, without
    options), else ``wayland`` in a Wayland session, else ``xcb``."""
    asked = environ.get("QT_QPA_PLATFORM", "").strip()
    if asked:
        return asked.split(";")[0].split(":")[0].strip().lower()
    if environ.get("XDG_SESSION_TYPE", "").lower() == "wayland" or (
        environ.get("WAYLAND_DISPLAY") and not environ.get("DISPLAY")
    ):
        return "wayland"
    return "xcb"


def _missing_name(error: OSError, tried: str) -> str:
    """The library a failed load could not find: the loader names it first ("libfoo.so.1:
    cannot open shared object file"); it is ``tried`` itself or one it depends on."""
    text = str(error)
    first = text.split(":", 1)[0].strip()
    return first if first.startswith("lib") and ".so" in first else tried


def missing_libraries(
    libraries: Sequence[Library], load: LoadFn = ctypes.CDLL, extra: Sequence[str] = ()
) -> list[Library]:
    """The libraries (of ``libraries``, then the files in ``extra``, such as the platform
    plugin itself) that cannot be loaded, each once, in order. A library missing for a
    dependency counts as that dependency missing; one that is not known is reported with
    its soname as the package name."""
    missing: dict[str, Library] = {}
    for name in [*(lib.soname for lib in libraries), *extra]:
        try:
            load(name)
        except OSError as e:
            soname = _missing_name(e, name)
            if soname == name and name in extra:
                continue  # the plugin file itself: unreadable, not a missing package
            missing.setdefault(soname, _BY_SONAME.get(soname, Library(soname, soname, soname)))
    return list(missing.values())


def xcb_plugin() -> str | None:
    """Path of PySide6's X11 platform plugin, found without importing PySide6."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        plugin = Path(folder) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return str(plugin)
    return None


def install_hint(missing: Sequence[Library]) -> str:
    """One line naming every missing library and the packages to install."""
    def unique(names: list[str]) -> str:
        return " ".join(dict.fromkeys(names))

    sonames = ", ".join(lib.soname for lib in missing)
    return (
        f"the window cannot start: system libraries are missing ({sonames}); install them "
        f"with `sudo apt install {unique([lib.debian for lib in missing])}` "
        f"(Debian, Ubuntu) or `sudo dnf install {unique([lib.fedora for lib in missing])}` "
        "(Fedora), then start sense7-coder again"
    )


def check(
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
    load: LoadFn = ctypes.CDLL,
) -> str | None:
    """None when the window can start as far as system libraries go, else the one line to
    show. Only Linux is checked; the X11 libraries only where Qt will use X11."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None
    libraries: list[Library] = list(GUI_LIBRARIES)
    extra: list[str] = []
    if qt_platform(environ) == "xcb":
        libraries += XCB_LIBRARIES
        plugin = xcb_plugin()
        if plugin:
            extra.append(plugin)  # anything a newer Qt links against that the list lacks
    missing = missing_libraries(libraries, load, extra)
    return install_hint(missing) if missing else None
