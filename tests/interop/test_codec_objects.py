"""Codec objects of zarr-python 3 and numcodecs, given to ``create_array``, are stored
exactly as zarr-python stores them for the same array (``zarrforge.engine.codec_arguments``).

The oracle is zarr-python itself, creating the same array from the same object: the
``codecs`` of its ``zarr.json`` (Zarr v3; every codec class of ``zarr.codecs`` and of
``zarr.codecs.numcodecs``), and the ``compressor`` and ``filters`` of its ``.zarray``
(Zarr v2; every codec numcodecs registers, but those listed in ``NOT_IN_V2_CASES``).
A codec's ``to_dict()`` alone is not the oracle: zarr-python fills in settings the
object leaves unset (blosc's ``typesize`` and ``shuffle``, shuffle's ``elementsize``)
from the array.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import numcodecs
import numpy as np
import pytest
import zarr
import zarr.codecs as zc
from numcodecs.registry import codec_registry
from zarr.abc.codec import ArrayArrayCodec, ArrayBytesCodec
from zarr.core.buffer import default_buffer_prototype
from zarr.storage import MemoryStore as ZarrMemoryStore

import zarrforge as zf
from zarrforge_std.stores.memory import MemoryStore

pytestmark = pytest.mark.filterwarnings(
    "ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning"
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import zarr.codecs.numcodecs as zn

ZARRFORGE_DTYPE = {"str": "string", "bytes": "bytes"}

# settings some codecs cannot be built without
NUMCODECS_ARGUMENTS: dict[str, dict[str, Any]] = {
    "fixedscaleoffset": {"offset": 0, "scale": 10, "dtype": "<f4"},
    "quantize": {"digits": 3, "dtype": "<f4"},
    "astype": {"encode_dtype": "<f8", "decode_dtype": "<f4"},
    "bitround": {"keepbits": 8},
    "delta": {"dtype": "<f4"},
}

# numcodecs codecs not run through Zarr v2 here, and why
NOT_IN_V2_CASES = {
    "base64": "a bytes filter zarr-python refuses as a v2 compressor of numeric arrays",
    "categorize": "needs an object array of labels",
    "json2": "object arrays; zarrforge refuses to write them (CodecError)",
    "msgpack2": "object arrays",
    "pickle": "runs code when decoding: refused unless allowed (zarrforge_numcodecs.safety)",
    "vlen-array": "object arrays of arrays",
    "vlen-bytes": "chosen by the data type, not given (tests/interop/test_zarr2_dtypes.py)",
    "vlen-utf8": "chosen by the data type, not given (tests/interop/test_zarr2_dtypes.py)",
    "pcodec": "an array -> bytes codec: a Zarr v2 filter in zarr-python, not supported as a v2 "
    "filter by zarrforge (refused with a MetadataError naming filters[0])",
    "zfpy": "as pcodec",
}


def _stored(store: ZarrMemoryStore, key: str) -> dict:
    value = asyncio.run(store.get(key, default_buffer_prototype()))
    assert value is not None
    return json.loads(value.to_bytes())


def _argument_for(codec) -> str:
    if isinstance(codec, ArrayArrayCodec):
        return "filters"
    if isinstance(codec, ArrayBytesCodec):
        return "serializer"
    return "compressors"


def _v3_cases() -> list:
    cases = [
        ("blosc", zc.BloscCodec(), "float32"),
        ("blosc", zc.BloscCodec(), "uint8"),
        ("blosc", zc.BloscCodec(cname="lz4"), "float64"),
        ("blosc", zc.BloscCodec(typesize=2, shuffle="noshuffle"), "float64"),
        ("zstd", zc.ZstdCodec(level=3, checksum=True), "int16"),
        ("gzip", zc.GzipCodec(level=1), "float32"),
        ("crc32c", zc.Crc32cCodec(), "float32"),
        ("transpose", zc.TransposeCodec(order=(0,)), "float32"),
        ("bytes", zc.BytesCodec(endian="big"), "int16"),
        ("vlen-utf8", zc.VLenUTF8Codec(), "str"),
        ("vlen-bytes", zc.VLenBytesCodec(), "bytes"),
        ("sharding", zc.ShardingCodec(chunk_shape=(5,)), "float32"),
        ("sharding", zc.ShardingCodec(chunk_shape=(5,), codecs=[zc.BytesCodec(), zc.BloscCodec()]), "int16"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(dir(zn)):
            kind = getattr(zn, name)
            if not (
                isinstance(kind, type)
                and issubclass(kind, zn._codecs._NumcodecsCodec)
                and not name.startswith("_")
            ):
                continue
            codec = kind(**NUMCODECS_ARGUMENTS.get(name.lower(), {}))
            dtypes = ["bool"] if name == "PackBits" else ["float32"]
            if name in ("Shuffle", "Blosc", "Zstd"):
                dtypes = ["float32", "int16", "float64"]
            cases += [(f"numcodecs.{name}", codec, dtype) for dtype in dtypes]
    return cases


V3_CASES = _v3_cases()


@pytest.mark.parametrize(
    "name, codec, dtype", V3_CASES, ids=[f"{name}-{dtype}-{i}" for i, (name, _, dtype) in enumerate(V3_CASES)]
)
def test_zarr_python_codec_objects_are_stored_as_zarr_python_stores_them(name, codec, dtype):
    argument = {_argument_for(codec): codec}
    theirs = ZarrMemoryStore()
    zarr.create_array(theirs, name="a", shape=(20,), chunks=(10,), dtype=dtype, **argument)
    ours = MemoryStore()
    zf.create_array(ours, "a", shape=(20,), chunks=(10,), dtype=ZARRFORGE_DTYPE.get(dtype, dtype), **argument)
    assert json.loads(ours.get("a/zarr.json"))["codecs"] == _stored(theirs, "a/zarr.json")["codecs"]


V2_CASES = sorted(set(codec_registry) - set(NOT_IN_V2_CASES))


def test_the_v2_exclusions_name_codecs_numcodecs_has():
    """Every numcodecs codec is a v2 case unless excluded with a reason; an exclusion of a
    codec numcodecs no longer has is stale."""
    assert set(NOT_IN_V2_CASES) <= set(codec_registry)
    assert len(V2_CASES) >= 19


@pytest.mark.parametrize("codec_id", V2_CASES)
def test_numcodecs_objects_are_stored_in_v2_as_zarr_python_stores_them(codec_id):
    codec = codec_registry[codec_id](**NUMCODECS_ARGUMENTS.get(codec_id, {}))
    from zarrforge.abc.codec import CodecKind
    from zarrforge_numcodecs._kinds import kind_of

    if kind_of(codec_id) is CodecKind.BYTES_BYTES:
        argument = {"compressors": codec}
    else:
        argument = {"filters": [codec], "compressors": None}
    dtype = "bool" if codec_id == "packbits" else "float32"
    theirs = ZarrMemoryStore()
    zarr.create_array(theirs, name="a", shape=(20,), chunks=(10,), dtype=dtype, zarr_format=2, **argument)
    ours = MemoryStore()
    zf.create_array(ours, "a", shape=(20,), chunks=(10,), dtype=dtype, zarr_format=2, **argument)
    stored, expected = json.loads(ours.get("a/.zarray")), _stored(theirs, "a/.zarray")
    for field in ("compressor", "filters", "dtype", "order"):
        assert stored[field] == expected[field], field


def test_numcodecs_objects_in_v3_are_numcodecs_codecs_zarr_python_reads(tmp_path):
    data = np.linspace(0, 1, 20, dtype="float32")
    array = zf.create_array(
        str(tmp_path),
        "a",
        shape=(20,),
        chunks=(10,),
        dtype="float32",
        filters=[numcodecs.Delta(dtype="<f4")],
        compressors=[numcodecs.Zlib(level=3)],
    )
    array[...] = data
    codecs = array.metadata["codecs"]
    assert codecs[0] == {"name": "numcodecs.delta", "configuration": {"dtype": "<f4", "astype": "<f4"}}
    assert codecs[2] == {"name": "numcodecs.zlib", "configuration": {"level": 3}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read = zarr.open_array(str(tmp_path / "a"), mode="r")[...]
    assert np.array_equal(read, data)


def test_an_object_that_is_no_codec_is_refused_naming_the_argument():
    with pytest.raises(zf.errors.MetadataError) as info:
        zf.create_array(MemoryStore(), "a", shape=(2,), dtype="i1", compressors=[object()])
    assert info.value.field == "compressors[0]"
