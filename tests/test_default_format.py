"""The default format is a setting (``config.default_format``), not a constant: new nodes
get it when nothing names a format, and detection asks it first."""

from __future__ import annotations

import pytest

import zarrforge as zf
from zarrforge.errors import UnknownExtensionError
from zarrforge.nodes.hierarchy import installed_formats
from zarrforge_std.stores.memory import MemoryStore


def test_new_nodes_get_the_configured_default_format():
    store, v3 = MemoryStore(), MemoryStore()
    with zf.config.set(default_format="2"):
        zf.create_group(store, "other")
        zf.create_array(store, "other/a", shape=(2,), dtype="i1")
        zf.open_group(store, "made", mode="a")
        assert installed_formats()[0] == "2"
    assert store.get("other/.zgroup") is not None and store.get("other/a/.zarray") is not None
    assert store.get("made/.zgroup") is not None
    assert zf.open_group(store, "other").metadata_model.format_name == "2"
    assert installed_formats()[0] == "3"
    zf.create_array(v3, "a", shape=(2,), dtype="i1")
    assert v3.get("a/zarr.json") is not None


def test_a_format_named_explicitly_wins_over_the_setting():
    store = MemoryStore()
    with zf.config.set(default_format=2):  # an int names the same format
        zf.create_array(store, "a", shape=(2,), dtype="i1", zarr_format=3)
    assert store.get("a/zarr.json") is not None


def test_an_unknown_default_format_is_refused_naming_the_field():
    with zf.config.set(default_format="no-such-format"):
        with pytest.raises(UnknownExtensionError) as info:
            zf.create_group(MemoryStore())
    assert info.value.field == "zarr_format"
    with pytest.raises(ValueError, match="config 'default_format' must name a format"):
        zf.config.update(default_format="")
