"""Groups: members, nested paths, attributes, tree, creation rules."""

from __future__ import annotations

import json

import pytest

import zarrforge as zf
from zarrforge.errors import NodeNotFoundError, NodeTypeError


@pytest.fixture
def hierarchy(tmp_path):
    root = zf.create_group(str(tmp_path / "h.zarr"), attributes={"title": "root"})
    g = root.create_group("g", attributes={"level": 1})
    g.create_array("b", shape=(3,), dtype="int16", compressors=None)
    root.create_array("a", shape=(10, 10), dtype="float64", chunks=(5, 5))
    g.create_group("inner").create_group("deep")
    return root


def test_members_and_nested_access(hierarchy):
    assert [n for n, _ in hierarchy.members()] == ["a", "g"]
    assert isinstance(hierarchy["g"], zf.Group) and isinstance(hierarchy["a"], zf.Array)
    assert hierarchy["g/b"].shape == (3,)
    assert "g/inner/deep" in hierarchy and "g/nope" not in hierarchy
    assert [n for n, _ in hierarchy.members(max_depth=None)] == ["a", "g", "g/b", "g/inner", "g/inner/deep"]
    assert hierarchy.array_keys() == ["a"] and hierarchy.group_keys() == ["g"]
    with pytest.raises(NodeNotFoundError):
        hierarchy["g/nope"]


def test_tree(hierarchy):
    assert (
        repr(hierarchy.tree())
        == "\n".join(
            [
                "/",
                "├── a (10, 10) float64",
                "└── g",
                "    ├── b (3,) int16",
                "    └── inner",
                "        └── deep",
            ]
        )
        + "\n"
    )


def test_attributes_persist(hierarchy):
    g = hierarchy["g"]
    g.attrs["unicode"] = "Grüße ☃"
    g.attrs.update({"nested": {"a": [1, {"b": None}]}})
    reopened = zf.open_group(hierarchy.store, "g", mode="r")
    assert reopened.attrs.asdict() == {"level": 1, "unicode": "Grüße ☃", "nested": {"a": [1, {"b": None}]}}
    del g.attrs["level"]
    assert "level" not in zf.open_group(hierarchy.store, "g", mode="r").attrs


def test_creating_below_a_missing_parent_creates_parent_groups():
    root = zf.create_group(None)
    zf.create_array(root.store, "x/y/z", shape=(1,), dtype="int8")
    assert isinstance(root["x"], zf.Group) and isinstance(root["x/y"], zf.Group)
    assert json.loads(root.store.get("x/y/zarr.json"))["node_type"] == "group"


def test_creating_below_an_array_is_refused(hierarchy):
    with pytest.raises(NodeTypeError, match="parent '/a' is an array"):
        zf.create_group(hierarchy.store, "a/sub")


def test_open_group_on_array_and_open_array_on_group_are_type_errors(hierarchy):
    with pytest.raises(NodeTypeError):
        zf.open_group(hierarchy.store, "a", mode="r")
    with pytest.raises(NodeTypeError):
        zf.open_array(hierarchy.store, "g")


def test_delete_member_removes_its_keys(hierarchy):
    del hierarchy["g"]
    assert "g" not in hierarchy
    assert not any(k.startswith("g/") for k in hierarchy.store.list())


def test_open_group_mode_a_creates_and_mode_r_plus_requires(tmp_path):
    with pytest.raises(NodeNotFoundError):
        zf.open_group(str(tmp_path / "n.zarr"), mode="r+")
    g = zf.open_group(str(tmp_path / "n.zarr"), mode="a", attributes={"k": 1})
    assert zf.open_group(str(tmp_path / "n.zarr"), mode="r").attrs["k"] == 1
    assert g.read_only is False


def _read_keys(store) -> list[str]:
    return [call.key for call in store.calls if call.method == "get"]


def test_a_group_checks_its_ancestors_once_for_the_members_it_creates():
    from zarrforge.testing.faults import FaultyStore
    from zarrforge_std.stores.memory import MemoryStore

    store = FaultyStore(MemoryStore())
    zf.create_group(store).create_group("g")
    group = zf.open_group(store, "g", mode="r+")
    store.calls.clear()
    group.create_array("first", shape=(1,), dtype="int8")
    first = _read_keys(store)
    # every ancestor is asked about nodes of other formats: here, Zarr v2 documents
    assert {"g/.zgroup", ".zgroup"} <= set(first)
    store.calls.clear()
    group.create_array("second", shape=(1,), dtype="int8")
    second = _read_keys(store)
    # the new node's own path is still checked: one listing of its prefix, found empty,
    # answers every format's question about documents there
    listed = [call.key for call in store.calls if call.method == "list_dir"]
    assert listed == ["g/second/"]
    assert not [key for key in second if key.startswith("g/second/")]
    assert not {"g/.zgroup", "g/.zarray", ".zgroup", ".zarray"} & set(second)


def test_a_prefix_that_is_not_empty_is_still_asked_about_each_format():
    from zarrforge.testing.faults import FaultyStore
    from zarrforge_std.stores.memory import MemoryStore

    inner = MemoryStore()
    group = zf.create_group(inner, "g")
    inner.set(
        "g/old/.zarray",
        json.dumps(
            {  # written by another tool: v2 inside a v3 group
                "zarr_format": 2,
                "shape": [1],
                "chunks": [1],
                "dtype": "|i1",
                "compressor": None,
                "fill_value": 0,
                "order": "C",
                "filters": None,
            }
        ).encode(),
    )
    store = FaultyStore(inner)
    with pytest.raises(zf.errors.ContainsNodeError, match="of Zarr 2 already exists"):
        zf.open_group(store, "g", mode="r+").create_array("old", shape=(1,), dtype="int8")
    assert "g/old/.zarray" in _read_keys(store)
    inner.set("g/stray/notes.txt", b"not a node")  # something there, but no node
    group.create_array("stray", shape=(2,), dtype="int8")
    assert zf.open_array(inner, "g/stray").shape == (2,)
    assert inner.get("g/stray/notes.txt") == b"not a node"


def test_nested_members_of_a_checked_group_get_their_parent_groups():
    root = zf.create_group(None)
    group = root.create_group("g")
    group.create_array("a", shape=(1,), dtype="int8")
    group.create_array("x/y/z", shape=(2,), dtype="int8")
    assert isinstance(root["g/x"], zf.Group) and isinstance(root["g/x/y"], zf.Group)
    assert root["g/x/y/z"].shape == (2,)
    with pytest.raises(NodeTypeError, match="parent '/g/a' is an array"):
        group.create_group("a/sub")


@pytest.mark.parametrize("zarr_format", ["3", "2", "draft-2022"])
def test_a_group_whose_attributes_cannot_be_written_writes_nothing(zarr_format):
    from zarrforge.errors import MetadataError
    from zarrforge_std.stores.memory import MemoryStore

    store = MemoryStore()
    with pytest.raises(MetadataError, match="cannot be written as JSON"):
        zf.create_group(store, "x/y", attributes={"bad": {1, 2}}, zarr_format=zarr_format)
    assert list(store.list()) == []  # not even the missing parent group "x"


class _Opened:
    def __init__(self):
        self.paths = []

    @zf.hookimpl
    def zarrforge_node_opened(self, node):
        self.paths.append(node.path)


def test_members_opens_arrays_on_first_use_and_answers_attributes_from_the_document(tmp_path):
    """Listing members with their attributes resolves no array (issue "Performance, round
    two": opening a member must not build what listing does not need); the first use of
    anything else opens the array as opening always does, announced once."""
    group = zf.create_group(str(tmp_path / "g"))
    for name in ("a", "b"):
        group.create_array(name, shape=(3,), dtype="int16", attributes={"name": name})
    group.create_group("sub").attrs["kind"] = "group"
    opened = _Opened()
    zf.hooks.register(opened)
    try:
        members = dict(zf.open_group(str(tmp_path / "g"), mode="r").members())
        assert {n: m.attrs.asdict() for n, m in members.items()} == {
            "a": {"name": "a"},
            "b": {"name": "b"},
            "sub": {"kind": "group"},
        }
        assert opened.paths == ["", "sub"]  # the arrays are not opened yet
        assert members["a"].shape == (3,) and members["a"][...].tolist() == [0, 0, 0]
        assert members["a"].dtype == "int16"
        assert opened.paths == ["", "sub", "a"]
    finally:
        zf.hooks.unregister(opened)


def test_a_member_that_cannot_be_opened_fails_on_first_use_every_time(tmp_path):
    group = zf.create_group(str(tmp_path / "g"))
    group.create_array("good", shape=(2,), dtype="int8")
    group.create_array("bad", shape=(2,), dtype="int8", attributes={"note": "kept"})
    document = tmp_path / "g" / "bad" / "zarr.json"
    content = json.loads(document.read_text())
    content["codecs"].append({"name": "lzma"})  # no installed plugin provides it
    document.write_text(json.dumps(content))
    members = dict(zf.open_group(str(tmp_path / "g"), mode="r+").members())
    assert members["bad"].attrs["note"] == "kept"  # the listing and the attributes still work
    for _ in range(2):
        with pytest.raises(zf.errors.UnknownExtensionError, match="lzma"):
            members["bad"][...]
    with pytest.raises(zf.errors.UnknownExtensionError, match="lzma"):
        members["bad"].attrs["note"] = "changed"  # writing resolves the document first
    assert json.loads(document.read_text())["attributes"] == {"note": "kept"}
    assert members["good"][...].tolist() == [0, 0]
    members["good"].attrs["seen"] = True
    assert zf.open_array(str(tmp_path / "g"), "good").attrs["seen"] is True
