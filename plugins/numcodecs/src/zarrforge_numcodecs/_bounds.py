"""Sanity checks on compressed-stream headers, run before decompressing.

Contract: each ``check_*`` function reads only the header of an encoded
chunk and raises :class:`~zarrforge.errors.CorruptChunkError` when the header
is structurally impossible (truncated data, sizes that do not add up) or
declares a decoded size the stream could not possibly produce. The point is
that garbage or hostile bytes fail fast instead of making the decompressor
allocate gigabytes. A chunk that passes may still be corrupt; the
decompressor reports that.

The bounds are derived from the formats, so they never reject valid data:

* zstd: every block decodes to at most 128 KiB and takes at least 4 bytes
  (3-byte header + 1 byte for an RLE block), so a frame decodes to at most
  32768 times its size.
* lz4 (numcodecs' framing: a 4-byte little-endian decoded size, then one lz4
  block): a block expands at most ~255-fold (each 255 in a length field costs
  one byte).
* blosc: the 16-byte header's ``cbytes`` must lie between the header size and
  the chunk size, and the block-offset table must fit in it. Bytes after
  ``cbytes`` are ignored, as blosc itself does: z5py pads its chunks with 16
  zero bytes and zarr-python reads them. Only a chunk *shorter* than
  ``cbytes`` is truncated.
* numcodecs' vlen-* codecs: the leading item count must be the number of
  elements the chunk holds (each item also needs a 4-byte length).

Messages start with ``codec '<name>':``, the name passed as ``codec``.
"""

from __future__ import annotations

import struct

from zarrforge.errors import CorruptChunkError


def byte_view(data: bytes | memoryview) -> memoryview:
    """``data`` as a flat view of unsigned bytes (``len`` counts bytes, indexing gives ints)."""
    view = memoryview(data)
    if view.format == "B" and view.ndim == 1:
        return view
    try:
        return view.cast("B")
    except TypeError:  # not C-contiguous
        return memoryview(view.tobytes())


# ---- zstd -------------------------------------------------------------------

ZSTD_MAGIC = 0xFD2FB528
ZSTD_MAX_RATIO = 1 << 15


def _zstd_header(data: bytes | memoryview, codec: str = "zstd") -> tuple[int | None, int, bool] | None:
    """``(content size or None, header length, has checksum)`` of the first zstd frame.

    ``None`` when ``data`` does not start with a zstd frame (the decompressor
    reports that case).
    """
    if len(data) < 5 or struct.unpack_from("<I", data, 0)[0] != ZSTD_MAGIC:
        return None
    descriptor = data[4]
    fcs_flag = descriptor >> 6
    single_segment = (descriptor >> 5) & 1
    has_checksum = bool((descriptor >> 2) & 1)
    dict_id_size = (0, 1, 2, 4)[descriptor & 3]
    fcs_size = (1 if single_segment else 0, 2, 4, 8)[fcs_flag]
    offset = 5 + (0 if single_segment else 1) + dict_id_size
    end = offset + fcs_size
    if len(data) < end:
        raise CorruptChunkError(
            f"codec {codec!r}: zstd frame header is truncated: the chunk has {len(data)} bytes, "
            f"the header needs {end}"
        )
    if fcs_size == 0:
        return None, end, has_checksum
    fmt = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}[fcs_size]
    size = struct.unpack_from(fmt, data, offset)[0]
    return (size + 256 if fcs_size == 2 else size), end, has_checksum


def zstd_content_size(data: bytes | memoryview, codec: str = "zstd") -> int | None:
    """The decoded size recorded in the first zstd frame header, if any."""
    header = _zstd_header(data, codec)
    return None if header is None else header[0]


_XXH64_OF_NOTHING_LOW32 = 0x51D8E999  # content checksum of an empty frame


def is_empty_zstd_frame(data: bytes | memoryview, codec: str = "zstd") -> bool:
    """Whether ``data`` is exactly one well-formed zstd frame holding 0 bytes.

    numcodecs (0.16) fails on frames that *record* a content size of 0, which
    its own encoder writes for empty input; the zstd codecs answer ``b""`` for
    those themselves.
    """
    header = _zstd_header(data, codec)
    if header is None or header[0] != 0:
        return False
    _, pos, has_checksum = header
    while True:
        if len(data) < pos + 3:
            return False
        block = int.from_bytes(data[pos : pos + 3], "little")
        last, block_type, size = block & 1, (block >> 1) & 3, block >> 3
        if block_type not in (0, 1) or size != 0:  # only empty raw / RLE blocks
            return False
        pos += 3 if block_type == 0 else 4
        if last:
            break
    if has_checksum:
        if len(data) < pos + 4:
            return False
        if struct.unpack_from("<I", data, pos)[0] != _XXH64_OF_NOTHING_LOW32:
            return False
        pos += 4
    return pos == len(data)


def check_zstd(data: bytes | memoryview, codec: str = "zstd") -> None:
    size = zstd_content_size(data, codec)
    bound = len(data) * ZSTD_MAX_RATIO
    if size is not None and size > bound:
        raise CorruptChunkError(
            f"codec {codec!r}: zstd frame header declares {size} decoded bytes, but "
            f"{len(data)} compressed bytes can hold at most {bound}; the chunk is corrupt"
        )


# ---- lz4 (numcodecs framing) ----------------------------------------------------

LZ4_MAX_RATIO = 256


def check_numcodecs_lz4(data: bytes | memoryview, codec: str = "numcodecs.lz4") -> None:
    if len(data) < 4:
        raise CorruptChunkError(
            f"codec {codec!r}: lz4 chunk of {len(data)} bytes is shorter than its 4-byte size header"
        )
    size = struct.unpack_from("<i", data, 0)[0]
    bound = (len(data) - 4) * LZ4_MAX_RATIO + 64
    if size < 0 or size > bound:
        raise CorruptChunkError(
            f"codec {codec!r}: lz4 header declares {size} decoded bytes, but "
            f"{len(data) - 4} compressed bytes can hold at most {bound}; the chunk is corrupt"
        )


# ---- blosc ----------------------------------------------------------------------

BLOSC_HEADER_SIZE = 16
BLOSC_MAX_BUFFERSIZE = 2**31 - 1 - BLOSC_HEADER_SIZE
_BLOSC_MEMCPYED = 0x02


def blosc_decoded_size(data: bytes | memoryview, codec: str = "blosc") -> int:
    """The decoded size a blosc chunk declares, after checking its header is consistent.

    ``data`` may hold bytes after the blosc stream (see the module docstring);
    :func:`blosc_stream` cuts them off.
    """

    def corrupt(reason: str) -> CorruptChunkError:
        return CorruptChunkError(f"codec {codec!r}: {reason}; the chunk is truncated or corrupt")

    if len(data) < BLOSC_HEADER_SIZE:
        raise corrupt(
            f"blosc chunk of {len(data)} bytes is shorter than the {BLOSC_HEADER_SIZE}-byte blosc header"
        )
    _version, _versionlz, flags, _typesize, nbytes, blocksize, cbytes = struct.unpack_from(
        "<BBBBIII", data, 0
    )
    if cbytes > len(data):
        raise corrupt(
            f"blosc header declares {cbytes} compressed bytes but the chunk holds only {len(data)} bytes"
        )
    if cbytes < BLOSC_HEADER_SIZE:
        raise corrupt(
            f"blosc header declares {cbytes} compressed bytes, fewer than the "
            f"{BLOSC_HEADER_SIZE}-byte header itself"
        )
    if nbytes > BLOSC_MAX_BUFFERSIZE:
        raise corrupt(
            f"blosc header declares {nbytes} decoded bytes, more than blosc "
            f"can produce ({BLOSC_MAX_BUFFERSIZE})"
        )
    if flags & _BLOSC_MEMCPYED:
        if cbytes != nbytes + BLOSC_HEADER_SIZE:
            raise corrupt(
                f"blosc header marks the chunk as stored uncompressed with "
                f"{nbytes} bytes, but it holds {cbytes - BLOSC_HEADER_SIZE} bytes "
                "after the header"
            )
    elif nbytes > 0:
        if blocksize == 0:
            raise corrupt("blosc header declares a block size of 0")
        nblocks = -(-nbytes // blocksize)
        if BLOSC_HEADER_SIZE + 4 * nblocks > cbytes:
            raise corrupt(
                f"blosc header declares {nbytes} decoded bytes in {nblocks} "
                f"blocks, whose offset table alone does not fit in {cbytes} bytes"
            )
    result: int = nbytes
    return result


def blosc_stream(data: memoryview) -> memoryview:
    """The blosc stream at the start of ``data`` (a byte view whose header
    :func:`blosc_decoded_size` accepted), without any trailing bytes."""
    cbytes = struct.unpack_from("<I", data, 12)[0]
    return data[:cbytes]


# ---- gzip -----------------------------------------------------------------------

GZIP_MIN_SIZE = 18  # 10-byte member header + 8-byte trailer


def check_gzip(data: bytes | memoryview, codec: str = "gzip") -> None:
    if len(data) < GZIP_MIN_SIZE:
        raise CorruptChunkError(
            f"codec {codec!r}: gzip chunk of {len(data)} bytes is shorter than the smallest "
            f"gzip member ({GZIP_MIN_SIZE} bytes); it is truncated or corrupt"
        )


# ---- numcodecs vlen-* -------------------------------------------------------------


def check_vlen_count(data: bytes | memoryview, expected: int, codec: str) -> None:
    if len(data) < 4:
        raise CorruptChunkError(
            f"codec {codec!r}: chunk of {len(data)} bytes is shorter than its 4-byte item "
            "count; it is truncated or corrupt"
        )
    count = struct.unpack_from("<I", data, 0)[0]
    if count != expected:
        raise CorruptChunkError(
            f"codec {codec!r}: the chunk declares {count} items, expected {expected}; it is corrupt"
        )
