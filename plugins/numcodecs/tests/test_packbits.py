"""Tests of the packbits codec (zarr-extensions registry)."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.codec import ChunkSpec
from zarrforge.abc.data_type import DataType
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge.registries import resolution as components
from zarrforge.testing import CodecConformance
from zarrforge_numcodecs.packbits_codec import PackbitsCodec

SCHEMA = json.loads(
    pathlib.Path("/work/shared/specs/zarr-extensions/codecs/packbits/schema.json").read_text()
)


class _Type(DataType):
    """A numpy-backed data type; ``bit_size`` set for sub-byte types like int4."""

    def __init__(self, dtype: str, name: str | None = None, bit_size: int | None = None):
        self._dtype = np.dtype(dtype)
        self._name = name or self._dtype.name
        self._bits = bit_size

    @property
    def bit_size(self):
        return self._bits

    @classmethod
    def from_json(cls, name, configuration):
        return cls(name)

    def to_json(self):
        return self._name

    @property
    def numpy_dtype(self):
        return self._dtype

    def fill_value_from_json(self, value):
        return self._dtype.type(value)

    def fill_value_to_json(self, value):
        return value.item()

    def default_fill_value(self):
        return self._dtype.type(0)


def spec(shape, dtype, **kw) -> ChunkSpec:
    return ChunkSpec(tuple(shape), _Type(dtype, **kw), 0, components.memory_layout("C"))


def test_bool_packs_one_bit_per_element_least_significant_first() -> None:
    codec = PackbitsCodec()
    values = np.array([1, 0, 1, 1, 0, 0, 0, 0, 1, 1], dtype=bool)
    encoded = codec.encode(values, spec((10,), "bool"))
    assert encoded == bytes([0b00001101, 0b00000011])
    assert codec.encoded_size(spec((10,), "bool")) == 2
    assert np.array_equal(codec.decode(encoded, spec((10,), "bool")), values)


@pytest.mark.parametrize(
    "padding, expected",
    [
        ("start_byte", b"\x06\x0d\x03"),
        ("end_byte", b"\x0d\x03\x06"),
        ("first_byte", b"\x06\x0d\x03"),
        ("last_byte", b"\x0d\x03\x06"),
    ],
)
def test_padding_byte_counts_padding_bits(padding: str, expected: bytes) -> None:
    codec = PackbitsCodec.from_json("packbits", {"padding_encoding": padding})
    values = np.array([1, 0, 1, 1, 0, 0, 0, 0, 1, 1], dtype=bool)
    assert codec.encode(values, spec((10,), "bool")) == expected
    assert np.array_equal(codec.decode(expected, spec((10,), "bool")), values)
    bad = bytearray(expected)
    bad[0 if expected[0] == 6 else -1] = 5
    with pytest.raises(CorruptChunkError, match="padding byte"):
        codec.decode(bytes(bad), spec((10,), "bool"))


@pytest.mark.parametrize(
    "dtype",
    [
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "float32",
        "float64",
        "complex64",
        "complex128",
        ">i4",
    ],
)
def test_full_width_types_round_trip_and_match_bytes_little_endian(dtype: str) -> None:
    rng = np.random.default_rng(3)
    s = spec((4, 5), dtype)
    values = rng.integers(0, 256, 20 * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype).reshape(4, 5)
    encoded = PackbitsCodec().encode(values, s)
    assert encoded == values.astype(np.dtype(dtype).newbyteorder("<")).tobytes()
    decoded = PackbitsCodec().decode(encoded, s)
    assert decoded.tobytes() == values.tobytes()


def test_bit_range_keeps_and_sign_extends() -> None:
    codec = PackbitsCodec(start_bit=2, end_bit=5)  # 4 bits per element
    s = spec((4,), "int16")
    values = np.array([0b101100, 0b011100, -4, 0b111111_1100], dtype=np.int16)
    encoded = codec.encode(values, s)
    assert len(encoded) == codec.encoded_size(s) == 2
    decoded = codec.decode(encoded, s)
    # bits 2..5 shifted back to bit 2, bit 5 sign-extended: 0b101100 -> -20
    assert decoded.tolist() == [-20, 0b011100, -4, -4]
    unsigned = PackbitsCodec(start_bit=2, end_bit=5).decode(encoded, spec((4,), "uint16"))
    assert unsigned.tolist() == [0b101100, 0b011100, 0b111100, 0b111100]


@pytest.mark.parametrize(
    "name, dtype, bits",
    [("int4", "int8", 4), ("uint4", "uint8", 4), ("int2", "int8", 2), ("uint2", "uint8", 2)],
)
@pytest.mark.parametrize("declared", [True, False])
def test_sub_byte_integer_types(name: str, dtype: str, bits: int, declared: bool) -> None:
    # declared: the type says bit_size; else the registry name decides the width
    s = spec((3, 5), dtype, name=name, bit_size=bits if declared else None)
    info = np.iinfo(dtype)
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if info.min < 0 else (0, (1 << bits) - 1)
    values = np.arange(15).reshape(3, 5) % (high - low + 1) + low
    values = values.astype(dtype)
    codec = PackbitsCodec()
    encoded = codec.encode(values, s)
    assert len(encoded) == codec.encoded_size(s) == -(-15 * bits // 8)
    assert np.array_equal(codec.decode(encoded, s), values)
    with pytest.raises(MetadataError, match="end_bit"):
        PackbitsCodec(end_bit=bits).validate(s)


def test_int4_layout_is_little_endian_nibbles() -> None:
    s = spec((3,), "int8", name="int4", bit_size=4)
    assert PackbitsCodec().encode(np.array([1, -1, 7], np.int8), s) == bytes([0xF1, 0x07])


@pytest.mark.parametrize(
    "configuration, field",
    [
        ({"padding_encoding": "middle"}, "configuration.padding_encoding"),
        ({"start_bit": -1}, "configuration.start_bit"),
        ({"end_bit": "3"}, "configuration.end_bit"),
        ({"start_bit": 4, "end_bit": 2}, "configuration.end_bit"),
        ({"first_bit": 1, "start_bit": 1}, "configuration.first_bit"),
        ({"stride": 1}, "configuration.stride"),
    ],
)
def test_bad_configuration_names_the_field(configuration: dict, field: str) -> None:
    with pytest.raises(MetadataError) as info:
        PackbitsCodec.from_json("packbits", configuration)
    assert info.value.field == field


def test_unsupported_data_type_is_refused() -> None:
    with pytest.raises(MetadataError, match="does not support data type"):
        PackbitsCodec().validate(spec((2,), "U4"))


def test_wrong_length_is_corrupt_without_decoding() -> None:
    s = spec((1000, 1000), "bool")
    with pytest.raises(CorruptChunkError, match="expected 125000"):
        PackbitsCodec().decode(b"\xff" * 10, s)


@pytest.mark.parametrize(
    "configuration",
    [
        None,
        {"padding_encoding": "first_byte"},
        {"first_bit": 1, "last_bit": 3},
        {"padding_encoding": "end_byte", "start_bit": None, "end_bit": 0},
    ],
)
def test_to_json_matches_the_registry_schema(configuration) -> None:
    document = PackbitsCodec.from_json("packbits", configuration).to_json()
    jsonschema.validate(document, SCHEMA)
    assert PackbitsCodec.from_json("packbits", document["configuration"]).to_json() == document


@pytest.mark.parametrize(
    "dtype, serializer",
    [
        ("bool", {"name": "packbits", "configuration": {"padding_encoding": "start_byte"}}),
        ("uint16", {"name": "packbits", "configuration": {"end_bit": 11}}),
        ("int32", "packbits"),
    ],
)
def test_round_trip_through_an_array(tmp_path: pathlib.Path, dtype: str, serializer) -> None:
    rng = np.random.default_rng(5)
    values = (
        rng.integers(0, 2, (9, 13)).astype(bool)
        if dtype == "bool"
        else rng.integers(0, 4096, (9, 13)).astype(dtype)
    )
    array = zf.create_array(
        str(tmp_path / "a"),
        shape=values.shape,
        chunks=(4, 5),
        dtype=dtype,
        serializer=serializer,
        compressors=[],
    )
    array[...] = values
    reopened = zf.open_array(str(tmp_path / "a"))
    assert np.array_equal(reopened[...], values)
    stored = json.loads((tmp_path / "a" / "zarr.json").read_text())["codecs"][0]
    assert stored["name"] == "packbits"
    jsonschema.validate(stored, SCHEMA)


class TestPackbitsConformance(CodecConformance):
    codec_documents = [
        "packbits",
        {
            "name": "packbits",
            "configuration": {"padding_encoding": "start_byte", "start_bit": 3, "end_bit": 40},
        },
    ]
    data_type = "float64"
    lossless = False  # the bit range drops bits


class TestPackbitsBoolConformance(CodecConformance):
    codec_documents = ["packbits", {"name": "packbits", "configuration": {"padding_encoding": "end_byte"}}]
    data_type = "bool"
