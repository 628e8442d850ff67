"""The Format contract as the v2 format implements it: requests, keys, models."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.format import ArrayCreationSpec
from zarrforge.engine.codec_arguments import normalised
from zarrforge_std.stores.memory import MemoryStore
from zarrforge_v2 import V2Format


class CountingStore(MemoryStore):
    """A memory store that records every read request."""

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


def test_the_format_is_registered_as_2():
    from zarrforge import registry

    assert registry.formats.get("2") is V2Format
    assert zf.hierarchy_api.get_format(2).name == "2"


def test_a_node_is_read_with_one_request():
    store = CountingStore()
    zf.create_array(store, "a", shape=(2,), dtype="int8", zarr_format=2)
    store.calls.clear()
    model = V2Format().read_node(store, "a")
    assert model.format_name == "2"
    assert store.calls == [("get_many", ["a/.zarray", "a/.zgroup", "a/.zattrs", "a/.zmetadata"])]
    store.calls.clear()
    assert V2Format().read_node(store, "nothing") is None
    assert len(store.calls) == 1


def test_a_consolidated_hierarchy_is_listed_and_opened_from_one_read():
    store = CountingStore()
    root = zf.create_group(store, zarr_format=2)
    root.create_group("g").create_array("x", shape=(2,), dtype="int8")
    root.create_array("y", shape=(2,), dtype="int8")
    zf.consolidate_metadata(store)
    store.calls.clear()
    g = zf.open_group(store, mode="r", zarr_format=2)
    assert [n for n, _ in g.members(max_depth=None)] == ["g", "g/x", "y"]
    assert g["g/x"].shape == (2,)
    # the documents in one read, then the unfinished-write marker (the open's one extra read)
    assert store.calls == [
        ("get_many", [".zarray", ".zgroup", ".zattrs", ".zmetadata"]),
        ("get_many", ["__zarrforge_unfinished.json"]),
    ]


def test_chunk_keys_and_coordinates():
    fmt = V2Format()
    for separator, key in ((".", "g/a/1.2"), ("/", "g/a/1/2")):
        meta = zf.create_array(
            MemoryStore(),
            "g/a",
            shape=(4, 6),
            chunks=(2, 2),
            dtype="i1",
            zarr_format=2,
            chunk_key_encoding=separator,
        ).metadata_model
        assert fmt.chunk_key("g/a", meta, (1, 2)) == key
        assert fmt.chunk_coords("g/a", meta, key) == (1, 2)
        assert fmt.chunk_coords("g/a", meta, "g/a/.zarray") is None
        assert fmt.chunk_coords("g/a", meta, "g/a/9.9".replace(".", separator)) is None
        assert fmt.chunk_coords("g/a", meta, "other/1.2") is None
    root = zf.create_array(MemoryStore(), "", shape=(), dtype="i1", zarr_format=2).metadata_model
    assert fmt.chunk_key("", root, ()) == "0"


def test_document_shows_every_document():
    store = MemoryStore()
    g = zf.create_group(store, zarr_format=2, attributes={"a": 1})
    g.create_array("x", shape=(1,), dtype="uint8", dimension_names=["t"])
    assert g.metadata == {".zgroup": {"zarr_format": 2}, ".zattrs": {"a": 1}}
    assert g["x"].metadata[".zattrs"] == {"_ARRAY_DIMENSIONS": ["t"]}
    consolidated = zf.consolidate_metadata(store)
    assert set(consolidated.metadata) == {".zgroup", ".zattrs", ".zmetadata"}


def SpecWithOrder(**arguments):
    """A creation spec with ``order``, as the core hands it over (codec arguments normalised)."""
    return normalised(ArrayCreationSpec(**arguments), V2Format())


def test_order_from_the_creation_spec():
    fmt = V2Format()
    meta = fmt.new_array(SpecWithOrder(shape=(3, 4), dtype="float32", chunks=(2, 2), order="F"))
    assert fmt.document(meta)[".zarray"]["order"] == "F"
    assert meta.codecs[0].to_json() == {"name": "transpose", "configuration": {"order": [1, 0]}}
    with pytest.raises(zf.errors.MetadataError) as info:
        fmt.new_array(SpecWithOrder(shape=(3,), dtype="int8", chunks=(3,), order="K"))
    assert info.value.field == "order"


def test_f_order_chunks_are_fortran_bytes():
    store = MemoryStore()
    a = zf.create_array(
        store,
        "a",
        shape=(2, 3),
        dtype="<i2",
        zarr_format=2,
        compressors=None,
        filters=[{"name": "transpose", "configuration": {"order": [1, 0]}}],
    )
    data = np.arange(6, dtype="<i2").reshape(2, 3)
    a[:] = data
    assert store.get("a/0.0") == data.tobytes(order="F")
    assert json.loads(store.get("a/.zarray"))["order"] == "F"


def test_stale_zmetadata_is_removed_when_the_model_has_none():
    store = MemoryStore()
    zf.create_group(store, zarr_format=2)
    zf.consolidate_metadata(store)
    assert store.get(".zmetadata") is not None
    fmt = V2Format()
    model = fmt.read_node(store, "")
    fmt.write_node(store, "", dataclasses.replace(model, consolidated=None))
    assert store.get(".zmetadata") is None


def test_with_attributes_keeps_dimension_names_in_step():
    store = MemoryStore()
    fmt = V2Format()
    meta = zf.create_array(
        store, "a", shape=(2, 2), dtype="i1", zarr_format=2, dimension_names=["y", "x"]
    ).metadata_model
    renamed = fmt.with_attributes(meta, {"_ARRAY_DIMENSIONS": ["r", "c"]})
    assert renamed.dimension_names == ("r", "c")
    removed = fmt.with_attributes(meta, {})
    assert removed.dimension_names is None
    assert fmt.document(removed)[".zattrs"] == {}


def test_arrays_and_groups_alike_write_nan_attributes_as_zarr_python_2_does():
    store = MemoryStore()
    zf.create_group(store, "g", zarr_format=2, attributes={"missing": float("nan")})
    a = zf.create_array(
        store, "a", shape=(2,), dtype="f4", zarr_format=2, attributes={"missing_value": float("nan")}
    )
    a.attrs["max"] = float("inf")
    assert b'"missing_value": NaN' in store.get("a/.zattrs")
    assert b'"max": Infinity' in store.get("a/.zattrs")
    assert b'"missing": NaN' in store.get("g/.zattrs")
