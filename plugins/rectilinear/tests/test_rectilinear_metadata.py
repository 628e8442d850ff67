"""The rectilinear grid's metadata: parsing, validation errors, round trips."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge_rectilinear import RectilinearChunkGrid, compact, parse_edges
from zarrforge_std.stores.memory import MemoryStore


def grid_json(*chunk_shapes):
    return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": list(chunk_shapes)}}


def parse(shape, *chunk_shapes):
    return RectilinearChunkGrid.from_json("rectilinear", grid_json(*chunk_shapes)["configuration"], shape)


def test_the_specification_example():
    g = parse((6, 6, 6, 6, 6), 4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4])
    assert g.chunk_sizes == ((4, 4), (1, 2, 3), (4, 4), (1, 1, 1, 3), (4, 4))
    assert g.grid_shape == (2, 3, 2, 4, 2)
    assert g.nchunks == 2 * 3 * 2 * 4 * 2
    # The third edge of the last dimension lies wholly past the end: declared, not a chunk yet.
    last = g.dimensions[4]
    assert last.nchunks == 2 and last.start(2) == 8 and last.size(2) == 4
    assert g.regular_chunk_shape is None


def test_the_indexing_example_of_the_specification():
    g = parse((26, 38), [16, 10], [24, 14])
    d0, d1 = g.dimensions
    assert (int(d0.index_of(np.array([20]))[0]), int(d1.index_of(np.array([15]))[0])) == (1, 0)
    assert (20 - d0.start(1), 15 - d1.start(0)) == (4, 15)
    assert g.chunk_shape((0, 1)) == (16, 14) and g.chunk_shape((1, 0)) == (10, 24)


@pytest.mark.parametrize(
    "chunk_shapes, shape, expected",
    [
        ([5, 7], (20, 20), (5, 7)),  # integers: regular along both dimensions
        ([[4, 4, 4], [[3, 5]]], (12, 15), (4, 3)),  # explicit but equal edges
        ([[4, 4, 2]], (8,), (4,)),  # the short edge is past the end of the array
        ([[4, 4, 4, 4]], (6,), (4,)),  # overflow by several chunks
        ([3], (0,), (3,)),  # no chunks: the nominal step
        ([[2, 3]], (0,), (2,)),  # no chunks: the first declared edge
        ([], (), ()),  # 0-d
    ],
)
def test_regular_chunk_shape_when_every_chunk_has_the_same_shape(chunk_shapes, shape, expected):
    assert parse(shape, *chunk_shapes).regular_chunk_shape == expected


@pytest.mark.parametrize(
    "chunk_shapes, shape",
    [
        ([[4, 4, 2]], (10,)),
        ([5, [[3, 2], 1]], (10, 7)),
    ],
)
def test_regular_chunk_shape_is_none_when_chunks_differ(chunk_shapes, shape):
    assert parse(shape, *chunk_shapes).regular_chunk_shape is None


@pytest.mark.parametrize(
    "chunk_shapes, shape",
    [
        ([4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]], (6, 6, 6, 6, 6)),
        ([[[1, 1]], [1, [1, 1], 1]], (1, 3)),  # runs of one, mixed forms: kept as written
        ([[5, 5, 5]], (15,)),  # not re-encoded
        ([[[10, 3], 5]], (35,)),
        ([[]], (0,)),  # no edge at all (only for length 0)
        ([], ()),
    ],
)
def test_to_json_writes_back_what_was_read(chunk_shapes, shape):
    doc = grid_json(*chunk_shapes)
    g = RectilinearChunkGrid.from_json("rectilinear", json.loads(json.dumps(doc["configuration"])), shape)
    assert g.to_json() == doc
    assert json.dumps(g.to_json()) == json.dumps(doc)  # same types: integers stay integers


def test_to_json_returns_a_copy():
    g = parse((9,), [[3, 3]])
    g.to_json()["configuration"]["chunk_shapes"][0][0][1] = 99
    assert g.to_json() == grid_json([[3, 3]])


def test_document_written_equals_document_read():
    doc = grid_json([[2, 3], 5, [1, 2]], 4, [[3, 3]])
    a = zf.create_array(MemoryStore(), shape=(13, 10, 7), dtype="uint8", chunks=doc)
    stored = json.loads(a.store.get("zarr.json"))
    assert stored["chunk_grid"] == doc
    b = zf.open_array(a.store, mode="r+")
    assert b.metadata["chunk_grid"] == doc
    b.attrs["x"] = 1  # rewrites zarr.json from the model
    assert json.loads(a.store.get("zarr.json"))["chunk_grid"] == doc


def test_a_hand_written_document_opens_and_is_written_back_unchanged():
    store = MemoryStore()
    document = {
        "zarr_format": 3,
        "node_type": "array",
        "shape": [6, 5],
        "data_type": "int16",
        "chunk_grid": grid_json([[1, 3], 3], [2, [1, 3]]),
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": -1,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {},
    }
    store.set("zarr.json", json.dumps(document).encode())
    a = zf.open_array(store, mode="r+")
    assert a.cdata_shape == (4, 4)
    assert a.metadata["chunk_grid"] == document["chunk_grid"]
    np.testing.assert_array_equal(a[...], np.full((6, 5), -1, "int16"))


def test_from_edges_compacts_explicit_lists():
    g = RectilinearChunkGrid.from_edges([[10, 10, 10, 5], 8, (1, 2, 2)], (35, 20, 5))
    assert g.to_json()["configuration"]["chunk_shapes"] == [[[10, 3], 5], 8, [1, [2, 2]]]


def test_compact():
    assert compact([]) == []
    assert compact([3]) == [3]
    assert compact([10, 10, 10, 5]) == [[10, 3], 5]
    assert compact([1, 2, 2, 1]) == [1, [2, 2], 1]
    assert compact(np.array([4, 4], dtype=np.int64)) == [[4, 2]]


def test_runs_are_merged_and_never_expanded():
    e = parse_edges([[2, 3], 2, [2, 10**12], 5], "x")
    assert e.runs == ((2, 10**12 + 4), (5, 1))
    assert e.total == 2 * (10**12 + 4) + 5
    g = parse((10**12,), [[1, 10**12]])
    d = g.dimensions[0]
    assert d.nchunks == 10**12
    np.testing.assert_array_equal(d.index_of(np.array([0, 7, 10**12 - 1])), [0, 7, 10**12 - 1])


def test_edges_beyond_int64_past_the_end_are_fine():
    g = parse((10,), [4, 10**30, 10**40])
    d = g.dimensions[0]
    assert d.nchunks == 2 and d.start(2) == 4 + 10**30
    np.testing.assert_array_equal(d.index_of(np.arange(10)), [0] * 4 + [1] * 6)


# --- invalid configurations ---------------------------------------------------------------

INVALID = [
    # (configuration, shape, field, words the message must contain)
    (None, (4,), "configuration", ["kind", "chunk_shapes"]),
    ({"kind": "inline", "chunk_shapes": [4], "extra": 1}, (4,), "configuration", ["extra"]),
    ({"chunk_shapes": [4]}, (4,), "configuration.kind", ["required", "inline"]),
    ({"kind": "external", "chunk_shapes": [4]}, (4,), "configuration.kind", ["'external'", "'inline'"]),
    ({"kind": "inline"}, (4,), "configuration.chunk_shapes", ["required"]),
    ({"kind": "inline", "chunk_shapes": 4}, (4,), "configuration.chunk_shapes", ["4", "one entry per"]),
    (
        {"kind": "inline", "chunk_shapes": [4, 4]},
        (4,),
        "configuration.chunk_shapes",
        ["[4, 4]", "1 for shape [4]"],
    ),
    (
        {"kind": "inline", "chunk_shapes": [4, 0]},
        (4, 4),
        "configuration.chunk_shapes[1]",
        ["0", "positive integer"],
    ),
    ({"kind": "inline", "chunk_shapes": [4, -2]}, (4, 4), "configuration.chunk_shapes[1]", ["-2"]),
    ({"kind": "inline", "chunk_shapes": [4, True]}, (4, 4), "configuration.chunk_shapes[1]", ["True"]),
    ({"kind": "inline", "chunk_shapes": [4, 2.0]}, (4, 4), "configuration.chunk_shapes[1]", ["2.0"]),
    ({"kind": "inline", "chunk_shapes": [4, "2"]}, (4, 4), "configuration.chunk_shapes[1]", ["'2'"]),
    (
        {"kind": "inline", "chunk_shapes": [[1, 0, 3]]},
        (4,),
        "configuration.chunk_shapes[0][1]",
        ["0", "[length, count]"],
    ),
    ({"kind": "inline", "chunk_shapes": [[1, [2, 0]]]}, (4,), "configuration.chunk_shapes[0][1]", ["[2, 0]"]),
    (
        {"kind": "inline", "chunk_shapes": [[[2, 2, 2]]]},
        (4,),
        "configuration.chunk_shapes[0][0]",
        ["[2, 2, 2]", "pair"],
    ),
    ({"kind": "inline", "chunk_shapes": [[[2]]]}, (4,), "configuration.chunk_shapes[0][0]", ["[2]"]),
    ({"kind": "inline", "chunk_shapes": [[[[2, 1], 1]]]}, (4,), "configuration.chunk_shapes[0][0]", []),
    ({"kind": "inline", "chunk_shapes": [[None]]}, (4,), "configuration.chunk_shapes[0][0]", ["None"]),
    (
        {"kind": "inline", "chunk_shapes": [4, [2, [1, 3]]]},
        (4, 6),
        "configuration.chunk_shapes[1]",
        ["sum to 5", "length 6", "dimension 1"],
    ),
    ({"kind": "inline", "chunk_shapes": [[]]}, (1,), "configuration.chunk_shapes[0]", ["sum to 0"]),
]


@pytest.mark.parametrize("configuration, shape, field, words", INVALID)
def test_invalid_configurations_name_the_field(configuration, shape, field, words):
    with pytest.raises(MetadataError) as info:
        RectilinearChunkGrid.from_json("rectilinear", configuration, shape)
    assert info.value.field == field
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("configuration, shape, field, words", INVALID[1:])
def test_invalid_configurations_at_creation_name_the_argument(configuration, shape, field, words):
    store = MemoryStore()
    with pytest.raises(MetadataError) as info:
        zf.create_array(
            store, shape=shape, dtype="uint8", chunks={"name": "rectilinear", "configuration": configuration}
        )
    assert info.value.field == f"chunks.{field}"
    assert list(store.list_prefix("")) == []  # nothing was written


def test_an_invalid_stored_document_names_the_chunk_grid_field():
    a = zf.create_array(MemoryStore(), shape=(6, 4), dtype="uint8", chunks=grid_json([2, 4], 4))
    doc = json.loads(a.store.get("zarr.json"))
    doc["chunk_grid"]["configuration"]["chunk_shapes"][0] = [2, [4, 0]]
    a.store.set("zarr.json", json.dumps(doc).encode())
    with pytest.raises(MetadataError) as info:
        zf.open_array(a.store)
    assert info.value.field == "chunk_grid.configuration.chunk_shapes[0][1]"
    assert "[4, 0]" in str(info.value)


def test_must_understand_false_is_refused():
    doc = grid_json(4)
    doc["must_understand"] = False
    with pytest.raises(MetadataError, match="must_understand"):
        zf.create_array(MemoryStore(), shape=(4,), dtype="uint8", chunks=doc)
