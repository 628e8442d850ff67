"""Bad input gives a zarrforge error that names the key or URL, never a bare exception
from deep inside (issue #32, "Bare errors")."""

from __future__ import annotations

import json
import os
import re

import pytest

import zarrforge as zf
from zarrforge.errors import InvalidPathError, MetadataError
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore


def test_a_name_with_a_lone_surrogate_is_refused_by_name_on_the_local_store(tmp_path) -> None:
    store = LocalStore(tmp_path)
    # the key as Python writes it (escaped), and the character that has no UTF-8 form
    with pytest.raises(
        InvalidPathError,
        match=re.escape(repr("bad\udc80name")) + ".*" + re.escape(repr("\udc80")) + ".*lone surrogate",
    ):
        zf.create_array(store, "bad\udc80name", shape=(1,), dtype="int8")
    with pytest.raises(InvalidPathError, match=re.escape(repr("x/\ud800")) + ".*lone surrogate"):
        store.get("x/\ud800")
    assert os.listdir(tmp_path) == []


def test_a_name_too_long_for_the_file_system_is_refused_by_name(tmp_path) -> None:
    store = LocalStore(tmp_path)
    long_name = "n" * 300
    with pytest.raises(InvalidPathError, match="too long for the file system"):
        zf.create_array(store, long_name, shape=(1,), dtype="int8")
    for call in (
        lambda: store.get(f"{long_name}/zarr.json"),
        lambda: store.exists(long_name),
        lambda: store.set(long_name, b"x"),
    ):
        with pytest.raises(InvalidPathError, match=long_name[:20]):
            call()
    # names of 255 bytes are fine (multi-byte characters counted in bytes)
    zf.create_array(store, "é" * 127, shape=(1,), dtype="int8")


@pytest.mark.parametrize(
    "document, message",
    [
        ({"transpose": [0]}, "order"),
        ({"shard_of": (3, 4)}, "chunk_shape"),
    ],
)
def test_codec_errors_against_the_array_name_its_document(document, message) -> None:
    store = MemoryStore()
    array = zf.create_array(store, "g/a", shape=(8, 8), chunks=(4, 4), dtype="int32")
    raw = store.get("g/a/zarr.json")
    assert raw is not None
    stored = json.loads(raw)
    if "transpose" in document:
        stored["codecs"] = [{"name": "transpose", "configuration": {"order": [0]}}, *stored["codecs"]]
    else:
        stored["codecs"] = [
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": [3, 4],
                    "codecs": stored["codecs"],
                    "index_codecs": [
                        {"name": "bytes", "configuration": {"endian": "little"}},
                        {"name": "crc32c"},
                    ],
                },
            }
        ]
    store.set("g/a/zarr.json", json.dumps(stored).encode())
    with pytest.raises(MetadataError, match=message) as info:
        zf.open_array(store, "g/a")[...]
    assert info.value.key == "g/a/zarr.json"
    del array


def test_attributes_nested_deep_are_written_back_as_deep_as_they_are_read() -> None:
    store = MemoryStore()
    zf.create_array(store, "a", shape=(1,), dtype="int8")
    stored = store.get("a/zarr.json")
    assert stored is not None
    document = json.loads(stored)
    document["attributes"] = {"deep": "PLACE"}  # 900 levels, as another writer's text
    store.set("a/zarr.json", json.dumps(document).replace('"PLACE"', "[" * 900 + "1" + "]" * 900).encode())
    array = zf.open_array(store, "a", mode="r+")
    array.attrs["more"] = 2  # writes the deep value back
    again = zf.open_array(store, "a").attrs
    value, levels = again["deep"], 0
    while isinstance(value, list):  # (json.dumps itself would recurse too deep here)
        (value,), levels = value, levels + 1
    assert again["more"] == 2 and (levels, value) == (900, 1)
    document["attributes"] = {"deep": "PLACE"}  # 5,000 levels, written as text
    store.set("a/zarr.json", json.dumps(document).replace('"PLACE"', "[" * 5000 + "1" + "]" * 5000).encode())
    with pytest.raises(MetadataError) as info:
        zf.open_array(store, "a")
    assert info.value.key == "a/zarr.json"


@pytest.mark.parametrize(
    "codecs",
    [
        [{"name": "zstd"}, {"name": "bytes"}],  # a bytes -> bytes codec before the serializer
        [{"name": "zstd"}],  # no array -> bytes codec at all
    ],
)
def test_a_codec_list_out_of_order_names_the_document(codecs) -> None:
    store = MemoryStore()
    zf.create_array(store, "a", shape=(2,), dtype="int8")
    stored = store.get("a/zarr.json")
    assert stored is not None
    document = json.loads(stored)
    document["codecs"] = codecs
    store.set("a/zarr.json", json.dumps(document).encode())
    with pytest.raises(MetadataError) as info:
        zf.open_array(store, "a")[...]
    assert info.value.key == "a/zarr.json" and "a/zarr.json" in str(info.value)


@pytest.mark.parametrize("zarr_format", [2, 3, "draft-2022"])
def test_an_attribute_json_cannot_hold_is_refused_naming_the_document(zarr_format) -> None:
    store = MemoryStore()
    array = zf.create_array(store, "g/a", shape=(2,), dtype="int8", zarr_format=zarr_format)
    with pytest.raises(MetadataError, match="cannot be written as JSON") as info:
        array.attrs["x"] = {1, 2}  # a set: JSON has no form for it
    assert info.value.key is not None and "g/a" in info.value.key  # the draft: meta/root/g/a...
    assert info.value.key in str(info.value)


def test_a_v2_chunks_value_out_of_range_names_the_v2_field() -> None:
    """Before: the field was the v3 grid's path, chunks.configuration.chunk_shape."""
    store = MemoryStore()
    zf.create_array(store, "a", shape=(4,), chunks=(2,), dtype="int8", zarr_format=2)
    stored = store.get("a/.zarray")
    assert stored is not None
    document = json.loads(stored)
    document["chunks"] = [2**64]  # beyond int64
    store.set("a/.zarray", json.dumps(document).encode())
    with pytest.raises(MetadataError) as info:
        zf.open_array(store, "a")
    assert info.value.field == "chunks" and info.value.key == "a/.zarray"
