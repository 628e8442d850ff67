"""Partial reads of a shard on S3 (moto's server on 127.0.0.1) while another writer
replaces it: every read is of one version (the index and the inner chunks it locates
come from one ETag), never another inner chunk's values. The race is made certain by
a wrapper that replaces the shard right after the reader's first request for it; a
second test races a writing thread for a bounded time and reports its counts."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.testing.races import (
    count_versions,
    one_shard_array,
    one_version_of,
    read_across_a_rewrite,
    rewriting,
    shard_versions,
)
from zarrforge_fsspec import FsspecStore
from zarrforge_sharding import index_cache


@pytest.fixture
def s3_store(s3_url, s3_options):
    index_cache.cache.clear()
    return FsspecStore.from_url(f"{s3_url}/data", **s3_options)


def test_a_shard_replaced_between_the_index_and_the_chunk_read_gives_one_version(s3_store):
    assert s3_store.capabilities.versioned_ranges
    writer = one_shard_array(s3_store)
    versions = shard_versions()
    writer[...] = versions[1]
    got, wrapper = read_across_a_rewrite(s3_store, lambda: writer.__setitem__(Ellipsis, versions[2]))
    assert one_version_of(got, versions) is not None, got.tolist()
    assert wrapper.reads >= 2  # the shard was replaced after the first of them


def test_readers_racing_a_rewriting_thread_on_s3_read_only_whole_versions(s3_store):
    writer = one_shard_array(s3_store)
    versions = shard_versions()
    writer[...] = versions[1]
    regions = [np.s_[2 * i : 2 * i + 2, 3 * j : 3 * j + 3] for i in range(1, 4) for j in range(1, 4)]
    reader = zf.open_array(s3_store, "a")
    # the reads go on past 3 s until the writer has written version 2 twice
    with rewriting(lambda n: writer.__setitem__(Ellipsis, versions[1 + n % 2])) as rewrites:
        counts = count_versions(
            reader.__getitem__, versions, regions, 3.0, seed=3, until=lambda: rewrites.done >= 5
        )
    print(f"S3, a writing thread: {counts}")
    assert counts["wrong"] == 0, counts
    assert counts["v1"] > 0 and counts["v2"] > 0, counts
