"""The lead passphrase: stored as a salted, slow hash (scrypt), never as itself.

What it protects against is casual peeking and accidents -- a coder taking the lead's name in
the window or on the command line. It does not protect a file from someone who edits it
with sqlite3 (they can remove the hash); coder packages, which hold nothing that blinding
hides, remain the real blinding.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from ..domain.errors import ProjectError

#: scrypt's cost (N, r, p): about 16 MiB and a few tens of milliseconds per try
COST = (2**14, 8, 1)
SCHEME = "scrypt"


class PassphraseNeeded(ProjectError):
    """Taking a lead identity needs the lead passphrase, which was not given."""


def hash_passphrase(passphrase: str) -> str:
    """``scrypt:N:r:p:SALT:HASH`` (hex) for storing in the project."""
    if not passphrase:
        raise ProjectError("a lead passphrase cannot be empty")
    n, r, p = COST
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(passphrase.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)
    return f"{SCHEME}:{n}:{r}:{p}:{salt.hex()}:{digest.hex()}"


def check_passphrase(stored: str, passphrase: str) -> bool:
    """Whether ``passphrase`` matches ``stored`` (a value this module wrote). A stored value
    in any other form matches nothing: a file edited by hand cannot lower the cost."""
    parts = stored.split(":")
    if len(parts) != 6 or parts[0] != SCHEME:
        return False
    try:
        n, r, p = (int(x) for x in parts[1:4])
        salt, expected = bytes.fromhex(parts[4]), bytes.fromhex(parts[5])
    except ValueError:
        return False
    if (n, r, p) != COST or len(salt) != 16 or len(expected) != 32:
        return False
    digest = hashlib.scrypt(passphrase.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=32)
    return hmac.compare_digest(digest, expected)
