"""The shard index cache: a partial read of a shard read before costs one batch of
requests, not two in a row, and never returns other values than an uncached read would."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import zarrforge as zf
from zarrforge_sharding import index_cache
from zarrforge_sharding.index_cache import set_index_cache
from zarrforge_std.runtime_transformers import RequestCounter
from zarrforge_std.stores.memory import MemoryStore

SHAPE, CHUNKS, SHARDS = (64, 64), (8, 8), (32, 32)


def values(shape=SHAPE, offset=0):
    return (np.arange(int(np.prod(shape)), dtype="int32") + offset).reshape(shape)


@pytest.fixture(autouse=True)
def fresh_cache():
    index_cache.cache.clear()
    previous = set_index_cache(index_cache.DEFAULT_BYTES)
    yield
    set_index_cache(previous)
    index_cache.cache.clear()


def sharded(store=None):
    array = zf.create_array(
        store or MemoryStore(), "a", shape=SHAPE, chunks=CHUNKS, shards=SHARDS, dtype="int32", fill_value=-1
    )
    array[...] = values()
    return array


def counted(array):
    """The array again, its chunk requests counted by ``reader.chunk_store``."""
    return zf.open_array(array.store, "a", transformers=[RequestCounter])


def test_a_second_read_of_a_shard_is_one_batch_of_requests():
    reader = counted(sharded())
    counter = reader.chunk_store
    assert reader[3, 5] == values()[3, 5]
    assert counter.count("get_ranges") == 2  # the index, then the inner chunk
    counter.reset()
    assert reader[20, 9] == values()[20, 9]  # same shard, another inner chunk
    [(kind, (key, ranges))] = counter.calls
    # the index again and the chunk, together, from one version of the shard
    assert kind == "get_ranges" and len(ranges) == 2 and key == "a/c/0/0"


def test_a_shard_changed_by_another_writer_reads_its_new_values():
    array = sharded()
    reader = counted(array)
    np.testing.assert_array_equal(reader[0:8, 0:8], values()[0:8, 0:8])
    # another writer (its own array object) rewrites the shard with other inner chunk sizes
    other = zf.open_array(array.store, "a", mode="r+")
    other[0:32, 0:32] = np.zeros((32, 32), "int32")
    other[5, 5] = 7
    reader.chunk_store.reset()
    expected = np.zeros((8, 8), "int32")
    expected[5, 5] = 7
    np.testing.assert_array_equal(reader[0:8, 0:8], expected)
    # the guess failed: the batch with the old ranges, then the chunk from the fresh index
    assert reader.chunk_store.count("get_ranges") == 2
    reader.chunk_store.reset()
    np.testing.assert_array_equal(reader[0:8, 0:8], expected)
    assert reader.chunk_store.count("get_ranges") == 1  # and the fresh index is remembered


def test_a_shard_rewritten_with_an_equal_index_reads_the_new_bytes():
    # same sizes at the same offsets: the index bytes do not change, the chunk bytes do;
    # the chunk is fetched in the same batch as the index, so the new bytes are read
    array = zf.create_array(
        MemoryStore(), "a", shape=SHAPE, chunks=CHUNKS, shards=SHARDS, dtype="int32", compressors=None
    )
    array[...] = values()
    reader = counted(array)
    assert reader[1, 1] == values()[1, 1]
    array[0:32, 0:32] = values((32, 32), offset=1000)
    assert reader[1, 1] == values((32, 32), offset=1000)[1, 1]


def test_a_deleted_shard_reads_as_the_fill_value_and_is_forgotten():
    array = sharded()
    reader = counted(array)
    assert reader[40, 40] == values()[40, 40]
    array.store.delete("a/c/1/1")
    assert reader[40, 41] == -1
    assert len(index_cache.cache) == 0  # the only shard read, (1, 1), was dropped
    reader.chunk_store.reset()
    assert reader[40, 42] == -1
    assert reader.chunk_store.count("get_ranges") == 1  # the index request, answered "absent"


def test_a_remembered_index_with_a_bad_entry_is_not_held_against_a_repaired_shard():
    array = sharded()
    reader = counted(array)
    assert reader[0, 0] == 0
    [key] = list(index_cache.cache._entries)
    encoded, index = index_cache.cache.get(key)
    broken = index.entries.copy()
    broken[0, 1] = [2**63, 64]  # an absurd offset for inner chunk (0, 1)
    index_cache.cache.put(key, encoded, type(index)(broken), 100)
    # the stored shard is fine: the read follows it, not the damaged memory
    assert reader[0, 9] == values()[0, 9]


def test_turned_off_every_partial_read_is_two_requests():
    set_index_cache(0)
    reader = counted(sharded())
    for where in [(3, 5), (3, 6), (20, 9)]:
        reader.chunk_store.reset()
        assert reader[where] == values()[where]
        assert reader.chunk_store.count("get_ranges") == 2
    assert len(index_cache.cache) == 0


def test_the_cache_keeps_to_its_byte_budget_least_recently_used_first():
    cache = type(index_cache.cache)(max_bytes=1000)  # a memory of its own, capped
    for i in range(5):
        cache.put(i, b"x", i, 300)
    assert len(cache) == 3 and cache.nbytes == 900
    assert cache.get(0) is None and cache.get(2) == (b"x", 2)
    cache.put(5, b"x", 5, 300)  # evicts 3: 2 was used more recently
    assert cache.get(3) is None and cache.get(2) is not None
    cache.put(6, b"x", 6, 5000)  # larger than the budget: not kept
    assert cache.get(6) is None


def test_the_memory_is_the_engines_and_follows_config_index_cache():
    from zarrforge.plugin_api.codecs import remembered_indexes

    assert index_cache.cache is remembered_indexes()
    reader = sharded()
    with zf.config.set(index_cache=0):
        reader[0, 0]
        assert len(index_cache.cache) == 0
    reader[0, 0]
    assert len(index_cache.cache) == 1
    stats = index_cache.cache.stats()
    assert stats["entries"] == 1 and stats["misses"] >= 1
    with pytest.raises(ValueError, match="config 'index_cache' must be a non-negative int"):
        zf.config.set(index_cache=-5)


def test_set_index_cache_checks_its_argument_and_shrinks_the_cache():
    with pytest.raises(ValueError, match="non-negative int"):
        set_index_cache(-1)
    with pytest.raises(ValueError, match="non-negative int"):
        set_index_cache("big")
    reader = sharded()
    reader[0, 0], reader[40, 40]
    assert len(index_cache.cache) == 2
    set_index_cache(index_cache.cache.nbytes // 2)
    assert len(index_cache.cache) == 1


def test_threads_reading_many_shards_get_the_right_values():
    array = zf.create_array(
        MemoryStore(), "a", shape=(256, 256), chunks=(8, 8), shards=(32, 32), dtype="int32"
    )
    full = values((256, 256))
    array[...] = full
    set_index_cache(20_000)  # a few shards' indexes: entries come and go while threads read
    rng = np.random.default_rng(0)
    points = rng.integers(0, 256, size=(4, 300, 2))
    failures: list[str] = []

    def read(batch):
        for i, j in batch:
            if array[i, j] != full[i, j]:
                failures.append(f"{i},{j}")

    threads = [threading.Thread(target=read, args=(batch,)) for batch in points]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert index_cache.cache.nbytes <= 20_000


def test_a_new_store_never_finds_what_a_freed_one_remembered():
    # Index memories were keyed by id(store): a store made where a freed one lay found the
    # freed store's indexes (the same data here, so its guess even held) and read in one
    # request where a store new to the memory takes two. Each store below is new.
    import gc

    for _ in range(20):
        reader = counted(sharded())
        counter = reader.chunk_store
        assert reader[3, 5] == values()[3, 5]
        assert counter.count("get_ranges") == 2  # the index, then the inner chunk
        del reader, counter
        gc.collect()


def test_store_tokens_are_never_given_twice_and_are_dropped_with_their_store():
    import gc

    from zarrforge.storing import write_notices

    store = MemoryStore()
    token = write_notices.object_token(store)
    assert write_notices.object_token(store) == token  # the same store: the same token
    address = id(store)
    del store
    gc.collect()
    assert address not in write_notices._object_tokens  # forgotten with the store
    later = [MemoryStore() for _ in range(50)]
    assert all(write_notices.object_token(s) > token for s in later)  # whatever address they got
