"""When the chunk engine spreads a call over threads, and what happens when a part fails.

Small chunks are worked on the calling thread (handing the GIL between threads
costs more than their codec work); chunks with enough work outside the GIL go
to the pool, one contiguous part per worker. ``config.parallel_chunk_bytes``
sets the boundary.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import config
from zarrforge.abc.store import WrapperStore
from zarrforge.codec_chain import CodecChain
from zarrforge.errors import StoreError
from zarrforge.pipeline import UNCOMPRESSED_FACTOR, workers_for
from zarrforge.testing.faults import Fail, FaultyStore, on
from zarrforge_std.stores.memory import MemoryStore

ZSTD = [{"name": "zstd", "configuration": {"level": 1, "checksum": False}}]


class ThreadRecordingStore(WrapperStore):
    """Remembers which threads read and wrote chunks."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.threads: set[int] = set()

    def get_many(self, requests):
        if any("/c/" in key for key, _ in requests):
            self.threads.add(threading.get_ident())
        return super().get_many(requests)

    def _set(self, key, value):
        if "/c/" in key:
            self.threads.add(threading.get_ident())
        super()._set(key, value)


def _array(store, chunks, compressors, threads=2):
    return zf.create_array(store, "a", shape=(4 * chunks[0], chunks[1]), dtype="uint8",
                           chunks=chunks, compressors=compressors, fill_value=0, threads=threads)


def _data(shape):
    return np.random.default_rng(1).integers(1, 255, shape, dtype=np.uint8)


def _chain(compressors):
    return zf.create_array(MemoryStore(), "x", shape=(8,), dtype="uint8", chunks=(8,),
                           compressors=compressors)._chain()


def test_small_uncompressed_chunks_stay_on_the_calling_thread() -> None:
    store = ThreadRecordingStore(MemoryStore())
    array = _array(store, (64, 64), None)  # 4 KiB chunks, no compression
    data = _data(array.shape)
    array[...] = data
    np.testing.assert_array_equal(zf.open_array(store, "a", threads=2)[...], data)
    assert store.threads == {threading.get_ident()}


def test_compressed_chunks_from_the_threshold_use_the_pool() -> None:
    store = ThreadRecordingStore(MemoryStore())
    array = _array(store, (256, 256), ZSTD)  # 64 KiB chunks: exactly the default threshold
    data = _data(array.shape)
    array[...] = data
    assert len(store.threads) == 2  # the calling thread and one worker wrote chunks
    store.threads.clear()
    np.testing.assert_array_equal(zf.open_array(store, "a", threads=2)[...], data)
    assert len(store.threads) == 2


def test_parallel_chunk_bytes_zero_always_uses_the_threads() -> None:
    store = ThreadRecordingStore(MemoryStore())
    with config.set(parallel_chunk_bytes=0):
        array = _array(store, (8, 8), None)
        array[...] = _data(array.shape)
    assert len(store.threads) == 2


def test_threads_one_never_uses_the_pool() -> None:
    store = ThreadRecordingStore(MemoryStore())
    with config.set(parallel_chunk_bytes=0):
        array = _array(store, (8, 8), None, threads=1)
        array[...] = _data(array.shape)
    assert store.threads == {threading.get_ident()}


@pytest.mark.parametrize("compressors, compressed", [(None, False), (ZSTD, True)])
def test_workers_for_counts_compression(compressors, compressed: bool) -> None:
    chain: CodecChain = _chain(compressors)
    needed = 1000 if compressed else 1000 * UNCOMPRESSED_FACTOR
    assert workers_for(chain, needed, 4, 1000) == 4
    assert workers_for(chain, needed - 1, 4, 1000) == 1
    assert workers_for(chain, 1, 4, 0) == 4


@pytest.mark.parametrize("value", [-1, 1.5, "64", True, None])
def test_parallel_chunk_bytes_must_be_a_non_negative_int(value) -> None:
    with pytest.raises(ValueError, match="parallel_chunk_bytes"):
        config.update(parallel_chunk_bytes=value)


def test_a_failing_worker_part_fails_the_call_after_the_other_parts_finish() -> None:
    inner = MemoryStore()
    store = FaultyStore(inner)
    with config.set(parallel_chunk_bytes=0):
        array = _array(store, (8, 8), None)  # four chunks: two parts of two
        store.add(on("set", "a/c/3/0"), Fail())  # the last chunk of the worker's part
        with pytest.raises(StoreError, match="a/c/3/0"):
            array[...] = _data(array.shape)
    # The calling thread's part and the worker's first chunk were stored in full.
    assert sorted(k for k in inner.list_prefix("a/c/")) == ["a/c/0/0", "a/c/1/0", "a/c/2/0"]
