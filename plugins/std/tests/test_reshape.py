"""Tests of the reshape codec (zarr-extensions registry)."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.codec import ChunkSpec
from zarrforge.errors import MetadataError
from zarrforge.registries import resolution as components
from zarrforge.testing import CodecConformance
from zarrforge_std.reshape_codec import ReshapeCodec

SCHEMA = json.loads(pathlib.Path("/work/shared/specs/zarr-extensions/codecs/reshape/schema.json").read_text())


def spec(shape, name: str = "int32") -> ChunkSpec:
    data_type = components.data_type_from_json(name)
    return ChunkSpec(tuple(shape), data_type, data_type.default_fill_value(), components.memory_layout("C"))


def codec(shape) -> ReshapeCodec:
    return ReshapeCodec.from_json("reshape", {"shape": shape})


@pytest.mark.parametrize(
    "shape, decoded, encoded",
    [
        ([[0, 1], [2], 3], (100, 50, 64, 3), (5000, 64, 3)),  # the README's example
        ([-1], (4, 5, 6), (120,)),
        ([[0], -1], (4, 5, 6), (4, 30)),
        ([2, -1, [2]], (4, 5, 6), (2, 10, 6)),
        ([[], [0, 1, 2]], (4, 5, 6), (1, 120)),
        ([6, 20], (4, 5, 6), (6, 20)),
    ],
)
def test_encoded_shape(shape, decoded, encoded) -> None:
    assert codec(shape).resolve(spec(decoded)).shape == encoded


def test_round_trip_preserves_c_order() -> None:
    s = spec((4, 5, 6))
    values = np.arange(120, dtype=np.int32).reshape(4, 5, 6)
    c = codec([[0], -1])
    encoded = c.encode(values, s)
    assert encoded.shape == (4, 30) and np.array_equal(encoded.ravel(), values.ravel())
    assert np.array_equal(c.decode(encoded, s), values)
    # a non-contiguous chunk keeps its logical order too
    view = values[:, ::-1, :]
    assert np.array_equal(c.encode(view, s).ravel(), view.ravel())


@pytest.mark.parametrize(
    "shape, message",
    [
        ([[1], [0]], "strictly increasing"),
        ([[1, 0], 10, [3, 4]], "strictly increasing"),
        ([[3, 4], 10, [0, 1]], "strictly increasing"),
        ([-1, -1], "at most once"),
        ([0, 3], "positive integer"),
        ([-2], "positive integer"),
        ([[0, -1]], "list of input dimension"),
        ([1.5], "positive integer, -1"),
        ("12", "must be a list"),
    ],
)
def test_bad_shapes_are_refused_without_an_array(shape, message: str) -> None:
    with pytest.raises(MetadataError, match=message) as info:
        codec(shape)
    assert info.value.field == "configuration.shape"


@pytest.mark.parametrize(
    "shape, decoded, message",
    [
        ([7, -1], (4, 5, 6), "no size for -1"),
        ([6, 21], (4, 5, 6), "holds 126 elements"),
        ([[0], [3]], (4, 5, 6), "names input dimension 3"),
        ([[1], -1], (4, 5, 6), "does not line up"),
        ([[0, 1], 2, [2]], (4, 5, 6), "holds 240"),
    ],
)
def test_shapes_that_do_not_fit_the_chunk_are_refused(shape, decoded, message: str) -> None:
    with pytest.raises(MetadataError, match=message) as info:
        codec(shape).validate(spec(decoded))
    assert info.value.field == "configuration.shape"


def test_missing_or_unknown_keys_are_refused() -> None:
    with pytest.raises(MetadataError):
        ReshapeCodec.from_json("reshape", None)
    with pytest.raises(MetadataError, match="order"):
        ReshapeCodec.from_json("reshape", {"shape": [-1], "order": "C"})


@pytest.mark.parametrize("shape", [[-1], [[0, 1], [2], 3], [[], 4, -1]])
def test_to_json_matches_the_registry_schema(shape) -> None:
    document = codec(shape).to_json()
    jsonschema.validate(document, SCHEMA)
    assert document == {"name": "reshape", "configuration": {"shape": shape}}


def test_round_trip_through_an_array(tmp_path: pathlib.Path) -> None:
    values = np.arange(11 * 9 * 4, dtype=np.float64).reshape(11, 9, 4)
    array = zf.create_array(
        str(tmp_path / "a"),
        shape=values.shape,
        chunks=(5, 3, 4),
        dtype="float64",
        filters=[
            {"name": "reshape", "configuration": {"shape": [[0, 1], 4]}},
            {"name": "transpose", "configuration": {"order": [1, 0]}},
        ],
    )
    array[...] = values
    array[2:7, 1, :] = -1.0
    values[2:7, 1, :] = -1.0
    assert np.array_equal(zf.open_array(str(tmp_path / "a"))[...], values)
    stored = json.loads((tmp_path / "a" / "zarr.json").read_text())["codecs"][0]
    jsonschema.validate(stored, SCHEMA)


def test_array_creation_refuses_a_shape_that_does_not_fit(tmp_path: pathlib.Path) -> None:
    with pytest.raises(MetadataError, match="reshape"):
        zf.create_array(
            str(tmp_path / "a"),
            shape=(10, 10),
            chunks=(5, 5),
            dtype="int8",
            filters=[{"name": "reshape", "configuration": {"shape": [7, -1]}}],
        )


class TestReshapeConformance(CodecConformance):
    codec_documents = [
        {"name": "reshape", "configuration": {"shape": [-1]}},
        {"name": "reshape", "configuration": {"shape": [[0], 5, 1]}},
    ]
