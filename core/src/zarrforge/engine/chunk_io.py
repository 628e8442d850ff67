"""Getting chunks to and from the store: the byte ranges of one key
(:class:`KeyFetcher`), fetching groups of chunks ahead of the workers decoding them
(:func:`read_ahead`), how many chunks a batch holds (:func:`batch_size_for`), and this
process's per-chunk locks for read-modify-writes on stores without conditional writes
(:func:`chunk_locks`). The chunk engine (:mod:`zarrforge.engine.pipeline`) schedules with them."""

from __future__ import annotations

import concurrent.futures
import contextlib
import math
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..abc.chunk_grid import ChunkGrid
from ..abc.codec import VersionedRangeFetcher
from ..abc.data_type import DataType
from ..abc.store import Store
from ..storing import write_notices
from . import parallel

BATCH_BYTES = 64 * 2**20  # decoded bytes one batch may cover (bounds memory per call)
MAX_BATCH = 1024  # chunks per batch at most (bounds the size of one get_many)


class KeyFetcher(VersionedRangeFetcher):
    """The byte ranges of one stored key, one store request per call (a
    :class:`~zarrforge.abc.codec.VersionedRangeFetcher`): ranges of one version of it
    through ``Store.get_ranges`` where the store has them."""

    __slots__ = ("key", "store")

    def __init__(self, store: Store, key: str) -> None:
        self.store = store
        self.key = key

    def __call__(self, ranges: Sequence[Any]) -> list[bytes | None]:
        return self.store.get_many([(self.key, r) for r in ranges])

    @property
    def cache_key(self) -> tuple[int, str]:
        # not id(store): a store made where a freed one lay would find its memories
        return (write_notices.object_token(self.store), self.key)

    @property
    def versioned(self) -> bool:
        return self.store.capabilities.versioned_ranges

    def read_version(
        self, ranges: Sequence[Any], *, if_generation: Any = None
    ) -> tuple[list[bytes] | None, Any]:
        return self.store.get_ranges(self.key, ranges, if_generation=if_generation)


def read_ahead(
    groups: Iterator[list[Any]], fetch: Callable[[list[Any]], Any], ahead: int
) -> Iterator[tuple[list[Any], concurrent.futures.Future]]:
    """``(group, future of fetch(group))`` for each group, the fetches of the next
    ``ahead`` groups started before a group is handed out (so at most ``ahead`` groups'
    bytes wait in memory besides those being decoded)."""
    pool = parallel.read_ahead_pool()
    pending: list[tuple[list[Any], concurrent.futures.Future]] = []
    try:
        while True:
            while len(pending) <= ahead:
                group = next(groups, None)
                if group is None:
                    break
                pending.append((group, pool.submit(fetch, group)))
            if not pending:
                return
            yield pending.pop(0)
    finally:
        for _, future in pending:  # the caller stopped early (a failure): fetch no more
            future.cancel()


def typical_chunk_shape(grid: ChunkGrid) -> tuple[int, ...]:
    """The grid's regular chunk shape (its first chunk's if irregular)."""
    regular = grid.regular_chunk_shape
    if regular is not None:
        return tuple(int(n) for n in regular)
    return tuple(int(d.size(0)) if d.nchunks else 1 for d in grid.dimensions)


def typical_chunk_bytes(shape: Sequence[int], data_type: DataType) -> int:
    """Decoded bytes of a chunk of ``shape``; variable-size elements count 16 bytes
    each. A Python int: no overflow."""
    return math.prod(shape) * (data_type.item_size or 16)


def batch_size_for(chunk_bytes: int, threads: int) -> int:
    """Chunks per batch: as many as fit in :data:`BATCH_BYTES` decoded, so small chunks
    go to the store in large concurrent batches (remote stores hide their latency)
    while large chunks keep the working set to a few chunks per worker."""
    return int(min(MAX_BATCH, max(2 * threads, BATCH_BYTES // max(1, chunk_bytes))))


_LOCK_STRIPES = 64
_store_locks: weakref.WeakKeyDictionary[Any, list[threading.Lock]] = weakref.WeakKeyDictionary()
_store_locks_guard = threading.Lock()


@contextlib.contextmanager
def chunk_locks(store: Store, keys: Sequence[str]) -> Iterator[None]:
    """Hold this process's locks for ``keys`` of ``store`` (the store under any wrappers):
    on a store without conditional writes, read-modify-writes of one chunk by threads of
    this process then take turns instead of losing each other's update. Locks are
    striped and taken in order, so two writers never wait on each other in a cycle."""
    base = store.base_store()
    with _store_locks_guard:
        locks = _store_locks.get(base)
        if locks is None:
            locks = _store_locks[base] = [threading.Lock() for _ in range(_LOCK_STRIPES)]
    stripes = sorted({hash(key) % _LOCK_STRIPES for key in keys})
    for stripe in stripes:
        locks[stripe].acquire()
    try:
        yield
    finally:
        for stripe in reversed(stripes):
            locks[stripe].release()
