"""The decoded-chunk cache (``chunk_cache=``, :class:`zarrforge.ChunkCache`, issue #48):
each chunk decoded once while it stays in the pool, the pool bounded, and no reader given
a chunk that is no longer stored. Store reads are counted with the ``RequestCounter``
wrapper under the array, never timed."""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.store import ByteRange, Store, WrapperStore
from zarrforge.storage import MemoryStore
from zarrforge_std.runtime_transformers import RequestCounter

SHAPE = (256, 256)
CHUNKS = (32, 32)  # an 8 x 8 grid of 4 KiB chunks
ROW_OF_CHUNKS = 8 * 32 * 32 * 4  # bytes of one row of chunks, decoded
VALUES = np.arange(SHAPE[0] * SHAPE[1], dtype="f4").reshape(SHAPE)


def chunk_fetches(counter: RequestCounter) -> list[str]:
    """The chunk keys ``counter`` was asked for (whole values or ranges), one per ask."""
    keys: list[str] = []
    for kind, detail in counter.calls:
        asked: Any = detail
        if kind == "get_many":
            keys += [key for key, _ in asked]
        elif kind == "get_versioned_many":
            keys += list(asked)
        elif kind in ("get", "get_ranges"):
            keys.append(asked[0])
        elif kind == "get_versioned":
            keys.append(asked)
    return [key for key in keys if "/c/" in key or key.startswith("c/")]


def filled(store: Any, path: str = "a", **options: Any) -> zf.Array:
    array = zf.create_array(
        store, path, shape=SHAPE, chunks=CHUNKS, dtype="f4", compressors="zstd", **options
    )
    array[...] = VALUES
    return array


def scan(array: zf.Array, rows: int) -> None:
    for start in range(0, SHAPE[0], rows):
        np.testing.assert_array_equal(array[start : start + rows], VALUES[start : start + rows])


def test_a_slab_scan_fetches_and_decodes_each_chunk_once_with_a_cache_of_one_chunk_row() -> None:
    counter = RequestCounter(MemoryStore())
    filled(counter)
    plain = zf.open_array(counter, "a")
    counter.reset()
    scan(plain, 4)
    assert len(chunk_fetches(counter)) == 64 * 8  # each chunk once per 4-row slab crossing it

    pool = zf.ChunkCache(max_bytes=ROW_OF_CHUNKS)
    cached = zf.open_array(counter, "a", chunk_cache=pool)
    counter.reset()
    scan(cached, 4)
    fetched = chunk_fetches(counter)
    assert len(fetched) == 64 and len(set(fetched)) == 64
    stats = pool.stats()
    assert (stats.misses, stats.hits) == (64, 64 * 7)
    assert stats.bytes <= ROW_OF_CHUNKS


def test_the_pool_keeps_at_most_its_cap_dropping_the_least_recently_used_first() -> None:
    pool = zf.ChunkCache(max_bytes=4 * 4096)  # four 4 KiB chunks
    counter = RequestCounter(MemoryStore())
    filled(counter)
    array = zf.open_array(counter, "a", chunk_cache=pool)
    for column in range(4):  # chunks (0, 0) .. (0, 3)
        array[0, column * 32]
    array[0, 0]  # (0, 0) is now the most recently used
    array[0, 4 * 32]  # a fifth chunk: (0, 1) goes, not (0, 0)
    stats = pool.stats()
    assert stats.entries == 4 and stats.bytes == 4 * 4096 and stats.evictions == 1
    counter.reset()
    array[0, 0]
    assert chunk_fetches(counter) == []
    array[0, 32]
    assert chunk_fetches(counter) == ["a/c/0/1"]


def test_a_chunk_larger_than_a_quarter_of_the_cap_is_not_kept() -> None:
    pool = zf.ChunkCache(max_bytes=4 * 4096 - 1)
    array = filled(MemoryStore(), chunk_cache=pool)
    np.testing.assert_array_equal(array[:32, :32], VALUES[:32, :32])
    np.testing.assert_array_equal(array[:32, :32], VALUES[:32, :32])
    stats = pool.stats()
    assert (stats.entries, stats.bytes, stats.hits, stats.bypassed) == (0, 0, 0, 2)


@pytest.mark.parametrize("how", ["whole", "part", "delete"])
def test_a_write_through_another_handle_with_another_pool_drops_the_entries(how: str) -> None:
    store = MemoryStore()
    reader = filled(store, chunk_cache=2**20)
    writer = zf.open_array(store, "a", chunk_cache=2**20)  # a pool of its own
    reader[...]  # every chunk cached in the reader's pool
    expected = VALUES.copy()
    if how == "whole":
        writer[:32, :32] = -1
        expected[:32, :32] = -1
    elif how == "part":
        writer[5, 7] = -1
        expected[5, 7] = -1
    else:
        writer[:32, :32] = 0  # all fill value: the chunk is deleted
        expected[:32, :32] = 0
        assert "a/c/0/0" not in store._data
    np.testing.assert_array_equal(reader[...], expected)


def test_two_store_objects_over_one_directory_share_entries_and_hear_each_others_writes(
    tmp_path: Path,
) -> None:
    pool = zf.ChunkCache(max_bytes=2**20)
    filled(str(tmp_path / "data.zarr"))
    first = zf.open_array(str(tmp_path / "data.zarr"), "a", chunk_cache=pool)
    first[...]
    second = zf.open_array(f"file://{tmp_path}/data.zarr", "a", chunk_cache=pool)
    assert second.store is not first.store
    second[:32, :32]  # from the pool (one recheck each: the entries predate this handle)
    assert pool.stats().misses == 64 and pool.stats().rechecks == 1
    second[0, 0] = -5
    assert first[0, 0] == -5


def test_shrinking_and_regrowing_reads_the_fill_value_not_the_old_chunks() -> None:
    array = filled(MemoryStore(), chunk_cache=2**20)
    array[...]
    array.resize((64, 64))
    array.resize(SHAPE)
    expected = np.zeros(SHAPE, "f4")
    expected[:64, :64] = VALUES[:64, :64]
    np.testing.assert_array_equal(array[...], expected)


def test_an_overwritten_array_never_reads_the_old_arrays_chunks() -> None:
    store = MemoryStore()
    pool = zf.ChunkCache(max_bytes=2**20)
    filled(store, chunk_cache=pool)[...]
    assert pool.stats().entries == 64
    replaced = zf.create_array(
        store,
        "a",
        shape=SHAPE,
        chunks=CHUNKS,
        dtype="f4",
        compressors="zstd",
        overwrite=True,
        chunk_cache=pool,
    )
    np.testing.assert_array_equal(replaced[...], np.zeros(SHAPE, "f4"))
    assert pool.stats().entries == 0


def test_deleting_a_node_drops_its_chunks_from_the_pool() -> None:
    store = MemoryStore()
    pool = zf.ChunkCache(max_bytes=2**20)
    group = zf.open_group(store, mode="w", chunk_cache=pool)
    array = group.create_array("a", shape=SHAPE, chunks=CHUNKS, dtype="f4")
    array[...] = VALUES
    array[...]
    assert pool.stats().entries == 64
    del group["a"]
    assert pool.stats().entries == 0


class WritesDuringAFetch(WrapperStore):
    """Runs ``during`` (once) inside the first chunk fetch, after the bytes were read: a
    write that lands between a reader's fetch and its keeping the decoded chunk."""

    forwards_conditional_writes = True

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.during: Any = None

    def get_versioned_many(self, keys: Sequence[str]) -> list[tuple[bytes | None, Any]]:
        fetched = self.inner.get_versioned_many(keys)
        during, self.during = self.during, None
        if during is not None:
            during()
        return fetched


def test_a_chunk_fetched_before_a_write_is_not_kept() -> None:
    base = MemoryStore()
    filled(base)
    racing = WritesDuringAFetch(base)
    pool = zf.ChunkCache(max_bytes=2**20)
    reader = zf.open_array(racing, "a", chunk_cache=pool, recheck="never")
    writer = zf.open_array(base, "a")

    def write() -> None:
        writer[:32, :32] = -1

    racing.during = write
    np.testing.assert_array_equal(reader[:32, :32], VALUES[:32, :32])  # read before the write
    assert reader[0, 0] == -1  # never the old bytes again, even with recheck="never"


def test_a_transactions_writes_reach_no_pool_before_it_commits() -> None:
    store = MemoryStore()
    pool = zf.ChunkCache(max_bytes=2**20)
    outside = filled(store, chunk_cache=pool)
    outside[...]
    with zf.transaction(store) as tx:
        inside = zf.open_array(tx, "a", chunk_cache=pool)
        inside[:32, :32] = -1
        assert inside[0, 0] == -1
        assert outside[0, 0] == VALUES[0, 0]
    assert outside[0, 0] == -1


def test_a_write_that_bypasses_zarrforge_is_seen_with_recheck_always() -> None:
    store = MemoryStore()
    always = filled(store, chunk_cache=2**20, recheck="always")
    never = zf.open_array(store, "a", chunk_cache=2**20, recheck="never")
    always[...], never[...]
    other = zf.create_array(MemoryStore(), "a", shape=SHAPE, chunks=CHUNKS, dtype="f4", compressors="zstd")
    other[:32, :32] = -1
    store.set("a/c/0/0", other.store.get("a/c/0/0"))  # by hand: no zarrforge handle hears it
    assert always[0, 0] == -1
    assert never[0, 0] == VALUES[0, 0]  # what recheck="never" promises: the entry is trusted


def test_recheck_asks_for_the_version_alone_where_the_store_reads_versioned_ranges() -> None:
    counter = RequestCounter(MemoryStore())
    filled(counter)
    pool = zf.ChunkCache(max_bytes=2**20)
    zf.open_array(counter, "a", chunk_cache=pool)[...]
    later = zf.open_array(counter, "a", chunk_cache=pool)
    counter.reset()
    later[...]
    later[...]  # revalidated once per handle: no more requests
    ranges: list[Any] = [detail for kind, detail in counter.calls if kind == "get_ranges"]
    assert len(ranges) == 64
    assert all(asked == [ByteRange(offset=0, length=0)] for _, asked in ranges)
    assert chunk_fetches(counter) == [key for key, _ in ranges]
    assert pool.stats().rechecks == 64


WRITER = """
import sys, zarrforge as zf
array = zf.open_array(sys.argv[1], "a")
array[:32, :32] = -7
"""


@pytest.mark.parametrize("recheck", ["open", "always", "never"])
def test_a_write_by_another_process(tmp_path: Path, recheck: str) -> None:
    path = str(tmp_path / "data.zarr")
    pool = zf.ChunkCache(max_bytes=2**20)
    before = filled(path, chunk_cache=pool, recheck=recheck)
    before[...]
    subprocess.run([sys.executable, "-c", WRITER, path], check=True)
    after = zf.open_array(path, "a", chunk_cache=pool, recheck=recheck)
    seen_before, seen_after = before[0, 0], after[0, 0]
    if recheck == "always":
        assert seen_before == seen_after == -7
    elif recheck == "open":
        # the handle opened before the write keeps what it cached; one opened after rechecks
        assert (seen_before, seen_after) == (VALUES[0, 0], -7)
    else:
        assert seen_before == seen_after == VALUES[0, 0]


def test_a_process_wide_pool_from_config_and_zero_turning_it_off() -> None:
    store = MemoryStore()
    filled(store)
    with zf.config.set(chunk_cache=2**20):
        first, second = zf.open_array(store, "a"), zf.open_array(store, "a")
        off = zf.open_array(store, "a", chunk_cache=0)
    assert first._chunk_cache is second._chunk_cache is not None
    assert first._chunk_cache.max_bytes == 2**20
    assert off._chunk_cache is None
    assert zf.open_array(store, "a")._chunk_cache is None  # the default is no cache


def test_arrays_reached_through_a_group_share_its_pool() -> None:
    store = MemoryStore()
    group = zf.open_group(store, mode="w", chunk_cache=2**20)
    created = group.create_array("a", shape=(4,), dtype="i4")
    nested = group.create_group("sub").create_array("b", shape=(4,), dtype="i4")
    pool = created._chunk_cache
    assert isinstance(pool, zf.ChunkCache) and nested._chunk_cache is pool
    reopened = zf.open_group(store, chunk_cache=pool, recheck="always")
    assert reopened["a"]._chunk_cache is pool and reopened["a"]._recheck == "always"
    assert reopened["sub"]["b"]._chunk_cache is pool
    assert {name: node._chunk_cache for name, node in reopened.arrays()} == {"a": pool}
    assert zf.open(store, chunk_cache=pool)["sub/b"]._chunk_cache is pool
    assert zf.open_group(store, chunk_cache=0)["a"]._chunk_cache is None


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"chunk_cache": -1}, "chunk_cache=-1"),
        ({"chunk_cache": "64MB"}, "chunk_cache='64MB'"),
        ({"chunk_cache": 1.5}, "chunk_cache=1.5"),
        ({"chunk_cache": True}, "chunk_cache=True"),
        ({"recheck": "sometimes"}, "recheck='sometimes'"),
    ],
)
@pytest.mark.parametrize("function", ["open_array", "open", "open_group", "create_array"])
def test_a_bad_cache_option_is_refused_before_anything_is_read(
    function: str, options: dict[str, Any], named: str
) -> None:
    store = MemoryStore()
    extra = {"shape": (4,), "dtype": "i4"} if function == "create_array" else {}
    with pytest.raises(TypeError, match=f"{function}\\(\\): {named}.*(bytes|'open')"):
        getattr(zf, function)(store, "x", **extra, **options)
    assert store._data == {}


def test_a_bad_pool_size_or_config_value_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"ChunkCache\(max_bytes=...\) must be a non-negative int.*-5"):
        zf.ChunkCache(max_bytes=-5)
    with pytest.raises(ValueError, match="config 'chunk_cache' must be a non-negative int.*'lots'"):
        zf.config.set(chunk_cache="lots")


def test_a_pool_travels_as_an_empty_pool_of_the_same_cap() -> None:
    pool = zf.ChunkCache(max_bytes=2**20)
    array = filled(MemoryStore(), chunk_cache=pool)
    array[...]
    copy = pickle.loads(pickle.dumps(pool))
    assert copy.max_bytes == 2**20 and copy.stats().entries == 0 and pool.stats().entries == 64


@pytest.mark.parametrize(
    ("zarr_format", "chunks"),
    [(2, CHUNKS), (3, CHUNKS), ("draft-2022", CHUNKS), (3, [[100, 100, 56], [32] * 8])],
    ids=["v2", "v3", "draft-2022", "rectilinear"],
)
def test_formats_and_grids_read_through_the_cache_as_without_it(zarr_format: Any, chunks: Any) -> None:
    store = MemoryStore()
    array = zf.create_array(store, "a", shape=SHAPE, chunks=chunks, dtype="f4", zarr_format=zarr_format)
    array[...] = VALUES
    cached = zf.open_array(store, "a", chunk_cache=2**20)
    scan(cached, 16)
    np.testing.assert_array_equal(cached.oindex[[1, 200], [3, 255]], VALUES[np.ix_([1, 200], [3, 255])])
    np.testing.assert_array_equal(cached.vindex[[1, 200], [3, 255]], VALUES[[1, 200], [3, 255]])
    assert cached._chunk_cache is not None
    assert cached._chunk_cache.stats().misses == cached.nchunks  # each chunk decoded once


def test_a_shard_that_fits_is_fetched_once_for_a_slab_scan() -> None:
    counter = RequestCounter(MemoryStore())
    zf.create_array(counter, "a", shape=SHAPE, chunks=CHUNKS, shards=(64, 256), dtype="f4")[...] = VALUES
    cached = zf.open_array(counter, "a", chunk_cache=4 * 64 * 256 * 4)  # a shard is a quarter
    counter.reset()
    scan(cached, 4)
    assert sorted(chunk_fetches(counter)) == [f"a/c/{i}/0" for i in range(4)]


def test_a_shard_too_large_for_the_pool_is_read_by_ranges_as_without_a_cache() -> None:
    counter = RequestCounter(MemoryStore())
    zf.create_array(counter, "a", shape=SHAPE, chunks=CHUNKS, shards=(64, 256), dtype="f4")[...] = VALUES
    pool = zf.ChunkCache(max_bytes=2**14)
    cached = zf.open_array(counter, "a", chunk_cache=pool)
    scan(cached, 32)
    assert pool.stats().entries == 0
    assert any(kind == "get_ranges" for kind, _ in counter.calls)


def test_cached_chunks_cannot_be_changed_through_what_a_read_returns() -> None:
    array = filled(MemoryStore(), chunk_cache=2**20)
    first = array[:32, :32]
    first[...] = -1
    chunk = array._engine_().read_chunk((0, 0))
    assert chunk is not None
    chunk[...] = -2
    np.testing.assert_array_equal(array[:32, :32], VALUES[:32, :32])


def test_threads_reading_one_pool_get_the_stored_values() -> None:
    store = MemoryStore()
    pool = zf.ChunkCache(max_bytes=16 * 4096)  # a quarter of the array: entries churn
    filled(store)
    failures: list[BaseException] = []

    def read(offset: int) -> None:
        array = zf.open_array(store, "a", chunk_cache=pool)
        try:
            for start in range(offset, SHAPE[0], 8):
                np.testing.assert_array_equal(array[start : start + 8], VALUES[start : start + 8])
        except BaseException as exc:  # noqa: BLE001  # reported by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == [] and pool.stats().bytes <= 16 * 4096


def test_the_asyncio_api_takes_the_cache_and_gathered_reads_share_it() -> None:
    import asyncio

    import zarrforge.asyncio as zfa

    pool = zf.ChunkCache(max_bytes=2**20)

    async def main() -> list[Any]:
        group = await zfa.open_group(MemoryStore(), mode="w", chunk_cache=pool)
        array = await group.create_array("a", shape=SHAPE, chunks=CHUNKS, dtype="f4")
        await array.setitem(Ellipsis, VALUES)
        first = await asyncio.gather(*(array.getitem((row, slice(None))) for row in range(0, 32, 4)))
        again = await asyncio.gather(*(array.getitem((row, slice(None))) for row in range(1, 32, 4)))
        return [*first, *again]

    rows = asyncio.run(main())
    np.testing.assert_array_equal(np.stack(rows[:8]), VALUES[0:32:4])
    np.testing.assert_array_equal(np.stack(rows[8:]), VALUES[1:32:4])
    assert (pool.stats().misses, pool.stats().hits) == (8, 8)  # one chunk row: 8 chunks, once
