"""zarrforge.array-statistics: what the numbers mean, and keeping them right under concurrency."""

from __future__ import annotations

import json
import multiprocessing
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import zarrforge as zf
import zarrforge_extensions as zfx
from zarrforge.abc.store import WrapperStore
from zarrforge.errors import MetadataError, ReadOnlyError
from zarrforge.metadata.extension_entries import raw_extension_entries
from zarrforge_extensions.array_statistics import (
    MAX_ATTEMPTS,
    NAME,
    ArrayStatistics,
    Statistics,
    StatisticsUpdateError,
    UnsupportedDataTypeError,
)

sys.path.insert(0, str(Path(__file__).parent))
import _stats_worker  # importable by name in spawned processes


def stats_array(store=None, *, shape=(8,), chunks=(4,), dtype="int32", **options):
    a = zf.create_array(store, shape=shape, dtype=dtype, chunks=chunks, **options)
    zfx.enable_statistics(a)
    return a


def stored_entry(store, key="zarr.json"):
    return next(e.value for e in raw_extension_entries(json.loads(store.get(key))) if e.value["name"] == NAME)


# --- enabling ---------------------------------------------------------------------------


def test_enabling_writes_an_empty_entry_with_must_understand_false():
    a = stats_array()
    assert zfx.statistics(a) == Statistics(None, None, 0)
    assert stored_entry(a.store) == {
        "name": NAME,
        "must_understand": False,
        "configuration": {"min": None, "max": None, "count": 0},
    }
    assert isinstance(a.get_extension(NAME), ArrayStatistics)
    # a top-level key, which zarr-python and tensorstore open (the list they refuse)
    document = json.loads(a.store.get("zarr.json"))
    assert document[NAME] == stored_entry(a.store) and "extensions" not in document


@pytest.mark.parametrize("dtype", ["bool", "complex64", "r16", "string"])
def test_other_data_types_are_refused_when_enabling(dtype):
    a = zf.create_array(None, shape=(2,), dtype=dtype)
    with pytest.raises(UnsupportedDataTypeError, match="supports integer and float data types"):
        zfx.enable_statistics(a)
    assert a.get_extension(NAME) is None


def test_enabling_needs_a_writable_array():
    a = zf.create_array(None, shape=(2,), dtype="int8")
    with pytest.raises(ReadOnlyError):
        zfx.enable_statistics(zf.open_array(a.store, mode="r"))


def test_enabling_twice_keeps_the_statistics_unless_reset():
    a = stats_array()
    a[:2] = [3, 4]
    assert zfx.enable_statistics(a) == Statistics(3, 4, 2)
    assert zfx.enable_statistics(a, reset=True) == Statistics(None, None, 0)


def test_scan_starts_from_the_stored_values():
    a = zf.create_array(None, shape=(5,), dtype="float32", chunks=(2,), fill_value=0)
    a[0:2] = [-4, 1]
    a[4] = 9.5  # the last chunk's padding beyond the array is not scanned
    assert zfx.enable_statistics(a, scan=True) == Statistics(-4.0, 9.5, 0)


def test_must_understand_true_on_request_is_written_explicitly_in_the_list():
    a = zf.create_array(None, shape=(2,), dtype="int8")
    zfx.enable_statistics(a, must_understand=True)
    document = json.loads(a.store.get("zarr.json"))
    assert document["extensions"][0]["must_understand"] is True and NAME not in document
    a[:] = [1, 2]  # each update rewrites the entry: the explicit true stays
    assert json.loads(a.store.get("zarr.json"))["extensions"][0]["must_understand"] is True
    assert zfx.statistics(a) == Statistics(1, 2, 2)


# --- what the numbers mean --------------------------------------------------------------


def test_sequential_writes_and_overwrites():
    a = stats_array(shape=(4, 4), chunks=(2, 2), dtype="int16")
    a[0] = [1, 2, 3, 4]
    assert zfx.statistics(a) == Statistics(1, 4, 4)
    a[1:3, 1:3] = -8
    assert zfx.statistics(a) == Statistics(-8, 4, 8)
    a[:] = 0  # overwrites everything: the bounds stay, the count grows
    assert zfx.statistics(a) == Statistics(-8, 4, 24)
    a.oindex[[0, 3], [1]] = 100
    a.vindex[[0, 0, 1], [0, 0, 0]] = [5, 6, 7]  # duplicate points count once each
    a.vindex[a[:] == 0] = 2
    a.blocks[1, 1] = 50
    zero_count = 16 - 2 - 2  # after the two point writes
    assert zfx.statistics(a) == Statistics(-8, 100, 24 + 2 + 3 + zero_count + 4)


def test_nan_is_ignored_and_infinities_are_spelled_as_strings():
    a = stats_array(dtype="float64")
    a[:2] = np.nan
    assert zfx.statistics(a) == Statistics(None, None, 2)
    a[2:5] = [np.nan, -1.5, 2.25]
    assert zfx.statistics(a) == Statistics(-1.5, 2.25, 5)
    a[5] = np.inf
    a[6] = -np.inf
    assert zfx.statistics(a) == Statistics(-np.inf, np.inf, 7)
    assert stored_entry(a.store)["configuration"]["min"] == "-Infinity"
    assert zfx.statistics(zf.open_array(a.store)) == Statistics(-np.inf, np.inf, 7)


def test_integer_bounds_are_exact_for_uint64():
    a = stats_array(dtype="uint64")
    a[0] = 2**64 - 1
    a[1] = 2**63 + 1
    assert zfx.statistics(a) == Statistics(2**63 + 1, 2**64 - 1, 2)
    assert stored_entry(a.store)["configuration"]["max"] == 2**64 - 1


def test_empty_writes_change_nothing():
    a = stats_array()
    before = a.store.get("zarr.json")
    a[3:3] = 1
    assert a.store.get("zarr.json") == before


def test_readable_without_reading_chunks_and_from_another_handle():
    a = stats_array()
    a[:] = np.arange(8)
    reader = zf.open_array(a.store, mode="r")
    a[0] = -1  # written after the reader opened
    chunk_reads = []

    class Counting(WrapperStore):
        def get(self, key, byte_range=None):
            chunk_reads.append(key)
            return super().get(key, byte_range)

    counted = zf.open_array(Counting(a.store), mode="r")
    chunk_reads.clear()
    assert zfx.statistics(reader) == zfx.statistics(counted) == Statistics(-1, 7, 9)
    assert chunk_reads == ["zarr.json"]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(hnp.arrays(np.float32, st.integers(0, 6), elements=st.floats(width=32)), min_size=1, max_size=5)
)
def test_statistics_match_numpy_over_all_writes(writes):
    a = stats_array(shape=(6,), chunks=(4,), dtype="float32")
    for values in writes:
        a[: values.size] = values
    everything = np.concatenate(writes)
    finite = everything[~np.isnan(everything)]
    expected = (
        Statistics(float(finite.min()), float(finite.max()), everything.size)
        if finite.size
        else Statistics(None, None, everything.size)
    )
    assert zfx.statistics(a) == expected


def test_statistics_with_an_offset():
    a = zf.create_array(
        None,
        shape=(6,),
        dtype="int8",
        chunks=(2,),
        extensions=[{"name": "zarrforge.offset", "configuration": {"offset": [3]}}],
    )
    zfx.enable_statistics(a)
    a[-3:0] = [7, -7, 1]
    assert zfx.statistics(a) == Statistics(-7, 7, 3)
    assert a.metadata["extensions"][0]["name"] == "zarrforge.offset"  # order kept


def test_other_metadata_is_kept_from_the_stored_document():
    a = stats_array()
    other = zf.open_array(a.store, mode="r+")
    other.attrs["written"] = "elsewhere"  # a's in-memory document is now stale
    a[0] = 1  # the statistics update must not undo it
    stored = json.loads(a.store.get("zarr.json"))
    assert stored["attributes"] == {"written": "elsewhere"}
    assert a.attrs["written"] == "elsewhere"  # and a now sees the stored document


# --- validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "configuration,field",
    [
        (None, "configuration"),
        ({"min": 1, "max": 0, "count": 1}, "configuration.min"),
        ({"min": 1, "max": None, "count": 1}, "configuration"),
        ({"min": None, "max": None, "count": -1}, "configuration.count"),
        ({"min": None, "max": None, "count": True}, "configuration.count"),
        ({"min": None, "max": None}, "configuration.count"),
        ({"min": "NaN", "max": 1, "count": 1}, "configuration.min"),
        ({"min": None, "max": None, "count": 0, "mean": 1}, "configuration"),
        ({"min": None, "max": None, "count": 0, "recent_updates": "x"}, "configuration.recent_updates"),
    ],
)
def test_bad_configurations_name_the_field(configuration, field):
    entry = {"name": NAME, "must_understand": False}
    if configuration is not None:
        entry["configuration"] = configuration
    with pytest.raises(MetadataError) as info:
        zf.create_array(None, shape=(2,), dtype="float32", extensions=[entry])
    assert info.value.field == f"extensions[0].{field}"


def test_entries_that_do_not_fit_the_array_are_refused_on_open():
    a = zf.create_array(None, shape=(2,), dtype="int8")
    document = json.loads(a.store.get("zarr.json"))
    for dtype_entry, configuration, message in [
        ("bool", {"min": None, "max": None, "count": 0}, "integer and float data types"),
        ("int8", {"min": 0.5, "max": 1, "count": 1}, "min must be an integer"),
    ]:
        document["data_type"] = dtype_entry
        document["fill_value"] = False if dtype_entry == "bool" else 0
        document["extensions"] = [{"name": NAME, "must_understand": False, "configuration": configuration}]
        a.store.set("zarr.json", json.dumps(document).encode())
        with pytest.raises(MetadataError, match=message) as info:
            zf.open_array(a.store)
        assert info.value.field.startswith("extensions[0].configuration")


# --- concurrency ------------------------------------------------------------------------


def _expected_rows(rows, width):
    values = np.concatenate([_stats_worker.row_values(r, width) for r in rows])
    return Statistics(int(values.min()), int(values.max()), values.size)


@pytest.mark.parametrize("where", ["memory", "local"])
def test_threads_writing_disjoint_chunks_through_one_array(tmp_path, where):
    store = None if where == "memory" else str(tmp_path / "a.zarr")
    rows, width = 32, 16
    a = stats_array(store, shape=(rows, width), chunks=(1, width), dtype="int64")
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda r: a.__setitem__(r, _stats_worker.row_values(r, width)), range(rows)))
    assert zfx.statistics(a) == _expected_rows(range(rows), width)
    assert np.array_equal(a[5], _stats_worker.row_values(5, width))


def test_threads_with_their_own_handles_on_one_local_array(tmp_path):
    path = str(tmp_path / "a.zarr")
    rows, width = 24, 8
    stats_array(path, shape=(rows, width), chunks=(1, width), dtype="int64")

    def write(r):
        zf.open_array(path, mode="r+")[r] = _stats_worker.row_values(r, width)

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(write, range(rows)))
    assert zfx.statistics(zf.open_array(path)) == _expected_rows(range(rows), width)


def test_two_processes_writing_disjoint_chunks_of_one_local_array(tmp_path):
    path = str(tmp_path / "a.zarr")
    rows, width = 40, 8
    stats_array(path, shape=(rows, width), chunks=(1, width), dtype="int64")
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [
        context.Process(target=_stats_worker.write_rows, args=(path, part, start))
        for part in (list(range(0, rows, 2)), list(range(1, rows, 2)))
    ]
    for w in workers:
        w.start()
    start.set()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    a = zf.open_array(path)
    assert zfx.statistics(a) == _expected_rows(range(rows), width)
    assert np.array_equal(a[7], _stats_worker.row_values(7, width))


class RacingStore(WrapperStore):
    """Simulates writers elsewhere: right after zarrforge writes ``zarr.json``, a writer that
    read the document *before* that write replaces it with its own update (count + 10)."""

    def __init__(self, inner, races):
        super().__init__(inner)
        self.races = races

    def _set(self, key, value):
        before = self.inner.get(key)
        self.inner.set(key, value)
        if key == "zarr.json" and self.races and NAME in value.decode():
            self.races -= 1
            document = json.loads(before)
            entry = next(e.value for e in raw_extension_entries(document) if e.value["name"] == NAME)
            configuration = entry["configuration"]
            configuration["count"] += 10
            configuration["min"] = -1000 if configuration["min"] is None else min(-1000, configuration["min"])
            configuration["max"] = 0 if configuration["max"] is None else max(0, configuration["max"])
            configuration["recent_updates"] = [*configuration.get("recent_updates", []), "elsewhere"]
            self.inner.set(key, json.dumps(document).encode())


def test_an_update_replaced_by_a_concurrent_writer_is_merged_again():
    from zarrforge_std.stores.memory import MemoryStore

    racing = RacingStore(MemoryStore(), races=0)
    a = stats_array(racing)
    racing.races = 3  # the next three statistics updates are each replaced once
    a[0:3] = [5, 6, 7]
    assert zfx.statistics(a) == Statistics(-1000, 7, 3 + 3 * 10)


def test_bounded_retries_then_a_clear_error():
    from zarrforge_std.stores.memory import MemoryStore

    racing = RacingStore(MemoryStore(), races=0)
    a = stats_array(racing)
    racing.races = MAX_ATTEMPTS
    with pytest.raises(StatisticsUpdateError, match="the data was written"):
        a[0] = 1
    assert a[0] == 1


def test_offset_reads_and_writes_while_statistics_updates_replace_the_metadata():
    # Every statistics update swaps the array's in-memory metadata for the stored one;
    # concurrent selections through zarrforge.offset must keep working meanwhile.
    rows, width = 24, 4
    a = zf.create_array(
        None,
        shape=(rows, width),
        dtype="int64",
        chunks=(1, width),
        extensions=[{"name": "zarrforge.offset", "configuration": {"offset": [5, 0]}}],
    )
    zfx.enable_statistics(a)

    def work(r):
        a[r - 5] = _stats_worker.row_values(r, width)
        return a[r - 5].tolist(), a[-5:].shape

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(rows)))
    assert all(
        row == _stats_worker.row_values(r, width).tolist() and shape == (rows, width)
        for r, (row, shape) in enumerate(results)
    )
    assert zfx.statistics(a) == _expected_rows(range(rows), width)
