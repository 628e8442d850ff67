"""Ranges past the end of an S3 object, against moto's server on 127.0.0.1.

Guarantee: ``get_ranges`` on S3 never combines the answers of two versions of an
object, also when a range falls wholly past the end of one of them. S3 answers such a
range ``416`` without an ETag; the store takes that empty answer as part of the version
the other answers name only when that version (its size from their
``Content-Range``) ends before the range, and when no answer names the version it asks
with a ``HeadObject`` whose size is checked the same way. Otherwise it reads again.

So a partial read of a shard with its index at the start, racing a rewrite that makes
the shard shorter, gives one version's values (or retries), never the spurious
``CorruptChunkError`` "inner chunk ... needs bytes ... but the shard is shorter" of
issue #41, nor another inner chunk's values.

The races are made certain by wrapping the filesystem's request function (``_call_s3``)
of one store: the shard is replaced by a shorter one after the index's ``GetObject`` is
answered and before the inner chunk's is sent, inside one ``get_ranges``. A last test
races a writing process for a bounded time and reports its counts.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.store import ByteRange
from zarrforge.errors import CorruptChunkError
from zarrforge.testing.faults import ChangeBetweenReads
from zarrforge.testing.races import (
    SHARD_KEY,
    SHARD_REGION,
    one_shard_array,
    one_version_of,
    shrinking_shard_versions,
)
from zarrforge_fsspec import FsspecStore
from zarrforge_sharding import index_cache


@pytest.fixture
def s3_store(s3_url, s3_options):
    index_cache.cache.clear()
    yield FsspecStore.from_url(f"{s3_url}/data", **s3_options)
    index_cache.cache.clear()


def _replace_during_the_batch(
    monkeypatch, store: FsspecStore, key: str, value: bytes, is_first: Callable[[str], bool]
) -> list[int]:
    """Make ``store``'s next batch of ranged ``GetObject`` requests for ``key`` straddle a
    rewrite: the request whose ``Range`` header ``is_first`` picks is answered, then
    ``value`` is put under ``key``, then the batch's other requests go out. Returns a
    one-item list counting the rewrites done (0 or 1)."""
    real = store.fs._call_s3
    bucket, path, _ = store.fs.split_path(store._path(key))
    first_answered: list[bool] = []
    done = [0]

    async def racing(method: str, *args: Any, **kwargs: Any) -> Any:
        ranged = kwargs.get("Key") == path and "Range" in kwargs and method == "get_object"
        if not ranged or done[0]:
            return await real(method, *args, **kwargs)
        if is_first(kwargs["Range"]):
            answer = await real(method, *args, **kwargs)
            first_answered.append(True)
            return answer
        deadline = time.monotonic() + 10
        while not first_answered and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        if not done[0]:
            await real("put_object", Bucket=bucket, Key=path, Body=value)
            done[0] = 1
        return await real(method, *args, **kwargs)

    monkeypatch.setattr(store.fs, "_call_s3", racing)
    return done


def _shard_bytes(store: FsspecStore, writer: Any, values: np.ndarray) -> bytes:
    """The stored shard of ``values`` (written, read back; the caller writes it over)."""
    writer[...] = values
    shard = store.get(SHARD_KEY)
    assert shard is not None
    return shard


def test_a_shard_shortened_between_the_index_and_the_chunk_answer_reads_one_version(
    s3_store, monkeypatch
) -> None:
    """The reader remembers version 1's index, so it asks for the index and the inner
    chunk in one unpinned batch; the shorter version 2 lands between the two answers.
    Before the fix: CorruptChunkError (version 2's 416 taken as version 1's bytes)."""
    writer = one_shard_array(s3_store, index_location="start")
    versions = shrinking_shard_versions()
    short = _shard_bytes(s3_store, writer, versions[2])
    writer[...] = versions[1]
    reader = zf.open_array(s3_store, "a")
    assert one_version_of(reader[SHARD_REGION], versions) == 1  # remembers the index
    done = _replace_during_the_batch(
        monkeypatch, s3_store, SHARD_KEY, short, lambda header: header.startswith("bytes=0-")
    )
    try:
        got = reader[SHARD_REGION]
    except CorruptChunkError as error:
        pytest.fail(f"a spurious CorruptChunkError across the rewrite: {error}")
    assert done[0] == 1, "the shard was not replaced during the read"
    assert one_version_of(got, versions) == 2, got.tolist()  # the index was read again


def test_a_shard_shortened_after_its_index_was_read_reads_one_version(s3_store, monkeypatch) -> None:
    """A first read (nothing remembered): the index, then the inner chunk pinned to the
    index's ETag, with the shorter version landing in between (ChangeBetweenReads)."""
    writer = one_shard_array(s3_store, index_location="start")
    versions = shrinking_shard_versions()
    writer[...] = versions[1]
    wrapper = ChangeBetweenReads(s3_store, lambda: writer.__setitem__(Ellipsis, versions[2]), key=SHARD_KEY)
    got = zf.open_array(wrapper, "a")[SHARD_REGION]
    assert wrapper.reads >= 2
    assert one_version_of(got, versions) == 2, got.tolist()


def test_a_lookup_of_the_version_after_every_range_was_past_the_end_is_checked(s3_store, monkeypatch) -> None:
    """Every range past the end of a 256-byte value: the ETag comes from a HeadObject;
    a longer value put before it must not be named the version of those empty answers
    (it has bytes there). Before the fix: ([b""], the longer value's ETag)."""
    s3_store.set("k", bytes(range(256)))
    longer = bytes(range(256)) * 2
    real = s3_store.fs._call_s3
    bucket, path, _ = s3_store.fs.split_path(s3_store._path("k"))
    replaced: list[bool] = []

    async def racing(method: str, *args: Any, **kwargs: Any) -> Any:
        if method == "head_object" and kwargs.get("Key") == path and not replaced:
            await real("put_object", Bucket=bucket, Key=path, Body=longer)
            replaced.append(True)
        return await real(method, *args, **kwargs)

    monkeypatch.setattr(s3_store.fs, "_call_s3", racing)
    parts, etag = s3_store.get_ranges("k", [ByteRange(300, 5)])
    assert replaced
    _, current = s3_store.get_ranges("k", [ByteRange(0, 1)])
    assert (parts, etag) == ([longer[300:305]], current)


def test_ranges_past_the_end_name_the_objects_etag(s3_store) -> None:
    """What the store kit asks of every store with versioned ranges, on S3 in detail:
    alone, beside ranges inside the value, empty, and pinned to the ETag."""
    value = bytes(range(256))
    s3_store.set("k", value)
    _, etag = s3_store.get_ranges("k", [ByteRange(0, 1)])
    assert s3_store.get_ranges("k", [ByteRange(300, 5)]) == ([b""], etag)
    assert s3_store.get_ranges("k", [ByteRange(offset=256)]) == ([b""], etag)
    assert s3_store.get_ranges("k", [ByteRange(7, 0)]) == ([b""], etag)
    assert s3_store.get_ranges(
        "k", [ByteRange(0, 4), ByteRange(300, 5), ByteRange(9, 0), ByteRange(250, 10)], if_generation=etag
    ) == ([value[:4], b"", b"", value[250:]], etag)


# --- a writing process, bounded in time ------------------------------------------------

WRITER = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    import zarrforge as zf
    from zarrforge_fsspec import FsspecStore
    from zarrforge.testing.races import shrinking_shard_versions
    url, options, seconds = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])
    array = zf.open_array(FsspecStore.from_url(url, **options), "a", mode="r+")
    versions = shrinking_shard_versions()
    print("ready", flush=True)
    n, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline and n < 100000:
        array[...] = versions[1 + n % 2]
        n += 1
    print(n, flush=True)
""")


def test_a_reader_racing_a_process_that_shortens_the_shard_reads_only_whole_versions(
    s3_url, s3_options
) -> None:
    """A writer process alternates the long and the short shard for a few seconds while
    this process reads random inner chunks with its index remembered; counts reads,
    each version, extra shard requests (re-reads) and wrong values (must be 0)."""
    index_cache.cache.clear()
    store = FsspecStore.from_url(f"{s3_url}/data", **s3_options)
    writer = one_shard_array(store, index_location="start")
    versions = shrinking_shard_versions()
    writer[...] = versions[1]
    worker = subprocess.Popen(
        [sys.executable, "-c", WRITER, f"{s3_url}/data", json.dumps(s3_options), "4"],
        stdout=subprocess.PIPE,
        text=True,
    )
    counting = ChangeBetweenReads(store, lambda: None, key=SHARD_KEY, times=0)
    reader = zf.open_array(counting, "a")
    regions = [np.s_[2 * i : 2 * i + 2, 3 * j : 3 * j + 3] for i in range(4) for j in range(4)]
    counts = {"reads": 0, "v1": 0, "v2": 0, "wrong": 0, "errors": 0}
    rng = np.random.default_rng(41)
    try:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline and counts["reads"] < 20000:
            region = regions[int(rng.integers(0, len(regions)))]
            try:
                got = reader[region]
            except CorruptChunkError:
                counts["errors"] += 1
                continue
            finally:
                counts["reads"] += 1
            number = one_version_of(got, versions, region)
            counts["wrong" if number is None else f"v{number}"] += 1
        writes = worker.stdout.readline().strip()
    finally:
        worker.kill()
        worker.wait()
    counts["shard_requests"] = counting.reads
    print(f"S3, index at the start, a process shortening the shard ({writes} writes): {counts}")
    assert counts["wrong"] == 0 and counts["errors"] == 0, counts
    assert counts["v1"] > 0 and counts["v2"] > 0, counts
