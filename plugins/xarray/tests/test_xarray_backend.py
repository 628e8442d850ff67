"""engine="zarrforge" against data xarray writes through zarr-python, compared with
xarray's own zarr engine and with the dataset that was written."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import zarrforge as zf
from zarrforge.abc.store import WrapperStore
from zarrforge.storing.storage import resolve_store
from zarrforge_xarray import MissingDimensionNamesError, ZarrforgeArray

pytestmark = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::RuntimeWarning"
)


def make_dataset() -> xr.Dataset:
    rng = np.random.default_rng(0)
    time = pd.date_range("2021-03-01", periods=6, freq="6h")
    temperature = rng.normal(280, 5, size=(6, 4, 5)).astype("float32")
    temperature[0, 0, 0] = np.nan
    ds = xr.Dataset(
        {
            "temperature": (
                ("time", "y", "x"),
                temperature,
                {"units": "K", "long_name": "air temperature", "valid_range": [150.0, 350.0]},
            ),
            "counts": (("y",), np.array([1, -1, 3, 4], dtype="int16"), {"note": "has a fill"}),
            "packed": (("y", "x"), rng.uniform(0, 10, size=(4, 5)).round(2)),
            "flag": (("x",), np.array([True, False, True, True, False])),
            "label": (("x",), np.array(["a", "bb", "ccc", "dddd", ""], dtype=object)),
            "code": (("x",), np.array(["p", "qq", "r", "s", "t"], dtype="<U2")),
            "scalar": ((), np.float64(3.5), {"kind": "0-d"}),
            "duration": (("time",), pd.to_timedelta(np.arange(6), unit="h").values),
        },
        coords={
            "time": time,
            "y": ("y", np.linspace(-30.0, 30.0, 4), {"units": "degrees_north"}),
            "x": ("x", np.arange(5, dtype="int32")),
            "lat2d": (("y", "x"), rng.uniform(-90, 90, size=(4, 5))),
        },
        attrs={
            "title": "zarrforge backend test",
            "history": ["made", "written"],
            "n": 3,
            "nested": {"a": 1, "b": [1, 2]},
        },
    )
    ds["counts"].encoding.update({"_FillValue": -1})
    ds["packed"].encoding.update(
        {"dtype": "int16", "scale_factor": 0.01, "add_offset": 0.0, "_FillValue": -9999}
    )
    ds["temperature"].encoding.update({"chunks": (2, 2, 5)})
    return ds


def write(ds: xr.Dataset, path, zarr_format: int, **kwargs) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds.to_zarr(path, zarr_format=zarr_format, mode="w", **kwargs)
    return str(path)


def assert_same(ours: xr.Dataset, theirs: xr.Dataset) -> None:
    xr.testing.assert_identical(ours, theirs)
    assert sorted(ours.variables, key=str) == sorted(
        theirs.variables, key=str
    )  # listing order is the store's
    for name in ours.variables:
        assert ours[name].attrs == theirs[name].attrs, name
        assert ours[name].dtype == theirs[name].dtype, name
        assert ours[name].dims == theirs[name].dims, name
        for key in ("chunks", "preferred_chunks", "dtype", "units", "calendar", "scale_factor", "add_offset"):
            assert str(ours[name].encoding.get(key)) == str(theirs[name].encoding.get(key)), (name, key)
        if "_FillValue" in theirs[name].encoding:
            np.testing.assert_equal(ours[name].encoding["_FillValue"], theirs[name].encoding["_FillValue"])
    assert ours.attrs == theirs.attrs


def assert_matches_written(ours: xr.Dataset, written: xr.Dataset) -> None:
    """The decoded dataset is what was written, up to CF encoding: the -1 fill of
    'counts' reads as NaN and 'packed' went through int16 with a scale factor."""
    exact = [name for name in written.variables if name not in ("counts", "packed")]
    xr.testing.assert_identical(ours[exact], written[exact])
    np.testing.assert_array_equal(ours["counts"].values, [1, np.nan, 3, 4])
    np.testing.assert_allclose(ours["packed"].values, written["packed"].values, atol=0.006)
    assert ours["counts"].attrs == written["counts"].attrs


def open_both(path: str, **kwargs) -> tuple[xr.Dataset, xr.Dataset]:
    ours = xr.open_dataset(path, engine="zarrforge", **kwargs)
    theirs = xr.open_dataset(path, engine="zarr", **kwargs)
    return ours, theirs


@pytest.mark.parametrize("consolidated", [True, False])
def test_zarr_v3_written_by_xarray(tmp_path, consolidated):
    ds = make_dataset()
    path = write(ds, tmp_path / "v3.zarr", 3, consolidated=consolidated)
    ours, theirs = open_both(path)
    assert_same(ours.load(), theirs.load())
    assert_matches_written(ours, ds)
    assert ours["temperature"].encoding["chunks"] == (2, 2, 5)
    assert ours["temperature"].encoding["preferred_chunks"] == {"time": 2, "y": 2, "x": 5}
    assert "lat2d" in ours.coords and ours["counts"].isnull().values.tolist() == [False, True, False, False]


def test_zarr_v3_sharded(tmp_path):
    ds = make_dataset()[["temperature"]]
    ds["temperature"].encoding.update({"chunks": (1, 2, 5), "shards": (2, 4, 5)})
    path = write(ds, tmp_path / "sharded.zarr", 3)
    ours, theirs = open_both(path)
    assert ours["temperature"].encoding["shards"] == (2, 4, 5)
    assert ours["temperature"].encoding["chunks"] == (1, 2, 5)
    assert_same(ours.load(), theirs.load())


@pytest.mark.parametrize("consolidated", [True, False])
def test_zarr_v2_written_by_xarray(tmp_path, consolidated):
    ds = make_dataset()
    path = write(ds, tmp_path / "v2.zarr", 2, consolidated=consolidated)
    ours, theirs = open_both(path)
    assert_same(ours.load(), theirs.load())
    assert_matches_written(ours, ds)
    assert "_ARRAY_DIMENSIONS" not in ours["temperature"].attrs


def test_datatree(tmp_path):
    tree = xr.DataTree.from_dict(
        {
            "/": xr.Dataset(attrs={"root": True}),
            "/surface": make_dataset()[["temperature", "counts"]],
            "/surface/daily": xr.Dataset({"rain": (("day",), np.arange(3.0), {"units": "mm"})}),
            "/empty": xr.Dataset(attrs={"note": "no variables"}),
        }
    )
    path = str(tmp_path / "tree.zarr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree.to_zarr(path, zarr_format=3, mode="w")
    ours = xr.open_datatree(path, engine="zarrforge")
    theirs = xr.open_datatree(path, engine="zarr")
    xr.testing.assert_identical(ours.load(), theirs.load())
    assert sorted(ours.groups) == ["/", "/empty", "/surface", "/surface/daily"]
    assert ours["/surface/daily"]["rain"].attrs == {"units": "mm"}
    sub = xr.open_datatree(path, engine="zarrforge", group="surface")
    xr.testing.assert_identical(sub.load(), xr.open_datatree(path, engine="zarr", group="surface").load())
    assert sorted(sub.groups) == ["/", "/daily"]
    one = xr.open_dataset(path, engine="zarrforge", group="surface/daily")
    xr.testing.assert_identical(one.load(), theirs["/surface/daily"].to_dataset(inherit=False).load())


def test_every_entry_point_takes_the_decoding_options_and_names_a_wrong_one(tmp_path):
    path = write(make_dataset(), tmp_path / "opts.zarr", 3, consolidated=False)
    raw = xr.open_dataset(
        path, engine="zarrforge", decode_times=False, mask_and_scale=False, drop_variables=["counts"]
    )
    assert (
        "counts" not in raw
        and raw["temperature"].dtype
        == xr.open_dataset(path, engine="zarr", decode_times=False, mask_and_scale=False)["temperature"].dtype
    )
    tree = xr.open_datatree(path, engine="zarrforge", drop_variables="counts")
    assert "counts" not in tree.to_dataset()
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['decode_tims'\]"):
        xr.backends.list_engines()["zarrforge"].open_dataset(path, decode_tims=False)


class CountingStore(WrapperStore):
    def __init__(self, inner):
        super().__init__(inner)
        self.keys: list[str] = []

    def get(self, key, byte_range=None):
        self.keys.append(key)
        return self.inner.get(key, byte_range)

    def get_many(self, requests):
        self.keys.extend(k for k, _ in requests)
        return self.inner.get_many(requests)


def test_reads_are_lazy_and_touch_only_the_chunks_selected(tmp_path):
    ds = make_dataset()
    path = write(ds, tmp_path / "lazy.zarr", 3, consolidated=True)
    counting = CountingStore(resolve_store(path, read_only=True))
    opened = xr.open_dataset(zf.open_group(counting, mode="r"), engine="zarrforge")
    chunk_reads = [k for k in counting.keys if "/c/" in k or k.startswith("c/")]
    # Only coordinates xarray indexes (time, y, x) are read when opening.
    assert {k.split("/")[0] for k in chunk_reads} <= {"time", "y", "x"}
    assert not any(k.startswith("temperature/") for k in counting.keys)
    counting.keys.clear()
    window = opened["temperature"].isel(time=slice(2, 4), y=[3, 0], x=1).values
    np.testing.assert_array_equal(window, ds["temperature"].values[2:4][:, [3, 0], 1])
    assert sorted(counting.keys) == ["temperature/c/1/0/0", "temperature/c/1/1/0"]
    counting.keys.clear()
    point = opened["temperature"].isel(time=xr.DataArray([1, 5]), y=xr.DataArray([0, 3])).values
    np.testing.assert_array_equal(point, ds["temperature"].values[[1, 5], [0, 3], :])
    assert opened["temperature"].variable._data.__class__.__name__ != "ndarray"


def test_dask_chunks_follow_the_stored_chunks(tmp_path):
    import dask  # noqa: F401

    ds = make_dataset()
    path = write(ds, tmp_path / "dask.zarr", 3)
    opened = xr.open_dataset(path, engine="zarrforge", chunks={})
    assert opened["temperature"].chunks == ((2, 2, 2), (2, 2), (5,))
    assert_matches_written(opened.compute(), ds)


def test_zarrforge_written_arrays_and_missing_dimension_names():
    store = resolve_store(None)
    root = zf.create_group(store, attributes={"source": "zarrforge"})
    a = root.create_array(
        "a",
        shape=(3, 4),
        dtype="float64",
        chunks=(2, 2),
        dimension_names=["row", "col"],
        attributes={"units": "m"},
    )
    a[:] = np.arange(12.0).reshape(3, 4)
    root.create_array("nameless", shape=(2,), dtype="int8")
    with pytest.raises(MissingDimensionNamesError, match="nameless"):
        xr.open_dataset(store, engine="zarrforge")
    ds = xr.open_dataset(store, engine="zarrforge", drop_variables=["nameless"])
    assert ds.attrs == {"source": "zarrforge"}
    assert ds["a"].dims == ("row", "col") and ds["a"].attrs == {"units": "m"}
    np.testing.assert_array_equal(ds["a"].values, np.arange(12.0).reshape(3, 4))
    # v3 fill values are not missing-value markers unless asked
    assert ds["a"].encoding["fill_value"] == 0.0
    masked = xr.open_dataset(
        store, engine="zarrforge", drop_variables="nameless", use_zarr_fill_value_as_mask=True
    )
    assert bool(masked["a"].isnull()[0, 0])
    with pytest.raises(ValueError, match="reads only"):
        xr.open_dataset(store, engine="zarrforge", mode="r+")


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_zarr_v2_always_reads_its_fill_value_as_the_variables_fill_value(tmp_path, dtype):
    # In Zarr v2 xarray keeps a variable's _FillValue as the array's fill value, so the fill
    # value is read as _FillValue whatever use_zarr_fill_value_as_mask says, as xarray's
    # engine reads it (its suite's test_zarr_fill_value_setting[2-*]); turning it off
    # would lose the _FillValue when what was read is written again.
    ds = xr.Dataset({"foo": ("x", np.zeros(3, dtype=dtype))})
    path = write(
        ds.chunk(), tmp_path / "unwritten.zarr", 2, compute=False, encoding={"foo": {"_FillValue": -1}}
    )  # no chunk written: all fill value
    raw = {"mask_and_scale": False, "consolidated": False}
    for given in (None, False, True):
        with xr.open_dataset(path, engine="zarrforge", use_zarr_fill_value_as_mask=given, **raw) as opened:
            np.testing.assert_array_equal(opened["foo"].values, [-1, -1, -1])
            assert opened["foo"].attrs == {"_FillValue": -1}, given
    with xr.open_dataset(
        path, engine="zarrforge", consolidated=False, use_zarr_fill_value_as_mask=False
    ) as decoded:
        assert bool(decoded["foo"].isnull().all())
        assert decoded["foo"].encoding["_FillValue"] == -1
        again = tmp_path / "again.zarr"
        write(decoded, again, 2)
    assert json.loads((again / "foo" / ".zarray").read_text())["fill_value"] == -1


def test_backend_array_indexing_matches_numpy():
    store = resolve_store(None)
    data = np.arange(7 * 9 * 4, dtype="int32").reshape(7, 9, 4)
    array = zf.create_array(
        store, "v", shape=data.shape, dtype="int32", chunks=(3, 4, 2), dimension_names=["a", "b", "c"]
    )
    array[:] = data
    variable = xr.Variable(("a", "b", "c"), xr.core.indexing.LazilyIndexedArray(ZarrforgeArray(array)))
    cases = [
        {"a": 1},
        {"a": slice(None, None, -2), "b": slice(1, 8, 3)},
        {"b": [8, 0, 3, 3], "c": [1, 0]},
        {"a": np.array([True, False] * 3 + [True])},
        {"a": xr.Variable("p", [0, 6, 2]), "b": xr.Variable("p", [8, 1, 4])},
    ]
    for case in cases:
        expected = xr.Variable(("a", "b", "c"), data).isel(case)
        np.testing.assert_array_equal(variable.isel(case).values, expected.values)
    assert variable.isel(a=0, b=0, c=0).values == data[0, 0, 0]
