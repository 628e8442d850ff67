"""xarray's asynchronous loading (``Dataset.load_async``) on engine="zarrforge" (issue #33):
the values of a blocking load, the variables read at once, reads of one variable gathered
into one batch, and no store request on the event loop's thread.

pytest-asyncio is not a dependency: each test drives its coroutine with ``asyncio.run``.
Concurrency is proven by counting requests in flight in a store wrapper, never by timing.
"""

from __future__ import annotations

import asyncio
import pickle
import threading
import time
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import zarrforge as zf
import zarrforge_xarray as zx
from zarrforge.abc.store import WrapperStore
from zarrforge.hierarchy_api import resolve_store
from zarrforge_xarray import ZarrforgeArray

pytestmark = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::RuntimeWarning"
)

METADATA_KEYS = {"zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"}


def make_dataset() -> xr.Dataset:
    """Variables of every kind CF decoding wraps lazily: masked, packed, times, strings, 0-d."""
    rng = np.random.default_rng(1)
    temperature = rng.normal(280, 5, size=(6, 4, 5)).astype("float32")
    temperature[0, 0, 0] = np.nan
    ds = xr.Dataset(
        {
            "temperature": (("time", "y", "x"), temperature, {"units": "K"}),
            "counts": (("y",), np.array([1, -1, 3, 4], dtype="int16")),
            "packed": (("y", "x"), rng.uniform(0, 10, size=(4, 5)).round(2)),
            "flag": (("x",), np.array([True, False, True, True, False])),
            "label": (("x",), np.array(["a", "bb", "ccc", "dddd", ""], dtype=object)),
            "scalar": ((), np.float64(3.5)),
            "duration": (("time",), pd.to_timedelta(np.arange(6), unit="h").values),
        },
        coords={
            "time": pd.date_range("2021-03-01", periods=6, freq="6h"),
            "y": np.linspace(-30.0, 30.0, 4),
            "x": np.arange(5, dtype="int32"),
            "lat2d": (("y", "x"), rng.uniform(-90, 90, size=(4, 5))),
        },
        attrs={"title": "async"},
    )
    ds["counts"].encoding.update({"_FillValue": -1})
    ds["packed"].encoding.update({"dtype": "int16", "scale_factor": 0.01, "_FillValue": -9999})
    ds["temperature"].encoding.update({"chunks": (1, 4, 5)})
    return ds


def lazy_names(ds: xr.Dataset) -> set[Hashable]:
    """The variables a load reads from the store (index coordinates are read on opening)."""
    return {name for name, variable in ds.variables.items() if name not in ds.indexes}


class Overlapping(WrapperStore):
    """Holds each chunk request, once armed, until requests of ``want`` variables (the first
    path segment of their keys) have been in flight together, or ``deadline`` has passed (so
    that reads made one after another fail the test instead of waiting for ever). Records the
    most variables in flight at once, the ``get_many`` batches per variable and the
    threads every request ran on."""

    forwards_conditional_writes = True

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.condition = threading.Condition()
        self.armed = False
        self.want = 0
        self.deadline = 0.0
        self.in_flight: dict[str, int] = {}
        self.most_variables = 0
        self.batches: dict[str, list[int]] = {}
        self.threads: set[int] = set()

    def arm(self, want: int) -> None:
        with self.condition:
            self.armed, self.want, self.deadline = True, want, time.monotonic() + 30
            self.most_variables = 0
            self.threads.clear()
            self.batches.clear()

    def disarm(self) -> None:
        with self.condition:
            self.armed = False

    def _held(self, keys: list[str], call: Any) -> Any:
        chunks = [k for k in keys if k.rpartition("/")[2] not in METADATA_KEYS]
        with self.condition:
            self.threads.add(threading.get_ident())
            if not (self.armed and chunks):
                variables: list[str] = []
            else:
                variables = sorted({k.partition("/")[0] for k in chunks})
                for name in variables:
                    self.batches.setdefault(name, []).append(sum(k.partition("/")[0] == name for k in chunks))
                    self.in_flight[name] = self.in_flight.get(name, 0) + 1
                self.most_variables = max(self.most_variables, len(self.in_flight))
                self.condition.notify_all()
                while self.most_variables < self.want and time.monotonic() < self.deadline:
                    self.condition.wait(self.deadline - time.monotonic())
        try:
            return call()
        finally:
            with self.condition:
                for name in variables:
                    self.in_flight[name] -= 1
                    if not self.in_flight[name]:
                        del self.in_flight[name]

    def get(self, key, byte_range=None):
        return self._held([key], lambda: self.inner.get(key, byte_range))

    def get_many(self, requests):
        requests = list(requests)
        return self._held([key for key, _ in requests], lambda: self.inner.get_many(requests))


def written(ds: xr.Dataset) -> Overlapping:
    store = Overlapping(resolve_store("memory://"))
    zx.to_zarr(ds, store)
    return store


def test_load_async_returns_the_values_of_load():
    ds = make_dataset()
    store = written(ds)
    blocking = xr.open_dataset(store, engine="zarrforge").load()

    async def main():
        opened = xr.open_dataset(store, engine="zarrforge")
        whole = await opened.load_async()
        array = await opened["temperature"].isel(time=slice(1, 4)).load_async()
        outer = await opened.isel(x=[4, 0, 2], time=[5, 1]).load_async()
        points = (
            await opened["lat2d"]
            .isel(y=xr.DataArray([0, 3, 1], dims="p"), x=xr.DataArray([4, 0, 2], dims="p"))
            .load_async()
        )
        return whole, array, outer, points

    whole, array, outer, points = asyncio.run(main())
    xr.testing.assert_identical(whole, blocking)
    xr.testing.assert_identical(array, blocking["temperature"].isel(time=slice(1, 4)))
    xr.testing.assert_identical(outer, blocking.isel(x=[4, 0, 2], time=[5, 1]))
    np.testing.assert_array_equal(points.values, ds["lat2d"].values[[0, 3, 1], [4, 0, 2]])
    assert whole["label"].values.tolist() == ["a", "bb", "ccc", "dddd", ""]
    assert np.isnan(whole["counts"].values[1]) and whole["scalar"].values == 3.5


def test_variables_are_read_at_once_and_nothing_on_the_event_loop_thread():
    store = written(make_dataset())
    opened = xr.open_dataset(store, engine="zarrforge")
    names = lazy_names(opened)
    assert len(names) == 8
    store.arm(want=len(names))

    async def main():
        loaded = await opened.load_async()
        return threading.get_ident(), loaded

    loop_thread, loaded = asyncio.run(main())
    store.disarm()
    # every variable's chunk request was in flight at the same time as all the others' ...
    assert store.most_variables == len(names)
    assert set(store.batches) == names
    # ... and none of them, nor any other store request, ran on the loop's thread
    assert store.threads and loop_thread not in store.threads
    xr.testing.assert_identical(loaded, xr.open_dataset(store, engine="zarrforge").load())


def test_reads_of_one_variable_asked_for_together_reach_the_store_as_one_batch():
    ds = make_dataset()
    store = written(ds)
    opened = xr.open_dataset(store, engine="zarrforge")
    store.arm(want=0)

    async def main():
        return await asyncio.gather(*(opened["temperature"].isel(time=i).load_async() for i in range(6)))

    steps = asyncio.run(main())
    # six reads of one chunk each, from six coroutines: one get_many of six keys
    assert store.batches["temperature"] == [6]
    for i, step in enumerate(steps):
        np.testing.assert_array_equal(step.values, ds["temperature"].values[i])


def test_a_backend_array_pickles_after_an_asynchronous_read(tmp_path):
    ds = make_dataset()[["temperature"]]
    zx.to_zarr(ds, str(tmp_path / "a.zarr"))
    backend = ZarrforgeArray(zf.open_array(str(tmp_path / "a.zarr"), "temperature", mode="r"))
    key = xr.core.indexing.BasicIndexer((2, slice(None), slice(0, 3)))
    first = asyncio.run(backend.async_getitem(key))
    again = pickle.loads(pickle.dumps(backend))
    np.testing.assert_array_equal(first, ds["temperature"].values[2, :, :3])
    np.testing.assert_array_equal(asyncio.run(again.async_getitem(key)), first)
    np.testing.assert_array_equal(again[key], first)
