"""The chunk engine's path for plain chunks (issue "Performance, round two", W5/W5r).

A chain that is only the ``bytes`` codec stores a chunk's elements as they are
(``ArrayBytesCodec.plain_dtype``). For small chunks of a regular grid the engine codes
them itself, with ``tobytes`` and ``frombuffer``, and tells a chunk of fill values by
its bytes: what it writes and reads must be exactly what the codec would have.
"""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.store import WrapperStore
from zarrforge.engine import pipeline, plain_runs
from zarrforge.errors import CorruptChunkError
from zarrforge_std import codecs as std_codecs
from zarrforge_std.stores.memory import MemoryStore


@pytest.fixture
def codec_calls(monkeypatch):
    """How often the bytes codec itself encodes and decodes chunks."""
    calls = {"encode": 0, "decode": 0}
    for name in ("encode", "decode", "decode_into"):
        original = getattr(std_codecs.BytesCodec, name)

        def counted(self, *args, _original=original, _name=name, **kwargs):
            calls["encode" if _name == "encode" else "decode"] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(std_codecs.BytesCodec, name, counted)
    return calls


def test_small_plain_chunks_are_coded_by_the_engine_and_read_back_exactly(codec_calls):
    store = MemoryStore()
    data = np.arange(30 * 20, dtype="float32").reshape(30, 20) / 7
    array = zf.create_array(store, "a", shape=(30, 20), dtype="float32", chunks=(8, 8), compressors=None)
    array[...] = data
    assert np.array_equal(zf.open_array(store, "a")[...], data)
    assert np.array_equal(zf.open_array(store, "a")[5:27, 3:19], data[5:27, 3:19])
    assert codec_calls == {"encode": 0, "decode": 0}
    # the stored bytes are the codec's: the elements, little-endian, in C order, and an
    # edge chunk whole, padded with the fill value
    assert store.get("a/c/1/1") == data[8:16, 8:16].astype("<f4").tobytes()
    assert store.get("a/c/1/2") == np.pad(data[8:16, 16:20], ((0, 0), (0, 4))).tobytes()


def test_large_chunks_still_go_through_the_codec(codec_calls, monkeypatch):
    monkeypatch.setattr(pipeline, "PLAIN_CHUNK_BYTES", 100)
    array = zf.create_array(MemoryStore(), "a", shape=(16,), dtype="int64", chunks=(16,), compressors=None)
    array[...] = np.arange(16)
    assert array[...].tolist() == list(range(16))
    assert codec_calls["encode"] == 1 and codec_calls["decode"] == 1


def test_edge_chunks_and_partial_writes_keep_their_values():
    store = MemoryStore()
    array = zf.create_array(
        store, "a", shape=(10, 10), dtype="int16", chunks=(4, 4), compressors=None, fill_value=-1
    )
    array[...] = np.arange(100, dtype="int16").reshape(10, 10)
    array[1:3, 5:9] = 7  # covers chunks in part: read, changed, written back
    expected = np.arange(100, dtype="int16").reshape(10, 10)
    expected[1:3, 5:9] = 7
    assert np.array_equal(array[...], expected)
    assert np.array_equal(array[3:9, 2:7], expected[3:9, 2:7])


def test_a_chunk_of_fill_values_is_not_stored_and_the_test_is_bit_for_bit():
    store = MemoryStore()
    array = zf.create_array(
        store, "a", shape=(4,), dtype="float64", chunks=(2,), compressors=None, fill_value=0.0
    )
    array[...] = np.array([0.0, 0.0, -0.0, 0.0])
    assert store.get("a/c/0") is None  # all fill: not written
    assert store.get("a/c/1") is not None  # -0.0 is not the fill value 0.0, bit for bit
    assert np.signbit(array[2])
    nan = zf.create_array(
        store, "n", shape=(2,), dtype="float32", chunks=(2,), compressors=None, fill_value="NaN"
    )
    nan[...] = np.array([np.nan, np.nan], dtype="float32")
    assert store.get("n/c/0") is None
    payload = np.array([0x7FC00001, 0x7FC00001], dtype="uint32").view("float32")
    nan[...] = payload  # another NaN: kept, and read back with its payload
    assert store.get("n/c/0") is not None
    assert nan[...].view("uint32").tolist() == [0x7FC00001, 0x7FC00001]


def test_big_endian_chunks_are_stored_big_endian():
    store = MemoryStore()
    array = zf.create_array(
        store,
        "a",
        shape=(3,),
        dtype="uint32",
        chunks=(3,),
        serializer={"name": "bytes", "configuration": {"endian": "big"}},
        compressors=None,
    )
    array[...] = [1, 2, 0x01020304]
    assert store.get("a/c/0") == bytes([0, 0, 0, 1, 0, 0, 0, 2, 1, 2, 3, 4])
    assert zf.open_array(store, "a")[...].tolist() == [1, 2, 0x01020304]
    assert zf.open_array(store, "a")[...].dtype == np.dtype("uint32")


def test_an_f_ordered_read_gets_the_same_values():
    store = MemoryStore()
    data = np.arange(12, dtype="int32").reshape(3, 4)
    zf.create_array(store, "a", shape=(3, 4), dtype="int32", chunks=(2, 2), compressors=None)[...] = data
    out = zf.open_array(store, "a", order="F")[...]
    assert out.flags.f_contiguous and np.array_equal(out, data)


def test_a_chunk_of_the_wrong_length_is_reported_with_its_key():
    store = MemoryStore()
    array = zf.create_array(store, "a", shape=(8,), dtype="int32", chunks=(4,), compressors=None)
    array[...] = np.arange(8)
    store.set("a/c/1", b"\x00" * 15)
    with pytest.raises(CorruptChunkError, match="a/c/1") as caught:
        array[...]
    assert "expected 16 bytes" in str(caught.value)


@pytest.fixture
def runs_copied(monkeypatch):
    """The length of each run of plain chunks the engine copied with one call."""
    lengths: list[int] = []
    original = plain_runs.PlainRuns.flush

    def counted(self):
        if self._datas:
            lengths.append(len(self._datas))
        return original(self)

    monkeypatch.setattr(plain_runs.PlainRuns, "flush", counted)
    return lengths


def test_chunks_side_by_side_are_copied_a_row_of_chunks_at_a_time(runs_copied):
    data = np.arange(16 * 64, dtype="uint16").reshape(16, 64)
    # one thread: no chunks measured one at a time first (see pipeline), one group
    with zf.config.set(threads=1):
        array = zf.create_array(
            MemoryStore(), "a", shape=(16, 64), dtype="uint16", chunks=(4, 8), compressors=None
        )
        array[...] = data
        assert np.array_equal(array[...], data)
        # 4 rows of 8 chunks: one copy a row
        assert runs_copied == [8, 8, 8, 8]
        runs_copied.clear()
        # a region: the chunks it covers whole, side by side (columns 8-47 of rows 4-11)
        assert np.array_equal(array[4:12, 8:48], data[4:12, 8:48])
        assert runs_copied == [5, 5]


def test_a_run_stops_at_a_missing_chunk_an_edge_chunk_and_a_chunk_of_another_length():
    store = MemoryStore()
    data = (np.arange(10 * 30, dtype=">i4") - 150).reshape(10, 30)  # big-endian stored values
    array = zf.create_array(
        store,
        "a",
        shape=(10, 30),
        dtype="int32",
        chunks=(5, 4),
        serializer={"name": "bytes", "configuration": {"endian": "big"}},
        compressors=None,
        fill_value=-7,
    )
    array[...] = data
    store.delete("a/c/0/3")  # a hole in the middle of the first row of chunks
    expected = data.astype("int32")
    expected[0:5, 12:16] = -7
    got = array[...]
    assert got.dtype == np.dtype("int32") and np.array_equal(got, expected)  # the edge chunk (cols 28-29) too
    out = zf.open_array(store, "a", order="F")[1:10, 2:30]  # a strided output
    assert out.flags.f_contiguous and np.array_equal(out, expected[1:10, 2:30])
    store.set("a/c/1/2", b"\x00" * 8)  # short: still reported, whatever run it is in
    with pytest.raises(CorruptChunkError, match="a/c/1/2"):
        array[...]


@pytest.mark.parametrize(
    "shape, chunks", [((40,), (4,)), ((6, 8, 12), (3, 4, 3)), ((3, 4, 5, 6), (1, 2, 5, 2))]
)
def test_runs_read_the_values_of_every_dimensionality(shape, chunks, runs_copied):
    data = np.random.default_rng(7).integers(0, 2**31, size=shape, dtype="int64")
    array = zf.create_array(MemoryStore(), "a", shape=shape, dtype="int64", chunks=chunks, compressors=None)
    array[...] = data
    assert np.array_equal(array[...], data)
    inner = tuple(slice(c, s - (s % c or c) if s > 2 * c else s) for s, c in zip(shape, chunks))
    assert np.array_equal(array[inner], data[inner])
    assert max(runs_copied) > 1


def test_a_write_gathers_each_row_of_whole_chunks_with_one_copy(monkeypatch):
    gathered: list[tuple[int, ...]] = []
    original = plain_runs._run_view

    def counted(region, shape, count, *, writeable):
        if not writeable:
            gathered.append((count, *shape))
        return original(region, shape, count, writeable=writeable)

    monkeypatch.setattr(plain_runs, "_run_view", counted)
    store = MemoryStore()
    data = np.arange(16 * 66, dtype="float32").reshape(16, 66) / 3
    with zf.config.set(threads=1):
        array = zf.create_array(store, "a", shape=(16, 66), dtype="float32", chunks=(4, 8), compressors=None)
        array[...] = data
    # 4 rows of 8 whole chunks, one gather each; the edge chunks (columns 64-65) alone
    assert gathered == [(8, 4, 8)] * 4
    assert store.get("a/c/2/3") == data[8:12, 24:32].astype("<f4").tobytes()
    assert store.get("a/c/3/8") == np.pad(data[12:16, 64:66], ((0, 0), (0, 6))).astype("<f4").tobytes()
    assert np.array_equal(array[...], data)


def test_plain_chunks_by_runs_gives_each_whole_chunk_its_bytes_and_leaves_the_rest():
    value = np.arange(6 * 9, dtype="int16").reshape(6, 9)
    selections = [
        (slice(0, 3), slice(0, 3)),
        (slice(0, 3), slice(3, 6)),
        (slice(0, 3), slice(6, 9)),  # a run of three
        (slice(3, 6), slice(0, 2)),  # narrower than a chunk
        (slice(3, 6), slice(3, 6)),  # not next to the one before: a run of its own
        (slice(3, 6), slice(6, 9, None)),
        (slice(3, 6), slice(0, 6, 2)),  # steps
    ]
    got = plain_runs.plain_chunks_by_runs(selections, value, np.dtype(">i2"), (3, 3))
    for selection, data in zip(selections, got):
        whole = all(s.step is None and s.stop - s.start == 3 for s in selection)
        assert data == (value[selection].astype(">i2").tobytes() if whole else None)
    # an index array next to a whole chunk ends its run (compared safely, element-wise)
    beside = [(slice(0, 3), slice(0, 3)), (np.arange(3), slice(3, 6))]
    assert plain_runs.plain_chunks_by_runs(beside, value, np.dtype("<i2"), (3, 3)) == [
        value[0:3, 0:3].astype("<i2").tobytes(),
        None,
    ]
    broadcast = np.broadcast_to(np.int16(7), (6, 9))  # a scalar written everywhere
    assert (
        plain_runs.plain_chunks_by_runs(selections[:3], broadcast, np.dtype("<i2"), (3, 3))
        == [np.full((3, 3), 7, "<i2").tobytes()] * 3
    )


def test_runs_carry_the_data_types_of_plugins():
    # ml_dtypes' float8 (the dtypes plugin) has no array-interface type string: the run
    # views must be made without one
    ml_dtypes = pytest.importorskip("ml_dtypes")  # a dependency of the dtypes plugin, in every test setup
    data = (np.arange(8 * 24) % 13 - 6).astype(ml_dtypes.float8_e5m2).reshape(8, 24)
    store = MemoryStore()
    array = zf.create_array(store, "a", shape=(8, 24), dtype="float8_e5m2", chunks=(4, 4), compressors=None)
    array[...] = data
    assert store.get("a/c/1/2") == data[4:8, 8:12].tobytes()
    got = zf.open_array(store, "a")[...]
    assert got.dtype == data.dtype and np.array_equal(got.view("uint8"), data.view("uint8"))


@pytest.mark.parametrize("threads", [1, 2])
def test_plain_chunks_go_to_a_low_latency_store_in_groups_that_stay_in_cache(threads):
    """Plain chunks are touched twice (read, then copied out; gathered, then written):
    the engine hands a low-latency store at most ``PLAIN_GROUP_BYTES`` of them a call."""

    class Counting(WrapperStore):
        def __init__(self, inner):
            super().__init__(inner)
            self.reads: list[int] = []
            self.writes: list[int] = []

        def get_many(self, requests):
            self.reads.append(sum("/c/" in key for key, _ in requests))  # chunks, not documents
            return super().get_many(requests)

        def _set_many(self, items):
            items = list(items)
            self.writes.append(sum("/c/" in key for key, _ in items))
            return super()._set_many(items)

    store = Counting(MemoryStore())
    assert store.capabilities.low_latency
    data = np.random.default_rng(3).integers(0, 255, (1024, 1024), dtype="uint8")  # 256 chunks of 4 KiB
    array = zf.create_array(
        store, "a", shape=(1024, 1024), dtype="uint8", chunks=(64, 64), compressors=None, threads=threads
    )
    per_group = pipeline.PLAIN_GROUP_BYTES // 4096
    assert per_group < 256  # the cap is what splits this call
    array[...] = data
    assert np.array_equal(array[...], data)
    for calls in (store.writes, store.reads):
        chunk_calls = [n for n in calls if n]
        assert sum(chunk_calls) == 256 and max(chunk_calls) <= per_group
        if threads == 1:  # without the cap, the whole call was one batch
            assert chunk_calls == [per_group] * (256 // per_group)
