"""Tests for zarrforge.engine.indexing, checked against numpy on chunked copies of arrays."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrforge.abc.chunk_grid import DimensionChunking
from zarrforge.engine.indexing import (
    BasicIndexer,
    BlockIndexer,
    CoordinateIndexer,
    MaskIndexer,
    OrthogonalIndexer,
    broadcast_value,
    check_value_shape,
    normalize_integer,
)
from zarrforge.errors import BoundsCheckError, SelectionError

SENTINEL = -1  # fills stored padding; array data is always >= 0
PROPERTY = settings(max_examples=200, deadline=None)


class RegularDim(DimensionChunking):
    """Regular chunks of ``chunk``; the last stored chunk may overhang the end."""

    def __init__(self, length: int, chunk: int) -> None:
        self.length = length
        self.chunk = chunk

    @property
    def nchunks(self) -> int:
        return -(-self.length // self.chunk)

    def start(self, index: int) -> int:
        return index * self.chunk

    def size(self, index: int) -> int:
        return self.chunk

    def index_of(self, positions: np.ndarray) -> np.ndarray:
        return np.asarray(positions, dtype=np.int64) // self.chunk

    def __repr__(self) -> str:
        return f"RegularDim({self.length}, {self.chunk})"


class VariableDim(DimensionChunking):
    """Explicit chunk sizes that exactly partition the dimension."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.starts = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))
        self.length = int(self.starts[-1])

    @property
    def nchunks(self) -> int:
        return len(self.sizes)

    def start(self, index: int) -> int:
        return int(self.starts[index])

    def size(self, index: int) -> int:
        return self.sizes[index]

    def index_of(self, positions: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.starts, positions, side="right").astype(np.int64) - 1

    def __repr__(self) -> str:
        return f"VariableDim({self.sizes})"


def regular(shape, chunks):
    return [RegularDim(n, c) for n, c in zip(shape, chunks)]


# --- chunked storage helpers ---------------------------------------------------


def region(dims, coords):
    return tuple(slice(d.start(c), d.start(c) + d.extent(c)) for d, c in zip(dims, coords))


def local_region(dims, coords):
    return tuple(slice(0, d.extent(c)) for d, c in zip(dims, coords))


def split(a, dims):
    chunks = {}
    for coords in itertools.product(*(range(d.nchunks) for d in dims)):
        stored = np.full(tuple(d.size(c) for d, c in zip(dims, coords)), SENTINEL, a.dtype)
        stored[local_region(dims, coords)] = a[region(dims, coords)]
        chunks[coords] = stored
    return chunks


def assemble(chunks, dims, shape):
    out = np.full(shape, -99, dtype=np.int64)
    for coords, stored in chunks.items():
        out[region(dims, coords)] = stored[local_region(dims, coords)]
        padding = stored.size - stored[local_region(dims, coords)].size
        assert np.count_nonzero(stored == SENTINEL) == padding, "padding was written"
    return out


def expected_complete(stored_shape, chunk_selection, extents):
    idx = np.arange(int(np.prod(stored_shape, dtype=np.int64))).reshape(stored_shape)
    picked = np.asarray(idx[chunk_selection]).ravel()
    whole = idx[tuple(slice(0, e) for e in extents)].ravel()
    return np.array_equal(picked, whole)


def check_read(indexer, a, dims, expected):
    expected = np.asarray(expected)
    assert indexer.shape == expected.shape
    chunks = split(a, dims)
    out = np.full(indexer.shape, -2, dtype=a.dtype)
    counts = np.zeros(indexer.shape, dtype=np.int64)
    seen = set()
    for p in indexer:
        assert p.coords not in seen
        seen.add(p.coords)
        stored = chunks[p.coords]
        part = stored[p.chunk_selection]
        assert np.size(part) > 0, "projection with no overlap"
        assert out[p.out_selection].shape == np.shape(part)
        assert np.all(part != SENTINEL), "read from stored padding"
        extents = tuple(d.extent(c) for d, c in zip(dims, p.coords))
        assert p.complete == expected_complete(stored.shape, p.chunk_selection, extents)
        out[p.out_selection] = part
        np.add.at(counts, p.out_selection, 1)
    assert np.all(counts == 1)
    np.testing.assert_array_equal(out, expected)


def check_write(indexer, a, dims, numpy_assign):
    """Write distinct values through the projections; compare with numpy."""
    value = (
        np.arange(int(np.prod(indexer.shape, dtype=np.int64)), dtype=a.dtype).reshape(indexer.shape) + 10**6
    )
    chunks = split(a, dims)
    for p in indexer:
        if p.complete:
            # old contents must not matter for a complete chunk
            chunks[p.coords] = np.full(chunks[p.coords].shape, SENTINEL, a.dtype)
        chunks[p.coords][p.chunk_selection] = value[p.out_selection]
    b = a.copy()
    numpy_assign(b, value)
    np.testing.assert_array_equal(assemble(chunks, dims, a.shape), b)


# --- strategies ----------------------------------------------------------------


@st.composite
def chunked_arrays(draw, max_ndim=3, variable=True):
    ndim = draw(st.integers(0, max_ndim))
    dims = []
    for _ in range(ndim):
        length = draw(st.integers(0, 20))
        if variable and draw(st.integers(0, 3)) == 0:
            sizes, total = [], 0
            while total < length:
                s = min(draw(st.integers(1, 7)), length - total)
                sizes.append(s)
                total += s
            dims.append(VariableDim(sizes))
        else:
            dims.append(RegularDim(length, draw(st.integers(1, 7))))
    shape = tuple(d.length for d in dims)
    a = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)
    return a, dims


def ints_for(n):
    return st.integers(-n, n - 1).flatmap(lambda i: st.sampled_from([i, np.int64(i), np.int32(i)]))


def slices():
    bound = st.none() | st.integers(-25, 25)
    step = st.none() | st.integers(-6, 6).filter(lambda s: s != 0)
    return st.builds(slice, bound, bound, step)


@st.composite
def basic_selections(draw, shape):
    entries = [draw(ints_for(n) | slices()) if n > 0 else draw(slices()) for n in shape]
    if entries and draw(st.booleans()):
        del entries[draw(st.integers(0, len(entries))) :]  # fewer entries than dims
    if draw(st.booleans()):
        i = draw(st.integers(0, len(entries)))
        j = draw(st.integers(i, len(entries)))
        entries[i:j] = [Ellipsis]
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), None)
    if len(entries) == 1 and draw(st.booleans()):
        return entries[0]
    return tuple(entries)


@st.composite
def orthogonal_entry(draw, n):
    options = [slices(), st.just("mask")]
    if n > 0:
        options += [ints_for(n), st.lists(st.integers(-n, n - 1), max_size=8)]
    else:
        options.append(st.just([]))
    entry = draw(st.one_of(options))
    if isinstance(entry, str):
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if isinstance(entry, list) and draw(st.booleans()):
        return np.array(entry, dtype=np.int64)
    return entry


def orthogonal_lists(sel, shape):
    """Per-dimension int arrays for np.ix_, and which dimensions are dropped."""
    lists, dropped = [], []
    for entry, n in zip(sel, shape):
        if isinstance(entry, slice):
            lists.append(np.arange(*entry.indices(n)))
            dropped.append(False)
        elif isinstance(entry, (list, np.ndarray)):
            arr = np.asarray(entry)
            lists.append(np.flatnonzero(arr) if arr.dtype == bool else arr.astype(np.int64) % max(n, 1))
            dropped.append(False)
        else:
            lists.append(np.array([int(entry) % n]))
            dropped.append(True)
    return lists, dropped


@st.composite
def coordinate_selections(draw, shape):
    if any(n == 0 for n in shape):
        return tuple(np.zeros(0, dtype=np.int64) for _ in shape)
    out_shape = tuple(draw(st.lists(st.integers(0, 4), max_size=2)))
    sel = []
    for n in shape:
        kind = draw(st.integers(0, 3))
        if kind == 0:
            sel.append(draw(st.integers(-n, n - 1)))
            continue
        arr_shape = out_shape
        if kind == 1 and out_shape:  # a broadcastable, smaller array
            arr_shape = tuple(1 if draw(st.booleans()) else s for s in out_shape)
            arr_shape = arr_shape[draw(st.integers(0, len(arr_shape))) :]
        size = int(np.prod(arr_shape, dtype=np.int64))
        values = draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size))
        arr = np.array(values, dtype=np.int64).reshape(arr_shape)
        sel.append(arr.tolist() if kind == 3 and arr.ndim == 1 else arr)
    return tuple(sel)


# --- properties ----------------------------------------------------------------


@PROPERTY
@given(data=st.data())
def test_basic_matches_numpy(data):
    a, dims = data.draw(chunked_arrays())
    sel = data.draw(basic_selections(a.shape))
    try:
        expected = a[sel]
    except IndexError:  # Ellipsis or truncation moved an int onto a shorter axis
        with pytest.raises(BoundsCheckError, match="is out of bounds for dimension"):
            BasicIndexer(sel, a.shape, dims)
        return
    indexer = BasicIndexer(sel, a.shape, dims)
    check_read(indexer, a, dims, expected)
    for p in indexer:
        assert all(isinstance(s, (int, slice)) for s in p.chunk_selection)
        assert all(isinstance(s, (int, slice)) for s in p.out_selection)

    def assign(b, value):
        b[sel] = value

    check_write(indexer, a, dims, assign)


@PROPERTY
@given(data=st.data())
def test_orthogonal_matches_numpy(data):
    a, dims = data.draw(chunked_arrays())
    sel = tuple(data.draw(orthogonal_entry(n)) for n in a.shape)
    indexer = OrthogonalIndexer(sel, a.shape, dims)
    lists, dropped = orthogonal_lists(sel, a.shape)
    kept_shape = tuple(len(x) for x, d in zip(lists, dropped) if not d)
    full = a[np.ix_(*lists)] if lists else a
    check_read(indexer, a, dims, full.reshape(kept_shape))

    if all(np.unique(x).size == x.size for x in lists):

        def assign(b, value):
            ix_shape = tuple(len(x) for x in lists)
            b[np.ix_(*lists) if lists else ()] = value.reshape(ix_shape)

        check_write(indexer, a, dims, assign)


@PROPERTY
@given(data=st.data())
def test_orthogonal_single_entry_and_ellipsis(data):
    a, dims = data.draw(chunked_arrays(max_ndim=3))
    if not a.shape:
        return
    entry = data.draw(orthogonal_entry(a.shape[-1]))
    indexer = OrthogonalIndexer((Ellipsis, entry), a.shape, dims)
    lists, dropped = orthogonal_lists((slice(None),) * (a.ndim - 1) + (entry,), a.shape)
    kept_shape = tuple(len(x) for x, d in zip(lists, dropped) if not d)
    check_read(indexer, a, dims, a[np.ix_(*lists)].reshape(kept_shape))


@PROPERTY
@given(data=st.data())
def test_coordinates_match_numpy(data):
    a, dims = data.draw(chunked_arrays())
    sel = data.draw(coordinate_selections(a.shape))
    indexer = CoordinateIndexer(sel, a.shape, dims)
    np_sel = tuple(np.asarray(s, dtype=np.int64) for s in sel)
    check_read(indexer, a, dims, a[np_sel])

    if a.ndim:
        flat = np.ravel_multi_index([x.ravel() for x in np.broadcast_arrays(*np_sel)], a.shape, mode="wrap")
        if np.unique(flat).size != flat.size:
            return  # numpy does not define which duplicate write wins

    def assign(b, value):
        b[np_sel] = value

    check_write(indexer, a, dims, assign)


@PROPERTY
@given(data=st.data())
def test_mask_matches_numpy(data):
    a, dims = data.draw(chunked_arrays())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    density = data.draw(st.sampled_from([0.0, 0.3, 0.8, 1.0]))
    mask = np.asarray(rng.random(a.shape) < density)
    indexer = MaskIndexer(mask, a.shape, dims)
    check_read(indexer, a, dims, a[mask])

    def assign(b, value):
        b[mask] = value

    check_write(indexer, a, dims, assign)


@PROPERTY
@given(data=st.data())
def test_blocks_match_numpy(data):
    a, dims = data.draw(chunked_arrays())
    entries, expected = [], []
    for d in dims:
        options = [
            st.builds(
                slice,
                st.none() | st.integers(-8, 8),
                st.none() | st.integers(-8, 8),
                st.sampled_from([None, 1]),
            )
        ]
        if d.nchunks:
            options.append(st.integers(-d.nchunks, d.nchunks - 1))
        entry = data.draw(st.one_of(options))
        entries.append(entry)
        blocks = range(d.nchunks)[entry]
        if isinstance(blocks, int):
            blocks = [blocks]
        if len(blocks):
            expected.append(slice(d.start(blocks[0]), d.start(blocks[-1]) + d.extent(blocks[-1])))
        else:
            expected.append(slice(0, 0))
    if entries and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(entries)))
        entries[i:] = [Ellipsis]
        expected[i:] = [slice(None)] * (len(expected) - i)
    indexer = BlockIndexer(tuple(entries), a.shape, dims)
    check_read(indexer, a, dims, a[tuple(expected)])


# --- specific cases ------------------------------------------------------------


def test_zero_dimensional_array():
    a = np.array(5)
    for sel in [(), Ellipsis, (Ellipsis,)]:
        projections = list(BasicIndexer(sel, (), []))
        assert BasicIndexer(sel, (), []).shape == ()
        assert len(projections) == 1
        p = projections[0]
        assert p.coords == () and p.complete
        check_read(BasicIndexer(sel, (), []), a, [], a[sel])
    check_read(BasicIndexer(None, (), []), a, [], a[None])
    check_read(OrthogonalIndexer((), (), []), a, [], a[()])
    check_read(CoordinateIndexer((), (), []), a, [], a[()])
    check_read(MaskIndexer(np.array(True), (), []), a, [], a[np.array(True)])
    assert list(MaskIndexer(np.array(False), (), [])) == []
    check_read(BlockIndexer((), (), []), a, [], a)


def test_empty_selections_have_shape_but_no_projections():
    dims = regular((0, 5), (3, 2))
    indexer = BasicIndexer((slice(None), None, slice(1, 3)), (0, 5), dims)
    assert indexer.shape == (0, 1, 2)
    assert list(indexer) == []
    dims = regular((10, 5), (3, 2))
    indexer = BasicIndexer((slice(5, 2), 0), (10, 5), dims)
    assert indexer.shape == (0,)
    assert list(indexer) == []
    indexer = OrthogonalIndexer(([], slice(None)), (10, 5), dims)
    assert indexer.shape == (0, 5)
    assert list(indexer) == []


def test_complete_flags_for_slices():
    dims = regular((10,), (4,))  # chunks [0,4) [4,8) [8,10) stored as 4
    flags = {p.coords: p.complete for p in BasicIndexer(slice(None), (10,), dims)}
    assert flags == {(0,): True, (1,): True, (2,): True}
    flags = {p.coords: p.complete for p in BasicIndexer(slice(1, None), (10,), dims)}
    assert flags == {(0,): False, (1,): True, (2,): True}
    flags = {p.coords: p.complete for p in BasicIndexer(slice(None, None, -1), (10,), dims)}
    assert flags == {(0,): False, (1,): False, (2,): False}  # reversed order
    flags = {p.coords: p.complete for p in OrthogonalIndexer([8, 9, 4, 5, 6, 7], (10,), dims)}
    assert flags == {(1,): True, (2,): True}
    flags = {p.coords: p.complete for p in OrthogonalIndexer([9, 8], (10,), dims)}
    assert flags == {(2,): False}
    point = {p.coords: p.complete for p in CoordinateIndexer(([8, 9, 9],), (10,), dims)}
    assert point == {(2,): False}
    point = {p.coords: p.complete for p in CoordinateIndexer(([8, 3, 9],), (10,), dims)}
    assert point == {(0,): False, (2,): True}
    point = {p.coords: p.complete for p in CoordinateIndexer(([9, 3, 8],), (10,), dims)}
    assert point == {(0,): False, (2,): False}  # covered, but not in natural order


def test_slices_stay_slices_and_single_arrays_stay_in_place():
    dims = regular((10, 10, 10), (3, 3, 3))
    for p in BasicIndexer((slice(None, None, -3), 4, slice(2, 9)), (10,) * 3, dims):
        assert all(isinstance(s, (int, slice)) for s in p.chunk_selection)
    indexer = OrthogonalIndexer((slice(None), 4, [7, 1, 2]), (10,) * 3, dims)
    assert indexer.shape == (10, 3)
    a = np.arange(1000).reshape(10, 10, 10)
    check_read(indexer, a, dims, a[:, 4][:, [7, 1, 2]])


def test_outer_indexing_with_ints_between_arrays():
    shape = (6, 7, 8, 5)
    dims = regular(shape, (4, 3, 5, 2))
    a = np.arange(int(np.prod(shape))).reshape(shape)
    sel = ([5, 0, 2], 3, [7, 1], slice(None, None, -2))
    indexer = OrthogonalIndexer(sel, shape, dims)
    expected = a[np.ix_([5, 0, 2], [3], [7, 1], [4, 2, 0])].reshape(3, 2, 3)
    check_read(indexer, a, dims, expected)

    def assign(b, value):
        b[np.ix_([5, 0, 2], [3], [7, 1], [4, 2, 0])] = value.reshape(3, 1, 2, 3)

    check_write(indexer, a, dims, assign)


def test_coordinate_out_selection_contract():
    dims = regular((10, 10), (4, 4))
    indexer = CoordinateIndexer((np.array([[0, 9], [5, 1]]), np.array([[0, 9], [5, 1]])), (10, 10), dims)
    assert indexer.shape == (2, 2)
    by_chunk = {p.coords: p for p in indexer}
    assert set(by_chunk) == {(0, 0), (2, 2), (1, 1)}
    p = by_chunk[(0, 0)]
    assert [x.tolist() for x in p.chunk_selection] == [[0, 1], [0, 1]]
    assert [x.tolist() for x in p.out_selection] == [[0, 1], [0, 1]]
    indexer = CoordinateIndexer((3, 4), (10, 10), dims)
    assert indexer.shape == ()
    [p] = list(indexer)
    assert p.chunk_selection == (3, 0) and p.out_selection == ()


def test_sparse_steps_visit_only_touched_chunks():
    n = 10**12
    dims = [RegularDim(n, 1)]
    projections = list(BasicIndexer(slice(None, None, 10**11), (n,), dims))
    assert [p.coords for p in projections] == [(i * 10**11,) for i in range(10)]


def test_many_chunks_all_slices_counts_every_chunk_once():
    shape = (600, 600)
    dims = regular(shape, (4, 4))
    count = sum(1 for _ in BasicIndexer((slice(1, None), slice(None, None, -1)), shape, dims))
    assert count == 150 * 150


def test_many_points_group_into_one_projection_per_chunk():
    shape = (1000, 1000)
    dims = regular(shape, (100, 100))
    rng = np.random.default_rng(0)
    coords = rng.integers(0, 1000, size=(2, 200_000))
    projections = list(CoordinateIndexer(tuple(coords), shape, dims))
    assert len(projections) == 100
    mask = rng.random(shape) < 0.2
    assert len(list(MaskIndexer(mask, shape, dims))) == 100
    indexer = OrthogonalIndexer((rng.integers(0, 1000, 5000), rng.integers(0, 1000, 5000)), shape, dims)
    assert len(list(indexer)) == 100


# --- errors ----------------------------------------------------------------------

DIMS_2D = regular((10, 7), (3, 3))


@pytest.mark.parametrize(
    "sel, error, message",
    [
        (12, BoundsCheckError, "index 12 is out of bounds for dimension 0 with length 10"),
        (-11, BoundsCheckError, "index -11 is out of bounds for dimension 0 with length 10"),
        ((0, 7), BoundsCheckError, "index 7 is out of bounds for dimension 1 with length 7"),
        ((0, np.int64(-8)), BoundsCheckError, "index -8 is out of bounds for dimension 1 with length 7"),
        (1.5, SelectionError, "invalid selection 1.5 of type float for dimension 0"),
        ((0, "a"), SelectionError, "invalid selection 'a' of type str for dimension 1"),
        (True, SelectionError, "dimension 0"),
        ([1, 2], SelectionError, "use oindex or vindex"),
        ((0, 0, 0), SelectionError, "the array has 2 dimension(s) but the selection indexes 3"),
        ((..., 0, ...), SelectionError, "at most one Ellipsis"),
        ((slice(None), slice(0, 5, 0)), SelectionError, "slice step cannot be zero (dimension 1)"),
        (slice(0.5, 3), SelectionError, "invalid slice start 0.5 of type float for dimension 0"),
    ],
)
def test_basic_errors(sel, error, message):
    with pytest.raises(error) as info:
        BasicIndexer(sel, (10, 7), DIMS_2D)
    assert message in str(info.value)
    assert isinstance(info.value, IndexError)


@pytest.mark.parametrize(
    "sel, error, message",
    [
        (
            np.ones(5, dtype=bool),
            SelectionError,
            "boolean mask for dimension 0 has shape (5,), expected (10,)",
        ),
        (
            (slice(None), [True] * 8),
            SelectionError,
            "boolean mask for dimension 1 has shape (8,), expected (7,)",
        ),
        ([0, 10], BoundsCheckError, "index 10 is out of bounds for dimension 0 with length 10"),
        ((0, np.array([-8, 0])), BoundsCheckError, "index -8 is out of bounds for dimension 1 with length 7"),
        ([0.5, 1.0], SelectionError, "index array for dimension 0 must hold integers, got dtype float64"),
        (np.zeros((2, 2), dtype=int), SelectionError, "must be 1-D, got shape (2, 2)"),
        ((None, 0), SelectionError, "None (np.newaxis)"),
        ((0, 0, 0), SelectionError, "the array has 2 dimension(s) but the selection indexes 3"),
        ({1}, SelectionError, "dimension 0"),
    ],
)
def test_orthogonal_errors(sel, error, message):
    with pytest.raises(error) as info:
        OrthogonalIndexer(sel, (10, 7), DIMS_2D)
    assert message in str(info.value)


@pytest.mark.parametrize(
    "sel, error, message",
    [
        (([1, 2],), SelectionError, "the array has 2 dimension(s), the selection has 1"),
        (([1, 2], [1, 2, 3]), SelectionError, "cannot be broadcast together: shapes (2,), (3,)"),
        (([1, 10], [1, 2]), BoundsCheckError, "index 10 is out of bounds for dimension 0 with length 10"),
        (([1, 2], [True, False]), SelectionError, "boolean array for dimension 1"),
        (([1, 2], slice(None)), SelectionError, "dimension 1"),
    ],
)
def test_coordinate_errors(sel, error, message):
    with pytest.raises(error) as info:
        CoordinateIndexer(sel, (10, 7), DIMS_2D)
    assert message in str(info.value)


def test_mask_errors():
    with pytest.raises(SelectionError, match=r"mask has shape \(10, 6\), expected the array shape \(10, 7\)"):
        MaskIndexer(np.ones((10, 6), dtype=bool), (10, 7), DIMS_2D)
    with pytest.raises(SelectionError, match="must be a boolean array, got dtype int64"):
        MaskIndexer(np.ones((10, 7), dtype=np.int64), (10, 7), DIMS_2D)


def test_block_errors():
    with pytest.raises(
        BoundsCheckError, match="block index 4 is out of bounds for dimension 0 with 4 chunks"
    ):
        BlockIndexer(4, (10, 7), DIMS_2D)
    with pytest.raises(SelectionError, match="slice step of 1, got -1 for dimension 1"):
        BlockIndexer((0, slice(None, None, -1)), (10, 7), DIMS_2D)
    with pytest.raises(SelectionError, match="slice step of 1, got 2"):
        BlockIndexer(slice(None, None, 2), (10, 7), DIMS_2D)
    with pytest.raises(SelectionError, match="at most one Ellipsis"):
        BlockIndexer((..., ...), (10, 7), DIMS_2D)


def test_normalize_integer():
    assert normalize_integer(-1, 10, 0) == 9
    assert normalize_integer(np.uint8(3), 10, 0) == 3
    with pytest.raises(BoundsCheckError, match="index 10 is out of bounds for dimension 2 with length 10"):
        normalize_integer(10, 10, 2)


def test_value_shapes():
    check_value_shape((), (2, 4))
    check_value_shape((4,), (2, 4))
    check_value_shape((1, 1, 2, 1), (2, 4))
    with pytest.raises(SelectionError, match=r"value of shape \(3,\) to a selection of shape \(2, 4\)"):
        check_value_shape((3,), (2, 4))
    with pytest.raises(SelectionError, match=r"value of shape \(2, 2, 4\)"):
        check_value_shape((2, 2, 4), (2, 4))
    v = broadcast_value(np.arange(4).reshape(1, 1, 4), (2, 4))
    assert v.shape == (2, 4) and v[1, 3] == 3
    assert broadcast_value(7, (3,), dtype=np.int16).dtype == np.int16


def test_normalize_basic_selection_gives_one_int_or_range_per_dimension():
    """The public helper extensions' map_selection uses on what the user wrote."""
    from zarrforge.errors import SelectionError
    from zarrforge.plugin_api import normalize_basic_selection

    shape = (10, 20, 30)
    assert normalize_basic_selection(np.int64(-1), shape) == (9, range(20), range(30))
    assert normalize_basic_selection((Ellipsis, slice(None, None, -10)), shape) == (
        range(10),
        range(20),
        range(29, -1, -10),
    )
    assert normalize_basic_selection((1, slice(2, 5)), shape) == (1, range(2, 5), range(30))
    assert normalize_basic_selection((), ()) == ()
    for bad in ([1, 2], None, (np.array([1]),), (1, 2, 3, 4)):
        with pytest.raises(SelectionError):
            normalize_basic_selection(bad, shape)
