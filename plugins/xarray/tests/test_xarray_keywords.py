"""``to_zarr`` takes every keyword the installed xarray's ``Dataset.to_zarr`` and
``DataTree.to_zarr`` take, with xarray's meaning and positional order (the table in
docs/xarray.md)."""

from __future__ import annotations

import inspect

import dask.array as da
import numpy as np
import pytest
import xarray as xr

import zarrforge as zf
import zarrforge_xarray as zx
from zarrforge_std.stores.memory import MemoryStore

pytestmark = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning"
)


def _parameters(function) -> list[inspect.Parameter]:
    return [p for name, p in inspect.signature(function).parameters.items() if name != "self"]


def test_every_dataset_to_zarr_keyword_is_accepted_in_xarrays_order():
    theirs = _parameters(xr.Dataset.to_zarr)
    ours = {p.name: p for p in _parameters(zx.to_zarr)[1:]}  # ours takes the dataset first
    assert [p.name for p in theirs] == list(ours), "names and order as xarray's"
    for parameter in theirs:
        assert ours[parameter.name].kind == parameter.kind, parameter.name


def test_every_datatree_to_zarr_keyword_is_accepted_in_xarrays_order():
    theirs = [p for p in _parameters(xr.DataTree.to_zarr) if p.kind is not p.VAR_KEYWORD]
    ours = [p for p in _parameters(zx.accessor.DataTreeAccessor.to_zarr) if p.kind is not p.VAR_KEYWORD]
    assert [p.name for p in theirs] == [p.name for p in ours]


def test_mode_group_and_encoding_can_be_given_positionally():
    store = MemoryStore()
    ds = xr.Dataset({"v": ("x", np.arange(4.0))})
    ds.zarrforge.to_zarr(store, "w-", "g", {"v": {"chunks": (2,)}})
    assert zf.open_array(store, "g/v").chunks == (2,)
    tree = xr.DataTree.from_dict({"/": ds, "/child": ds})
    tree.zarrforge.to_zarr(MemoryStore(), "w")


@pytest.mark.parametrize("write_empty_chunks, stored", [(True, 2), (False, 1), (None, 1)])
def test_write_empty_chunks_keeps_or_drops_chunks_of_fill_values(write_empty_chunks, stored):
    store = MemoryStore()
    values = np.array([0.0, 0.0, 1.0, 2.0])  # the first chunk holds the fill value only
    ds = xr.Dataset({"v": ("x", values)})
    zx.to_zarr(
        ds, store, encoding={"v": {"chunks": (2,), "fill_value": 0.0}}, write_empty_chunks=write_empty_chunks
    )
    assert zf.open_array(store, "v").nchunks_initialized == stored
    more = xr.Dataset({"v": ("x", np.zeros(2))})
    zx.to_zarr(more, store, append_dim="x", write_empty_chunks=write_empty_chunks)
    assert zf.open_array(store, "v").nchunks_initialized == stored + (write_empty_chunks is True)


def test_chunkmanager_store_kwargs_reach_dask_store():
    seen = {}
    original = da.store

    def store_spy(*args, **kwargs):
        seen.update(kwargs)
        return original(*args, **kwargs)

    ds = xr.Dataset({"v": ("x", da.arange(8.0, chunks=4))})
    try:
        da.store = store_spy
        zx.to_zarr(ds, MemoryStore(), chunkmanager_store_kwargs={"return_stored": False})
    finally:
        da.store = original
    assert seen.get("return_stored") is False


def test_keywords_of_the_wrong_type_are_refused_naming_them():
    ds = xr.Dataset({"v": ("x", np.arange(2.0))})
    with pytest.raises(TypeError, match="write_empty_chunks must be True, False or None"):
        zx.to_zarr(ds, MemoryStore(), write_empty_chunks="yes")
    with pytest.raises(TypeError, match="chunkmanager_store_kwargs must be a dict"):
        zx.to_zarr(ds, MemoryStore(), chunkmanager_store_kwargs=["lock"])
