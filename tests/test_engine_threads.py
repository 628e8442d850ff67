"""When the chunk engine spreads a call over threads, and what happens when a part fails.

Small chunks are worked on the calling thread (handing the GIL between threads
costs more than their codec work); chunks with enough work outside the GIL go
to the pool, one contiguous part per worker. ``config.parallel_chunk_bytes``
sets the boundary.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import config
from zarrforge.abc.store import WrapperStore
from zarrforge.engine import pipeline
from zarrforge.engine.pipeline import UNCOMPRESSED_FACTOR, workers_for
from zarrforge.errors import StoreError
from zarrforge.testing.faults import Delay, Fail, FaultyStore, on
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

    def set_many(self, items):
        items = list(items)
        if any("/c/" in key for key, _ in items):
            self.threads.add(threading.get_ident())
        super().set_many(items)


def _array(store, chunks, compressors, threads=2):
    return zf.create_array(
        store,
        "a",
        shape=(4 * chunks[0], chunks[1]),
        dtype="uint8",
        chunks=chunks,
        compressors=compressors,
        fill_value=0,
        threads=threads,
    )


def _data(shape):
    return np.random.default_rng(1).integers(1, 255, shape, dtype=np.uint8)


def _computes(compressors) -> bool:
    engine = zf.create_array(
        MemoryStore(), "x", shape=(8,), dtype="uint8", chunks=(8,), compressors=compressors
    )._engine_()
    return engine.chain.computes(engine.spec_for((0,)))


def _slow_memory_store() -> FaultyStore:
    """Chunk requests take a few milliseconds, so every worker gets some of the work."""
    store = FaultyStore(MemoryStore())
    store.add(on(("get", "set"), "a/c/*"), Delay(0.003))
    return store


def test_small_uncompressed_chunks_stay_on_the_calling_thread() -> None:
    store = ThreadRecordingStore(MemoryStore())
    array = _array(store, (64, 64), None)  # 4 KiB chunks, no compression
    data = _data(array.shape)
    array[...] = data
    np.testing.assert_array_equal(zf.open_array(store, "a", threads=2)[...], data)
    assert store.threads == {threading.get_ident()}


def test_small_plain_chunks_use_the_pool_where_the_store_works_without_the_gil(
    tmp_path, local_batches: str
) -> None:
    """The local store with zarrforge-batch-io's C helper reads and writes a batch of files
    without the GIL (``io_without_gil``): 4 KiB plain chunks then go to every thread,
    which overlap their I/O, decided before any chunk is timed. Without the helper the
    engine times the first chunks and decides by their cost (on a disk, where a new file
    costs hundreds of microseconds, threads; on tmpfs, the calling thread). (With the
    helper, chunk requests are slowed a little so that every worker gets some of the
    work: they are never timed.)"""
    from zarrforge_std.stores.local import LocalStore

    helper = local_batches == "c-helper"
    inner: Any = LocalStore(tmp_path)
    if helper:
        inner = FaultyStore(inner)
        inner.add(on(("get", "set"), "a/c/*"), Delay(0.003))
    store = ThreadRecordingStore(inner)
    assert store.capabilities.io_without_gil is helper
    array = zf.create_array(
        store, "a", shape=(8 * 64, 8 * 64), dtype="uint8", chunks=(64, 64), compressors=None, threads=2
    )
    data = _data(array.shape)
    array[...] = data
    assert len(store.threads) == 2 or not helper
    store.threads.clear()
    reader = zf.open_array(store, "a", threads=2)
    np.testing.assert_array_equal(reader[...], data)
    assert len(store.threads) == 2 or not helper
    measured = [
        engine._costs[operation].seconds
        for engine, operation in ((array._engine_(), "write"), (reader._engine_(), "read"))
    ]
    assert all((seconds is None) is helper for seconds in measured)


def test_compressed_chunks_from_the_threshold_use_the_pool() -> None:
    store = ThreadRecordingStore(_slow_memory_store())
    # 64 KiB chunks: exactly the default threshold; 128 of them are two groups of 4 MiB
    array = zf.create_array(
        store,
        "a",
        shape=(128 * 256, 256),
        dtype="uint8",
        chunks=(256, 256),
        compressors=ZSTD,
        fill_value=0,
        threads=2,
    )
    data = _data(array.shape)
    array[...] = data
    assert len(store.threads) == 2  # the calling thread and one worker wrote chunks
    store.threads.clear()
    np.testing.assert_array_equal(zf.open_array(store, "a", threads=2)[...], data)
    assert len(store.threads) == 2


def test_parallel_chunk_bytes_zero_always_uses_the_threads(monkeypatch) -> None:
    monkeypatch.setattr(pipeline, "GROUP_BYTES", 128)  # two 64-byte chunks per group
    store = ThreadRecordingStore(_slow_memory_store())
    with config.set(parallel_chunk_bytes=0):
        array = _array(store, (8, 8), None)
        data = _data(array.shape)
        array[...] = data
        assert len(store.threads) == 2
        store.threads.clear()
        np.testing.assert_array_equal(zf.open_array(store, "a", threads=2)[...], data)
        assert len(store.threads) == 2


def test_a_call_with_one_group_stays_on_the_calling_thread() -> None:
    store = ThreadRecordingStore(MemoryStore())
    with config.set(parallel_chunk_bytes=0):
        array = _array(store, (8, 8), None)
        # one 64-byte chunk: one group (a call of several chunks is cut into about four
        # groups a worker, so four chunks would be four groups, raced for by two threads)
        array[:8] = _data((8, 8))
    assert store.threads == {threading.get_ident()}


@pytest.mark.parametrize("cached", [False, True])
def test_a_read_of_one_chunk_runs_on_the_calling_thread_without_grouping(monkeypatch, cached) -> None:
    """A read that touches one chunk (W4's small reads) is read straight away: no group
    sizes, no thread decision; a read of two chunks still goes through the groups."""
    store = ThreadRecordingStore(MemoryStore())
    array = zf.create_array(store, "a", shape=(8, 8), chunks=(4, 4), dtype="int32", fill_value=0)
    array[...] = _data((8, 8)).astype("int32")
    if cached:
        array = zf.open_array(store, "a", chunk_cache=1 << 20)
    calls: list[int] = []
    real = pipeline.run_groups

    def counted(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "run_groups", counted)
    store.threads.clear()
    np.testing.assert_array_equal(array[1:3, 5], _data((8, 8)).astype("int32")[1:3, 5])
    assert calls == [] and store.threads == {threading.get_ident()}
    np.testing.assert_array_equal(array[1, 3:5], _data((8, 8)).astype("int32")[1, 3:5])
    assert calls == [1]


class HighLatencyStore(WrapperStore):
    """A store that does not say it is low-latency, recording its requests."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.requests: list[int] = []

    @property
    def capabilities(self):
        return dataclasses.replace(self.inner.capabilities, low_latency=False)

    def get_many(self, requests):
        self.requests.append(len(requests))
        return super().get_many(requests)


def test_a_high_latency_store_gets_a_quarter_of_a_workers_share_per_request() -> None:
    # requests of a quarter share are fetched ahead of the decoding (chunk_io.read_ahead)
    store = HighLatencyStore(MemoryStore())
    chunks = 1 << 20  # 1 MiB: a batch is 64 chunks, a worker's share 32, a quarter 8
    array = zf.create_array(
        store,
        "a",
        shape=(128 * chunks,),
        dtype="uint8",
        chunks=(chunks,),
        compressors=ZSTD,
        fill_value=0,
        threads=2,
    )
    array[...] = np.arange(array.shape[0], dtype=np.uint64).astype(np.uint8)
    store.requests.clear()
    array[...]
    assert sorted(store.requests) == [8] * 16


@pytest.mark.parametrize(
    "nchunks, per_request",
    [
        (64, pipeline.GROUP_BYTES >> 20),  # a large call: requests of GROUP_BYTES each
        (16, 2),  # a small one: each of the two workers still gets GROUPS_PER_WORKER groups
    ],
)
def test_a_low_latency_store_gets_a_few_megabytes_per_request(
    nchunks, per_request, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ThreadRecordingStore(MemoryStore())
    calls: list[int] = []
    inner_get_many = store.get_many

    def get_many_counted(requests: Sequence[Any]) -> Any:
        calls.append(len(requests))
        return inner_get_many(requests)

    monkeypatch.setattr(store, "get_many", get_many_counted)
    chunks = 1 << 20
    array = zf.create_array(
        store,
        "a",
        shape=(nchunks * chunks,),
        dtype="uint8",
        chunks=(chunks,),
        compressors=ZSTD,
        fill_value=0,
        threads=2,
    )
    array[...] = np.arange(array.shape[0], dtype=np.uint64).astype(np.uint8)
    calls.clear()
    array[...]
    assert calls == [per_request] * (nchunks // per_request)
    assert len(calls) >= 2 * pipeline.GROUPS_PER_WORKER


def test_threads_one_never_uses_the_pool() -> None:
    store = ThreadRecordingStore(MemoryStore())
    with config.set(parallel_chunk_bytes=0):
        array = _array(store, (8, 8), None, threads=1)
        array[...] = _data(array.shape)
    assert store.threads == {threading.get_ident()}


@pytest.mark.parametrize("compressors, compressed", [(None, False), (ZSTD, True)])
def test_workers_for_counts_compression(compressors, compressed: bool) -> None:
    computes = _computes(compressors)
    assert computes == compressed
    needed = 1000 if compressed else 1000 * UNCOMPRESSED_FACTOR
    assert workers_for(computes, needed, 4, 1000) == 4
    assert workers_for(computes, needed - 1, 4, 1000) == 1
    assert workers_for(computes, 1, 4, 0) == 4


@pytest.mark.parametrize("value", [-1, 1.5, "64", True, None])
def test_parallel_chunk_bytes_must_be_a_non_negative_int(value) -> None:
    with pytest.raises(ValueError, match="parallel_chunk_bytes"):
        config.update(parallel_chunk_bytes=value)


def test_after_a_failure_no_group_is_started_and_none_runs_on(monkeypatch) -> None:
    monkeypatch.setattr(pipeline, "GROUP_BYTES", 64)  # one 64-byte chunk per group
    inner = MemoryStore()
    store = FaultyStore(inner)
    with config.set(parallel_chunk_bytes=0):
        array = zf.create_array(
            store,
            "a",
            shape=(64 * 8, 8),
            dtype="uint8",
            chunks=(8, 8),
            compressors=None,
            fill_value=0,
            threads=2,
        )
        store.add(on("set", "a/c/10/0"), Fail())  # the eleventh group fails at once
        store.add(on("set", "a/c/*"), Delay(0.003))  # the others take a while
        with pytest.raises(StoreError, match="a/c/10/0"):
            array[...] = _data(array.shape)
    stored = {int(key.split("/")[2]) for key in inner.list_prefix("a/c/")}
    # Groups are handed out in order and every group started is finished: all before
    # the failing one are stored. After it, the other thread finishes the group it
    # holds and takes no more: of the 53 groups after the failure, at most one or two ran.
    assert set(range(10)) <= stored and 10 not in stored and max(stored) <= 12
    time.sleep(0.05)
    assert {int(key.split("/")[2]) for key in inner.list_prefix("a/c/")} == stored  # none ran on


def test_a_call_made_on_a_pool_thread_does_not_wait_for_that_thread(monkeypatch) -> None:
    # A store (or codec) that reads another array while the engine calls it from a pool
    # thread: the inner call's worker is queued behind the very thread running it.
    monkeypatch.setattr(pipeline, "GROUP_BYTES", 64)
    with config.set(parallel_chunk_bytes=0):
        inner_array = _array(MemoryStore(), (8, 8), None)
        inner_array[...] = _data(inner_array.shape)

        class ReadsAnotherArray(WrapperStore):
            nested = 0

            def get_many(self, requests):
                if threading.current_thread().name.startswith("zarrforge"):
                    np.testing.assert_array_equal(inner_array[...], _data(inner_array.shape))
                    ReadsAnotherArray.nested += 1
                return super().get_many(requests)

        store = ReadsAnotherArray(_slow_memory_store())
        outer = _array(store, (8, 8), None)
        outer[...] = _data(outer.shape)
        done = threading.Event()

        def read() -> None:
            outer[...]
            done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout=30)
    assert done.is_set(), "the read deadlocked"
    assert ReadsAnotherArray.nested > 0
