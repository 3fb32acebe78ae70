"""The desktop window (PySide6). The only package that imports Qt.

Importing this package guards against a reference-counting fault of PySide6 6.12 on
Python 3.11: each call of a Qt method that returns nothing (``QLabel.setText``,
``QTextFormat.setBackground``, ...) releases one reference to ``None`` that it never took,
and some paths do the same to ``True``/``False``. Python 3.12 and later make these objects
immortal, so nothing happens there; on 3.11 the count of ``None`` reaches zero after some
thousands of such calls and the interpreter aborts ("deallocating None"), which a coder
would meet mid-session. These singletons must never be freed in any case, so we raise their
counts far out of reach, which is what Python 3.12 does itself. pyproject.toml also keeps
Python 3.11 installs below PySide6 6.12; the guard stays for environments that ignore pins.
"""

from __future__ import annotations

import ctypes
import sys

#: how far the reference counts of None, True and False are raised on Python < 3.12
GUARD = 1 << 48


def keep_none_alive() -> None:
    """Make ``None``, ``True`` and ``False`` effectively immortal on Python < 3.12."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    for singleton in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(singleton))
        if refcount.value < GUARD:
            refcount.value += GUARD


keep_none_alive()
