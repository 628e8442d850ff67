"""The benchmark's datasets: their shapes at a given scale, and their contents.

Contract:

* :func:`spec` gives the :class:`ArraySpec` of a named dataset at a scale.
  ``scale`` multiplies the number of elements (1.0 = the full sizes in
  :data:`BASE`; 0.125 = an eighth of the bytes). Chunk and shard shapes never
  change; each dimension is rounded to a multiple of the dataset's smallest
  chunk edge and is never shorter than its (non-shard) chunk edge, so every
  array holds at least one whole chunk (a shard may reach past the array). ``float3d`` and ``sharded3d`` always have the same shape
  and the same contents: they are one array stored two ways.
* :func:`generate` returns the contents of a spec: the same bits in every
  process, on every run, for the same shape and data type. Float data is a
  smooth field plus small noise, quantised to 1/1024 so it compresses
  moderately (zstd level 1 keeps about a third of the bytes); uint8 data is a
  diagonal ramp plus noise. No chunk is ever all zero (the fill value).
* :func:`group_members` and :func:`regions` give the deterministic group
  members (with their attributes) of W6c/W6 and the read positions of W4.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

SEED = 20240611

#: Full-scale (scale 1.0) definitions. ``quantum`` is the rounding unit of every dimension,
#: ``minimum`` the smallest length: the largest chunk edge of the arrays that must share a shape.
BASE: dict[str, dict[str, Any]] = {
    "float3d": {
        "shape": (512, 512, 512),
        "dtype": "float32",
        "chunks": (128, 128, 128),
        "shards": None,
        "zstd_level": 1,
        "quantum": 32,
        "minimum": 128,
    },
    "sharded3d": {
        "shape": (512, 512, 512),
        "dtype": "float32",
        "chunks": (32, 32, 32),
        "shards": (256, 256, 256),
        "zstd_level": 1,
        "quantum": 32,
        "minimum": 128,
    },
    "bytes2d": {
        "shape": (4096, 4096),
        "dtype": "uint8",
        "chunks": (64, 64),
        "shards": None,
        "zstd_level": None,
        "quantum": 64,
        "minimum": 64,
    },
    # W9: the same 256 MiB float32 array in 1 Ki, 16 Ki and 256 Ki chunks (time per chunk)
    "scale1k": {
        "shape": (8192, 8192),
        "dtype": "float32",
        "chunks": (256, 256),
        "shards": None,
        "zstd_level": 1,
        "quantum": 256,
        "minimum": 256,
    },
    "scale16k": {
        "shape": (8192, 8192),
        "dtype": "float32",
        "chunks": (64, 64),
        "shards": None,
        "zstd_level": 1,
        "quantum": 256,
        "minimum": 256,
    },
    "scale256k": {
        "shape": (8192, 8192),
        "dtype": "float32",
        "chunks": (16, 16),
        "shards": None,
        "zstd_level": 1,
        "quantum": 256,
        "minimum": 256,
    },
}
#: the W9 family, by chunk count at full scale
SCALING = {"1k": "scale1k", "16k": "scale16k", "256k": "scale256k"}

#: The small arrays of the W6c/W6 group.
GROUP_MEMBERS = 300
#: W6L: the large group, at --scale 1 (smaller scales shrink it, never below 10 members)
LARGE_GROUP_MEMBERS = 10_000
MEMBER: dict[str, Any] = {"shape": (10,), "dtype": "int32", "chunks": (10,), "shards": None, "zstd_level": 1}

#: W4: how many reads, and the length of each (1, 1, REGION_WIDTH) region.
REGION_READS = 2000
REGION_WIDTH = 32


@dataclasses.dataclass(frozen=True)
class ArraySpec:
    """What an engine needs to create an array.

    ``chunks`` is the unit of reading: the chunk shape, or the inner chunk shape
    when ``shards`` (the stored chunk shape) is given. ``zstd_level`` ``None``
    means no compressor. The serializer is always ``bytes`` little-endian and
    the fill value 0.
    """

    shape: tuple[int, ...]
    dtype: str
    chunks: tuple[int, ...]
    shards: tuple[int, ...] | None
    zstd_level: int | None

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize

    def to_json(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(self).items()}


def scaled_shape(shape: tuple[int, ...], scale: float, quantum: int, minimum: int) -> tuple[int, ...]:
    factor = scale ** (1.0 / len(shape))
    return tuple(max(minimum, round(n * factor / quantum) * quantum) for n in shape)


def spec(name: str, scale: float = 1.0) -> ArraySpec:
    base = BASE[name]
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    return ArraySpec(
        shape=scaled_shape(base["shape"], scale, base["quantum"], base["minimum"]),
        dtype=base["dtype"],
        chunks=base["chunks"],
        shards=base["shards"],
        zstd_level=base["zstd_level"],
    )


def member_spec() -> ArraySpec:
    return ArraySpec(**MEMBER)


def _axis_wave(n: int, period: float, phase: float, amplitude: float) -> np.ndarray:
    return (amplitude * np.sin(np.arange(n) * (2 * np.pi / period) + phase)).astype(np.float32)


def _float_field(shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(SEED)
    out = rng.standard_normal(shape, dtype=np.float32)
    out *= np.float32(0.05)
    for axis, n in enumerate(shape):
        wave = _axis_wave(n, period=97.0 + 38 * axis, phase=0.5 * axis, amplitude=2.0 / (axis + 1))
        out += wave.reshape([n if a == axis else 1 for a in range(len(shape))])
    out *= np.float32(1024)
    np.round(out, out=out)
    out /= np.float32(1024)
    return out


def _uint8_field(shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(SEED + 1)
    out = rng.integers(1, 16, size=shape, dtype=np.uint8)  # never 0: no chunk equals the fill value
    ramp = np.zeros(shape[-1:], dtype=np.int64)
    for axis, n in enumerate(shape):
        ramp = ramp + np.arange(n).reshape([n if a == axis else 1 for a in range(len(shape))])
    out += ((ramp // 16) % 240).astype(np.uint8)
    return out


def generate(s: ArraySpec) -> np.ndarray:
    """The contents of an array of spec ``s`` (C order, native little-endian)."""
    if s.dtype == "float32":
        return _float_field(s.shape)
    if s.dtype == "uint8":
        return _uint8_field(s.shape)
    raise ValueError(f"no generator for data type {s.dtype!r}")


def group_size(dataset: str, scale: float = 1.0) -> int:
    """How many members the group dataset ``dataset`` has: ``group`` (W6) always 300,
    ``group10k`` (W6L) 10,000 at full scale."""
    if dataset == "group10k":
        return max(10, round(LARGE_GROUP_MEMBERS * min(scale, 1.0)))
    return GROUP_MEMBERS


def group_members(n: int = GROUP_MEMBERS) -> dict[str, dict[str, Any]]:
    """Member name -> its three attributes."""
    return {
        f"m{i:05d}" if n > 1000 else f"m{i:03d}": {"index": i, "label": f"member {i}", "scale": i * 0.25}
        for i in range(n)
    }


def regions(s: ArraySpec, n: int = REGION_READS, width: int = REGION_WIDTH) -> list[tuple[slice, ...]]:
    """``n`` (1, ..., 1, width) regions at fixed random positions; the last axis start
    is a multiple of ``width``, so with 32-wide inner chunks each read needs one."""
    rng = np.random.default_rng(SEED + 4)
    cols = s.shape[-1] // width
    out = []
    for _ in range(n):
        lead = [int(rng.integers(0, d)) for d in s.shape[:-1]]
        x0 = int(rng.integers(0, cols)) * width
        out.append((*tuple(slice(i, i + 1) for i in lead), slice(x0, x0 + width)))
    return out
