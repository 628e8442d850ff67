"""The shard index: where each inner chunk's bytes sit inside a shard.

The index is a ``uint64`` array of shape ``chunks_per_shard + (2,)`` holding
``(offset, nbytes)`` per inner chunk, ``(2^64-1, 2^64-1)`` for an empty one.
:class:`ShardIndex` validates a decoded index against the shard it came from
(every range inside the shard, none overlapping another or the index itself,
no half-empty entries, no absurd sizes) so that a corrupt or hostile shard
gives a :class:`~zarrforge.errors.CorruptChunkError` instead of a huge
allocation or a wrong read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from zarrforge.errors import CorruptChunkError

EMPTY = np.uint64(2**64 - 1)
_EMPTY_INT = int(EMPTY)
# No inner chunk or shard of a sane array comes near this; larger values are
# treated as corruption rather than followed.
MAX_RANGE = 2**48


class ShardIndex:
    def __init__(self, entries: np.ndarray) -> None:
        self.entries = entries  # shape chunks_per_shard + (2,), uint64

    @classmethod
    def empty(cls, chunks_per_shard: tuple[int, ...]) -> ShardIndex:
        return cls(np.full((*chunks_per_shard, 2), EMPTY, dtype=np.uint64))

    @property
    def chunks_per_shard(self) -> tuple[int, ...]:
        return self.entries.shape[:-1]

    def is_empty(self, coords: tuple[int, ...]) -> bool:
        return bool(self.entries[coords][0] == EMPTY)

    def range_of(self, coords: tuple[int, ...]) -> tuple[int, int] | None:
        offset, nbytes = self.entries[coords].tolist()  # Python ints
        if offset == _EMPTY_INT:
            return None
        return offset, nbytes

    def checked_ranges(self, chunks: Any) -> dict[tuple[int, ...], tuple[int, int]]:
        """``{coords: (offset, nbytes)}`` of the non-empty entries among ``chunks``, each
        checked as :meth:`validate` would (not half empty, not absurd); overlaps and
        the shard's end are the reader's to detect (a short read is an error there)."""
        ranges = {}
        for coords in chunks:
            offset, nbytes = self.entries[coords].tolist()  # Python ints
            if offset == _EMPTY_INT and nbytes == _EMPTY_INT:
                continue
            if (offset == _EMPTY_INT) != (nbytes == _EMPTY_INT):
                raise CorruptChunkError(
                    f"shard index entry {coords} is half empty (offset {offset}, nbytes {nbytes})"
                )
            if offset >= MAX_RANGE or nbytes >= MAX_RANGE:
                raise CorruptChunkError(
                    f"shard index entry {coords} holds an absurd offset or "
                    f"size (offset {offset}, nbytes {nbytes})"
                )
            ranges[coords] = (offset, nbytes)
        return ranges

    def set(self, coords: tuple[int, ...], offset: int | None, nbytes: int | None) -> None:
        if offset is None:
            self.entries[coords] = EMPTY
        else:
            self.entries[coords] = (offset, nbytes)

    @property
    def all_empty(self) -> bool:
        return bool(np.all(self.entries[..., 0] == EMPTY))

    def validate(self, *, shard_size: int | None, reserved: tuple[int, int]) -> None:
        """Check the entries; ``shard_size`` is ``None`` when only the index was read.

        ``reserved`` is the ``[start, stop)`` byte range the index occupies when
        its position is known in absolute terms (index at the start), else an
        empty range.
        """
        flat = self.entries.reshape(-1, 2)
        offsets, sizes = flat[:, 0], flat[:, 1]
        empty_offset, empty_size = offsets == EMPTY, sizes == EMPTY
        if np.any(empty_offset != empty_size):
            i = int(np.flatnonzero(empty_offset != empty_size)[0])
            raise CorruptChunkError(
                f"shard index entry {i} is half empty (offset {int(offsets[i])}, nbytes {int(sizes[i])})"
            )
        used = ~empty_offset
        if not np.any(used):
            return
        start, length = offsets[used], sizes[used]
        if np.any(start >= MAX_RANGE) or np.any(length >= MAX_RANGE):
            raise CorruptChunkError(
                "shard index holds an absurd offset or size "
                f"(largest offset {int(start.max())}, nbytes {int(length.max())})"
            )
        stop = start + length
        if shard_size is not None and int(stop.max()) > shard_size:
            raise CorruptChunkError(
                f"shard index points past the end of the shard ({int(stop.max())} > {shard_size} bytes)"
            )
        order = np.argsort(start, kind="stable")
        start, stop = start[order], stop[order]
        if np.any(start[1:] < stop[:-1]):
            raise CorruptChunkError("shard index entries overlap")
        lo, hi = reserved
        if hi > lo and np.any((start < hi) & (stop > lo)):
            raise CorruptChunkError("shard index entries overlap the index itself")
