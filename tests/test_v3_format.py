"""The final v3 format: documents, short-hand names, chunk keys, listing."""

from __future__ import annotations

import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge_std.stores.memory import MemoryStore


def _document(store, key="zarr.json"):
    return json.loads(store.get(key))


def test_array_document_has_every_required_field_and_is_two_space_json():
    a = zf.create_array(
        None,
        shape=(4, 6),
        dtype="float32",
        chunks=(2, 3),
        fill_value=1.5,
        dimension_names=["y", None],
        attributes={"a": 1},
    )
    raw = a.store.get("zarr.json").decode()
    assert raw.startswith('{\n  "zarr_format": 3,\n  "node_type": "array"')
    assert _document(a.store) == {
        "zarr_format": 3,
        "node_type": "array",
        "shape": [4, 6],
        "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 1.5,
        "codecs": [
            {"name": "bytes", "configuration": {"endian": "little"}},
            {"name": "zstd", "configuration": {"level": 0, "checksum": False}},
        ],
        "attributes": {"a": 1},
        "dimension_names": ["y", None],
    }


def test_short_hand_codec_names_are_read_and_written_back_as_objects():
    a = zf.create_array(None, shape=(3,), dtype="uint8", compressors=None)
    document = _document(a.store)
    document["codecs"] = ["bytes", "crc32c"]
    a.store.set("zarr.json", json.dumps(document).encode())
    b = zf.open_array(a.store, mode="r+")
    b[:] = [1, 2, 3]
    assert b[:].tolist() == [1, 2, 3]
    b.attrs["x"] = 1
    assert _document(a.store)["codecs"] == [{"name": "bytes"}, {"name": "crc32c"}]


def test_short_hand_names_in_the_api():
    a = zf.create_array(None, shape=(3,), dtype="int32", compressors=["gzip", "crc32c"])
    assert a.metadata["codecs"][1:] == [{"name": "gzip", "configuration": {"level": 5}}, {"name": "crc32c"}]


@pytest.mark.parametrize(
    "encoding,shape,expected",
    [
        ({"name": "default"}, (4, 4), {"c/0/0", "c/0/1", "c/1/0", "c/1/1"}),
        (
            {"name": "default", "configuration": {"separator": "."}},
            (4, 4),
            {"c.0.0", "c.0.1", "c.1.0", "c.1.1"},
        ),
        ({"name": "v2"}, (4, 4), {"0.0", "0.1", "1.0", "1.1"}),
        ({"name": "v2", "configuration": {"separator": "/"}}, (4, 4), {"0/0", "0/1", "1/0", "1/1"}),
        ({"name": "default"}, (), {"c"}),
        ({"name": "v2"}, (), {"0"}),
    ],
)
def test_chunk_key_encodings(encoding, shape, expected):
    store = MemoryStore()
    a = zf.create_array(
        store,
        "arr",
        shape=shape,
        dtype="int8",
        chunks=(2, 2)[: len(shape)],
        chunk_key_encoding=encoding,
        compressors=None,
    )
    a[...] = np.ones(shape, dtype="int8")
    assert {k[len("arr/") :] for k in store.list_prefix("arr/")} - {"zarr.json"} == expected
    assert a.nchunks_initialized == len(expected)
    assert set(a.stored_chunks()) == set(np.ndindex(*a.cdata_shape)) if shape else {()}
    assert zf.open_array(store, "arr")[...].tolist() == np.ones(shape, dtype="int8").tolist()


def test_zarr_python_flat_chunk_key_encoding_form_is_accepted():
    a = zf.create_array(None, shape=(2,), dtype="int8", chunk_key_encoding={"name": "v2", "separator": "/"})
    assert a.metadata["chunk_key_encoding"] == {"name": "v2", "configuration": {"separator": "/"}}


def test_group_with_null_consolidated_metadata_opens():
    g = zf.create_group(None)
    document = _document(g.store)
    document["consolidated_metadata"] = None
    g.store.set("zarr.json", json.dumps(document).encode())
    reopened = zf.open_group(g.store, mode="r")
    assert reopened.metadata_model.consolidated is None
    assert "consolidated_metadata" not in reopened.metadata


def test_metadata_of_a_foreign_format_is_not_taken_for_v3():
    store = MemoryStore()
    store.set(
        "zarr.json", json.dumps({"zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0"}).encode()
    )
    with pytest.raises(zf.errors.NodeNotFoundError):
        zf.open(store, mode="r")


def test_stored_chunks_ignore_foreign_keys():
    a = zf.create_array(None, shape=(4,), dtype="int8", chunks=(2,), compressors=None)
    a[:] = 1
    a.store.set("c/9", b"\x01\x01")  # outside the grid
    a.store.set("c/x", b"junk")
    assert sorted(a.stored_chunks()) == [(0,), (1,)]


def test_open_detects_array_or_group():
    g = zf.create_group(None)
    g.create_array("a", shape=(1,), dtype="int8")
    assert isinstance(zf.open(g.store), zf.Group)
    assert isinstance(zf.open(g.store, "a"), zf.Array)


def test_the_document_rendered_at_creation_is_written_once_and_not_reused():
    from zarrforge.metadata.json_io import dump_document
    from zarrforge.user_api.api import get_format

    store = MemoryStore()
    fmt = get_format("3")
    array = zf.create_array(store, "a", shape=(3,), dtype="int8", attributes={"k": 1}, fmt=fmt)
    metadata = array.metadata_model
    assert store.get("a/zarr.json") == dump_document(fmt.document(metadata))
    metadata.attributes["k"] = 2  # changed in place behind the format's back
    fmt.write_node(store, "a", metadata)  # renders afresh: the creation's bytes were used once
    assert json.loads(store.get("a/zarr.json"))["attributes"] == {"k": 2}


def test_attributes_json_cannot_hold_fail_the_creation_before_any_write():
    store = MemoryStore()
    with pytest.raises(zf.errors.MetadataError, match="cannot be written as JSON"):
        zf.create_array(store, "x/y", shape=(3,), dtype="int8", attributes={"bad": {1, 2}})
    assert list(store.list()) == []  # not even the missing parent groups
