"""The writer's refusals start with the words of xarray's own refusal of the same write
(which xarray's test suite and its users match), keep zarrforge's detail, and come before
anything is written; and the writes xarray accepts that zarrforge refused or did late
(region={} with scalars, consolidated metadata with compute=False, mode "a-" without
append_dim, a missing store) behave as xarray's. tests/peers/xarray_suite.py runs
xarray's own tests of these through zarrforge.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import zarrforge as zf
import zarrforge_xarray as zx
from zarrforge_std.stores.memory import MemoryStore

pytestmark = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::RuntimeWarning"
)


def snapshot(store) -> dict[str, bytes]:
    return {key: store.get(key) for key in sorted(store.list())}


def series(values, dim: str = "time", name: str = "v", **attrs) -> xr.Dataset:
    return xr.Dataset({name: (dim, np.asarray(values), attrs)})


# (what, the write that is refused, xarray's words, zarrforge's detail)
REFUSALS = [
    (
        "r+ adds a variable",
        lambda s: zx.to_zarr(series([1.0], name="w"), s, mode="r+"),
        r"dataset contains non-pre-existing variables \['w'\]",
        r"mode='r\+' writes existing variables only \(use mode='a' to add them\)",
    ),
    (
        "append_dim unknown",
        lambda s: zx.to_zarr(series([1.0, 2.0]), s, append_dim="nope"),
        r"append_dim='nope' does not match any existing dataset dimensions",
        r"the stored dataset's are \['time'\]",
    ),
    (
        "other dimension names",
        lambda s: zx.to_zarr(series([1.0, 2.0, 3.0], dim="x"), s, mode="a"),
        r"variable 'v' already exists with different dimension names",
        r"it has dimensions \('x',\), but the stored one has \('time',\)",
    ),
    (
        "other sizes",
        lambda s: zx.to_zarr(series([1.0]), s, mode="a"),
        r"variable 'v' already exists with different dimension sizes",
        r"'time': 1 given, 3 stored",
    ),
    (
        "encoding for a stored variable",
        lambda s: zx.to_zarr(series([4.0]), s, append_dim="time", encoding={"v": {"chunks": (1,)}}),
        r"variable 'v' already exists, but encoding was provided",
        r"their stored encoding is used \(leave them out of encoding=\)",
    ),
]


@pytest.mark.parametrize("what,write,xarray_words,detail", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_refusal_says_xarrays_words_then_zarrforges_detail_before_writing(
    what, write, xarray_words, detail
):
    store = MemoryStore()
    zx.to_zarr(series([1.0, 2.0, 3.0]), store)
    before = snapshot(store)
    with pytest.raises(ValueError, match=xarray_words) as refused:
        write(store)
    assert refused.match(detail)
    assert snapshot(store) == before


def test_mode_errors_say_xarrays_words():
    with pytest.raises(
        ValueError,
        match=r"cannot set append_dim unless mode='a' or mode='a-' "
        r"\(or mode=None, which is 'a' then\), got mode='w'",
    ):
        zx.to_zarr(series([1.0]), MemoryStore(), mode="w", append_dim="time")
    with pytest.raises(
        ValueError,
        match=r"cannot set region unless mode='r\+' or mode='a' "
        r"\(or mode=None, which is 'r\+' then\), got mode='w'",
    ):
        zx.to_zarr(series([1.0]), MemoryStore(), mode="w", region={"time": slice(0, 1)})


@pytest.mark.parametrize("dtype", ["<U2", "|S2"])
def test_fixed_width_strings_of_another_width_are_mismatched_dtypes(dtype):
    store = MemoryStore()
    zx.to_zarr(series(np.array(["ab", "cd"], dtype=dtype)), store)
    wider = series(np.array(["abc", "def"], dtype=dtype.replace("2", "3")))
    with pytest.raises(
        ValueError,
        match=r"Mismatched dtypes for variable 'v': the store "
        r"holds [<|]\w2, the dataset to write gives [<|]\w3",
    ):
        zx.to_zarr(wider, store, append_dim="time")


@pytest.mark.parametrize("where", ["dataset", "variable"])
def test_an_attribute_json_cannot_hold_is_a_type_error_before_writing(where):
    store = MemoryStore()
    zx.to_zarr(series([1.0]), store, group="kept")
    before = snapshot(store)
    ds = series([1.0], bad=xr.DataArray()) if where == "variable" else series([1.0])
    if where == "dataset":
        ds.attrs["bad"] = xr.DataArray()
    owner = "variable 'v'" if where == "variable" else "the dataset"
    with pytest.raises(
        TypeError,
        match=rf"Invalid attribute in Dataset.attrs: attribute 'bad' "
        rf"of {owner} is a DataArray, which Zarr metadata "
        r"\(JSON\) cannot hold",
    ):
        zx.to_zarr(ds, store, group="new")
    assert snapshot(store) == before  # the group it was creating is gone again
    zx.to_zarr(series([1.0]).assign_attrs(good={"key": [1, 2]}), store, group="new")  # JSON
    assert xr.open_dataset(store, engine="zarrforge", group="new").attrs == {"good": {"key": [1, 2]}}


def test_an_empty_region_writes_scalars_whole():
    store = MemoryStore()
    zx.to_zarr(xr.Dataset({"x": 0}), store)
    zx.to_zarr(xr.Dataset({"x": 5}), store, region={}, mode="r+")
    assert int(xr.open_dataset(store, engine="zarrforge")["x"]) == 5


@pytest.mark.parametrize("chunked", [False, True], ids=["numpy", "dask"])
def test_compute_false_consolidates_the_metadata_at_once(chunked):
    store = MemoryStore()
    zeros = series(np.zeros(4))
    delayed = zx.to_zarr(
        zeros.chunk(2) if chunked else zeros, store, compute=False, encoding={"v": {"chunks": (2,)}}
    )
    # the region writes of the initialise-then-write-regions pattern, then a consolidated open
    zx.to_zarr(series(np.ones(2)), store, region={"time": slice(0, 2)})
    with xr.open_dataset(store, engine="zarrforge", consolidated=True) as opened:
        assert opened["v"].values[:2].tolist() == [1.0, 1.0]
    assert delayed.compute() is None


def test_mode_a_minus_without_append_dim_checks_sizes_before_writing():
    store = MemoryStore()
    zx.to_zarr(series(np.arange(4.0)), store)
    before = snapshot(store)
    with pytest.raises(
        ValueError,
        match=r"variable 'v' already exists with different "
        r"dimension sizes \('time': 3 given, 4 stored\)",
    ):
        zx.to_zarr(series(np.arange(3.0)), store, mode="a-")
    assert snapshot(store) == before


def test_a_missing_store_is_a_file_not_found_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no group at path '/'.*: the node does not exist") as missing:
        zx.open_zarr(tmp_path / "nothing.zarr")
    assert isinstance(missing.value, zf.errors.GroupNotFoundError)
    assert not (tmp_path / "nothing.zarr").exists()
