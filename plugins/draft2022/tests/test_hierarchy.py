"""Groups (explicit and implicit), child discovery, erasure, the dialect option, global
storage transformers, and detection next to the other formats."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from _draft_helpers import EDITOR_URI, ZARR_PYTHON_URI, doc, entry_point

import zarrforge as zf
from zarrforge import registry
from zarrforge.abc.storage_transformer import StorageTransformer
from zarrforge.abc.store import WrapperStore
from zarrforge_draft2022 import Draft2022Format, dialect, set_default_dialect
from zarrforge_draft2022.dialects import ENV_VAR
from zarrforge_std.stores.memory import MemoryStore


def keys(store):
    return sorted(store._data)


def build(fmt=None):
    """/ (explicit), /g (explicit, attrs), /g/a (array with chunks), /i/j/b (implicit i, i/j)."""
    store = MemoryStore()
    fmt = fmt or Draft2022Format()
    zf.create_group(store, "", fmt=fmt)
    g = zf.create_group(store, "g", attributes={"k": 1}, fmt=fmt)
    a = g.create_array("a", shape=(4,), chunks=(2,), dtype="i4")
    a[...] = [1, 2, 3, 4]
    b = zf.create_array(store, "i/j/b", shape=(2,), dtype="u1", fmt=fmt)
    b[...] = 7
    # zarrforge creates missing parents explicitly; the draft allows leaving them implied:
    store.delete("meta/root/i.group.json")
    store.delete("meta/root/i/j.group.json")
    return store


def test_children_and_implicit_groups():
    store = build()
    root = zf.open_group(store, mode="r")
    assert root.format.name == "draft-2022"
    assert root.keys() == ["g", "i"]
    assert zf.open_group(store, "i", mode="r").keys() == ["j"]
    implicit = zf.open_group(store, "i/j", mode="r")
    assert implicit.metadata == {"attributes": {}} and implicit.keys() == ["b"]
    assert zf.open_array(store, "i/j/b")[...].tolist() == [7, 7]
    assert [name for name, _ in root.members(None)] == ["g", "g/a", "i", "i/j", "i/j/b"]
    assert "i" in root and "nope" not in root


def test_an_implicit_group_becomes_explicit_when_given_attributes():
    store = build()
    g = zf.open_group(store, "i", mode="r+")
    g.attrs["now"] = "explicit"
    assert doc(store, "meta/root/i.group.json") == {"attributes": {"now": "explicit"}}


def test_an_empty_hierarchy_has_no_root_node():
    store = MemoryStore()
    store.set("zarr.json", json.dumps(entry_point("editor")).encode())
    with pytest.raises(zf.errors.NodeNotFoundError):
        zf.open(store, mode="r")
    zf.create_group(store, "", zarr_format="draft-2022")  # becomes explicit
    assert "meta/root.group.json" in store._data


def test_erase_an_array():
    store = build()
    del zf.open_group(store, "g", mode="r+")["a"]
    assert keys(store) == [
        "data/root/i/j/b/c0",
        "meta/root.group.json",
        "meta/root/g.group.json",
        "meta/root/i/j/b.array.json",
        "zarr.json",
    ]


def test_erase_an_explicit_group():
    store = build()
    del zf.open_group(store, mode="r+")["g"]
    assert keys(store) == [
        "data/root/i/j/b/c0",
        "meta/root.group.json",
        "meta/root/i/j/b.array.json",
        "zarr.json",
    ]


def test_erase_an_implicit_group():
    store = build()
    del zf.open_group(store, mode="r+")["i"]
    assert keys(store) == [
        "data/root/g/a/c0",
        "data/root/g/a/c1",
        "meta/root.group.json",
        "meta/root/g.group.json",
        "meta/root/g/a.array.json",
        "zarr.json",
    ]
    assert zf.open_group(store, mode="r").keys() == ["g"]


def test_overwrite_replaces_the_node_and_its_chunks():
    store = build()
    a = zf.create_array(
        store,
        "g/a",
        shape=(3,),
        chunks=(3,),
        dtype="f8",
        fill_value=1.5,
        zarr_format="draft-2022",
        overwrite=True,
    )
    assert "data/root/g/a/c1" not in store._data
    assert a[...].tolist() == [1.5, 1.5, 1.5]


# --- the dialect option -------------------------------------------------------------------


def entry(store):
    return doc(store, "zarr.json")


def test_the_default_dialect_is_zarr_pythons():
    store = MemoryStore()
    zf.create_group(store, zarr_format="draft-2022")
    assert entry(store) == entry_point("zarr-python")
    assert store.get("zarr.json").startswith(b'{\n    "extensions": []')  # as zarr-python dumps it


def test_the_dialect_for_a_block_and_for_the_process():
    with dialect("editor"):
        store = MemoryStore()
        zf.create_group(store, zarr_format="draft-2022")
    assert entry(store)["zarr_format"] == EDITOR_URI
    set_default_dialect("editors-draft")  # an alias
    other = MemoryStore()
    zf.create_group(other, zarr_format="draft-2022")
    assert entry(other)["zarr_format"] == EDITOR_URI
    with pytest.raises(ValueError, match="unknown 2022-draft dialect 'v4'"):
        set_default_dialect("v4")


def test_the_dialect_from_the_environment(tmp_path):
    script = (
        "import zarrforge as zf, json; zf.create_group(r'{}', zarr_format='draft-2022'); "
        "print(json.load(open(r'{}'))['zarr_format'])".format(tmp_path / "h", tmp_path / "h" / "zarr.json")
    )
    env = {**os.environ, ENV_VAR: "editor"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.strip() == EDITOR_URI


def test_nodes_added_to_a_hierarchy_follow_its_entry_point():
    store = MemoryStore()
    zf.create_group(store, fmt=Draft2022Format(dialect="editor"))
    # the default dialect is zarr-python's, but the hierarchy is the editor's
    group = zf.open_group(store, mode="r+")
    a = group.create_array("a", shape=(2,), dtype=">i2")
    document = doc(store, "meta/root/a.array.json")
    assert document["data_type"] == "int16" and "codecs" in document
    a[...] = [1, 2]
    assert zf.open_array(store, "a")[...].tolist() == [1, 2]
    # a fresh format instance also writes into the hierarchy's dialect
    zf.create_array(store, "b", shape=(2,), dtype="f4", zarr_format="draft-2022")
    assert doc(store, "meta/root/b.array.json")["data_type"] == "float32"


def test_reading_needs_no_option():
    for uri, expected in ((EDITOR_URI, "editor"), (ZARR_PYTHON_URI, "zarr-python")):
        store = MemoryStore()
        store.set(
            "zarr.json",
            json.dumps(
                {
                    "zarr_format": uri,
                    "metadata_encoding": uri,
                    "metadata_key_suffix": ".json",
                    "extensions": [],
                }
            ).encode(),
        )
        store.set("meta/root.group.json", b'{"attributes": {}}')
        group = zf.open_group(store, mode="r")
        assert group.format.entry_point(store).dialect == expected


def test_array_documents_of_either_form_read_in_either_dialect(hierarchy):
    compressor_form = {
        "shape": [3],
        "data_type": "<u2",
        "chunk_memory_layout": "C",
        "chunk_grid": {"type": "regular", "chunk_shape": [3], "separator": "/"},
        "fill_value": 5,
        "attributes": {},
        "extensions": [],
        "compressor": {"codec": "https://purl.org/zarr/spec/codec/gzip/1.0", "configuration": {"level": 1}},
    }
    store = hierarchy({"meta/root/a.array.json": compressor_form}, dialect="editor")
    assert zf.open_array(store, "a")[...].tolist() == [5, 5, 5]


def test_metadata_key_suffix(hierarchy):
    store = hierarchy(
        {
            "zarr.json": {**entry_point("editor"), "metadata_key_suffix": ".meta"},
            "meta/root/x.group.meta": {"attributes": {"a": 1}},
        }
    )
    root = zf.open_group(store, mode="r+")
    assert root.keys() == ["x"]
    root.create_array("y", shape=(1,), dtype="u1")
    assert "meta/root/y.array.meta" in store._data


# --- global storage transformers ------------------------------------------------------------


class XorStore(WrapperStore):
    """Stores every value XOR 0x5A: nothing is readable without the transformer."""

    def get(self, key, byte_range=None):
        value = self.inner.get(key, byte_range)
        return None if value is None else bytes(b ^ 0x5A for b in value)

    def get_many(self, requests):
        return [self.get(k, r) for k, r in requests]

    def _set(self, key, value):
        self.inner.set(key, bytes(b ^ 0x5A for b in value))


class XorTransformer(StorageTransformer):
    name = "https://example.org/xor"

    @classmethod
    def from_json(cls, name, configuration):
        assert configuration == {"type": "xor"}
        return cls()

    def to_json(self):
        return {"name": self.name, "configuration": {"type": "xor"}}

    def wrap(self, store, keys, metadata):
        return XorStore(store)


@pytest.fixture
def xor():
    registry.storage_transformers.register(XorTransformer.name, XorTransformer)
    yield {"extension": XorTransformer.name, "type": "xor", "configuration": {}}
    registry.storage_transformers.unregister(XorTransformer.name)


def test_global_storage_transformers_act_on_every_key_but_the_entry_point(xor):
    store = MemoryStore()
    fmt = Draft2022Format(dialect="editor", storage_transformers=[xor])
    zf.create_group(store, attributes={"x": 1}, fmt=fmt)
    a = zf.open_group(store, mode="r+").create_array("a", shape=(3,), dtype="u1", compressors=None)
    a[...] = [1, 2, 3]
    assert entry(store)["storage_transformers"] == [xor]
    assert store.get("data/root/a/c0") == bytes([1 ^ 0x5A, 2 ^ 0x5A, 3 ^ 0x5A])
    assert json.loads(bytes(b ^ 0x5A for b in store.get("meta/root.group.json"))) == {"attributes": {"x": 1}}
    b = zf.open_array(store, "a")
    assert b[...].tolist() == [1, 2, 3]
    assert "storage_transformers" not in b.metadata  # they belong to zarr.json
    assert zf.open_group(store, mode="r").keys() == ["a"]


class PathXorTransformer(XorTransformer):
    """Records the ``path`` each wrap gets: ``None`` for the hierarchy-wide wrap of the
    documents, the array's path for its chunk I/O."""

    name = "https://example.org/xor-path"  # not XorTransformer's: entry points are cached
    paths: list = []

    def wrap(self, store, keys, metadata, *, path=None):
        PathXorTransformer.paths.append(path)
        return XorStore(store)


def test_global_storage_transformers_get_the_path_they_wrap_for():
    registry.storage_transformers.register(PathXorTransformer.name, PathXorTransformer)
    try:
        PathXorTransformer.paths.clear()
        store = MemoryStore()
        fmt = Draft2022Format(
            dialect="editor",
            storage_transformers=[{"extension": PathXorTransformer.name, "type": "xor", "configuration": {}}],
        )
        zf.create_group(store, fmt=fmt)
        a = zf.open_group(store, mode="r+").create_array("g/a", shape=(3,), dtype="u1", compressors=None)
        a[...] = [1, 2, 3]
        assert zf.open_array(store, "g/a")[...].tolist() == [1, 2, 3]
    finally:
        registry.storage_transformers.unregister(PathXorTransformer.name)
    assert None in PathXorTransformer.paths and "g/a" in PathXorTransformer.paths
    assert set(PathXorTransformer.paths) == {None, "g/a"}


def test_global_storage_transformers_need_the_editors_dialect(xor):
    with pytest.raises(zf.errors.MetadataError, match="editor's draft only"):
        zf.create_group(MemoryStore(), fmt=Draft2022Format(storage_transformers=[xor]))


def test_an_unknown_global_storage_transformer_is_an_error(hierarchy):
    store = hierarchy(
        {
            "zarr.json": entry_point(
                "editor", storage_transformers=[{"extension": "https://example.org/nope", "type": "x"}]
            )
        }
    )
    with pytest.raises(zf.errors.UnknownExtensionError) as info:
        zf.open_group(store, mode="r")
    assert (info.value.key, info.value.field) == ("zarr.json", "storage_transformers[0].extension")


# --- detection --------------------------------------------------------------------------------


def test_other_formats_do_not_claim_draft_hierarchies_and_vice_versa(tmp_path):
    v3 = zf.create_group(str(tmp_path / "v3"), attributes={"x": 1})
    assert zf.open_group(str(tmp_path / "v3"), mode="r").format.name == "3"
    assert Draft2022Format().read_node(v3.store, "") is None
    draft = zf.create_array(str(tmp_path / "d"), shape=(2,), dtype="i1", zarr_format="draft-2022")
    assert zf.open(str(tmp_path / "d")).format.name == "draft-2022"
    assert zf.hierarchy_api.get_format("3").read_node(draft.store, "") is None


def test_names_the_draft_forbids_are_refused():
    with pytest.raises(zf.errors.InvalidPathError, match="not allowed by the 2022 draft"):
        zf.create_array(MemoryStore(), "a b", shape=(1,), dtype="u1", zarr_format="draft-2022")


def test_consolidation_is_refused_with_a_reason():
    store = build()
    with pytest.raises(zf.errors.MetadataError, match="no consolidated metadata"):
        zf.consolidate_metadata(store)


def test_zero_dimensional_chunk_keys_per_dialect():
    for name, key in (("zarr-python", "data/root/s/c0"), ("editor", "data/root/s/c")):
        store = MemoryStore()
        s = zf.create_array(
            store, "s", shape=(), dtype="f8", compressors=None, fmt=Draft2022Format(dialect=name)
        )
        s[...] = 2.5
        assert store.get(key) == np.float64(2.5).tobytes()
        assert zf.open_array(store, "s")[...] == 2.5


def test_a_draft_node_is_never_written_over_another_formats_root(tmp_path):
    v3 = zf.create_group(str(tmp_path / "v3"), attributes={"x": 1})
    before = v3.store.get("zarr.json")
    with pytest.raises((zf.errors.MetadataError, zf.errors.NodeTypeError)):
        zf.create_array(v3.store, "a", shape=(1,), dtype="u1", zarr_format="draft-2022")
    fmt = Draft2022Format()
    with pytest.raises(zf.errors.MetadataError, match="another format") as info:
        fmt.write_node(v3.store, "g", fmt.new_group())
    assert info.value.key == "zarr.json"
    assert v3.store.get("zarr.json") == before


def test_overwriting_the_root_replaces_the_hierarchy_and_may_change_its_dialect():
    store = build()
    zf.create_group(store, "", fmt=Draft2022Format(dialect="editor"), overwrite=True)
    assert keys(store) == ["meta/root.group.json", "zarr.json"]
    assert entry(store)["zarr_format"] == EDITOR_URI
