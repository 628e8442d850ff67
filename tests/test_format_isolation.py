"""A hierarchy never mixes formats: creation refuses to put one format's node
where, or below where, another format's node exists."""

from __future__ import annotations

import pytest

import zarrforge as zf
from zarrforge.errors import ContainsNodeError, NodeTypeError
from zarrforge_std.stores.memory import MemoryStore


def test_a_v2_array_is_not_created_over_a_v3_array():
    store = MemoryStore()
    zf.create_array(store, "a", shape=(2,), dtype="int8")
    before = dict(store._data)
    with pytest.raises(ContainsNodeError, match="of Zarr 3 already exists at '/a'"):
        zf.create_array(store, "a", shape=(2,), dtype="int8", zarr_format=2)
    assert store._data == before


def test_a_v2_node_is_not_created_below_a_v3_group():
    store = MemoryStore()
    zf.create_group(store)
    before = dict(store._data)
    with pytest.raises(NodeTypeError, match="under the Zarr 3 node '/'"):
        zf.create_array(store, "x", shape=(2,), dtype="int8", zarr_format=2)
    assert store._data == before


def test_overwrite_replaces_a_node_of_another_format_entirely():
    v3 = MemoryStore()
    zf.create_array(v3, shape=(4,), dtype="int8")[:] = 1
    zf.create_array(v3, shape=(2,), dtype="int8", zarr_format=2, overwrite=True)
    assert sorted(v3._data) == [".zarray", ".zattrs"]
    assert zf.open_array(v3).metadata_model.format_name == "2"
