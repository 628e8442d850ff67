"""``decode_sized``: compressors decode to the size the chain expects, and refuse more.

The decompression-bomb test in tests/fuzz/test_memory.py shows the refusal happens
before memory is spent (for every codec here, ``blosc`` and ``numcodecs.blosc`` too); these tests show that everything numcodecs itself decodes
(concatenated gzip members, bz2/lzma streams, raw lzma, zstd frames with and
without a recorded size) still decodes, byte for byte, through the bounded paths.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import zlib
from typing import Any

import numcodecs
import pytest
import zstandard

from zarrforge.errors import CorruptChunkError
from zarrforge.registries import resolution as components

PAYLOAD = bytes(range(256)) * 40 + b"tail"


def codec(document: dict):
    (built,) = components.codecs_from_json([document])
    return built


GZIP = {"name": "gzip", "configuration": {"level": 1}}
ZSTD = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
NC_GZIP = {"name": "numcodecs.gzip", "configuration": {"level": 1}}
NC_ZLIB = {"name": "numcodecs.zlib", "configuration": {"level": 1}}
NC_BZ2 = {"name": "numcodecs.bz2", "configuration": {"level": 1}}
NC_LZMA = {"name": "numcodecs.lzma"}
NC_ZSTD = {"name": "numcodecs.zstd", "configuration": {"level": 1}}
NC_LZ4 = {"name": "numcodecs.lz4"}
NC_BLOSC = {"name": "numcodecs.blosc", "configuration": {"cname": "lz4", "clevel": 1, "shuffle": 0}}
BLOSC = {
    "name": "blosc",
    "configuration": {"cname": "lz4", "clevel": 1, "shuffle": "noshuffle", "typesize": 1},
}


def _streaming_zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=1, write_content_size=False).compress(data)


# (codec document, encoded bytes of PAYLOAD, as other writers may produce them)
VALID: dict[str, tuple[dict[str, Any], bytes]] = {
    "gzip two members": (GZIP, gzip.compress(PAYLOAD[:1000]) + gzip.compress(PAYLOAD[1000:])),
    "gzip zero padding": (GZIP, gzip.compress(PAYLOAD) + bytes(7)),
    "numcodecs.gzip": (NC_GZIP, gzip.compress(PAYLOAD)),
    "zlib trailing bytes": (NC_ZLIB, zlib.compress(PAYLOAD) + b"ignored"),
    "bz2 two streams": (NC_BZ2, bz2.compress(PAYLOAD[:10]) + bz2.compress(PAYLOAD[10:])),
    "bz2 trailing bytes": (NC_BZ2, bz2.compress(PAYLOAD) + b"ignored"),
    "lzma xz two streams": (NC_LZMA, lzma.compress(PAYLOAD[:10]) + lzma.compress(PAYLOAD[10:])),
    "zstd streaming frame": (ZSTD, _streaming_zstd(PAYLOAD)),
    "numcodecs.zstd streaming frame": (NC_ZSTD, _streaming_zstd(PAYLOAD)),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_streams_decode_as_numcodecs_decodes_them(case: str) -> None:
    document, encoded = VALID[case]
    built = codec(document)
    assert bytes(built.decode_sized(encoded, len(PAYLOAD))) == PAYLOAD
    assert bytes(built.decode(encoded)) == PAYLOAD


@pytest.mark.parametrize(
    "document",
    [GZIP, ZSTD, NC_GZIP, NC_ZLIB, NC_BZ2, NC_LZMA, NC_ZSTD, NC_LZ4, BLOSC, NC_BLOSC],
    ids=lambda d: d["name"],
)
def test_own_encoding_decodes_and_one_byte_more_is_refused(document: dict) -> None:
    built = codec(document)
    encoded = built.encode(PAYLOAD)
    assert bytes(built.decode_sized(encoded, len(PAYLOAD))) == PAYLOAD
    with pytest.raises(CorruptChunkError, match=str(len(PAYLOAD) - 1)):
        built.decode_sized(encoded, len(PAYLOAD) - 1)


def test_raw_lzma_with_filters_decodes() -> None:
    filters = [{"id": lzma.FILTER_LZMA2, "preset": 1}]
    document = {"name": "numcodecs.lzma", "configuration": {"format": lzma.FORMAT_RAW, "filters": filters}}
    built = codec(document)
    encoded = numcodecs.LZMA(format=lzma.FORMAT_RAW, filters=filters).encode(PAYLOAD)
    assert bytes(built.decode_sized(encoded, len(PAYLOAD))) == PAYLOAD


@pytest.mark.parametrize(
    "case,document,encoded",
    [
        ("gzip garbage after the member", GZIP, gzip.compress(PAYLOAD) + b"garbage"),
        ("gzip truncated", GZIP, gzip.compress(PAYLOAD)[:-12]),
        ("zlib truncated", NC_ZLIB, zlib.compress(PAYLOAD)[:-9]),
        ("bz2 truncated", NC_BZ2, bz2.compress(PAYLOAD)[:-9]),
        ("lzma truncated", NC_LZMA, lzma.compress(PAYLOAD)[:-9]),
        ("zstd streaming frame one byte short", ZSTD, _streaming_zstd(PAYLOAD[:-1])),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_damaged_streams_are_corrupt_chunks(case: str, document: dict, encoded: bytes) -> None:
    with pytest.raises(CorruptChunkError, match=document["name"]):
        codec(document).decode_sized(encoded, len(PAYLOAD))


def test_stream_past_the_expected_size_is_refused_and_named() -> None:
    bomb = zlib.compress(bytes(10 * 2**20))
    with pytest.raises(CorruptChunkError, match=r"more than the 100 bytes .* decompression bomb"):
        codec(NC_ZLIB).decode_sized(bomb, 100)
