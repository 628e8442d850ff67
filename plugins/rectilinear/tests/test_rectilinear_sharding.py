"""Sharding (``sharding_indexed``) with a rectilinear outer grid.

Every shard has its own shape, and the sharding codec (spec 1.0) needs the
inner chunk shape to divide the shard shape, so every edge of the outer grid
must be a multiple of the inner chunk along its dimension.

The core currently validates the codec chain against the *first* chunk's
shape only, so a shard of another shape that the inner chunks do not divide
is accepted and its remainder silently dropped on write. The tests of that
case are expected failures until the core validates every distinct chunk
shape (the proposed ``ChunkGrid.representative_chunk_shapes``; see the
report of this plugin).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge_std.runtime_transformers import RequestCounter
from zarrforge_std.stores.memory import MemoryStore


def grid_json(*chunk_shapes):
    return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": list(chunk_shapes)}}


def sharded(shape, chunks, *shard_edges, store=None):
    return zf.create_array(
        store or MemoryStore(),
        shape=shape,
        dtype="int32",
        chunks=chunks,
        shards=grid_json(*shard_edges),
        fill_value=0,
    )


def data(shape, seed=0):
    return np.random.default_rng(seed).integers(1, 1000, size=shape).astype("int32")


def test_shards_of_different_shapes_round_trip():
    a = sharded((30, 20), (4, 5), [8, 16, 8], [[10, 2]])
    x = data(a.shape)
    a[...] = x
    np.testing.assert_array_equal(a[...], x)
    assert a.chunks == (4, 5)
    assert a.cdata_shape == (3, 2)
    assert {k for k in a.store.list_prefix("") if k != "zarr.json"} == {
        f"c/{i}/{j}" for i in range(3) for j in range(2)
    }
    doc = json.loads(a.store.get("zarr.json"))
    assert doc["chunk_grid"] == grid_json([8, 16, 8], [[10, 2]])
    assert doc["codecs"][0]["name"] == "sharding_indexed"
    assert doc["codecs"][0]["configuration"]["chunk_shape"] == [4, 5]
    # Partial updates and strided reads across shards of different shapes.
    a[3:25:3, 7] = -1
    x[3:25:3, 7] = -1
    a.oindex[[0, 9, 29], [19, 0]] = -2
    x[np.ix_([0, 9, 29], [19, 0])] = -2
    b = zf.open_array(a.store)
    np.testing.assert_array_equal(b[...], x)
    np.testing.assert_array_equal(b[1:29:5, ::-3], x[1:29:5, ::-3])
    np.testing.assert_array_equal(b.vindex[[5, 12, 27], [2, 13, 19]], x[[5, 12, 27], [2, 13, 19]])


def test_the_last_shard_may_extend_past_the_array():
    a = sharded((21, 6), (4, 3), [8, 16], 6)
    x = data(a.shape)
    a[...] = x
    np.testing.assert_array_equal(zf.open_array(a.store)[...], x)
    assert a.cdata_shape == (2, 1)


def test_reading_one_inner_chunk_of_a_large_shard_reads_byte_ranges():
    a = sharded((24, 4), (2, 4), [4, 16, 4], 4)
    a[...] = data(a.shape)
    b = zf.open_array(a.store, transformers=[RequestCounter])
    assert b[9, 1] == data(a.shape)[9, 1]
    assert b.chunk_store.count() == 2  # the index of shard 1, then one inner chunk


def test_never_written_shards_and_inner_chunks_read_as_fill():
    a = sharded((12, 12), (2, 2), [2, [4, 2], 2], [6, 6])
    a[3, 7] = 5
    assert {k for k in a.store.list_prefix("") if k != "zarr.json"} == {"c/1/1"}
    expected = np.zeros((12, 12), "int32")
    expected[3, 7] = 5
    np.testing.assert_array_equal(a[...], expected)


def test_growing_by_whole_inner_chunks_appends_a_valid_shard():
    a = sharded((8, 4), (4, 4), [8], 4)
    a[...] = 1
    a.resize((20, 4))  # appends a shard edge of 12, a multiple of 4
    assert a.metadata["chunk_grid"] == grid_json([8, 12], 4)
    a[8:] = 2
    expected = np.repeat(np.array([1, 2], "int32"), [8, 12])[:, None].repeat(4, axis=1)
    np.testing.assert_array_equal(zf.open_array(a.store)[...], expected)


def test_a_shard_the_inner_chunks_do_not_divide_is_refused_at_creation():
    store = MemoryStore()
    with pytest.raises(MetadataError) as info:
        sharded((30, 20), (4, 5), [8, 10, 12], [[10, 2]], store=store)
    assert info.value.field == "codecs[0].configuration.chunk_shape"
    assert "[10, 10]" in str(info.value)  # the shard shape the inner chunks do not divide
    assert list(store.list_prefix("")) == []


def test_a_stored_document_with_such_a_shard_is_refused_on_open():
    a = sharded((16, 4), (4, 4), [8, 8], 4)
    doc = json.loads(a.store.get("zarr.json"))
    doc["chunk_grid"]["configuration"]["chunk_shapes"][0] = [8, 6, 2]
    a.store.set("zarr.json", json.dumps(doc).encode())
    with pytest.raises(MetadataError, match=r"divide the shard shape \[[26], 4\]"):
        zf.open_array(a.store)


def test_growing_by_a_partial_inner_chunk_is_refused_and_changes_nothing():
    a = sharded((16, 4), (4, 4), [8, 8], 4)
    a[...] = 3
    before = {k: a.store.get(k) for k in a.store.list_prefix("")}
    with pytest.raises(MetadataError, match=r"\[2, 4\]"):
        a.resize((18, 4))  # would append a shard edge of 2
    assert a.shape == (16, 4)
    assert {k: a.store.get(k) for k in a.store.list_prefix("")} == before


def test_the_first_shard_is_checked_even_now():
    with pytest.raises(MetadataError, match="divide the shard shape"):
        sharded((30, 20), (4, 5), [6, 12, 12], [[10, 2]])
