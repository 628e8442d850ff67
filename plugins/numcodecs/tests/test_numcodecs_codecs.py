"""Tests of zarrforge-numcodecs: gzip, zstd, blosc, crc32c and the numcodecs.* adapter."""

from __future__ import annotations

import importlib
import lzma
import os
import pathlib
import struct
import tomllib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from zarrforge import config
from zarrforge.abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec, ChunkSpec, Codec, CodecKind
from zarrforge.abc.data_type import DataType
from zarrforge.abc.memory_layout import MemoryLayout
from zarrforge.errors import ChecksumError, CodecError, CorruptChunkError, MetadataError, UnsafeCodecError
from zarrforge_numcodecs import _bounds
from zarrforge_numcodecs.adapter import (
    NumcodecsArrayArrayCodec,
    NumcodecsArrayBytesCodec,
    NumcodecsBytesBytesCodec,
    NumcodecsCodec,
)
from zarrforge_numcodecs.blosc_codec import BloscCodec, available_cnames
from zarrforge_numcodecs.crc32c_codec import Crc32cCodec
from zarrforge_numcodecs.gzip_codec import GzipCodec
from zarrforge_numcodecs.zstd_codec import ZstdCodec

PLUGIN_ROOT = pathlib.Path(__file__).resolve().parents[1]
RNG = np.random.default_rng(20240611)


# --- test doubles ------------------------------------------------------------------


class NumpyType(DataType):
    """A minimal data type wrapping a numpy dtype."""

    name = "test.numpy"

    def __init__(self, dtype: Any) -> None:
        self._dtype = np.dtype(dtype)

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> NumpyType:
        return cls(name)

    def to_json(self) -> str:
        return self._dtype.str

    @property
    def numpy_dtype(self) -> np.dtype:
        return self._dtype

    def fill_value_from_json(self, value: Any) -> Any:
        return self._dtype.type(value)

    def fill_value_to_json(self, value: Any) -> Any:
        return value.item()

    def default_fill_value(self) -> Any:
        return self._dtype.type(0)


class CLayout(MemoryLayout):
    name = "test.C"

    def empty(self, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
        return np.empty(shape, dtype=dtype, order="C")

    def linearize(self, array: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(array).reshape(-1)

    def delinearize(self, flat: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        return flat.reshape(shape)


def chunk_spec(shape: tuple[int, ...], dtype: Any, fill_value: Any = 0) -> ChunkSpec:
    dt = NumpyType(dtype)
    return ChunkSpec(shape=shape, data_type=dt, fill_value=dt.numpy_dtype.type(fill_value), layout=CLayout())


def bytes_bytes(name: str, configuration: dict[str, Any] | None) -> NumcodecsBytesBytesCodec:
    """``NumcodecsCodec.from_json`` for a bytes -> bytes numcodecs codec, of that kind."""
    codec = NumcodecsCodec.from_json(name, configuration)
    assert isinstance(codec, NumcodecsBytesBytesCodec)
    return codec


def array_array(name: str, configuration: dict[str, Any] | None) -> NumcodecsArrayArrayCodec:
    """``NumcodecsCodec.from_json`` for an array -> array numcodecs filter, of that kind."""
    codec = NumcodecsCodec.from_json(name, configuration)
    assert isinstance(codec, NumcodecsArrayArrayCodec)
    return codec


def random_bytes(n: int) -> bytes:
    """Half random, half repetitive, so that compressors have something to do."""
    half = n // 2
    return os.urandom(half) + bytes(RNG.integers(0, 4, n - half, dtype=np.uint8))


SIZES = [0, 1, 7, 1000, 65536 + 3]


# --- gzip ----------------------------------------------------------------------------


@pytest.mark.parametrize("level", range(10))
@pytest.mark.parametrize("size", SIZES)
def test_gzip_round_trip(level: int, size: int) -> None:
    codec = GzipCodec.from_json("gzip", {"level": level})
    data = random_bytes(size)
    encoded = codec.encode(data)
    assert encoded[:2] == b"\x1f\x8b"  # a gzip member
    assert codec.decode(encoded) == data
    assert codec.decode(memoryview(encoded)) == data


def test_gzip_json() -> None:
    assert GzipCodec.from_json("gzip", {"level": 5}).to_json() == {
        "name": "gzip",
        "configuration": {"level": 5},
    }
    assert GzipCodec.from_json("gzip", None).to_json() == {"name": "gzip", "configuration": {"level": 5}}
    assert GzipCodec.from_json("gzip", {"level": 1}) == GzipCodec(level=1)
    assert GzipCodec(level=1) != GzipCodec(level=2)
    assert GzipCodec.kind is CodecKind.BYTES_BYTES
    assert GzipCodec().encoded_size(100) is None


def test_gzip_reads_stdlib_gzip() -> None:
    import gzip

    data = random_bytes(5000)
    assert GzipCodec().decode(gzip.compress(data, compresslevel=9)) == data


# --- zstd ----------------------------------------------------------------------------


@pytest.mark.parametrize("level", [-7, 0, 1, 3, 19])
@pytest.mark.parametrize("checksum", [False, True])
@pytest.mark.parametrize("size", SIZES)
def test_zstd_round_trip(level: int, checksum: bool, size: int) -> None:
    codec = ZstdCodec.from_json("zstd", {"level": level, "checksum": checksum})
    data = random_bytes(size)
    assert codec.decode(codec.encode(data)) == data


@pytest.mark.parametrize("checksum", [False, True])
def test_zstd_frames_record_size_and_checksum_and_numcodecs_reads_them(checksum: bool) -> None:
    import numcodecs.zstd
    import zstandard

    data = random_bytes(100_000)
    frame = ZstdCodec(level=3, checksum=checksum).encode(data)
    parameters = zstandard.get_frame_parameters(frame)
    assert parameters.content_size == len(data) and parameters.has_checksum == checksum
    assert numcodecs.zstd.Zstd().decode(frame) == data  # what zarr-python decodes with


def test_zstd_one_codec_encodes_from_many_threads_at_once() -> None:
    from concurrent.futures import ThreadPoolExecutor

    codec = ZstdCodec(level=1)
    inputs = [random_bytes(50_000 + i) for i in range(64)]
    with ThreadPoolExecutor(4) as pool:
        frames = list(pool.map(codec.encode, inputs))
    assert [codec.decode(frame) for frame in frames] == inputs


def test_zstd_json() -> None:
    assert ZstdCodec.from_json("zstd", None).to_json() == {
        "name": "zstd",
        "configuration": {"level": 0, "checksum": False},
    }
    assert ZstdCodec.from_json("zstd", {"level": 0, "checksum": False}).to_json() == {
        "name": "zstd",
        "configuration": {"level": 0, "checksum": False},
    }
    # "checksum" is optional in the registry schema
    assert ZstdCodec.from_json("zstd", {"level": 3}).to_json() == {
        "name": "zstd",
        "configuration": {"level": 3, "checksum": False},
    }
    assert ZstdCodec.from_json("zstd", {"level": 1, "checksum": True}).checksum is True


def test_zstd_frame_without_content_size_decodes() -> None:
    import zstandard

    data = random_bytes(300_000)
    compressor = zstandard.ZstdCompressor(level=3).compressobj()
    frame = compressor.compress(data) + compressor.flush()
    assert zstandard.get_frame_parameters(frame).content_size == zstandard.CONTENTSIZE_UNKNOWN
    assert _bounds.zstd_content_size(frame) is None
    assert ZstdCodec().decode(frame) == data


def test_zstd_frame_with_content_size_from_zstandard_decodes() -> None:
    import zstandard

    data = random_bytes(10_000)
    frame = zstandard.ZstdCompressor(level=5, write_checksum=True).compress(data)
    assert _bounds.zstd_content_size(frame) == len(data)
    assert ZstdCodec().decode(frame) == data


def test_zstd_checksum_detects_corruption() -> None:
    codec = ZstdCodec(level=1, checksum=True)
    data = random_bytes(4000)
    encoded = bytearray(codec.encode(data))
    encoded[-2] ^= 0xFF  # inside the stored content checksum
    with pytest.raises(CorruptChunkError, match="zstd"):
        codec.decode(bytes(encoded))


def test_zstd_absurd_declared_size_is_refused_before_allocating() -> None:
    # single-segment frame declaring 2**40 bytes, followed by a 3-byte raw block
    block = struct.pack("<I", 1 | (3 << 3))[:3] + b"abc"
    frame = struct.pack("<I", _bounds.ZSTD_MAGIC) + bytes([0xE0]) + struct.pack("<Q", 2**40) + block
    with pytest.raises(CorruptChunkError, match="declares 1099511627776 decoded bytes"):
        ZstdCodec().decode(frame)


def test_zstd_empty_frames() -> None:
    # numcodecs 0.16 cannot decode frames recording a content size of 0; the codec can.
    for checksum in (False, True):
        codec = ZstdCodec(level=1, checksum=checksum)
        frame = codec.encode(b"")
        assert _bounds.is_empty_zstd_frame(frame)
        assert codec.decode(frame) == b""
        assert not _bounds.is_empty_zstd_frame(frame + b"\0")
        with pytest.raises(CorruptChunkError):
            codec.decode(frame + b"\0")
    with_checksum = bytearray(ZstdCodec(checksum=True).encode(b""))
    with_checksum[-1] ^= 1
    with pytest.raises(CorruptChunkError):
        ZstdCodec().decode(bytes(with_checksum))


# --- blosc ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cname", [c for c in ("lz4", "lz4hc", "blosclz", "zstd", "zlib") if c in available_cnames()]
)
@pytest.mark.parametrize("shuffle", ["noshuffle", "shuffle", "bitshuffle"])
@pytest.mark.parametrize("typesize", [1, 2, 8])
@pytest.mark.parametrize("size", [0, 1, 1000, 200_003])
def test_blosc_round_trip(cname: str, shuffle: str, typesize: int, size: int) -> None:
    codec = BloscCodec.from_json(
        "blosc", {"cname": cname, "clevel": 5, "shuffle": shuffle, "typesize": typesize, "blocksize": 0}
    )
    data = random_bytes(size)
    assert codec.decode(codec.encode(data)) == data


@pytest.mark.parametrize("clevel", [0, 1, 9])
@pytest.mark.parametrize("blocksize", [0, 4096])
def test_blosc_levels_and_blocksizes(clevel: int, blocksize: int) -> None:
    codec = BloscCodec(cname="lz4", clevel=clevel, shuffle="shuffle", typesize=4, blocksize=blocksize)
    data = random_bytes(50_000)
    assert codec.decode(codec.encode(data)) == data


def test_blosc_json_matches_zarr_python() -> None:
    created = BloscCodec.from_json("blosc", None).evolve(chunk_spec((10,), "i8"))
    assert created.to_json() == {
        "name": "blosc",
        "configuration": {"typesize": 8, "cname": "zstd", "clevel": 5, "shuffle": "shuffle", "blocksize": 0},
    }
    assert list(created.to_json()["configuration"]) == ["typesize", "cname", "clevel", "shuffle", "blocksize"]
    # 1-byte items: bit-shuffle is chosen (and recorded) when the user chose nothing
    assert BloscCodec().evolve(chunk_spec((10,), "u1")).to_json() == {
        "name": "blosc",
        "configuration": {
            "typesize": 1,
            "cname": "zstd",
            "clevel": 5,
            "shuffle": "bitshuffle",
            "blocksize": 0,
        },
    }
    # an explicit choice is kept
    explicit = BloscCodec(shuffle="shuffle").evolve(chunk_spec((10,), "u1"))
    assert explicit.to_json()["configuration"]["shuffle"] == "shuffle"
    # read back exactly as written
    doc: dict[str, Any] = {
        "name": "blosc",
        "configuration": {"typesize": 4, "cname": "lz4", "clevel": 1, "shuffle": "noshuffle", "blocksize": 0},
    }
    assert BloscCodec.from_json("blosc", doc["configuration"]).to_json() == doc


def test_blosc_evolve_keeps_given_typesize_and_records_the_shuffle() -> None:
    evolved = BloscCodec(typesize=2).evolve(chunk_spec((4,), "f8"))
    assert evolved.to_json()["configuration"]["typesize"] == 2
    assert evolved == BloscCodec(typesize=2, shuffle="shuffle")
    assert evolved == BloscCodec.from_json("blosc", evolved.to_json()["configuration"])


def test_blosc_missing_cname_in_build_is_an_encode_error() -> None:
    if "snappy" in available_cnames():
        pytest.skip("this numcodecs build has snappy")
    codec = BloscCodec(cname="snappy", typesize=4)  # valid metadata
    with pytest.raises(CodecError, match="snappy.*available"):
        codec.encode(b"1234")


def test_blosc_header_checks() -> None:
    codec = BloscCodec(typesize=4)
    encoded = codec.encode(random_bytes(10_000))
    with pytest.raises(CorruptChunkError, match="shorter than the 16-byte blosc header"):
        codec.decode(encoded[:10])
    with pytest.raises(CorruptChunkError, match="truncated"):
        codec.decode(encoded[:-1])
    with pytest.raises(CorruptChunkError, match="holds only"):
        codec.decode(encoded[:-1])
    # a header claiming ~2 GiB in one block, with a 30-byte body
    hostile = struct.pack("<BBBBIII", 2, 1, 0x21, 1, 2**31 - 100, 4, 30) + bytes(14)
    with pytest.raises(CorruptChunkError, match="offset table"):
        codec.decode(hostile)


def test_blosc_chunk_with_trailing_bytes_decodes() -> None:
    # z5py pads every blosc chunk with 16 zero bytes; zarr-python reads them (issue #15)
    values = np.arange(2_500, dtype="<i4")
    codec = BloscCodec(typesize=4)
    encoded = codec.encode(values.tobytes())
    padded = encoded + bytes(16)
    assert np.array_equal(np.frombuffer(codec.decode(padded), "<i4"), values)
    assert np.array_equal(np.frombuffer(codec.decode_sized(padded, values.nbytes), "<i4"), values)
    with pytest.raises(CorruptChunkError, match="holds only"):
        codec.decode(encoded[:-1])
    with pytest.raises(CorruptChunkError, match="holds only"):
        codec.decode_sized(encoded[:-1], values.nbytes)


def test_blosc_header_declaring_less_than_its_own_header_is_corrupt() -> None:
    encoded = bytearray(BloscCodec(typesize=4).encode(random_bytes(400)))
    struct.pack_into("<I", encoded, 12, 8)  # cbytes
    with pytest.raises(CorruptChunkError, match="fewer than the 16-byte header"):
        BloscCodec(typesize=4).decode(bytes(encoded))


def test_padded_blosc_chunk_reads_through_an_array(tmp_path: pathlib.Path) -> None:
    import zarrforge as zf

    values = np.arange(200, dtype="<i8").reshape(10, 20)
    array = zf.create_array(
        str(tmp_path / "a"),
        shape=values.shape,
        chunks=(10, 20),
        dtype="int64",
        compressors=[BloscCodec(cname="lz4")],
    )
    array[...] = values
    (chunk_file,) = [p for p in (tmp_path / "a").rglob("*") if p.is_file() and p.name != "zarr.json"]
    chunk_file.write_bytes(chunk_file.read_bytes() + bytes(16))
    assert np.array_equal(zf.open_array(str(tmp_path / "a"))[...], values)
    chunk_file.write_bytes(chunk_file.read_bytes()[:-17])
    with pytest.raises(CorruptChunkError):
        zf.open_array(str(tmp_path / "a"))[...]


# --- corrupt input to the compressors ---------------------------------------------------


COMPRESSORS = [
    GzipCodec(level=5),
    ZstdCodec(),
    BloscCodec(typesize=4),
    BloscCodec(cname="lz4", shuffle="bitshuffle", typesize=2),
]


@pytest.mark.parametrize("codec", COMPRESSORS, ids=lambda c: c.to_json()["name"])
def test_truncated_input_is_corrupt(codec: BytesBytesCodec) -> None:
    encoded = codec.encode(random_bytes(20_000))
    for cut in (0, 1, 5, len(encoded) // 2, len(encoded) - 1):
        with pytest.raises(CorruptChunkError) as info:
            codec.decode(encoded[:cut])
        assert codec.to_json()["name"] in str(info.value)


@pytest.mark.parametrize("codec", COMPRESSORS, ids=lambda c: c.to_json()["name"])
@pytest.mark.parametrize(
    "garbage", [b"\x00" * 64, b"this is not compressed data at all....", bytes(range(256)) * 4]
)
def test_garbage_input_is_corrupt(codec: BytesBytesCodec, garbage: bytes) -> None:
    with pytest.raises(CorruptChunkError) as info:
        codec.decode(garbage)
    assert codec.to_json()["name"] in str(info.value)


def test_corrupt_error_chains_the_library_error() -> None:
    with pytest.raises(CorruptChunkError) as info:
        GzipCodec().decode(b"\x1f\x8b" + b"\xff" * 40)
    assert info.value.__cause__ is not None
    assert "codec 'gzip' could not decode the chunk" in str(info.value)


@pytest.mark.parametrize("codec", COMPRESSORS, ids=lambda c: c.to_json()["name"])
def test_compressors_have_no_fixed_size(codec: BytesBytesCodec) -> None:
    assert codec.encoded_size(1000) is None


def _fuzz_codecs() -> list[BytesBytesCodec]:
    return [
        GzipCodec(),
        ZstdCodec(checksum=True),
        BloscCodec(typesize=4),
        Crc32cCodec(),
        *(
            bytes_bytes(n, c)
            for n, c in [
                ("numcodecs.zlib", {"level": 1}),
                ("numcodecs.bz2", {"level": 1}),
                ("numcodecs.lzma", None),
                ("numcodecs.lz4", None),
                ("numcodecs.blosc", None),
                ("numcodecs.zstd", {"level": 1}),
                ("numcodecs.crc32", None),
                ("numcodecs.fletcher32", None),
                ("numcodecs.jenkins_lookup3", None),
                ("numcodecs.shuffle", {"elementsize": 4}),
                ("numcodecs.base64", None),
            ]
        ),
    ]


def test_decoders_fail_only_with_corrupt_chunk_error() -> None:
    """Random and mutated input either decodes or raises CorruptChunkError, nothing else."""
    import hypothesis

    st = hypothesis.strategies
    codecs = _fuzz_codecs()
    samples = {id(c): c.encode(random_bytes(3000)) for c in codecs}

    @hypothesis.settings(
        max_examples=int(os.environ.get("FUZZ_EXAMPLES", "300")), deadline=None, database=None
    )
    @hypothesis.given(
        index=st.integers(0, len(codecs) - 1),
        junk=st.binary(max_size=300),
        cut=st.integers(0, 4000),
        flip=st.integers(0, 4000),
        mode=st.sampled_from(["junk", "cut", "flip", "append"]),
    )
    def check(index: int, junk: bytes, cut: int, flip: int, mode: str) -> None:
        codec = codecs[index]
        valid = samples[id(codec)]
        if mode == "junk":
            data = junk
        elif mode == "cut":
            data = valid[: cut % (len(valid) + 1)]
        elif mode == "flip":
            mutated = bytearray(valid)
            mutated[flip % len(mutated)] ^= 0x5A
            data = bytes(mutated)
        else:
            data = valid + junk
        try:
            out = codec.decode(data)
        except CorruptChunkError:
            return
        assert isinstance(out, bytes)

    check()


@pytest.mark.parametrize(
    "name, configuration",
    [("numcodecs.blosc", None), ("numcodecs.zstd", {"level": 1}), ("numcodecs.zlib", {"level": 1})],
)
def test_adapter_empty_round_trip(name: str, configuration: dict | None) -> None:
    codec = bytes_bytes(name, configuration)
    assert codec.decode(codec.encode(b"")) == b""


# --- crc32c ---------------------------------------------------------------------------


def test_crc32c_golden_value() -> None:
    encoded = Crc32cCodec().encode(b"123456789")
    assert encoded == b"123456789" + struct.pack("<I", 0xE3069283)
    assert encoded[-4:] == bytes.fromhex("839206e3")


@pytest.mark.parametrize("size", SIZES)
def test_crc32c_round_trip(size: int) -> None:
    codec = Crc32cCodec.from_json("crc32c", None)
    data = random_bytes(size)
    encoded = codec.encode(data)
    assert len(encoded) == codec.encoded_size(size) == size + 4
    assert codec.decode(encoded) == data
    assert codec.decode(memoryview(encoded)) == data


def test_crc32c_json() -> None:
    assert Crc32cCodec.from_json("crc32c", None).to_json() == {"name": "crc32c"}
    assert Crc32cCodec.from_json("crc32c", {}).to_json() == {"name": "crc32c"}
    assert Crc32cCodec().encoded_size(None) is None
    with pytest.raises(MetadataError, match="takes no configuration") as info:
        Crc32cCodec.from_json("crc32c", {"location": "end"})
    assert info.value.field == "configuration"


def test_crc32c_mismatch_raises_checksum_error() -> None:
    encoded = bytearray(Crc32cCodec().encode(b"123456789"))
    encoded[0] ^= 0x01
    with pytest.raises(ChecksumError) as info:
        Crc32cCodec().decode(bytes(encoded))
    message = str(info.value)
    assert "0xe3069283" in message  # expected (stored)
    actual = Crc32cCodec().encode(bytes(encoded[:-4]))[-4:]
    assert f"0x{struct.unpack('<I', actual)[0]:08x}" in message  # actual (computed)
    assert "expected" in message and "actual" in message


@pytest.mark.parametrize("data", [b"", b"a", b"abc"])
def test_crc32c_short_input_is_corrupt(data: bytes) -> None:
    with pytest.raises(CorruptChunkError, match="too few") as info:
        Crc32cCodec().decode(data)
    assert not isinstance(info.value, ChecksumError)


# --- configuration errors ---------------------------------------------------------------


@pytest.mark.parametrize(
    "cls, configuration, field, fragments",
    [
        (GzipCodec, {"level": 12}, "configuration.level", ["12", "0 to 9"]),
        (GzipCodec, {"level": -1}, "configuration.level", ["-1", "0 to 9"]),
        (GzipCodec, {"level": True}, "configuration.level", ["True", "integer"]),
        (GzipCodec, {"level": "5"}, "configuration.level", ["'5'", "integer"]),
        (GzipCodec, {"level": 5.0}, "configuration.level", ["5.0", "integer"]),
        (GzipCodec, {}, "configuration.level", ["required", "level"]),
        (GzipCodec, {"level": 5, "mtime": 0}, "configuration.mtime", ["mtime", "valid keys: level"]),
        (GzipCodec, [5], "configuration", ["JSON object"]),
        (ZstdCodec, {"level": 23}, "configuration.level", ["23", "-131072 to 22"]),
        (ZstdCodec, {"level": 1, "checksum": "yes"}, "configuration.checksum", ["'yes'", "true or false"]),
        (ZstdCodec, {"level": 1, "checksum": 1}, "configuration.checksum", ["true or false"]),
        (ZstdCodec, {"checksum": False}, "configuration.level", ["required"]),
        (ZstdCodec, {"level": 1, "window": 3}, "configuration.window", ["window", "level, checksum"]),
        (BloscCodec, {"cname": "lzma"}, "configuration.cname", ["'lzma'", "'lz4'", "'zstd'"]),
        (
            BloscCodec,
            {"shuffle": "foo"},
            "configuration.shuffle",
            ["'foo'", "'noshuffle'", "'shuffle'", "'bitshuffle'"],
        ),
        (BloscCodec, {"shuffle": 1}, "configuration.shuffle", ["1", "'bitshuffle'"]),
        (BloscCodec, {"typesize": 0}, "configuration.typesize", ["0", ">= 1"]),
        (BloscCodec, {"typesize": 2.5}, "configuration.typesize", ["2.5"]),
        (BloscCodec, {"clevel": 10}, "configuration.clevel", ["10", "0 to 9"]),
        (BloscCodec, {"blocksize": -1}, "configuration.blocksize", ["-1", ">= 0"]),
        (BloscCodec, {"typesize": 4, "nthreads": 2}, "configuration.nthreads", ["nthreads"]),
    ],
)
def test_bad_configuration(cls: type[Codec], configuration: Any, field: str, fragments: list[str]) -> None:
    with pytest.raises(MetadataError) as info:
        cls.from_json(cls.name, configuration)
    assert info.value.field == field
    message = str(info.value)
    assert field in message
    assert repr(cls.name) in message
    for fragment in fragments:
        assert fragment in message


# --- the numcodecs.* adapter -----------------------------------------------------------


@pytest.mark.parametrize(
    "name, configuration",
    [
        ("numcodecs.zlib", {"level": 1}),
        ("numcodecs.zlib", {"level": 9}),
        ("numcodecs.bz2", {"level": 1}),
        ("numcodecs.lzma", None),
        ("numcodecs.lz4", {"acceleration": 1}),
        ("numcodecs.gzip", {"level": 3}),
        ("numcodecs.zstd", {"level": 3}),
        ("numcodecs.blosc", {"cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}),
        ("numcodecs.shuffle", {"elementsize": 4}),
        ("numcodecs.base64", None),
        ("numcodecs.crc32", None),
        ("numcodecs.crc32c", None),
        ("numcodecs.adler32", None),
        ("numcodecs.fletcher32", None),
        ("numcodecs.jenkins_lookup3", None),
    ],
)
def test_adapter_bytes_round_trip(name: str, configuration: dict | None) -> None:
    codec = NumcodecsCodec.from_json(name, configuration)
    assert isinstance(codec, BytesBytesCodec) and isinstance(codec, NumcodecsBytesBytesCodec)
    assert codec.kind is CodecKind.BYTES_BYTES
    data = random_bytes(4000)
    encoded = codec.encode(data)
    assert isinstance(encoded, bytes)
    assert codec.decode(encoded) == data
    size = codec.encoded_size(len(data))
    assert size is None or size == len(encoded)
    # to_json reads back to an equal codec
    doc = codec.to_json()
    assert doc["name"] == name
    assert NumcodecsCodec.from_json(name, doc.get("configuration")) == codec


def test_adapter_zlib_json() -> None:
    codec = bytes_bytes("numcodecs.zlib", {"level": 1})
    assert codec.to_json() == {"name": "numcodecs.zlib", "configuration": {"level": 1}}
    assert codec.codec_id == "zlib"
    assert codec.encoded_size(10) is None
    # an "id" in the configuration is tolerated when it agrees, refused otherwise
    assert NumcodecsCodec.from_json("numcodecs.zlib", {"id": "zlib", "level": 1}) == codec
    with pytest.raises(MetadataError) as info:
        NumcodecsCodec.from_json("numcodecs.zlib", {"id": "gzip", "level": 1})
    assert info.value.field == "configuration.id"


def test_adapter_entry_class_is_a_codec() -> None:
    assert issubclass(NumcodecsCodec, Codec)
    for sub in (NumcodecsArrayArrayCodec, NumcodecsBytesBytesCodec, NumcodecsArrayBytesCodec):
        assert issubclass(sub, NumcodecsCodec)


def test_adapter_encoded_sizes() -> None:
    assert bytes_bytes("numcodecs.crc32", None).encoded_size(10) == 14
    assert bytes_bytes("numcodecs.shuffle", {"elementsize": 2}).encoded_size(10) == 10
    assert bytes_bytes("numcodecs.base64", None).encoded_size(10) == 16
    assert bytes_bytes("numcodecs.lz4", None).encoded_size(10) is None


def test_adapter_unknown_id() -> None:
    with pytest.raises(MetadataError) as info:
        NumcodecsCodec.from_json("numcodecs.nosuchcodec", {})
    assert info.value.field == "name"
    message = str(info.value)
    assert "'nosuchcodec'" in message and "numcodecs.nosuchcodec" in message
    assert "available ids:" in message and "zlib" in message and "delta" in message


@pytest.mark.parametrize("name", ["zlib", "numcodecs.", "numcodecsx.zlib", 3])
def test_adapter_bad_name(name: Any) -> None:
    with pytest.raises(MetadataError) as info:
        NumcodecsCodec.from_json(name, None)
    assert info.value.field == "name"


@pytest.mark.parametrize(
    "name, configuration, fragment",
    [
        ("numcodecs.zlib", {"levle": 1}, "accepts: level"),
        ("numcodecs.delta", {}, "accepts: dtype, astype"),
        ("numcodecs.delta", {"dtype": "O"}, "object arrays are not supported"),
        ("numcodecs.zlib", "level=1", "JSON object"),
    ],
)
def test_adapter_bad_configuration(name: str, configuration: Any, fragment: str) -> None:
    with pytest.raises(MetadataError) as info:
        NumcodecsCodec.from_json(name, configuration)
    assert info.value.field == "configuration"
    assert fragment in str(info.value)
    assert name in str(info.value)


def test_adapter_checksum_mismatch_is_checksum_error() -> None:
    for name in (
        "numcodecs.crc32",
        "numcodecs.adler32",
        "numcodecs.fletcher32",
        "numcodecs.jenkins_lookup3",
        "numcodecs.crc32c",
    ):
        codec = bytes_bytes(name, None)
        encoded = bytearray(codec.encode(b"hello, checksummed world"))
        encoded[len(encoded) // 2] ^= 0x10
        with pytest.raises(ChecksumError, match=name):
            codec.decode(bytes(encoded))


@pytest.mark.parametrize(
    "name, configuration",
    [
        ("numcodecs.zlib", {"level": 1}),
        ("numcodecs.bz2", {"level": 1}),
        ("numcodecs.lzma", None),
        ("numcodecs.lz4", None),
        ("numcodecs.gzip", {"level": 1}),
        ("numcodecs.zstd", {"level": 1}),
        ("numcodecs.blosc", None),
    ],
)
def test_adapter_garbage_is_corrupt(name: str, configuration: dict | None) -> None:
    codec = bytes_bytes(name, configuration)
    encoded = codec.encode(random_bytes(5000))
    for bad in (
        encoded[: len(encoded) // 2],
        b"not compressed, just text......",
        b"\xff\xff\xff\x7f" + b"\x00" * 12,
    ):
        with pytest.raises(CorruptChunkError) as info:
            codec.decode(bad)
        assert name in str(info.value)


def test_adapter_lz4_absurd_header_is_refused() -> None:
    codec = bytes_bytes("numcodecs.lz4", None)
    with pytest.raises(CorruptChunkError, match="declares 2147483647 decoded bytes"):
        codec.decode(struct.pack("<i", 2**31 - 1) + b"\x00" * 8)


# array -> array filters


def test_adapter_delta_is_array_array_and_round_trips() -> None:
    codec = NumcodecsCodec.from_json("numcodecs.delta", {"dtype": "<i4"})
    assert isinstance(codec, ArrayArrayCodec) and isinstance(codec, NumcodecsArrayArrayCodec)
    # written as stated (as zarr-python 3 writes numcodecs.* codecs); numcodecs fills in astype
    assert codec.to_json() == {"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}
    assert codec.configuration == {"dtype": "<i4", "astype": "<i4"}
    spec = chunk_spec((6, 7), "i4")
    codec.validate(spec)
    assert codec.resolve(spec) == spec  # same shape, dtype and fill value
    data = RNG.integers(-1000, 1000, size=spec.shape, dtype=np.int32)
    encoded = codec.encode(data, spec)
    assert encoded.shape == spec.shape and encoded.dtype == np.int32
    assert np.array_equal(encoded.reshape(-1), np.concatenate([[data.flat[0]], np.diff(data.reshape(-1))]))
    decoded = codec.decode(encoded, spec)
    assert decoded.dtype == spec.dtype and decoded.shape == spec.shape
    assert np.array_equal(decoded, data)
    # Fortran-ordered input is encoded in C order all the same
    assert np.array_equal(codec.encode(np.asfortranarray(data), spec), encoded)


def test_adapter_delta_astype_changes_dtype() -> None:
    codec = array_array("numcodecs.delta", {"dtype": "<i8", "astype": "<i2"})
    spec = chunk_spec((100,), "i8", fill_value=7)
    encoded_spec = codec.resolve(spec)
    assert encoded_spec.dtype == np.dtype("i2")
    assert encoded_spec.shape == (100,)
    assert encoded_spec.data_type.numpy_dtype == np.dtype("i2")
    assert encoded_spec.fill_value == 7
    data = np.arange(1000, 1100, dtype=np.int64)
    encoded = codec.encode(data, spec)
    assert encoded.dtype == np.dtype("i2")
    assert np.array_equal(codec.decode(encoded, spec), data)


def test_adapter_delta_big_endian_configuration() -> None:
    codec = array_array("numcodecs.delta", {"dtype": ">i4", "astype": ">i4"})
    spec = chunk_spec((50,), "i4")
    codec.validate(spec)  # byte order is a storage detail, not a mismatch
    data = RNG.integers(-(10**6), 10**6, size=50, dtype=np.int32)
    encoded = codec.encode(data, spec)
    assert encoded.dtype == np.dtype("i4")  # native in memory
    assert np.array_equal(codec.decode(encoded, spec), data)


def test_adapter_delta_dtype_mismatch_is_a_metadata_error() -> None:
    codec = NumcodecsCodec.from_json("numcodecs.delta", {"dtype": "<i4"})
    with pytest.raises(MetadataError, match="configured with dtype '<i4'.*'<i8'"):
        codec.validate(chunk_spec((4,), "i8"))


def test_adapter_fixedscaleoffset_resolve_changes_dtype() -> None:
    codec = NumcodecsCodec.from_json(
        "numcodecs.fixedscaleoffset", {"offset": 1000, "scale": 10, "dtype": "<f8", "astype": "<u1"}
    )
    assert isinstance(codec, ArrayArrayCodec)
    assert codec.to_json() == {
        "name": "numcodecs.fixedscaleoffset",
        "configuration": {"offset": 1000, "scale": 10, "dtype": "<f8", "astype": "<u1"},
    }  # as stated
    assert codec.configuration == {"scale": 10, "offset": 1000, "dtype": "<f8", "astype": "|u1"}
    spec = chunk_spec((2, 5), "f8", fill_value=1000.5)
    codec.validate(spec)
    encoded_spec = codec.resolve(spec)
    assert encoded_spec.dtype == np.dtype("u1")
    assert encoded_spec.shape == (2, 5)
    assert encoded_spec.layout is spec.layout
    assert encoded_spec.fill_value == 5  # (1000.5 - 1000) * 10
    data = np.linspace(1000, 1001, 10).reshape(2, 5)
    encoded = codec.encode(data, spec)
    assert encoded.dtype == np.uint8 and encoded.shape == (2, 5)
    decoded = codec.decode(encoded, spec)
    assert decoded.dtype == np.float64 and decoded.shape == (2, 5)
    np.testing.assert_allclose(decoded, data, atol=0.05)


def test_adapter_astype_and_quantize() -> None:
    astype = array_array("numcodecs.astype", {"encode_dtype": "<f4", "decode_dtype": "<f8"})
    spec = chunk_spec((3, 3), "f8")
    assert astype.resolve(spec).dtype == np.dtype("f4")
    data = RNG.random((3, 3))
    assert np.allclose(astype.decode(astype.encode(data, spec), spec), data, atol=1e-6)

    quantize = array_array("numcodecs.quantize", {"digits": 2, "dtype": "<f8"})
    assert quantize.resolve(spec).dtype == np.dtype("f8")
    assert np.allclose(quantize.decode(quantize.encode(data, spec), spec), data, atol=1e-2)


def test_adapter_bitround() -> None:
    codec = array_array("numcodecs.bitround", {"keepbits": 10})
    spec = chunk_spec((20,), "f4")
    codec.validate(spec)
    assert codec.resolve(spec).dtype == np.dtype("f4")
    data = RNG.random(20).astype(np.float32)
    encoded = codec.encode(data, spec)
    assert encoded.dtype == np.float32
    np.testing.assert_allclose(codec.decode(encoded, spec), data, rtol=2**-10)
    with pytest.raises(MetadataError, match="float16/32/64"):
        codec.validate(chunk_spec((20,), "i4"))
    with pytest.raises(MetadataError, match="keepbits must be at most 10"):
        array_array("numcodecs.bitround", {"keepbits": 11}).validate(chunk_spec((4,), "f2"))


def test_adapter_packbits() -> None:
    codec = NumcodecsCodec.from_json("numcodecs.packbits", None)
    assert isinstance(codec, ArrayArrayCodec)
    assert codec.to_json() == {"name": "numcodecs.packbits"}
    spec = chunk_spec((3, 7), bool, fill_value=False)
    codec.validate(spec)
    encoded_spec = codec.resolve(spec)
    assert encoded_spec.shape == (1 + 3,) and encoded_spec.dtype == np.uint8
    data = RNG.random((3, 7)) > 0.5
    encoded = codec.encode(data, spec)
    assert encoded.shape == (4,) and encoded.dtype == np.uint8
    assert np.array_equal(codec.decode(encoded, spec), data)
    with pytest.raises(MetadataError, match="booleans"):
        codec.validate(chunk_spec((3,), "u1"))
    with pytest.raises(CorruptChunkError, match="numcodecs.packbits"):
        codec.decode(encoded[:2], spec)


def test_adapter_categorize_is_array_array() -> None:
    codec = NumcodecsCodec.from_json(
        "numcodecs.categorize", {"labels": ["a", "bb"], "dtype": "<U2", "astype": "u1"}
    )
    assert isinstance(codec, ArrayArrayCodec)
    spec = chunk_spec((4,), "<U2")
    codec.validate(spec)
    assert codec.resolve(spec).dtype == np.uint8
    data = np.array(["a", "bb", "bb", "a"])
    encoded = codec.encode(data, spec)
    assert encoded.tolist() == [1, 2, 2, 1]
    assert codec.decode(encoded, spec).tolist() == data.tolist()


def test_adapter_array_bytes_codec() -> None:
    codec = NumcodecsCodec.from_json("numcodecs.vlen-utf8", None)
    assert isinstance(codec, ArrayBytesCodec)
    spec = chunk_spec((2, 2), object, fill_value="")
    data = np.array([["a", "bé"], ["", "ccc"]], dtype=object)
    encoded = codec.encode(data, spec)
    assert isinstance(encoded, bytes)
    assert codec.decode(encoded, spec).tolist() == data.tolist()
    with pytest.raises(CorruptChunkError, match="numcodecs.vlen-utf8"):
        codec.decode(encoded[:-3], spec)
    # the item count is checked before numcodecs allocates anything
    with pytest.raises(CorruptChunkError, match="declares 4 items, expected 5"):
        codec.decode(encoded, chunk_spec((5,), object, fill_value=""))
    with pytest.raises(CorruptChunkError, match="declares 4294967295 items"):
        codec.decode(b"\xff\xff\xff\xff" + encoded[4:], spec)


# safety


class _Boom:
    """Unpickling this calls ``record`` -- stands in for arbitrary code."""

    calls: list[str] = []

    def __reduce__(self) -> Any:
        return (_Boom.calls.append, ("executed",))


def test_pickle_is_refused_by_default() -> None:
    assert "numcodecs.pickle" not in config.get().allow_unsafe_codecs
    with pytest.raises(UnsafeCodecError) as info:
        NumcodecsCodec.from_json("numcodecs.pickle", {"protocol": 5})
    assert str(info.value) == (
        "codec 'numcodecs.pickle' can execute code when it decodes; allow it explicitly with "
        "zarrforge.config.set(allow_unsafe_codecs={'numcodecs.pickle'})"
    )
    assert isinstance(info.value, PermissionError)


def test_pickle_allowed_with_config_set() -> None:
    spec = chunk_spec((3,), object, fill_value=None)
    data = np.array(["x", 1, None], dtype=object)
    with config.set(allow_unsafe_codecs={"numcodecs.pickle"}):
        codec = NumcodecsCodec.from_json("numcodecs.pickle", {"protocol": 5})
        assert isinstance(codec, ArrayBytesCodec)
        assert codec.to_json() == {"name": "numcodecs.pickle", "configuration": {"protocol": 5}}
        assert codec.decode(codec.encode(data, spec), spec).tolist() == data.tolist()
    # the permission ends with the block: decoding is refused again, before unpickling
    import pickle

    _Boom.calls.clear()
    hostile = pickle.dumps(np.array([_Boom(), 0, 0], dtype=object))
    with pytest.raises(UnsafeCodecError):
        codec.decode(hostile, spec)
    assert _Boom.calls == []


def test_allowing_another_codec_does_not_allow_pickle() -> None:
    with config.set(allow_unsafe_codecs={"numcodecs.zlib"}):
        with pytest.raises(UnsafeCodecError):
            NumcodecsCodec.from_json("numcodecs.pickle", None)


# --- packaging ----------------------------------------------------------------------------


def test_entry_points_resolve_to_codec_classes() -> None:
    project = tomllib.loads((PLUGIN_ROOT / "pyproject.toml").read_text())
    entry_points = project["project"]["entry-points"]["zarrforge.codecs"]
    assert set(entry_points) == {
        "gzip",
        "zstd",
        "blosc",
        "crc32c",
        "packbits",
        "bitround",
        "conditional",
        "n5_default",
        "zfp",
        "numcodecs.*",
    }
    for name, target in entry_points.items():
        module, _, attr = target.partition(":")
        obj = getattr(importlib.import_module(module), attr)
        assert isinstance(obj, type) and issubclass(obj, Codec), name
        configurations: dict[str, dict[str, Any]] = {
            "bitround": {"keepbits": 3},  # required there
            "zfp": {"mode": "reversible"},
            "conditional": {"codecs": []},
            "n5_default": {
                "codecs": [{"name": "transpose", "configuration": {"order": [0]}}, {"name": "bytes"}]
            },
        }
        configuration = configurations.get(name)
        built = obj.from_json("numcodecs.zlib" if name == "numcodecs.*" else name, configuration)
        assert built.to_json()["name"] == ("numcodecs.zlib" if name == "numcodecs.*" else name)


def test_registry_family_lookup() -> None:
    from zarrforge.registries.registry import Registry

    registry = Registry("codec", "zarrforge.test-numcodecs-unused-group", Codec)
    registry.register("numcodecs.*", NumcodecsCodec)
    impl = registry.get("numcodecs.zlib")
    codec = impl.from_json("numcodecs.zlib", {"level": 3})
    assert isinstance(codec, BytesBytesCodec)


# --- lzma with a filter chain -------------------------------------------------------


@pytest.mark.parametrize(
    "configuration",
    [
        # the xz container records its filters: numcodecs cannot decode this one itself
        {"filters": [{"id": lzma.FILTER_DELTA, "dist": 4}, {"id": lzma.FILTER_LZMA2, "preset": 1}]},
        {"format": lzma.FORMAT_RAW, "filters": [{"id": lzma.FILTER_LZMA2, "preset": 1}]},
    ],
)
def test_lzma_with_filters_decodes_what_it_encodes(configuration):
    codec = NumcodecsCodec.from_json("numcodecs.lzma", configuration)
    data = np.arange(1000, dtype="<i4").tobytes()
    encoded = codec.encode(data)
    assert codec.decode(encoded) == data
    assert codec.decode_sized(encoded, len(data)) == data


# --- named classes (zarr-python's zarr.codecs.numcodecs) -----------------------------


def test_a_named_class_builds_the_codec_from_keywords_and_matches_read_codecs():
    lzma_class = NumcodecsCodec.named_class("numcodecs.lzma", "LZMA")
    assert NumcodecsCodec.named_class("numcodecs.lzma", "LZMA") is lzma_class
    assert issubclass(lzma_class, NumcodecsBytesBytesCodec)
    codec = lzma_class(preset=1)
    assert codec.to_json() == {"name": "numcodecs.lzma", "configuration": {"preset": 1}}
    assert repr(codec) == "LZMA(preset=1)"
    read = NumcodecsCodec.from_json("numcodecs.lzma", {"preset": 1})
    assert type(read) is NumcodecsBytesBytesCodec
    assert read == codec and codec == read and hash(read) == hash(codec)
    assert isinstance(read, lzma_class)
    assert not isinstance(NumcodecsCodec.from_json("numcodecs.zlib", None), lzma_class)
    assert type(lzma_class.from_json("numcodecs.lzma", {"id": "lzma", "preset": 2})) is lzma_class
    with pytest.raises(MetadataError, match="'lzma' accepts: .*preset") as info:
        lzma_class(nosuch=1)
    assert info.value.field == "configuration"
    with pytest.raises(MetadataError, match="not 'numcodecs.zlib'"):
        lzma_class.from_json("numcodecs.zlib", None)


def test_a_named_shuffle_class_keeps_its_class_when_evolved():
    shuffle_class = NumcodecsCodec.named_class("numcodecs.shuffle", "Shuffle")
    evolved = shuffle_class().evolve(chunk_spec((4,), "<f8"))
    assert type(evolved) is shuffle_class
    assert evolved.to_json() == {"name": "numcodecs.shuffle", "configuration": {"elementsize": 8}}
