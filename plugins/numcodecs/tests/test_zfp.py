"""The registry's ``zfp`` codec: headerless zfp streams through zfpy."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import numpy as np
import pytest
import zfpy

import zarrforge as zf
from zarrforge.abc.codec import ChunkSpec
from zarrforge.errors import CorruptChunkError, MetadataError
from zarrforge.registries import resolution as components
from zarrforge.testing import CodecConformance
from zarrforge_numcodecs.zfp_codec import ZfpCodec

SCHEMA = json.loads(pathlib.Path("/work/shared/specs/zarr-extensions/codecs/zfp/schema.json").read_text())
LOSSY = [
    {"mode": "fixed_accuracy", "tolerance": 0.001},
    {"mode": "fixed_rate", "rate": 12},
    {"mode": "fixed_precision", "precision": 18},
]


def spec(shape, name: str) -> ChunkSpec:
    data_type = components.data_type_from_json(name)
    return ChunkSpec(tuple(shape), data_type, data_type.default_fill_value(), components.memory_layout("C"))


def reversible(dtype: str):
    return type(
        f"TestZfpReversible_{dtype}",
        (CodecConformance,),
        {
            "codec_documents": [{"name": "zfp", "configuration": {"mode": "reversible"}}],
            "data_type": dtype,
            "chunk_shape": (4, 5, 3),
        },
    )


TestReversibleFloat32 = reversible("float32")
TestReversibleFloat64 = reversible("float64")
TestReversibleInt32 = reversible("int32")
TestReversibleInt64 = reversible("int64")
TestReversibleInt16 = reversible("int16")
TestReversibleUint8 = reversible("uint8")


class TestLossyModes(CodecConformance):
    codec_documents = [{"name": "zfp", "configuration": mode} for mode in LOSSY]
    data_type = "float64"
    lossless = False


@pytest.mark.parametrize("mode", [{"mode": "reversible"}, *LOSSY])
def test_what_is_written_matches_the_registry_schema(tmp_path, mode):
    document = ZfpCodec.from_json("zfp", dict(mode)).to_json()
    assert document == {"name": "zfp", "configuration": mode}
    jsonschema.validate(document, SCHEMA)
    array = zf.create_array(
        str(tmp_path / "a.zarr"),
        shape=(6,),
        chunks=(6,),
        dtype="float32",
        serializer=document,
        compressors=None,
    )
    stored = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())["codecs"][0]
    jsonschema.validate(stored, SCHEMA)
    assert array.metadata["codecs"][0] == document


@pytest.mark.parametrize(
    "dtype,promote",
    [
        ("int8", lambda v: v.astype(np.int32) << 23),
        ("int16", lambda v: v.astype(np.int32) << 15),
        ("uint8", lambda v: (v.astype(np.int32) - 0x80) << 23),
        ("uint16", lambda v: (v.astype(np.int32) - 0x8000) << 15),
    ],
)
def test_narrow_integers_are_promoted_as_the_registry_says(dtype, promote):
    """The stream holds int32 values v << (31 - N) (signed) or (v - 2**(N-1)) << (31 - N)
    (unsigned): decoding it as zfp int32 gives exactly those."""
    info = np.iinfo(dtype)
    values = np.linspace(info.min, info.max, 24).astype(dtype).reshape(4, 6)
    stream = ZfpCodec("reversible").encode(values, spec(values.shape, dtype))
    as_int32 = zfpy._decompress(
        np.frombuffer(stream + bytes(4096), np.uint8), zfpy.dtype_to_ztype(np.dtype("int32")), [4, 6]
    )
    np.testing.assert_array_equal(as_int32, promote(values))


def test_unsigned_wide_integers_are_clamped_like_zarrs():
    values = np.array([0, 5, 2**31 - 1, 2**31, 2**32 - 1], dtype="uint32")
    codec = ZfpCodec("reversible")
    decoded = codec.decode(codec.encode(values, spec((5,), "uint32")), spec((5,), "uint32"))
    np.testing.assert_array_equal(decoded, [0, 5, 2**31 - 1, 2**31 - 1, 2**31 - 1])


def test_the_stream_has_no_header_and_is_what_zfp_writes():
    values = np.linspace(0, 1, 60).reshape(3, 4, 5)
    ours = ZfpCodec("fixed_rate", rate=10).encode(values, spec(values.shape, "float64"))
    assert ours == bytes(zfpy.compress_numpy(values, rate=10.0, write_header=False))
    assert not ours.startswith(b"zfp")  # the header's magic


def test_shapes_zero_dimensional_and_more_than_four_dimensions():
    for shape in [(), (1, 2, 1, 3, 1, 2)]:
        array = zf.create_array(
            None,
            shape=shape,
            chunks=shape,
            dtype="float32",
            serializer={"name": "zfp", "configuration": {"mode": "reversible"}},
            compressors=None,
        )
        values = np.arange(max(1, int(np.prod(shape))), dtype="float32").reshape(shape)
        array[...] = values
        np.testing.assert_array_equal(array[...], values)
    with pytest.raises(MetadataError, match="1 to 4 dimensions") as caught:
        zf.create_array(
            None,
            shape=(2, 2, 2, 2, 2),
            chunks=(2, 2, 2, 2, 2),
            dtype="float32",
            serializer={"name": "zfp", "configuration": {"mode": "reversible"}},
        )
    assert caught.value.field is not None


@pytest.mark.parametrize(
    "configuration,field",
    [
        ({"mode": "expert", "minbits": 1, "maxbits": 100, "maxprec": 20, "minexp": -10}, "mode"),
        ({"mode": "fixed_rate"}, "rate"),
        ({"mode": "reversible", "rate": 3}, "rate"),
        ({"mode": "fixed_accuracy", "tolerance": -1}, "tolerance"),
        ({"mode": "fixed_precision", "precision": 0}, "precision"),
        ({"mode": "lossless"}, "mode"),
    ],
)
def test_bad_or_unsupported_configurations_are_refused_naming_the_field(configuration, field):
    with pytest.raises(MetadataError) as caught:
        ZfpCodec.from_json("zfp", configuration)
    assert field in str(caught.value.field)


def test_unsupported_data_types_are_refused_at_creation():
    with pytest.raises(MetadataError, match="does not support data type"):
        zf.create_array(
            None,
            shape=(4,),
            chunks=(4,),
            dtype="complex64",
            serializer={"name": "zfp", "configuration": {"mode": "reversible"}},
        )


def test_damaged_streams_never_read_past_their_buffer():
    codec = ZfpCodec("reversible")
    chunk = spec((8, 8), "float64")
    stream = codec.encode(np.random.default_rng(0).normal(size=(8, 8)), chunk)
    for damaged in (stream[:5], b"", bytes(len(stream)), stream[::-1]):
        try:
            decoded = codec.decode(damaged, chunk)
        except CorruptChunkError:
            continue
        assert decoded.shape == (8, 8) and decoded.dtype == np.float64
    with pytest.raises(CorruptChunkError, match="more than any zfp stream"):
        codec.decode(bytes(10**6), chunk)


def test_inside_a_shard_and_read_by_region(tmp_path):
    values = np.random.default_rng(1).normal(size=(32, 32)).astype("float32")
    array = zf.create_array(
        str(tmp_path / "s.zarr"),
        shape=values.shape,
        chunks=(8, 8),
        shards=(16, 32),
        dtype="float32",
        serializer={"name": "zfp", "configuration": {"mode": "reversible"}},
        compressors=None,
    )
    array[...] = values
    np.testing.assert_array_equal(zf.open_array(str(tmp_path / "s.zarr"))[3:20, 5], values[3:20, 5])


NUMCODECS_ZFPY_MUTATIONS = """
import random, sys
import numpy as np
from zarrforge.registries import resolution as c
from zarrforge.abc.codec import ChunkSpec
from zarrforge.engine.codec_chain import CodecChain
from zarrforge.errors import CorruptChunkError

rng = random.Random(7)
for dtype, shape, config in [("float64", (5, 4), {"mode": 4, "tolerance": 0.01}),
                             ("float32", (7,), {"mode": 2, "rate": 8}),
                             ("int32", (3, 4, 5), {"mode": 3, "precision": 16}),
                             ("float64", (2, 3, 2, 3), {"mode": 3, "precision": 20})]:
    data_type = c.data_type_from_json(dtype)
    spec = ChunkSpec(shape, data_type, data_type.default_fill_value(), c.memory_layout("C"))
    chain = CodecChain.evolved(c.codecs_from_json(
        [{"name": "numcodecs.zfpy", "configuration": config}]), spec)
    stream = chain.encode((np.arange(np.prod(shape)) * 1.7).astype(dtype).reshape(shape), spec)
    decoded = corrupt = 0
    for _ in range(1500):
        damaged = bytearray(stream)
        for _ in range(rng.randint(1, 4)):
            kind = rng.randrange(3)
            if kind == 0 and damaged:
                damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
            elif kind == 1 and damaged:
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            else:
                damaged = damaged[:rng.randrange(len(damaged) + 1)]
        try:
            assert chain.decode(bytes(damaged), spec, key="k").shape == shape
            decoded += 1
        except CorruptChunkError:
            corrupt += 1
    print(dtype, decoded, corrupt)
"""


def test_damaged_numcodecs_zfpy_chunks_never_crash_the_process():
    """numcodecs.zfpy streams carry their own header, and zfp reads past the end of its
    input: damaged headers and truncated streams used to crash the interpreter (found by
    the codec fuzz target). In a child process, so a crash fails this test and nothing else."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", NUMCODECS_ZFPY_MUTATIONS],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    lines = done.stdout.split("\n")
    assert len([line for line in lines if line]) == 4, done.stdout
    for line in filter(None, lines):
        _, decoded, corrupt = line.split()
        assert int(corrupt) > 0 and int(decoded) > 0, line  # both outcomes were reached


def test_numcodecs_zfpy_refuses_a_header_for_another_shape():
    chain_spec = spec((5, 4), "float64")
    codec = components.codecs_from_json(
        [{"name": "numcodecs.zfpy", "configuration": {"mode": 4, "tolerance": 0.01}}]
    )[0]
    other = zfpy.compress_numpy(np.zeros((6, 4)), tolerance=0.01)
    with pytest.raises(CorruptChunkError, match=r"declares shape \[6, 4\], not 20 values"):
        codec.decode(other, chain_spec)
    assert (
        codec.decode(zfpy.compress_numpy(np.ones((5, 4)), tolerance=0.01), chain_spec).tolist()
        == np.ones((5, 4)).tolist()
    )
