"""What each implementation writes when given nothing but a shape and a data type,
and arrays at the root of a store (the node path "").

zarrforge's defaults are documented to match zarr-python 3's (``bytes``
little-endian + ``zstd`` level 0 without checksum, the ``default`` chunk key
encoding with ``/``), so the two documents must agree field by field apart from
the chunk shape, which zarr-python chooses by size. tensorstore's defaults
differ (no compressor, one chunk, no ``attributes`` member) and must read all
the same.
"""

from __future__ import annotations

import json

import _interop as X
import tensorstore as ts
import zarr

import zarrforge as zf

SHAPE = (20, 7)


def _data():
    return X.make_data("float32", SHAPE, seed=10)


def test_zarrforge_defaults_equal_zarr_python_defaults(tmp_path):
    ours = zf.create_array(str(tmp_path), "ours", shape=SHAPE, dtype="float32")
    theirs = zarr.create_array(str(tmp_path), name="theirs", shape=SHAPE, dtype="float32")
    ours_doc = X.node_document(tmp_path / "ours")
    theirs_doc = X.node_document(tmp_path / "theirs")
    for field in (
        "zarr_format",
        "node_type",
        "shape",
        "data_type",
        "chunk_key_encoding",
        "fill_value",
        "codecs",
        "attributes",
    ):
        assert ours_doc[field] == theirs_doc[field], field
    # zarr-python writes "storage_transformers": [] and chooses a chunk shape by size
    assert ours_doc.get("storage_transformers", []) == theirs_doc["storage_transformers"] == []
    assert ours.chunks == SHAPE and len(theirs.chunks) == 2


def test_zarrforge_defaults_read_by_both_peers(tmp_path):
    data = _data()
    zf.create_array(str(tmp_path), X.ARRAY, shape=SHAPE, dtype="float32")[...] = data
    for reader in X.PEERS:
        view = X.READERS[reader](tmp_path)
        X.assert_same_bits(view.values, data, reader)
        assert view.shape == SHAPE and view.chunks == SHAPE and view.attributes == {}
        assert view.dimension_names is None
        assert X.normalize_codecs(view.codecs, "float32") == [
            {"name": "bytes", "configuration": {"endian": "little"}},
            {"name": "zstd", "configuration": {"level": 0, "checksum": False}},
        ]


def test_zarr_python_defaults_read_by_zarrforge(tmp_path):
    data = _data()
    z = zarr.create_array(str(tmp_path), name=X.ARRAY, shape=SHAPE, dtype="float32")
    z[...] = data
    a = zf.open_array(str(tmp_path), X.ARRAY)
    X.assert_same_bits(a[...], data, "zarrforge")
    assert a.chunks == z.chunks and a.attrs.asdict() == {} and a.dimension_names is None
    X.check_document(tmp_path)


def test_tensorstore_defaults_read_by_zarrforge(tmp_path):
    data = _data()
    t = ts.open(X.ts_spec(tmp_path), create=True, dtype=ts.float32, shape=list(SHAPE)).result()
    t.write(data).result()
    doc = X.raw_document(tmp_path)
    assert "attributes" not in doc and "dimension_names" not in doc  # tensorstore leaves them out
    a = zf.open_array(str(tmp_path), X.ARRAY)
    X.assert_same_bits(a[...], data, "zarrforge")
    assert a.chunks == tuple(t.chunk_layout.read_chunk.shape)
    assert a.attrs.asdict() == {} and a.dimension_names is None and a.fill_value == 0
    X.check_document(tmp_path)
    # zarrforge adds attributes; tensorstore still opens it and sees them
    zf.open_array(str(tmp_path), X.ARRAY, mode="r+").attrs["added"] = "by zarrforge"
    t = X.open_tensorstore(tmp_path)
    assert t.spec().to_json()["metadata"]["attributes"] == {"added": "by zarrforge"}
    X.assert_same_bits(t.read().result(), data, "tensorstore")


# --------------------------------------------------------------------------------------
# arrays at the root of a store


ROOT_CASES = {  # chunk key encoding -> the stored keys of a (3, 4) array in (2, 4) chunks
    "default": ({"name": "default", "configuration": {"separator": "/"}}, ["c/0/0", "c/1/0"]),
    "v2": ({"name": "v2", "configuration": {"separator": "."}}, ["0.0", "1.0"]),
}


def _root_keys(path):
    return sorted(
        p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file() and p.name != "zarr.json"
    )


def test_root_arrays_zarrforge_to_peers(tmp_path):
    data = X.make_data("int16", (3, 4), seed=11)
    for name, (cke, keys) in ROOT_CASES.items():
        path = tmp_path / name
        zf.create_array(
            str(path),
            shape=(3, 4),
            dtype="int16",
            chunks=(2, 4),
            chunk_key_encoding=cke,
            attributes={"at": "root"},
        )[...] = data
        assert _root_keys(path) == keys
        z = zarr.open_array(str(path), mode="r")
        X.assert_same_bits(z[...], data, "zarr-python")
        assert dict(z.attrs) == {"at": "root"}
        t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": f"{path}/"}}, open=True)
        X.assert_same_bits(t.result().read().result(), data, "tensorstore")


def test_root_arrays_peers_to_zarrforge(tmp_path):
    data = X.make_data("int16", (3, 4), seed=12)
    for name, (cke, keys) in ROOT_CASES.items():
        path = tmp_path / "zarr-python" / name
        zarr.create_array(
            str(path),
            shape=(3, 4),
            dtype="int16",
            chunks=(2, 4),
            chunk_key_encoding=cke,
            attributes={"at": "root"},
        )[...] = data
        path_ts = tmp_path / "tensorstore" / name
        ts.open(
            {
                "driver": "zarr3",
                "kvstore": {"driver": "file", "path": f"{path_ts}/"},
                "metadata": {
                    "shape": [3, 4],
                    "data_type": "int16",
                    "fill_value": 0,
                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 4]}},
                    "chunk_key_encoding": cke,
                    "codecs": [X.bytes_codec()],
                    "attributes": {"at": "root"},
                },
            },
            create=True,
        ).result().write(data).result()
        for p in (path, path_ts):
            assert _root_keys(p) == keys
            a = zf.open_array(str(p))
            X.assert_same_bits(a[...], data, f"zarrforge reading {p}")
            assert a.attrs.asdict() == {"at": "root"} and a.nchunks_initialized == 2
            assert json.loads((p / "zarr.json").read_text())["node_type"] == "array"
            assert zf.open(str(p)).shape == (3, 4)
