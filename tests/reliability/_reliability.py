"""Helpers of the reliability suite: arrays whose every chunk holds a recognisable value.

``generation_values(shape, chunks, generation)`` fills chunk ``(i, j, ...)`` of
generation ``g`` with ``base(i, j, ...) + g * GENERATION_STEP`` plus a small
ramp, so that any chunk read back can be classified (:func:`classify`) as
entirely generation ``g``, the fill value, or *torn* (a mixture, or anything
else).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

import zarrforge

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GENERATION_STEP = 1_000_000

# (label, create_array keyword arguments) of the layouts the tests write through
LAYOUTS: dict[str, dict[str, Any]] = {
    "v3": {
        "zarr_format": 3,
        "compressors": [{"name": "zstd", "configuration": {"level": 1, "checksum": False}}],
    },
    "v3-crc32c": {"zarr_format": 3, "compressors": ["crc32c"]},
    "v3-sharded": {"zarr_format": 3, "shards": "x2"},
    "v2": {"zarr_format": 2, "compressors": [{"name": "gzip", "configuration": {"level": 1}}]},
    "draft-2022": {"zarr_format": "draft-2022"},
    "draft-2022-sharded": {"zarr_format": "draft-2022", "shards": "x2"},
}


def known_bug(reason: str) -> Any:
    """As ``tests/fuzz/_fuzzkit.known_bug``: strict xfail, or a plain failure when
    ``ZARRFORGE_KNOWN_BUGS=fail``."""
    import pytest

    if os.environ.get("ZARRFORGE_KNOWN_BUGS") == "fail":
        return lambda f: f
    return pytest.mark.xfail(strict=True, reason=f"known bug: {reason}")


def create(
    store: Any,
    layout: str,
    path: str = "a",
    *,
    shape=(8, 12),
    chunks=(2, 3),
    dtype: str = "int32",
    **extra: Any,
) -> Any:
    options = dict(LAYOUTS[layout])
    if options.get("shards") == "x2":
        options["shards"] = tuple(2 * c for c in chunks)
    options.update(extra)
    return zarrforge.create_array(
        store, path, shape=shape, chunks=chunks, dtype=dtype, fill_value=0, **options
    )


def generation_values(
    shape: tuple[int, ...], chunks: tuple[int, ...], generation: int, dtype: str = "int32"
) -> np.ndarray:
    """Chunk-wise recognisable values; generation 0 is never the fill value (0)."""
    grid = [np.arange(n) // c for n, c in zip(shape, chunks)]
    index = np.zeros(shape, dtype=np.int64)
    stride = 1
    for d in reversed(range(len(shape))):
        index = index + grid[d].reshape([-1 if i == d else 1 for i in range(len(shape))]) * stride
        stride *= -(-shape[d] // chunks[d])
    ramp = np.zeros(shape, dtype=np.int64)
    for d in range(len(shape)):
        ramp = (
            ramp
            + (np.arange(shape[d]) % chunks[d]).reshape([-1 if i == d else 1 for i in range(len(shape))])
            * 7**d
        )
    return (1 + index * 1000 + ramp % 997 + generation * GENERATION_STEP).astype(dtype)


def chunk_regions(
    shape: tuple[int, ...], chunks: tuple[int, ...]
) -> Iterator[tuple[tuple[int, ...], tuple[slice, ...]]]:
    for coords in itertools.product(*(range(-(-n // c)) for n, c in zip(shape, chunks))):
        yield coords, tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(coords, chunks, shape))


def classify(
    read: np.ndarray, expected: dict[int, np.ndarray], chunks: tuple[int, ...]
) -> dict[tuple[int, ...], Any]:
    """Per chunk: the generation it holds entirely, ``"fill"``, or ``"torn"``."""
    result = {}
    for coords, region in chunk_regions(read.shape, chunks):
        part = read[region]
        label: Any = "torn"
        for generation, values in expected.items():
            if np.array_equal(part, values[region]):
                label = generation
                break
        else:
            if not np.any(part):
                label = "fill"
        result[coords] = label
    return result


def run_worker(*args: str, timeout: float = 300, **popen: Any) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(HERE / "_workers.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        **popen,
    )


def start_worker(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(HERE / "_workers.py"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
