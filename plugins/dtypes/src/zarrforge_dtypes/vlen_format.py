"""The variable-length item framing shared by ``vlen-utf8`` and ``vlen-bytes``.

Layout (the one numcodecs' ``VLenUTF8`` / ``VLenBytes`` use)::

    u32le  item count n
    n times:
        u32le  length L of the item in bytes
        L bytes

:func:`pack` frames a sequence of byte strings. :func:`unpack` reads them back
from untrusted input and raises :class:`~zarrforge.errors.CorruptChunkError`
when the buffer does not hold exactly ``expected`` well-formed items: a short
header, a count other than ``expected``, a length running past the end of
the buffer, or bytes left over after the last item. It checks the declared
count against the buffer size before allocating anything, so memory use is
bounded by the size of the input (plus one Python object per item).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from zarrforge.errors import CorruptChunkError

_U32 = struct.Struct("<I")
MAX_ITEM = 2**32 - 1


def pack(items: Sequence[bytes]) -> bytes:
    """Frame ``items`` (each at most 4 GiB - 1 bytes) in the vlen layout."""
    parts = [_U32.pack(len(items))]
    for item in items:
        parts.append(_U32.pack(len(item)))  # struct.error for items of 4 GiB or more
        parts.append(item)
    return b"".join(parts)


def unpack(data: bytes | memoryview, expected: int) -> list[bytes]:
    """The ``expected`` items framed in ``data``."""
    view = memoryview(data).cast("B")
    size = len(view)
    if size < 4:
        raise CorruptChunkError(f"a vlen chunk needs at least a 4-byte item count, got {size} byte(s)")
    (count,) = _U32.unpack_from(view, 0)
    if count != expected:
        raise CorruptChunkError(f"the chunk declares {count} item(s) but its shape holds {expected}")
    if 4 + 4 * count > size:
        raise CorruptChunkError(
            f"the chunk declares {count} item(s), which need at least "
            f"{4 + 4 * count} bytes, but it has only {size}"
        )
    items: list[bytes] = []
    append = items.append
    offset = 4
    unpack_from = _U32.unpack_from
    for index in range(count):
        if offset + 4 > size:
            raise CorruptChunkError(
                f"the chunk ends inside the length of item {index} (at byte {offset} of {size})"
            )
        (length,) = unpack_from(view, offset)
        offset += 4
        end = offset + length
        if end > size:
            raise CorruptChunkError(
                f"item {index} declares {length} byte(s) at offset {offset}, "
                f"past the end of the {size}-byte chunk"
            )
        append(bytes(view[offset:end]))
        offset = end
    if offset != size:
        raise CorruptChunkError(f"{size - offset} byte(s) follow the last of the {count} item(s)")
    return items
