"""Dask: lazy reads, aligned parallel writes, and a real distributed cluster."""

from __future__ import annotations

import pickle

import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster

import zarrforge as zf


@pytest.fixture(scope="module")
def client():
    # Real worker processes on the loopback interface only.
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


def test_arrays_pickle_as_reopen_instructions(tmp_path):
    a = zf.create_array(str(tmp_path), shape=(4,), dtype="int32", chunks=(2,), order="F")
    a[:] = [1, 2, 3, 4]
    b = pickle.loads(pickle.dumps(a))
    assert b[:].tolist() == [1, 2, 3, 4] and not b.read_only and b.order == "F"
    with pytest.raises(TypeError, match="not shared between processes"):
        pickle.dumps(zf.create_array(None, shape=(1,), dtype="int8"))


def test_to_dask_uses_write_units_as_blocks(tmp_path):
    a = zf.create_array(str(tmp_path), shape=(10, 9), dtype="int32", chunks=(2, 3), shards=(4, 9))
    a[...] = np.arange(90).reshape(10, 9)
    x = zf.to_dask(a)
    assert x.chunks == ((4, 4, 2), (9,))
    assert np.array_equal(x[3:7, ::2].compute(), np.arange(90).reshape(10, 9)[3:7, ::2])
    assert np.array_equal(da.from_array(a, chunks=(5, 5)).compute(), a[...])


def test_from_dask_rechunks_onto_write_units(tmp_path):
    source = da.arange(24 * 20, chunks=37).reshape(24, 20)  # blocks straddle chunks
    target = zf.create_array(str(tmp_path), shape=(24, 20), dtype=source.dtype, chunks=(4, 5))
    zf.from_dask(source, target)
    assert np.array_equal(target[...], np.arange(480).reshape(24, 20))


def test_distributed_cluster_writes_a_multi_chunk_local_array(client, tmp_path):
    values = np.random.default_rng(0).normal(size=(64, 48)).astype("float32")
    source = da.from_array(values, chunks=(13, 11))
    array = zf.from_dask(source, str(tmp_path / "out.zarr"), chunks=(8, 8), shards=(16, 24))
    reopened = zf.open_array(str(tmp_path / "out.zarr"))
    assert np.array_equal(reopened[...], values)
    assert array.nchunks_initialized == 4 * 2  # every shard written, once
    # and read back in parallel by the cluster
    assert np.allclose(zf.to_dask(reopened).sum().compute(), values.sum(), rtol=1e-4)


def test_shape_mismatch_is_refused(tmp_path):
    target = zf.create_array(str(tmp_path), shape=(4,), dtype="int64")
    with pytest.raises(zf.errors.ZarrforgeError, match="does not match"):
        zf.from_dask(da.arange(5), target)


@pytest.mark.parametrize("sharded", [False, True])
def test_misaligned_dask_store_on_a_cluster_loses_no_element(client, tmp_path, sharded):
    """``da.store`` without a lock, dask blocks straddling the stored chunks (and inner
    chunks of shards), written by worker processes: every stored chunk has several
    writing tasks, each doing a read-modify-write of it. With the local store's
    conditional writes no task's part is lost (before, 19-26% of elements were)."""
    values = np.arange(60 * 44, dtype="int32").reshape(60, 44) + 1
    path = str(tmp_path / "misaligned.zarr")
    options = {"chunks": (4, 4), "shards": (8, 8)} if sharded else {"chunks": (8, 8)}
    target = zf.create_array(path, shape=values.shape, dtype="int32", fill_value=0, **options)
    for trial in range(3):
        target[...] = 0
        source = da.from_array(values * (trial + 1), chunks=(5, 7))  # no block is aligned
        da.store(source, target, lock=False)
        assert np.array_equal(zf.open_array(path)[...], values * (trial + 1)), trial


def _set_attribute(path: str, i: int) -> int:
    zf.open_array(path, mode="r+").attrs[f"task-{i}"] = i
    return i


def test_attribute_updates_from_cluster_tasks_lose_nothing(client, tmp_path):
    """Twenty tasks on worker processes, each adding its own attribute to the same array:
    every change is applied to the latest stored document, so all twenty survive."""
    path = str(tmp_path / "attrs.zarr")
    zf.create_array(path, shape=(4,), dtype="int8", attributes={"kept": True})
    futures = client.map(_set_attribute, [path] * 20, range(20), pure=False)
    assert sorted(client.gather(futures)) == list(range(20))
    assert dict(zf.open_array(path).attrs) == {"kept": True, **{f"task-{i}": i for i in range(20)}}


def test_from_dask_takes_an_xarray_dataarray(tmp_path):
    """Before: AttributeError: 'DataArray' object has no attribute 'rechunk'."""
    import xarray as xr

    values = da.arange(24, chunks=5).reshape(4, 6)
    a = zf.from_dask(
        xr.DataArray(values, dims=("y", "x"), name="t", attrs={"units": "K"}), str(tmp_path), chunks=(2, 3)
    )
    assert a[...].tolist() == np.arange(24).reshape(4, 6).tolist()
    assert (a.path, a.dimension_names, dict(a.attrs)) == ("t", ("y", "x"), {"units": "K"})
    with pytest.raises(TypeError, match="from_dask writes a dask array"):
        zf.from_dask(np.zeros(3), str(tmp_path / "n"))


def test_a_memory_store_handed_to_cluster_workers_is_refused_plainly(client):
    """Before: a serialization error with the reason buried in chained causes."""
    with pytest.raises(
        zf.errors.ZarrforgeError,
        match="cannot be written by dask's distributed workers.*not shared "
        "between processes.*directory or an object store",
    ):
        zf.from_dask(da.ones(10, chunks=5), None, chunks=(5,))
