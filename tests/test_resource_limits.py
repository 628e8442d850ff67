"""config.max_request_bytes: selections over the limit fail before any I/O."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import ResourceLimitError
from zarrforge_std.runtime_transformers import RequestCounter


def test_reads_and_writes_over_the_limit_fail_before_touching_the_store():
    a = zf.create_array(None, shape=(100, 100), dtype="float64", chunks=(10, 10))
    a[:] = 1.0
    counted = zf.open_array(a.store, mode="r+", transformers=[RequestCounter])
    with zf.config.set(max_request_bytes=8 * 1000):
        assert counted[:10, :100].sum() == 1000  # exactly at the limit
        counted.chunk_store.reset()
        with pytest.raises(ResourceLimitError, match="needs 80000 bytes, over the limit of 8000") as info:
            counted[...]
        assert "blocks" in str(info.value)
        with pytest.raises(ResourceLimitError):
            counted[:50, :50] = 2.0
        with pytest.raises(ResourceLimitError):
            counted.vindex[np.arange(100).repeat(11), np.zeros(1100, dtype=int)]
        assert counted.chunk_store.count() == 0
        assert counted.blocks[0, 0].shape == (10, 10)  # reading in parts works
    assert a[...].sum() == 10000.0


def test_invalid_limits_are_refused():
    with pytest.raises(ValueError, match="max_request_bytes"):
        with zf.config.set(max_request_bytes=-1):
            pass
