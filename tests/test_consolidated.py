"""Consolidated metadata: writing it, opening through it, keeping it correct."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import NodeNotFoundError
from zarrforge_std.stores.memory import MemoryStore


class CountingStore(MemoryStore):
    """A memory store that counts every request it serves."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.calls: list[tuple[str, object]] = []

    def get(self, key, byte_range=None):
        self.calls.append(("get", key))
        return super().get(key, byte_range)

    def get_many(self, requests):
        self.calls.append(("get_many", [k for k, _ in requests]))
        return [MemoryStore.get(self, k, r) for k, r in requests]

    def exists(self, key):
        self.calls.append(("exists", key))
        return super().exists(key)

    def list_prefix(self, prefix):
        self.calls.append(("list_prefix", prefix))
        return super().list_prefix(prefix)

    def list_dir(self, prefix):
        self.calls.append(("list_dir", prefix))
        return MemoryStore.list_dir(self, prefix)


def build(store):
    root = zf.create_group(store, attributes={"title": "t"})
    g = root.create_group("g", attributes={"k": 1})
    g.create_array("x", shape=(4,), dtype="int16", chunks=(2,))[:] = [1, 2, 3, 4]
    root.create_array("a", shape=(2, 2), dtype="float32", dimension_names=["y", None])
    return root


def stored(store, key="zarr.json"):
    return json.loads(store.get(key))


def test_consolidate_writes_every_node_document_under_flattened_paths():
    store = MemoryStore()
    build(store)
    zf.consolidate_metadata(store)
    cm = stored(store)["consolidated_metadata"]
    assert cm["kind"] == "inline" and cm["must_understand"] is False
    assert sorted(cm["metadata"]) == ["a", "g", "g/x"]
    for name in ("a", "g", "g/x"):
        assert cm["metadata"][name] == stored(store, f"{name}/zarr.json")


# An open reads the group's document, and in one batch the unfinished-write markers at and
# above it (zarrforge.storing.unfinished.warn_if_unfinished); members come from the view.
OPEN_READS = [("get", "zarr.json"), ("get_many", ["__zarrforge_unfinished.json"])]


def test_opening_a_thousand_arrays_through_consolidated_metadata_is_one_read():
    store = CountingStore()
    root = zf.create_group(store)
    for i in range(1000):
        zf.create_array(store, f"arr{i:04d}", shape=(3,), dtype="int8", attributes={"i": i}, compressors=None)
    zf.consolidate_metadata(store)
    store.calls.clear()
    g = zf.open_group(store, mode="r")
    members = g.members()
    attrs = {name: node.attrs["i"] for name, node in members}
    assert len(members) == 1000 and attrs["arr0999"] == 999
    assert all(isinstance(node, zf.Array) and node.shape == (3,) for _, node in members)
    assert store.calls == OPEN_READS
    del root


def test_nested_groups_open_from_the_view():
    store = CountingStore()
    build(store)
    zf.consolidate_metadata(store)
    store.calls.clear()
    g = zf.open_group(store, mode="r")
    assert [n for n, _ in g.members(max_depth=None)] == ["a", "g", "g/x"]
    assert g["g"].attrs["k"] == 1 and g["g/x"].shape == (4,)
    assert store.calls == OPEN_READS
    assert g["g"]["x"][:].tolist() == [1, 2, 3, 4]  # data still comes from the store


def test_changes_through_zarrforge_keep_the_stored_view_correct():
    store = MemoryStore()
    build(store)
    root = zf.consolidate_metadata(store)
    root["g"].attrs["k"] = 2
    root["a"].resize(5, 2)
    root["g"].create_array("new/deep", shape=(1,), dtype="uint8")
    zf.create_array(store, "b", shape=(2,), dtype="int8")  # through the API, not the group
    del root["g/x"]
    cm = stored(store)["consolidated_metadata"]["metadata"]
    assert sorted(cm) == ["a", "b", "g", "g/new", "g/new/deep"]
    for name in cm:
        assert cm[name] == stored(store, f"{name}/zarr.json"), name
    assert cm["g"]["attributes"] == {"k": 2} and cm["a"]["shape"] == [5, 2]


def test_changes_through_the_view_are_seen_by_the_same_group_object():
    store = MemoryStore()
    build(store)
    root = zf.consolidate_metadata(store)
    root["g/x"].attrs["units"] = "m"
    assert root["g/x"].attrs["units"] == "m"
    root.create_group("h")
    assert root.keys() == ["a", "g", "h"]
    del root["a"]
    assert root.keys() == ["g", "h"] and "a" not in root


def test_members_added_by_other_tools_are_found_by_name():
    store = MemoryStore()
    build(store)
    zf.consolidate_metadata(store)
    store.set("late/zarr.json", json.dumps({"zarr_format": 3, "node_type": "group"}).encode())
    g = zf.open_group(store, mode="r")
    assert "late" in g and isinstance(g["late"], zf.Group)
    assert "late" not in g.keys()  # listing trusts the view: documented staleness
    assert "late" in zf.open_group(store, mode="r", use_consolidated=False).keys()


def test_use_consolidated_true_requires_it():
    store = MemoryStore()
    build(store)
    with pytest.raises(NodeNotFoundError, match="consolidate_metadata"):
        zf.open_group(store, mode="r", use_consolidated=True)


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "inline", "metadata": {}},
        {"kind": "inline", "must_understand": False, "metadata": []},
        {
            "kind": "inline",
            "must_understand": False,
            "metadata": {"../x": {"zarr_format": 3, "node_type": "group"}},
        },
        {
            "kind": "inline",
            "must_understand": False,
            "metadata": {"x": {"zarr_format": 3, "node_type": "blob"}},
        },
    ],
)
def test_malformed_consolidated_metadata_is_a_named_error(bad):
    store = MemoryStore()
    build(store)
    document = stored(store)
    document["consolidated_metadata"] = bad
    store.set("zarr.json", json.dumps(document).encode())
    with pytest.raises(zf.errors.MetadataError, match="consolidated_metadata"):
        zf.open_group(store, mode="r")


def test_unknown_kind_is_kept_and_ignored():
    store = MemoryStore()
    build(store)
    document = stored(store)
    document["consolidated_metadata"] = {"kind": "external", "must_understand": False, "url": "x"}
    store.set("zarr.json", json.dumps(document).encode())
    g = zf.open_group(store, mode="r")
    assert g.keys() == ["a", "g"]
    assert g.metadata["consolidated_metadata"]["kind"] == "external"


@pytest.mark.filterwarnings("ignore:Consolidated metadata is currently not part")
def test_zarr_python_reads_our_consolidated_metadata_and_we_read_theirs(tmp_path):
    import zarr

    build(str(tmp_path / "ours"))
    zf.consolidate_metadata(str(tmp_path / "ours"))
    z = zarr.open_consolidated(str(tmp_path / "ours"), mode="r")
    assert sorted(z.metadata.consolidated_metadata.flattened_metadata) == ["a", "g", "g/x"]
    assert z["g/x"][:].tolist() == [1, 2, 3, 4]

    theirs = zarr.create_group(str(tmp_path / "theirs"))
    theirs.create_group("h").create_array("y", shape=(2,), dtype="int32")[:] = [7, 8]
    zarr.consolidate_metadata(str(tmp_path / "theirs"))
    store = CountingStore()
    for key in ("zarr.json", "h/zarr.json", "h/y/zarr.json", "h/y/c/0"):
        data = (tmp_path / "theirs" / key).read_bytes()
        MemoryStore._set(store, key, data)
    g = zf.open_group(store, mode="r")
    assert [n for n, _ in g.members(max_depth=None)] == ["h", "h/y"]
    assert g["h/y"][:].tolist() == [7, 8]
    assert np.array_equal(g["h/y"].fill_value, 0)
