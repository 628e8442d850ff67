"""Shared machinery of the interop suite: the case matrix, one writer and one
reader per implementation, and the comparisons.

Three implementations take part: ``zarrforge`` and the two peers,
``zarr-python`` (the ``zarr`` package, 3.1.x) and ``tensorstore`` (driver
``zarr3`` on a ``file`` kvstore). Every case is described once, in Zarr v3
JSON terms (:class:`Case`); each implementation's writer turns it into calls
of that implementation's public API, and each reader returns a :class:`View`:
what that implementation reports about the array (shape, data type, chunk
shape, values, fill value, attributes, dimension names, codecs, chunk key
encoding).

Expected values are computed here, independently of every implementation:
fill values are decoded from their JSON form bit for bit, and values are
compared as raw bytes, so NaN payloads, signalling NaNs and ``-0.0`` count.
"""

from __future__ import annotations

import dataclasses
import json
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self, cast

import numpy as np
import tensorstore as ts
import zarr
from zarr.core.metadata import ArrayV3Metadata

import zarrforge as zf

ARRAY = "arr"  # every case lives at <store>/arr
PEERS = ("zarr-python", "tensorstore")
ALL = "all"  # Case.region: write every element
NOTHING = "nothing"  # Case.region: write no element (the array reads as the fill value)


# --------------------------------------------------------------------------------------
# cases


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    dtype: str  # a Zarr v3 core data type name
    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    codecs: tuple[dict[str, Any], ...]  # the complete v3 codec list, pipeline order
    fill: Any = None  # the JSON form of the fill value; None: the type's zero
    cke: dict[str, Any] | None = None  # chunk_key_encoding JSON; None: default "/"
    dimension_names: tuple[str | None, ...] | None = None
    attributes: dict[str, Any] = dataclasses.field(default_factory=dict)
    region: Any = ALL  # ALL, NOTHING, or a tuple of slices to write
    keys: tuple[str, ...] | None = None  # the chunk keys the writer must store, if checked

    @property
    def fill_json(self) -> Any:
        if self.fill is not None:
            return self.fill
        kind = np.dtype(self.dtype).kind
        return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": [0.0, 0.0]}[kind]

    @property
    def filters(self) -> list[dict[str, Any]]:
        return [c for c in self.codecs if c["name"] == "transpose"]

    @property
    def serializer(self) -> dict[str, Any]:
        (serializer,) = [c for c in self.codecs if c["name"] in ARRAY_TO_BYTES]
        return serializer

    @property
    def compressors(self) -> list[dict[str, Any]]:
        return [c for c in self.codecs if c["name"] != "transpose" and c["name"] not in ARRAY_TO_BYTES]

    @property
    def read_chunks(self) -> tuple[int, ...]:
        """The smallest unit readers report: the inner chunk shape when sharded."""
        if self.serializer["name"] == "sharding_indexed":
            return tuple(self.serializer["configuration"]["chunk_shape"])
        return self.chunks


ARRAY_TO_BYTES = ("bytes", "sharding_indexed")


def bytes_codec(endian: str = "little") -> dict[str, Any]:
    return {"name": "bytes", "configuration": {"endian": endian}}


def transpose(*order: int) -> dict[str, Any]:
    return {"name": "transpose", "configuration": {"order": list(order)}}


def zstd(level: int = 1, checksum: bool = False) -> dict[str, Any]:
    return {"name": "zstd", "configuration": {"level": level, "checksum": checksum}}


def gzip(level: int = 5) -> dict[str, Any]:
    return {"name": "gzip", "configuration": {"level": level}}


def blosc(cname: str, shuffle: str, typesize: int, clevel: int = 5) -> dict[str, Any]:
    return {
        "name": "blosc",
        "configuration": {
            "typesize": typesize,
            "cname": cname,
            "clevel": clevel,
            "shuffle": shuffle,
            "blocksize": 0,
        },
    }


CRC32C = {"name": "crc32c"}


def sharding(
    chunk_shape: tuple[int, ...],
    codecs: tuple[dict[str, Any], ...],
    index_codecs: tuple[dict[str, Any], ...] | None = None,
    index_location: str = "end",
) -> dict[str, Any]:
    if index_codecs is None:
        index_codecs = (bytes_codec(), CRC32C)  # what zarr-python and zarrforge default to
    return {
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": list(chunk_shape),
            "codecs": list(codecs),
            "index_codecs": list(index_codecs),
            "index_location": index_location,
        },
    }


DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)


def _cases() -> list[Case]:
    cases: list[Case] = []
    add = cases.append

    # Every core data type: 2-D with edge chunks on both axes, zstd.
    for dtype in DTYPES:
        add(
            Case(
                f"dtype-{dtype}",
                dtype,
                (7, 5),
                (3, 2),
                (bytes_codec(), zstd()),
                dimension_names=("y", "x"),
                attributes={"dtype": dtype},
            )
        )

    # The bytes codec with big-endian output, for every multi-byte type.
    for dtype in DTYPES:
        if np.dtype(dtype).itemsize > 1:
            add(Case(f"endian-big-{dtype}", dtype, (6,), (4,), (bytes_codec("big"),)))

    # transpose: 2-D and all six 3-D permutations (including the identity), uncompressed so
    # the stored byte order is exactly what the codec produced.
    add(Case("transpose-2d-10", "float32", (6, 4), (4, 3), (transpose(1, 0), bytes_codec())))
    add(Case("transpose-2d-10-big", "int16", (5, 3), (2, 3), (transpose(1, 0), bytes_codec("big"))))
    for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        add(
            Case(
                "transpose-3d-" + "".join(map(str, order)),
                "int32",
                (4, 5, 3),
                (3, 2, 3),
                (transpose(*order), bytes_codec()),
            )
        )

    # bytes -> bytes codecs.
    add(Case("codec-gzip", "float64", (9, 4), (4, 4), (bytes_codec(), gzip(5))))
    add(Case("codec-gzip-level0", "uint8", (10,), (4,), (bytes_codec(), gzip(0))))
    add(Case("codec-zstd-level5-checksum", "int32", (9, 4), (4, 4), (bytes_codec(), zstd(5, True))))
    add(Case("codec-zstd-negative-level", "uint16", (30,), (16,), (bytes_codec(), zstd(-3))))
    add(
        Case(
            "codec-blosc-lz4-shuffle", "float32", (8, 6), (5, 4), (bytes_codec(), blosc("lz4", "shuffle", 4))
        )
    )
    add(
        Case(
            "codec-blosc-zstd-bitshuffle",
            "uint16",
            (20,),
            (8,),
            (bytes_codec(), blosc("zstd", "bitshuffle", 2)),
        )
    )
    add(
        Case(
            "codec-blosc-blosclz-noshuffle",
            "int64",
            (12,),
            (5,),
            (bytes_codec(), blosc("blosclz", "noshuffle", 8, clevel=9)),
        )
    )
    add(
        Case(
            "codec-blosc-lz4hc-bitshuffle-bool",
            "bool",
            (40,),
            (16,),
            (bytes_codec(), blosc("lz4hc", "bitshuffle", 1)),
        )
    )
    add(
        Case(
            "codec-blosc-zlib-shuffle-big",
            "float64",
            (6, 5),
            (4, 4),
            (bytes_codec("big"), blosc("zlib", "shuffle", 8, clevel=1)),
        )
    )
    add(Case("codec-crc32c", "uint8", (10,), (4,), (bytes_codec(), CRC32C)))
    add(Case("codec-gzip-crc32c", "int64", (5, 5), (2, 5), (bytes_codec("big"), gzip(1), CRC32C)))
    add(
        Case(
            "codec-transpose-blosc-crc32c",
            "complex64",
            (4, 6),
            (3, 4),
            (transpose(1, 0), bytes_codec(), blosc("zstd", "shuffle", 8), CRC32C),
        )
    )

    # sharding_indexed: shards of inner chunks; only part of the array is written, so some
    # inner chunks are empty (missing from the index) and some shards are never written.
    add(
        Case(
            "shard-index-end",
            "int32",
            (8, 6),
            (4, 6),
            (sharding((2, 3), (bytes_codec(), zstd())),),
            fill=-1,
            region=(slice(0, 3), slice(0, 6)),
            keys=("c/0/0",),
        )
    )
    add(
        Case(
            "shard-index-start-big-gzip",
            "float64",
            (8, 6),
            (4, 3),
            (sharding((2, 3), (bytes_codec("big"), gzip(1)), index_location="start"),),
            fill="NaN",
            region=(slice(2, 8), slice(0, 2)),
            keys=("c/0/0", "c/1/0"),
        )
    )
    add(
        Case(
            "shard-edge-shards",
            "uint16",
            (7, 5),
            (4, 4),
            (sharding((2, 2), (bytes_codec(),)),),
            dimension_names=("y", "x"),
        )
    )
    add(
        Case(
            "shard-inner-transpose-blosc",
            "int16",
            (4, 6, 6),
            (4, 3, 6),
            (sharding((2, 3, 3), (transpose(2, 0, 1), bytes_codec(), blosc("lz4", "shuffle", 2))),),
        )
    )
    add(
        Case(
            "shard-index-without-checksum",
            "uint8",
            (10,),
            (5,),
            (sharding((1,), (bytes_codec(),), index_codecs=(bytes_codec(),)),),
            fill=9,
            region=(slice(0, 3),),
            keys=("c/0",),
        )
    )
    add(
        Case(
            "shard-cke-v2",
            "int64",
            (4, 4),
            (2, 4),
            (sharding((2, 2), (bytes_codec(),)),),
            cke={"name": "v2", "configuration": {"separator": "."}},
            region=(slice(0, 2), slice(0, 4)),
            keys=("0.0",),
        )
    )

    # Chunk key encodings; only chunks (0, 0) and (2, 1) are written, the others never are.
    region = (slice(0, 2), slice(0, 3))
    sparse = (slice(4, 5), slice(3, 4))
    encodings: tuple[tuple[dict[str, Any], tuple[str, str]], ...] = (
        ({"name": "default", "configuration": {"separator": "/"}}, ("c/0/0", "c/2/1")),
        ({"name": "default", "configuration": {"separator": "."}}, ("c.0.0", "c.2.1")),
        ({"name": "v2", "configuration": {"separator": "."}}, ("0.0", "2.1")),
        ({"name": "v2", "configuration": {"separator": "/"}}, ("0/0", "2/1")),
    )
    for cke, keys in encodings:
        sep = {"/": "slash", ".": "dot"}[cke["configuration"]["separator"]]
        add(
            Case(
                f"cke-{cke['name']}-{sep}",
                "int32",
                (5, 4),
                (2, 3),
                (bytes_codec(), zstd()),
                fill=-1,
                cke=cke,
                region=_Union(region, sparse),
                keys=keys,
            )
        )
    add(
        Case(
            "cke-v2-dot-0d",
            "int16",
            (),
            (),
            (bytes_codec(),),
            fill=5,
            cke={"name": "v2", "configuration": {"separator": "."}},
            keys=("0",),
        )
    )
    add(Case("cke-default-0d", "int16", (), (), (bytes_codec(),), fill=5, keys=("c",)))

    # Shapes: 0-d, zero-length dimensions, edge chunks, never-written chunks.
    add(Case("shape-0d", "float64", (), (), (bytes_codec(), zstd()), fill=1.5))
    add(
        Case(
            "shape-0d-never-written",
            "complex128",
            (),
            (),
            (bytes_codec(),),
            fill=[1.5, "-Infinity"],
            region=NOTHING,
            keys=(),
        )
    )
    add(Case("shape-0d-bool", "bool", (), (), (bytes_codec(),), fill=True))
    add(
        Case(
            "shape-0d-names-empty",
            "uint32",
            (),
            (),
            (bytes_codec("big"), CRC32C),
            fill=4000000000,
            dimension_names=(),
            attributes={"rank": 0},
        )
    )
    add(
        Case(
            "shape-zero-length-1d",
            "uint16",
            (0,),
            (3,),
            (bytes_codec(), zstd()),
            fill=7,
            region=NOTHING,
            keys=(),
        )
    )
    add(
        Case(
            "shape-zero-length-2d",
            "float32",
            (3, 0),
            (2, 2),
            (bytes_codec(), gzip()),
            fill="NaN",
            region=NOTHING,
            keys=(),
        )
    )
    add(
        Case(
            "shape-edge-3d",
            "int16",
            (5, 6, 7),
            (2, 4, 3),
            (bytes_codec(), zstd()),
            dimension_names=("z", "y", "x"),
        )
    )
    add(
        Case(
            "shape-chunk-larger-than-array",
            "uint32",
            (3, 2),
            (8, 8),
            (bytes_codec(), zstd()),
            keys=("c/0/0",),
        )
    )
    add(
        Case(
            "shape-never-written-chunks",
            "float64",
            (10, 10),
            (3, 3),
            (bytes_codec(), zstd()),
            fill=-2.5,
            region=(slice(0, 3), slice(3, 6)),
            keys=("c/0/1",),
        )
    )
    add(
        Case(
            "shape-never-written-edge-chunk",
            "int8",
            (10, 10),
            (3, 3),
            (bytes_codec(),),
            fill=-7,
            region=(slice(9, 10), slice(9, 10)),
            keys=("c/3/3",),
        )
    )
    add(
        Case(
            "shape-never-written-at-all",
            "float32",
            (4, 4),
            (2, 2),
            (bytes_codec(), zstd()),
            fill="Infinity",
            region=NOTHING,
            keys=(),
        )
    )

    # Fill values; part of each array is never written, so the fill value shows.
    part = (slice(0, 2),)
    for dtype, fill in (
        ("float32", "NaN"),
        ("float64", "Infinity"),
        ("float16", "-Infinity"),
        ("float64", -0.0),
        ("float32", 0.1),
        ("float32", "0x7fc00001"),  # a quiet NaN with a payload
        ("float32", "0x7f800001"),  # a signalling NaN
        ("float64", "0x7ff8000000000001"),
        ("float64", "0xfff0000000000001"),  # a negative signalling NaN
        ("float16", "0x7e01"),
        ("float32", "0x3f800000"),  # an ordinary number written as bits: 1.0
        ("int8", -7),
        ("uint16", 999),
        ("int64", -(2**63)),
        ("uint64", 2**64 - 1),
        ("complex64", [1.5, "NaN"]),
        ("complex128", ["Infinity", "-Infinity"]),
        ("complex64", ["0x7fc00001", -0.0]),
        ("bool", True),
    ):
        label = json.dumps(fill).replace('"', "").replace(" ", "").replace(",", "_").strip("[]")
        add(
            Case(
                f"fill-{dtype}-{label}",
                dtype,
                (5,),
                (2,),
                (bytes_codec(), zstd()),
                fill=fill,
                region=part,
                keys=("c/0",),
            )
        )

    # Dimension names and attributes.
    nested = {
        "ü-ñ-日本": {"list": [1, 2.5, None, True, "ß"], "deep": {"a": {"b": [[], {}]}}},
        "emoji": "🌊",
        "empty": {},
        "int": -(2**53),
        "float": 1e-300,
    }
    add(
        Case(
            "names-with-nulls",
            "int32",
            (2, 3, 4),
            (2, 2, 2),
            (bytes_codec(), zstd()),
            dimension_names=("x", None, "z"),
            attributes=nested,
        )
    )
    add(Case("names-all-null", "uint8", (3, 2), (2, 2), (bytes_codec(),), dimension_names=(None, None)))
    add(
        Case(
            "names-unicode",
            "float64",
            (2, 2),
            (1, 2),
            (bytes_codec(), zstd()),
            dimension_names=("時間", "x y"),
            attributes={"long_name": "température"},
        )
    )
    return cases


class _Union(tuple):
    """A region made of several disjoint boxes (each a tuple of slices)."""

    def __new__(cls, *boxes: tuple[slice, ...]) -> Self:
        return super().__new__(cls, boxes)


CASES = _cases()
CASES_BY_ID = {c.id: c for c in CASES}
assert len(CASES_BY_ID) == len(CASES), "case ids must be unique"


def case_id(case: Case) -> str:
    return case.id


# --------------------------------------------------------------------------------------
# expected values, decoded independently of every implementation


def _float_bits(dtype: np.dtype, value: Any) -> bytes:
    """The little-endian bytes of one float fill value in its JSON encoding."""
    special = {"NaN": np.nan, "Infinity": np.inf, "-Infinity": -np.inf}
    if isinstance(value, str) and value.startswith("0x"):
        return int(value, 16).to_bytes(dtype.itemsize, "little")
    number = special[value] if isinstance(value, str) else value
    return np.array(number, dtype=dtype.newbyteorder("<")).tobytes()


def fill_scalar(dtype: str, value: Any) -> np.generic:
    """The fill value ``value`` (JSON form) as a numpy scalar of ``dtype``, bit for bit."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        raw = _float_bits(dt, value)
    elif dt.kind == "c":
        part = np.dtype(f"f{dt.itemsize // 2}")
        raw = _float_bits(part, value[0]) + _float_bits(part, value[1])
    else:
        raw = np.array(value, dtype=dt.newbyteorder("<")).tobytes()
    return np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt)[0]


def _special_floats(dt: np.dtype) -> np.ndarray:
    bits = {
        2: [0x7E00, 0x7C00, 0xFC00, 0x8000, 0x7E01, 0x7C01, 0x7BFF, 0x0001],
        4: [0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000, 0x7FC00001, 0x7F800001, 0x7F7FFFFF, 0x00000001],
        8: [
            0x7FF8000000000000,
            0x7FF0000000000000,
            0xFFF0000000000000,
            0x8000000000000000,
            0x7FF8000000000001,
            0x7FF0000000000001,
            0x7FEFFFFFFFFFFFFF,
            0x1,
        ],
    }[dt.itemsize]
    # NaN, +inf, -inf, -0.0, NaN with payload, signalling NaN, max, smallest subnormal
    return np.array(bits, dtype=f"<u{dt.itemsize}").view(dt.newbyteorder("<")).astype(dt)


def make_data(dtype: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Deterministic values covering the type's range, including special floats."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dt.kind == "b":
        return np.array(rng.random(shape) < 0.5)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        data = np.array(rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True), dtype=dt)
        flat = data.reshape(-1)  # a view
        flat[: min(2, flat.size)] = [info.min, info.max][: min(2, flat.size)]
        return data
    if dt.kind == "f":
        data = np.array(rng.normal(size=shape) * 1000, dtype=dt)
        flat = data.reshape(-1)  # a view
        special = _special_floats(dt)
        n = min(flat.size, special.size)
        flat[:n] = special[:n]
        return data
    part = np.dtype(f"f{dt.itemsize // 2}")
    out = np.empty(shape, dtype=dt)
    out.real = make_data(part.name, shape, seed)
    out.imag = make_data(part.name, shape, seed + 1)[::-1] if shape else make_data(part.name, shape, seed + 1)
    return out


def regions(case: Case) -> list[Any]:
    """The selections a writer writes (each a tuple of slices, or ``()`` for everything)."""
    if case.region == ALL:
        return [()]
    if case.region == NOTHING:
        return []
    if isinstance(case.region, _Union):
        return list(case.region)
    return [case.region]


def expected_values(case: Case, data: np.ndarray, fill: np.generic | None = None) -> np.ndarray:
    fill = fill_scalar(case.dtype, case.fill_json) if fill is None else fill
    size = int(np.prod(case.shape, dtype=np.int64))
    out = np.frombuffer(np.asarray(fill).tobytes() * size, dtype=np.dtype(case.dtype)).reshape(case.shape)
    out = out.copy()
    for region in regions(case):
        out[region] = data[region]
    return out


def bits(value: Any) -> bytes:
    return np.ascontiguousarray(np.asarray(value)).tobytes()


def assert_same_bits(actual: Any, expected: Any, what: str) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    if bits(actual) != bits(expected):
        # A readable message first (NaN-aware), then the byte-level difference.
        np.testing.assert_array_equal(actual, expected, err_msg=what)
        width = expected.dtype.itemsize if expected.dtype.kind != "c" else expected.dtype.itemsize // 2
        view = f"<u{width}" if width in (1, 2, 4, 8) else "u1"
        a = np.ascontiguousarray(actual).reshape(-1).view(view)
        e = np.ascontiguousarray(expected).reshape(-1).view(view)
        diff = np.flatnonzero(a.reshape(-1) != e.reshape(-1))
        raise AssertionError(
            f"{what}: equal as numbers but not bit for bit; first differing words "
            f"{[hex(int(a.reshape(-1)[i])) for i in diff[:4]]} != "
            f"{[hex(int(e.reshape(-1)[i])) for i in diff[:4]]}"
        )


# --------------------------------------------------------------------------------------
# metadata normalisation (semantic comparison of codec lists and key encodings)


def normalize_codecs(codecs: Any, dtype: str) -> list[dict[str, Any]]:
    """Codec JSON with every optional member at its default, so that spellings compare equal."""
    out = []
    for codec in json.loads(json.dumps(list(codecs))):
        if isinstance(codec, str):
            codec = {"name": codec}
        name = codec["name"]
        conf = dict(codec.get("configuration") or {})
        if name == "bytes" and np.dtype(dtype).itemsize == 1:
            conf.pop("endian", None)  # meaningless for single-byte types; writers may omit it
        elif name == "zstd":
            conf.setdefault("checksum", False)
        elif name == "sharding_indexed":
            conf["codecs"] = normalize_codecs(conf.get("codecs", []), dtype)
            conf["index_codecs"] = normalize_codecs(conf.get("index_codecs", []), "uint64")
            conf.setdefault("index_location", "end")
        elif name == "blosc":
            conf.setdefault("blocksize", 0)
            if conf.get("shuffle") == "noshuffle":
                conf.pop("typesize", None)  # only required with a shuffle; tensorstore omits it
        out.append({"name": name, "configuration": conf} if conf else {"name": name})
    return out


def normalize_cke(cke: Any) -> dict[str, Any]:
    cke = cke or {"name": "default"}
    if isinstance(cke, str):
        cke = {"name": cke}
    conf = dict(cke.get("configuration") or {})
    conf.update({k: v for k, v in cke.items() if k not in ("name", "configuration")})  # flat form
    conf.setdefault("separator", "/" if cke["name"] == "default" else ".")
    return {"name": cke["name"], "configuration": conf}


# --------------------------------------------------------------------------------------
# what an implementation reports


@dataclasses.dataclass
class View:
    reader: str
    shape: tuple[int, ...]
    dtype: np.dtype
    chunks: tuple[int, ...]
    values: np.ndarray
    fill: Any
    attributes: dict[str, Any]
    dimension_names: tuple[str | None, ...] | None
    codecs: list[Any]
    cke: Any
    fill_json: Any
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)


def array_dir(root: Path) -> Path:
    return Path(root) / ARRAY


def node_document(path: Path) -> dict[str, Any]:
    """The zarr.json of the node directory ``path``, as stored."""
    return json.loads((Path(path) / "zarr.json").read_text(encoding="utf-8"))


def raw_document(root: Path) -> dict[str, Any]:
    return node_document(array_dir(root))


def edit_document(path: Path, **changes: Any) -> dict[str, Any]:
    """Rewrite the zarr.json at ``path`` (a node directory) with ``changes`` applied."""
    doc = json.loads((Path(path) / "zarr.json").read_text(encoding="utf-8"))
    doc.update(changes)
    (Path(path) / "zarr.json").write_text(json.dumps(doc), encoding="utf-8")
    return doc


def stored_chunk_keys(root: Path) -> list[str]:
    base = array_dir(root)
    keys = []
    for dirpath, _, files in os.walk(base):
        for name in files:
            key = Path(dirpath, name).relative_to(base).as_posix()
            if key != "zarr.json":
                keys.append(key)
    return sorted(keys)


# --- zarrforge ------------------------------------------------------------------------


def write_zarrforge(root: Path, case: Case, data: np.ndarray) -> Any:
    a = zf.create_array(
        str(root),
        ARRAY,
        shape=case.shape,
        dtype=case.dtype,
        chunks=case.chunks,
        codecs=list(case.codecs),
        fill_value=fill_scalar(case.dtype, case.fill_json),
        attributes=case.attributes,
        dimension_names=case.dimension_names,
        chunk_key_encoding=case.cke,
    )
    for region in regions(case):
        a[region] = data[region]
    return a


def read_zarrforge(root: Path) -> View:
    a = zf.open_array(str(root), ARRAY)
    doc = a.metadata
    names = a.dimension_names
    return View(
        "zarrforge",
        a.shape,
        a.dtype,
        a.chunks,
        np.asarray(a[...]),
        a.fill_value,
        a.attrs.asdict(),
        tuple(names) if names is not None else None,
        doc["codecs"],
        doc["chunk_key_encoding"],
        doc["fill_value"],
    )


# --- zarr-python ----------------------------------------------------------------------


def write_zarr_python(root: Path, case: Case, data: np.ndarray) -> Any:
    z = zarr.create_array(
        str(root),
        name=ARRAY,
        shape=case.shape,
        dtype=case.dtype,
        chunks=case.chunks,
        filters=case.filters or None,
        serializer=case.serializer,
        compressors=case.compressors or None,
        fill_value=fill_scalar(case.dtype, case.fill_json),
        attributes=case.attributes,
        dimension_names=case.dimension_names,
        chunk_key_encoding=normalize_cke(case.cke) if case.cke else None,
    )
    for region in regions(case):
        z[region] = data[region]
    return z


def read_zarr_python(root: Path) -> View:
    z = zarr.open_array(str(root), path=ARRAY, mode="r")
    metadata = z.metadata
    assert isinstance(metadata, ArrayV3Metadata)  # these cases are Zarr v3 arrays
    doc = json.loads(json.dumps(metadata.to_dict(), default=str))
    names = metadata.dimension_names
    return View(
        "zarr-python",
        tuple(z.shape),
        z.dtype,
        tuple(z.chunks),
        np.asarray(z[...]),
        z.fill_value,
        dict(z.attrs),
        tuple(names) if names is not None else None,
        doc["codecs"],
        doc["chunk_key_encoding"],
        doc["fill_value"],
        extra={"metadata": z.metadata},
    )


# --- tensorstore ----------------------------------------------------------------------


def ts_spec(root: Path, **members: Any) -> dict[str, Any]:
    return {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(array_dir(root)) + "/"}, **members}


def write_tensorstore(root: Path, case: Case, data: np.ndarray) -> Any:
    metadata: dict[str, Any] = {
        "shape": list(case.shape),
        "data_type": case.dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(case.chunks)}},
        "chunk_key_encoding": case.cke or {"name": "default"},
        "fill_value": case.fill_json,
        "codecs": list(case.codecs),
        "attributes": case.attributes,
    }
    if case.dimension_names is not None:
        metadata["dimension_names"] = list(case.dimension_names)
    t = ts.open(ts_spec(root, metadata=metadata), create=True).result()
    for region in regions(case):
        t[region].write(data[region]).result()
    return t


def open_tensorstore(root: Path) -> Any:
    return ts.open(ts_spec(root), open=True).result()


def read_tensorstore(root: Path) -> View:
    t = open_tensorstore(root)
    meta = t.spec().to_json()["metadata"]
    names = meta.get("dimension_names")
    fill = t.fill_value
    return View(
        "tensorstore",
        tuple(t.shape),
        t.dtype.numpy_dtype,
        tuple(t.chunk_layout.read_chunk.shape or ()),
        np.asarray(t.read().result()),
        None if fill is None else np.asarray(fill)[()],
        meta.get("attributes", {}),
        tuple(names) if names is not None else None,
        meta["codecs"],
        meta.get("chunk_key_encoding"),
        meta["fill_value"],
        extra={
            "labels": tuple(t.domain.labels),
            "units": tuple(t.dimension_units),
            "schema_labels": tuple(t.schema.domain.labels),
            "write_chunks": tuple(t.schema.chunk_layout.write_chunk.shape or ()),
            "schema_dtype": t.schema.dtype.numpy_dtype,
            "metadata": meta,
        },
    )


WRITERS: dict[str, Callable[[Path, Case, np.ndarray], Any]] = {
    "zarrforge": write_zarrforge,
    "zarr-python": write_zarr_python,
    "tensorstore": write_tensorstore,
}
READERS: dict[str, Callable[[Path], View]] = {
    "zarrforge": read_zarrforge,
    "zarr-python": read_zarr_python,
    "tensorstore": read_tensorstore,
}


# --------------------------------------------------------------------------------------
# the checks


def check_view(
    view: View,
    case: Case,
    data: np.ndarray,
    *,
    writer: str,
    update: tuple[Any, np.ndarray] | None = None,
    cleared: np.ndarray | None = None,
    attributes: dict[str, Any] | None = None,
    read_chunks: tuple[int, ...] | None = None,
) -> None:
    """Everything ``view`` reports agrees with ``case`` and the ``data`` ``writer`` wrote.

    ``update`` is ``(region, values)`` written afterwards over the same array;
    ``cleared`` is a boolean mask of elements reset to the fill value since;
    ``attributes`` replaces the case's attributes when they were changed since;
    ``read_chunks`` the chunk shape the reader should report, when not the case's.
    """
    exp = expectation(case, writer, view.reader)
    fill = exp.fill
    who = view.reader
    assert view.shape == case.shape, who
    assert view.dtype == np.dtype(case.dtype), who
    assert view.chunks == (case.read_chunks if read_chunks is None else read_chunks), who
    expected = expected_values(case, data, fill)
    if update is not None:
        expected[update[0]] = update[1][update[0]]
    if cleared is not None:
        expected[cleared] = expected_values(dataclasses.replace(case, region=NOTHING), data, fill)[cleared]
    assert_same_bits(view.values, expected, f"{who}: values")
    assert_same_bits(
        np.asarray(view.fill, dtype=np.dtype(case.dtype)), np.asarray(fill), f"{who}: fill value"
    )
    assert view.attributes == (case.attributes if attributes is None else attributes), who
    assert view.dimension_names == exp.dimension_names, who
    assert normalize_codecs(view.codecs, case.dtype) == normalize_codecs(case.codecs, case.dtype), who
    assert normalize_cke(view.cke) == normalize_cke(case.cke), who
    if who == "tensorstore":
        rank = len(case.shape)
        # tensorstore's domain labels are the dimension names, "" for an unnamed dimension
        assert view.extra["labels"] == tuple(n or "" for n in (exp.dimension_names or ("",) * rank))
        assert view.extra["schema_labels"] == view.extra["labels"]
        # the zarr3 driver has no place for units: none are reported
        assert view.extra["units"] == (None,) * rank
        # the schema's write chunk is the stored chunk (the shard, when sharded)
        assert view.extra["write_chunks"] == case.chunks
        assert view.extra["schema_dtype"] == np.dtype(case.dtype)


def check_zarrforge_selections(root: Path, case: Case, data: np.ndarray, *, writer: str) -> None:
    """Partial reads (strided slices, single elements, orthogonal and point selections)
    agree with the whole array: these go through partial decoding (e.g. of shards).
    So does a whole read into Fortran-ordered memory on one thread."""
    expected = expected_values(case, data, expectation(case, writer, "zarrforge").fill)
    fortran = zf.open_array(str(root), ARRAY, order="F", threads=1)[...]
    assert_same_bits(fortran, expected, "zarrforge order='F'")
    a = zf.open_array(str(root), ARRAY)
    if not case.shape or 0 in case.shape:
        assert_same_bits(a[...], expected, "zarrforge [...]")
        return
    selections: list[tuple[Any, ...]] = [
        tuple(slice(1, None, 2) for _ in case.shape),
        tuple(slice(n - 1, None) for n in case.shape),
        tuple(n // 2 for n in case.shape),
    ]
    for sel in selections:
        assert_same_bits(a[sel], expected[sel], f"zarrforge {sel}")
    rows = np.array(sorted({0, case.shape[0] - 1}))
    assert_same_bits(
        a.oindex[(rows,) + (slice(None),) * (len(case.shape) - 1)], expected[rows], "zarrforge oindex"
    )
    points = tuple(np.array([0, n - 1]) for n in case.shape)
    assert_same_bits(a.vindex[points], expected[points], "zarrforge vindex")


def update_region(case: Case) -> tuple[slice, ...]:
    """The upper half of every axis: partial chunks and edge chunks, never everything."""
    return tuple(slice(n // 2, n) for n in case.shape)


def check_keys(root: Path, case: Case) -> None:
    """The writer stored exactly the chunk keys the case expects, and zarrforge lists them."""
    if case.keys is None:
        return
    assert stored_chunk_keys(root) == sorted(case.keys)
    encoding = normalize_cke(case.cke)
    sep = encoding["configuration"]["separator"]
    coords = []
    for key in case.keys:
        parts = key.split(sep)
        if encoding["name"] == "default":
            parts = parts[1:]  # "c", then one part per dimension
        coords.append(tuple(int(p) for p in parts) if case.shape else ())
    a = zf.open_array(str(root), ARRAY)
    assert sorted(a.stored_chunks()) == sorted(coords)
    assert a.nchunks_initialized == len(coords)


# --------------------------------------------------------------------------------------
# documented peer deviations


@dataclasses.dataclass
class Expectation:
    """What a reader should report for a case written by a writer.

    Usually the case itself; where a peer cannot express the case, ``deviations``
    names what the peer does instead (also listed in docs/interop.md), ``fill`` and
    ``dimension_names`` are what it does report, and :func:`check_deviations`
    asserts the peer's behaviour explicitly, so a peer that changes is noticed.
    """

    fill: np.generic
    dimension_names: tuple[str | None, ...] | None
    deviations: list[str]


def _has_nan(value: np.generic) -> bool:
    return bool(np.isnan(value)) if np.dtype(type(value)).kind in "fc" else False


def _canonical_nans(value: np.generic) -> np.generic:
    dt = np.dtype(type(value))
    if dt.kind == "f":
        return dt.type(np.nan) if np.isnan(value) else value
    out = np.zeros((), dtype=dt)
    part = np.dtype(f"f{dt.itemsize // 2}")
    out.real = part.type(np.nan) if np.isnan(value.real) else value.real
    out.imag = part.type(np.nan) if np.isnan(value.imag) else value.imag
    return cast(np.generic, out[()])  # a 0-d array indexed by () is its scalar


def _through_python_float(value: np.generic) -> np.generic:
    dt = np.dtype(type(value))
    part = dt if dt.kind == "f" else np.dtype(f"f{dt.itemsize // 2}")
    code = {2: "<e", 4: "<f", 8: "<d"}[part.itemsize]
    raw = np.asarray(value).astype(dt.newbyteorder("<")).tobytes()
    parts = [struct.unpack(code, raw[i : i + part.itemsize])[0] for i in range(0, len(raw), part.itemsize)]
    out = np.frombuffer(
        b"".join(np.asarray(p, dtype=part.newbyteorder("<")).tobytes() for p in parts),
        dtype=dt.newbyteorder("<"),
    )
    return out.astype(dt)[0]


def expectation(case: Case, writer: str, reader: str) -> Expectation:
    correct = fill_scalar(case.dtype, case.fill_json)
    fill, names, deviations = correct, case.dimension_names, []
    if writer == "zarr-python" and _has_nan(fill) and bits(_canonical_nans(fill)) != bits(fill):
        # zarr-python 3.1 writes every NaN fill value as "NaN": payload, sign and
        # signalling bit are lost, and the array reads as the canonical quiet NaN.
        fill = _canonical_nans(fill)
        deviations.append("zarr-python writes NaN fill values as 'NaN'")
    if reader == "zarr-python" and _has_nan(fill):
        # zarr-python 3.1 decodes hex fill values with struct.unpack into a Python float
        # (zarr/core/dtype/npy/common.py, float_from_json_v3): a float32 signalling NaN
        # comes back quiet, a float16 NaN loses its payload.
        through_float = _through_python_float(fill)
        if bits(through_float) != bits(fill):
            fill = through_float
            deviations.append("zarr-python reads NaN fill values through a Python float")
    if writer == "zarr-python" and names == ():
        # zarr-python 3.1 writes no dimension_names for a 0-d array given an empty list
        names = None
        deviations.append("zarr-python omits empty dimension_names")
    if "tensorstore" in (writer, reader) and names is not None and all(n is None for n in names):
        # tensorstore keeps dimension names as domain labels, "" for unnamed; when no
        # dimension has a name it reports (and writes) no dimension_names at all.
        names = None
        deviations.append("tensorstore drops dimension_names that are all null")
    return Expectation(fill, names, deviations)


def check_deviations(root: Path, case: Case, writer: str, exp: Expectation) -> None:
    """Assert the documented peer behaviour behind ``exp.deviations`` explicitly."""
    doc = raw_document(root)
    correct = fill_scalar(case.dtype, case.fill_json)
    for deviation in exp.deviations:
        if deviation.startswith("zarr-python writes NaN"):
            assert writer == "zarr-python"
            stored = doc["fill_value"] if isinstance(doc["fill_value"], list) else [doc["fill_value"]]
            assert "NaN" in stored and not any(str(v).startswith("0x") for v in stored), doc["fill_value"]
        elif deviation.startswith("zarr-python reads NaN"):
            assert bits(exp.fill) != bits(correct)
        elif deviation.startswith("zarr-python omits"):
            assert "dimension_names" not in doc
        elif deviation.startswith("tensorstore drops"):
            if writer == "tensorstore":
                assert "dimension_names" not in doc
            elif "zarr-python omits empty dimension_names" not in exp.deviations:
                assert case.dimension_names is not None
                assert doc["dimension_names"] == list(case.dimension_names)
        else:  # pragma: no cover
            raise AssertionError(f"undocumented deviation {deviation!r}")


def check_document(root: Path) -> None:
    """zarrforge's rendering of a stored zarr.json says what the stored document says."""
    raw = raw_document(root)
    ours = zf.open_array(str(root), ARRAY).metadata
    dtype = raw["data_type"]
    for field in ("zarr_format", "node_type", "shape", "data_type", "chunk_grid"):
        assert ours[field] == raw[field], field
    assert ours.get("attributes", {}) == raw.get("attributes", {})
    assert ours.get("dimension_names") == raw.get("dimension_names")
    assert ours.get("storage_transformers", []) == raw.get("storage_transformers", [])
    assert normalize_codecs(ours["codecs"], dtype) == normalize_codecs(raw["codecs"], dtype)
    assert normalize_cke(ours["chunk_key_encoding"]) == normalize_cke(raw["chunk_key_encoding"])
    assert bits(fill_scalar(dtype, ours["fill_value"])) == bits(fill_scalar(dtype, raw["fill_value"]))
