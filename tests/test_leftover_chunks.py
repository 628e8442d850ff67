"""Chunks stored outside an array's shape (``zarrforge.leftover_chunks``,
``Format.chunks_outside_grid``): found in every format, removed without touching anything
inside the shape or any key that may be another node's."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge_std.stores.memory import MemoryStore

DATA = np.arange(40, dtype="i4").reshape(10, 4)


def _killed_append(store: MemoryStore, zarr_format: object, **options: object) -> zf.Array:
    """An array of shape (10, 4) whose append to 16 rows wrote its chunks and was killed
    before it committed the new shape (a staged resize never committed)."""
    a = zf.create_array(
        store, "g/a", shape=(10, 4), chunks=(2, 2), dtype="i4", zarr_format=zarr_format, **options
    )
    a[:] = DATA
    staged = a.stage_resize(16, 4)
    staged.array[10:] = 7
    return a


@pytest.mark.parametrize("zarr_format", [2, 3, "draft-2022"])
def test_a_killed_appends_chunks_are_found_and_removed_and_the_data_stays(zarr_format):
    store = MemoryStore()
    a = _killed_append(store, zarr_format)
    expected = sorted(a.chunk_key((row, col)) for row in (5, 6, 7) for col in (0, 1))
    inside = {a.chunk_key(c) for c in a.stored_chunks()}
    assert zf.leftover_chunks(store, "g/a") == expected
    assert zf.leftover_chunks(store, "g") == expected  # a group: every array below it
    assert zf.leftover_chunks(store, "g", remove=True) == expected
    assert not any(store.exists(key) for key in expected)
    assert all(store.exists(key) for key in inside) and len(inside) == 10
    np.testing.assert_array_equal(zf.open_array(store, "g/a", mode="r")[:], DATA)
    assert zf.leftover_chunks(store) == []


def test_sharded_arrays_name_their_shards_and_keep_the_edge_shard():
    store = MemoryStore()
    _killed_append(store, 3, shards=(4, 4))  # shards of 4 rows: shard 2 holds rows 8, 9
    assert zf.leftover_chunks(store, "g/a") == ["g/a/c/3/0"]
    zf.leftover_chunks(store, "g/a", remove=True)
    assert sorted(store.list_prefix("g/a/c/")) == ["g/a/c/0/0", "g/a/c/1/0", "g/a/c/2/0"]
    np.testing.assert_array_equal(zf.open_array(store, "g/a", mode="r")[:], DATA)


def test_a_directory_holding_another_nodes_keys_is_kept():
    """Zarr allows no node below an array, but if one is there its chunks (which spell like
    the array's own outside its grid) are not the array's to remove."""
    store = MemoryStore()
    a = zf.create_array(
        store,
        "a",
        shape=(2, 1),
        chunks=(1, 1),
        dtype="i4",
        zarr_format=2,
        chunk_key_encoding={"name": "v2", "separator": "/"},
    )
    a[:] = 1
    elsewhere = MemoryStore()  # zarrforge refuses to create it there: put its keys there
    zf.create_array(
        elsewhere,
        "",
        shape=(1,),
        chunks=(1,),
        dtype="i4",
        zarr_format=2,
        chunk_key_encoding={"name": "v2", "separator": "/"},
    )[:] = 2
    for key in elsewhere.list_prefix(""):
        store.set(f"a/5/{key}", elsewhere.get(key))  # its chunk "a/5/0" spells chunk (5, 0) of a
    store.set("a/7/0", b"left over")
    assert store.exists("a/5/0") and store.exists("a/5/.zarray")
    assert zf.leftover_chunks(store, "a", remove=True) == ["a/7/0"]
    assert store.exists("a/5/0") and store.exists("a/5/.zarray") and not store.exists("a/7/0")


def test_the_arrays_own_document_is_read_not_a_stale_consolidated_view():
    store = MemoryStore()
    _killed_append(store, 3)
    zf.consolidate_metadata(store)  # the view says (10, 4)
    document = json.loads(store.get("g/a/zarr.json"))
    document["shape"] = [16, 4]  # the array's own document, changed behind the view's back
    store.set("g/a/zarr.json", json.dumps(document).encode())
    assert zf.leftover_chunks(store) == []
    assert zf.leftover_chunks(store, remove=True) == []
    assert (zf.open_array(store, "g/a", mode="r", use_consolidated=False)[10:] == 7).all()


def test_the_shape_is_read_again_before_anything_is_removed():
    store = MemoryStore()
    _killed_append(store, 3)
    stale = zf.open_array(store, "g/a", mode="r+")
    grown = zf.open_array(store, "g/a", mode="r+")
    grown.resize(16, 4)  # another handle commits the growth ...
    grown[10:] = 7  # ... and writes the new rows
    from zarrforge.user_api.leftover_chunks import remove_outside_shape

    assert remove_outside_shape(stale) == []
    assert (zf.open_array(store, "g/a", mode="r")[10:] == 7).all()
