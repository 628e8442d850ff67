"""zarrforge-numcodecs against the codec conformance kit of zarrforge.testing."""

from __future__ import annotations

from zarrforge.testing import CodecConformance


class TestGzip(CodecConformance):
    codec_documents = [
        "gzip",
        {"name": "gzip", "configuration": {"level": 1}},
        {"name": "gzip", "configuration": {"level": 9}},
    ]


class TestZstd(CodecConformance):
    codec_documents = [
        "zstd",
        {"name": "zstd", "configuration": {"level": 3, "checksum": True}},
        {"name": "zstd", "configuration": {"level": -5, "checksum": False}},
    ]


class TestBlosc(CodecConformance):
    codec_documents = [
        "blosc",
        {
            "name": "blosc",
            "configuration": {
                "cname": "lz4",
                "clevel": 5,
                "shuffle": "shuffle",
                "typesize": 8,
                "blocksize": 0,
            },
        },
        {
            "name": "blosc",
            "configuration": {
                "cname": "zstd",
                "clevel": 3,
                "shuffle": "bitshuffle",
                "typesize": 8,
                "blocksize": 0,
            },
        },
        {
            "name": "blosc",
            "configuration": {"cname": "blosclz", "clevel": 1, "shuffle": "noshuffle", "blocksize": 0},
        },
    ]


class TestCrc32c(CodecConformance):
    codec_documents = ["crc32c"]


class TestNumcodecsBytesCodecs(CodecConformance):
    codec_documents = [
        {"name": "numcodecs.zlib", "configuration": {"level": 1}},
        {"name": "numcodecs.lzma"},
        {"name": "numcodecs.bz2"},
        {"name": "numcodecs.adler32"},
        {"name": "numcodecs.fletcher32"},
    ]
    # numcodecs codecs pass their configuration to numcodecs, which decides what it accepts.
    rejects_unknown_configuration = False


class TestNumcodecsArrayCodecs(CodecConformance):
    codec_documents = [{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}]
    data_type = "int32"
    rejects_unknown_configuration = False
