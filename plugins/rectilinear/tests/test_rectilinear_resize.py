"""Resize and append on rectilinear grids.

The specification only requires that a dimension's edges sum to at least its
length (extra edges past the end are allowed). So: integer dimensions follow
any length; explicit edges are kept while they cover the new length (a
shrink keeps every edge); growing past their sum appends one edge spanning
the new part (zarr-python's rule), leaving every existing chunk's shape as it
was.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge_rectilinear import RectilinearChunkGrid
from zarrforge_std.stores.memory import MemoryStore

FILL = -1


def grid_json(*chunk_shapes):
    return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": list(chunk_shapes)}}


def make(shape, *chunk_shapes):
    return zf.create_array(
        MemoryStore(), shape=shape, dtype="int32", chunks=grid_json(*chunk_shapes), fill_value=FILL
    )


def chunk_shapes_stored(a):
    return json.loads(a.store.get("zarr.json"))["chunk_grid"]["configuration"]["chunk_shapes"]


def chunk_keys(store):
    return {k for k in store.list_prefix("") if not k.endswith("zarr.json")}


def test_shrink_keeps_the_edges_and_resets_the_cut_off_part():
    a = make((10, 4), [3, 5, 2], 4)
    x = np.arange(40, dtype="int32").reshape(10, 4)
    a[...] = x
    a.resize((5, 4))
    assert chunk_shapes_stored(a) == [[3, 5, 2], 4]
    assert a.cdata_shape == (2, 1)
    assert chunk_keys(a.store) == {"c/0/0", "c/1/0"}  # chunk 2 (rows 8..9) is gone
    np.testing.assert_array_equal(a[...], x[:5])
    # Growing back within the declared edges: same chunks, the cut-off part reads as fill.
    a.resize((10, 4))
    assert chunk_shapes_stored(a) == [[3, 5, 2], 4]
    expected = np.full((10, 4), FILL, dtype="int32")
    expected[:5] = x[:5]
    np.testing.assert_array_equal(a[...], expected)
    np.testing.assert_array_equal(zf.open_array(a.store)[...], expected)


def test_shrink_to_zero_and_grow_again():
    a = make((10,), [3, 5, 2])
    a[...] = 4
    a.resize(0)
    assert a.cdata_shape == (0,) and chunk_keys(a.store) == set()
    assert chunk_shapes_stored(a) == [[3, 5, 2]]
    a.resize(4)
    assert a.cdata_shape == (2,)
    np.testing.assert_array_equal(a[...], [FILL] * 4)


def test_growing_past_the_edges_appends_one_edge():
    a = make((10, 3), [3, 5, 2], [[1, 3]])
    x = np.arange(30, dtype="int32").reshape(10, 3)
    a[...] = x
    a.resize((14, 5))
    assert chunk_shapes_stored(a) == [[3, 5, 2, 4], [[1, 3], 2]]
    assert a.metadata_model.chunk_grid.chunk_sizes == ((3, 5, 2, 4), (1, 1, 1, 2))
    expected = np.full((14, 5), FILL, dtype="int32")
    expected[:10, :3] = x
    np.testing.assert_array_equal(a[...], expected)
    np.testing.assert_array_equal(zf.open_array(a.store)[...], expected)


@pytest.mark.parametrize(
    "before, length, after",
    [
        ([[3, 2]], 9, [[3, 3]]),  # joins a trailing run
        ([4, 3], 10, [4, [3, 2]]),  # a trailing bare edge of the same length becomes a run
        ([4, 3], 9, [4, 3, 2]),  # a different length: a new bare edge
        ([[2, 2], 1], 5, [[2, 2], 1]),  # still covered: unchanged
        ([[4, 2]], 6, [[4, 2]]),  # overflowing edges are kept
    ],
)
def test_appended_edges_stay_compact(before, length, after):
    total = sum(i[0] * i[1] if isinstance(i, list) else i for i in before)
    a = make((min(total, length),), before)
    a.resize(length)
    assert chunk_shapes_stored(a) == [after]


def test_growing_from_an_empty_edge_list():
    a = make((0,), [])
    a.resize(6)
    assert chunk_shapes_stored(a) == [[6]]
    a[...] = 2
    assert chunk_keys(a.store) == {"c/0"}


def test_integer_dimensions_follow_any_length():
    a = make((5, 5), 2, [5])
    a[...] = 1
    a.resize((11, 5))
    assert chunk_shapes_stored(a) == [2, [5]]
    assert a.cdata_shape == (6, 1)
    a.resize((1, 5))
    assert chunk_shapes_stored(a) == [2, [5]]
    assert a.cdata_shape == (1, 1)


def test_append_along_explicit_edges_never_rewrites_existing_chunks():
    a = make((4, 3), [[2, 2]], 3)
    x = np.arange(12, dtype="int32").reshape(4, 3)
    a[...] = x
    before = {k: a.store.get(k) for k in chunk_keys(a.store)}
    block = np.full((3, 3), 50, dtype="int32")
    assert a.append(block) == (7, 3)
    assert chunk_shapes_stored(a) == [[[2, 2], 3], 3]
    assert chunk_keys(a.store) == set(before) | {"c/2/0"}
    assert all(a.store.get(k) == v for k, v in before.items())
    assert a.append(block[:1]) == (8, 3)
    assert chunk_shapes_stored(a) == [[[2, 2], 3, 1], 3]
    np.testing.assert_array_equal(a[...], np.concatenate([x, block, block[:1]]))


def test_append_along_an_integer_dimension_behaves_like_a_regular_grid():
    a = make((2, 5), [2], 3)
    x = np.arange(10, dtype="int32").reshape(2, 5)
    a[...] = x
    a.append(np.full((2, 2), 9, dtype="int32"), axis=1)
    assert chunk_shapes_stored(a) == [[2], 3]
    assert a.shape == (2, 7) and a.cdata_shape == (1, 3)
    np.testing.assert_array_equal(a[...], np.concatenate([x, np.full((2, 2), 9)], axis=1))


def test_with_shape_needs_the_same_number_of_dimensions():
    g = RectilinearChunkGrid.from_json("rectilinear", grid_json([2, 2], 3)["configuration"], (4, 3))
    with pytest.raises(MetadataError) as info:
        g.with_shape((4,))
    assert info.value.field == "configuration.chunk_shapes"
    assert "2 dimension(s)" in str(info.value)


def test_with_shape_leaves_the_original_grid_alone():
    g = RectilinearChunkGrid.from_json("rectilinear", grid_json([2, 2])["configuration"], (4,))
    h = g.with_shape((9,))
    assert g.to_json() == grid_json([2, 2]) and g.grid_shape == (2,)
    assert h.to_json() == grid_json([2, 2, 5]) and h.grid_shape == (3,)
    same = RectilinearChunkGrid.from_json("rectilinear", grid_json([2, 2])["configuration"], (3,))
    assert g.with_shape((3,)) == same


def expand(entry, length):
    if isinstance(entry, int):
        return [entry] * -(-length // entry)
    out = []
    for item in entry:
        out.extend([item[0]] * item[1] if isinstance(item, list) else [item])
    return out


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_resizes_keep_data_and_only_ever_append_edges(data):
    ndim = data.draw(st.integers(1, 2))
    shape = tuple(data.draw(st.lists(st.integers(0, 8), min_size=ndim, max_size=ndim)))
    chunk_shapes = []
    for n in shape:
        if data.draw(st.booleans()):
            chunk_shapes.append(data.draw(st.integers(1, 4)))
        else:
            edges = []
            while sum(edges) < n:
                edges.append(data.draw(st.integers(1, 4)))
            chunk_shapes.append(edges)
    a = make(shape, *chunk_shapes)
    ref = np.full(shape, FILL, dtype="int32")
    for step in range(data.draw(st.integers(1, 4))):
        ref[...] = np.random.default_rng(step).integers(0, 100, size=ref.shape)
        a[...] = ref
        new_shape = tuple(data.draw(st.lists(st.integers(0, 12), min_size=ndim, max_size=ndim)))
        old_edges = chunk_shapes_stored(a)
        a.resize(new_shape)
        new_edges = chunk_shapes_stored(a)
        for old, new, n in zip(old_edges, new_edges, new_shape):
            if isinstance(old, int):
                assert new == old
            else:
                assert expand(new, n)[: len(expand(old, 0))] == expand(old, 0)  # a prefix
                assert sum(expand(new, n)) >= n
                if sum(expand(old, 0)) >= n:
                    assert new == old
        grown = np.full(new_shape, FILL, dtype="int32")
        overlap = tuple(slice(0, min(o, n)) for o, n in zip(ref.shape, new_shape))
        grown[overlap] = ref[overlap]
        ref = grown
        np.testing.assert_array_equal(a[...], ref)
        np.testing.assert_array_equal(zf.open_array(a.store)[...], ref)
