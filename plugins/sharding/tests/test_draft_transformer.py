"""The 2022 draft's sharding storage transformer, in the layout zarr-python 2.x wrote."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge_sharding.draft_transformer import NAME
from zarrforge_std.runtime_transformers import RequestCounter
from zarrforge_std.stores.memory import MemoryStore


def transformer(cps=(2, 3)):
    return {"name": NAME, "configuration": {"type": "indexed", "chunks_per_shard": list(cps)}}


def make(shape=(9, 13), chunks=(2, 2), cps=(2, 3), **kwargs):
    return zf.create_array(
        MemoryStore(),
        shape=shape,
        dtype="int32",
        chunks=chunks,
        compressors=None,
        storage_transformers=[transformer(cps)],
        **kwargs,
    )


def values(shape):
    return np.arange(int(np.prod(shape)), dtype="int32").reshape(shape) + 1


def test_chunks_are_grouped_into_shards_with_an_end_index():
    a = make()
    a[...] = values(a.shape)
    keys = sorted(k for k in a.store._data if k != "zarr.json")
    assert keys == [f"c/{i}/{j}" for i in range(3) for j in range(3)]  # 5x7 chunks -> 3x3 shards
    shard = a.store.get("c/0/0")
    index = np.frombuffer(shard[-6 * 16 :], dtype="<u8").reshape(2, 3, 2)
    assert index[0, 0].tolist() == [0, 16] and index[1, 2].tolist() == [80, 16]
    chunk = np.frombuffer(shard[16:32], dtype="<i4").reshape(2, 2)  # chunk (0, 1)
    assert np.array_equal(chunk, values(a.shape)[0:2, 2:4])
    assert np.array_equal(zf.open_array(a.store)[...], values(a.shape))
    assert a.metadata["storage_transformers"] == [transformer()]


def test_missing_chunks_are_marked_and_an_empty_shard_is_deleted():
    a = make(fill_value=0)
    a[0:2, 0:2] = 5
    index = np.frombuffer(a.store.get("c/0/0")[-96:], dtype="<u8").reshape(2, 3, 2)
    assert index[0, 1].tolist() == [2**64 - 1, 2**64 - 1]
    assert a.nchunks_initialized == 1
    assert sorted(a.stored_chunks()) == [(0, 0)]
    a[0:2, 0:2] = 0
    assert "c/0/0" not in a.store._data


def test_reading_one_chunk_costs_two_requests():
    a = make()
    a[...] = values(a.shape)
    b = zf.open_array(a.store, transformers=[RequestCounter])
    counter = b.chunk_store.inner  # the draft transformer sits above the runtime ones
    assert b[5, 7] == values(a.shape)[5, 7]
    assert counter.count() == 2


def test_writing_a_whole_shard_rewrites_it_once():
    a = make()
    counted = zf.open_array(a.store, mode="r+", transformers=[RequestCounter])
    counted[0:4, 0:6] = values((4, 6))  # the six chunks of shard (0, 0), one engine batch
    assert counted.chunk_store.inner.count("set") == 1
    assert np.array_equal(a[0:4, 0:6], values((4, 6)))


def test_corrupt_index_is_a_named_error():
    a = make()
    a[...] = values(a.shape)
    a.store.set("c/1/1", a.store.get("c/1/1")[:-96] + (b"\xff" * 8 + b"\x00" * 8) * 6)
    with pytest.raises(CorruptChunkError, match="'c/1/1'"):
        a[...]


@pytest.mark.parametrize(
    "configuration",
    [
        {"type": "hashed", "chunks_per_shard": [2]},
        {"type": "indexed", "chunks_per_shard": [0, 2]},
        {"type": "indexed"},
        {"type": "indexed", "chunks_per_shard": [2, 2], "extra": 1},
    ],
)
def test_invalid_configuration_is_a_named_error(configuration):
    with pytest.raises(MetadataError, match="storage_transformers"):
        zf.create_array(
            None,
            shape=(4, 4),
            dtype="int8",
            chunks=(2, 2),
            storage_transformers=[{"name": NAME, "configuration": configuration}],
        )
