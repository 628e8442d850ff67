"""The zarrs ``optional`` data type and codec: values or missing, nested too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge.testing import CodecConformance, DataTypeConformance
from zarrforge_dtypes.optional_type import Optional, Some

ZARRS = Path(__file__).resolve().parents[3] / "tests/external/data/zarrs/zarrs/tests/data/v3"
UINT8 = {"name": "optional", "configuration": {"name": "uint8", "configuration": {}}}
NESTED = {"name": "optional", "configuration": UINT8}


def _with_gaps(shape, inner: np.dtype, nested: bool = False) -> np.ndarray:
    values = np.empty(shape, dtype=object)
    for index, flat in zip(np.ndindex(*shape), range(int(np.prod(shape)))):
        value = None if flat % 3 == 1 else inner.type(flat % 100)
        if nested and value is not None:
            value = Some(None if flat % 5 == 0 else value)
        values[index] = value
    return values


class TestOptionalUint8(DataTypeConformance):
    data_type_documents = [UINT8]
    valid_fill_values = [None, 7, 255]
    invalid_fill_values = ["seven", [7], 1.5, 256]

    def sample(self, data_type, shape):
        return _with_gaps(shape, data_type.inner.numpy_dtype)


class TestOptionalFloat64(TestOptionalUint8):
    data_type_documents = [{"name": "optional", "configuration": {"name": "float64", "configuration": {}}}]
    valid_fill_values = [None, 7, 1.5, "NaN", "-Infinity"]
    invalid_fill_values = ["seven", [7]]


class TestOptionalCodec(CodecConformance):
    codec_documents = [
        {
            "name": "optional",
            "configuration": {
                "mask_codecs": [{"name": "packbits"}],
                "data_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            },
        }
    ]
    data_type = UINT8

    def sample(self, spec):
        return _with_gaps(spec.shape, np.dtype("uint8"))


def test_the_data_type_reads_a_bare_inner_name_and_writes_the_object_form():
    from zarrforge.plugin_api import data_type_from_json

    data_type = data_type_from_json({"name": "optional", "configuration": {"name": "int16"}})
    assert data_type.to_json() == {
        "name": "optional",
        "configuration": {"name": "int16", "configuration": {}},
    }
    nested = data_type_from_json(NESTED)
    assert isinstance(nested, Optional) and nested.nested
    assert nested.fill_value_from_json([None]) == Some(None)
    assert nested.fill_value_to_json(Some(3)) == [3]
    with pytest.raises(MetadataError, match="one-element list"):
        nested.fill_value_from_json(3)
    with pytest.raises(MetadataError) as caught:
        data_type_from_json({"name": "optional"})
    assert caught.value.field is not None


@pytest.mark.parametrize(
    "name,document", [("array_optional.zarr", UINT8), ("array_optional_nested.zarr", NESTED)]
)
def test_zarrs_fixtures_read_as_their_description_draws_them(name, document):
    array = zf.open_array(str(ZARRS / name), "array")
    assert array.metadata["data_type"] == document
    rows = [line.split() for line in array.attrs["description"].splitlines()]
    rows = [row for row in rows if len(row) == 4]
    nested = document is NESTED
    expected = [
        [
            None
            if cell == "N"
            else (Some(None) if cell == "SN" else (Some(int(cell)) if nested else int(cell)))
            for cell in row
        ]
        for row in rows
    ]
    assert array[...].tolist() == expected


@pytest.mark.parametrize("name", ["array_optional.zarr", "array_optional_nested.zarr"])
def test_what_zarrforge_writes_is_byte_for_byte_what_zarrs_wrote(tmp_path, name):
    theirs = zf.open_array(str(ZARRS / name), "array")
    ours = zf.create_array(
        str(tmp_path / "ours.zarr"),
        shape=theirs.shape,
        chunks=(2, 2),
        dtype=theirs.metadata["data_type"],
        fill_value=theirs.metadata["fill_value"] and Some(None),
        serializer=theirs.metadata["codecs"][0],
        compressors=None,
    )
    ours[...] = theirs[...]
    for key in theirs.store.list_prefix("array/c/"):
        assert ours.store.get(key[len("array/") :]) == theirs.store.get(key), key


def test_round_trips_with_other_inner_types_and_reopening(tmp_path):
    for inner, values in [
        ("float32", [1.5, None, float("-inf")]),
        ("string", ["a", None, "Grüße"]),
        ("int64", [None, None, None]),
    ]:
        document = {"name": "optional", "configuration": {"name": inner}}
        path = str(tmp_path / f"{inner}.zarr")
        array = zf.create_array(path, shape=(3,), chunks=(2,), dtype=document)
        array[...] = np.array(values, dtype=object)
        assert zf.open_array(path)[...].tolist() == values
    nested = zf.create_array(str(tmp_path / "n.zarr"), shape=(4,), chunks=(4,), dtype=NESTED)
    nested[...] = np.array([None, Some(None), Some(2), None], dtype=object)
    assert zf.open_array(str(tmp_path / "n.zarr"))[...].tolist() == [None, Some(None), Some(2), None]


@pytest.mark.parametrize(
    "damage", [lambda b: b[:10], lambda b: b + b"x", lambda b: (10**6).to_bytes(8, "little") + b[8:]]
)
def test_damaged_chunks_are_corrupt_chunk_errors(tmp_path, damage):
    array = zf.create_array(str(tmp_path / "d.zarr"), shape=(4,), chunks=(4,), dtype=UINT8)
    array[...] = np.array([1, None, 3, 4], dtype=object)
    array.store.set("c/0", damage(array.store.get("c/0")))
    with pytest.raises(CorruptChunkError):
        zf.open_array(str(tmp_path / "d.zarr"))[...]


def test_a_damaged_part_names_the_chunk_key_not_an_inner_label(tmp_path):
    """Before: damage inside the data part named the chunk '<optional data>' (found by
    the codec fuzz target, which demands the chunk's own key)."""
    import struct

    array = zf.create_array(
        str(tmp_path / "p.zarr"),
        shape=(4,),
        chunks=(4,),
        dtype={"name": "optional", "configuration": {"name": "int16"}},
        compressors=None,
    )
    array[...] = np.array([1, None, 3, 4], dtype=object)
    stored = array.store.get("c/0")
    mask_length, data_length = struct.unpack_from("<QQ", stored)
    header = struct.pack("<QQ", mask_length, data_length - 2)  # one int16 short
    array.store.set("c/0", header + stored[16:-2])
    with pytest.raises(CorruptChunkError, match="codec 'optional', its data") as caught:
        zf.open_array(str(tmp_path / "p.zarr"))[...]
    assert caught.value.key == "c/0" and "<optional" not in str(caught.value)


def test_the_codec_refuses_other_data_types():
    with pytest.raises(MetadataError, match="'optional' data type only"):
        zf.create_array(
            None,
            shape=(4,),
            chunks=(4,),
            dtype="uint8",
            serializer=TestOptionalCodec.codec_documents[0],
            compressors=None,
        )
