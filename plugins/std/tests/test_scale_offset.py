"""Tests of the scale_offset codec (zarr-extensions registry)."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.codec import ChunkSpec
from zarrforge.errors import CodecError, CorruptChunkError, MetadataError
from zarrforge.registries import resolution as components
from zarrforge.testing import CodecConformance
from zarrforge_std.scale_offset_codec import ScaleOffsetCodec

SCHEMA = json.loads(
    pathlib.Path("/work/shared/specs/zarr-extensions/codecs/scale_offset/schema.json").read_text()
)


def spec(shape, name: str, fill=None) -> ChunkSpec:
    data_type = components.data_type_from_json(name)
    fill = data_type.default_fill_value() if fill is None else data_type.from_user_value(fill)
    return ChunkSpec(tuple(shape), data_type, fill, components.memory_layout("C"))


def codec(**config) -> ScaleOffsetCodec:
    return ScaleOffsetCodec.from_json("scale_offset", config or None)


def test_float_encoding_and_decoding() -> None:
    s = spec((4,), "float64", fill=np.nan)
    c = codec(offset=5, scale=0.1)
    values = np.array([5.0, 15.0, -5.0, np.nan])
    encoded = c.encode(values, s)
    assert np.allclose(encoded[:3], [0.0, 1.0, -1.0]) and np.isnan(encoded[3])
    assert np.allclose(c.decode(encoded, s)[:3], values[:3])
    assert np.isnan(c.resolve(s).fill_value)


def test_integer_offset_and_fill_value_propagate() -> None:
    s = spec((3,), "uint16", fill=1000)
    c = codec(offset=1000)
    values = np.array([1000, 1100, 1255], dtype=np.uint16)
    encoded = c.encode(values, s)
    assert encoded.dtype == np.uint16 and encoded.tolist() == [0, 100, 255]
    assert c.resolve(s).fill_value == 0
    assert c.decode(encoded, s).tolist() == values.tolist()


def test_integer_overflow_is_an_error() -> None:
    s = spec((2,), "uint8")
    with pytest.raises(CodecError, match="outside the range"):
        codec(offset=10).encode(np.array([5, 20], np.uint8), s)
    with pytest.raises(CodecError, match="multiplying"):
        codec(scale=3).encode(np.array([100], np.uint8), s)
    big = spec((1,), "int64")
    with pytest.raises(CodecError, match="outside the range"):
        codec(scale=2).encode(np.array([2**62], np.int64), big)


def test_integer_decoding_needs_exact_division() -> None:
    s = spec((2,), "int32")
    c = codec(scale=4, offset=-3)
    assert c.decode(c.encode(np.array([1, -7], np.int32), s), s).tolist() == [1, -7]
    with pytest.raises(CorruptChunkError, match="not a multiple"):
        c.decode(np.array([5, 8], np.int32), s)


def test_float_overflow_is_an_error() -> None:
    with pytest.raises(CodecError, match="cannot represent"):
        codec(scale=1e30).encode(np.array([1e30], np.float32), spec((1,), "float32"))


def test_no_configuration_is_the_identity() -> None:
    s = spec((3,), "int8")
    values = np.array([-128, 0, 127], np.int8)
    assert codec().encode(values, s).tolist() == values.tolist()
    assert codec().to_json() == {"name": "scale_offset"}


@pytest.mark.parametrize(
    "config, name, field",
    [
        ({"offset": "abc"}, "int32", "configuration.offset"),
        ({"scale": 0}, "float32", "configuration.scale"),
        ({"scale": 0.5}, "int32", "configuration.scale"),
        ({"offset": 300}, "uint8", "configuration.offset"),
    ],
)
def test_bad_parameters_for_the_data_type(config, name: str, field: str) -> None:
    with pytest.raises(MetadataError) as info:
        codec(**config).validate(spec((2,), name))
    assert info.value.field == field


def test_fill_value_that_cannot_be_encoded_is_refused() -> None:
    with pytest.raises(MetadataError) as info:
        codec(offset=10).validate(spec((2,), "uint8", fill=0))
    assert info.value.field == "fill_value"


def test_unsupported_types_and_keys_are_refused() -> None:
    with pytest.raises(MetadataError, match="does not support data type"):
        codec().validate(spec((2,), "bool"))
    with pytest.raises(MetadataError):
        ScaleOffsetCodec.from_json("scale_offset", {"offset": 1, "astype": "u1"})
    with pytest.raises(MetadataError) as info:
        ScaleOffsetCodec.from_json("scale_offset", {"scale": {"x": 1}})
    assert info.value.field == "configuration.scale"


@pytest.mark.parametrize("config", [{}, {"offset": 5, "scale": 0.1}, {"offset": "NaN"}, {"scale": 2}])
def test_to_json_matches_the_registry_schema(config) -> None:
    document = codec(**config).to_json()
    jsonschema.validate(document, SCHEMA)
    assert ScaleOffsetCodec.from_json("scale_offset", document.get("configuration")) == codec(**config)


def test_round_trip_through_an_array(tmp_path: pathlib.Path) -> None:
    values = np.arange(1000, 1100, dtype=np.int32).reshape(10, 10)
    array = zf.create_array(
        str(tmp_path / "a"),
        shape=values.shape,
        chunks=(4, 4),
        dtype="int32",
        fill_value=1000,
        filters=[{"name": "scale_offset", "configuration": {"offset": 1000, "scale": 2}}],
    )
    array[...] = values
    array[0, :3] = 1000  # the fill value, partly
    values[0, :3] = 1000
    assert np.array_equal(zf.open_array(str(tmp_path / "a"))[...], values)
    stored = json.loads((tmp_path / "a" / "zarr.json").read_text())["codecs"][0]
    jsonschema.validate(stored, SCHEMA)


class TestScaleOffsetConformance(CodecConformance):
    codec_documents = ["scale_offset", {"name": "scale_offset", "configuration": {"offset": 0.5, "scale": 4}}]
    data_type = "float64"
    lossless = False  # float rounding

    def sample(self, spec):
        return np.linspace(-1e3, 1e3, int(np.prod(spec.shape))).reshape(spec.shape)
