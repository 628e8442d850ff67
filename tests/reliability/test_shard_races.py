"""Partial reads of a shard that another writer replaces meanwhile.

Guarantee: a partial read returns, for each inner chunk it touches, the values of
one version of the shard (the one before a rewrite or the one after), never another
inner chunk's values, never the index's bytes read as data, and never a spurious
``CorruptChunkError``. The sharding codec reads each step through
``Store.get_ranges`` (ranges of one version) and uses inner chunks only together
with the index they were located by; a store without versioned ranges gets one
request for the whole shard.

The races are deterministic here: a store wrapper replaces the shard right after
the reader's first request for it, between the index read and the inner-chunk
read. Before versioned reads, every one of these tests returned another inner
chunk's values. A second set runs real writers (a process, threads) against
readers for a bounded time and reports its counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _reliability import generation_values, start_worker

import zarrforge
from zarrforge import config
from zarrforge.testing.faults import ChangeBetweenReads
from zarrforge.testing.races import (
    SHARD_REGION,
    count_versions,
    one_shard_array,
    one_version_of,
    rewriting,
    shrinking_shard_versions,
)
from zarrforge_sharding import index_cache
from zarrforge_sharding.located import PARTIAL_TRIES
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

SHAPE, INNER, SHARD = (8, 12), (2, 3), (8, 12)  # one shard of 4 x 4 inner chunks
SHARD_KEY = "a/c/0/0"


def _versions() -> dict[int, np.ndarray]:
    """Version 1 leaves inner chunk (0, 0) empty (not stored), version 2 fills it, so
    every other inner chunk sits at another offset in the two versions."""
    one = generation_values(SHAPE, INNER, 1)
    one[0:2, 0:3] = 0  # the fill value
    return {1: one, 2: generation_values(SHAPE, INNER, 2)}


def _store(kind: str, tmp_path: Path):
    return MemoryStore() if kind == "memory" else LocalStore(tmp_path / "store")


def _make(store, compressors: Any, index_location: str):
    codecs = [
        {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": list(INNER),
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, *compressors],
                "index_codecs": [
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "crc32c"},
                ],
                "index_location": index_location,
            },
        }
    ]
    return zarrforge.create_array(
        store, "a", shape=SHAPE, chunks=SHARD, dtype="int32", fill_value=0, codecs=codecs
    )


ZSTD = [{"name": "zstd", "configuration": {"level": 1, "checksum": False}}]


@pytest.fixture(autouse=True)
def fresh_index_cache():
    index_cache.cache.clear()
    yield
    index_cache.cache.clear()


def _make_draft(store):
    """The array of :func:`_make`'s shape, sharded by the 2022 draft's transformer."""
    return zarrforge.create_array(
        store,
        "a",
        shape=SHAPE,
        chunks=INNER,
        shards=SHARD,
        dtype="int32",
        fill_value=0,
        zarr_format="draft-2022",
    )


def _assert_one_version(read: np.ndarray, region, versions: dict[int, np.ndarray]) -> int:
    for number, values in versions.items():
        if np.array_equal(read, values[region]):
            return number
    raise AssertionError(
        f"read {read.tolist()} is neither version: { {n: v[region].tolist() for n, v in versions.items()} }"
    )


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("compressors", [[], ZSTD], ids=["plain", "zstd"])
@pytest.mark.parametrize("index_location", ["end", "start"])
@pytest.mark.parametrize("cached", [False, True], ids=["first-read", "index-remembered"])
def test_a_shard_replaced_between_index_and_chunk_reads_gives_one_version(
    tmp_path, kind, compressors, index_location, cached
) -> None:
    store = _store(kind, tmp_path)
    writer = _make(store, compressors, index_location)
    versions = _versions()
    writer[...] = versions[1]
    region = np.s_[2:4, 3:6]  # inner chunk (1, 1): at another offset in each version
    wrapper = ChangeBetweenReads(
        store, lambda: writer.__setitem__(Ellipsis, versions[2]), key=SHARD_KEY, times=0
    )
    reader = zarrforge.open_array(wrapper, "a")
    if cached:  # an earlier read remembers version 1's index
        _assert_one_version(reader[0:2, 3:6], np.s_[0:2, 3:6], versions)
    wrapper.times = wrapper.reads + 1  # the next read of the shard is followed by a rewrite
    got = reader[region]
    assert _assert_one_version(got, region, versions) in (1, 2)
    # and the next read sees the new version
    np.testing.assert_array_equal(reader[region], versions[2][region])


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("cached", [False, True], ids=["first-read", "read-before"])
def test_the_draft_sharding_transformer_reads_one_version_of_a_replaced_shard(tmp_path, kind, cached) -> None:
    store = _store(kind, tmp_path)
    writer = _make_draft(store)
    versions = _versions()
    writer[...] = versions[1]
    wrapper = ChangeBetweenReads(
        store, lambda: writer.__setitem__(Ellipsis, versions[2]), key="data/root/a/c0/0", times=0
    )
    reader = zarrforge.open_array(wrapper, "a")
    if cached:
        _assert_one_version(reader[0:2, 3:6], np.s_[0:2, 3:6], versions)
    wrapper.times = wrapper.reads + 1
    region = np.s_[2:4, 3:6]
    _assert_one_version(reader[region], region, versions)
    np.testing.assert_array_equal(reader[region], versions[2][region])


class _RecordingRanges(ChangeBetweenReads):
    """:class:`ChangeBetweenReads` that also keeps the ranges of each ``get_ranges``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: list[list[Any]] = []

    def _get_ranges(self, key: str, ranges: list[Any], if_generation: Any) -> Any:
        self.asked.append(list(ranges))
        return super()._get_ranges(key, ranges, if_generation)


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("layout", ["sharding_indexed", "draft-2022"])
@pytest.mark.parametrize("retries", [None, 0])
def test_a_shard_that_never_settles_is_read_whole_in_one_request(tmp_path, kind, layout, retries) -> None:
    """A writer replaces the shard after every read of it, so each partial try finds
    another index. The read still ends: after a few tries it asks for the whole shard
    in one request and takes the index and the inner chunk from that one version (it
    gave up with ConflictError before, and a reader racing a busy writing thread
    sometimes did on a loaded host)."""
    store = _store(kind, tmp_path)
    if layout == "draft-2022":
        writer, key = _make_draft(store), "data/root/a/c0/0"
    else:
        writer, key = _make(store, ZSTD, "end"), SHARD_KEY
    versions = _versions()
    writer[...] = versions[1]
    flip = iter(range(10**6))
    wrapper = _RecordingRanges(  # rewrites version 2, 1, 2, ...: each read meets another index
        store, lambda: writer.__setitem__(Ellipsis, versions[2 - next(flip) % 2]), key=key, times=10**6
    )
    reader = zarrforge.open_array(wrapper, "a")
    with config.set(**({} if retries is None else {"conflict_retries": retries})):
        got = reader[SHARD_REGION]
    assert _assert_one_version(got, SHARD_REGION, versions) in (1, 2)
    assert [r.offset for r in wrapper.asked[-1]] == [0] and wrapper.asked[-1][0].length is None
    partial_tries = min(PARTIAL_TRIES, config.get().conflict_retries + 1) if retries is None else retries + 1
    # before the whole read: per partial try, one request, and one more for the index
    # when it conflicts; the first index read is a get_ranges too, except the draft's
    assert len(wrapper.asked) <= 1 + 2 * partial_tries + 1, wrapper.asked


def test_a_store_without_versioned_ranges_reads_the_whole_shard_in_one_request(tmp_path) -> None:
    store = MemoryStore()
    writer = _make(store, ZSTD, "end")
    versions = _versions()
    writer[...] = versions[1]

    class Unversioned(ChangeBetweenReads):
        forwards_conditional_writes = False  # so the store below looks unversioned

    wrapper = Unversioned(store, lambda: writer.__setitem__(Ellipsis, versions[2]), key=SHARD_KEY)
    assert not wrapper.capabilities.versioned_ranges
    reader = zarrforge.open_array(wrapper, "a")
    np.testing.assert_array_equal(reader[2:4, 3:6], versions[1][2:4, 3:6])
    assert wrapper.reads == 1  # one request, for the whole shard; the rewrite came after it
    np.testing.assert_array_equal(reader[2:4, 3:6], versions[2][2:4, 3:6])


@pytest.mark.parametrize("kind", ["memory", "local"])
@pytest.mark.parametrize("cached", [False, True], ids=["first-read", "index-remembered"])
def test_a_shard_replaced_by_a_shorter_one_mid_read_gives_one_version(tmp_path, kind, cached) -> None:
    """Index at the start; the rewrite makes the shard shorter than the offset of the inner
    chunk read, so a read combining the old index with the new shard would find the
    shard too short (the spurious CorruptChunkError of issue #41) or another chunk's
    bytes. The memory and local stores read one version per get_ranges (one lookup, one
    open), so these held before the fix of issue #41 too: they guard the contract;
    the races inside one batch are S3's, in plugins/fsspec/tests."""
    store = _store(kind, tmp_path)
    writer = one_shard_array(store, index_location="start")
    versions = shrinking_shard_versions()
    writer[...] = versions[1]
    wrapper = ChangeBetweenReads(
        store, lambda: writer.__setitem__(Ellipsis, versions[2]), key=SHARD_KEY, times=0
    )
    reader = zarrforge.open_array(wrapper, "a")
    if cached:  # version 1's index is remembered; the shard is shortened before the read,
        # whose one get_ranges asks for the index and the inner chunk it remembers
        assert one_version_of(reader[0:2, 3:6], versions, np.s_[0:2, 3:6]) == 1
        writer[...] = versions[2]
    else:  # the rewrite lands between the index read and the inner-chunk read
        wrapper.times = wrapper.reads + 1
    got = reader[SHARD_REGION]
    assert one_version_of(got, versions) in (1, 2), got.tolist()
    np.testing.assert_array_equal(reader[SHARD_REGION], versions[2][SHARD_REGION])


# --- real writers, bounded in time ---------------------------------------------------------


# the inner chunks of the (8, 12) shard: each read takes one whole
INNER_REGIONS = [np.s_[2 * i : 2 * i + 2, 3 * j : 3 * j + 3] for i in range(4) for j in range(4)]


def _race(reader, versions, seconds: float, until=None) -> dict[str, int]:
    """Partial reads of random inner chunks for ``seconds`` (and on until ``until()``);
    counts per version."""
    return count_versions(reader.__getitem__, versions, INNER_REGIONS, seconds, seed=5, until=until)


@pytest.mark.parametrize("kind", ["memory", "local"])
def test_readers_racing_a_rewriting_thread_read_only_whole_versions(tmp_path, kind) -> None:
    store = _store(kind, tmp_path)
    writer = _make(store, ZSTD, "end")
    versions = _versions()
    writer[...] = versions[1]
    # rewrites 1, 2, 1, 2, ...: the reads go on (past 2 s on a loaded host) until
    # version 2 was written twice
    with rewriting(lambda n: writer.__setitem__(Ellipsis, versions[1 + n % 2])) as rewrites:
        counts = _race(zarrforge.open_array(store, "a"), versions, 2.0, until=lambda: rewrites.done >= 5)
    print(f"{kind}, threads: {counts}")
    assert counts["wrong"] == 0, counts
    assert counts["v1"] > 0 and counts["v2"] > 0, counts  # the race really happened


def test_a_reader_racing_a_rewriting_process_reads_only_whole_versions(tmp_path) -> None:
    root = tmp_path / "store"
    writer = _make(LocalStore(root), ZSTD, "end")
    # the worker writes generation_values 1, 2, 1, ... (zstd: inner chunks of other sizes)
    versions = {n: generation_values(SHAPE, INNER, n) for n in (1, 2)}
    writer[...] = versions[1]
    worker = start_worker("write", str(root), "v3-sharded", "8,12", "2,3", "1", "100000")
    try:
        assert worker.stdout.readline().strip() == "ready"
        counts = _race(zarrforge.open_array(str(root), "a", mode="r"), versions, 3.0)
    finally:
        worker.kill()
        worker.wait()
    print(f"local, a process: {counts}")
    assert counts["wrong"] == 0, counts
    assert counts["v2"] > 0, counts
