"""A hierarchy published on a static web server (127.0.0.1), read over HTTP."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
import zarrforge_fsspec  # noqa: F401
from zarrforge.errors import ReadOnlyError, StoreError
from zarrforge_fsspec import FsspecStore


def publish(http_server, *, consolidated: bool):
    directory, url = http_server.new_site()
    root = zf.create_group(str(directory), attributes={"title": "served"})
    root.create_array("dense", shape=(10, 10), dtype="float32", chunks=(4, 4))[:] = np.arange(
        100, dtype="float32"
    ).reshape(10, 10)
    sharded = root.create_group("g").create_array(
        "sharded", shape=(40,), dtype="int64", chunks=(5,), shards=(20,)
    )
    sharded[:] = np.arange(40)
    if consolidated:
        zf.consolidate_metadata(str(directory))
    return directory, url


def test_consolidated_hierarchy_lists_and_reads(http_server):
    _, url = publish(http_server, consolidated=True)
    group = zf.open_group(url, mode="r")
    assert isinstance(group.store, FsspecStore) and group.store.read_only
    assert group.attrs["title"] == "served"
    assert sorted(group.keys()) == ["dense", "g"]
    assert [name for name, _ in group.members(max_depth=None)] == ["dense", "g", "g/sharded"]
    np.testing.assert_array_equal(
        group["dense"][2:7, 3], np.arange(100, dtype="float32").reshape(10, 10)[2:7, 3]
    )
    np.testing.assert_array_equal(group["g/sharded"][17:23], np.arange(17, 23))


def test_partial_shard_reads_use_byte_ranges(http_server):
    directory, url = publish(http_server, consolidated=False)
    array = zf.open_array(url, "g/sharded")
    before = dict(http_server.requests)
    np.testing.assert_array_equal(array[21:24], [21, 22, 23])
    shard = f"{directory.name}/g/sharded/c/1"
    # the index, then the index again (to tie the chunk to its version) and one chunk
    assert http_server.requests[shard] - before.get(shard, 0) == 3


def test_a_server_naming_no_versions_gets_one_request_per_partial_read(http_server):
    directory, url = publish(http_server, consolidated=False)
    array = zf.open_array(url, "g/sharded")
    http_server.validators = False
    try:
        before = dict(http_server.requests)
        np.testing.assert_array_equal(array[21:24], [21, 22, 23])
    finally:
        http_server.validators = True
    shard = f"{directory.name}/g/sharded/c/1"
    # the index, answered without a version: the shard whole; then, the store knowing,
    # the shard whole again for the index and the chunk
    assert http_server.requests[shard] - before.get(shard, 0) == 3


def test_without_consolidated_metadata_nodes_open_by_path(http_server):
    _, url = publish(http_server, consolidated=False)
    group = zf.open_group(url, mode="r")
    np.testing.assert_array_equal(group["g/sharded"][:5], np.arange(5))
    with pytest.raises(StoreError, match="plain HTTP has no listing.*consolidat"):
        group.keys()


def test_http_is_read_only(http_server):
    _, url = publish(http_server, consolidated=False)
    with pytest.raises(ReadOnlyError):
        zf.create_array(url, "new", shape=(1,), dtype="int8")
    array = zf.open_array(url, "dense", mode="r+")
    with pytest.raises(ReadOnlyError):
        array[0, 0] = 1


def test_a_server_that_ignores_ranges_still_answers_right(http_server, monkeypatch):
    _directory, url = http_server.new_site({"k": bytes(range(100))})
    store = FsspecStore.from_url(url)
    original = store.fs._cat_file

    async def whole_value(path, start=None, end=None, **kwargs):
        return await original(path, **kwargs)

    monkeypatch.setattr(store.fs, "_cat_file", whole_value)
    from zarrforge.abc.store import ByteRange

    assert store.get("k", ByteRange(10, 5)) == bytes(range(10, 15))
    assert store.get("k", ByteRange(length=3)) == bytes([97, 98, 99])


def test_chained_cache_url(http_server, tmp_path):
    _, url = publish(http_server, consolidated=True)
    cached = zf.open_group(
        f"simplecache::{url}",
        mode="r",
        storage_options={"simplecache": {"cache_storage": str(tmp_path / "cache")}},
    )
    np.testing.assert_array_equal(cached["g/sharded"][:], np.arange(40))
    assert any((tmp_path / "cache").iterdir())


def test_a_range_past_the_end_does_not_make_a_versioned_server_look_unversioned(http_server):
    from zarrforge.abc.store import ByteRange
    from zarrforge_fsspec import FsspecStore

    _, url = http_server.new_site({"k": b"0123456789"})
    store = FsspecStore.from_url(url)
    parts, version = store.get_ranges("k", [ByteRange(2, 3), ByteRange(50, 4)])
    assert parts == [b"234", b""] and version is not None
    assert not store._http_unversioned  # later reads still fetch ranges, not whole values


@pytest.mark.parametrize("validators", [True, "last-modified"], ids=["etag", "last-modified"])
def test_a_shard_replaced_between_the_index_and_the_chunk_read_gives_one_version(http_server, validators):
    """The race of tests/reliability/test_shard_races.py over HTTP: the shard is replaced
    on the server right after the reader's first request for it. The server names the
    version by its ETag, or by Last-Modified alone (whole seconds: the replacement here
    is a later second, as it must be for Last-Modified to tell it apart)."""
    import os

    from zarrforge.testing.races import one_shard_array, one_version_of, read_across_a_rewrite, shard_versions
    from zarrforge_sharding import index_cache

    index_cache.cache.clear()
    directory, url = http_server.new_site()
    writer = one_shard_array(str(directory))
    versions = shard_versions()
    writer[...] = versions[1]
    shard = directory / "a" / "c" / "0" / "0"

    def replace() -> None:
        writer[...] = versions[2]
        os.utime(shard, (shard.stat().st_atime, shard.stat().st_mtime + 2))

    http_server.validators = validators
    try:
        reading = FsspecStore.from_url(url)
        assert reading.capabilities.versioned_ranges
        got, wrapper = read_across_a_rewrite(reading, replace)
    finally:
        http_server.validators = True
    assert one_version_of(got, versions) is not None, got.tolist()
    assert wrapper.reads >= 2  # the shard was replaced after the first of them
