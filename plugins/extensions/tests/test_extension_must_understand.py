"""The must_understand rows of the two extensions, and how they are installed.

A reader *without* this plugin is simulated by renaming the entry in a copy of
the document to a name nothing provides: installed entry points cannot be
unregistered in-process, and to zarrforge an uninstalled name and an unknown
name are the same thing.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
import zarrforge_extensions as zfx
from zarrforge.abc.metadata import UnknownExtension
from zarrforge.errors import UnknownExtensionError
from zarrforge.metadata.extension_entries import raw_extension_entries
from zarrforge_extensions.array_statistics import ArrayStatistics, Statistics
from zarrforge_extensions.offset import Offset

OFFSET = "zarrforge.offset"
STATISTICS = "zarrforge.array-statistics"


def copy_without_plugin(store, rename):
    """A copy of the store whose documents name ``rename``'s keys as its values."""
    from zarrforge_std.stores.memory import MemoryStore

    copy = MemoryStore()
    for key in store.list():
        value = store.get(key)
        if key.endswith("zarr.json"):
            document = json.loads(value)
            for entry in raw_extension_entries(document):
                name = entry.value if isinstance(entry.value, str) else entry.value["name"]
                if name not in rename:
                    continue
                if entry.placement == "top-level":  # the key is the name: rename both
                    del document[name]
                    document[rename[name]] = {**entry.value, "name": rename[name]}
                elif isinstance(entry.value, str):
                    document["extensions"][document["extensions"].index(name)] = rename[name]
                else:
                    entry.value["name"] = rename[name]
            value = json.dumps(document).encode()
        copy.set(key, value)
    return copy


# --- installation ------------------------------------------------------------------------


def test_names_resolve_through_the_installed_entry_points():
    rows = {(r.name, r.distribution, r.value) for r in zf.registered()["extensions"]}
    assert (OFFSET, "zarrforge-extensions", "zarrforge_extensions.offset:Offset") in rows
    assert (
        STATISTICS,
        "zarrforge-extensions",
        "zarrforge_extensions.array_statistics:ArrayStatistics",
    ) in rows
    assert zf.registry.extensions.get(OFFSET) is Offset
    assert zf.registry.extensions.get(STATISTICS) is ArrayStatistics


def test_the_behaviour_needs_no_hook_plugin():
    report = zf.plugins()
    ours = [r for r in report if r.distribution == "zarrforge-extensions"]
    assert sorted(r.point for r in ours) == ["extensions", "extensions"]
    assert all(r.status == "ok" for r in ours)


@pytest.mark.parametrize(
    "document",
    [
        {"name": OFFSET, "configuration": {"offset": [3, -1]}},
        {
            "name": STATISTICS,
            "must_understand": False,
            "configuration": {"min": -1.5, "max": "Infinity", "count": 7, "recent_updates": ["a1"]},
        },
        {"name": STATISTICS, "configuration": {"min": None, "max": None, "count": 0}},
    ],
)
def test_to_json_rebuilds_an_equal_entry(document):
    a = zf.create_array(None, shape=(2, 2), dtype="float32", extensions=[document])
    assert [e.value for e in raw_extension_entries(a.metadata)] == [document]
    again = zf.open_array(a.store)
    assert again.extensions == a.extensions
    assert [e.value for e in raw_extension_entries(again.metadata)] == [document]


# --- zarrforge.offset: must be understood --------------------------------------------------


def offset_store():
    a = zf.create_array(
        None,
        shape=(4,),
        dtype="int8",
        chunks=(2,),
        fill_value=0,
        extensions=[{"name": OFFSET, "configuration": {"offset": [2]}}],
    )
    a[-2:2] = [1, 2, 3, 4]
    return a.store


def test_offset_array_opens_where_the_plugin_is_installed():
    a = zf.open_array(offset_store())
    assert isinstance(a.get_extension(OFFSET), Offset) and a[-2] == 1


@pytest.mark.parametrize("entry", [{"name": "elsewhere.offset"}, "elsewhere.offset"])
def test_offset_array_does_not_open_without_the_plugin(entry):
    store = offset_store()
    without = copy_without_plugin(store, {OFFSET: "elsewhere.offset"})
    if isinstance(entry, str):  # the short-hand form of the same (unknown) extension
        document = json.loads(without.get("zarr.json"))
        document["extensions"] = [entry]
        without.set("zarr.json", json.dumps(document).encode())
    with pytest.raises(UnknownExtensionError, match="unknown extension 'elsewhere.offset'") as info:
        zf.open_array(without)
    assert "extensions[0]" in str(info.value)


def test_offset_marked_must_understand_false_is_skipped_without_the_plugin():
    # Why the default is true: a reader that skips the entry reads stored indices.
    a = zf.create_array(
        None,
        shape=(4,),
        dtype="int8",
        fill_value=0,
        extensions=[{"name": OFFSET, "must_understand": False, "configuration": {"offset": [2]}}],
    )
    a[-2] = 9
    assert zf.open_array(a.store)[-2] == 9  # with the plugin: logical -2
    without = zf.open_array(copy_without_plugin(a.store, {OFFSET: "elsewhere.offset"}))
    assert isinstance(without.extensions[0], UnknownExtension)
    assert without[0] == 9 and without[-2] == 0  # stored indices, numpy's wrap


# --- zarrforge.array-statistics: may be skipped ------------------------------------------


def test_statistics_are_kept_by_a_reader_without_the_plugin_and_round_trip():
    a = zf.create_array(None, shape=(4,), dtype="int16", chunks=(2,), fill_value=0)
    zfx.enable_statistics(a)
    a[:] = [4, -2, 8, 1]
    without_store = copy_without_plugin(a.store, {STATISTICS: "elsewhere.array-statistics"})
    kept = json.loads(without_store.get("zarr.json"))["elsewhere.array-statistics"]  # top-level

    b = zf.open_array(without_store, mode="r+")
    assert isinstance(b.extensions[0], UnknownExtension)
    assert b[:].tolist() == [4, -2, 8, 1]
    b.attrs["touched"] = True  # rewrites the document
    b[0] = 100  # no statistics update here
    stored = json.loads(without_store.get("zarr.json"))
    assert stored["elsewhere.array-statistics"] == kept and stored["attributes"] == {"touched": True}

    # back with the plugin: the entry is intact, and stale (it does not know of 100)
    back = copy_without_plugin(without_store, {"elsewhere.array-statistics": STATISTICS})
    c = zf.open_array(back, mode="r+")
    assert zfx.statistics(c) == Statistics(-2, 8, 4)
    c[1] = -50
    assert zfx.statistics(c) == Statistics(-50, 8, 5)
    assert np.array_equal(c[:], [100, -50, 8, 1])


# --- table rows of docs/extensions.md that the core's tests do not cover yet ---------------


def _edit(store, **fields):
    document = json.loads(store.get("zarr.json"))
    document.update(fields)
    store.set("zarr.json", json.dumps(document).encode())


@pytest.mark.parametrize(
    "field,value",
    [
        (
            "chunk_key_encoding",
            {"name": "default", "must_understand": False, "configuration": {"separator": "/"}},
        ),
        ("storage_transformers", [{"name": "elsewhere.transformer", "must_understand": False}]),
    ],
)
def test_must_understand_false_is_refused_for_key_encodings_and_storage_transformers(field, value):
    a = zf.create_array(None, shape=(2,), dtype="int8", compressors=None)
    _edit(a.store, **{field: value})
    with pytest.raises(zf.errors.MetadataError) as info:
        zf.open_array(a.store)
    assert info.value.field == (
        f"{field}.must_understand" if field == "chunk_key_encoding" else f"{field}[0].must_understand"
    )


def test_unknown_storage_transformers_are_refused():
    a = zf.create_array(None, shape=(2,), dtype="int8", compressors=None)
    _edit(a.store, storage_transformers=[{"name": "elsewhere.transformer"}])
    with pytest.raises(UnknownExtensionError, match="unknown storage transformer"):
        zf.open_array(a.store)
