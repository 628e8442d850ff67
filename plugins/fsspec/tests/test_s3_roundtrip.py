"""Whole hierarchies on S3 (a moto server on 127.0.0.1), opened by URL with storage_options."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
import zarrforge_fsspec  # noqa: F401
from zarrforge_fsspec import FsspecStore


def test_array_round_trip_by_url(s3_url, s3_options):
    url = f"{s3_url}/data.zarr"
    data = np.arange(20 * 30, dtype="float64").reshape(20, 30)
    a = zf.create_array(
        url,
        "temperature",
        shape=data.shape,
        dtype="float64",
        chunks=(7, 8),
        fill_value=-1.0,
        attributes={"units": "K"},
        storage_options=s3_options,
    )
    assert isinstance(a.store, FsspecStore)
    a[:] = data
    a[3:5, 10:12] = 0
    expected = data.copy()
    expected[3:5, 10:12] = 0

    again = zf.open_array(url, "temperature", mode="r", storage_options=s3_options)
    assert again.store.read_only
    np.testing.assert_array_equal(again[:], expected)
    np.testing.assert_array_equal(again[19, 25:], expected[19, 25:])
    assert again.attrs["units"] == "K"
    keys = set(again.store.list_prefix("temperature/"))
    assert "temperature/zarr.json" in keys and "temperature/c/0/0" in keys
    assert len(keys) == 1 + 3 * 4


def test_groups_round_trip(s3_url, s3_options):
    url = f"{s3_url}/h.zarr"
    root = zf.create_group(url, attributes={"title": "t"}, storage_options=s3_options)
    sub = root.create_group("sub")
    sub.create_array("x", shape=(5,), dtype="int32", chunks=(2,))[:] = np.arange(5)
    root.create_array("y", shape=(3,), dtype="uint8")[:] = 7

    opened = zf.open_group(url, mode="r", storage_options=s3_options)
    assert opened.attrs["title"] == "t"
    assert sorted(opened.keys()) == ["sub", "y"]
    np.testing.assert_array_equal(opened["sub/x"][:], np.arange(5))
    np.testing.assert_array_equal(opened["y"][:], [7, 7, 7])
    assert [name for name, _ in opened.members(max_depth=None)] == ["sub", "sub/x", "y"]

    writable = zf.open_group(url, mode="r+", storage_options=s3_options)
    del writable["sub"]
    assert sorted(zf.open_group(url, mode="r", storage_options=s3_options).keys()) == ["y"]
    assert not any(k.startswith("sub/") for k in writable.store.list_prefix(""))


def test_sharded_array_round_trip(s3_url, s3_options):
    url = f"{s3_url}/sharded.zarr"
    data = np.arange(64 * 64, dtype="int32").reshape(64, 64)
    a = zf.create_array(
        url, shape=data.shape, dtype="int32", chunks=(8, 8), shards=(32, 32), storage_options=s3_options
    )
    a[:] = data
    a[1:3, 40:50] = -5
    data[1:3, 40:50] = -5
    shards = sorted(k for k in a.store.list_prefix("") if k != "zarr.json")
    assert shards == ["c/0/0", "c/0/1", "c/1/0", "c/1/1"]
    again = zf.open_array(url, storage_options=s3_options)
    np.testing.assert_array_equal(again[:], data)
    np.testing.assert_array_equal(again[5:9, 30:34], data[5:9, 30:34])  # partial shard reads


def test_consolidated_hierarchy(s3_url, s3_options):
    url = f"{s3_url}/c.zarr"
    root = zf.create_group(url, storage_options=s3_options)
    for name in ("a", "b"):
        root.create_array(name, shape=(4,), dtype="float32")[:] = 1.5
    root.create_group("g").create_array("deep", shape=(2,), dtype="int8")[:] = [1, 2]
    zf.consolidate_metadata(url, storage_options=s3_options)

    opened = zf.open_group(url, mode="r", use_consolidated=True, storage_options=s3_options)
    assert sorted(opened.keys()) == ["a", "b", "g"]
    np.testing.assert_array_equal(opened["g/deep"][:], [1, 2])
    np.testing.assert_array_equal(opened["a"][:], [1.5] * 4)


def test_store_settings_in_storage_options(s3_url, s3_options):
    store = FsspecStore.from_url(s3_url, concurrency=5, max_retries=1, request_timeout=10, **s3_options)
    assert (store.settings.concurrency, store.settings.max_retries, store.settings.request_timeout) == (
        5,
        1,
        10,
    )
    with pytest.raises(ValueError, match="concurrency"):
        FsspecStore.from_url(s3_url, concurrency=0, **s3_options)


def test_many_keys_batched(s3_url, s3_options):
    store = FsspecStore.from_url(f"{s3_url}/batch", **s3_options)
    items = [(f"k/{i}", bytes([i]) * (i + 1)) for i in range(100)]
    store.set_many(items)
    assert store.get_many([(k, None) for k, _ in items]) == [v for _, v in items]
    assert len(list(store.list_prefix("k/"))) == 100
    store.delete_many([k for k, _ in items[:50]])
    assert len(list(store.list_prefix("k/"))) == 50
    store.erase_prefix("k/")
    assert list(store.list_prefix("")) == []


def test_directory_markers_are_not_keys(s3_url, s3_options):
    import boto3

    store = FsspecStore.from_url(f"{s3_url}/root", **s3_options)
    store.set("g/zarr.json", b"{}")
    client = boto3.client(
        "s3",
        endpoint_url=s3_options["endpoint_url"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    bucket = s3_url[len("s3://") :]
    client.put_object(Bucket=bucket, Key="root/empty/", Body=b"")
    client.put_object(Bucket=bucket, Key="root/g/", Body=b"")
    assert list(store.list_prefix("")) == ["g/zarr.json"]
    top = store.list_dir("")
    assert top.keys == [] and "g/" in top.prefixes
    assert store.list_dir("g/").keys == ["zarr.json"]
    assert not store.exists("g") and store.get("g") is None


def test_changes_by_other_clients_are_listed(s3_url, s3_options):
    import boto3

    store = FsspecStore.from_url(f"{s3_url}/root", **s3_options)
    store.set("a", b"1")
    assert list(store.list_prefix("")) == ["a"] and store.list_dir("").keys == ["a"]
    client = boto3.client(
        "s3",
        endpoint_url=s3_options["endpoint_url"],
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    client.put_object(Bucket=s3_url[len("s3://") :], Key="root/b", Body=b"2")
    assert list(store.list_prefix("")) == ["a", "b"]  # fsspec's listing cache is not trusted
    assert store.list_dir("").keys == ["a", "b"] and store.exists("b")


def test_stores_pickle(s3_url, s3_options):
    import pickle

    store = FsspecStore.from_url(f"{s3_url}/p", concurrency=3, **s3_options)
    store.set("k", b"v")
    copy = pickle.loads(pickle.dumps(store))
    assert copy.get("k") == b"v" and copy.settings == store.settings


def test_s3_connection_pool_follows_the_store_concurrency(s3_url, s3_options):
    store = FsspecStore.from_url(s3_url, concurrency=48, **s3_options)
    assert store.fs.config_kwargs["max_pool_connections"] == 48
    chosen = FsspecStore.from_url(s3_url, config_kwargs={"max_pool_connections": 5}, **s3_options)
    assert chosen.fs.config_kwargs["max_pool_connections"] == 5  # the user's choice stands
