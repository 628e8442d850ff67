"""Tests of the n5_default codec (zarr-extensions registry)."""

from __future__ import annotations

import gzip
import json
import pathlib
import struct

import jsonschema
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.codec import ChunkSpec
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge.registries import resolution as components
from zarrforge.testing import CodecConformance
from zarrforge_numcodecs.n5_default_codec import N5DefaultCodec

T2 = {"name": "transpose", "configuration": {"order": [1, 0]}}
BIG = {"name": "bytes", "configuration": {"endian": "big"}}
GZIP = {"name": "gzip", "configuration": {"level": 5}}


def spec(shape, name: str = "uint16") -> ChunkSpec:
    data_type = components.data_type_from_json(name)
    return ChunkSpec(tuple(shape), data_type, data_type.default_fill_value(), components.memory_layout("C"))


def codec(*codecs) -> N5DefaultCodec:
    return N5DefaultCodec.from_json("n5_default", {"codecs": list(codecs)})


def n5_block(values: np.ndarray, compress: bool) -> bytes:
    """An N5 default-mode block as N5 writes it: header, then big-endian F-order data."""
    header = struct.pack(f">HH{values.ndim}I", 0, values.ndim, *values.shape)
    data = values.astype(values.dtype.newbyteorder(">")).tobytes(order="F")
    return header + (gzip.compress(data) if compress else data)


@pytest.mark.parametrize("compress", [False, True])
def test_reads_a_block_written_the_n5_way(compress: bool) -> None:
    values = np.arange(12, dtype=np.uint16).reshape(3, 4)
    c = codec(T2, BIG, GZIP) if compress else codec(T2, BIG)
    assert np.array_equal(c.decode(n5_block(values, compress), spec((3, 4))), values)


def test_writes_what_n5_would() -> None:
    values = np.arange(12, dtype=np.uint16).reshape(3, 4)
    assert codec(T2, BIG).encode(values, spec((3, 4))) == n5_block(values, False)


def test_truncated_edge_block_is_padded_with_the_fill_value() -> None:
    values = np.arange(6, dtype=np.uint16).reshape(2, 3)
    decoded = codec(T2, BIG).decode(n5_block(values, False), spec((3, 4)))
    expected = np.zeros((3, 4), np.uint16)
    expected[:2, :3] = values
    assert np.array_equal(decoded, expected)


@pytest.mark.parametrize(
    "block, message",
    [
        (b"\x00\x00", "fewer than the 12-byte header"),
        (struct.pack(">HH2I", 1, 2, 3, 4), "mode 1"),
        (struct.pack(">HH2I", 0, 3, 3, 4), "3 dimensions"),
        (struct.pack(">HH2I", 0, 2, 4_000_000_000, 4_000_000_000) + b"x", "larger than the chunk"),
        (struct.pack(">HH2I", 0, 2, 3, 4) + b"\x00" * 5, None),  # body too short for 3 x 4
    ],
)
def test_bad_blocks_are_corrupt(block: bytes, message: str) -> None:
    with pytest.raises(CorruptChunkError, match=message):
        codec(T2, BIG).decode(block, spec((3, 4)))


def test_compressed_block_is_held_to_its_declared_size() -> None:
    bomb = struct.pack(">HH2I", 0, 2, 3, 4) + gzip.compress(bytes(10_000_000))
    with pytest.raises(CorruptChunkError):
        codec(T2, BIG, GZIP).decode(bomb, spec((3, 4)))


@pytest.mark.parametrize(
    "codecs, field",
    [
        ([BIG, T2], "configuration.codecs[0]"),
        ([T2, {"name": "gzip", "configuration": {"level": 1}}], "configuration.codecs[1]"),
        ([T2, BIG, {"name": "transpose", "configuration": {"order": [0, 1]}}], "configuration.codecs[2]"),
        ([T2], "configuration.codecs"),
        ([T2, BIG, GZIP, GZIP], "configuration.codecs"),
    ],
)
def test_bad_codec_lists_name_the_field(codecs, field: str) -> None:
    with pytest.raises(MetadataError) as info:
        codec(*codecs)
    assert info.value.field == field


@pytest.mark.parametrize(
    "codecs, name, field",
    [
        (
            [{"name": "transpose", "configuration": {"order": [0, 1]}}, BIG],
            "uint16",
            "configuration.codecs[0].configuration.order",
        ),
        (
            [T2, {"name": "bytes", "configuration": {"endian": "little"}}],
            "uint16",
            "configuration.codecs[1].configuration.endian",
        ),
        ([T2, BIG], "bool", "data_type"),
    ],
)
def test_array_dependent_rules(codecs, name: str, field: str) -> None:
    with pytest.raises(MetadataError) as info:
        codec(*codecs).validate(spec((3, 4), name))
    assert info.value.field == field


def test_schema_accepts_what_is_written() -> None:
    schema = json.loads(
        pathlib.Path("/work/shared/specs/zarr-extensions/codecs/n5_default/schema.json").read_text()
    )
    # the schema's nested $refs point to URLs; check the parts that stand alone
    schema = dict(schema, properties=dict(schema["properties"], configuration={"type": "object"}))
    document = codec(T2, BIG, GZIP).to_json()
    jsonschema.validate(document, schema)
    assert document["configuration"]["codecs"] == [T2, BIG, GZIP]
    assert len(document["configuration"]["codecs"]) <= 3


def test_round_trip_through_an_array(tmp_path: pathlib.Path) -> None:
    values = np.arange(7 * 9, dtype=np.int32).reshape(7, 9)
    array = zf.create_array(
        str(tmp_path / "a"),
        shape=values.shape,
        chunks=(4, 4),
        dtype="int32",
        serializer={"name": "n5_default", "configuration": {"codecs": [T2, BIG, GZIP]}},
        compressors=[],
    )
    array[...] = values
    assert np.array_equal(zf.open_array(str(tmp_path / "a"))[...], values)


class TestN5DefaultConformance(CodecConformance):
    codec_documents = [
        {"name": "n5_default", "configuration": {"codecs": [T2, BIG]}},
        {"name": "n5_default", "configuration": {"codecs": [T2, BIG, GZIP]}},
    ]
    data_type = "float64"
