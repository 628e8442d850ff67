"""Tests of the conditional meta-codec (zarr-extensions registry)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge.testing import CodecConformance
from zarrforge_numcodecs.conditional_codec import ConditionalCodec
from zarrforge_numcodecs.crc32c_codec import Crc32cCodec
from zarrforge_numcodecs.gzip_codec import GzipCodec
from zarrforge_numcodecs.zstd_codec import ZstdCodec

GZIP = {"name": "gzip", "configuration": {"level": 5}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
COMPRESSIBLE = bytes(4000)
NOISE = np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8).tobytes()


def test_default_mask_skips_every_codec() -> None:
    codec = ConditionalCodec.from_json("conditional", {"codecs": [GZIP, ZSTD]})
    encoded = codec.encode(COMPRESSIBLE)
    assert encoded == b"\x00" + COMPRESSIBLE
    assert codec.decode(encoded) == COMPRESSIBLE


def test_header_bits_default_and_explicit() -> None:
    assert ConditionalCodec.from_json("conditional", {"codecs": [GZIP]}).header_bits == 8
    nine = ConditionalCodec([GzipCodec(level=1)] * 9)
    assert nine.header_bits == 16
    wide = ConditionalCodec.from_json("conditional", {"codecs": [GZIP], "header_bits": 24})
    assert wide.encode(b"ab") == b"\x00\x00\x00ab"


def test_always_apply_sets_little_endian_bits_and_decodes_in_reverse() -> None:
    codec = ConditionalCodec([GzipCodec(level=1), Crc32cCodec()], decision="always_apply")
    encoded = codec.encode(COMPRESSIBLE)
    assert encoded[0] == 0b11
    body = encoded[1:]
    assert GzipCodec(level=1).decode(Crc32cCodec().decode(body)) == COMPRESSIBLE
    assert codec.decode(encoded) == COMPRESSIBLE
    # decoding does not depend on the writer's decision
    assert ConditionalCodec([GzipCodec(level=1), Crc32cCodec()]).decode(encoded) == COMPRESSIBLE


def test_compress_if_smaller_keeps_compression_only_where_it_helps() -> None:
    codec = ConditionalCodec([ZstdCodec(level=3)], decision="compress_if_smaller")
    small = codec.encode(COMPRESSIBLE)
    raw = codec.encode(NOISE)
    assert small[0] == 1 and len(small) < 100
    assert raw == b"\x00" + NOISE
    assert codec.decode(small) == COMPRESSIBLE and codec.decode(raw) == NOISE


def test_callable_decision_sees_codec_and_trial() -> None:
    seen = []

    def decide(index, codec, data, trial):
        seen.append((index, codec.to_json()["name"], len(data), len(trial)))
        return codec.to_json()["name"] == "crc32c"

    codec = ConditionalCodec([GzipCodec(level=1), Crc32cCodec()], decision=decide, trial_encode=True)
    encoded = codec.encode(b"xyz" * 10)
    assert encoded[0] == 0b10 and len(encoded) == 1 + 30 + 4
    assert seen[0][:3] == (None, "gzip", 30) and seen[1] == (None, "crc32c", 30, 34)


def test_reserved_bits_and_short_chunks_are_corrupt() -> None:
    codec = ConditionalCodec.from_json("conditional", {"codecs": [GZIP], "header_bits": 16})
    with pytest.raises(CorruptChunkError, match="beyond the 1 configured"):
        codec.decode(b"\x02\x00data")
    with pytest.raises(CorruptChunkError, match="beyond"):
        codec.decode(b"\x00\x01data")
    with pytest.raises(CorruptChunkError, match="fewer than its 2-byte header"):
        codec.decode(b"\x00")


def test_decode_sized_bounds_the_nested_decoders() -> None:
    codec = ConditionalCodec([ZstdCodec(level=3)], decision="always_apply")
    encoded = codec.encode(COMPRESSIBLE)
    assert codec.decode_sized(encoded, len(COMPRESSIBLE)) == COMPRESSIBLE
    with pytest.raises(CorruptChunkError):
        codec.decode_sized(encoded, 100)


@pytest.mark.parametrize(
    "configuration, field",
    [
        (None, "configuration"),
        ({}, "configuration.codecs"),
        ({"codecs": GZIP}, "configuration.codecs"),
        ({"codecs": [{"name": "bytes"}]}, "configuration.codecs[0]"),
        ({"codecs": [GZIP, GZIP], "header_bits": 1}, "configuration.header_bits"),
        ({"codecs": [GZIP], "header_bits": 12}, "configuration.header_bits"),
        ({"codecs": [GZIP], "mask": 1}, "configuration.mask"),
        ({"codecs": [{"name": "no_such_codec"}]}, "configuration.codecs[0].name"),
    ],
)
def test_bad_configuration_names_the_field(configuration, field: str) -> None:
    with pytest.raises(MetadataError) as info:
        ConditionalCodec.from_json("conditional", configuration)
    assert info.value.field == field


def test_unknown_decision_name_is_refused() -> None:
    with pytest.raises(ValueError, match="compress_if_smaller"):
        ConditionalCodec([], decision="sometimes")


def test_round_trip_through_an_array(tmp_path: pathlib.Path) -> None:
    values = np.ones((20, 20), dtype=np.float64)
    values[10:] = np.random.default_rng(1).standard_normal((10, 20))
    codec = ConditionalCodec([ZstdCodec(level=5)], decision="compress_if_smaller")
    array = zf.create_array(
        str(tmp_path / "a"), shape=values.shape, chunks=(10, 20), dtype="float64", compressors=[codec]
    )
    array[...] = values
    chunks = sorted(p for p in (tmp_path / "a").rglob("*") if p.is_file() and p.name != "zarr.json")
    headers = sorted(p.read_bytes()[0] for p in chunks)
    assert headers == [0, 1]  # the constant chunk compressed, noise stored raw
    reopened = zf.open_array(str(tmp_path / "a"))
    assert np.array_equal(reopened[...], values)
    stored = json.loads((tmp_path / "a" / "zarr.json").read_text())
    assert stored["codecs"][-1] == {
        "name": "conditional",
        "configuration": {
            "codecs": [{"name": "zstd", "configuration": {"level": 5, "checksum": False}}],
            "header_bits": 8,
        },
    }


def test_the_decision_learns_which_chunk_it_encodes(tmp_path: pathlib.Path) -> None:
    """Chunk coordinates reach the decision: plain chunks by their grid position, the
    inner chunks of a shard by their position in the array's grid of inner chunks."""
    seen: list = []

    def even_rows_only(index, codec, data):
        seen.append(index)
        return index[0] % 2 == 0

    from zarrforge.plugin_api import codecs_from_json
    from zarrforge_sharding.codec import ShardingCodec

    values = np.arange(16 * 8, dtype="float64").reshape(16, 8)
    for shards in (None, (8, 8)):
        seen.clear()
        codec = ConditionalCodec([ZstdCodec(level=3)], decision=even_rows_only)
        path = str(tmp_path / f"c-{shards}")
        if shards is None:
            array = zf.create_array(
                path, shape=values.shape, chunks=(4, 4), dtype="float64", compressors=[codec]
            )
        else:  # the sharding codec built here keeps the codec object (shards= would
            # rebuild the inner codecs from JSON, without the decision function)
            sharding = ShardingCodec(
                (4, 4),
                (*codecs_from_json([{"name": "bytes"}]), codec),
                codecs_from_json([{"name": "bytes"}, {"name": "crc32c"}]),
            )
            array = zf.create_array(
                path,
                shape=values.shape,
                chunks=shards,
                dtype="float64",
                serializer=sharding,
                compressors=None,
            )
        array[...] = values
        assert sorted(set(seen)) == [(r, c) for r in range(4) for c in range(2)]
        np.testing.assert_array_equal(zf.open_array(path)[...], values)
        if shards is None:  # the stored headers follow the decision, chunk by chunk
            for row in range(4):
                assert array.store.get(f"c/{row}/0")[0] == (row % 2 == 0), row
    # outside the chunk engine there is no chunk: None
    seen.clear()

    def never(index: object, codec: object, data: object) -> bool:
        seen.append(index)
        return False

    ConditionalCodec([ZstdCodec(level=3)], decision=never).encode(b"x")
    assert seen == [None]


class TestConditionalConformance(CodecConformance):
    codec_documents = [
        {"name": "conditional", "configuration": {"codecs": [GZIP, ZSTD]}},
        {"name": "conditional", "configuration": {"codecs": [], "header_bits": 16}},
    ]
