"""Tests of the bitround codec (zarr-extensions registry)."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import numcodecs
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.codec import ChunkSpec
from zarrforge.errors import MetadataError
from zarrforge.registries import resolution as components
from zarrforge.testing import CodecConformance
from zarrforge_numcodecs.bitround_codec import BitroundCodec

SCHEMA = json.loads(
    pathlib.Path("/work/shared/specs/zarr-extensions/codecs/bitround/schema.json").read_text()
)


def spec(shape, name: str) -> ChunkSpec:
    data_type = components.data_type_from_json(name)
    return ChunkSpec(tuple(shape), data_type, data_type.default_fill_value(), components.memory_layout("C"))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("keepbits", [1, 3, 9, 10])
def test_floats_match_numcodecs_bitround(dtype: str, keepbits: int) -> None:
    rng = np.random.default_rng(keepbits)
    values = (rng.standard_normal((6, 7)) * 1000).astype(dtype)
    ours = BitroundCodec(keepbits=keepbits).encode(values, spec(values.shape, dtype))
    theirs = numcodecs.BitRound(keepbits=keepbits).encode(values).reshape(values.shape)
    assert ours.tobytes() == theirs.tobytes()


def test_complex_rounds_each_component() -> None:
    values = np.array([1.2345678 + 9.8765432j, -3.3333 - 0.00777j], dtype=np.complex128)
    encoded = BitroundCodec(keepbits=8).encode(values, spec((2,), "complex128"))
    parts = values.view(np.float64)
    expected = numcodecs.BitRound(keepbits=8).encode(parts).view(np.complex128)
    assert encoded.tobytes() == expected.tobytes()
    assert not np.array_equal(encoded, values)


def test_keepbits_at_least_the_mantissa_changes_nothing() -> None:
    values = np.array([1.1, 2.2, np.pi], dtype=np.float32)
    assert BitroundCodec(keepbits=23).encode(values, spec((3,), "float32")).tobytes() == values.tobytes()
    assert BitroundCodec(keepbits=40).encode(values, spec((3,), "float32")).tobytes() == values.tobytes()


def test_integers_round_from_the_most_significant_set_bit() -> None:
    codec = BitroundCodec(keepbits=2)
    values = np.array([22, 20, 28, 3, 0, 1, 255], dtype=np.uint8)
    # 22 -> 24 (nearest), 20 -> 16 (tie to even), 28 -> 32, 3 and below kept,
    # 255 -> the carry out of 8 bits saturates (to 255), then the mask keeps 2 bits: 192
    assert codec.encode(values, spec((7,), "uint8")).tolist() == [24, 16, 32, 3, 0, 1, 192]
    big = np.array([1_000_003, 2**40 + 12345], dtype=np.int64)
    assert BitroundCodec(keepbits=4).encode(big, spec((2,), "int64")).tolist() == [
        0xF0000,
        2**40,
    ]  # 1_000_003 = 0xF4243: top 4 bits kept, next bit 0


def test_decode_returns_the_input_and_resolve_keeps_the_spec() -> None:
    s = spec((3,), "float32")
    values = np.array([1.5, 2.5, 3.5], dtype=np.float32)
    codec = BitroundCodec(keepbits=3)
    assert codec.decode(values, s) is values
    assert codec.resolve(s) == s


@pytest.mark.parametrize(
    "configuration, field",
    [
        (None, "configuration"),
        ({}, "configuration.keepbits"),
        ({"keepbits": 0}, "configuration.keepbits"),
        ({"keepbits": True}, "configuration.keepbits"),
        ({"keepbits": 3, "x": 1}, "configuration.x"),
    ],
)
def test_bad_configuration_names_the_field(configuration, field: str) -> None:
    with pytest.raises(MetadataError) as info:
        BitroundCodec.from_json("bitround", configuration)
    assert info.value.field == field


def test_unsupported_data_type_is_refused() -> None:
    with pytest.raises(MetadataError, match="does not support data type"):
        BitroundCodec(keepbits=3).validate(spec((2,), "bool"))


def test_to_json_matches_the_registry_schema() -> None:
    document = BitroundCodec.from_json("bitround", {"keepbits": 10}).to_json()
    jsonschema.validate(document, SCHEMA)
    assert document == {"name": "bitround", "configuration": {"keepbits": 10}}


def test_round_trip_through_an_array(tmp_path: pathlib.Path) -> None:
    values = np.linspace(-50, 50, 120, dtype=np.float32).reshape(10, 12)
    array = zf.create_array(
        str(tmp_path / "a"),
        shape=values.shape,
        chunks=(5, 5),
        dtype="float32",
        filters=[{"name": "bitround", "configuration": {"keepbits": 6}}],
    )
    array[...] = values
    read = zf.open_array(str(tmp_path / "a"))[...]
    expected = numcodecs.BitRound(keepbits=6).encode(values).view(values.dtype).reshape(values.shape)
    assert np.array_equal(read, expected)
    assert not np.array_equal(read, values)
    stored = json.loads((tmp_path / "a" / "zarr.json").read_text())["codecs"][0]
    jsonschema.validate(stored, SCHEMA)


class TestBitroundConformance(CodecConformance):
    codec_documents = [{"name": "bitround", "configuration": {"keepbits": 5}}]
    data_type = "float32"
    lossless = False


class TestBitroundIntegerConformance(CodecConformance):
    codec_documents = [{"name": "bitround", "configuration": {"keepbits": 64}}]
    data_type = "int64"
