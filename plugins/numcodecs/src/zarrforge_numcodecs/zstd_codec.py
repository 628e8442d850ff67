"""The ``zstd`` codec of the zarr-extensions registry (``bytes -> bytes``).

Contract:

* configuration ``{"level": L, "checksum": C}``: ``L`` an integer from
  -131072 to 22 (0 selects zstd's default level; required), ``C`` a boolean
  (optional, default ``false``) asking the encoder to store a content
  checksum that the decoder verifies. ``from_json("zstd", None)`` uses
  ``{"level": 0, "checksum": false}``, zarr-python's default.
* ``to_json()`` always writes both keys, as zarr-python does:
  ``{"name": "zstd", "configuration": {"level": 0, "checksum": false}}``.
* decoding accepts any zstd frame, including frames that do not record
  their decoded size (as streaming compressors write them), and raises
  :class:`~zarrforge.errors.CorruptChunkError` for anything else, or when
  the frame header declares a decoded size the frame cannot hold.
* the encoded size depends on the data: ``encoded_size`` is ``None``.

Needs numcodecs >= 0.16 for frames without a recorded size; with older
numcodecs those fail to decode (as a ``CorruptChunkError``).

Encoding goes through the ``zstandard`` package with one compressor per thread,
which keeps its compression context from chunk to chunk (numcodecs makes a new
one per call: about 7% slower on the sharded write benchmark). The frames
record their content size, as numcodecs' do. Decoding a single frame that records
its size, no more than the chunk may hold, goes through ``zstandard`` too, with one
decompressor per thread (about 15% faster than numcodecs on the benchmark's 128 KiB
inner chunks); anything else (several frames, a frame without its size, a corrupt
one) goes to numcodecs and the size checks of :mod:`zarrforge_numcodecs._inflate`,
which decode it or name what is wrong.
"""

from __future__ import annotations

import threading
from typing import Any

import zstandard
from numcodecs.compat import ensure_bytes
from numcodecs.zstd import Zstd

from zarrforge.abc.codec import BytesBytesCodec

from . import _bounds, _inflate, _validate
from ._configured import KeywordConfigured
from ._failures import decoding, encoding

MIN_LEVEL = -131072
MAX_LEVEL = 22


class ZstdCodec(KeywordConfigured, BytesBytesCodec):
    name = "zstd"
    _config_keys = ("level", "checksum")
    _required_keys = ("level",)

    def __init__(self, level: int = 0, checksum: bool = False) -> None:
        self._level = _validate.integer(self.name, "level", level, minimum=MIN_LEVEL, maximum=MAX_LEVEL)
        self._checksum = _validate.boolean(self.name, "checksum", checksum)
        self._zstd = Zstd(level=self._level, checksum=self._checksum)
        self._compressors = threading.local()  # a zstandard compressor serves one thread
        self._decompressors = threading.local()  # and so does a decompressor

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled by its settings: the per-thread compressors are not picklable (and each
        # process makes its own); xarray pickles datasets whose encoding holds codecs
        return type(self), (self._level, self._checksum)

    @property
    def level(self) -> int:
        return self._level

    @property
    def checksum(self) -> bool:
        return self._checksum

    def _configuration(self) -> dict[str, Any]:
        return {"level": self._level, "checksum": self._checksum}

    def encode(self, data: bytes | memoryview) -> bytes:
        compressor = getattr(self._compressors, "zstd", None)
        if compressor is None:
            compressor = self._compressors.zstd = zstandard.ZstdCompressor(
                level=self._level, write_checksum=self._checksum, write_content_size=True
            )
        with encoding(self.name):
            return compressor.compress(data)

    def decode(self, data: bytes | memoryview) -> bytes:
        data = _bounds.byte_view(data)
        _bounds.check_zstd(data)
        if _bounds.is_empty_zstd_frame(data):
            return b""
        with decoding(self.name):
            result: bytes = ensure_bytes(self._zstd.decode(data))
            return result

    def decode_sized(self, data: bytes | memoryview, expected_size: int) -> bytes:
        view = _bounds.byte_view(data)
        declared = _bounds.zstd_content_size(view, self.name)
        if declared is not None and 0 < declared <= expected_size:
            decompressor = getattr(self._decompressors, "zstd", None)
            if decompressor is None:
                decompressor = self._decompressors.zstd = zstandard.ZstdDecompressor()
            try:
                # exactly one frame, decoded to the size it declares (checksum verified)
                result: bytes = decompressor.decompress(view, allow_extra_data=False)
                return result
            except zstandard.ZstdError:
                pass  # several frames, or a corrupt one: the checked path decodes or names it
        return _inflate.zstd_sized(self._zstd, view, expected_size, self.name)
