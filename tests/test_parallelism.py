"""Calls use the threads they are given, counted rather than timed.

A 2-core machine cannot show through timings whether a call uses 8 or 16 threads,
so these tests count: an instrumented codec records how many of its calls run at
once. It sleeps in every call, releasing the GIL as a real codec does while it
compresses, so calls that the engine runs in parallel overlap on any machine.
Memory in flight is measured with ``tracemalloc`` (numpy's buffers and the bytes
the store returns are both traced) against the bound docs/performance.md states.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tracemalloc
from collections.abc import Iterator

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import config
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.engine import parallel, pipeline
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

PAUSE = 0.02  # seconds each probed codec call takes, without the GIL


class Concurrency:
    """How many probed calls run at once, and the most that ever did."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.now = 0
        self.peak = 0
        self.calls = 0

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        with self._lock:
            self.now += 1
            self.calls += 1
            self.peak = max(self.peak, self.now)
        try:
            time.sleep(PAUSE)
            yield
        finally:
            with self._lock:
                self.now -= 1

    def reset(self) -> None:
        with self._lock:
            self.now = self.peak = self.calls = 0


PROBE = Concurrency()


class ConcurrencyProbe(BytesBytesCodec):
    """Passes bytes through unchanged, recording its concurrency in :data:`PROBE`."""

    name = "test.concurrency-probe"

    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}

    def encode(self, data):
        with PROBE.running():
            return bytes(data)

    def decode(self, data):
        with PROBE.running():
            return bytes(data)


@pytest.fixture(autouse=True)
def probe():
    zf.register("codecs", ConcurrencyProbe.name, ConcurrencyProbe)
    PROBE.reset()
    yield PROBE
    zf.registry.REGISTRIES["codecs"].unregister(ConcurrencyProbe.name)


def _values(shape) -> np.ndarray:
    return np.random.default_rng(7).random(shape, dtype=np.float32)


def test_a_64_chunk_write_and_read_with_8_threads_runs_8_codec_calls_at_once(probe) -> None:
    # 64 chunks of 64 KiB: the default parallel_chunk_bytes, so threads are worth it
    array = zf.create_array(
        MemoryStore(),
        "a",
        shape=(64 * 128, 128),
        dtype="float32",
        chunks=(128, 128),
        compressors=[ConcurrencyProbe.name],
        threads=8,
    )
    values = _values(array.shape)
    array[...] = values
    assert probe.calls == 64
    assert probe.peak == 8
    probe.reset()
    np.testing.assert_array_equal(array[...], values)
    assert probe.calls == 64
    assert probe.peak == 8


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_runs_its_calls_on_threads_of_its_own(probe) -> None:
    """The parent's pools have threads the child does not: a child reusing them would
    run every call on its one thread (or wait for ever)."""
    array = zf.create_array(
        MemoryStore(),
        "a",
        shape=(64 * 128, 128),
        dtype="float32",
        chunks=(128, 128),
        compressors=[ConcurrencyProbe.name],
        threads=8,
    )
    array[...] = _values(array.shape)  # the pool of 8 threads exists in this process now
    probe.reset()
    pid = os.fork()
    if pid == 0:
        try:
            array[...] = _values(array.shape)
            os._exit(0 if probe.peak == 8 else 10 + probe.peak)
        except BaseException:  # noqa: BLE001  # the forked child reports any failure by its exit status
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (
        f"the child's peak of concurrent codec calls was {os.WEXITSTATUS(status) - 10}, not 8"
    )


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_reads_ahead_on_threads_of_its_own() -> None:
    """Reads from stores with latency fetch ahead on a pool of their own; a child that
    inherited the parent's (threads it does not have) hung on its first small read."""
    import dataclasses
    import signal

    from zarrforge.testing.kit_store import KitMemoryStore

    class Remote(KitMemoryStore):
        capabilities = dataclasses.replace(KitMemoryStore.capabilities, low_latency=False)

    array = zf.create_array(Remote(), "a", shape=(8,), chunks=(4,), dtype="i4")
    array[...] = np.arange(8)
    assert array[:].tolist() == list(range(8))  # the read-ahead pool exists in this process
    pid = os.fork()
    if pid == 0:
        signal.alarm(20)  # a hang ends the child, and the test fails, instead of waiting
        try:
            os._exit(0 if array[:4].tolist() == [0, 1, 2, 3] else 1)
        except BaseException:  # noqa: BLE001  # the forked child reports any failure by its exit status
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


@pytest.mark.parametrize("threads", [2, 3, 5])
def test_a_call_never_runs_more_codec_calls_than_its_threads(probe, threads) -> None:
    array = zf.create_array(
        MemoryStore(),
        "a",
        shape=(24 * 128, 128),
        dtype="float32",
        chunks=(128, 128),
        compressors=[ConcurrencyProbe.name],
        threads=threads,
    )
    array[...] = _values(array.shape)
    assert probe.peak == threads
    probe.reset()
    array[...]
    assert probe.peak == threads


def _one_shard(threads: int, inner_chunks: int = 512):
    # one shard of ``inner_chunks`` inner chunks of 64 KiB each
    return zf.create_array(
        MemoryStore(),
        "s",
        shape=(inner_chunks * 128, 128),
        dtype="float32",
        chunks=(128, 128),
        shards=(inner_chunks * 128, 128),
        compressors=[ConcurrencyProbe.name],
        threads=threads,
    )


def test_one_shard_of_512_inner_chunks_is_written_and_read_on_8_threads(probe) -> None:
    array = _one_shard(8)
    values = _values(array.shape)
    array[...] = values
    assert probe.calls == 512
    assert probe.peak == 8
    probe.reset()
    np.testing.assert_array_equal(array[...], values)
    assert probe.calls == 512
    assert probe.peak == 8


def test_a_partial_read_and_update_of_one_shard_spread_its_inner_chunks(probe) -> None:
    array = _one_shard(8)
    values = _values(array.shape)
    array[...] = values
    probe.reset()
    # rows 64.. of the first 100 inner chunks, plus part of the 101st: the shard is read
    # and updated in part (decode_partial, encode_partial)
    region = np.s_[64 : 100 * 128 + 10, :]
    np.testing.assert_array_equal(array[region], values[region])
    assert probe.calls == 101
    assert probe.peak == 8
    probe.reset()
    array[region] = 1.5
    values[region] = 1.5
    assert probe.peak == 8
    np.testing.assert_array_equal(array[...], values)


def test_shards_and_their_inner_chunks_share_the_calls_threads(probe) -> None:
    # 3 shards on 8 threads: the engine's workers take a shard each, and the threads
    # left over help with the inner chunks; never more than 8 calls at once
    array = zf.create_array(
        MemoryStore(),
        "s",
        shape=(3 * 64 * 128, 128),
        dtype="float32",
        chunks=(128, 128),
        shards=(64 * 128, 128),
        compressors=[ConcurrencyProbe.name],
        threads=8,
    )
    values = _values(array.shape)
    array[...] = values
    assert probe.peak == 8
    probe.reset()
    np.testing.assert_array_equal(array[...], values)
    assert probe.peak == 8


def test_threads_one_runs_one_codec_call_at_a_time(probe) -> None:
    array = _one_shard(1, inner_chunks=32)
    array[...] = _values(array.shape)
    array[...]
    assert probe.calls == 64
    assert probe.peak == 1


def test_map_parallel_outside_an_engine_call_uses_config_threads(probe) -> None:
    with config.set(threads=4):
        results = parallel.map_parallel(
            lambda i: ConcurrencyProbe().encode(bytes([i])), list(range(16)), item_bytes=1 << 20
        )
    assert results == [bytes([i]) for i in range(16)]
    assert probe.peak == 4


def test_map_parallel_keeps_small_items_on_the_calling_thread() -> None:
    seen: set[int] = set()
    with config.set(threads=4):
        parallel.map_parallel(lambda i: seen.add(threading.get_ident()), list(range(64)), item_bytes=1024)
    assert seen == {threading.get_ident()}


def test_map_parallel_raises_the_first_failure_and_starts_nothing_after_it() -> None:
    started: list[int] = []

    def work(i: int) -> int:
        started.append(i)
        if i == 3:
            raise ValueError("item 3")
        time.sleep(0.005)
        return i

    with config.set(threads=2), pytest.raises(ValueError, match="item 3"):
        parallel.map_parallel(work, list(range(400)), item_bytes=1 << 20)
    # groups of ceil(400 / (2 * 4)) = 50 items: the failing group stops at once, the other
    # worker finishes the group it holds and takes no more
    assert len(started) <= 3 + 1 + 50


# --- memory in flight ----------------------------------------------------------------


def _traced_peak(action) -> int:
    """Bytes allocated at the peak of ``action()``, beyond what was held before it."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        action()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


@pytest.mark.parametrize("threads", [2, 4])
def test_memory_in_flight_stays_within_its_bound(tmp_path, threads) -> None:
    # 96 chunks of 1 MiB, incompressible: each encoded chunk is as large as its values.
    # The documented bound (docs/performance.md, "Scaling with cores"): besides its
    # input or output, a call holds at most 2 x threads x max(chunk, GROUP_BYTES).
    chunk = 1 << 18  # float32 elements: 1 MiB
    values = np.random.default_rng(3).random(96 * chunk, dtype=np.float32)
    bound = 2 * threads * max(chunk * 4, pipeline.GROUP_BYTES)
    assert values.nbytes > 2 * bound  # holding the whole call would break the bound
    store = LocalStore(tmp_path)
    array = zf.create_array(
        store,
        "a",
        shape=values.shape,
        dtype="float32",
        chunks=(chunk,),
        compressors=[{"name": "zstd", "configuration": {"level": 1}}],
        threads=threads,
    )

    def write() -> None:
        array[...] = values

    assert _traced_peak(write) <= bound
    result: list[np.ndarray] = []
    peak = _traced_peak(lambda: result.append(array[...]))
    np.testing.assert_array_equal(result[0], values)
    assert peak <= values.nbytes + bound  # the output, and no more than the bound besides
