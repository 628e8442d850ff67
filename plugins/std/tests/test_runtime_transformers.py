"""The runtime transformers of zarrforge-std: LRU cache and request counter."""

from __future__ import annotations

import functools
import threading

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.store import ByteRange
from zarrforge.testing import StoreConformance
from zarrforge_std.runtime_transformers import LRUCache, RequestCounter
from zarrforge_std.stores.memory import MemoryStore


class TestLRUCacheConformance(StoreConformance):
    def make_store(self, tmp_path):
        return LRUCache(MemoryStore(), max_bytes=600)

    def make_read_only_store(self, store):
        return LRUCache(MemoryStore(read_only=True, data=store.inner._data))


class TestRequestCounterConformance(StoreConformance):
    def make_store(self, tmp_path):
        return RequestCounter(MemoryStore())

    def make_read_only_store(self, store):
        return RequestCounter(MemoryStore(read_only=True, data=store.inner._data))


def test_cache_serves_repeated_reads_without_touching_the_store():
    counter = RequestCounter(MemoryStore())
    counter.set("k", b"0123456789")
    cache = LRUCache(counter, max_bytes=100)
    counter.reset()
    assert cache.get("k") == b"0123456789"
    assert cache.get("k", ByteRange(2, 3)) == b"234"
    assert cache.get_many([("k", None), ("k", ByteRange(length=2))]) == [b"0123456789", b"89"]
    assert counter.count() == 1 and cache.hits == 3


def test_cache_is_bounded_and_evicts_least_recently_used():
    cache = LRUCache(MemoryStore(), max_bytes=25)
    for key in "abc":
        cache.inner.set(key, key.encode() * 10)
    cache.get("a"), cache.get("b"), cache.get("a"), cache.get("c")
    assert cache.cached_bytes == 20
    assert list(cache._values) == ["a", "c"]  # "b" was the least recently used


def test_cache_sees_writes_and_deletes_made_through_it():
    cache = LRUCache(MemoryStore())
    cache.set("k", b"old")
    assert cache.get("k") == b"old"
    cache.set("k", b"new")
    assert cache.get("k") == b"new"
    cache.delete("k")
    assert cache.get("k") is None
    cache.set("p/x", b"1")
    cache.erase_prefix("p/")
    assert cache.get("p/x") is None and cache.cached_bytes == 0


def test_cache_is_thread_safe_under_concurrent_reads_and_writes():
    cache = LRUCache(MemoryStore(), max_bytes=2000)
    errors = []

    def work(worker):
        try:
            for i in range(300):
                key = f"k{(i + worker) % 40}"
                cache.set(key, bytes([worker]) * 50)
                value = cache.get(key)
                assert value is not None and len(value) == 50
        except Exception as exc:  # noqa: BLE001  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert cache.cached_bytes == sum(len(v) for v in cache._values.values()) <= 2000


def test_runtime_transformers_wrap_chunk_io_of_an_array():
    store = MemoryStore()
    a = zf.create_array(store, shape=(8,), dtype="int32", chunks=(4,), compressors=None)
    a[:] = np.arange(8)
    # one worker: the engine fetches a batch with one get_many (with more, one per worker)
    b = zf.open_array(
        store, threads=1, transformers=[RequestCounter, functools.partial(LRUCache, max_bytes=1000)]
    )
    counter = b.chunk_store
    assert isinstance(counter, RequestCounter) and isinstance(counter.inner, LRUCache)
    assert b[:].tolist() == list(range(8))
    assert b[:].tolist() == list(range(8))
    assert counter.count("get_many") == 2 and counter.inner.hits == 2
    assert "transformers" not in store.get("zarr.json").decode()


def test_negative_cache_size_is_refused():
    with pytest.raises(ValueError, match="max_bytes"):
        LRUCache(MemoryStore(), max_bytes=-1)
