"""The sharding_indexed codec: layout, partial I/O, validation of stored shards."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.errors import ChecksumError, CorruptChunkError, MetadataError
from zarrforge.testing import CodecConformance
from zarrforge.testing.clocks import gzip_clock_pinned
from zarrforge_sharding import index_cache
from zarrforge_sharding.codec import coalesce
from zarrforge_std.runtime_transformers import RequestCounter
from zarrforge_std.stores.memory import MemoryStore


def sharded(
    shape=(40, 36),
    chunks=(4, 6),
    shards=(16, 12),
    dtype="int32",
    location="end",
    compressors="auto",
    store=None,
    **kwargs,
):
    codecs = None
    if location != "end":
        inner = [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip"}]
        codecs = [
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": list(chunks),
                    "codecs": inner,
                    "index_codecs": [
                        {"name": "bytes", "configuration": {"endian": "little"}},
                        {"name": "crc32c"},
                    ],
                    "index_location": location,
                },
            }
        ]
        return zf.create_array(
            store or MemoryStore(), shape=shape, dtype=dtype, chunks=shards, codecs=codecs, **kwargs
        )
    return zf.create_array(
        store or MemoryStore(),
        shape=shape,
        dtype=dtype,
        chunks=chunks,
        shards=shards,
        compressors=compressors,
        **kwargs,
    )


def data(shape, dtype="int32", seed=0):
    return np.random.default_rng(seed).integers(-1000, 1000, size=shape).astype(dtype)


@pytest.mark.parametrize("location", ["start", "end"])
def test_round_trip_with_edge_shards(location):
    a = sharded(location=location)
    x = data(a.shape)
    a[...] = x
    assert np.array_equal(a[...], x)
    assert np.array_equal(zf.open_array(a.store)[5:33:3, ::-5], x[5:33:3, ::-5])
    assert a.chunks == (4, 6) and a.shards == (16, 12)
    assert a.metadata["codecs"][0]["configuration"]["index_location"] == location


def test_nested_sharding():
    inner_shard = {
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": [2, 3],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        },
    }
    outer = {
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": [8, 6],
            "codecs": [inner_shard],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        },
    }
    a = zf.create_array(None, shape=(20, 20), dtype="int16", chunks=(16, 12), codecs=[outer])
    x = data(a.shape, "int16")
    a[...] = x
    a[3:5, 4] = -7
    x[3:5, 4] = -7
    assert np.array_equal(zf.open_array(a.store)[...], x)


def test_reading_one_inner_chunk_of_an_unseen_shard_costs_two_requests():
    # "unseen": an earlier test's array, identical and on a store that had the same id(),
    # would leave a remembered index that is right here (a guess checked on every read)
    index_cache.cache.clear()
    a = sharded()
    a[...] = data(a.shape)
    b = zf.open_array(a.store, transformers=[RequestCounter])
    counter = b.chunk_store
    assert b[17, 13] == data(a.shape)[17, 13]
    assert counter.count() == 2
    # the index, then the index again (from the same version) and one coalesced range
    assert [len(ranges) for _, (_, ranges) in counter.calls] == [1, 2]


def test_nearby_inner_chunks_are_fetched_in_one_coalesced_request():
    index_cache.cache.clear()  # as above
    a = sharded()
    x = data(a.shape)
    a[...] = x
    b = zf.open_array(a.store, transformers=[RequestCounter])
    assert np.array_equal(b[16:20, 12:24], x[16:20, 12:24])  # two inner chunks side by side
    requests = [ranges for _, (_, ranges) in b.chunk_store.calls]
    assert len(requests) == 2 and len(requests[1]) == 2  # the index and one coalesced range


def test_coalesce_merges_close_ranges_and_respects_limits():
    assert coalesce([(100, 10), (0, 10), (10, 5)], gap=0) == [(0, 15), (100, 10)]
    assert coalesce([(0, 10), (50, 10)], gap=40) == [(0, 60)]
    assert coalesce([(0, 10), (50, 10)], gap=40, limit=30) == [(0, 10), (50, 10)]


class CountingCodec(BytesBytesCodec):
    name = "test.counting"
    encodes = 0
    decodes = 0

    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}

    def encode(self, data):
        CountingCodec.encodes += 1
        return bytes(data)

    def decode(self, data):
        CountingCodec.decodes += 1
        return bytes(data)


@pytest.fixture
def counting_codec():
    zf.register("codecs", "test.counting", CountingCodec)
    CountingCodec.encodes = CountingCodec.decodes = 0
    yield CountingCodec
    zf.registry.codecs.unregister("test.counting")


def test_partial_write_reencodes_only_the_inner_chunks_it_touches(counting_codec):
    a = sharded(compressors=[{"name": "test.counting"}])
    x = data(a.shape)
    a[...] = x
    before = dict(a.store._data)
    counting_codec.encodes = counting_codec.decodes = 0
    a[1:3, 7:9] = 5  # inside one inner chunk (rows 0-3, cols 6-11) of shard (0, 0)
    assert counting_codec.encodes == 1 and counting_codec.decodes == 1
    x[1:3, 7:9] = 5
    assert np.array_equal(a[...], x)
    changed = {k for k in before if before[k] != a.store._data[k]}
    assert changed == {"c/0/0"}


def test_untouched_inner_chunks_keep_their_exact_bytes(counting_codec):
    a = sharded(compressors=[{"name": "test.counting"}])
    a[...] = data(a.shape)
    shard = a.store.get("c/0/0")
    a[0, 0] = 1
    new = a.store.get("c/0/0")
    # every inner chunk but (0, 0) appears unchanged in the new shard

    def chunk(blob, i):  # 4x6 int32 = 96 bytes, stored in C order
        return blob[i * 96 : (i + 1) * 96]

    assert [chunk(new, i) for i in range(1, 8)] == [chunk(shard, i) for i in range(1, 8)]


def test_a_shard_left_holding_only_fill_values_is_deleted():
    a = sharded(fill_value=0)
    a[0:16, 0:12] = data((16, 12)) + 2000
    assert "c/0/0" in a.store._data
    a[0:2, 0:2] = 0
    assert "c/0/0" in a.store._data
    a[0:16, 0:12] = 0
    assert "c/0/0" not in a.store._data
    a[3, 3] = 9
    a[3, 3] = 0  # a partial update that empties the shard deletes it too
    assert "c/0/0" not in a.store._data


def test_inner_chunks_equal_to_the_fill_value_are_not_stored():
    a = sharded(fill_value=0, compressors=None)
    a[0, 0] = 1
    shard = a.store.get("c/0/0")
    assert len(shard) == 96 + 8 * 16 + 4  # one inner chunk, the index, its checksum
    assert np.array_equal(a[0:4, 0:6], np.pad([[1]], ((0, 3), (0, 5))))


@pytest.mark.parametrize("location", ["start", "end"])
def test_index_checksum_mismatch_is_a_named_error(location):
    a = sharded(location=location)
    a[...] = data(a.shape)
    blob = bytearray(a.store.get("c/1/1"))
    where = 3 if location == "start" else len(blob) - 10
    blob[where] ^= 0xFF
    a.store.set("c/1/1", bytes(blob))
    for read in (lambda: a[...], lambda: a[20, 15]):
        with pytest.raises(ChecksumError, match="'c/1/1'"):
            read()


def _rewrite_index(store, key, edit):
    """Replace the (end-located) index of a shard with an edited one and a valid crc32c."""
    import google_crc32c

    blob = store.get(key)
    n = 4 * 2  # chunks per shard of `sharded()` defaults: (16/4) x (12/6)
    size = n * 16
    entries = np.frombuffer(blob[-size - 4 : -4], dtype="<u8").reshape(n, 2).copy()
    edit(entries)
    index = entries.astype("<u8").tobytes()
    store.set(key, blob[: -size - 4] + index + struct.pack("<I", google_crc32c.value(index)))


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda e: e.__setitem__((0, 1), 10**9), "past the end"),
        (lambda e: e.__setitem__((1, 0), e[0, 0]), "overlap"),
        (lambda e: e.__setitem__((0, 1), 2**60), "absurd"),
        (lambda e: e.__setitem__((0, 0), 2**64 - 1), "half empty"),
    ],
)
def test_corrupt_index_entries_are_named_errors(edit, message):
    a = sharded()
    a[...] = data(a.shape)
    _rewrite_index(a.store, "c/0/0", edit)
    before = dict(a.store._data)
    with pytest.raises(CorruptChunkError, match=message) as info:
        a[...]
    assert "'c/0/0'" in str(info.value)
    with pytest.raises(CorruptChunkError):
        a[0, 0] = 1  # a partial write must read the bad index, and refuses
    assert a.store._data == before


def test_truncated_shard_is_a_named_error():
    a = sharded()
    a[...] = data(a.shape)
    a.store.set("c/0/0", a.store.get("c/0/0")[:50])
    with pytest.raises(CorruptChunkError, match="'c/0/0'"):
        a[...]
    with pytest.raises(CorruptChunkError, match="'c/0/0'"):
        a[0, 0]


@pytest.mark.parametrize(
    "configuration,field",
    [
        ({"chunk_shape": [5, 6], "codecs": ["bytes"], "index_codecs": ["bytes", "crc32c"]}, "chunk_shape"),
        ({"chunk_shape": [4, 6], "codecs": ["bytes"], "index_codecs": ["bytes", "gzip"]}, "index_codecs"),
        ({"chunk_shape": [4, 6], "codecs": ["bytes"]}, "index_codecs"),
        (
            {
                "chunk_shape": [4, 6],
                "codecs": ["bytes"],
                "index_codecs": ["bytes"],
                "index_location": "middle",
            },
            "index_location",
        ),
        ({"chunk_shape": [4, 0], "codecs": ["bytes"], "index_codecs": ["bytes"]}, "chunk_shape"),
    ],
)
def test_invalid_configurations_name_the_field(configuration, field):
    with pytest.raises(MetadataError, match=field):
        zf.create_array(
            None,
            shape=(16, 12),
            dtype="uint8",
            chunks=(16, 12),
            codecs=[{"name": "sharding_indexed", "configuration": configuration}],
        )


def test_sharded_array_metadata_round_trips_through_json():
    a = sharded()
    document = json.loads(a.store.get("zarr.json"))
    assert document["codecs"] == a.metadata["codecs"]
    assert zf.open_array(a.store).metadata == a.metadata


class TestShardingConformance(CodecConformance):
    codec_documents = [
        {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": [4, 5],
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_codecs": [
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "crc32c"},
                ],
                "index_location": "end",
            },
        },
        {
            "name": "sharding_indexed",
            "configuration": {
                "chunk_shape": [2, 5],
                "codecs": [
                    {"name": "bytes", "configuration": {"endian": "big"}},
                    {"name": "zstd", "configuration": {"level": 1, "checksum": False}},
                ],
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                "index_location": "start",
            },
        },
    ]
    data_type = "int16"
    chunk_shape = (8, 10)


def test_coalescing_is_configurable_process_wide():
    from zarrforge_sharding.codec import set_coalescing

    a = sharded()
    x = data(a.shape)
    a[...] = x
    previous = set_coalescing(gap=0, limit=0)  # one request per inner-chunk range
    try:
        b = zf.open_array(a.store, transformers=[RequestCounter])
        assert np.array_equal(b[16:20, 12:24], x[16:20, 12:24])
        _index_request, data_request = [detail for _, detail in b.chunk_store.calls]
        assert len(data_request) == 2  # two ranges in the one request, not merged
    finally:
        set_coalescing(gap=previous.gap, limit=previous.limit)
    with pytest.raises(ValueError, match="gap"):
        set_coalescing(gap=-1)


class PartsRecordingStore(MemoryStore):
    """Records how many pieces each shard was handed over in."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: dict[str, int] = {}

    def _set_parts(self, key, parts):
        self.pieces[key] = len(parts)
        super()._set_parts(key, parts)


@pytest.mark.parametrize("location", ["start", "end"])
def test_shards_are_stored_as_pieces_that_join_to_the_encoded_shard(location):
    store = PartsRecordingStore()
    array = sharded(location=location, store=store)
    values = data(array.shape)
    with gzip_clock_pinned():  # the shard is encoded again below, to compare
        array[...] = values
    # 3 x 3 shards, each handed over as its inner chunks (4 x 2 of them, fewer in the
    # edge shards, whose chunks beyond the array are fill and not stored) plus the index
    assert len(store.pieces) == 9 and store.pieces["c/0/0"] == 4 * 2 + 1
    assert all(1 < n <= 4 * 2 + 1 for n in store.pieces.values())
    np.testing.assert_array_equal(zf.open_array(store)[...], values)
    chain = array._chain()
    spec = array._engine_().spec_for((0, 0))
    shard = values[:16, :12]
    with gzip_clock_pinned():
        assert b"".join(chain.encode_parts(shard, spec)) == chain.encode(shard, spec)
        assert store.get(array.chunk_key((0, 0))) == chain.encode(shard, spec)


def test_partial_reads_copy_from_present_and_absent_inner_chunks_alike():
    # basic selections go straight from each inner chunk to the result (no box around
    # them): inner chunks never written read as the fill value, wherever they fall
    array = zf.create_array(
        None, "a", shape=(12, 12), chunks=(4, 4), shards=(12, 12), dtype="int16", fill_value=-1
    )
    expected = np.full((12, 12), -1, dtype="int16")
    array[4:8, 4:8] = expected[4:8, 4:8] = np.arange(16, dtype="int16").reshape(4, 4)
    for selection in [
        (slice(2, 10), slice(3, 9)),
        (5, slice(0, 12)),
        (slice(None), 6),
        (7, 7),
        (slice(4, 8), slice(4, 8)),
        (slice(0, 3), slice(0, 3)),
        (slice(1, 11, 3), slice(None, None, 2)),
    ]:
        np.testing.assert_array_equal(array[selection], expected[selection], err_msg=str(selection))


def test_a_read_inside_one_inner_chunk_goes_without_the_box(monkeypatch):
    # a small read's selection, inside one inner chunk, is answered from that chunk
    # alone (no Box, no per-piece bookkeeping); wider ones still analyse their box
    from zarrforge_sharding import codec as sharding_codec

    array = zf.create_array(
        None, "a", shape=(12, 12), chunks=(4, 4), shards=(12, 12), dtype="int16", fill_value=-1
    )
    expected = np.full((12, 12), -1, dtype="int16")
    array[4:8, 0:8] = expected[4:8, 0:8] = np.arange(32, dtype="int16").reshape(4, 8)
    boxes = []
    real = sharding_codec.analyse
    monkeypatch.setattr(sharding_codec, "analyse", lambda *a: boxes.append(a) or real(*a))
    for selection in [(5, slice(1, 3)), (slice(4, 8), slice(4, 8)), (6, 6), (slice(9, 11), slice(0, 2))]:
        np.testing.assert_array_equal(array[selection], expected[selection], err_msg=str(selection))
    assert boxes == []  # the last one's inner chunk is empty: the fill value, as before
    np.testing.assert_array_equal(array[5, 2:6], expected[5, 2:6])
    assert len(boxes) == 1
