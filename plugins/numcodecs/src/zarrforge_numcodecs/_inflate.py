"""Decoding to a known size: decompression bombs are refused before they inflate.

Contract: the codec chain knows how many bytes a compressor's output must have
when the codecs before it have fixed sizes (``bytes`` of a fixed-size data
type, checksums). The functions here take that ``expected`` size and either
return the decoded bytes (never more than ``expected``) or raise
:class:`~zarrforge.errors.CorruptChunkError` naming the codec, having held at
most about ``expected`` bytes of output:

* :func:`inflate` decompresses zlib, gzip, bz2 and lzma streams with the
  standard library's incremental decompressors, asking for at most
  ``expected + 1`` bytes. Concatenated streams are handled as the stdlib's
  one-shot functions (which numcodecs calls) handle them: gzip decodes every
  member and allows zero padding after the last; bz2 and lzma decode further
  streams and ignore trailing bytes that are not one; zlib ignores whatever
  follows its stream.
  An lzma codec's ``filters`` are given to the decompressor only for
  ``FORMAT_RAW``: the xz and alone containers record their filter chain, and the
  standard library refuses filters for them (numcodecs passes them anyway, so it
  cannot decode what it encodes with ``filters`` in its default xz format;
  :func:`lzma_decompress` is the unsized decoding that can).
* :func:`check_declared` refuses a chunk whose header (blosc, lz4, zstd)
  declares more than ``expected`` bytes, before the decompressor allocates
  them.
* :func:`zstd_sized` checks a zstd frame's declared size against ``expected``;
  :func:`zstd_into` decodes a frame that does not record its size into a
  buffer of exactly ``expected`` bytes (libzstd stops when it is full).
"""

from __future__ import annotations

import bz2
import lzma
import zlib
from collections.abc import Callable
from typing import Any

from numcodecs.compat import ensure_bytes

from zarrforge.errors import CorruptChunkError

from . import _bounds
from ._failures import decoding


def _gzip_member(_: Any) -> Any:
    return zlib.decompressobj(16 + zlib.MAX_WBITS)


def _lzma_filters(numcodec: Any) -> Any:
    """The filter chain the decompressor needs: only a raw stream lacks its own."""
    return numcodec.filters if numcodec.format == lzma.FORMAT_RAW else None


def _lzma_stream(numcodec: Any) -> Any:
    return lzma.LZMADecompressor(format=numcodec.format, filters=_lzma_filters(numcodec))


def lzma_decompress(numcodec: Any, data: bytes | memoryview, codec: str) -> bytes:
    """An lzma chunk of the numcodecs ``LZMA`` object ``numcodec``, decoded whole (the
    size unknown), with the filter chain given only for a raw stream."""
    with decoding(codec):
        return lzma.decompress(data, format=numcodec.format, filters=_lzma_filters(numcodec))


# codec id -> (a new decompressor for the numcodecs codec object, what may follow a stream)
_STREAMS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "zlib": (lambda _: zlib.decompressobj(), "ignored"),
    "gzip": (_gzip_member, "members"),
    "bz2": (lambda _: bz2.BZ2Decompressor(), "streams"),
    "lzma": (_lzma_stream, "streams"),
}
STREAM_IDS = frozenset(_STREAMS)


def _too_large(codec: str, expected: int) -> CorruptChunkError:
    return CorruptChunkError(
        f"codec {codec!r}: the chunk decompresses to more than the {expected} bytes the "
        "array's metadata allows for it; refused before inflating further (corrupt data "
        "or a decompression bomb)"
    )


def inflate(codec_id: str, numcodec: Any, data: bytes | memoryview, expected: int, codec: str) -> bytes:
    """Decompress a ``codec_id`` stream (see :data:`STREAM_IDS`) to at most ``expected`` bytes."""
    new_decompressor, trailing = _STREAMS[codec_id]
    if codec_id == "gzip":
        _bounds.check_gzip(data, codec)
    parts: list[bytes] = []
    produced = 0
    rest: bytes | memoryview = data
    first = True
    with decoding(codec):
        while True:
            decompressor = new_decompressor(numcodec)
            try:
                # max_length >= 1 here: 0 would mean "no limit" to zlib
                piece = decompressor.decompress(rest, expected + 1 - produced)
            except (OSError, lzma.LZMAError, EOFError):
                if first or trailing != "streams":
                    raise
                break  # bytes after a complete bz2/lzma stream that are not a stream
            produced += len(piece)
            if produced > expected:
                raise _too_large(codec, expected)
            parts.append(piece)
            if not decompressor.eof:
                raise CorruptChunkError(
                    f"codec {codec!r}: the compressed stream ends before its end marker; "
                    "the chunk is truncated or corrupt"
                )
            rest = decompressor.unused_data
            first = False
            if not rest or trailing == "ignored":
                break
            if trailing == "members" and not any(rest):
                break  # zero padding after the last gzip member
    return b"".join(parts)


def check_declared(codec: str, declared: int | None, expected: int) -> None:
    """Refuse a chunk whose header declares more than ``expected`` decoded bytes."""
    if declared is not None and declared > expected:
        raise CorruptChunkError(
            f"codec {codec!r}: the chunk's header declares {declared} decoded bytes, but the "
            f"array's metadata allows {expected} for it; it is corrupt or belongs to another "
            "array"
        )


def zstd_sized(zstd: Any, data: bytes | memoryview, expected: int, codec: str) -> bytes:
    """A zstd chunk (numcodecs ``Zstd`` object ``zstd``) decoded to at most ``expected`` bytes,
    reading its frame header once."""
    declared = _bounds.zstd_content_size(data, codec)
    check_declared(codec, declared, expected)
    if declared is None:  # a streaming frame, or no zstd frame at all
        return zstd_into(zstd, data, expected, codec)
    if declared == 0 and _bounds.is_empty_zstd_frame(data, codec):
        return b""  # numcodecs cannot decode the empty frames its own encoder writes
    with decoding(codec):
        result: bytes = ensure_bytes(zstd.decode(data))
        return result


def zstd_into(zstd: Any, data: bytes | memoryview, expected: int, codec: str) -> bytes:
    """A zstd frame without a recorded size, decoded with at most ``expected`` bytes of room."""
    out = bytearray(expected)
    with decoding(codec):
        zstd.decode(data, out=out)  # numcodecs: fails unless the frame fills ``out`` exactly
    return bytes(out)
