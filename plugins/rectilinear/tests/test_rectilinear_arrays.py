"""Arrays on rectilinear grids: indexing against numpy, chunk keys, never-written chunks.

Random grids mix the three forms of the specification (integer steps,
explicit edges, run-length pairs) and overflowing edges, on arrays of up to
three dimensions including empty ones.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrforge as zf
from zarrforge.errors import BoundsCheckError
from zarrforge_rectilinear import RectilinearChunkGrid
from zarrforge_std.stores.memory import MemoryStore

FILL = -7


def grid_json(*chunk_shapes):
    return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": list(chunk_shapes)}}


def make(shape, chunk_shapes, dtype="int32", **kwargs):
    return zf.create_array(
        MemoryStore(), shape=shape, dtype=dtype, chunks=grid_json(*chunk_shapes), fill_value=FILL, **kwargs
    )


def chunk_keys(store):
    return {k for k in store.list_prefix("") if not k.endswith("zarr.json")}


# --- strategies ------------------------------------------------------------------------------


@st.composite
def encoded_edges(draw, edges):
    """``edges`` in a random mixture of bare integers and run-length pairs."""
    out = []
    i = 0
    while i < len(edges):
        j = i
        while j < len(edges) and edges[j] == edges[i]:
            j += 1
        run = j - i
        how = draw(st.sampled_from(["bare", "pair", "split"]))
        if how == "bare":
            out.extend([edges[i]] * run)
        elif how == "pair" or run == 1:
            out.append([edges[i], run])
        else:
            k = draw(st.integers(1, run - 1))
            out.extend([[edges[i], k], *([edges[i]] * (run - k))])
        i = j
    return out


@st.composite
def dimension(draw, length):
    if draw(st.integers(0, 3)) == 0:
        return draw(st.integers(1, 6))
    edges = []
    while sum(edges) < length:
        edges.append(draw(st.sampled_from([1, 2, 3, 3, 3, 5])))
    edges += draw(st.lists(st.integers(1, 4), max_size=2))  # overflow, possibly by several chunks
    return draw(encoded_edges(edges))


@st.composite
def grids(draw, min_dims=1, max_dims=3, max_side=11):
    ndim = draw(st.integers(min_dims, max_dims))
    shape = tuple(draw(st.lists(st.integers(0, max_side), min_size=ndim, max_size=ndim)))
    return shape, [draw(dimension(n)) for n in shape]


def expanded(chunk_shapes, shape):
    """Independent expansion of ``chunk_shapes`` into the stored sizes of the chunks."""
    out = []
    for spec, n in zip(chunk_shapes, shape):
        if isinstance(spec, int):
            out.append([spec] * -(-n // spec))
            continue
        edges = []
        for item in spec:
            edges.extend([item[0]] * item[1] if isinstance(item, list) else [item])
        sizes, total = [], 0
        for e in edges:
            if total >= n:
                break
            sizes.append(e)
            total += e
        out.append(sizes)
    return out


def slices(n):
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    return st.builds(slice, bound, bound, st.one_of(st.none(), st.integers(-4, 4).filter(bool)))


@st.composite
def basic_selections(draw, shape):
    sel = []
    for n in shape:
        if n and draw(st.integers(0, 3)) == 0:
            sel.append(draw(st.integers(-n, n - 1)))
        else:
            sel.append(draw(slices(n)))
    return tuple(sel)


@st.composite
def orthogonal_selections(draw, shape, unique):
    sel = []
    for n in shape:
        kinds = ["slice", "array", "mask"] + (["int"] if n else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            sel.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            sel.append(draw(slices(n)))
        elif kind == "mask":
            sel.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
        else:
            positions = draw(st.lists(st.integers(0, n - 1), unique=unique, max_size=8)) if n else []
            sel.append(np.array([p - n if draw(st.booleans()) else p for p in positions], dtype=np.int64))
    return tuple(sel)


@st.composite
def coordinate_selections(draw, shape, unique):
    if draw(st.integers(0, 4)) == 0:
        flat = draw(st.lists(st.booleans(), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
        return np.array(flat, dtype=bool).reshape(shape)
    size = int(np.prod(shape))
    flat = draw(st.lists(st.integers(0, size - 1), unique=unique, max_size=10)) if size else []
    coords = np.unravel_index(np.array(flat, dtype=np.intp), shape)
    return tuple(np.asarray(c, dtype=np.int64).reshape(-1) for c in coords)


def oindex_reference(ref, sel):
    """numpy's outer indexing, one dimension at a time from the last."""
    out = ref
    for d in reversed(range(len(sel))):
        s = sel[d]
        if isinstance(s, slice):
            out = out[(slice(None),) * d + (s,)]
        elif isinstance(s, np.ndarray) and s.dtype == bool:
            out = np.take(out, np.flatnonzero(s), axis=d)
        else:
            out = np.take(out, s, axis=d)
    return out


def oindex_assign(ref, sel, value):
    """Assign ``value`` (shape of the outer selection) into ``ref``."""
    index = []
    kept = []
    for d, s in enumerate(sel):
        n = ref.shape[d]
        if isinstance(s, slice):
            index.append(np.arange(n)[s])
        elif isinstance(s, np.ndarray) and s.dtype == bool:
            index.append(np.flatnonzero(s))
        elif isinstance(s, np.ndarray):
            index.append(np.where(s < 0, s + n, s))
        else:
            index.append(s)
            continue
        kept.append(d)
    grids_ = np.ix_(*[index[d] for d in kept]) if kept else ()
    full = list(index)
    for k, d in enumerate(kept):
        full[d] = grids_[k]
    ref[tuple(full)] = value


def filled(shape, chunk_shapes, seed=0):
    a = make(shape, chunk_shapes)
    ref = np.random.default_rng(seed).integers(-1000, 1000, size=shape).astype("int32")
    a[...] = ref
    return a, ref


# --- indexing against numpy ------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_grid_geometry_matches_an_independent_expansion(data):
    shape, chunk_shapes = data.draw(grids())
    g = RectilinearChunkGrid.from_json("rectilinear", grid_json(*chunk_shapes)["configuration"], shape)
    sizes = expanded(chunk_shapes, shape)
    assert g.chunk_sizes == tuple(tuple(s) for s in sizes)
    assert g.grid_shape == tuple(len(s) for s in sizes)
    for dim, s, n in zip(g.dimensions, sizes, shape):
        starts = np.concatenate([[0], np.cumsum(s)[:-1]]).astype(int) if s else np.array([], int)
        assert [dim.start(i) for i in range(len(s))] == starts.tolist()
        owner = np.repeat(np.arange(len(s)), s)[:n]
        np.testing.assert_array_equal(dim.index_of(np.arange(n)), owner)
        assert dim.index_of(np.arange(n)).dtype == np.int64
        for i in range(len(s)):
            assert dim.extent(i) == min(s[i], n - starts[i])


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_basic_reads_and_writes_match_numpy(data):
    shape, chunk_shapes = data.draw(grids())
    a, ref = filled(shape, chunk_shapes)
    sel = data.draw(basic_selections(shape))
    np.testing.assert_array_equal(a[sel], ref[sel])
    value = np.random.default_rng(1).integers(-99, 99, size=ref[sel].shape).astype("int32")
    a[sel] = value
    ref[sel] = value
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(zf.open_array(a.store)[...], ref)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_orthogonal_reads_and_writes_match_numpy(data):
    shape, chunk_shapes = data.draw(grids())
    a, ref = filled(shape, chunk_shapes)
    sel = data.draw(orthogonal_selections(shape, unique=False))
    np.testing.assert_array_equal(a.oindex[sel], oindex_reference(ref, sel))
    sel = data.draw(orthogonal_selections(shape, unique=True))
    value = np.random.default_rng(2).integers(-99, 99, size=oindex_reference(ref, sel).shape)
    a.oindex[sel] = value
    oindex_assign(ref, sel, value)
    np.testing.assert_array_equal(a[...], ref)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_coordinate_and_mask_reads_and_writes_match_numpy(data):
    shape, chunk_shapes = data.draw(grids())
    a, ref = filled(shape, chunk_shapes)
    sel = data.draw(coordinate_selections(shape, unique=False))
    np.testing.assert_array_equal(a.vindex[sel], ref[sel])
    sel = data.draw(coordinate_selections(shape, unique=True))
    value = np.random.default_rng(3).integers(-99, 99, size=ref[sel].shape).astype("int32")
    a.vindex[sel] = value
    ref[sel] = value
    np.testing.assert_array_equal(a[...], ref)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_blocks_are_the_chunks_of_the_grid(data):
    shape, chunk_shapes = data.draw(grids())
    a, ref = filled(shape, chunk_shapes)
    g = a.metadata_model.chunk_grid
    for coords in np.ndindex(*a.cdata_shape):
        region = tuple(slice(o, o + e) for o, e in zip(g.chunk_origin(coords), g.chunk_extent(coords)))
        np.testing.assert_array_equal(a.blocks[coords], ref[region])
        np.testing.assert_array_equal(
            a.get_chunk(coords)[tuple(slice(0, e) for e in g.chunk_extent(coords))], ref[region]
        )
        assert a.get_chunk(coords).shape == g.chunk_shape(coords)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_only_touched_chunks_are_stored(data):
    shape, chunk_shapes = data.draw(grids())
    a = make(shape, chunk_shapes)
    ref = np.full(shape, FILL, dtype="int32")
    sel = data.draw(basic_selections(shape))
    value = np.arange(ref[sel].size, dtype="int32").reshape(ref[sel].shape) + 10_000
    a[sel] = value
    ref[sel] = value
    np.testing.assert_array_equal(a[...], ref)
    sizes = expanded(chunk_shapes, shape)
    bounds = [np.concatenate([[0], np.cumsum(s)]).astype(int) for s in sizes]
    expected = set()
    for coords in np.ndindex(*[len(s) for s in sizes]):
        region = tuple(slice(b[c], b[c + 1]) for b, c in zip(bounds, coords))
        if (ref[region] != FILL).any():
            expected.add(coords)
    assert set(a.stored_chunks()) == expected
    assert chunk_keys(a.store) == {"c/" + "/".join(map(str, c)) for c in expected}


# --- fixed cases -----------------------------------------------------------------------------


def test_chunk_keys_nchunks_and_cdata_shape():
    a, ref = filled((10, 7), [[3, 5, 2], [[2, 3], 1]])
    assert a.cdata_shape == (3, 4)
    assert a.nchunks == 12
    assert a.nchunks_initialized == 12
    assert sorted(a.stored_chunks()) == [(i, j) for i in range(3) for j in range(4)]
    assert chunk_keys(a.store) == {f"c/{i}/{j}" for i in range(3) for j in range(4)}
    # Chunk (1, 3) is 5 x 1: its stored bytes hold exactly that many elements.
    raw = zf.create_array(
        MemoryStore(),
        shape=(10, 7),
        dtype="int32",
        compressors=None,
        chunks=grid_json([3, 5, 2], [[2, 3], 1]),
    )
    raw[...] = ref
    assert len(raw.store.get("c/1/3")) == 5 * 1 * 4
    assert len(raw.store.get("c/0/0")) == 3 * 2 * 4
    assert np.frombuffer(raw.store.get("c/1/3"), "<i4").tolist() == ref[3:8, 6].tolist()


def test_chunk_keys_with_the_v2_key_encoding():
    a = zf.create_array(
        MemoryStore(),
        shape=(5, 5),
        dtype="uint8",
        chunks=grid_json([1, 4], 5),
        chunk_key_encoding={"name": "v2", "separator": "."},
    )
    a[...] = 1
    assert chunk_keys(a.store) == {"0.0", "1.0"}


def test_overflowing_edges_are_not_chunks():
    a, ref = filled((6,), [[4, 4, 4, 4]])
    assert a.cdata_shape == (2,) and a.nchunks == 2
    assert chunk_keys(a.store) == {"c/0", "c/1"}
    # A stray key for a declared-but-empty chunk is not one of the array's chunks.
    a.store.set("c/3", b"junk")
    assert sorted(a.stored_chunks()) == [(0,), (1,)]
    np.testing.assert_array_equal(a[...], ref)


def test_never_written_chunks_read_as_the_fill_value():
    a = make((9, 8), [[2, 3, 4], [[4, 2]]], dtype="float64")
    a[2:5, 4:] = 1.5
    assert chunk_keys(a.store) == {"c/1/1"}
    expected = np.full((9, 8), FILL, dtype="float64")
    expected[2:5, 4:] = 1.5
    np.testing.assert_array_equal(a[...], expected)
    np.testing.assert_array_equal(a.get_chunk((2, 0)), np.full((4, 4), FILL, dtype="float64"))
    assert a.get_chunk((0, 1)).shape == (2, 4)


def test_writing_the_fill_value_deletes_the_chunk():
    a = make((9,), [[2, 3, 4]])
    a[2:5] = 3
    assert chunk_keys(a.store) == {"c/1"}
    a[2:5] = FILL
    assert chunk_keys(a.store) == set()


def test_write_empty_chunks_stores_every_written_chunk():
    a = make((9,), [[2, 3, 4]], write_empty_chunks=True)
    a[...] = FILL
    assert chunk_keys(a.store) == {"c/0", "c/1", "c/2"}


def test_bounds_are_checked_against_the_array_not_the_edges():
    a = make((6,), [[4, 4, 4]])
    with pytest.raises(BoundsCheckError):
        a[6]
    with pytest.raises(BoundsCheckError):
        a.blocks[2]


def test_the_readme_example():
    grid = grid_json([10, 20, 30], [[25, 3], 15], 8)
    a = zf.create_array(None, shape=(60, 90, 20), dtype="float32", chunks=grid)
    assert a.cdata_shape == (3, 4, 3)
    assert a.metadata_model.chunk_grid.chunk_sizes == ((10, 20, 30), (25, 25, 25, 15), (8, 8, 8))


def test_chunks_attribute_repr_and_info():
    assert make((10, 6), [5, [[3, 2]]]).chunks == (5, 3)
    a = make((10, 6), [[5, 4, 1], 3])
    assert "chunks=None" in repr(a)
    assert a.info.value("Chunk shape") == grid_json([5, 4, 1], 3)
    assert a.info.value("Shard shape") is None
    with pytest.raises(AttributeError, match="no single chunk shape"):
        make((10, 6), [[5, 4, 1], 3]).chunks
    assert make((10, 6), [[5, 4, 1], 3]).shards is None


def test_zero_dimensional_and_empty_arrays():
    a = zf.create_array(MemoryStore(), shape=(), dtype="int8", chunks=grid_json(), fill_value=3)
    assert a[()] == 3 and a.nchunks == 1 and a.cdata_shape == ()
    a[()] = 5
    assert a[()] == 5 and chunk_keys(a.store) == {"c"}
    e = make((0, 4), [[], [1, 3]])
    assert e.cdata_shape == (0, 2) and e.nchunks == 0
    assert e[...].shape == (0, 4)


def test_fortran_order_and_a_transpose_codec():
    codecs = [
        {"name": "transpose", "configuration": {"order": [1, 0]}},
        {"name": "bytes", "configuration": {"endian": "big"}},
    ]
    a = zf.create_array(
        MemoryStore(),
        shape=(7, 5),
        dtype="uint16",
        order="F",
        codecs=codecs,
        chunks=grid_json([1, [2, 2], 2], [4, 1]),
    )
    x = np.arange(35, dtype="uint16").reshape(7, 5)
    a[...] = x
    np.testing.assert_array_equal(zf.open_array(a.store)[...], x)
    assert np.frombuffer(a.store.get("c/1/0"), ">u2").tolist() == x[1:3, 0:4].T.ravel().tolist()
