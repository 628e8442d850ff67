"""``Array.append`` and ``Array.resize`` happen whole or not at all.

Each call is run once to count its store writes (sets and deletes), then once for
every k with the k-th write failing. Afterwards the array opens and holds either the
state before (old shape, old values) or the state after (new shape, new values), and
never shows data that was not written: a grow to the new shape reads the fill value
wherever the failed call left something beyond the committed shape. Running the call
again gives the correct result. Every format, sharded and not; memory and local stores.
"""

from __future__ import annotations

import numpy as np
import pytest
from _reliability import LAYOUTS, create, generation_values

import zarrforge
from zarrforge.errors import StoreError
from zarrforge.testing.faults import Fail, FaultyStore, on
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

SHAPE, CHUNKS = (8, 12), (2, 3)
OLD = generation_values(SHAPE, CHUNKS, 0)
EXTRA = generation_values((3, 12), CHUNKS, 1)  # three rows: one whole chunk row, one part
APPENDED = np.concatenate([OLD, EXTRA])
WRITES = ("set", "delete")


@pytest.fixture(params=["memory", "local"])
def new_store(request, tmp_path):
    counter = iter(range(10_000))

    def make():
        if request.param == "memory":
            return MemoryStore()
        return LocalStore(tmp_path / f"s{next(counter)}")

    return make


def _array(store, layout):
    array = create(store, layout, shape=SHAPE, chunks=CHUNKS)
    array[...] = OLD
    return array


def _with_leftovers(store, layout):
    """The array as a killed or failed append leaves it: chunks written beyond its shape."""
    array = _array(store, layout)
    array._with_shape(APPENDED.shape)[SHAPE[0] :] = EXTRA  # the shape never committed
    return array


def _writes(store, layout, call, prepare=_array) -> int:
    inner = store
    prepare(inner, layout)
    counting = FaultyStore(inner)
    call(zarrforge.open_array(counting, "a", mode="r+"))
    return sum(c.method in WRITES for c in counting.calls)


def _after_each_failure(new_store, layout, call, prepare=_array):
    """``(k, store)`` for every k, after ``call`` failed at its k-th write to ``store``."""
    writes = _writes(new_store(), layout, call, prepare)
    assert writes >= 3
    for k in range(1, writes + 1):
        store = new_store()
        prepare(store, layout)
        faulty = FaultyStore(store)
        faulty.add(on(WRITES, nth=k), Fail(), times=1)
        with pytest.raises(StoreError):
            call(zarrforge.open_array(faulty, "a", mode="r+"))
        yield k, store


def _no_stale_data_beyond(store, shape, values) -> None:
    """Growing the array to ``shape`` shows ``values`` where it has them, else the fill."""
    array = zarrforge.open_array(store, "a", mode="r+")
    array.resize(shape)
    read = array[...]
    region = tuple(slice(0, n) for n in values.shape)
    assert np.array_equal(read[region], values)
    rest = read.copy()
    rest[region] = 0
    assert not np.any(rest), "data that was not written shows in the grown region"


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_append_is_whole_or_not_at_all(new_store, layout):
    outcomes = set()
    for k, store in _after_each_failure(new_store, layout, lambda array: array.append(EXTRA)):
        array = zarrforge.open_array(store, "a", mode="r+")
        if array.shape == SHAPE:
            assert np.array_equal(array[...], OLD), f"k={k}"
            outcomes.add("old")
            _no_stale_data_beyond(store, APPENDED.shape, OLD)
            array = zarrforge.open_array(store, "a", mode="r+")
            array.resize(SHAPE)
        else:
            assert array.shape == APPENDED.shape and np.array_equal(array[...], APPENDED), f"k={k}"
            outcomes.add("new")
            array.resize(SHAPE)
        zarrforge.open_array(store, "a", mode="r+").append(EXTRA)
        assert np.array_equal(zarrforge.open_array(store, "a")[...], APPENDED), f"k={k}"
    assert "old" in outcomes


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_shrink_keeps_old_or_new_and_never_resurrects_data(new_store, layout):
    shrink = lambda array: array.resize(5, 7)  # noqa: E731  # # edge chunks in both dimensions
    for k, store in _after_each_failure(new_store, layout, shrink):
        array = zarrforge.open_array(store, "a", mode="r+")
        if array.shape == SHAPE:
            assert np.array_equal(array[...], OLD), f"k={k}: the old shape lost data"
        else:
            assert array.shape == (5, 7) and np.array_equal(array[...], OLD[:5, :7]), f"k={k}"
            _no_stale_data_beyond(store, SHAPE, OLD[:5, :7])
        shrink(zarrforge.open_array(store, "a", mode="r+"))  # run again: correct
        again = zarrforge.open_array(store, "a")
        assert again.shape == (5, 7) and np.array_equal(again[...], OLD[:5, :7]), f"k={k}"
        _no_stale_data_beyond(store, SHAPE, OLD[:5, :7])


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_grow_over_leftovers_keeps_old_or_new_and_never_shows_them(new_store, layout):
    grow = lambda array: array.resize(APPENDED.shape)  # noqa: E731
    grown = np.zeros(APPENDED.shape, dtype=OLD.dtype)
    grown[: SHAPE[0]] = OLD
    outcomes = set()
    for k, store in _after_each_failure(new_store, layout, grow, prepare=_with_leftovers):
        array = zarrforge.open_array(store, "a", mode="r+")
        if array.shape == SHAPE:
            assert np.array_equal(array[...], OLD), f"k={k}"
            outcomes.add("old")
        else:
            assert array.shape == APPENDED.shape, f"k={k}"
            assert np.array_equal(array[...], grown), f"k={k}: leftovers show after the grow"
            outcomes.add("new")
        grow(zarrforge.open_array(store, "a", mode="r+"))  # run again: correct
        assert np.array_equal(zarrforge.open_array(store, "a")[...], grown), f"k={k}"
    assert "old" in outcomes


def test_a_grow_clears_what_a_killed_append_left_beyond_the_shape():
    """A process killed between writing an append's chunks and committing its shape leaves
    chunks beyond the shape; a plain grow later must show the fill value there."""
    store = MemoryStore()
    array = _array(store, "v3")
    grown = array._with_shape(APPENDED.shape)
    grown[SHAPE[0] :] = EXTRA  # the chunks, written; the shape never committed
    assert zarrforge.open_array(store, "a").shape == SHAPE
    _no_stale_data_beyond(store, APPENDED.shape, OLD)
