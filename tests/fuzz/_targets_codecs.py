"""Fuzz target: every registered codec's decoder, through the codec chain, on mutated chunks.

:data:`CASES` holds at least one valid chain per name in ``zarrforge.registry.codecs``
(``test_codecs.py`` fails when a registered name has none), with the
``numcodecs.*`` family represented by every numcodecs id that zarrforge can
wrap. A case draws a chain, draws chunk values, encodes them, and then:

* decodes the untouched bytes: the values come back (exactly, for lossless
  chains; with the right shape and dtype for lossy ones);
* mutates the bytes (:func:`_fuzzkit.mutate_bytes`: bit flips, truncation,
  size words in headers, random replacement, ...) and decodes again: the
  result has the chunk's shape and dtype, or the chain raises a
  :class:`~zarrforge.errors.CorruptChunkError` naming the chunk key;
* when the chain ends with a CRC (``crc32c``, ``numcodecs.crc32c``,
  ``numcodecs.crc32``), a changed byte string must not decode at all.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np
from _fuzzkit import expect, mutate_bytes, target
from hypothesis import strategies as st

from zarrforge import config, registry
from zarrforge.abc.codec import ChunkSpec
from zarrforge.engine.codec_chain import CodecChain
from zarrforge.errors import CodecError, CorruptChunkError
from zarrforge.registries import resolution as c

KEY = "fuzz/c/0/0"
B = {"name": "bytes", "configuration": {"endian": "little"}}
BB = {"name": "bytes", "configuration": {"endian": "big"}}
STRING = "string"


@dataclasses.dataclass(frozen=True)
class Case:
    label: str
    codecs: tuple  # the chain's JSON (tuple of dicts)
    data_type: Any  # the data type JSON: a name or a document
    shape: tuple[int, ...]
    lossless: bool = True
    # False: zarrforge cannot round-trip this chain with this data type (encode refuses, or
    # decode cannot read what encode wrote: numcodecs' categorize, json2, msgpack2 and
    # vlen-array with zarrforge's string/bytes types); its decoder is fuzzed all the same
    roundtrips: bool = True
    # the chunk values to draw, when the data type's numpy dtype does not say enough
    # (``optional`` holds None or the inner type's values in an object array)
    values: Any = None

    def names(self) -> set[str]:
        names = set()
        for codec in self.codecs:
            names.add(codec["name"])
            if codec["name"] == "sharding_indexed":
                for inner in codec["configuration"]["codecs"] + codec["configuration"]["index_codecs"]:
                    names.add(inner["name"])
        return names


def _bb(
    name: str,
    configuration: dict | None = None,
    *,
    dtype: str = "int32",
    shape: tuple[int, ...] = (4, 6),
    label: str | None = None,
) -> Case:
    codec = {"name": name, **({"configuration": configuration} if configuration else {})}
    return Case(label or name, (B, codec), dtype, shape)


CASES: list[Case] = [
    Case("bytes-i2", (B,), "int16", (3, 5)),
    Case("bytes-f8-big", (BB,), "float64", (7,)),
    Case("bytes-bool", ({"name": "bytes"},), "bool", (9,)),
    Case("bytes-c16", (B,), "complex128", (2, 2)),
    Case("bytes-0d", (B,), "uint32", ()),
    Case("bytes-r24", ({"name": "bytes"},), "r24", (5,)),
    Case(
        "transpose-3d", ({"name": "transpose", "configuration": {"order": [2, 0, 1]}}, B), "int32", (2, 3, 4)
    ),
    _bb("gzip", {"level": 1}),
    _bb("zstd", {"level": 1, "checksum": False}),
    _bb("zstd", {"level": 3, "checksum": True}, label="zstd-checksum"),
    _bb(
        "blosc",
        {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0},
        label="blosc-lz4",
    ),
    _bb(
        "blosc",
        {"cname": "zstd", "clevel": 3, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 0},
        label="blosc-zstd-bitshuffle",
    ),
    _bb("blosc", {"cname": "zlib", "clevel": 1, "shuffle": "noshuffle", "blocksize": 0}, label="blosc-zlib"),
    _bb("crc32c"),
    Case(
        "gzip-crc32c",
        (B, {"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}),
        "int32",
        (4, 6),
    ),
    Case(
        "sharding",
        (
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": [2, 3],
                    "codecs": [B, {"name": "gzip", "configuration": {"level": 1}}],
                    "index_codecs": [B, {"name": "crc32c"}],
                    "index_location": "end",
                },
            },
        ),
        "int32",
        (4, 6),
    ),
    Case(
        "sharding-start-nocrc",
        (
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": [2],
                    "codecs": [B],
                    "index_codecs": [B],
                    "index_location": "start",
                },
            },
        ),
        "uint16",
        (8,),
    ),
    Case("vlen-utf8", ({"name": "vlen-utf8"},), STRING, (2, 3)),
    Case("vlen-bytes", ({"name": "vlen-bytes"},), "bytes", (5,)),
    Case(
        "zf_example.bitround",
        ({"name": "zf_example.bitround", "configuration": {"keepbits": 5}}, B),
        "float32",
        (10,),
        lossless=False,
    ),
    Case(
        "example.delta", ({"name": "example.delta", "configuration": {"dtype": "int16"}}, B), "int16", (3, 7)
    ),
    # --- zarr-extensions registry codecs ---------------------------------------------------
    Case(
        "packbits-bool",
        ({"name": "packbits", "configuration": {"padding_encoding": "start_byte"}},),
        "bool",
        (3, 5),
    ),
    Case(
        "packbits-i2-bits",
        ({"name": "packbits", "configuration": {"start_bit": 2, "end_bit": 11}},),
        "int16",
        (7,),
        lossless=False,
    ),
    Case(
        "bitround-f4",
        ({"name": "bitround", "configuration": {"keepbits": 5}}, B),
        "float32",
        (10,),
        lossless=False,
    ),
    Case(
        "bitround-i8",
        ({"name": "bitround", "configuration": {"keepbits": 7}}, B),
        "int64",
        (6,),
        lossless=False,
    ),
    Case("reshape", ({"name": "reshape", "configuration": {"shape": [[0, 1], -1]}}, B), "int32", (2, 3, 4)),
    Case(
        "scale_offset",
        ({"name": "scale_offset", "configuration": {"offset": 3, "scale": 0.5}}, B),
        "float64",
        (6,),
        lossless=False,
    ),
    Case(
        "cast_value",
        (
            {
                "name": "cast_value",
                "configuration": {"data_type": "int16", "rounding": "nearest-away", "out_of_range": "clamp"},
            },
            B,
        ),
        "float64",
        (6,),
        lossless=False,
    ),
    Case(
        "cast_value-wrap",
        ({"name": "cast_value", "configuration": {"data_type": "int8", "out_of_range": "wrap"}}, B),
        "int32",
        (6,),
        lossless=False,
    ),
    Case(
        "conditional",
        (
            B,
            {
                "name": "conditional",
                "configuration": {
                    "codecs": [{"name": "gzip", "configuration": {"level": 1}}, {"name": "crc32c"}],
                    "header_bits": 16,
                },
            },
        ),
        "int32",
        (4, 6),
    ),
    Case("zfp-reversible", ({"name": "zfp", "configuration": {"mode": "reversible"}},), "float32", (4, 5, 3)),
    Case(
        "zfp-accuracy",
        ({"name": "zfp", "configuration": {"mode": "fixed_accuracy", "tolerance": 0.01}},),
        "float64",
        (6, 7),
        lossless=False,
    ),
    Case(
        "optional",
        ({"name": "optional", "configuration": {"mask_codecs": [{"name": "packbits"}], "data_codecs": [B]}},),
        {"name": "optional", "configuration": {"name": "int16", "configuration": {}}},
        (3, 4),
        values="optional",
    ),
    Case(
        "n5_default",
        (
            {
                "name": "n5_default",
                "configuration": {
                    "codecs": [
                        {"name": "transpose", "configuration": {"order": [1, 0]}},
                        {"name": "bytes", "configuration": {"endian": "big"}},
                        {"name": "gzip", "configuration": {"level": 1}},
                    ]
                },
            },
        ),
        "uint16",
        (3, 5),
    ),
    # --- the numcodecs.* family --------------------------------------------------------
    _bb("numcodecs.zlib", {"level": 1}),
    _bb("numcodecs.gzip", {"level": 1}),
    _bb("numcodecs.bz2", {"level": 1}),
    _bb("numcodecs.lzma"),
    _bb("numcodecs.lz4"),
    _bb("numcodecs.zstd", {"level": 1}),
    _bb("numcodecs.blosc", {"cname": "lz4", "clevel": 5, "shuffle": 1}),
    _bb("numcodecs.crc32"),
    _bb("numcodecs.crc32c"),
    _bb("numcodecs.adler32"),
    _bb("numcodecs.fletcher32"),
    _bb("numcodecs.jenkins_lookup3"),
    _bb("numcodecs.base64"),
    _bb("numcodecs.shuffle", {"elementsize": 4}),
    Case(
        "numcodecs.delta", ({"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}, B), "int32", (12,)
    ),
    Case(
        "numcodecs.fixedscaleoffset",
        (
            {
                "name": "numcodecs.fixedscaleoffset",
                "configuration": {"dtype": "<f8", "astype": "<i2", "scale": 10, "offset": 0},
            },
            B,
        ),
        "float64",
        (6,),
        lossless=False,
    ),
    Case(
        "numcodecs.quantize",
        ({"name": "numcodecs.quantize", "configuration": {"digits": 2, "dtype": "<f8"}}, B),
        "float64",
        (6,),
        lossless=False,
    ),
    Case(
        "numcodecs.astype",
        ({"name": "numcodecs.astype", "configuration": {"encode_dtype": "<f4", "decode_dtype": "<f8"}}, B),
        "float64",
        (6,),
        lossless=False,
    ),
    Case(
        "numcodecs.bitround",
        ({"name": "numcodecs.bitround", "configuration": {"keepbits": 8}}, B),
        "float32",
        (6,),
        lossless=False,
    ),
    Case("numcodecs.packbits", ({"name": "numcodecs.packbits"}, {"name": "bytes"}), "bool", (3, 5)),
    Case(
        "numcodecs.categorize",
        (
            {
                "name": "numcodecs.categorize",
                "configuration": {"labels": ["a", "bb", ""], "dtype": "<U2", "astype": "|u1"},
            },
            {"name": "bytes"},
        ),
        STRING,
        (4,),
        roundtrips=False,
    ),
    Case("numcodecs.vlen-utf8", ({"name": "numcodecs.vlen-utf8"},), STRING, (2, 2)),
    Case("numcodecs.vlen-bytes", ({"name": "numcodecs.vlen-bytes"},), "bytes", (3,)),
    Case("numcodecs.json2", ({"name": "numcodecs.json2"},), STRING, (3,), roundtrips=False),
    Case("numcodecs.pcodec", ({"name": "numcodecs.pcodec"},), "int32", (4, 5)),
    Case("numcodecs.msgpack2", ({"name": "numcodecs.msgpack2"},), STRING, (3,), roundtrips=False),
    Case(
        "numcodecs.vlen-array",
        ({"name": "numcodecs.vlen-array", "configuration": {"dtype": "<i4"}},),
        "bytes",
        (3,),
        roundtrips=False,
    ),
    Case(
        "numcodecs.zfpy",
        ({"name": "numcodecs.zfpy", "configuration": {"mode": 4, "tolerance": 0.01}},),
        "float64",
        (5, 4),
        lossless=False,
    ),
]
# numcodecs ids deliberately not fuzzed, with the reason (test_codecs.py checks the list
# against numcodecs' registry so a new id is noticed):
NOT_FUZZED = {
    "pickle": "decoding runs pickle.loads on the bytes: refused unless allowed "
    "(test_codecs.py::test_pickle_is_refused); never fuzzed with permission",
    # registered in numcodecs by kerchunk (a test dependency of the fsspec plugin) for its
    # own reference sets; they decode FITS tables, GRIB messages and HDF5 structures that
    # only kerchunk writes, and are kerchunk's to test
    **dict.fromkeys(
        ("FITSAscii", "FITSVarBintable", "fill_hdf_strings", "grib", "record_member"),
        "kerchunk's codec for its own reference sets",
    ),
}
BY_LABEL = {case.label: case for case in CASES}
assert len(BY_LABEL) == len(CASES), "case labels must be unique"
CHECKSUM_LAST = {"crc32c", "numcodecs.crc32c", "numcodecs.crc32"}


def built(case: Case) -> tuple[CodecChain, ChunkSpec]:
    return _built(case.label)


@functools.cache
def _built(label: str) -> tuple[CodecChain, ChunkSpec]:
    case = BY_LABEL[label]
    data_type = c.data_type_from_json(case.data_type)
    spec = ChunkSpec(case.shape, data_type, data_type.default_fill_value(), c.memory_layout("C"))
    chain = CodecChain.evolved(c.codecs_from_json([dict(x) for x in case.codecs]), spec)
    chain.validate(spec)
    return chain, spec


def values_for(spec: ChunkSpec, kind: str | None = None) -> st.SearchStrategy:
    n = int(np.prod(spec.shape, dtype=np.int64))
    dtype = spec.dtype
    if kind == "optional":

        def gaps(xs: list[int | None]) -> np.ndarray:
            out = np.empty(n, dtype=object)
            out[:] = xs
            return out.reshape(spec.shape)

        element = st.one_of(st.none(), st.integers(-(2**15), 2**15 - 1))
        return st.lists(element, min_size=n, max_size=n).map(gaps)
    if dtype.kind == "T":
        return st.lists(st.text(max_size=6), min_size=n, max_size=n).map(
            lambda xs: np.array(xs, dtype=dtype).reshape(spec.shape)
        )
    if dtype.kind == "O":

        def objects(xs: list[bytes]) -> np.ndarray:
            out = np.empty(n, dtype=object)
            out[:] = xs
            return out.reshape(spec.shape)

        return st.lists(st.binary(max_size=6), min_size=n, max_size=n).map(objects)
    if dtype.kind == "b":
        return st.lists(st.booleans(), min_size=n, max_size=n).map(
            lambda xs: np.array(xs, dtype=bool).reshape(spec.shape)
        )
    size = n * dtype.itemsize

    def numbers(raw: bytes) -> np.ndarray:
        arr = np.frombuffer(raw, dtype=dtype).reshape(spec.shape).copy()
        if dtype.kind in "fc":  # keep lossy filters in range; NaN and inf kept for exact ones
            arr[~np.isfinite(arr)] = 0
            arr = np.clip(arr, -1e3, 1e3) if dtype.kind == "f" else arr
        return arr

    smooth = st.integers(-50, 50).map(lambda k: np.full(spec.shape, k).astype(dtype))
    return st.one_of(st.binary(min_size=size, max_size=size).map(numbers), smooth)


def equal(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "OT" or b.dtype.kind in "OT":
        return a.tolist() == b.tolist()
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def installed(case: Case) -> bool:
    """Every codec of the case is registered (the example plugin may be absent)."""
    return all(name in registry.codecs for name in case.names())


@st.composite
def codec_cases(draw: Any, cases: tuple[Case, ...] | None = None) -> tuple[Case, Any, Any]:
    case = draw(st.sampled_from(cases or [c for c in CASES if installed(c)]), label="case")
    _, spec = built(case)
    values = draw(values_for(spec, case.values), label="values")
    return case, values, draw(st.data(), label="mutations")


def check_case(value: tuple[Case, Any, Any]) -> None:
    case, values, data = value
    chain, spec = built(case)
    encoded = None
    try:
        encoded = chain.encode(values, spec)
    except CodecError:
        if case.roundtrips:
            raise
    if encoded is not None and case.roundtrips:
        decoded = chain.decode(encoded, spec, key=KEY)
        assert decoded.shape == spec.shape, (decoded.shape, spec.shape)
        assert decoded.dtype == spec.dtype or decoded.dtype.newbyteorder("=") == spec.dtype
        if case.lossless:
            assert equal(decoded, values), f"{case.label}: {values!r} decoded as {decoded!r}"
    if encoded is not None:
        source = encoded
    else:
        source = data.draw(st.binary(max_size=256), label="bytes")
    mutated = mutate_bytes(data, source)
    with expect(key=KEY) as caught:
        decoded = chain.decode(mutated, spec, key=KEY)
        assert isinstance(decoded, np.ndarray) and decoded.shape == spec.shape, (
            f"{case.label}: decoded to {getattr(decoded, 'shape', decoded)!r}, expected {spec.shape}"
        )
        assert decoded.dtype == spec.dtype or decoded.dtype.newbyteorder("=") == spec.dtype
        if encoded is not None and mutated != encoded and case.codecs[-1]["name"] in CHECKSUM_LAST:
            raise AssertionError(
                f"{case.label}: changed bytes passed the checksum ({encoded!r} -> {mutated!r})"
            )
    # damage is a CorruptChunkError naming this chunk, not any other zarrforge error
    for error in caught:
        assert isinstance(error, CorruptChunkError) and error.key == KEY, (
            f"{case.label}: damaged bytes raised {type(error).__name__}: {error}"
        )


@target(
    "codec_decode",
    strategy=codec_cases,
    examples=400,
    description="every registered codec (numcodecs.* by id) decoding mutated chunk bytes",
)
def fuzz_codecs(value: Any) -> None:
    with config.set(threads=1):
        check_case(value)
