"""A whole shard a read covers is decoded straight into the caller's output.

Measured with tracemalloc (numpy reports its buffers to it): reading a sharded array
whole may allocate the output and an inner chunk or two, but not a decoded copy of the
shard besides the output. (The memory store hands out its stored bytes without a copy,
so they allocate nothing here.)
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import zarrforge as zf
from zarrforge_std.stores.memory import MemoryStore

SHAPE = (1024, 1024)  # one shard of 8 MiB of float64, 256 inner chunks of 32 KiB


@pytest.mark.parametrize("compressors", [None, "zstd"])
def test_reading_a_whole_shard_holds_no_shard_sized_temporary(compressors) -> None:
    array = zf.create_array(
        MemoryStore(),
        shape=SHAPE,
        dtype="float64",
        chunks=(64, 64),
        shards=SHAPE,
        compressors=compressors,
        threads=1,
    )
    values = np.random.default_rng(0).random(SHAPE)
    array[...] = values
    out_bytes = values.nbytes
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = array[...]
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert np.array_equal(result, values)
    allowance = 1 * 2**20  # inner chunks, index, Python objects
    assert peak <= out_bytes + allowance, f"peak {peak} bytes for an output of {out_bytes}"
