"""zarrforge-numcodecs: compression and checksum codecs backed by numcodecs.

Provides, as entry points in the ``zarrforge.codecs`` group:

* ``gzip``, ``blosc``, ``crc32c`` (Zarr v3 core spec) and ``zstd``
  (zarr-extensions registry), each a ``bytes -> bytes`` codec;
* the ``numcodecs.*`` family, which wraps any numcodecs codec by id
  (``numcodecs.zlib``, ``numcodecs.delta``, ...).

Codecs that can execute code when decoding (``numcodecs.pickle``) are refused
unless explicitly allowed, see :mod:`zarrforge_numcodecs.safety`.

Importing this package loads nothing heavy; each codec module is imported on
first use of its class.
"""

from __future__ import annotations

import importlib
from typing import Any

from zarrforge import __version__ as __version__  # released together, one version

_EXPORTS = {
    "GzipCodec": "gzip_codec",
    "ZstdCodec": "zstd_codec",
    "BloscCodec": "blosc_codec",
    "Crc32cCodec": "crc32c_codec",
    "NumcodecsCodec": "adapter",
    "NumcodecsArrayArrayCodec": "adapter",
    "NumcodecsArrayBytesCodec": "adapter",
    "NumcodecsBytesBytesCodec": "adapter",
}

__all__ = sorted(_EXPORTS)  # noqa: PLE0605  # computed from the table above


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
