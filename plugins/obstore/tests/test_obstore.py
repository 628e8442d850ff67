"""zarrforge-obstore: the store conformance suite over obstore's memory and local stores
and over S3 on a moto server on 127.0.0.1; arrays (sharded too) written and read
through it and compared with the same data through zarrforge's own local store."""

from __future__ import annotations

import pickle
import uuid

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.store import ByteRange
from zarrforge.hierarchy_api import resolve_store
from zarrforge.testing import StoreConformance
from zarrforge_obstore import ObstoreStore


class TestObstoreMemory(StoreConformance):
    def make_store(self, tmp_path):
        return resolve_store("obstore+memory:///")

    def make_read_only_store(self, store):
        return ObstoreStore(store.inner, url=store.url, read_only=True)


class TestObstoreLocal(StoreConformance):
    def make_store(self, tmp_path):
        (tmp_path / "root").mkdir()
        return resolve_store(f"obstore+file://{tmp_path}/root")

    def make_read_only_store(self, store):
        return ObstoreStore(store.inner, url=store.url, read_only=True)


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_a_shard_replaced_between_the_index_and_the_chunk_read_gives_one_version(tmp_path, kind):
    """The race of tests/reliability/test_shard_races.py through obstore: the shard is
    replaced right after the reader's first request for it; the read gives one version."""
    from zarrforge.testing.races import one_shard_array, one_version_of, read_across_a_rewrite, shard_versions

    if kind == "memory":
        store = resolve_store("obstore+memory:///")
    else:
        (tmp_path / "root").mkdir()
        store = resolve_store(f"obstore+file://{tmp_path}/root")
    assert store.capabilities.versioned_ranges
    writer = one_shard_array(store)
    versions = shard_versions()
    writer[...] = versions[1]
    got, wrapper = read_across_a_rewrite(store, lambda: writer.__setitem__(Ellipsis, versions[2]))
    assert one_version_of(got, versions) is not None, got.tolist()
    assert wrapper.reads >= 2  # the shard was replaced after the first of them


@pytest.fixture(scope="module")
def moto_endpoint():
    import os

    from zarrforge.testing.s3_server import loopback_s3_server

    saved = {name: os.environ.get(name) for name in ("AWS_EC2_METADATA_DISABLED", "NO_PROXY")}
    os.environ.update({"AWS_EC2_METADATA_DISABLED": "true", "NO_PROXY": "127.0.0.1"})
    try:
        with loopback_s3_server() as endpoint:
            yield endpoint
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def s3_bucket(endpoint: str) -> tuple[str, dict]:
    import boto3

    bucket = f"obs-{uuid.uuid4().hex[:12]}"
    boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    ).create_bucket(Bucket=bucket)
    options = {
        "endpoint": endpoint,
        "region": "us-east-1",
        "access_key_id": "testing",
        "secret_access_key": "testing",
        "virtual_hosted_style_request": False,
        "client_options": {"allow_http": True},
    }
    return f"obstore+s3://{bucket}/root", options


class TestObstoreS3(StoreConformance):
    @pytest.fixture(autouse=True)
    def _endpoint(self, moto_endpoint):
        self.endpoint = moto_endpoint

    def make_store(self, tmp_path):
        url, options = s3_bucket(self.endpoint)
        return resolve_store(url, storage_options=options)

    def make_read_only_store(self, store):
        return ObstoreStore(store.inner, url=store.url, read_only=True)


def test_arrays_on_s3_through_obstore_match_a_local_copy(moto_endpoint, tmp_path):
    url, options = s3_bucket(moto_endpoint)
    values = np.random.default_rng(3).normal(size=(64, 48)).astype("float32")
    for path, shards in (("plain", None), ("sharded", (32, 24))):
        remote = zf.create_array(
            url,
            path,
            shape=values.shape,
            chunks=(8, 8),
            shards=shards,
            dtype="float32",
            storage_options=options,
        )
        remote[...] = values
        local = zf.create_array(
            str(tmp_path / "local.zarr"),
            path,
            shape=values.shape,
            chunks=(8, 8),
            shards=shards,
            dtype="float32",
        )
        local[...] = values
        reopened = zf.open_array(url, path, mode="r", storage_options=options)
        assert isinstance(reopened.store, ObstoreStore) and reopened.store.read_only
        np.testing.assert_array_equal(reopened[...], values)
        np.testing.assert_array_equal(reopened[5:40:3, 7], values[5:40:3, 7])
        # the stored objects are byte for byte those of zarrforge's local store
        for key in sorted(local.store.list()):
            assert reopened.store.get(key) == local.store.get(key), key


def test_ranges_of_one_object_come_back_in_order_and_cut_at_the_end(moto_endpoint):
    url, options = s3_bucket(moto_endpoint)
    store = resolve_store(url, storage_options=options)
    store.set("blob", bytes(range(100)))
    requests = [
        ("blob", ByteRange(10, 5)),
        ("blob", ByteRange(0, 3)),
        ("blob", None),
        ("blob", ByteRange(95, 20)),
        ("blob", ByteRange(200, 4)),
        ("blob", ByteRange(length=4)),
        ("missing", ByteRange(0, 1)),
    ]
    assert store.get_many(requests) == [
        bytes(range(10, 15)),
        b"\x00\x01\x02",
        bytes(range(100)),
        bytes(range(95, 100)),
        b"",
        bytes(range(96, 100)),
        None,
    ]


def test_a_store_opened_from_a_url_pickles_and_reads_the_same_data(moto_endpoint):
    url, options = s3_bucket(moto_endpoint)
    store = resolve_store(url, storage_options=options)
    store.set("k", b"value")
    copy = pickle.loads(pickle.dumps(store))
    assert copy.get("k") == b"value" and copy.url == store.url


def test_http_urls_are_read_only_and_bad_options_are_named():
    store = resolve_store("obstore+https://127.0.0.1:9/data.zarr")
    assert store.read_only and not store.capabilities.listable
    with pytest.raises(zf.errors.StoreError, match="no_such_option"):
        resolve_store("obstore+s3://bucket/x", storage_options={"no_such_option": 1})


def test_plain_s3_urls_stay_with_fsspec():
    from zarrforge_fsspec import FsspecStore

    store = resolve_store("s3://bucket/x", read_only=True, storage_options={"anon": True})
    assert isinstance(store, FsspecStore)


def test_a_shard_shortened_between_the_index_and_the_chunk_answer_reads_one_version(
    moto_endpoint, monkeypatch
):
    """Issue #41's race through obstore on S3: the reader remembers the index (at the
    start of the shard) and asks for it and the inner chunk in one batch; the shard is
    replaced by a much shorter one after the index's GET is answered and before the
    inner chunk's is sent, so that range lies past the new end. The read gives one
    version (obstore reads a range past the end again whole, with its e_tag), never a
    CorruptChunkError or another chunk's values."""
    import asyncio
    import time

    import obstore

    from zarrforge.testing.races import (
        SHARD_KEY,
        SHARD_REGION,
        one_shard_array,
        one_version_of,
        shrinking_shard_versions,
    )
    from zarrforge_sharding import index_cache

    index_cache.cache.clear()
    url, options = s3_bucket(moto_endpoint)
    store = resolve_store(url, storage_options=options)
    writer = one_shard_array(store, index_location="start")
    versions = shrinking_shard_versions()
    writer[...] = versions[2]
    short = store.get(SHARD_KEY)
    writer[...] = versions[1]
    reader = zf.open_array(store, "a")
    assert one_version_of(reader[SHARD_REGION], versions) == 1
    real = obstore.get_async
    state = {"index": False, "done": False}

    async def racing(inner, key, *args, options=None, **kwargs):
        wanted = (options or {}).get("range")
        if key != SHARD_KEY or state["done"] or not isinstance(wanted, tuple):
            return await real(inner, key, *args, options=options, **kwargs)
        if wanted[0] == 0:  # the index, at the start
            answer = await real(inner, key, *args, options=options, **kwargs)
            state["index"] = True
            return answer
        deadline = time.monotonic() + 10
        while not state["index"] and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        if not state["done"]:
            state["done"] = True
            await obstore.put_async(inner, key, short)
        return await real(inner, key, *args, options=options, **kwargs)

    monkeypatch.setattr(obstore, "get_async", racing)
    got = reader[SHARD_REGION]
    assert state["done"], "the shard was not replaced during the read"
    assert one_version_of(got, versions) == 2, got.tolist()
    index_cache.cache.clear()


def test_reads_are_bounded_by_the_limit_of_the_key():
    """Issue #41: a body over the key's limit is refused on its declared length, naming
    the key and the setting: max_document_bytes for a document, max_chunk_bytes else."""
    from zarrforge.abc.store import ByteRange
    from zarrforge.errors import DocumentTooLargeError, ResourceLimitError

    store = resolve_store("obstore+memory:///")
    store.set("zarr.json", b"{" + b" " * 5000 + b"}")
    store.set("c/0", bytes(5000))
    with zf.config.set(max_document_bytes=4096, max_chunk_bytes=4096):
        with pytest.raises(DocumentTooLargeError, match="declares 5002 bytes.*max_document_bytes"):
            store.get("zarr.json")
        for read in (
            lambda: store.get("c/0"),
            lambda: store.get("c/0", ByteRange(offset=10)),
            lambda: store.get_many([("c/0", None)]),
            lambda: store.get_ranges("c/0", [None]),
        ):
            with pytest.raises(ResourceLimitError, match="'c/0' declares .*max_chunk_bytes"):
                read()
        assert store.get("c/0", ByteRange(offset=10, length=5)) == bytes(5)
        assert store.get_ranges("c/0", [ByteRange(length=3)])[0] == [bytes(3)]
    assert len(store.get("c/0")) == 5000
