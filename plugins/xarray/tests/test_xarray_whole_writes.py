"""A write from xarray that cannot complete leaves the store as it was.

The xarray user's cases: an append whose other dimensions disagree with the store
(it used to resize ``time`` and write the new times before failing, so the retry
produced duplicate timestamps), a first write that fails halfway (it used to leave
the group behind, so the retry met ``ContainsNodeError``), a numeric-string variable
appended onto numbers (silently cast before), and a region whose size disagrees. Each
error names the variable, the dimension and both sizes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import zarrforge as zf
import zarrforge_xarray as zx
from zarrforge_std.stores.memory import MemoryStore

pytestmark = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::RuntimeWarning"
)


def climate(start: int, days: int, lats: int = 3) -> xr.Dataset:
    time = pd.date_range("2000-01-01", periods=days, freq="D") + pd.Timedelta(days=start)
    tas = np.arange(days * lats, dtype="float32").reshape(days, lats) + 100 * start
    return xr.Dataset(
        {"tas": (("time", "lat"), tas, {"units": "K"})},
        coords={"time": time, "lat": np.linspace(-10, 10, lats)},
    )


def snapshot(store) -> dict[str, bytes]:
    return {key: store.get(key) for key in sorted(store.list())}


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_an_append_with_the_wrong_other_dimension_is_refused_before_writing(zarr_format):
    store = MemoryStore()
    zx.to_zarr(climate(0, 4), store, zarr_format=zarr_format)
    before = snapshot(store)
    with pytest.raises(
        ValueError,
        match=r"variable 'tas' already exists with different "
        r"dimension sizes \('lat': 2 given, 3 stored\); "
        r"only append_dim='time' may change size",
    ):
        zx.to_zarr(climate(4, 4, lats=2), store, append_dim="time")
    assert snapshot(store) == before
    zx.to_zarr(climate(4, 4), store, append_dim="time")
    back = xr.open_dataset(store, engine="zarrforge").load()
    assert back.sizes == {"time": 8, "lat": 3}
    assert back.indexes["time"].is_monotonic_increasing and back.indexes["time"].is_unique


def test_numeric_strings_appended_onto_numbers_are_refused_not_cast():
    store = MemoryStore()
    zx.to_zarr(climate(0, 2), store)
    before = snapshot(store)
    strings = climate(2, 2).assign(tas=lambda d: d.tas.astype(str))
    with pytest.raises(
        ValueError, match="variable 'tas': the store holds float32, the dataset to write gives <U"
    ):
        zx.to_zarr(strings, store, append_dim="time")
    assert snapshot(store) == before


@pytest.mark.parametrize("how", ["overwrite", "region"])
def test_numeric_strings_written_over_numbers_are_refused_not_cast(how):
    """Before: an overwrite (mode="a", no append_dim) or a region write cast "1.5" into
    the stored float32 silently; only appends were checked."""
    store = MemoryStore()
    zx.to_zarr(climate(0, 4), store)
    before = snapshot(store)
    strings = climate(0, 4).assign(tas=lambda d: d.tas.astype(str))
    with pytest.raises(
        ValueError, match="variable 'tas': the store holds float32, the dataset to write gives <U"
    ):
        if how == "overwrite":
            zx.to_zarr(strings, store, mode="a")
        else:
            zx.to_zarr(
                strings[["tas"]].drop_vars(["time", "lat", "lon"], errors="ignore"),
                store,
                region={"time": slice(0, 4)},
                mode="r+",
            )
    assert snapshot(store) == before


def test_a_failed_first_write_leaves_nothing_and_can_be_repeated():
    store = MemoryStore()
    store.set("notes.txt", b"kept")
    ds = climate(0, 4).assign(pr=lambda d: d.tas * 2)
    with pytest.raises(zf.errors.ZarrforgeError):
        zx.to_zarr(ds, store, encoding={"pr": {"compressors": [{"name": "no.such.codec"}]}})
    assert snapshot(store) == {"notes.txt": b"kept"}
    zx.to_zarr(ds, store)  # mode "w-" again: nothing is in the way
    assert set(xr.open_dataset(store, engine="zarrforge").data_vars) == {"tas", "pr"}


def test_a_failed_write_into_a_new_group_of_an_existing_store_removes_only_that_group():
    store = MemoryStore()
    zx.to_zarr(climate(0, 2), store, group="first")
    before = snapshot(store)
    bad = climate(0, 2).assign(pr=lambda d: d.tas * 2)
    with pytest.raises(zf.errors.ZarrforgeError):
        zx.to_zarr(
            bad,
            store,
            group="second",
            mode="a",
            encoding={"pr": {"compressors": [{"name": "no.such.codec"}]}},
        )
    assert snapshot(store) == before


def test_a_region_of_the_wrong_size_names_the_variable_and_both_sizes():
    store = MemoryStore()
    zx.to_zarr(climate(0, 6), store)
    before = snapshot(store)
    part = climate(0, 3).drop_vars(["lat"])
    with pytest.raises(
        ValueError,
        match=r"variable 'tas' already exists with different "
        r"dimension sizes \('time': 3 given, 2 stored\)",
    ):
        zx.to_zarr(part, store, region={"time": slice(0, 2)})
    with pytest.raises(
        ValueError,
        match=r"variable 'tas': region time=slice\(4, 7, None\) "
        r"reaches beyond the stored dimension 'time' of size 6",
    ):
        zx.to_zarr(part, store, region={"time": slice(4, 7)})
    assert snapshot(store) == before


def test_a_variable_with_other_dimensions_is_refused_naming_both():
    store = MemoryStore()
    zx.to_zarr(climate(0, 2), store)
    before = snapshot(store)
    swapped = climate(2, 2).rename({"lat": "lon"})
    with pytest.raises(
        ValueError,
        match=r"variable 'tas' already exists with different "
        r"dimension names: it has dimensions \('time', "
        r"'lon'\), but the stored one has \('time', 'lat'\)",
    ):
        zx.to_zarr(swapped, store, append_dim="time")
    assert snapshot(store) == before


@pytest.mark.parametrize(
    "change,refusal",
    [
        (
            "sizes",
            r"variable 'tas' already exists with different dimension sizes "
            r"\('lat': 2 given, 3 stored\); to change a size, append along it",
        ),
        (
            "dimensions",
            r"variable 'tas' already exists with different dimension names: it has "
            r"dimensions \('time', 'lon'\), but the stored one has \('time', 'lat'\)",
        ),
    ],
)
def test_an_overwrite_with_other_sizes_or_dimensions_is_refused_before_writing(change, refusal):
    store = MemoryStore()
    zx.to_zarr(climate(0, 4), store)
    before = snapshot(store)
    other = climate(5, 4, lats=2) if change == "sizes" else climate(5, 4).rename({"lat": "lon"})
    with pytest.raises(ValueError, match=refusal):
        zx.to_zarr(other, store, mode="a")  # no append_dim, no region: overwrite variables
    assert snapshot(store) == before


def two_variables(start: int, days: int) -> xr.Dataset:
    return climate(start, days).assign(pr=lambda d: d.tas * 2 + 1)


def _state(store) -> str:
    """'old', 'new', or what is wrong: every variable is read whole, as xarray reads it."""
    ds = xr.open_dataset(store, engine="zarrforge", consolidated=False).load()
    old, new = two_variables(0, 4), xr.concat([two_variables(0, 4), two_variables(4, 3)], "time")
    if ds.sizes["time"] == 4:
        xr.testing.assert_identical(ds[["tas", "pr"]], old[["tas", "pr"]])
        return "old"
    xr.testing.assert_identical(ds[["tas", "pr"]], new[["tas", "pr"]])
    return "new"


@pytest.mark.parametrize("conditional", [True, False], ids=["transaction", "one-by-one"])
def test_an_append_that_fails_at_any_store_write_leaves_every_variable_old_or_new(conditional):
    """The k-th store write of an append fails, for every k: the dataset reads entirely
    as before or entirely as after (the new rows are written first, the longer shapes
    committed last: in one transaction on a store with conditional writes, else one by
    one, put back if a later one fails), and the append run again gives the appended
    dataset."""
    from zarrforge.testing.faults import Fail, FaultyStore, on

    def fresh():
        store = MemoryStore()
        zx.to_zarr(two_variables(0, 4), store, encoding={v: {"chunks": (2, 3)} for v in ("tas", "pr")})
        return store

    counting = FaultyStore(fresh(), conditional=conditional)
    zx.to_zarr(two_variables(4, 3), counting, append_dim="time")
    writes = sum(c.method in ("set", "delete") for c in counting.calls)
    assert writes >= 6
    outcomes = []
    for k in range(1, writes + 1):
        inner = fresh()
        faulty = FaultyStore(inner, conditional=conditional)
        faulty.add(on(("set", "delete"), nth=k), Fail(), times=1)
        try:
            zx.to_zarr(two_variables(4, 3), faulty, append_dim="time")
            outcomes.append("no failure")  # a write the clean run made, not made this time
        except zf.errors.ZarrforgeError:
            outcomes.append(_state(inner))
            if outcomes[-1] == "old":
                zx.to_zarr(two_variables(4, 3), inner, append_dim="time")
            assert _state(inner) == "new", f"k={k}: the retry"
    assert "old" in outcomes


def test_a_datatree_write_that_fails_at_a_later_node_leaves_nothing():
    """The root and the first child are written, the third node's encoding names no codec:
    the whole tree is taken back out, and the same call (fixed) then succeeds."""
    store = MemoryStore()
    store.set("notes.txt", b"kept")
    ds = climate(0, 2)
    tree = xr.DataTree.from_dict({"/": ds, "/obs": ds, "/obs/deep": ds})
    bad = {"/obs/deep": {"tas": {"compressors": [{"name": "no.such.codec"}]}}}
    with pytest.raises(zf.errors.ZarrforgeError):
        tree.zarrforge.to_zarr(store, encoding=bad)
    assert snapshot(store) == {"notes.txt": b"kept"}
    tree.zarrforge.to_zarr(store)
    assert zf.open_group(store, "obs/deep")["tas"].shape == (2, 3)


def _fail_at_every_write(fresh, write):
    """``(k, inner store, error or None)`` for every k, the k-th store write of ``write``
    failing on a fresh store (``fresh()``); ``None`` where that run made fewer writes."""
    from zarrforge.testing.faults import Fail, FaultyStore, on

    counting = FaultyStore(fresh())
    write(counting)
    writes = sum(c.method in ("set", "delete") for c in counting.calls)
    assert writes >= 4
    for k in range(1, writes + 1):
        inner = fresh()
        faulty = FaultyStore(inner)
        faulty.add(on(("set", "delete"), nth=k), Fail(), times=1)
        try:
            write(faulty)
        except zf.errors.ZarrforgeError as exc:
            yield k, inner, exc
        else:
            yield k, inner, None


def test_a_new_dataset_or_datatree_that_fails_at_any_store_write_leaves_the_store_as_it_was():
    """For every k: the k-th store write of a first write fails (a Dataset with dask
    chunks, and a DataTree of three nodes); the store holds exactly what it held before
    (here one unrelated key), and the same call then writes the whole dataset."""
    ds = two_variables(0, 6).chunk({"time": 2})
    tree = xr.DataTree.from_dict({"/": climate(0, 2), "/obs": climate(0, 2), "/obs/deep": climate(0, 2)})

    def fresh():
        store = MemoryStore()
        store.set("notes.txt", b"kept")
        return store

    writes = {
        "Dataset": lambda store: zx.to_zarr(ds, store, encoding={"tas": {"chunks": (2, 3)}}),
        "DataTree": lambda store: tree.zarrforge.to_zarr(store),
    }
    for name, write in writes.items():
        failures = 0
        for k, inner, error in _fail_at_every_write(fresh, write):
            if error is None:
                continue
            failures += 1
            assert snapshot(inner) == {"notes.txt": b"kept"}, f"{name}, k={k}"
            write(inner)
            if name == "Dataset":
                xr.testing.assert_identical(xr.open_dataset(inner, engine="zarrforge").load(), ds.compute())
            else:
                assert xr.open_datatree(inner, engine="zarrforge").load().identical(tree)
        assert failures >= 4, name


def test_a_region_write_that_fails_at_any_store_write_leaves_each_chunk_old_or_new():
    """For every k: the k-th store write of a region write fails. Every chunk of each
    variable holds its old values or its new ones, whole (a store without transactions
    can promise no more for a region), and the region written again gives the result."""
    old = two_variables(0, 6)

    def fresh():
        store = MemoryStore()
        zx.to_zarr(old, store, encoding={v: {"chunks": (2, 3)} for v in ("tas", "pr")})
        return store

    new = (old.isel(time=slice(2, 6)) * 0 + 7).drop_vars(["time", "lat"])

    def write(store):
        zx.to_zarr(new, store, region={"time": slice(2, 6)})

    mixed = 0
    for k, inner, _error in _fail_at_every_write(fresh, write):
        group = zf.open_group(inner, mode="r")
        kinds = set()
        for name in ("tas", "pr"):
            values, before = group[name][...], old[name].values
            for t in range(0, 6, 2):
                chunk, was = values[t : t + 2], before[t : t + 2]
                if np.array_equal(chunk, was):
                    kinds.add("old")
                elif t >= 2 and (chunk == 7).all():
                    kinds.add("new")
                else:
                    raise AssertionError(f"k={k}: {name} chunk at time {t} is torn: {chunk}")
        mixed += kinds == {"old", "new"}
        write(inner)
        assert all((zf.open_group(inner)[name][2:] == 7).all() for name in ("tas", "pr"))
    assert mixed, "no failure fell between two chunks"


@pytest.mark.parametrize("region", [False, True], ids=["mode a", "region in mode a"])
def test_a_failed_addition_of_a_variable_takes_it_out_again(region):
    """Before (issue #44): a ``mode="a"`` write of a new variable whose dask compute failed
    halfway left the partial variable in the group and its consolidated view."""
    import dask
    import dask.array as da

    store = MemoryStore()
    old = xr.Dataset({"tas": (("time", "lat"), np.arange(16.0).reshape(4, 4))}, coords={"time": np.arange(4)})
    zx.to_zarr(old, store)

    def halfway(block, block_info=None):
        if block_info[0]["chunk-location"][0] == 1:
            raise RuntimeError("the compute failed halfway")
        return block

    wind = da.ones((4, 4), chunks=(2, 4)).map_blocks(halfway, dtype=float)
    new = xr.Dataset({"wind": (("time", "lat"), wind)}, coords={"time": np.arange(4)})
    options = {"region": {"time": slice(0, 4)}} if region else {}
    with dask.config.set(scheduler="synchronous"), pytest.raises(RuntimeError, match="halfway"):
        zx.to_zarr(new, store, mode="a", **options)
    assert not [key for key in store.list() if key.startswith("wind/")]
    assert zf.unfinished_write(store) is None
    for consolidated in (None, False):
        assert xr.open_dataset(store, engine="zarrforge", consolidated=consolidated).load().identical(old)
    again = xr.Dataset({"wind": (("time", "lat"), np.full((4, 4), 2.0))}, coords={"time": np.arange(4)})
    zx.to_zarr(again, store, mode="a", **options)
    assert (xr.open_dataset(store, engine="zarrforge")["wind"].values == 2).all()
