"""The ``crc32c`` checksum codec of the Zarr v3 core spec (``bytes -> bytes``).

Contract:

* no configuration: ``from_json`` accepts ``None`` (or an empty object) and
  ``to_json()`` is ``{"name": "crc32c"}``.
* ``encode(data)`` returns ``data`` followed by the CRC32C (Castagnoli,
  RFC 3720) of ``data`` as a 4-byte little-endian unsigned integer, so
  ``encoded_size(n) == n + 4``.
* ``decode(data)`` checks the trailing checksum and returns the bytes before
  it. A mismatch raises :class:`~zarrforge.errors.ChecksumError` naming the
  stored (expected) and computed (actual) values; fewer than 4 bytes raise
  :class:`~zarrforge.errors.CorruptChunkError`.
"""

from __future__ import annotations

import struct
from typing import Any

import google_crc32c

from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.errors import ChecksumError, CorruptChunkError, MetadataError

from . import _bounds

CHECKSUM_SIZE = 4


def crc32c(data: bytes | memoryview) -> int:
    """The CRC32C of ``data`` as an unsigned 32-bit integer."""
    result: int = google_crc32c.value(bytes(data)) & 0xFFFFFFFF
    return result


class Crc32cCodec(BytesBytesCodec):
    name = "crc32c"

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Crc32cCodec:
        if configuration is not None and configuration != {}:
            raise MetadataError(
                f"codec 'crc32c' takes no configuration, got {configuration!r}",
                field="configuration",
                value=configuration,
            )
        return cls()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name}

    def encoded_size(self, decoded_size: int | None) -> int | None:
        return None if decoded_size is None else decoded_size + CHECKSUM_SIZE

    def encode(self, data: bytes | memoryview) -> bytes:
        data = _bounds.byte_view(data)
        return data.tobytes() + struct.pack("<I", crc32c(data))

    def decode(self, data: bytes | memoryview) -> bytes:
        data = _bounds.byte_view(data)
        if len(data) < CHECKSUM_SIZE:
            raise CorruptChunkError(
                f"codec 'crc32c': the chunk has {len(data)} bytes, too few to hold the "
                f"{CHECKSUM_SIZE}-byte checksum; it is truncated"
            )
        payload = data[:-CHECKSUM_SIZE]
        (expected,) = struct.unpack_from("<I", data, len(data) - CHECKSUM_SIZE)
        actual = crc32c(payload)
        if actual != expected:
            raise ChecksumError(
                f"codec 'crc32c': checksum mismatch, the chunk stores 0x{expected:08x} "
                f"(expected) but its data hashes to 0x{actual:08x} (actual); the chunk is "
                "corrupt"
            )
        return payload.tobytes()
