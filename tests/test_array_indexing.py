"""Array-level selections checked against numpy.

Property tests draw a shape (0-3 dimensions, lengths 0..9), a chunk shape, a
memory order and a selection, then check that reading ``a[sel]``,
``a.oindex[sel]``, ``a.vindex[sel]`` and ``a.blocks[sel]`` gives what numpy
gives for the equivalent selection, and that writing a selection leaves the
array equal to a numpy array given the same assignment. After every write the
set of stored chunk keys must be exactly the chunks holding at least one value
other than the fill value (chunks equal to the fill value are not stored).

Further tests check that never-written chunks read as the fill value, that
``write_empty_chunks=True`` stores fill-valued chunks, and that a write
covering a whole chunk does not read that chunk from the store.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrforge as zf
from zarrforge.errors import BoundsCheckError, SelectionError
from zarrforge_std.stores.memory import MemoryStore

PROPERTY = settings(max_examples=100, deadline=None)
DTYPE = "int32"


# --- helpers -----------------------------------------------------------------------------


class RecordingStore(MemoryStore):
    """A MemoryStore that records every key read (``get``, ``get_many``, ``get_versioned``)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    def get(self, key, byte_range=None):
        self.reads.append(key)
        return super().get(key, byte_range)

    def get_many(self, requests):
        self.reads.extend(key for key, _ in requests)
        return [MemoryStore.get(self, key, byte_range) for key, byte_range in requests]

    def _get_versioned(self, key):
        self.reads.append(key)
        return super()._get_versioned(key)

    def chunk_reads(self) -> list[str]:
        return [k for k in self.reads if not k.endswith("zarr.json")]


def make_array(shape, chunks, *, fill=0, order="C", store=None, **kwargs):
    return zf.create_array(
        store if store is not None else MemoryStore(),
        shape=shape,
        dtype=DTYPE,
        chunks=chunks,
        compressors=None,
        fill_value=fill,
        order=order,
        **kwargs,
    )


def chunk_key(coords) -> str:
    return "/".join(["c", *map(str, coords)])


def stored_chunk_keys(store) -> set[str]:
    return {k for k in store.list() if not k.endswith("zarr.json")}


def grid_of(shape, chunks):
    return tuple(-(-n // c) for n, c in zip(shape, chunks))


def chunk_region(coords, shape, chunks):
    return tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(coords, chunks, shape))


def expected_chunk_keys(ref: np.ndarray, chunks, fill) -> set[str]:
    """Chunks whose in-bounds region holds a value other than the fill value."""
    keys = set()
    for coords in itertools.product(*(range(g) for g in grid_of(ref.shape, chunks))):
        if np.any(ref[chunk_region(coords, ref.shape, chunks)] != fill):
            keys.add(chunk_key(coords))
    return keys


def assert_same(actual, expected) -> None:
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual, expected)


def check_array(a, ref, chunks, fill) -> None:
    """The whole array equals ``ref`` and exactly the non-fill chunks are stored."""
    assert_same(a[...], ref)
    assert stored_chunk_keys(a.store) == expected_chunk_keys(ref, chunks, fill)


# --- strategies ----------------------------------------------------------------------------

ORDERS = st.sampled_from(["C", "F"])
FILLS = st.sampled_from([0, -1, 7])


@st.composite
def shapes_and_chunks(draw, min_dims=0, max_dims=3, min_side=0, max_side=9):
    ndim = draw(st.integers(min_dims, max_dims))
    shape = tuple(draw(st.lists(st.integers(min_side, max_side), min_size=ndim, max_size=ndim)))
    chunks = tuple(draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim)))
    return shape, chunks


def slices_for(n):
    bound = st.one_of(st.none(), st.integers(-n - 3, n + 3))
    step = st.one_of(st.none(), st.integers(-4, 4).filter(bool))
    return st.builds(slice, bound, bound, step)


@st.composite
def with_ellipsis_or_truncation(draw, entries, allow_newaxis=False):
    entries = list(entries)
    how = draw(st.sampled_from(["full", "ellipsis", "truncate"]))
    if how == "ellipsis":
        i = draw(st.integers(0, len(entries)))
        j = draw(st.integers(i, len(entries)))
        entries = [*entries[:i], Ellipsis, *entries[j:]]
    elif how == "truncate":
        entries = entries[: draw(st.integers(0, len(entries)))]
    if allow_newaxis:
        for _ in range(draw(st.integers(0, 2))):
            entries.insert(draw(st.integers(0, len(entries))), None)
    if len(entries) == 1 and draw(st.booleans()):
        return entries[0]
    return tuple(entries)


@st.composite
def basic_selection(draw, shape):
    entries = []
    for n in shape:
        if n > 0 and draw(st.integers(0, 3)) == 0:
            entries.append(draw(st.integers(-n, n - 1)))
        else:
            entries.append(draw(slices_for(n)))
    return draw(with_ellipsis_or_truncation(entries, allow_newaxis=True))


@st.composite
def index_array(draw, n, unique):
    """1-D integer positions for a dimension of length ``n`` (some negative)."""
    if n == 0:
        positions = []
    elif unique:
        positions = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    else:
        positions = draw(st.lists(st.integers(0, n - 1), max_size=8))
    positions = [p - n if draw(st.booleans()) else p for p in positions]
    if draw(st.booleans()):
        return positions  # a list
    return np.array(positions, dtype=draw(st.sampled_from([np.int64, np.int32, np.intp])))


@st.composite
def orthogonal_selection(draw, shape, unique):
    entries = []
    for n in shape:
        kinds = ["slice", "array", "mask"] + (["int"] if n > 0 else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            entries.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            entries.append(draw(slices_for(n)))
        elif kind == "array":
            entries.append(draw(index_array(n, unique)))
        else:
            entries.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
    return draw(with_ellipsis_or_truncation(entries))


@st.composite
def coordinate_selection(draw, shape, unique):
    """One integer array per dimension (every length > 0), broadcast together."""
    size = int(np.prod(shape))
    if unique:
        flat = draw(st.lists(st.integers(0, size - 1), unique=True, max_size=min(size, 12)))
    else:
        flat = draw(st.lists(st.integers(0, size - 1), max_size=12))
    coords = [np.asarray(c, dtype=np.int64) for c in np.unravel_index(np.array(flat, dtype=np.int64), shape)]
    coords = [
        np.where(
            np.array(draw(st.lists(st.booleans(), min_size=len(flat), max_size=len(flat))), dtype=bool),
            c - n,
            c,
        )
        for c, n in zip(coords, shape)
    ]
    k = len(flat)
    if k and k % 2 == 0 and draw(st.booleans()):
        coords = [c.reshape(2, k // 2) for c in coords]
    if not unique and k and draw(st.booleans()):
        # one dimension given as a scalar int, broadcast against the others
        d = draw(st.integers(0, len(shape) - 1))
        coords[d] = draw(st.integers(-shape[d], shape[d] - 1))
    return tuple(coords)


@st.composite
def block_selection(draw, shape, chunks):
    entries = []
    for n, c in zip(shape, chunks):
        nb = -(-n // c)
        if nb > 0 and draw(st.booleans()):
            entries.append(draw(st.integers(-nb, nb - 1)))
        else:
            bound = st.one_of(st.none(), st.integers(-nb - 2, nb + 2))
            entries.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1]))))
    return draw(with_ellipsis_or_truncation(entries))


# --- numpy references ------------------------------------------------------------------------


def _expand(sel, ndim):
    entries = list(sel) if isinstance(sel, tuple) else [sel]
    if any(e is Ellipsis for e in entries):
        i = next(i for i, e in enumerate(entries) if e is Ellipsis)
        entries = entries[:i] + [slice(None)] * (ndim - len(entries) + 1) + entries[i + 1 :]
    return entries + [slice(None)] * (ndim - len(entries))


def _is_int(e):
    return isinstance(e, (int, np.integer)) and not isinstance(e, (bool, np.bool_))


def _positions(entry, n):
    if isinstance(entry, slice):
        return np.arange(n, dtype=np.intp)[entry]
    arr = np.asarray(entry)
    if arr.dtype == bool:
        return np.flatnonzero(arr)
    arr = arr.astype(np.intp)
    return np.where(arr < 0, arr + n, arr)


def orthogonal_reference(sel, shape):
    """``(np.ix_ index, shape with 1 for int axes, result shape)`` of an oindex selection."""
    entries = _expand(sel, len(shape))
    idx, keep_shape, out_shape = [], [], []
    for e, n in zip(entries, shape):
        if _is_int(e):
            idx.append(np.array([e % n], dtype=np.intp))
            keep_shape.append(1)
        else:
            p = _positions(e, n)
            idx.append(p)
            keep_shape.append(p.size)
            out_shape.append(p.size)
    ix = np.ix_(*idx) if idx else ()
    return ix, tuple(keep_shape), tuple(out_shape)


def block_reference(sel, shape, chunks):
    out = []
    for e, n, c in zip(_expand(sel, len(shape)), shape, chunks):
        nb = -(-n // c)
        if isinstance(e, slice):
            r = range(*e.indices(nb))
            out.append(slice(0, 0) if len(r) == 0 else slice(r[0] * c, min((r[-1] + 1) * c, n)))
        else:
            b = e % nb
            out.append(slice(b * c, min((b + 1) * c, n)))
    return tuple(out)


def random_values(seed, shape, fill, small=True):
    rng = np.random.default_rng(seed)
    if small:  # a narrow range, so values equal to the fill value are common
        return rng.integers(fill - 2, fill + 3, size=shape).astype(DTYPE)
    return rng.integers(-1000, 1000, size=shape).astype(DTYPE)


@st.composite
def stored_array(draw, min_dims=0, min_side=0):
    """An array holding distinct values except a random set of fill-valued elements."""
    shape, chunks = draw(shapes_and_chunks(min_dims=min_dims, min_side=min_side))
    order, fill = draw(ORDERS), draw(FILLS)
    size = int(np.prod(shape))
    data = (np.arange(size, dtype=DTYPE) + 100).reshape(shape)
    holes = np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)), dtype=bool).reshape(shape)
    data[holes] = fill
    a = make_array(shape, chunks, fill=fill, order=order)
    a[...] = data
    return a, data, chunks, fill


@st.composite
def fresh_array(draw, min_dims=0, min_side=0):
    """A never-written array and its numpy model (all fill value)."""
    shape, chunks = draw(shapes_and_chunks(min_dims=min_dims, min_side=min_side))
    order, fill = draw(ORDERS), draw(FILLS)
    a = make_array(shape, chunks, fill=fill, order=order)
    return a, np.full(shape, fill, dtype=DTYPE), chunks, fill


SEEDS = st.integers(0, 2**32 - 1)


# --- basic selections -------------------------------------------------------------------------


@PROPERTY
@given(st.data())
def test_basic_selection_read_matches_numpy(data):
    a, ref, _chunks, _fill = data.draw(stored_array())
    sel = data.draw(basic_selection(ref.shape))
    result = a[sel]
    expected = ref[sel]
    assert_same(result, expected)
    if np.ndim(expected) == 0:
        assert not isinstance(result, np.ndarray) or result.ndim == 0


@PROPERTY
@given(st.data())
def test_basic_selection_write_matches_numpy(data):
    a, ref, chunks, fill = data.draw(fresh_array())
    for _ in range(data.draw(st.integers(1, 3))):
        sel = data.draw(basic_selection(ref.shape))
        target_shape = ref[sel].shape if isinstance(ref[sel], np.ndarray) else ()
        if target_shape and data.draw(st.booleans()):
            value = random_values(data.draw(SEEDS), target_shape[-1:], fill)  # broadcast
        elif data.draw(st.integers(0, 4)) == 0:
            value = int(data.draw(st.integers(fill - 1, fill + 1)))  # scalar
        else:
            value = random_values(data.draw(SEEDS), target_shape, fill)
        a[sel] = value
        ref[sel] = value
        check_array(a, ref, chunks, fill)


# --- orthogonal selections --------------------------------------------------------------------


@PROPERTY
@given(st.data())
def test_oindex_read_matches_numpy(data):
    a, ref, _chunks, _fill = data.draw(stored_array())
    sel = data.draw(orthogonal_selection(ref.shape, unique=False))
    ix, _, out_shape = orthogonal_reference(sel, ref.shape)
    expected = ref[ix].reshape(out_shape)
    assert_same(a.oindex[sel], expected)


@PROPERTY
@given(st.data())
def test_oindex_write_matches_numpy(data):
    a, ref, chunks, fill = data.draw(fresh_array())
    for _ in range(data.draw(st.integers(1, 3))):
        sel = data.draw(orthogonal_selection(ref.shape, unique=True))
        ix, keep_shape, out_shape = orthogonal_reference(sel, ref.shape)
        value = random_values(data.draw(SEEDS), out_shape, fill)
        a.oindex[sel] = value
        ref[ix] = value.reshape(keep_shape)
        check_array(a, ref, chunks, fill)


# --- coordinate and mask selections -----------------------------------------------------------


@PROPERTY
@given(st.data())
def test_vindex_coordinate_read_matches_numpy(data):
    a, ref, _chunks, _fill = data.draw(stored_array(min_dims=1, min_side=1))
    sel = data.draw(coordinate_selection(ref.shape, unique=False))
    assert_same(a.vindex[sel], ref[sel])


@PROPERTY
@given(st.data())
def test_vindex_coordinate_write_matches_numpy(data):
    a, ref, chunks, fill = data.draw(fresh_array(min_dims=1, min_side=1))
    for _ in range(data.draw(st.integers(1, 3))):
        sel = data.draw(coordinate_selection(ref.shape, unique=True))
        value = random_values(data.draw(SEEDS), ref[sel].shape, fill)
        a.vindex[sel] = value
        ref[sel] = value
        check_array(a, ref, chunks, fill)


@PROPERTY
@given(st.data())
def test_vindex_mask_read_matches_numpy(data):
    a, ref, _chunks, _fill = data.draw(stored_array())
    mask = np.array(
        data.draw(st.lists(st.booleans(), min_size=ref.size, max_size=ref.size)), dtype=bool
    ).reshape(ref.shape)
    assert_same(a.vindex[mask], ref[mask])


@PROPERTY
@given(st.data())
def test_vindex_mask_write_matches_numpy(data):
    a, ref, chunks, fill = data.draw(fresh_array())
    for _ in range(data.draw(st.integers(1, 3))):
        mask = np.array(
            data.draw(st.lists(st.booleans(), min_size=ref.size, max_size=ref.size)), dtype=bool
        ).reshape(ref.shape)
        value = random_values(data.draw(SEEDS), ref[mask].shape, fill)
        a.vindex[mask] = value
        ref[mask] = value
        check_array(a, ref, chunks, fill)


# --- block selections ---------------------------------------------------------------------------


@PROPERTY
@given(st.data())
def test_blocks_read_matches_numpy(data):
    a, ref, chunks, _fill = data.draw(stored_array())
    sel = data.draw(block_selection(ref.shape, chunks))
    assert_same(a.blocks[sel], ref[block_reference(sel, ref.shape, chunks)])


@PROPERTY
@given(st.data())
def test_blocks_write_matches_numpy(data):
    a, ref, chunks, fill = data.draw(fresh_array())
    for _ in range(data.draw(st.integers(1, 3))):
        sel = data.draw(block_selection(ref.shape, chunks))
        region = block_reference(sel, ref.shape, chunks)
        value = random_values(data.draw(SEEDS), ref[region].shape, fill)
        a.blocks[sel] = value
        ref[region] = value
        check_array(a, ref, chunks, fill)


# --- fill values and empty chunks -----------------------------------------------------------------


@PROPERTY
@given(st.data())
def test_never_written_chunks_read_as_fill_value(data):
    shape, chunks = data.draw(shapes_and_chunks())
    fill = data.draw(FILLS)
    a = make_array(shape, chunks, fill=fill, order=data.draw(ORDERS))
    assert_same(a[...], np.full(shape, fill, dtype=DTYPE))
    assert a.nchunks_initialized == 0
    assert stored_chunk_keys(a.store) == set()
    if all(n > 0 for n in shape) and shape:
        # write one chunk; every other chunk still reads as the fill value
        region = chunk_region((0,) * len(shape), shape, chunks)
        a[region] = fill + 5
        expected = np.full(shape, fill, dtype=DTYPE)
        expected[region] = fill + 5
        assert_same(a[...], expected)
        assert a.nchunks_initialized == 1
        assert_same(zf.open_array(a.store)[...], expected)


def test_fill_valued_chunks_are_not_stored():
    a = make_array((6, 6), (3, 3), fill=-1)
    a[...] = -1
    assert stored_chunk_keys(a.store) == set()
    assert a.nchunks_initialized == 0
    a[...] = np.arange(36, dtype=DTYPE).reshape(6, 6)
    assert stored_chunk_keys(a.store) == {"c/0/0", "c/0/1", "c/1/0", "c/1/1"}
    # overwriting a stored chunk with the fill value removes it from the store
    a[0:3, 3:6] = -1
    assert stored_chunk_keys(a.store) == {"c/0/0", "c/1/0", "c/1/1"}
    # a partial write that leaves the chunk all fill also removes it
    a[0:3, 0:3] = -1
    assert stored_chunk_keys(a.store) == {"c/1/0", "c/1/1"}
    assert a.nchunks_initialized == 2
    expected = np.arange(36, dtype=DTYPE).reshape(6, 6)
    expected[0:3, :] = -1
    assert_same(a[...], expected)


def test_edge_chunk_with_fill_in_bounds_region_is_not_stored():
    a = make_array((5,), (3,), fill=2)
    a[3:5] = 2
    assert stored_chunk_keys(a.store) == set()
    a[3:5] = [2, 3]
    assert stored_chunk_keys(a.store) == {"c/1"}


def test_write_empty_chunks_true_stores_fill_valued_chunks():
    a = make_array((6, 6), (3, 3), fill=-1, write_empty_chunks=True)
    a[...] = -1
    assert stored_chunk_keys(a.store) == {"c/0/0", "c/0/1", "c/1/0", "c/1/1"}
    assert a.nchunks_initialized == a.nchunks == 4
    assert_same(a[...], np.full((6, 6), -1, dtype=DTYPE))


def test_write_empty_chunks_true_keeps_chunk_overwritten_with_fill():
    a = make_array((4,), (2,), fill=0, write_empty_chunks=True)
    a[...] = [1, 2, 3, 4]
    a[0:2] = 0
    assert stored_chunk_keys(a.store) == {"c/0", "c/1"}
    assert_same(a[...], np.array([0, 0, 3, 4], dtype=DTYPE))


def test_write_empty_chunks_is_a_runtime_setting_of_the_opened_array():
    store = MemoryStore()
    make_array((4,), (2,), fill=0, store=store)
    a = zf.open_array(store, mode="r+", write_empty_chunks=True)
    a[...] = 0
    assert stored_chunk_keys(store) == {"c/0", "c/1"}
    b = zf.open_array(store, mode="r+", write_empty_chunks=False)
    b[0:2] = 0
    assert stored_chunk_keys(store) == {"c/1"}


# --- writes that cover whole chunks do not read them -------------------------------------------------


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize(
    "write",
    [
        pytest.param(
            lambda a, v: a.__setitem__((slice(3, 6), slice(2, 4)), v[3:6, 2:4]), id="interior-chunk"
        ),
        pytest.param(lambda a, v: a.__setitem__(Ellipsis, v), id="whole-array"),
        pytest.param(lambda a, v: a.__setitem__(slice(None), v), id="whole-array-slice"),
        pytest.param(lambda a, v: a.__setitem__((slice(6, 7), slice(4, 5)), v[6:7, 4:5]), id="edge-chunk"),
        pytest.param(lambda a, v: a.__setitem__((slice(6, None), slice(None)), v[6:, :]), id="edge-row"),
        pytest.param(lambda a, v: a.blocks.__setitem__((1, slice(None)), v[3:6, :]), id="blocks"),
        pytest.param(lambda a, v: a.oindex.__setitem__(([0, 1, 2], slice(0, 2)), v[0:3, 0:2]), id="oindex"),
        pytest.param(
            lambda a, v: a.oindex.__setitem__((np.arange(7) < 3, slice(None)), v[0:3, :]), id="oindex-mask"
        ),
        pytest.param(
            lambda a, v: a.vindex.__setitem__(np.ones((7, 5), dtype=bool), v.reshape(-1)),
            id="vindex-full-mask",
        ),
    ],
)
def test_writing_whole_chunks_does_not_read_them(write, order):
    store = RecordingStore()
    a = make_array((7, 5), (3, 2), fill=0, order=order, store=store)
    a[...] = np.arange(35, dtype=DTYPE).reshape(7, 5) + 1  # every chunk exists
    new = np.arange(35, dtype=DTYPE).reshape(7, 5) + 1000
    store.reads.clear()
    write(a, new)
    assert store.chunk_reads() == []


def test_partial_chunk_write_reads_that_chunk_only():
    store = RecordingStore()
    a = make_array((7, 5), (3, 2), fill=0, store=store)
    a[...] = np.arange(35, dtype=DTYPE).reshape(7, 5) + 1
    store.reads.clear()
    a[3:5, 0:4] = -5  # rows 3-4 cover part of chunk row 1; columns 0-3 cover chunks 0 and 1 fully
    assert sorted(set(store.chunk_reads())) == ["c/1/0", "c/1/1"]
    expected = np.arange(35, dtype=DTYPE).reshape(7, 5) + 1
    expected[3:5, 0:4] = -5
    assert_same(a[...], expected)


@PROPERTY
@given(st.data())
def test_chunk_aligned_writes_read_no_chunks(data):
    shape, chunks = data.draw(shapes_and_chunks())
    fill = data.draw(FILLS)
    store = RecordingStore()
    a = make_array(shape, chunks, fill=fill, order=data.draw(ORDERS), store=store)
    ref = np.full(shape, fill, dtype=DTYPE)
    for _ in range(2):
        sel = []
        for n, c in zip(shape, chunks):
            nb = -(-n // c)
            lo = data.draw(st.integers(0, nb))
            hi = data.draw(st.integers(lo, nb))
            sel.append(slice(lo * c, min(hi * c, n)))
        sel = tuple(sel)
        value = random_values(data.draw(SEEDS), ref[sel].shape, fill, small=False)
        store.reads.clear()
        a[sel] = value
        ref[sel] = value
        assert store.chunk_reads() == []
        check_array(a, ref, chunks, fill)


# --- dispatch of fancy selections through [] and errors ----------------------------------------------


def test_getitem_with_an_index_array_on_1d_matches_numpy():
    ref = np.arange(10, dtype=DTYPE) * 3
    a = make_array((10,), (3,))
    a[...] = ref
    assert_same(a[[7, 1, 1, -1]], ref[[7, 1, 1, -1]])
    assert_same(a[np.arange(10) % 3 == 0], ref[np.arange(10) % 3 == 0])


def test_getitem_with_a_full_mask_and_coordinate_arrays_matches_numpy():
    ref = np.arange(20, dtype=DTYPE).reshape(4, 5)
    a = make_array((4, 5), (3, 2))
    a[...] = ref
    mask = ref % 3 == 1
    assert_same(a[mask], ref[mask])
    assert_same(a[[0, 3, 2], [4, 0, 2]], ref[[0, 3, 2], [4, 0, 2]])
    a[[0, 3], [1, 1]] = [-1, -2]
    ref[[0, 3], [1, 1]] = [-1, -2]
    assert_same(a[...], ref)


@pytest.mark.parametrize("selection", [5, -6, (0, 4), (slice(None), 9)])
def test_out_of_bounds_basic_selection_raises_bounds_check_error(selection):
    a = make_array((5, 4), (2, 2))
    with pytest.raises(BoundsCheckError):
        a[selection]
    with pytest.raises(IndexError):
        a[selection] = 1


def test_out_of_bounds_fancy_selections_raise_bounds_check_error():
    a = make_array((5, 4), (2, 2))
    with pytest.raises(BoundsCheckError):
        a.oindex[[0, 5], :]
    with pytest.raises(BoundsCheckError):
        a.vindex[[0, 1], [0, 4]]
    with pytest.raises(BoundsCheckError):
        a.blocks[3]


def test_malformed_selections_raise_selection_error():
    a = make_array((5, 4), (2, 2))
    with pytest.raises(SelectionError):
        a[0, 0, 0]
    with pytest.raises(SelectionError):
        a[::0]
    with pytest.raises(SelectionError):
        a.blocks[::2]
    with pytest.raises(SelectionError):
        a[...] = np.zeros((3, 3))
