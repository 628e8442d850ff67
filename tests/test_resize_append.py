"""Array.resize and Array.append: data kept, chunks trimmed, metadata rewritten."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import ReadOnlyError, SelectionError, ZarrforgeError
from zarrforge.hierarchy_api import resolve_store
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

FILL = -9


def chunk_keys(store, path="arr") -> set[str]:
    return {k for k in store.list() if k.startswith(path + "/c")}


def keys_for(path, coords_list) -> set[str]:
    return {"/".join([path, "c", *map(str, c)]) for c in coords_list}


def make(store=None, shape=(7, 5), chunks=(3, 2), fill=FILL, data=True, **kwargs):
    store = store if store is not None else MemoryStore()
    a = zf.create_array(
        store, "arr", shape=shape, dtype="int32", chunks=chunks, compressors=None, fill_value=fill, **kwargs
    )
    values = np.arange(int(np.prod(shape)), dtype="int32").reshape(shape) + 1
    if data:
        a[...] = values
    return store, a, values


def stored_shape(store, path="arr"):
    return json.loads(store.get(f"{path}/zarr.json"))["shape"]


# --- growing ---------------------------------------------------------------------------------


def test_grow_keeps_data_and_shows_fill_value_in_new_region():
    _store, a, values = make()
    a.resize((9, 8))
    assert a.shape == (9, 8)
    expected = np.full((9, 8), FILL, dtype="int32")
    expected[:7, :5] = values
    np.testing.assert_array_equal(a[...], expected)
    assert a.nchunks == 3 * 4


def test_grow_does_not_write_chunks():
    store, a, _values = make()
    before = {k: store.get(k) for k in chunk_keys(store)}
    a.resize(10, 10)
    assert {k: store.get(k) for k in chunk_keys(store)} == before


def test_resize_updates_metadata_document_and_reopened_shape():
    store, a, values = make()
    a.resize((12, 3))
    assert a.metadata["shape"] == [12, 3]
    assert stored_shape(store) == [12, 3]
    b = zf.open_array(store, "arr")
    assert b.shape == (12, 3)
    assert b.metadata["shape"] == [12, 3]
    assert b.metadata["chunk_grid"] == {"name": "regular", "configuration": {"chunk_shape": [3, 2]}}
    expected = np.full((12, 3), FILL, dtype="int32")
    expected[:7, :3] = values[:, :3]
    np.testing.assert_array_equal(b[...], expected)


def test_resize_accepts_varargs_tuple_and_list():
    store, a, _values = make()
    a.resize(8, 6)
    assert a.shape == (8, 6)
    a.resize((9, 6))
    assert a.shape == (9, 6)
    a.resize([9, 7])
    assert a.shape == (9, 7)
    assert stored_shape(store) == [9, 7]


def test_resize_to_the_same_shape_changes_nothing():
    store, a, values = make()
    before = {k: store.get(k) for k in chunk_keys(store)}
    a.resize((7, 5))
    assert {k: store.get(k) for k in chunk_keys(store)} == before
    np.testing.assert_array_equal(a[...], values)


# --- shrinking --------------------------------------------------------------------------------


def test_shrink_deletes_chunks_beyond_the_new_shape():
    store, a, values = make()
    assert chunk_keys(store) == keys_for("arr", itertools.product(range(3), range(3)))
    a.resize((4, 3))
    # chunks whose origin lies inside (4, 3): rows 0, 1 (origins 0, 3), columns 0, 1 (origins 0, 2)
    assert chunk_keys(store) == keys_for("arr", itertools.product(range(2), range(2)))
    assert a.nchunks_initialized == 4
    np.testing.assert_array_equal(a[...], values[:4, :3])


def test_shrink_to_zero_length_deletes_every_chunk():
    store, a, _values = make()
    a.resize((0, 5))
    assert chunk_keys(store) == set()
    assert a[...].shape == (0, 5)
    a.resize((7, 5))
    np.testing.assert_array_equal(a[...], np.full((7, 5), FILL, dtype="int32"))


def test_shrink_then_grow_shows_fill_value_not_old_data():
    store, a, values = make()
    a.resize((4, 3))
    a.resize((7, 5))
    expected = np.full((7, 5), FILL, dtype="int32")
    expected[:4, :3] = values[:4, :3]
    np.testing.assert_array_equal(a[...], expected)
    # also through a freshly opened array
    np.testing.assert_array_equal(zf.open_array(store, "arr")[...], expected)


def test_shrink_within_an_edge_chunk_then_grow_shows_fill_value():
    # shape 7 -> 5 keeps chunk 1 (rows 3..5) but row 5 must be reset
    store, a, values = make(shape=(7,), chunks=(3,))
    a.resize(5)
    assert chunk_keys(store) == {"arr/c/0", "arr/c/1"}
    a.resize(9)
    expected = np.full(9, FILL, dtype="int32")
    expected[:5] = values[:5]
    np.testing.assert_array_equal(a[...], expected)


def test_shrink_one_axis_while_growing_another():
    store, a, values = make()
    a.resize((5, 8))
    expected = np.full((5, 8), FILL, dtype="int32")
    expected[:5, :5] = values[:5, :5]
    np.testing.assert_array_equal(a[...], expected)
    assert all(int(k.split("/")[2]) < 2 for k in chunk_keys(store))
    a.resize((7, 8))
    expected = np.full((7, 8), FILL, dtype="int32")
    expected[:5, :5] = values[:5, :5]
    np.testing.assert_array_equal(a[...], expected)


def test_shrink_with_compressed_chunks_and_other_codecs():
    store = MemoryStore()
    a = zf.create_array(
        store,
        "arr",
        shape=(6, 6),
        dtype="float64",
        chunks=(4, 4),
        fill_value=0.5,
        filters=[{"name": "transpose", "configuration": {"order": [1, 0]}}],
        serializer={"name": "bytes", "configuration": {"endian": "big"}},
        compressors=None,
    )
    values = np.arange(36, dtype="float64").reshape(6, 6)
    a[...] = values
    a.resize((5, 3))
    a.resize((6, 6))
    expected = np.full((6, 6), 0.5)
    expected[:5, :3] = values[:5, :3]
    np.testing.assert_array_equal(a[...], expected)


def test_shrink_leaving_only_fill_values_in_a_chunk_does_not_store_it():
    # chunk 1 holds [FILL, 5, 6]; shrinking to length 4 keeps only its first element, so the
    # trimmed chunk equals the fill value everywhere and, as for any write with
    # write_empty_chunks=False, must be deleted rather than stored
    store, a, _values = make(shape=(6,), chunks=(3,), data=False)
    a[...] = [1, 2, 3, FILL, 5, 6]
    a.resize(4)
    np.testing.assert_array_equal(a[...], [1, 2, 3, FILL])
    assert chunk_keys(store) == {"arr/c/0"}


def test_shrink_of_the_last_dimension_of_a_3d_array():
    store, a, values = make(shape=(3, 4, 5), chunks=(2, 2, 2))
    a.resize((3, 4, 1))
    np.testing.assert_array_equal(a[...], values[:, :, :1])
    assert {k.split("/")[-1] for k in chunk_keys(store)} == {"0"}
    a.resize((3, 4, 5))
    expected = np.full((3, 4, 5), FILL, dtype="int32")
    expected[:, :, :1] = values[:, :, :1]
    np.testing.assert_array_equal(a[...], expected)


# --- append -------------------------------------------------------------------------------------


def test_append_along_axis_0():
    store, a, values = make(shape=(3, 4), chunks=(2, 3))
    extra = np.arange(8, dtype="int32").reshape(2, 4) * -1
    assert a.append(extra) == (5, 4)
    assert a.shape == (5, 4)
    np.testing.assert_array_equal(a[...], np.concatenate([values, extra], axis=0))
    assert stored_shape(store) == [5, 4]
    np.testing.assert_array_equal(zf.open_array(store, "arr")[...], np.concatenate([values, extra]))


def test_append_along_axis_1():
    store, a, values = make(shape=(3, 4), chunks=(2, 3))
    extra = np.arange(9, dtype="int32").reshape(3, 3) + 100
    assert a.append(extra, axis=1) == (3, 7)
    np.testing.assert_array_equal(a[...], np.concatenate([values, extra], axis=1))
    assert zf.open_array(store, "arr").shape == (3, 7)


def test_append_along_negative_axis():
    _store, a, values = make(shape=(3, 4), chunks=(2, 3))
    extra = np.full((3, 1), 42, dtype="int32")
    assert a.append(extra, axis=-1) == (3, 5)
    np.testing.assert_array_equal(a[...], np.concatenate([values, extra], axis=1))


def test_repeated_appends_to_an_empty_1d_array():
    store, a, _ = make(shape=(0,), chunks=(4,), data=False)
    expected = np.zeros(0, dtype="int32")
    for n in [1, 3, 4, 0, 7]:
        block = np.arange(n, dtype="int32") + len(expected)
        a.append(block)
        expected = np.concatenate([expected, block])
        np.testing.assert_array_equal(a[...], expected)
    assert a.shape == (15,)
    assert chunk_keys(store) == {f"arr/c/{i}" for i in range(4)}


def test_append_after_shrink_does_not_resurrect_old_values():
    _store, a, values = make(shape=(6, 2), chunks=(4, 2))
    a.resize((3, 2))
    a.append(np.full((1, 2), 77, dtype="int32"))
    a.resize((6, 2))
    expected = np.full((6, 2), FILL, dtype="int32")
    expected[:3] = values[:3]
    expected[3] = 77
    np.testing.assert_array_equal(a[...], expected)


def test_append_converts_values_to_the_array_dtype():
    _store, a, _values = make(shape=(2, 2), chunks=(2, 2))
    a.append([[5.0, 6.0]])
    np.testing.assert_array_equal(a[2], [5, 6])
    assert a[...].dtype == np.dtype("int32")


# --- bad shapes -----------------------------------------------------------------------------------


def test_resize_with_the_wrong_number_of_dimensions_names_the_shape():
    store, a, _values = make()
    with pytest.raises(ZarrforgeError) as info:
        a.resize((3,))
    message = str(info.value)
    assert "(3,)" in message and "2" in message
    with pytest.raises(ZarrforgeError):
        a.resize(3, 4, 5)
    assert a.shape == (7, 5)
    assert stored_shape(store) == [7, 5]


def test_resize_with_a_negative_length_names_the_shape():
    _store, a, values = make()
    with pytest.raises(ZarrforgeError) as info:
        a.resize((-1, 5))
    assert "-1" in str(info.value)
    assert a.shape == (7, 5)
    np.testing.assert_array_equal(a[...], values)


@pytest.mark.parametrize(
    "bad,named",
    [
        (("a", 5), "dimension 0 is 'a'"),
        ((7, 2.5), "dimension 1 is 2.5"),
        ((None, 5), "dimension 0 is None"),
        ((7, 2**63), f"dimension 1 is {2**63}"),
    ],
)
def test_resize_with_a_length_that_is_no_length_names_the_dimension_and_value(bad, named):
    store, a, _values = make()
    with pytest.raises(SelectionError, match=re.escape(named)):
        a.resize(bad)
    assert a.shape == (7, 5) and stored_shape(store) == [7, 5]
    a.resize(7.0, np.int64(6))  # whole numbers of any type are lengths
    assert a.shape == (7, 6)


def test_append_with_wrong_ndim_names_both():
    _store, a, _values = make(shape=(3, 4), chunks=(2, 3))
    with pytest.raises(ZarrforgeError) as info:
        a.append(np.zeros(4, dtype="int32"))
    message = str(info.value)
    assert "2" in message and "(4,)" in message
    assert a.shape == (3, 4)


def test_append_with_mismatched_other_dimension_names_shapes_and_dimension():
    store, a, values = make(shape=(3, 4), chunks=(2, 3))
    with pytest.raises(ZarrforgeError) as info:
        a.append(np.zeros((2, 3), dtype="int32"), axis=0)
    message = str(info.value)
    assert "(2, 3)" in message and "(3, 4)" in message and "dimension 1" in message
    assert a.shape == (3, 4)
    assert stored_shape(store) == [3, 4]
    np.testing.assert_array_equal(a[...], values)


@pytest.mark.parametrize("axis", [2, -3])
def test_append_with_an_out_of_range_axis_names_the_axis(axis):
    _store, a, _values = make(shape=(3, 4), chunks=(2, 3))
    with pytest.raises(ZarrforgeError) as info:
        a.append(np.zeros((3, 4), dtype="int32"), axis=axis)
    assert "axis" in str(info.value)
    assert a.shape == (3, 4)


# --- read-only ------------------------------------------------------------------------------------


def test_resize_of_an_array_opened_read_only_raises_and_changes_nothing():
    store, _a, _values = make()
    before = {k: store.get(k) for k in store.list()}
    r = zf.open_array(store, "arr", mode="r")
    with pytest.raises(ReadOnlyError):
        r.resize((3, 3))
    with pytest.raises(ReadOnlyError):
        r.resize((10, 10))
    with pytest.raises(ReadOnlyError):
        r.append(np.zeros((1, 5), dtype="int32"))
    assert r.shape == (7, 5)
    assert {k: store.get(k) for k in store.list()} == before


def test_resize_through_a_read_only_store_raises(tmp_path):
    store, _a, _values = make(store=LocalStore(tmp_path / "d.zarr"))
    ro = zf.open_array(LocalStore(tmp_path / "d.zarr", read_only=True), "arr", mode="r+")
    assert ro.read_only
    with pytest.raises(ReadOnlyError):
        ro.resize((2, 2))
    assert stored_shape(store) == [7, 5]
    assert len(chunk_keys(store)) == 9


def test_resize_of_a_named_memory_store_opened_read_only_raises():
    _store, _a, _values = make(store=resolve_store("memory://resize-ro-test"))
    r = zf.open_array("memory://resize-ro-test", "arr", mode="r")
    with pytest.raises(ReadOnlyError):
        r.resize((1, 1))
    assert zf.open_array("memory://resize-ro-test", "arr").shape == (7, 5)


def test_resize_on_local_store_deletes_chunk_files(tmp_path):
    root = tmp_path / "d.zarr"
    _store, a, values = make(store=LocalStore(root))
    a.resize((3, 2))
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    assert files == ["arr/c/0/0", "arr/zarr.json", "zarr.json"]
    np.testing.assert_array_equal(zf.open_array(str(root), "arr")[...], values[:3, :2])
