"""Reads from a store with latency fetch the next groups of chunks while the current ones
decode (zarrforge.engine.chunk_io.read_ahead); low-latency stores are read as before."""

from __future__ import annotations

import dataclasses
import threading
import time

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.store import WrapperStore
from zarrforge.errors import StoreError
from zarrforge_std.stores.memory import MemoryStore


class SlowStore(WrapperStore):
    """Every get_many waits ``delay`` seconds; counts how many run at once."""

    def __init__(self, inner, *, delay=0.02, low_latency=False, fail_after=None):
        super().__init__(inner)
        self.delay, self.low_latency, self.fail_after = delay, low_latency, fail_after
        self.lock = threading.Lock()
        self.running = self.most = self.calls = 0

    @property
    def capabilities(self):
        return dataclasses.replace(super().capabilities, low_latency=self.low_latency)

    def get_many(self, requests):
        with self.lock:
            self.calls += 1
            if self.fail_after is not None and self.calls > self.fail_after:
                raise StoreError("the store went away")
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            time.sleep(self.delay)
            return self.inner.get_many(requests)
        finally:
            with self.lock:
                self.running -= 1


def _array(**store_options):
    inner = MemoryStore()
    values = np.arange(64 * 64, dtype="int32").reshape(64, 64)
    zf.create_array(inner, "a", shape=values.shape, chunks=(4, 64), dtype="int32")[...] = values
    store = SlowStore(inner, **store_options)
    # one thread, small batches: many groups, read one after the other by one worker
    return zf.open_array(store, "a", mode="r", threads=1), store, values


def test_a_store_with_latency_is_read_ahead_of_decoding(monkeypatch):
    monkeypatch.setattr("zarrforge.engine.chunk_io.BATCH_BYTES", 2 * 4 * 64 * 4)  # 2 chunks a batch
    array, store, values = _array()
    np.testing.assert_array_equal(array[...], values)
    assert store.calls >= 4 and store.most >= 2  # fetches overlapped on a single worker


def test_a_low_latency_store_is_read_in_turn(monkeypatch):
    monkeypatch.setattr("zarrforge.engine.chunk_io.BATCH_BYTES", 2 * 4 * 64 * 4)
    array, store, values = _array(low_latency=True)
    np.testing.assert_array_equal(array[...], values)
    assert store.calls >= 4 and store.most == 1


def test_a_failing_fetch_fails_the_read_and_stops_fetching(monkeypatch):
    monkeypatch.setattr("zarrforge.engine.chunk_io.BATCH_BYTES", 2 * 4 * 64 * 4)
    array, store, _ = _array(fail_after=3)
    with pytest.raises(StoreError, match="went away"):
        array[...]
    time.sleep(0.2)  # fetches already started finish; none is started after the failure
    # the 16 one-chunk groups are fetched at most two ahead: the three that succeeded,
    # the failing fourth, and those two
    assert store.calls <= 6
