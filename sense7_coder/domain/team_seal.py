"""Sealed files of a team folder: encrypted to their readers, signed by their writer, named
by their content (pure Python over the ``cryptography`` package; no SQL, no Qt).

A sealed file is::

    MAGIC | n | writer's Ed25519 key (32) | ephemeral X25519 key (32)
          | n x (reader's X25519 key (32) | the content key wrapped for it (48))
          | nonce (12) | ChaCha20-Poly1305 of the body, the header as associated data
          | Ed25519 signature of everything before it (64)

The content key is random per file; each reader's wrapping key is HKDF-SHA256 of the
X25519 secret of the ephemeral key and the reader's key. A file is named
``KIND-CODERHEX-INSTALL-COUNTER-SHA256.s7t``: the hash is of the whole file, so a file cut
short, half-synced, or another file under its name never passes for it, and a sync
service's renamed copy ("... (conflicted copy ...)", "-CONFLICT") matches no name and is
left alone. Nothing here decides who may write what: that is the reader's rules.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from typing import Any

from .errors import ProjectError

MAGIC = b"S7T1"
SUFFIX = ".s7t"
#: c: a coder's change, j: a coder's machine joining, p: the lead's package for a coder,
#: a: the lead's acknowledgement of what it has read of a coder's files
KINDS = ("c", "j", "p", "a")
NAME = re.compile(r"^([cjpa])-((?:[0-9a-f]{2}){1,64})-([0-9a-f]{16})-([0-9]{10})-([0-9a-f]{64})"
                  r"\.s7t$")
_WRAP = 48
_INFO = b"sense7-coder team file v1"


@dataclass(frozen=True)
class FileName:
    kind: str
    coder: str
    install: str
    counter: int
    digest: str

    @property
    def text(self) -> str:
        return (f"{self.kind}-{self.coder.encode('utf-8').hex()}-{self.install}-"
                f"{self.counter:010d}-{self.digest}{SUFFIX}")


def parse_name(name: str) -> FileName | None:
    """The parts of a team file's name, or None for any other name (a temporary name, a
    sync service's renamed copy, a stray file)."""
    m = NAME.match(name)
    if not m:
        return None
    try:
        coder = bytes.fromhex(m[2]).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return FileName(m[1], coder, m[3], int(m[4]), m[5])


def name_for(kind: str, coder: str, install: str, counter: int, data: bytes) -> FileName:
    return FileName(kind, coder, install, counter, hashlib.sha256(data).hexdigest())


def new_install() -> str:
    return os.urandom(8).hex()


def new_keys() -> dict[str, str]:
    """A fresh X25519 (reading) and Ed25519 (signing) private key, as hex."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    return {"x25519": _raw_private(X25519PrivateKey.generate()),
            "ed25519": _raw_private(Ed25519PrivateKey.generate())}


def public_keys(private: dict[str, str]) -> dict[str, str]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    out = {}
    if "x25519" in private:
        out["x25519"] = _raw_public(X25519PrivateKey.from_private_bytes(
            bytes.fromhex(private["x25519"])))
    if "ed25519" in private:
        out["ed25519"] = _raw_public(Ed25519PrivateKey.from_private_bytes(
            bytes.fromhex(private["ed25519"])))
    return out


def proof(secret_hex: str, install: str, signing_public: str) -> str:
    """What a joining machine shows it holds the invitation's secret."""
    return hmac.new(bytes.fromhex(secret_hex), f"{install}:{signing_public}".encode(),
                    hashlib.sha256).hexdigest()


def proof_ok(secret_hex: str, install: str, signing_public: str, shown: str) -> bool:
    return hmac.compare_digest(proof(secret_hex, install, signing_public), shown)


def seal(body: bytes, signing_private: str, readers: list[str]) -> bytes:
    """``body`` encrypted to every X25519 public key in ``readers``, signed."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    if not readers or len(readers) > 255:
        raise ProjectError("a team file needs between 1 and 255 readers")
    signer = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(signing_private))
    ephemeral = X25519PrivateKey.generate()
    eph_pub = bytes.fromhex(_raw_public(ephemeral))
    content_key = ChaCha20Poly1305.generate_key()
    header = bytearray(MAGIC + bytes([len(readers)]) + bytes.fromhex(_raw_public(signer))
                       + eph_pub)
    for reader in readers:
        pub = bytes.fromhex(reader)
        shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(pub))
        wrap = _wrapping_key(shared, eph_pub, pub)
        header += pub + ChaCha20Poly1305(wrap).encrypt(bytes(12), content_key, bytes(header[:5]))
    nonce = os.urandom(12)
    sealed = bytes(header) + nonce + ChaCha20Poly1305(content_key).encrypt(nonce, body,
                                                                           bytes(header))
    return sealed + signer.sign(sealed)


def writer_of(data: bytes) -> str:
    """The signing key a sealed file names (checked by :func:`open_sealed`)."""
    if len(data) < 5 + 64 + 12 + 16 + 64 or not data.startswith(MAGIC):
        raise ProjectError("not a sealed team file")
    return data[5:37].hex()


def open_sealed(data: bytes, reader_private: str, writers: set[str]) -> bytes:
    """The body of a sealed file whose signature is by one of ``writers`` (Ed25519 public
    keys, hex) and which was sealed to ``reader_private``; ProjectError otherwise."""
    from cryptography.exceptions import InvalidSignature, InvalidTag
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PublicKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    writer = writer_of(data)
    if writer not in writers:
        raise ProjectError("signed by a key this team does not know")
    try:
        _verifier(writer).verify(data[-64:], data[:-64])
    except InvalidSignature:
        raise ProjectError("its signature does not match: changed after it was written") from None
    n = data[4]
    start = 69
    end = start + n * (32 + _WRAP)
    if n == 0 or len(data) < end + 12 + 16 + 64:
        raise ProjectError("not a sealed team file")
    me = _reader(reader_private)
    mine = _reader_public(reader_private)
    eph_pub = data[37:69]
    for i in range(n):
        at = start + i * (32 + _WRAP)
        if data[at:at + 32] != mine:
            continue
        wrap = _wrapping_key(me.exchange(X25519PublicKey.from_public_bytes(eph_pub)), eph_pub,
                             mine)
        try:
            key = ChaCha20Poly1305(wrap).decrypt(bytes(12), data[at + 32:at + 32 + _WRAP],
                                                 data[:5])
            return ChaCha20Poly1305(key).decrypt(data[end:end + 12], data[end + 12:-64],
                                                 data[:end])
        except InvalidTag:
            raise ProjectError("it does not decrypt: damaged or not written for it") from None
    raise ProjectError("it was not sealed for this reader")


@functools.lru_cache(maxsize=64)
def _reader(private_hex: str) -> Any:
    """A reading key, made once per key (a sync opens thousands of files with one)."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    return X25519PrivateKey.from_private_bytes(bytes.fromhex(private_hex))


@functools.lru_cache(maxsize=256)
def _verifier(public_hex: str) -> Any:
    """A signing key's public half, made once per key (a team has a few machines)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_hex))


@functools.lru_cache(maxsize=64)
def _reader_public(private_hex: str) -> bytes:
    return bytes.fromhex(_raw_public(_reader(private_hex)))


def _wrapping_key(shared: bytes, eph_pub: bytes, reader: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=_INFO + eph_pub + reader).derive(shared)


def _raw_private(key: object) -> str:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(serialization.Encoding.Raw,  # type: ignore[attr-defined]
                             serialization.PrivateFormat.Raw,
                             serialization.NoEncryption()).hex()


def _raw_public(key: object) -> str:
    from cryptography.hazmat.primitives import serialization

    return key.public_key().public_bytes(serialization.Encoding.Raw,  # type: ignore[attr-defined]
                                         serialization.PublicFormat.Raw).hex()
