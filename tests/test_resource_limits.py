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


# --- the per-chunk limit, on by default (config.max_chunk_bytes) -----------------------


def test_the_per_chunk_limit_is_on_by_default_at_2_gib():
    assert zf.config.get().max_chunk_bytes == 2 << 30
    assert zf.config.get().max_request_bytes is None


def test_a_partial_write_into_a_huge_declared_chunk_is_refused_before_allocating():
    import tracemalloc

    with zf.config.set(max_chunk_bytes=None):  # written elsewhere, without the limit
        a = zf.create_array(None, shape=(2**40,), chunks=(2**40,), dtype="uint8")
    tracemalloc.start()
    try:
        with pytest.raises(ResourceLimitError, match=r"chunk 'c/0'.*max_chunk_bytes"):
            a[5] = 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20  # nothing of the chunk's size was allocated
    assert list(a.store.list_prefix("c/")) == []


def test_a_declared_16_gib_zstd_chunk_is_refused_on_read_and_partial_write():
    import numcodecs

    with zf.config.set(max_chunk_bytes=None):  # written elsewhere, without the limit
        a = zf.create_array(
            None,
            shape=(2**34,),
            chunks=(2**34,),
            dtype="uint8",
            compressors=[{"name": "zstd", "configuration": {"level": 1}}],
        )
    stored = numcodecs.Zstd(level=1).encode(b"\x00" * 100)  # a frame that names no size
    a.store.set("c/0", stored)
    refusal = r"chunk 'c/0' of shape \(17179869184,\).*max_chunk_bytes"
    with pytest.raises(ResourceLimitError, match=refusal):
        a[:4] = 1
    with pytest.raises(ResourceLimitError, match=refusal):
        a[:4]
    assert a.store.get("c/0") == stored  # left as it was


def test_a_sharded_array_with_a_huge_declared_inner_chunk_is_refused():
    with zf.config.set(max_chunk_bytes=None):  # written elsewhere, without the limit
        a = zf.create_array(
            None, shape=(2**33,), chunks=(2**32,), shards=(2**33,), dtype="uint8", compressors=None
        )
    before = dict(a.store._data)
    with pytest.raises(ResourceLimitError, match=r"chunk 'c/0' of shape .*max_chunk_bytes"):
        a[7] = 1  # the shard would be built whole
    assert a.store._data == before


def test_a_stored_shard_with_a_huge_declared_inner_chunk_is_refused_on_read_and_write():
    import json

    a = zf.create_array(None, shape=(3,), chunks=(3,), shards=(3,), dtype="int32")
    a[...] = [1, 2, 3]
    document = json.loads(a.store.get("zarr.json"))  # edited elsewhere: 1 GiB chunks
    document["chunk_grid"]["configuration"]["chunk_shape"] = [2**28]
    document["codecs"][0]["configuration"]["chunk_shape"] = [2**28]
    a.store.set("zarr.json", json.dumps(document).encode())
    before = dict(a.store._data)
    a = zf.open_array(a.store, mode="r+")
    # an inner chunk has no key of its own: the error gives its shape and the setting
    refusal = r"inner chunks? a \w+ touches of shape \(268435456,\).*max_chunk_bytes"
    with zf.config.set(max_chunk_bytes=2**20):
        with pytest.raises(ResourceLimitError, match=refusal):
            a[0:2]
        with pytest.raises(ResourceLimitError, match=refusal):
            a[0:2] = 7
    assert a.store._data == before


def test_the_per_chunk_limit_can_be_raised_or_turned_off():
    a = zf.create_array(None, shape=(64,), chunks=(64,), dtype="float64")
    with zf.config.set(max_chunk_bytes=256):
        with pytest.raises(ResourceLimitError, match="512 bytes decoded, over the limit of 256"):
            a[3] = 1.0
    with zf.config.set(max_chunk_bytes=None):
        a[3] = 1.0
    assert a[3] == 1.0


@pytest.mark.parametrize(
    ("chunk", "request_", "expected"),
    [
        (None, None, (None, "")),
        (100, None, (100, "max_chunk_bytes")),
        (None, 100, (100, "max_request_bytes")),
        (100, 200, (100, "max_chunk_bytes")),
        (200, 100, (100, "max_request_bytes")),
        (100, 100, (100, "max_chunk_bytes")),
    ],
)
def test_a_chunk_is_held_to_the_tighter_limit_and_the_error_names_its_setting(
    chunk: int | None, request_: int | None, expected: tuple[int | None, str]
) -> None:
    from zarrforge.engine.chunk_helpers import chunk_limit

    with zf.config.set(max_chunk_bytes=chunk, max_request_bytes=request_):
        assert chunk_limit() == expected


@pytest.mark.parametrize("value", [-1, 1.5, True, "2GiB"])
def test_invalid_per_chunk_limits_are_refused(value):
    with pytest.raises(ValueError, match="max_chunk_bytes"):
        zf.config.update(max_chunk_bytes=value)


def test_a_read_larger_than_the_machine_can_hold_is_a_named_limit_error():
    """Found by the format kit's damaged-documents case (a shape of 9,914,627 x 9,914,627
    int32): with max_request_bytes off, as by default, reading the whole array gave numpy's
    bare MemoryError; it is a ResourceLimitError naming the read and what to do."""
    array = zf.create_array("memory://", shape=(2**40, 2**20), chunks=(1024, 1024), dtype="int32")
    with pytest.raises(
        ResourceLimitError,
        match=r"a read of shape .* needs 4611686018427387904 "
        r"bytes, more than this machine could allocate",
    ):
        array[...]
    results = array._read_gathered([("basic", (slice(None),)), ("basic", (0, 0))])
    assert isinstance(results[0][1], ResourceLimitError) and results[1] == (0, None)
