"""The ``gzip`` codec of the Zarr v3 core spec (``bytes -> bytes``).

Contract:

* configuration ``{"level": L}`` with ``L`` an integer 0..9 (required by the
  spec). ``from_json("gzip", None)`` -- a codec named without configuration,
  as when a user asks for ``"gzip"`` at creation -- uses level 5, the level
  zarr-python writes by default.
* encoding produces a gzip (RFC 1952) stream through ``numcodecs.GZip``;
  decoding accepts any gzip stream and raises
  :class:`~zarrforge.errors.CorruptChunkError` for anything else.
* ``to_json()`` is ``{"name": "gzip", "configuration": {"level": L}}``.
* the encoded size depends on the data: ``encoded_size`` is ``None``.
"""

from __future__ import annotations

from typing import Any

from numcodecs.compat import ensure_bytes
from numcodecs.gzip import GZip

from zarrforge.abc.codec import BytesBytesCodec

from . import _bounds, _inflate, _validate
from ._configured import KeywordConfigured
from ._failures import decoding, encoding

DEFAULT_LEVEL = 5


class GzipCodec(KeywordConfigured, BytesBytesCodec):
    name = "gzip"
    _config_keys = _required_keys = ("level",)

    def __init__(self, level: int = DEFAULT_LEVEL) -> None:
        self._level = _validate.integer(self.name, "level", level, minimum=0, maximum=9)
        self._gzip = GZip(level=self._level)

    @property
    def level(self) -> int:
        return self._level

    def _configuration(self) -> dict[str, Any]:
        return {"level": self._level}

    def encode(self, data: bytes | memoryview) -> bytes:
        with encoding(self.name):
            result: bytes = ensure_bytes(self._gzip.encode(data))
            return result

    def decode(self, data: bytes | memoryview) -> bytes:
        data = _bounds.byte_view(data)
        _bounds.check_gzip(data)
        with decoding(self.name):
            result: bytes = ensure_bytes(self._gzip.decode(data))
            return result

    def decode_sized(self, data: bytes | memoryview, expected_size: int) -> bytes:
        return _inflate.inflate("gzip", None, _bounds.byte_view(data), expected_size, self.name)
