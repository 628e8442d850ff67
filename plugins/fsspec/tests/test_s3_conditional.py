"""Conditional writes on S3 against a real S3 server (moto's, on 127.0.0.1): the
conformance kit's suites, the engine's read-modify-writes and transactions, the
server probe and the settings.

moto honours ``If-None-Match: *`` and ``If-Match`` on PutObject and ``If-Match`` on
DeleteObject, which is what zarrforge_fsspec.s3_conditional uses. Not tested here
(no such server is available offline): AWS's 409 ConditionalRequestConflict, which
is mapped to ConflictError like 412.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import threading

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import ConflictError, StoreError
from zarrforge.testing.conditional import ConditionalWriteConformance, CrossProcessConditionalConformance
from zarrforge_fsspec import FsspecStore, s3_conditional


class TestS3ConditionalWrites(ConditionalWriteConformance, CrossProcessConditionalConformance):
    increments = 15
    processes = 3

    @pytest.fixture(autouse=True)
    def _bucket(self, s3_url, s3_options):
        self.url, self.options = f"{s3_url}/root", s3_options

    def make_store(self, tmp_path):
        return FsspecStore.from_url(self.url, **self.options)

    def make_read_only_store(self, store):
        return FsspecStore.from_url(self.url, read_only=True, **self.options)

    def reopen_args(self, store):
        return functools.partial(FsspecStore.from_url, **self.options), (self.url,)


@pytest.fixture
def s3_store(s3_url, s3_options):
    return FsspecStore.from_url(f"{s3_url}/data", **s3_options)


def test_threads_writing_parts_of_one_chunk_on_s3_lose_nothing(s3_store):
    array = zf.create_array(s3_store, "a", shape=(8, 8), chunks=(8, 8), dtype="i4", fill_value=0)
    assert s3_store.capabilities.conditional_writes

    def write(row: int) -> None:
        handle = zf.open_array(s3_store, "a", mode="r+")
        for column in range(8):
            handle[row, column] = row * 8 + column + 1

    threads = [threading.Thread(target=write, args=(row,)) for row in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert np.array_equal(array[...], np.arange(1, 65).reshape(8, 8))


def test_attribute_updates_from_stale_handles_on_s3_lose_nothing(s3_store):
    zf.create_array(s3_store, "a", shape=(2,), chunks=(2,), dtype="i4")
    first = zf.open_array(s3_store, "a", mode="r+")
    second = zf.open_array(s3_store, "a", mode="r+")
    first.attrs["one"] = 1
    second.attrs["two"] = 2  # opened before "one" was written
    assert dict(zf.open_array(s3_store, "a").attrs) == {"one": 1, "two": 2}


def test_a_transaction_on_s3_commits_and_refuses_a_conflict(s3_store):
    outside = zf.create_array(s3_store, "a", shape=(8,), chunks=(4,), dtype="i4", fill_value=0)
    outside[...] = 1
    with zf.transaction(s3_store) as tx:
        zf.open_array(tx, "a", mode="r+")[1] = 5
        zf.open_array(tx, "a", mode="r+").attrs["v"] = 1
        assert outside[1] == 1
    assert outside[:4].tolist() == [1, 5, 1, 1]
    assert zf.open_array(s3_store, "a").attrs["v"] == 1
    tx = zf.transaction(s3_store)
    zf.open_array(tx, "a", mode="r+")[2] = 7
    outside[3] = 9
    with pytest.raises(ConflictError, match="a/c/0"):
        tx.commit()
    assert zf.open_array(s3_store, "a")[:4].tolist() == [1, 5, 1, 9]
    assert zf.unfinished_commits(s3_store) == []


def test_the_probe_finds_that_moto_honours_both_conditions(s3_url, s3_options):
    s3_conditional._probed.clear()
    store = FsspecStore.from_url(f"{s3_url}/p", **s3_options)
    assert store.capabilities.conditional_writes
    assert list(s3_conditional._probed.values()) == [True]
    assert list(store.list_prefix("")) == []  # the probe object is gone (and never listed)
    assert store.fs.find(f"{s3_url}/p") == []


def test_the_probe_runs_once_per_process_and_bucket(s3_url, s3_options, monkeypatch):
    import s3fs

    s3_conditional._probed.clear()
    probes = []
    real_probe = s3_conditional.S3Conditions._probe

    async def counted(self):
        probes.append(self.store._path("probe"))
        return await real_probe(self)

    monkeypatch.setattr(s3_conditional.S3Conditions, "_probe", counted)
    for root in ("p", "q", "p"):  # two roots in one bucket, one of them twice
        store = FsspecStore.from_url(f"{s3_url}/{root}", **s3_options)
        assert store.capabilities.conditional_writes
    assert len(probes) == 1
    other_bucket = f"{s3_url}-other"
    s3fs.S3FileSystem(**s3_options).mkdir(other_bucket)
    assert FsspecStore.from_url(f"{other_bucket}/p", **s3_options).capabilities.conditional_writes
    assert len(probes) == 2 and probes[1].startswith(other_bucket.removeprefix("s3://"))


def test_settings_turn_conditional_writes_off_or_skip_the_probe(s3_url, s3_options):
    s3_conditional._probed.clear()
    off = FsspecStore.from_url(f"{s3_url}/p", conditional_writes=False, **s3_options)
    trusted = FsspecStore.from_url(f"{s3_url}/p", conditional_writes=True, **s3_options)
    read_only = FsspecStore.from_url(f"{s3_url}/p", read_only=True, **s3_options)
    assert not off.capabilities.conditional_writes
    assert trusted.capabilities.conditional_writes
    assert read_only.capabilities.conditional_writes  # generations can be read
    assert s3_conditional._probed == {}  # none of them asked the server
    with pytest.raises(ValueError, match="conditional_writes must be None"):
        FsspecStore.from_url(f"{s3_url}/p", conditional_writes="yes", **s3_options)


class _ServerIgnoringConditions:
    """Stands in for s3fs against a server that accepts and ignores the headers."""

    def __init__(self, fs):
        self.real = fs

    def __getattr__(self, name):
        return getattr(self.real, name)

    async def _call_s3(self, method, **kwargs):
        kwargs.pop("IfMatch", None)
        kwargs.pop("IfNoneMatch", None)
        return await self.real._call_s3(method, **kwargs)


def test_a_server_that_ignores_the_conditions_gets_no_conditional_writes(s3_url, s3_options):
    s3_conditional._probed.clear()
    store = FsspecStore.from_url(f"{s3_url}/p", **s3_options)
    store._conditions.fs = _ServerIgnoringConditions(store.fs)
    assert not store.capabilities.conditional_writes
    assert list(s3_conditional._probed.values()) == [False]
    s3_conditional._probed.clear()


def test_a_server_that_cannot_be_reached_fails_the_probe_with_a_named_error(aws_env, closed_port):
    s3_conditional._probed.clear()
    store = FsspecStore.from_url(
        "s3://bucket/root",
        key="testing",
        secret="testing",
        endpoint_url=closed_port,
        skip_instance_cache=True,
        max_retries=1,
        retry_backoff=0.01,
        config_kwargs={"retries": {"total_max_attempts": 1}, "connect_timeout": 1},
    )
    with pytest.raises(StoreError, match="honours conditional writes") as caught:
        store.capabilities
    assert "s3://bucket/root/.zarrforge-tmp-probe-" in str(caught.value)
    assert s3_conditional._probed == {}  # not remembered: the next call asks again


_PARTS_WORKER = """
import json, sys
import zarrforge as zf
from zarrforge_fsspec import FsspecStore
url, options, worker, workers, rounds = sys.argv[1], json.loads(sys.argv[2]), *map(int, sys.argv[3:])
array = zf.open_array(FsspecStore.from_url(url, **options), "a", mode="r+", threads=1)
mine = [i for i in range(array.size) if i % workers == worker]
for r in range(1, rounds + 1):
    array.vindex[(mine,)] = worker * 1000 + r
"""


def test_four_processes_writing_parts_of_the_same_chunks_on_s3_lose_nothing(s3_url, s3_options):
    url = f"{s3_url}/procs"
    store = FsspecStore.from_url(url, **s3_options)
    zf.create_array(store, "a", shape=(32,), chunks=(16,), dtype="i4", fill_value=0)
    workers, rounds = 4, 6
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _PARTS_WORKER,
                url,
                json.dumps(s3_options),
                str(w),
                str(workers),
                str(rounds),
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(workers)
    ]
    for process in processes:
        _, err = process.communicate(timeout=240)
        assert process.returncode == 0, err[-3000:]
    expected = [(i % workers) * 1000 + rounds for i in range(32)]
    assert zf.open_array(store, "a")[...].tolist() == expected


@pytest.mark.parametrize("conditional", [True, False])
def test_a_part_written_during_a_read_modify_write_on_s3_is_kept_only_with_conditional_writes(
    s3_url, s3_options, conditional
):
    """The race the process test above runs into, made certain: another writer (another
    store, so not ordered by this process's chunk locks) changes an element of the chunk
    right after this write read it. With conditional writes the write is redone on the
    changed chunk and both parts stay; with ``conditional_writes=False`` it stores its
    result over the other writer's and that part is lost."""
    from zarrforge.testing.faults import ChangeBetweenReads

    url = f"{s3_url}/race"
    other = zf.create_array(
        FsspecStore.from_url(url, **s3_options), "a", shape=(4,), chunks=(4,), dtype="i4", fill_value=0
    )
    store = FsspecStore.from_url(url, conditional_writes=conditional, **s3_options)
    assert store.capabilities.conditional_writes is conditional
    wrapper = ChangeBetweenReads(store, lambda: other.__setitem__(0, 7), key="a/c/0")
    zf.open_array(wrapper, "a", mode="r+")[3] = 9
    assert wrapper.reads >= 1
    expected = [7, 0, 0, 9] if conditional else [0, 0, 0, 9]
    assert zf.open_array(store, "a")[...].tolist() == expected


def test_the_test_server_decides_racing_conditional_puts_atomically(s3_url, s3_options, monkeypatch):
    """The lost-update tests above are only meaningful if the server, like S3, lets one
    of several PUTs holding the same ETag through (zarrforge.testing.s3_server). The
    server's store step is slowed down so that, were check and write separate, every
    writer would pass the check before the first one wrote."""
    import time

    import boto3
    from botocore.exceptions import ClientError
    from moto.s3.models import S3Backend

    store_object = S3Backend.put_object

    def slow_store(self, *args, **kwargs):
        time.sleep(0.05)
        return store_object(self, *args, **kwargs)

    monkeypatch.setattr(S3Backend, "put_object", slow_store)

    bucket = s3_url.removeprefix("s3://")
    client = boto3.client("s3", endpoint_url=s3_options["endpoint_url"], region_name="us-east-1")
    etag = client.put_object(Bucket=bucket, Key="k", Body=b"first")["ETag"]
    start = threading.Barrier(16)
    outcomes: list[str] = []

    def put(number: int) -> None:
        start.wait()
        try:
            client.put_object(Bucket=bucket, Key="k", Body=b"writer %d" % number, IfMatch=etag)
            outcomes.append("written")
        except ClientError as error:
            outcomes.append(error.response["Error"]["Code"])

    threads = [threading.Thread(target=put, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("written") == 1
    assert set(outcomes) - {"written"} == {"PreconditionFailed"}
