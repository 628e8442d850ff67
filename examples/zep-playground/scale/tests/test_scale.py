"""example.scale: the conformance kit in value mode, and every path that reads or writes
elements (issue #50): basic, oindex, vindex, blocks, append, get_chunk, the asyncio API
and its gathered reads, to_dask/from_dask, the xarray backend and writer, copy, and the
fill value. A factor of 0.25 keeps every value here exact, so reads are compared with
what was written, and stored values (the array opened with its entry removed) with
``written / 0.25``."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

import zarrforge as zf
import zarrforge.asyncio as zfa
from zarrforge.errors import MetadataError
from zarrforge.testing import ExtensionConformance

SCALE = {"name": "example.scale", "configuration": {"factor": 0.25}}
DATA = np.arange(24, dtype="float64").reshape(6, 4) - 7.5


class TestScaleFloat64(ExtensionConformance):
    extension_documents = [SCALE, {"name": "example.scale", "configuration": {"factor": -3}}]
    invalid_extension_documents = [
        ({"name": "example.scale", "configuration": {"factor": 0}}, "configuration.factor"),
        ({"name": "example.scale", "configuration": {"factor": "2"}}, "configuration.factor"),
        ({"name": "example.scale", "configuration": {"factor": True}}, "configuration.factor"),
        ({"name": "example.scale", "configuration": {}}, "configuration.factor"),
    ]
    dtype = "float64"
    max_examples = 25


class TestScaleFloat32(ExtensionConformance):
    extension_documents = [{"name": "example.scale", "configuration": {"factor": 1e-3}}]
    invalid_extension_documents = [
        ({"name": "example.scale", "configuration": {"factor": 1e400}}, "configuration.factor")
    ]
    dtype = "float32"
    max_examples = 25


def scaled(store=None, *, path="", shape=(6, 4), chunks=(2, 2), fill_value=0.0, dtype="float64", **options):
    return zf.create_array(
        store,
        path=path,
        shape=shape,
        chunks=chunks,
        dtype=dtype,
        fill_value=fill_value,
        extensions=[SCALE],
        **options,
    )


def stored(array) -> np.ndarray:
    """The values as stored: the array opened with its entry removed."""
    key = f"{array.path}/zarr.json" if array.path else "zarr.json"
    document = json.loads(array.store.get(key))
    document.pop("extensions")
    copy = {k: array.store.get(k) for k in array.store.list()}
    copy[key] = json.dumps(document).encode()
    return zf.open_array(copy, path=array.path, mode="r")[...]


def test_basic_reads_and_writes():
    a = scaled()
    a[...] = DATA
    assert np.array_equal(a[...], DATA) and np.array_equal(stored(a), DATA * 4)
    a[1:3, ::2] = 1.0
    assert np.array_equal(a[1:3, ::2], [[1.0, 1.0]] * 2) and stored(a)[1, 0] == 4.0


@pytest.mark.parametrize(
    ("accessor", "selection", "model"),
    [
        ("oindex", ([0, 4], [1, 3]), np.ix_([0, 4], [1, 3])),
        ("vindex", ([0, 5, 2], [3, 0, 1]), ([0, 5, 2], [3, 0, 1])),
        ("vindex", DATA > 5, DATA > 5),
        ("blocks", (slice(1, 3), 1), (slice(2, 6), slice(2, 4))),
    ],
    ids=["oindex", "vindex", "vindex-mask", "blocks"],
)
def test_every_selection_kind(accessor, selection, model):
    a = scaled()
    a[...] = DATA
    selector = getattr(a, accessor)
    assert np.array_equal(selector[selection], DATA[model])
    values = np.full(DATA[model].shape, 42.0)
    selector[selection] = values
    assert np.array_equal(selector[selection], values) and np.all(stored(a)[model] == 168.0)


def test_append_and_get_chunk():
    a = scaled(shape=(2, 4))
    a[...] = DATA[:2]
    a.append(np.full((1, 4), 7.0))
    assert np.array_equal(a[2], [7.0] * 4) and np.array_equal(stored(a)[2], [28.0] * 4)
    assert np.array_equal(a.get_chunk((0, 1)), DATA[:2, 2:4])
    assert np.array_equal(a.get_chunk((1, 0)), [[7.0, 7.0], [0.0, 0.0]])


def test_the_fill_value_is_stored():
    a = scaled(fill_value=2.0)  # an unwritten element reads 2.0 * 0.25
    assert np.array_equal(a[...], np.full((6, 4), 0.5))
    a[0:2, 0:2] = 0.5  # stored 2.0: all fill, so no chunk is written
    assert list(a.stored_chunks()) == []


def test_the_asyncio_api_and_its_gathered_reads():
    a = scaled()
    a[...] = DATA

    async def go():
        array = await zfa.open_array(a.store)
        await array.setitem((0, 0), 100.0)
        return await asyncio.gather(
            array.getitem((0, 0)), array.getitem((slice(1, 3), 1)), array.getitem(...)
        )

    first, column, whole = asyncio.run(go())
    assert first == 100.0 and np.array_equal(column, DATA[1:3, 1]) and whole[0, 0] == 100.0
    assert stored(a)[0, 0] == 400.0


def test_dask_reads_and_writes():
    da = pytest.importorskip(
        "dask.array", reason="dask is a test dependency of zarrforge; installed by make test"
    )
    a = scaled()
    a[...] = DATA
    assert np.array_equal(zf.to_dask(a).compute(), DATA)
    target = scaled()
    zf.from_dask(da.from_array(DATA * 3, chunks=(2, 2)), target)
    assert np.array_equal(target[...], DATA * 3) and np.array_equal(stored(target), DATA * 12)


def test_the_xarray_backend_and_writer(tmp_path):
    xr = pytest.importorskip(
        "xarray", reason="xarray is a test dependency of zarrforge; installed by make test"
    )
    zx = pytest.importorskip("zarrforge_xarray", reason="zarrforge-xarray is installed by make test")
    root = zf.create_group(str(tmp_path / "d.zarr"))
    t = scaled(root.store, path="t", dimension_names=["time", "x"])
    t[...] = DATA
    opened = xr.open_dataset(str(tmp_path / "d.zarr"), engine="zarrforge")
    assert np.array_equal(opened["t"].values, DATA)
    update = xr.Dataset({"t": (("time", "x"), np.full((2, 4), 8.0))})
    zx.to_zarr(update, str(tmp_path / "d.zarr"), region={"time": slice(4, 6), "x": slice(0, 4)})
    assert np.array_equal(
        stored(zf.open_array(str(tmp_path / "d.zarr"), path="t"))[4:], np.full((2, 4), 32.0)
    )
    assert np.array_equal(
        xr.open_dataset(str(tmp_path / "d.zarr"), engine="zarrforge")["t"].values[4:], np.full((2, 4), 8.0)
    )


def test_copy_keeps_the_stored_values_bit_for_bit():
    a = scaled()
    a[...] = DATA / 3  # not exact: a decode and encode on the way would change the bits
    dest = zf.create_group(None)
    zf.copy(a.store, dest.store, dest_path="copied")
    copied = zf.open_array(dest.store, path="copied")
    assert stored(copied).tobytes() == stored(a).tobytes() and np.array_equal(copied[...], a[...])


def test_integer_arrays_and_a_skippable_entry_are_refused():
    with pytest.raises(MetadataError, match="float32 or float64"):
        scaled(dtype="int32", fill_value=0)
    with pytest.raises(MetadataError) as caught:
        zf.create_array(None, shape=(2,), dtype="float64", extensions=[{**SCALE, "must_understand": False}])
    assert caught.value.field == "extensions[0].must_understand"
