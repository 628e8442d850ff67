"""get_many over S3 issues its requests together (bounded by ``concurrency``), not one by one.

Time-free: a wrapper around the filesystem's request coroutine counts how many
requests are in flight at once.
"""

from __future__ import annotations

import threading

import pytest

import zarrforge_fsspec  # noqa: F401
from zarrforge.abc.store import ByteRange
from zarrforge_fsspec import FsspecStore


class InFlight:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.peak = self.calls = 0

    def wrap(self, function):
        async def counted(*args, **kwargs):
            with self.lock:
                self.now += 1
                self.calls += 1
                self.peak = max(self.peak, self.now)
            try:
                return await function(*args, **kwargs)
            finally:
                with self.lock:
                    self.now -= 1

        return counted


@pytest.fixture
def filled_s3(s3_url, s3_options):
    def make(concurrency: int) -> FsspecStore:
        store = FsspecStore.from_url(f"{s3_url}/many", concurrency=concurrency, **s3_options)
        if not store.exists("k/0"):
            store.set_many([(f"k/{i}", bytes([i]) * 64) for i in range(40)])
        return store

    return make


@pytest.mark.parametrize("concurrency", [1, 8, 64])
def test_get_many_overlaps_requests_up_to_the_bound(filled_s3, monkeypatch, concurrency):
    store = filled_s3(concurrency)
    counter = InFlight()
    monkeypatch.setattr(store.fs, "_cat_file", counter.wrap(store.fs._cat_file))
    requests = [(f"k/{i}", ByteRange(8, 4) if i % 2 else None) for i in range(40)]
    requests.append(("k/missing", None))
    results = store.get_many(requests)
    assert results[:2] == [bytes([0]) * 64, bytes([1]) * 4] and results[-1] is None
    assert counter.calls == 41  # one request per entry, nothing else
    assert counter.peak == min(concurrency, 41)


def test_the_bound_holds_across_threads(filled_s3, monkeypatch):
    store = filled_s3(6)
    counter = InFlight()
    monkeypatch.setattr(store.fs, "_cat_file", counter.wrap(store.fs._cat_file))
    requests = [(f"k/{i}", None) for i in range(40)]
    threads = [threading.Thread(target=store.get_many, args=(requests,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counter.calls == 160 and counter.peak <= 6


def test_set_many_writes_concurrently(s3_url, s3_options, monkeypatch):
    store = FsspecStore.from_url(f"{s3_url}/w", concurrency=16, **s3_options)
    counter = InFlight()
    monkeypatch.setattr(store.fs, "_pipe_file", counter.wrap(store.fs._pipe_file))
    store.set_many([(f"k/{i}", b"v") for i in range(30)])
    assert counter.calls == 30 and counter.peak == 16
    assert len(list(store.list_prefix("k/"))) == 30
