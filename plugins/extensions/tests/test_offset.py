"""zarrforge.offset: reads and writes of every selection kind against numpy on the stored array.

The oracle never uses the plugin's mapping: it computes, from the documented
semantics, which *stored* positions a logical selection names (logical
coordinate x of dimension d is stored index x + offset[d]; the domain is
[-offset[d], shape[d] - offset[d]); no wrapping; slice bounds clipped; None
bounds are the domain's ends) and indexes a plain numpy array with them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrforge as zf
import zarrforge_extensions as zfx
from zarrforge.errors import BoundsCheckError, MetadataError, SelectionError
from zarrforge_extensions.offset import NAME, Offset

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def offset_array(shape, chunks, offset, *, dtype="int32", store=None, path=""):
    a = zf.create_array(
        store,
        path,
        shape=shape,
        dtype=dtype,
        chunks=chunks,
        fill_value=-1,
        compressors=None,
        extensions=[{"name": NAME, "configuration": {"offset": list(offset)}}],
    )
    reference = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    a.remove_extension(NAME)  # fill through stored indices ...
    a[...] = reference
    zfx.set_offset(a, offset)  # ... then address through the logical domain
    return a, reference


# --- the oracle -------------------------------------------------------------------------


def stored_positions(entry, lo, hi):
    """Stored positions a logical int / slice / int list names along one dimension."""
    coords = np.arange(lo, hi)
    if isinstance(entry, slice):
        step = entry.step or 1
        walk = coords if step > 0 else coords[::-1]
        keep = np.ones(walk.shape, dtype=bool)
        if entry.start is not None:
            keep &= (walk >= entry.start) if step > 0 else (walk <= entry.start)
        if entry.stop is not None:
            keep &= (walk < entry.stop) if step > 0 else (walk > entry.stop)
        return walk[keep][:: abs(step)] - lo
    if isinstance(entry, (list, np.ndarray)) and np.asarray(entry).dtype == bool:
        return np.flatnonzero(entry)
    positions = np.asarray(entry, dtype=np.int64) - lo
    assert np.all((positions >= 0) & (positions < hi - lo)), "the oracle got an out-of-domain index"
    return positions


def expected_outer(reference, selection, offset):
    """numpy's reading of an outer (basic without None, or orthogonal) selection."""
    lists, keep = [], []
    for d, entry in enumerate(selection):
        lo, hi = -offset[d], reference.shape[d] - offset[d]
        positions = stored_positions(entry, lo, hi)
        lists.append(np.atleast_1d(positions).astype(np.int64))
        keep.append(not isinstance(entry, (int, np.integer)))
    out = reference[np.ix_(*lists)] if lists else reference
    return out.reshape([len(p) for p, k in zip(lists, keep) if k]), np.ix_(*lists) if lists else ()


# --- strategies -------------------------------------------------------------------------


@st.composite
def arrays(draw, max_ndim=3):
    ndim = draw(st.integers(1, max_ndim))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=ndim, max_size=ndim)))
    chunks = tuple(draw(st.integers(1, 4)) for _ in shape)
    offset = tuple(draw(st.lists(st.integers(-9, 9), min_size=ndim, max_size=ndim)))
    return shape, chunks, offset


def dim_entry(draw, lo, hi, *, arrays_ok):
    bound = st.none() | st.integers(lo - 3, hi + 3)
    options = ["int", "slice"] + (["ints", "mask"] if arrays_ok else [])
    kind = draw(st.sampled_from(options))
    if kind == "int":
        return draw(st.integers(lo, hi - 1))
    if kind == "slice":
        return slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, 3, -1, -2, -3])))
    if kind == "ints":
        return draw(st.lists(st.integers(lo, hi - 1), min_size=0, max_size=5, unique=True))
    return np.array(draw(st.lists(st.booleans(), min_size=hi - lo, max_size=hi - lo)), dtype=bool)


@st.composite
def basic_cases(draw):
    shape, chunks, offset = draw(arrays())
    selection = tuple(dim_entry(draw, -o, n - o, arrays_ok=False) for o, n in zip(offset, shape))
    return shape, chunks, offset, selection


@st.composite
def orthogonal_cases(draw):
    shape, chunks, offset = draw(arrays())
    selection = tuple(dim_entry(draw, -o, n - o, arrays_ok=True) for o, n in zip(offset, shape))
    return shape, chunks, offset, selection


@st.composite
def coordinate_cases(draw):
    shape, chunks, offset = draw(arrays())
    flat = draw(st.lists(st.integers(0, int(np.prod(shape)) - 1), max_size=6, unique=True))
    stored = np.unravel_index(np.array(flat, dtype=np.int64), shape)
    logical = tuple(s - o for s, o in zip(stored, offset))
    return shape, chunks, offset, logical, stored


# --- basic ------------------------------------------------------------------------------


@SETTINGS
@given(basic_cases())
def test_basic_reads_and_writes_match_numpy(case):
    shape, chunks, offset, selection = case
    a, reference = offset_array(shape, chunks, offset)
    expected, index = expected_outer(reference, selection, offset)
    assert np.array_equal(a[selection], expected)

    values = -np.arange(expected.size, dtype="int32").reshape(expected.shape) - 100
    a[selection] = values
    reference[index] = values.reshape(reference[index].shape)
    assert np.array_equal(a[...], reference)  # a[...] is the whole domain, in stored order


def test_basic_examples():
    a, ref = offset_array((6,), (4,), (2,))  # logical domain [-2, 4)
    assert a[-2] == ref[0] and a[3] == ref[5] and a[0] == ref[2]
    assert a[:].tolist() == ref.tolist()
    assert a[::-1].tolist() == ref[::-1].tolist()
    assert a[-1:2].tolist() == ref[1:4].tolist()
    assert a[-100:100].tolist() == ref.tolist()  # slice bounds are clipped
    assert a[2:-1:-1].tolist() == ref[4:1:-1].tolist()  # logical stop -1, not "the end"
    assert a[3:-3:-1].tolist() == ref[::-1].tolist()  # a stop before the domain's start
    assert a[10:20].tolist() == [] and a[-2:-2].tolist() == []


def test_ellipsis_and_new_axes():
    a, ref = offset_array((3, 4), (2, 2), (1, -2))  # domains [-1, 2) and [2, 6)
    assert np.array_equal(a[..., 3], ref[:, 1])
    assert np.array_equal(a[0, ...], ref[1])
    assert np.array_equal(a[None, 0, None, 5], ref[None, 1, None, 3])
    assert a[None, ..., None].shape == (1, 3, 4, 1)
    a[1, ..., None] = [[7], [8], [9], [10]]
    assert ref[2].tolist() != a[1].tolist() and a[1].tolist() == [7, 8, 9, 10]


def test_zero_dimensional_arrays():
    a = zf.create_array(
        None,
        shape=(),
        dtype="float64",
        fill_value=0,
        extensions=[{"name": NAME, "configuration": {"offset": []}}],
    )
    a[...] = 2.5
    assert a[()] == 2.5 and zfx.domain(a) == ()


# --- orthogonal -------------------------------------------------------------------------


@SETTINGS
@given(orthogonal_cases())
def test_orthogonal_reads_and_writes_match_numpy(case):
    shape, chunks, offset, selection = case
    a, reference = offset_array(shape, chunks, offset)
    expected, index = expected_outer(reference, selection, offset)
    assert np.array_equal(a.oindex[selection], expected)

    values = -np.arange(expected.size, dtype="int32").reshape(expected.shape) - 100
    a.oindex[selection] = values
    reference[index] = values.reshape(reference[index].shape)
    assert np.array_equal(a[...], reference)


def test_fancy_getitem_goes_through_the_offset_too():
    a, ref = offset_array((5, 3), (2, 2), (3, 0))  # domains [-3, 2) and [0, 3)
    assert np.array_equal(a[[-3, 1]], ref[[0, 4]])
    assert np.array_equal(a[[-1, 0], [2, 0]], ref[[2, 3], [2, 0]])  # points
    mask = np.array([True, False, False, True, True])
    assert np.array_equal(a.oindex[mask, 1], ref[mask, 1])  # masks are unchanged


# --- coordinate and mask ----------------------------------------------------------------


@SETTINGS
@given(coordinate_cases())
def test_coordinate_reads_and_writes_match_numpy(case):
    shape, chunks, offset, logical, stored = case
    a, reference = offset_array(shape, chunks, offset)
    assert np.array_equal(a.vindex[logical], reference[stored])
    values = np.arange(len(stored[0]), dtype="int32") + 1000
    a.vindex[logical] = values
    reference[stored] = values
    assert np.array_equal(a[...], reference)


def test_coordinate_with_scalars_and_broadcasting():
    a, ref = offset_array((4, 5), (3, 3), (-1, 2))  # domains [1, 5) and [-2, 3)
    assert a.vindex[2, -2] == ref[1, 0]
    rows = np.array([[1], [4]])
    assert np.array_equal(a.vindex[rows, np.array([-2, 2])], ref[rows - 1, np.array([0, 4])])


@SETTINGS
@given(arrays(), st.randoms(use_true_random=False))
def test_masks_are_unchanged(case, rnd):
    shape, chunks, offset = case
    a, reference = offset_array(shape, chunks, offset)
    mask = np.array([rnd.random() < 0.4 for _ in range(reference.size)]).reshape(shape)
    assert np.array_equal(a.vindex[mask], reference[mask])
    a.vindex[mask] = 77
    reference[mask] = 77
    assert np.array_equal(a[...], reference)


# --- blocks -----------------------------------------------------------------------------


def test_blocks_are_stored_chunks():
    a, ref = offset_array((7, 4), (3, 2), (5, -1))
    assert np.array_equal(a.blocks[0, 1], ref[0:3, 2:4])
    assert np.array_equal(a.blocks[2], ref[6:7])
    assert np.array_equal(a.blocks[-1, :], ref[6:7])  # block indices keep numpy's meaning
    a.blocks[1, 0] = 0
    ref[3:6, 0:2] = 0
    assert np.array_equal(a[...], ref)


# --- errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "access",
    [
        lambda a: a[4],
        lambda a: a[-3],
        lambda a: a.oindex[[0, -3]],
        lambda a: a.vindex[[4]],
        lambda a: a.oindex[np.array([5])],
    ],
)
def test_out_of_domain_indices_name_the_logical_domain(access):
    a, _ = offset_array((6,), (4,), (2,))
    with pytest.raises(BoundsCheckError, match=r"outside the logical domain \[-2, 4\) of dimension 0"):
        access(a)


def test_negative_indices_are_not_wrapped_even_with_a_zero_offset():
    a, ref = offset_array((3,), (3,), (0,))
    with pytest.raises(BoundsCheckError, match=r"index -1 is outside the logical domain \[0, 3\)"):
        a[-1]
    assert a[-2:].tolist() == ref.tolist()  # clipped, not "the last two"
    with pytest.raises(BoundsCheckError):
        a[-1] = 5


def test_malformed_selections_keep_the_core_errors():
    a, _ = offset_array((3, 3), (2, 2), (1, 1))
    with pytest.raises(SelectionError, match="too many indices"):
        a[0, 0, 0]
    with pytest.raises(SelectionError, match="at most one Ellipsis"):
        a[..., ...]
    with pytest.raises(SelectionError, match="step cannot be zero"):
        a[::0]
    with pytest.raises(SelectionError, match="invalid selection 0.5"):
        a[0.5]
    with pytest.raises(SelectionError, match="invalid slice start 0.5"):
        a[0.5:]


@pytest.mark.parametrize(
    "configuration,message",
    [
        (None, "needs a configuration"),
        ({}, "offset must be a list of integers"),
        ({"offset": [1.5]}, "offset must be a list of integers"),
        ({"offset": [True]}, "offset must be a list of integers"),
        ({"offset": 3}, "offset must be a list of integers"),
        ({"offset": [1], "origin": [0]}, "unknown configuration key"),
    ],
)
def test_bad_configurations_are_refused_naming_the_field(configuration, message):
    entry = {"name": NAME} if configuration is None else {"name": NAME, "configuration": configuration}
    with pytest.raises(MetadataError, match=message) as info:
        zf.create_array(None, shape=(4,), dtype="int8", extensions=[entry])
    assert info.value.field.startswith("extensions[0].configuration")


def _with_extensions(store, extensions, key="zarr.json"):
    document = json.loads(store.get(key))
    document["extensions"] = extensions
    store.set(key, json.dumps(document).encode())


def test_offset_length_is_checked_when_the_node_opens():
    a = zf.create_array(None, shape=(4, 4), dtype="int8")
    _with_extensions(a.store, [{"name": NAME, "configuration": {"offset": [1]}}])
    with pytest.raises(MetadataError, match="has 1 offset") as info:
        zf.open_array(a.store)
    assert info.value.field == "extensions[0].configuration.offset"


def test_offset_length_is_checked_before_set_extension_writes():
    a = zf.create_array(None, shape=(4, 4), dtype="int8")
    wrong = {"name": NAME, "configuration": {"offset": [1, 2, 3]}}
    message = r"has 3 offset\(s\) \[1, 2, 3\] but the array has 2"
    with pytest.raises(MetadataError, match=message):
        a.set_extension(wrong)
    assert a.get_extension(NAME) is None
    with pytest.raises(MetadataError, match="configuration.offset"):
        zfx.set_offset(a, [1])  # the helper checks before it writes
    zfx.set_offset(a, [1, 2])
    assert zfx.offset_of(a) == (1, 2) and zfx.domain(a) == (range(-1, 3), range(-2, 2))


def test_a_wrong_length_at_creation_is_refused_before_writing():
    from zarrforge_std.stores.memory import MemoryStore

    store = MemoryStore()
    with pytest.raises(MetadataError, match="configuration.offset"):
        zf.create_array(
            store, shape=(4, 4), dtype="int8", extensions=[{"name": NAME, "configuration": {"offset": [1]}}]
        )
    assert list(store.list()) == []


def test_offset_is_for_arrays_only():
    g = zf.create_group(None)
    with pytest.raises(MetadataError, match="applies to \\['array'\\], not to a group"):
        g.set_extension({"name": NAME, "configuration": {"offset": []}})


# --- metadata and other operations ------------------------------------------------------


def test_document_and_round_trip(tmp_path):
    _a, ref = offset_array((4, 6), (2, 4), (12, -24), store=str(tmp_path))
    stored = json.loads((tmp_path / "zarr.json").read_text())["extensions"]
    assert stored == [{"name": NAME, "configuration": {"offset": [12, -24]}}]
    b = zf.open_array(str(tmp_path))
    assert isinstance(b.get_extension(NAME), Offset) and b.get_extension(NAME).must_understand
    assert np.array_equal(b[-12, 24:30], ref[0])


def test_domain_follows_resize():
    a, ref = offset_array((4,), (2,), (1,))
    a.resize(6)
    assert zfx.domain(a) == (range(-1, 5),)
    a[3:5] = [40, 50]
    assert a[:].tolist() == [*ref.tolist(), 40, 50]


def test_removing_the_offset_restores_stored_indices():
    a, ref = offset_array((4,), (2,), (2,))
    a[-2] = 99
    a.remove_extension(NAME)
    assert a[0] == 99 and a[-1] == ref[-1]  # plain numpy indexing again


def test_append_on_an_offset_array():
    a, ref = offset_array((4,), (2,), (2,))
    a.append(np.array([7, 8], dtype="int32"))
    assert a[:].tolist() == [*ref.tolist(), 7, 8]


def test_a_stored_offset_of_the_wrong_length_is_refused_naming_its_document():
    """Found by the metadata fuzzer: an extension's refusal of a stored document named the
    field but not the document's key."""
    store: dict = {}
    arr = zf.create_array(store, "g/a", shape=(6,), dtype="i8")
    document = json.loads(store["g/a/zarr.json"])
    document["extensions"] = [{"name": NAME, "configuration": {"offset": []}}]
    store["g/a/zarr.json"] = json.dumps(document).encode()
    del arr
    with pytest.raises(MetadataError) as caught:
        zf.open(store, "g/a", mode="r+")
    assert caught.value.key == "g/a/zarr.json"
    assert "in 'g/a/zarr.json' field 'extensions[0].configuration.offset'" in str(caught.value)
