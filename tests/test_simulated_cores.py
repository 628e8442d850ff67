"""The simulated many-core benchmark's quick form (issue #45): the sleeping codec of
benchmarks/sleep_codec.py counts how many of its calls run at once, so these tests prove
that whole writes and reads of large chunks, and of a shard's inner chunks, run on every
thread the call is given, and that small chunks do when their codec is slow (threads by
measured cost) and stay on one thread when it is fast, by counting, never by timing. (The benchmark itself,
benchmarks/simulated_cores.py, times the same workloads at 1 to 16 threads beside
zarr-python; its figures are in benchmarks/RESULTS.md.)"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import zarrforge as zf
from benchmarks import simulated_cores
from benchmarks.sleep_codec import COUNTER, register

# long enough per call that every thread is busy before the first call ends, even on a loaded machine
SLEEP = {"name": "bench.sleep", "configuration": {"ms": 30}}
THREADS = 16


@pytest.fixture(autouse=True)
def sleeping_codec():
    register()
    COUNTER.reset()
    yield
    zf.registry.codecs.unregister("bench.sleep")  # other tests list the registered codecs


def array(**options):
    return zf.create_array(zf.storage.MemoryStore(), dtype="float32", compressors=[SLEEP], **options)


@pytest.mark.parametrize(
    "layout",
    [
        {"shape": (64 * 16384,), "chunks": (16384,)},  # 64 chunks of 64 KiB
        {"shape": (512, 2048), "chunks": (64, 256)},  # the same in two dimensions
        {"shape": (64 * 16384,), "chunks": (16384,), "shards": (64 * 16384,)},  # one shard of 64 inner chunks
        {"shape": (512, 2048), "chunks": (64, 256), "shards": (512, 2048)},
    ],
    ids=["chunks-1d", "chunks-2d", "shard-1d", "shard-2d"],
)
def test_whole_writes_and_reads_run_a_codec_call_on_every_thread(layout):
    values = np.arange(int(np.prod(layout["shape"])), dtype="float32").reshape(layout["shape"])
    with zf.config.set(threads=THREADS):  # an array takes the setting in force when it is opened
        a = array(**layout)
        a[...] = values
        assert (COUNTER.calls, COUNTER.peak) == (64, THREADS)
        COUNTER.reset()
        assert np.array_equal(a[...], values)
        assert (COUNTER.calls, COUNTER.peak) == (64, THREADS)


@pytest.mark.parametrize("sharded", [False, True], ids=["chunks", "shard"])
def test_small_chunks_through_a_slow_codec_use_every_thread(sharded):
    """4 KiB (inner) chunks are below the byte rule's size for threads; 30 ms a codec
    call is slow, measured on the call's first chunks: the rest reach all 16 threads."""
    values = np.arange(64 * 1024, dtype="float32")
    with zf.config.set(threads=THREADS):
        a = array(shape=values.shape, chunks=(1024,), shards=values.shape if sharded else None)
        a[...] = values
        assert (COUNTER.calls, COUNTER.peak) == (64, THREADS)
        COUNTER.reset()
        assert np.array_equal(a[...], values)
        assert (COUNTER.calls, COUNTER.peak) == (64, THREADS)


def test_a_slow_codec_is_judged_on_single_chunks_before_the_rest_spread():
    """The cost is measured one chunk at a time: MEASURED_ITEMS chunks after an untimed
    first run alone on the calling thread, then the rest of the call overlaps. (Timing
    whole groups instead kept 256 of the 4 KiB workload's 4,096 chunks serial.)"""
    from zarrforge.engine.parallel import MEASURED_ITEMS

    values = np.arange(256 * 1024, dtype="float32")
    with zf.config.set(threads=THREADS):
        a = array(shape=values.shape, chunks=(1024,))
        a[...] = values
    serial = COUNTER.at_start.index(2)  # calls started before the first that overlapped another
    # the measured ones, and perhaps the spread part's first call, started before its others
    # (timing groups of 4 chunks, as this call's are, made it at least 16)
    assert MEASURED_ITEMS + 1 <= serial <= MEASURED_ITEMS + 2
    assert (COUNTER.calls, COUNTER.peak) == (256, THREADS)


@pytest.mark.parametrize(
    "codec",
    ["crc32c", {"name": "zstd", "configuration": {"level": 1, "checksum": False}}],
    ids=["crc32c", "zstd-1"],
)
def test_small_chunks_through_a_fast_codec_stay_on_one_thread(monkeypatch, codec):
    """The same 4 KiB chunks through a checksum or zstd level 1 (microseconds a chunk):
    measured cheap, so every chunk is coded on the calling thread (counted by the threads
    that run the codec chain)."""
    from zarrforge.engine.codec_chain import CodecChain

    seen: set[int] = set()
    for name in ("encode", "decode", "decode_into"):
        original = getattr(CodecChain, name)

        def counted(self, *args, _original=original, **kwargs):
            seen.add(threading.get_ident())
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(CodecChain, name, counted)
    values = np.arange(64 * 1024, dtype="float32")
    with zf.config.set(threads=THREADS):
        a = zf.create_array(
            zf.storage.MemoryStore(),
            shape=values.shape,
            chunks=(1024,),
            dtype="float32",
            compressors=[codec],
        )
        for _ in range(3):  # measured on the first call, kept for the next
            a[...] = values
            assert np.array_equal(a[...], values)
    assert seen == {threading.get_ident()}


def test_a_call_measured_cheap_makes_the_batches_of_a_call_on_one_thread(monkeypatch):
    """The 4k-zstd1 workload (4,096 chunks of 4 KiB through zstd level 1) with 16
    threads stays on one thread, and then goes to the store in as many batches as with
    one thread: the groups sized to share 16 threads (64 chunks each) made it 16 times
    as many requests, which the simulated-cores run showed as 16 threads slower than one."""
    from zarrforge_std.stores.memory import MemoryStore

    requests: list[str] = []
    for name in ("get_many", "set_many"):
        original = getattr(MemoryStore, name)

        def counted(self, *args, _original=original, _name=name, **kwargs):
            requests.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(MemoryStore, name, counted)
    values = np.arange(4096 * 1024, dtype="float32")
    zstd = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
    made = {}
    for threads in (1, THREADS):
        with zf.config.set(threads=threads):
            a = zf.create_array(
                MemoryStore(), shape=values.shape, chunks=(1024,), dtype="float32", compressors=[zstd]
            )
            requests.clear()
            a[...] = values
            assert np.array_equal(a[...], values)
            made[threads] = (requests.count("set_many"), requests.count("get_many"))
    # one thread: 4 batches of 1,024 each way; 16: the measured chunks one at a time, then the same
    assert made[1] == (4, 4)
    from zarrforge.engine.parallel import MEASURED_ITEMS

    assert made[THREADS] == (MEASURED_ITEMS + 1 + 4, MEASURED_ITEMS + 1 + 4), made


def test_one_thread_runs_one_call_at_a_time():
    with zf.config.set(threads=1):
        a = array(shape=(8 * 16384,), chunks=(16384,))
        a[...] = 1.0
        a[...]
    assert (COUNTER.calls, COUNTER.peak) == (16, 1)


def test_the_benchmark_workloads_count_their_codec_calls():
    by_name = {w.name: w for w in simulated_cores.WORKLOADS}
    assert [by_name[n].calls for n in ("1m", "1m-2d", "shard", "shard-2d", "4k", "4k-2d")] == [256] * 4 + [
        4096
    ] * 2
    assert by_name["1m"].ideal(16) == pytest.approx(256 * 0.004 / 16)
    records = [
        {
            "workload": "4k",
            "engine": "zarrforge",
            "operation": "write",
            "threads": n,
            "seconds": s,
            "ideal": i,
        }
        for n, s, i in ((1, 2.0, 1.024), (16, 0.5, 0.064))
    ]
    table = simulated_cores.markdown(records)
    assert "| 4k | write | zarrforge | 2.000 | 0.500 | 4.0 | 0.064 | 0.436 |" in table
