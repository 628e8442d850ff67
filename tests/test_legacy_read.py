"""Data other implementations wrote that zarrforge reads (issue #15), never writing it back.

Each fixture is a document as the other implementation writes it: written by
the real library where it is installed (zarr-python 3 for Zarr v2 with a
pcodec compressor), else the document as the tool writes it (webknossos'
zarr.json with ``transpose`` order ``"F"`` and ``bytes`` without ``endian``,
zarrita's bool fill value ``0``, the flat chunk key encoding zarr-python 3
accepts). Chunks are written by zarr-python 3 in the spec's spelling, then the
document is rewritten to the legacy one, so the values read are checked
against what a peer wrote. See docs/formats.md, "Leniencies when reading".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numcodecs
import numpy as np
import pytest
import zarr

import zarrforge as zf
from zarrforge.errors import MetadataError

VALUES = np.arange(7 * 5, dtype="<i4").reshape(7, 5)


def _read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _write_json(path: Path, document: dict[str, Any]) -> None:
    path.write_text(json.dumps(document))


# --- Zarr v2: a compressor that takes arrays (pcodec) --------------------------------


def _pcodec_v2(path: Path, **options: Any) -> zarr.Array:
    a = zarr.create_array(
        str(path),
        shape=VALUES.shape,
        chunks=(4, 3),
        dtype="int32",
        zarr_format=2,
        compressors=numcodecs.PCodec(),
        fill_value=0,
        **options,
    )
    a[:] = VALUES
    return a


def test_v2_pcodec_compressor_is_read_as_the_serializer(tmp_path):
    _pcodec_v2(tmp_path / "a.zarr")
    assert _read_json(tmp_path / "a.zarr" / ".zarray")["compressor"]["id"] == "pcodec"
    a = zf.open_array(str(tmp_path / "a.zarr"), mode="r")
    np.testing.assert_array_equal(np.asarray(a[:]), VALUES)
    np.testing.assert_array_equal(np.asarray(a[2:6, 1:4]), VALUES[2:6, 1:4])


def test_v2_pcodec_after_array_filters(tmp_path):
    _pcodec_v2(tmp_path / "a.zarr", filters=[numcodecs.Delta(dtype="<i4")])
    a = zf.open_array(str(tmp_path / "a.zarr"), mode="r")
    np.testing.assert_array_equal(np.asarray(a[:]), VALUES)


def test_v2_pcodec_array_is_written_back_as_v2_with_the_compressor(tmp_path):
    path = tmp_path / "a.zarr"
    _pcodec_v2(path)
    before = _read_json(path / ".zarray")
    a = zf.open_array(str(path), mode="r+")
    a[0] = np.full(5, 99, dtype="<i4")
    a.attrs["k"] = 1  # rewrites the documents
    assert _read_json(path / ".zarray") == before
    expected = VALUES.copy()
    expected[0] = 99
    np.testing.assert_array_equal(zarr.open_array(str(path), mode="r")[:], expected)


def test_v2_pcodec_after_a_bytes_filter_names_the_filter(tmp_path):
    path = tmp_path / "a.zarr"
    _pcodec_v2(path)
    document = _read_json(path / ".zarray")
    document["filters"] = [{"id": "crc32c"}]
    _write_json(path / ".zarray", document)
    with pytest.raises(MetadataError) as info:
        zf.open_array(str(path), mode="r")
    assert info.value.field == "filters[0]"
    assert "codecs" not in str(info.value)


def test_v2_pcodec_after_an_object_codec_names_the_compressor(tmp_path):
    path = tmp_path / "a.zarr"
    path.mkdir()
    _write_json(
        path / ".zarray",
        {
            "zarr_format": 2,
            "shape": [3],
            "chunks": [3],
            "dtype": "|O",
            "fill_value": None,
            "order": "C",
            "filters": [{"id": "vlen-utf8"}],
            "compressor": {"id": "pcodec"},
        },
    )
    with pytest.raises(MetadataError) as info:
        zf.open_array(str(path), mode="r")
    assert info.value.field == "compressor"
    assert "codecs" not in str(info.value)


# --- Zarr v3: legacy spellings -------------------------------------------------------


def _v3(path: Path, dtype: str = "<i4", values: np.ndarray = VALUES, **options: Any) -> dict:
    """Chunks written by zarr-python 3 (C order, little-endian, no compressor)."""
    a = zarr.create_array(
        str(path), shape=values.shape, chunks=(4, 3), dtype=dtype, compressors=None, **options
    )
    a[:] = values
    return _read_json(path / "zarr.json")


def test_v3_transpose_order_F_and_bytes_without_endian(tmp_path):
    # As webknossos writes it: transpose "F", then "bytes" with no configuration.
    path = tmp_path / "a.zarr"
    document = _v3(path, fill_value=0)
    for chunk in path.glob("c/*/*"):  # the chunks as a Fortran-order writer stores them
        chunk.write_bytes(np.frombuffer(chunk.read_bytes(), "<i4").reshape(4, 3).T.tobytes())
    document["codecs"] = [{"name": "transpose", "configuration": {"order": "F"}}, {"name": "bytes"}]
    _write_json(path / "zarr.json", document)
    a = zf.open_array(str(path), mode="r+")
    np.testing.assert_array_equal(np.asarray(a[:]), VALUES)
    a.attrs["k"] = 1  # written back in the spec's spelling
    assert _read_json(path / "zarr.json")["codecs"] == [
        {"name": "transpose", "configuration": {"order": [1, 0]}},
        {"name": "bytes", "configuration": {"endian": "little"}},
    ]


def test_v3_transpose_order_C_is_the_identity(tmp_path):
    path = tmp_path / "a.zarr"
    document = _v3(path)
    document["codecs"] = [{"name": "transpose", "configuration": {"order": "C"}}, "bytes"]
    _write_json(path / "zarr.json", document)
    a = zf.open_array(str(path), mode="r")
    np.testing.assert_array_equal(np.asarray(a[:]), VALUES)
    assert a.metadata["codecs"][0] == {"name": "transpose", "configuration": {"order": [0, 1]}}


def test_v3_transpose_order_F_inside_a_shard(tmp_path):
    path = tmp_path / "a.zarr"
    values = np.arange(4 * 6, dtype="<u2").reshape(4, 6)
    a = zarr.create_array(
        str(path),
        shape=(4, 6),
        chunks=(2, 3),
        shards=(4, 6),
        dtype="<u2",
        compressors=None,
        serializer=zarr.codecs.BytesCodec(),
        filters=[zarr.codecs.TransposeCodec(order=(1, 0))],
    )
    a[:] = values
    document = _read_json(path / "zarr.json")
    sharding = document["codecs"][0]["configuration"]
    assert sharding["codecs"][0] == {"name": "transpose", "configuration": {"order": [1, 0]}}
    sharding["codecs"][0]["configuration"]["order"] = "F"
    sharding["codecs"][1] = {"name": "bytes"}
    _write_json(path / "zarr.json", document)
    np.testing.assert_array_equal(np.asarray(zf.open_array(str(path), mode="r")[:]), values)


@pytest.mark.parametrize("legacy, expected", [(0, False), (1, True)])
def test_v3_bool_fill_value_0_and_1(tmp_path, legacy, expected):
    path = tmp_path / "a.zarr"
    document = _v3(path, dtype="bool", values=np.zeros((7, 5), bool))
    for chunk in path.glob("c/*/*"):
        chunk.unlink()  # every chunk missing: reads show the fill value
    document["fill_value"] = legacy
    _write_json(path / "zarr.json", document)
    a = zf.open_array(str(path), mode="r+")
    assert np.asarray(a[:]).tolist() == np.full((7, 5), expected).tolist()
    a.attrs["k"] = 1
    assert _read_json(path / "zarr.json")["fill_value"] is expected


@pytest.mark.parametrize("name, separator, key", [("default", ".", "c.1.0"), ("v2", "/", "1/0")])
def test_v3_flat_chunk_key_encoding(tmp_path, name, separator, key):
    path = tmp_path / "a.zarr"
    encoding = {"name": name, "configuration": {"separator": separator}}
    document = _v3(path, chunk_key_encoding=encoding)
    assert (path / key).exists()
    document["chunk_key_encoding"] = {"name": name, "separator": separator}
    _write_json(path / "zarr.json", document)
    a = zf.open_array(str(path), mode="r+")
    np.testing.assert_array_equal(np.asarray(a[:]), VALUES)
    a.attrs["k"] = 1
    assert _read_json(path / "zarr.json")["chunk_key_encoding"] == encoding


def test_v3_bytes_without_endian_for_a_multi_byte_type_is_read_little_endian(tmp_path):
    path = tmp_path / "a.zarr"
    document = _v3(path)
    document["codecs"] = ["bytes"]  # the short-hand name
    _write_json(path / "zarr.json", document)
    np.testing.assert_array_equal(np.asarray(zf.open_array(str(path), mode="r")[:]), VALUES)


def test_v3_other_transpose_strings_are_still_refused(tmp_path):
    path = tmp_path / "a.zarr"
    document = _v3(path)
    document["codecs"] = [
        {"name": "transpose", "configuration": {"order": "K"}},
        {"name": "bytes", "configuration": {"endian": "little"}},
    ]
    _write_json(path / "zarr.json", document)
    with pytest.raises(MetadataError) as info:
        zf.open_array(str(path), mode="r")
    assert info.value.field == "codecs[0].configuration.order"


@pytest.mark.parametrize("stored", [np.arange(11, dtype="<i4"), np.arange(13, dtype="<i4")])
def test_v2_pcodec_chunk_with_another_element_count_is_corrupt(tmp_path, stored):
    # numcodecs would return whatever count the stream holds (or, given an output
    # buffer, silently stop early or leave the rest uninitialised)
    from zarrforge.errors import CorruptChunkError

    path = tmp_path / "a.zarr"
    _pcodec_v2(path)
    (path / "0.0").write_bytes(numcodecs.PCodec().encode(stored))
    with pytest.raises(CorruptChunkError, match="expected 12"):
        zf.open_array(str(path), mode="r")[:]


# --- Zarr v2: fill_value 0 of a fixed-length string array ---------------------------------


@pytest.mark.parametrize(
    "dtype, expected, written_back",
    [("|S1", b"0", "MA=="), ("|S3", b"0", "MAAA"), ("<U4", "0", "0"), (">U2", "0", "0")],
)
def test_v2_string_fill_value_0_reads_as_zarr_python_2_reads_it(dtype, expected, written_back):
    # older zarr-python 2 releases wrote 0 here (the public zarr-python fixtures hold it);
    # zarr-python 2 reads it as numpy casts it, "0" (tests/interop/test_zarr2_dtypes.py
    # checks against 2.18)
    group = zf.create_group(None, zarr_format=2)
    zf.create_array(group.store, "a", shape=(3,), chunks=(2,), dtype=dtype, zarr_format=2, compressors=None)
    document = json.loads(group.store.get("a/.zarray"))
    group.store.set("a/.zarray", json.dumps({**document, "fill_value": 0}).encode())
    a = zf.open_array(group.store, "a", mode="r+")
    assert a.fill_value == expected
    assert a[:].tolist() == [expected] * 3
    a.resize((4,))  # rewrites .zarray: in the spec's encoding, meaning the same
    assert json.loads(group.store.get("a/.zarray"))["fill_value"] == written_back
    assert zf.open_array(group.store, "a", mode="r")[:].tolist() == [expected] * 4
