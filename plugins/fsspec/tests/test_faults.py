"""Faults: transient ones are retried a bounded number of times, then a StoreError names
the key and the URL; nothing hangs. Every endpoint here is on 127.0.0.1."""

from __future__ import annotations

import errno
from typing import Any

import fsspec
import numpy as np
import pytest

import zarrforge as zf
import zarrforge_fsspec  # noqa: F401
from zarrforge.errors import StoreError
from zarrforge_fsspec import FsspecStore
from zarrforge_fsspec.faults import is_invalid_range, is_refused, is_transient

FAST: dict[str, Any] = {"max_retries": 2, "retry_backoff": 0.01, "retry_max_backoff": 0.05}


def s3_to(endpoint: str, **settings) -> FsspecStore:
    return FsspecStore.from_url(
        "s3://bucket/root",
        key="testing",
        secret="testing",
        endpoint_url=endpoint,
        skip_instance_cache=True,
        config_kwargs={"retries": {"total_max_attempts": 1}, "connect_timeout": 1, "read_timeout": 30},
        **FAST,
        **settings,
    )


def count_calls(monkeypatch, store, name="_cat_file"):
    calls = []
    original = getattr(store.fs, name)

    async def counted(*args, **kwargs):
        calls.append(args)
        return await original(*args, **kwargs)

    monkeypatch.setattr(store.fs, name, counted)
    return calls


def test_connection_refused_is_named_and_not_retried(aws_env, closed_port, monkeypatch):
    # issue #41: a refused connection (nothing listens) was retried until the deadline
    store = s3_to(closed_port)
    calls = count_calls(monkeypatch, store)
    with pytest.raises(StoreError) as caught:
        store.get_many([("a/zarr.json", None), ("b", None)])
    error = caught.value
    assert error.attempts == 1 and error.url in str(error)
    assert error.key in ("a/zarr.json", "b") and f"s3://bucket/root/{error.key}" == error.url
    assert "connection was refused" in str(error) and "gave up" not in str(error)
    assert 1 <= len(calls) <= 2  # one attempt of the failed key; the other one may be cancelled


def test_unanswered_requests_time_out_then_fail(aws_env, black_hole, monkeypatch):
    store = s3_to(black_hole, request_timeout=0.3)
    calls = count_calls(monkeypatch, store)
    with pytest.raises(StoreError, match=r"'c/0'.*s3://bucket/root/c/0.*request_timeout"):
        store.get("c/0")
    assert len(calls) == 3  # each attempt abandoned at request_timeout, then given up


def test_writes_fail_the_same_way(aws_env, closed_port):
    store = s3_to(closed_port)
    with pytest.raises(StoreError, match=r"cannot write 'k' at 's3://bucket/root/k'"):
        store.set("k", b"v")


def test_array_read_from_a_dead_endpoint_raises(aws_env, closed_port):
    with pytest.raises(StoreError, match="zarr.json"):
        zf.open_array(
            "s3://bucket/x.zarr",
            storage_options={
                "key": "testing",
                "secret": "testing",
                "endpoint_url": closed_port,
                "config_kwargs": {"retries": {"total_max_attempts": 1}},
                **FAST,
            },
        )


def test_throttling_is_retried_until_it_succeeds(http_server):
    directory, url = http_server.new_site({"k": b"value"})
    http_server.fail(f"{directory.name}/k", 503, 429)
    store = FsspecStore.from_url(url, **FAST)
    assert store.get("k") == b"value"
    assert http_server.requests[f"{directory.name}/k"] == 3


def test_persistent_throttling_gives_up(http_server):
    directory, url = http_server.new_site({"k": b"value"})
    http_server.fail(f"{directory.name}/k", *[503] * 10)
    store = FsspecStore.from_url(url, **FAST)
    with pytest.raises(StoreError, match=rf"cannot read 'k' at '{url}/k': gave up after 3"):
        store.get("k")
    assert http_server.requests[f"{directory.name}/k"] == 3


def test_other_errors_are_not_retried(http_server):
    directory, url = http_server.new_site({"k": b"value"})
    http_server.fail(f"{directory.name}/k", 403)
    store = FsspecStore.from_url(url, **FAST)
    with pytest.raises(StoreError, match="403"):
        store.get("k")
    assert http_server.requests[f"{directory.name}/k"] == 1


def test_sync_filesystems_retry_too(monkeypatch):
    store = FsspecStore.from_url("fsspec+memory://faults-sync", **FAST)
    store.set("k", b"v")
    failures = [ConnectionResetError("reset"), TimeoutError("slow")]
    original = store.fs.cat_file

    def flaky(*args, **kwargs):
        if failures:
            raise failures.pop(0)
        return original(*args, **kwargs)

    monkeypatch.setattr(store.fs, "cat_file", flaky)
    assert store.get_many([("k", None), ("missing", None)]) == [b"v", None]
    failures.extend([ConnectionResetError("reset")] * 5)
    with pytest.raises(StoreError, match="gave up after 3 attempts.*reset"):
        store.get("k")


def test_a_failed_local_write_leaves_no_key(tmp_path, monkeypatch):
    store = FsspecStore(fsspec.filesystem("file"), str(tmp_path / "root"))
    store.set("a/k", b"old")

    def broken_rename(*args, **kwargs):
        raise OSError(errno.EIO, "disk trouble")

    monkeypatch.setattr(store.fs, "mv", broken_rename)
    with pytest.raises(StoreError, match="cannot write 'a/k'"):
        store.set("a/k", b"new value")
    with pytest.raises(StoreError):
        store.set("a/fresh", b"new value")
    monkeypatch.undo()
    assert store.get("a/k") == b"old" and store.get("a/fresh") is None
    assert sorted(p.name for p in (tmp_path / "root" / "a").iterdir()) == ["k"]


def test_classification():
    import aiohttp
    from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
    from s3fs.errors import translate_boto_error

    def client_error(code, status):
        return ClientError(
            {"Error": {"Code": code, "Message": code}, "ResponseMetadata": {"HTTPStatusCode": status}},
            "GetObject",
        )

    slow_down = translate_boto_error(client_error("SlowDown", 503))
    assert is_transient(slow_down) and is_transient(client_error("SlowDown", 503))
    assert is_transient(client_error("ThrottlingException", 400))
    assert is_transient(EndpointConnectionError(endpoint_url="http://127.0.0.1:1"))
    assert is_transient(ReadTimeoutError(endpoint_url="http://127.0.0.1:1"))
    assert is_transient(aiohttp.ClientResponseError(None, (), status=429))
    assert is_transient(aiohttp.ServerDisconnectedError())
    assert is_transient(TimeoutError())
    assert not is_transient(translate_boto_error(client_error("AccessDenied", 403)))
    assert not is_transient(FileNotFoundError("gone"))
    assert not is_transient(aiohttp.ClientResponseError(None, (), status=400))
    assert not is_transient(ValueError("bug"))
    assert is_invalid_range(translate_boto_error(client_error("InvalidRange", 416)))
    assert is_invalid_range(aiohttp.ClientResponseError(None, (), status=416))
    # a refused connection is no transient fault: nothing listens there (issue #41)
    refused = EndpointConnectionError(endpoint_url="http://127.0.0.1:1")
    refused.__cause__ = ConnectionRefusedError(errno.ECONNREFUSED, "Connect call failed")
    assert is_refused(refused) and not is_transient(refused)
    assert not is_transient(OSError(errno.ECONNREFUSED, "refused"))
    assert not is_refused(EndpointConnectionError(endpoint_url="http://127.0.0.1:1"))


def test_settings_are_validated():
    for bad in ({"max_retries": -1}, {"concurrency": 0}, {"retry_backoff": -1}, {"request_timeout": 0}):
        with pytest.raises(ValueError):
            FsspecStore(fsspec.filesystem("memory"), "/x", **bad)


def test_array_data_survives_retries(http_server, tmp_path):
    """A served array whose chunks are throttled at first still reads correctly."""
    local = tmp_path / "a.zarr"
    a = zf.create_array(str(local), shape=(6,), dtype="int16", chunks=(2,))
    a[:] = np.arange(6)
    values = {
        str(p.relative_to(local)).replace("\\", "/"): p.read_bytes() for p in local.rglob("*") if p.is_file()
    }
    directory, url = http_server.new_site(values)
    for i in range(3):
        http_server.fail(f"{directory.name}/c/{i}", 503)
    opened = zf.open_array(url, storage_options=FAST)
    np.testing.assert_array_equal(opened[:], np.arange(6))
