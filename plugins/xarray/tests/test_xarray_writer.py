"""zarrforge_xarray.to_zarr against xarray's own writer (zarr-python), both ways.

What zarrforge writes opens with engine="zarr" identical to what ds.to_zarr writes, and
what ds.to_zarr writes is extended (append, region) by zarrforge, for a matrix of
datasets in Zarr v2 and v3, consolidated or not, sharded or not.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import zarrforge as zf
import zarrforge_xarray as zx

pytestmark = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::RuntimeWarning"
)


def matrix_dataset(zarr_format: int) -> xr.Dataset:
    rng = np.random.default_rng(1)
    time = pd.date_range("2000-01-01", periods=6, freq="D").values.copy()
    time[3] = np.datetime64("NaT")
    temperature = rng.normal(280, 5, size=(6, 4)).astype("float32")
    temperature[0, 0] = np.nan
    ds = xr.Dataset(
        {
            "temperature": (("time", "x"), temperature, {"units": "K", "valid": [1.5, 2.5]}),
            "packed": (("time", "x"), rng.uniform(0, 10, (6, 4)).round(2)),
            "flag": (("x",), np.array([True, False, True, False])),
            "z": (("x",), np.array([1 + 2j, 3.5 - 1j, 0j, -1j])),
            "label": (("x",), np.array(["a", "bb", "", "dddd"], dtype=object)),
            "code": (("x",), np.array(["p", "qq", "r", "s"], dtype="<U2")),
            "raw": (("x",), np.array([b"ab", b"c", b"", b"d"], dtype="S2")),
            "lag": (("time",), pd.to_timedelta([1, 2, np.nan, 4, 5, 6], unit="h").values),
            "scalar": ((), np.float64(3.5)),
            "température": (("x",), np.arange(4.0)),
        },
        coords={
            "time": ("time", time),
            "x": ("x", np.array([10, 20, 30, 40], dtype="int32")),
            "lat": (("x",), np.linspace(-10, 10, 4), {"units": "degrees_north"}),
        },
        attrs={"title": "matrix", "history": ["a", "b"], "n": 3},
    )
    ds["packed"].encoding.update(
        {"dtype": "int16", "scale_factor": 0.01, "add_offset": 1.0, "_FillValue": -9999}
    )
    ds["temperature"].encoding.update({"chunks": (2, 4)})
    if zarr_format == 2:
        ds.attrs["missing"] = float("nan")  # bare NaN, as zarr-python writes it in .zattrs
    return ds


def reference(ds: xr.Dataset, path, **options) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds.to_zarr(path, **options)
    return str(path)


def open_zarr(path, **options) -> xr.Dataset:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xr.open_dataset(path, engine="zarr", **options).load()


@pytest.mark.parametrize("zarr_format,sharded", [(2, False), (3, False), (3, True)])
@pytest.mark.parametrize("consolidated", [True, False])
def test_what_zarrforge_writes_opens_in_zarr_python_identical_to_xarrays_own(
    tmp_path, zarr_format, sharded, consolidated
):
    """Both ways: zarrforge's output read by zarr-python and by zarrforge equals xarray's
    own output read by zarr-python, and xarray's own output read by zarrforge does too."""
    ds = matrix_dataset(zarr_format)
    if sharded:
        ds["temperature"].encoding.update({"chunks": (1, 2), "shards": (2, 4)})
        ds["packed"].encoding.update({"chunks": (3, 2), "shards": (6, 4)})
    ours = tmp_path / "ours.zarr"
    zx.to_zarr(ds, ours, zarr_format=zarr_format, consolidated=consolidated)
    theirs = reference(
        ds, tmp_path / "theirs.zarr", zarr_format=zarr_format, consolidated=consolidated, mode="w"
    )
    expected = open_zarr(theirs, consolidated=consolidated)
    if zarr_format == 2:  # NaN != NaN: compare that attribute apart
        assert np.isnan(expected.attrs.pop("missing"))
    for written in (
        open_zarr(ours, consolidated=consolidated),
        xr.open_dataset(ours, engine="zarrforge").load(),
        xr.open_dataset(theirs, engine="zarrforge").load(),
    ):
        if zarr_format == 2:
            assert np.isnan(written.attrs.pop("missing"))
        xr.testing.assert_identical(written, expected)
    if consolidated:
        assert zf.open_group(str(ours), mode="r").metadata_model.consolidated is not None
    if sharded:
        assert zf.open_array(str(ours), "temperature").shards == (2, 4)


def test_sharded_and_with_codecs_given_as_zarr_python_and_numcodecs_objects(tmp_path):
    import numcodecs
    import zarr

    ds = xr.Dataset({"v": (("a", "b"), np.arange(64.0).reshape(8, 8))})
    encoding = {
        "v": {
            "chunks": (2, 2),
            "shards": (4, 8),
            "compressors": [zarr.codecs.ZstdCodec(level=5)],
            "filters": [numcodecs.Delta(dtype="<f8")],
        }
    }
    zx.to_zarr(ds, tmp_path / "s.zarr", encoding=encoding)
    array = zf.open_array(str(tmp_path / "s.zarr"), "v")
    assert array.shards == (4, 8) and array.chunks == (2, 2)
    inner = array.metadata["codecs"][0]["configuration"]["codecs"]
    assert {"name": "numcodecs.delta", "configuration": {"dtype": "<f8", "astype": "<f8"}} in inner
    assert {"name": "zstd", "configuration": {"level": 5, "checksum": False}} in inner
    xr.testing.assert_identical(open_zarr(tmp_path / "s.zarr"), ds)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_codec_objects_in_encoding_are_stored_as_xarrays_own_writer_stores_them(tmp_path, zarr_format):
    """A zarr-python BloscCodec leaves typesize and shuffle to the array (float32: 4 and
    "shuffle"); stored with typesize 1 its chunks were 2.6x larger. v2 takes numcodecs."""
    import numcodecs
    import zarr

    ds = xr.Dataset({"tas": (("t", "x"), np.random.default_rng(0).normal(size=(6, 8)).astype("float32"))})
    compressor = zarr.codecs.BloscCodec() if zarr_format == 3 else numcodecs.Blosc(cname="zstd")
    encoding = {"tas": {"compressors": [compressor], "chunks": (3, 8)}}
    zx.to_zarr(ds, tmp_path / "ours.zarr", encoding=encoding, zarr_format=zarr_format)
    reference(ds, tmp_path / "theirs.zarr", encoding=encoding, zarr_format=zarr_format)
    ours = zf.open_array(str(tmp_path / "ours.zarr"), "tas").metadata
    theirs = zf.open_array(str(tmp_path / "theirs.zarr"), "tas").metadata
    if zarr_format == 3:
        assert ours["codecs"] == theirs["codecs"]
        assert ours["codecs"][1]["configuration"]["typesize"] == 4
    else:
        assert ours[".zarray"]["compressor"] == theirs[".zarray"]["compressor"]
    xr.testing.assert_identical(open_zarr(tmp_path / "ours.zarr"), ds)


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_non_finite_attributes_are_written_and_appended_as_xarrays_own_writer_does(tmp_path, zarr_format):
    """CF's missing_value NaN and valid_max inf, in a variable's and the dataset's
    attributes: zarrforge writes them as xarray's writer (zarr-python) does, and appends
    onto a store xarray wrote with them (the append used to fail on the stored NaN)."""

    def dataset(start: int) -> xr.Dataset:
        time = pd.date_range("2000-01-01", periods=3, freq="D") + pd.Timedelta(days=start)
        tas = xr.Variable(
            ("time",),
            np.arange(start, start + 3, dtype="float32"),
            {"missing_attr": float("nan"), "valid_max": float("inf")},
        )
        return xr.Dataset({"tas": tas}, coords={"time": time}, attrs={"valid_min": float("-inf")})

    ours, theirs = tmp_path / "ours.zarr", tmp_path / "theirs.zarr"
    zx.to_zarr(dataset(0), ours, zarr_format=zarr_format)
    reference(dataset(0), theirs, zarr_format=zarr_format)
    xr.testing.assert_identical(open_zarr(ours), open_zarr(theirs))
    zx.to_zarr(dataset(3), theirs, append_dim="time")
    zx.to_zarr(dataset(3), ours, append_dim="time")
    appended = open_zarr(theirs)
    assert appended.sizes["time"] == 6 and appended.attrs["valid_min"] == -np.inf
    assert np.isnan(appended["tas"].attrs["missing_attr"])
    assert appended["tas"].values.tolist() == list(range(6))
    xr.testing.assert_identical(open_zarr(ours), appended)


def test_the_accessor_and_a_datatree(tmp_path):
    ds = matrix_dataset(3)
    ds.zarrforge.to_zarr(tmp_path / "a.zarr")
    xr.testing.assert_identical(open_zarr(tmp_path / "a.zarr"), open_zarr(reference(ds, tmp_path / "r.zarr")))
    tree = xr.DataTree.from_dict(
        {"/": xr.Dataset(attrs={"root": 1}), "/obs": ds[["temperature"]], "/obs/deep": ds[["flag"]]}
    )
    tree.zarrforge.to_zarr(tmp_path / "t.zarr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = xr.open_datatree(tmp_path / "t.zarr", engine="zarr").load()
    xr.testing.assert_identical(back, tree)


@pytest.mark.parametrize("writer", ["zarrforge", "xarray"])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_append_along_a_dimension_to_a_store_either_library_wrote(tmp_path, writer, zarr_format):
    ds = matrix_dataset(zarr_format).drop_vars(["scalar", "code", "raw", "label"])
    first, second = ds.isel(time=slice(0, 4)), ds.isel(time=slice(4, None))
    path = tmp_path / "grow.zarr"
    if writer == "zarrforge":
        zx.to_zarr(first, path, zarr_format=zarr_format)
    else:
        reference(first, path, zarr_format=zarr_format)
    zx.to_zarr(second, path, append_dim="time")
    reference(first, tmp_path / "r.zarr", zarr_format=zarr_format)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        second.to_zarr(tmp_path / "r.zarr", append_dim="time")
    xr.testing.assert_identical(open_zarr(path), open_zarr(tmp_path / "r.zarr"))
    assert open_zarr(path).sizes["time"] == 6


@pytest.mark.parametrize("writer", ["zarrforge", "xarray"])
def test_region_writes_explicit_and_auto(tmp_path, writer):
    ds = xr.Dataset({"v": (("t", "x"), np.zeros((6, 4)))}, coords={"t": np.arange(6), "x": np.arange(4)})
    path = tmp_path / "region.zarr"
    if writer == "zarrforge":
        zx.to_zarr(ds, path)
    else:
        reference(ds, path)
    update = ds.isel(t=slice(2, 4)).copy(deep=True)
    update["v"][:] = 7.0
    zx.to_zarr(update, path, region="auto")
    update2 = ds.isel(t=slice(4, 6), x=slice(1, 3)).copy(deep=True)
    update2["v"][:] = 9.0
    zx.to_zarr(update2.drop_vars(["t", "x"]), path, region={"t": slice(4, 6), "x": slice(1, 3)})
    got = open_zarr(path)["v"].values
    expected = np.zeros((6, 4))
    expected[2:4] = 7.0
    expected[4:6, 1:3] = 9.0
    np.testing.assert_array_equal(got, expected)


def test_modes_and_argument_errors_are_refused_before_writing(tmp_path):
    ds = xr.Dataset({"v": (("t",), np.arange(3.0))}, coords={"t": [0, 1, 2]})
    path = tmp_path / "m.zarr"
    zx.to_zarr(ds, path)
    with pytest.raises(zf.errors.ContainsNodeError):
        zx.to_zarr(ds, path)  # mode w- by default
    with pytest.raises(ValueError, match="mode='r\\+' writes existing variables only"):
        zx.to_zarr(ds.assign(w=ds.v), path, mode="r+")
    with pytest.raises(ValueError, match="append_dim='nope' does not match any existing dataset dimensions"):
        zx.to_zarr(ds, path, append_dim="nope")
    with pytest.raises(ValueError, match="already exist in the store"):
        zx.to_zarr(ds, path, mode="a", encoding={"v": {"chunks": (1,)}})
    with pytest.raises(KeyError, match="not every value of coordinate 't'"):
        zx.to_zarr(ds.assign_coords(t=[5, 6, 7]), path, region="auto")
    with pytest.raises(ValueError, match="mode must be one of"):
        zx.to_zarr(ds, path, mode="x")
    zx.to_zarr(ds * 2, path, mode="w")
    np.testing.assert_array_equal(open_zarr(path)["v"].values, [0.0, 2.0, 4.0])
    zx.to_zarr(xr.Dataset({"u": (("t",), np.ones(3))}), path, mode="a")
    assert sorted(open_zarr(path).data_vars) == ["u", "v"]


def test_open_then_write_keeps_the_codecs(tmp_path):
    """Before: the backend left compressors and filters out of encoding, so open ->
    to_zarr silently changed them."""
    source = zf.create_array(
        str(tmp_path / "in.zarr"),
        "v",
        shape=(6,),
        chunks=(3,),
        dtype="float64",
        compressors=[{"name": "gzip", "configuration": {"level": 7}}],
        dimension_names=["t"],
    )
    source[:] = np.arange(6.0)
    ds = xr.open_dataset(tmp_path / "in.zarr", engine="zarrforge")
    assert ds["v"].encoding["compressors"] == (zf.codecs.GzipCodec(level=7),)
    zx.to_zarr(ds, tmp_path / "out.zarr")
    assert zf.open_array(str(tmp_path / "out.zarr"), "v").metadata["codecs"][1:] == [
        {"name": "gzip", "configuration": {"level": 7}}
    ]


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_encoding_codecs_are_objects_equal_to_those_written_and_write_back(tmp_path, zarr_format):
    """Before (issue #44): ``encoding["compressors"]`` held zarrforge's JSON in a list.
    Now, as with xarray's engine, tuples of codec objects equal to those written with:
    zarrforge's (equal to zarr-python's) for v3, numcodecs' for v2 (a string array's
    ``VLenUTF8`` among the filters, where v2 stores it); writing them back keeps them,
    and a dataset holding them pickles."""
    import pickle

    import numcodecs
    import zarr

    compressor = (
        zarr.codecs.BloscCodec(cname="zstd", clevel=3, shuffle="shuffle", typesize=8, blocksize=0)
        if zarr_format == 3
        else numcodecs.Blosc(cname="zstd", clevel=3, shuffle=2)
    )
    ds = xr.Dataset({"v": (("t",), np.arange(6.0)), "s": (("t",), np.array(list("abcdef"), dtype=object))})
    zx.to_zarr(
        ds, tmp_path / "in.zarr", zarr_format=zarr_format, encoding={"v": {"compressors": (compressor,)}}
    )
    back = xr.open_dataset(tmp_path / "in.zarr", engine="zarrforge")
    assert back["v"].encoding["compressors"] == (compressor,)
    assert back["v"].encoding["filters"] == ()
    if zarr_format == 2:
        assert back["s"].encoding["filters"] == (numcodecs.VLenUTF8(),)
    else:
        assert back["s"].encoding["serializer"] == zarr.codecs.VLenUTF8Codec()
    pickle.loads(pickle.dumps(back))
    zx.to_zarr(back[["v"]], tmp_path / "out.zarr", zarr_format=zarr_format)
    again = xr.open_dataset(tmp_path / "out.zarr", engine="zarrforge")
    assert again["v"].encoding["compressors"] == (compressor,)
    # a v2 object codec given among the filters, as xarray's engine reports it, is taken
    zx.to_zarr(
        ds[["s"]],
        tmp_path / "s.zarr",
        zarr_format=zarr_format,
        encoding={"s": {"filters": back["s"].encoding["filters"]}},
    )
    xr.testing.assert_identical(xr.open_dataset(tmp_path / "s.zarr", engine="zarr").load(), ds[["s"]])


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=40,
    ) as cluster:
        with Client(cluster) as c:
            yield c


def test_compute_false_writes_misaligned_dask_chunks_in_parallel_on_a_cluster(tmp_path, client):
    """Dask blocks straddling Zarr chunks are written by worker processes at once; the
    local store's conditional writes keep every element (before: 19-26% lost)."""
    from dask.delayed import Delayed

    values = np.random.default_rng(2).normal(size=(40, 30))
    ds = xr.Dataset({"v": (("t", "x"), values)}).chunk({"t": 7, "x": 11})
    path = tmp_path / "par.zarr"
    delayed = zx.to_zarr(ds, str(path), encoding={"v": {"chunks": (10, 10)}}, compute=False)
    assert isinstance(delayed, Delayed)
    assert zf.open_array(str(path), "v").nchunks_initialized == 0  # nothing written yet
    delayed.compute()
    np.testing.assert_array_equal(open_zarr(path)["v"].values, values)
    assert zf.open_group(str(path), mode="r").metadata_model.consolidated is not None


def test_misaligned_chunks_on_a_store_without_conditional_writes_are_refused(tmp_path):
    from zarrforge.abc.store import WrapperStore
    from zarrforge.storing.storage import resolve_store

    plain = WrapperStore(resolve_store(str(tmp_path / "plain.zarr")))  # no conditional writes
    ds = xr.Dataset({"v": (("t",), np.arange(20.0))}).chunk({"t": 7})
    with pytest.raises(ValueError, match="would overlap multiple Dask chunks"):
        zx.to_zarr(ds, plain, encoding={"v": {"chunks": (10,)}})
    zx.to_zarr(ds, plain, mode="w", encoding={"v": {"chunks": (10,)}}, align_chunks=True)
    np.testing.assert_array_equal(zf.open_array(plain, "v")[...], np.arange(20.0))


def test_a_cluster_write_to_a_memory_store_is_refused_plainly(client):
    ds = xr.Dataset({"v": (("t",), np.arange(4.0))}).chunk({"t": 2})
    with pytest.raises(zf.errors.ZarrforgeError, match="distributed workers.*not shared"):
        zx.to_zarr(ds, None)


def test_chunk_key_encoding_and_write_empty_chunks_encoding_keys(tmp_path):
    ds = xr.Dataset({"v": (("a", "b"), np.zeros((4, 4)))})
    zx.to_zarr(
        ds,
        tmp_path / "k.zarr",
        encoding={
            "v": {
                "chunks": (2, 2),
                "write_empty_chunks": True,
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "."}},
            }
        },
    )
    array = zf.open_array(str(tmp_path / "k.zarr"), "v")
    assert array.metadata["chunk_key_encoding"]["configuration"]["separator"] == "."
    assert array.nchunks_initialized == 4  # all-fill chunks were written, as asked
    assert (tmp_path / "k.zarr" / "v" / "c.0.0").exists()


def test_open_zarr_is_lazy_with_the_stored_chunks(tmp_path):
    ds = xr.Dataset({"v": (("t",), np.arange(10.0))})
    zx.to_zarr(ds, tmp_path / "o.zarr", encoding={"v": {"chunks": (4,)}})
    opened = zx.open_zarr(tmp_path / "o.zarr")
    assert opened["v"].chunks == ((4, 4, 2),)
    xr.testing.assert_identical(opened.compute(), ds)
    assert zx.open_zarr(tmp_path / "o.zarr", chunks=False)["v"].chunks is None


def test_append_and_region_writes_of_dask_data_on_a_cluster(tmp_path, client):
    """append_dim and region with dask data computed by worker processes, into a store
    xarray (zarr-python) wrote."""
    values = np.arange(120.0).reshape(12, 10)
    ds = xr.Dataset({"v": (("t", "x"), values)}, coords={"t": np.arange(12)})
    path = tmp_path / "c.zarr"
    reference(ds.isel(t=slice(0, 6)), path, encoding={"v": {"chunks": (4, 5)}})
    zx.to_zarr(ds.isel(t=slice(6, 12)).chunk({"t": 3, "x": 3}), str(path), append_dim="t")
    update = ds.isel(t=slice(2, 9)).copy(deep=True)
    update["v"] = -update["v"]
    zx.to_zarr(update.chunk({"t": 2, "x": 4}), str(path), region="auto")
    expected = values.copy()
    expected[2:9] *= -1
    np.testing.assert_array_equal(open_zarr(path)["v"].values, expected)
    np.testing.assert_array_equal(open_zarr(path)["t"].values, np.arange(12))


def test_a_datatree_with_compute_false_is_consolidated_at_once_and_written_by_the_cluster(tmp_path, client):
    from dask.delayed import Delayed

    rng = np.random.default_rng(5)
    tree = xr.DataTree.from_dict(
        {
            "/": xr.Dataset({"top": (("t",), rng.normal(size=12))}).chunk({"t": 5}),
            "/obs": xr.Dataset({"v": (("t", "x"), rng.normal(size=(12, 6)))}).chunk({"t": 5}),
            "/obs/deep": xr.Dataset({"w": (("x",), np.arange(6.0))}).chunk({"x": 4}),
        }
    )
    path = tmp_path / "tree.zarr"
    delayed = tree.zarrforge.to_zarr(str(path), compute=False, encoding={"/": {"top": {"chunks": (4,)}}})
    assert isinstance(delayed, Delayed)
    assert zf.open_array(str(path), "obs/v").nchunks_initialized == 0  # nothing written yet
    # the metadata is consolidated at once, as xarray's writer does (region writes and
    # consolidated reads find it before the data is written)
    nodes = {"obs", "obs/v", "obs/deep", "obs/deep/w", "top"}
    assert set(zf.open_group(str(path), mode="r").metadata_model.consolidated) >= nodes
    delayed.compute()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = xr.open_datatree(path, engine="zarr").load()
    xr.testing.assert_identical(back, tree.compute())
    assert zf.open_array(str(path), "top").chunks == (4,)  # encoding keyed by node path
    assert set(zf.open_group(str(path), mode="r").metadata_model.consolidated) >= nodes


def test_a_datatree_appends_and_writes_regions_found_from_inherited_coordinates(tmp_path):
    """Child nodes inherit the time coordinate from the root and store none: region="auto"
    finds their place from the root's coordinate, as it does for the root's own data."""

    def tree(start: int, stop: int, scale: float = 1.0) -> xr.DataTree:
        t = np.arange(start, stop)
        return xr.DataTree.from_dict(
            {
                "/": xr.Dataset({"r": (("t",), t * scale)}, coords={"t": t}),
                "/obs": xr.Dataset({"v": (("t", "x"), np.outer(t, [1.0, 2.0]) * scale)}),
                "/obs/deep": xr.Dataset({"w": (("t",), t * 3.0 * scale)}),
            }
        )

    path = tmp_path / "tree.zarr"
    tree(0, 4).zarrforge.to_zarr(str(path))
    tree(4, 7).zarrforge.to_zarr(str(path), mode="a", append_dim="t")
    tree(2, 4, scale=10.0).zarrforge.to_zarr(str(path), mode="r+", region="auto")
    expected = tree(0, 7).copy()
    for name in ("/r", "/obs/v", "/obs/deep/w"):
        values = expected[name].values.copy()
        values[2:4] *= 10
        expected[name] = expected[name].copy(data=values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = xr.open_datatree(path, engine="zarr").load()
    xr.testing.assert_identical(back, expected)


def test_a_scalar_variable_has_no_dimension_names_as_zarr_python_writes_it(tmp_path):
    """Before (issue #44): ``"dimension_names": []``, where zarr-python (and xarray's own
    writer through it) leaves the field out for a 0-d array."""
    import json

    zx.to_zarr(xr.Dataset({"scalar": ((), 3.5), "row": (("x",), [1.0, 2.0])}), str(tmp_path))
    scalar = json.loads((tmp_path / "scalar" / "zarr.json").read_text())
    row = json.loads((tmp_path / "row" / "zarr.json").read_text())
    assert "dimension_names" not in scalar
    assert row["dimension_names"] == ["x"]
    back = xr.open_dataset(str(tmp_path), engine="zarrforge").load()
    assert back["scalar"].dims == () and float(back["scalar"]) == 3.5


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_a_variable_named_none_is_stored_as_xarrays_own_writer_stores_it(tmp_path, zarr_format):
    """Before (issue #44): stored as "None"; xarray names it "__values__" (a name the Zarr
    v3 spec reserves), which zarrforge neither created nor read. Now each engine reads
    what the other wrote, and other new names with that prefix are refused before any
    write (existing ones, another tool's, are written into)."""
    ds = xr.Dataset({None: (("x", "y"), [[0, 1], [2, 3]])})
    ours, theirs = tmp_path / "ours.zarr", tmp_path / "theirs.zarr"
    zx.to_zarr(ds, ours, zarr_format=zarr_format)
    ds.to_zarr(theirs, zarr_format=zarr_format)
    assert (ours / "__values__").is_dir() and not (ours / "None").exists()
    for path in (ours, theirs):
        for engine in ("zarrforge", "zarr"):
            xr.testing.assert_identical(xr.open_dataset(path, engine=engine).load(), ds)
    zx.to_zarr(ds * 2, theirs, mode="a")  # into the array another tool wrote
    xr.testing.assert_identical(xr.open_dataset(theirs, engine="zarrforge").load(), ds * 2)
    with pytest.raises(zf.errors.InvalidPathError, match=r"\['__x'\].*Rename them"):
        zx.to_zarr(xr.Dataset({"__x": ("x", [1, 2])}), tmp_path / "new.zarr")
    assert not (tmp_path / "new.zarr").exists()
    with pytest.raises(zf.errors.InvalidPathError, match=r"\['__x'\]"):
        zx.to_zarr(xr.Dataset({"__x": ("x", [1, 2])}), ours, mode="a")
    assert sorted(p.name for p in ours.iterdir() if not p.name.startswith(".")) == ["__values__"] + (
        ["zarr.json"] if zarr_format == 3 else []
    )
