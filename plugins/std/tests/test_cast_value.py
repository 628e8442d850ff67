"""Tests of the cast_value codec (zarr-extensions registry)."""

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
from zarrforge_std.cast_value_codec import CastValueCodec

SCHEMA = json.loads(
    pathlib.Path("/work/shared/specs/zarr-extensions/codecs/cast_value/schema.json").read_text()
)


def spec(shape, name: str, fill=None) -> ChunkSpec:
    data_type = components.data_type_from_json(name)
    fill = data_type.default_fill_value() if fill is None else data_type.from_user_value(fill)
    return ChunkSpec(tuple(shape), data_type, fill, components.memory_layout("C"))


def codec(**config) -> CastValueCodec:
    return CastValueCodec.from_json("cast_value", config)


def test_exact_values_cast_and_come_back() -> None:
    s = spec((4,), "uint16")
    c = codec(data_type="uint8")
    values = np.array([0, 1, 200, 255], np.uint16)
    encoded = c.encode(values, s)
    assert encoded.dtype == np.uint8 and encoded.tolist() == values.tolist()
    assert c.decode(encoded, s).dtype == np.uint16
    assert c.resolve(s).data_type.to_json() == "uint8"


@pytest.mark.parametrize(
    "rounding, expected",
    [
        ("nearest-even", [2, -2, 2, 0, -0.0, 3]),
        ("towards-zero", [2, -2, 1, 0, 0, 2]),
        ("towards-positive", [3, -2, 2, 1, 0, 3]),
        ("towards-negative", [2, -3, 1, 0, -1, 2]),
        ("nearest-away", [3, -3, 2, 1, -1, 3]),
    ],
)
def test_rounding_into_integers(rounding: str, expected: list) -> None:
    values = np.array([2.5, -2.5, 1.5, 0.5, -0.5, 2.7])
    encoded = codec(data_type="int8", rounding=rounding).encode(values, spec((6,), "float64"))
    assert encoded.tolist() == [int(e) for e in expected]


def test_rounding_into_a_narrower_float() -> None:
    s = spec((1,), "float64")
    x = np.array([1 + 2**-30])  # between float32 1.0 and its successor
    up = codec(data_type="float32", rounding="towards-positive").encode(x, s)
    down = codec(data_type="float32", rounding="towards-zero").encode(x, s)
    assert down[0] == np.float32(1.0) and up[0] == np.nextafter(np.float32(1), np.float32(2))
    nearest = codec(data_type="float32").encode(x, s)
    assert nearest[0] == np.float32(1.0)


@pytest.mark.parametrize("out_of_range, expected", [("clamp", [127, -128, 5]), ("wrap", [-128, 127, 5])])
def test_out_of_range_rules(out_of_range: str, expected: list) -> None:
    s = spec((3,), "float64")
    values = np.array([128.0, -129.0, 5.0])
    assert codec(data_type="int8", out_of_range=out_of_range).encode(values, s).tolist() == expected
    ints = np.array([128, -129, 5], np.int16)
    assert (
        codec(data_type="int8", out_of_range=out_of_range).encode(ints, spec((3,), "int16")).tolist()
        == expected
    )


def test_out_of_range_without_a_rule_is_an_error() -> None:
    with pytest.raises(CodecError, match="outside the range"):
        codec(data_type="int8").encode(np.array([128.0]), spec((1,), "float64"))
    with pytest.raises(CorruptChunkError, match="outside the range"):
        codec(data_type="int16").decode(np.array([300], np.int16), spec((1,), "uint8"))
    with pytest.raises(CodecError, match="outside the range"):
        codec(data_type="float16").encode(np.array([1e6]), spec((1,), "float64"))


def test_nan_needs_a_scalar_map_for_integers() -> None:
    s = spec((3,), "float64", fill=np.nan)
    with pytest.raises(CodecError, match="scalar_map"):
        codec(data_type="uint8").encode(np.array([np.nan]), spec((1,), "float64"))
    c = codec(data_type="uint8", scalar_map={"encode": [["NaN", 0], ["NaN", 9]], "decode": [[0, "NaN"]]})
    encoded = c.encode(np.array([np.nan, 1.0, 255.0]), s)
    assert encoded.tolist() == [0, 1, 255]
    decoded = c.decode(encoded, s)
    assert np.isnan(decoded[0]) and decoded[1:].tolist() == [1.0, 255.0]
    assert c.resolve(s).fill_value == 0


def test_nan_and_signed_zero_propagate_between_floats() -> None:
    encoded = codec(data_type="float32").encode(np.array([np.nan, -0.0, np.inf]), spec((3,), "float64"))
    assert np.isnan(encoded[0]) and np.signbit(encoded[1]) and np.isinf(encoded[2])


def test_fill_value_must_survive_the_round_trip() -> None:
    with pytest.raises(MetadataError) as info:
        codec(data_type="int8").validate(spec((2,), "float64", fill=0.5))
    assert info.value.field == "fill_value"
    with pytest.raises(MetadataError) as info:
        codec(data_type="uint8").validate(spec((2,), "float64", fill=np.nan))
    assert info.value.field == "fill_value"


@pytest.mark.parametrize(
    "config, field",
    [
        ({}, "configuration"),
        ({"data_type": "int8", "rounding": "up"}, "configuration.rounding"),
        ({"data_type": "int8", "out_of_range": "saturate"}, "configuration.out_of_range"),
        ({"data_type": "float32", "out_of_range": "wrap"}, "configuration.out_of_range"),
        ({"data_type": "no_such_type"}, "configuration.data_type"),
        ({"data_type": "bool"}, "configuration.data_type"),
        ({"data_type": 7}, "configuration.data_type"),
        ({"data_type": "int8", "scalar_map": {"encode": [[1]]}}, "configuration.scalar_map.encode"),
        ({"data_type": "int8", "scalar_map": {"both": []}}, "configuration.scalar_map"),
    ],
)
def test_bad_configuration_names_the_field(config: dict, field: str) -> None:
    with pytest.raises(MetadataError) as info:
        CastValueCodec.from_json("cast_value", config)
    assert info.value.field == field


def test_scalar_map_values_are_checked_against_the_types() -> None:
    c = codec(data_type="uint8", scalar_map={"encode": [["NaN", 300]]})
    with pytest.raises(MetadataError) as info:
        c.validate(spec((1,), "float64"))
    assert info.value.field == "configuration.scalar_map.encode[0]"


@pytest.mark.parametrize(
    "config",
    [
        {"data_type": "uint8"},
        {
            "data_type": "uint8",
            "rounding": "nearest-even",
            "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
        },
        {"data_type": "int16", "rounding": "towards-zero", "out_of_range": "wrap"},
    ],
)
def test_to_json_matches_the_registry_schema(config: dict) -> None:
    document = codec(**config).to_json()
    jsonschema.validate(document, SCHEMA)
    assert document == {"name": "cast_value", "configuration": config}


def test_scale_offset_then_cast_through_an_array(tmp_path: pathlib.Path) -> None:
    # the registry's "Float64 to uint8 with NaN preservation" example
    values = np.array([[0.0, 2540.0, np.nan], [100.0, 5.0, 1270.0]])
    filters = [
        {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
        {
            "name": "cast_value",
            "configuration": {
                "data_type": "uint8",
                "rounding": "nearest-even",
                "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
            },
        },
    ]
    array = zf.create_array(
        str(tmp_path / "a"),
        shape=values.shape,
        chunks=(2, 2),
        dtype="float64",
        fill_value=np.nan,
        filters=filters,
        compressors=[],
    )
    array[...] = values
    read = zf.open_array(str(tmp_path / "a"))[...]
    assert np.allclose(read, values, atol=5, equal_nan=True)
    chunk = (tmp_path / "a" / "c" / "0" / "0").read_bytes()
    assert len(chunk) == 4  # one byte per value
    stored = json.loads((tmp_path / "a" / "zarr.json").read_text())["codecs"][1]
    jsonschema.validate(stored, SCHEMA)


class TestCastValueConformance(CodecConformance):
    codec_documents = [
        {"name": "cast_value", "configuration": {"data_type": "float64"}},
        {"name": "cast_value", "configuration": {"data_type": "int64", "out_of_range": "clamp"}},
    ]
    data_type = "int32"


@pytest.mark.parametrize("target, endian", [("uint8", None), ("int16", "little")])
def test_a_bytes_codec_without_endian_is_judged_by_the_type_cast_value_gives_it(
    tmp_path: pathlib.Path, target: str, endian: str | None
) -> None:
    """zarr-python 3.4 writes float64 cast to uint8 with ``{"name": "bytes"}``: no byte order
    is needed for the uint8 that reaches it, so zarrforge must not add one when reading (it
    used to judge by the array's float64). Without ``endian`` for a multi-byte target, the
    legacy rule (little-endian) still applies."""
    document = {
        "zarr_format": 3,
        "node_type": "array",
        "shape": [3],
        "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
        "chunk_key_encoding": {"name": "default"},
        "fill_value": 0.0,
        "codecs": [{"name": "cast_value", "configuration": {"data_type": target}}, {"name": "bytes"}],
    }
    (tmp_path / "zarr.json").write_text(json.dumps(document))
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "0").write_bytes(np.array([1, 2, 3], f"<{np.dtype(target).str[1:]}").tobytes())
    a = zf.open_array(str(tmp_path), mode="r+")
    expected = {"name": "bytes"} if endian is None else {"name": "bytes", "configuration": {"endian": endian}}
    assert a.codecs[-1].to_json() == expected
    assert a[...].tolist() == [1.0, 2.0, 3.0]
    a.attrs["touched"] = True  # rewriting the document keeps the bytes codec as read
    assert json.loads((tmp_path / "zarr.json").read_text())["codecs"][-1] == expected
