"""zarrforge.asyncio (issue #33): results equal to the blocking API's, reads gathered into
the engine's batched store I/O, nothing of the work on the event loop's thread, and
cancellation that stops a write with every chunk old or new.

pytest-asyncio is not a dependency: each test drives its coroutine with ``asyncio.run``.
Concurrency is proven by counting (requests in flight in a store wrapper, calls of the
store), never by timing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
import uuid
from typing import Any

import numpy as np
import pytest

import zarrforge as zf
import zarrforge.asyncio as zfa
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.abc.store import WrapperStore
from zarrforge.engine import chunk_io
from zarrforge.errors import BoundsCheckError, CorruptChunkError, NodeTypeError
from zarrforge.hierarchy_api import resolve_store

S3_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}


# --- instruments -----------------------------------------------------------------------


class Recording(WrapperStore):
    """Counts requests (keys) in flight and their maximum, ``get_many`` calls, and the
    threads every request ran on."""

    forwards_conditional_writes = True

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.get_many_calls: list[int] = []
        self.threads: set[int] = set()

    def _enter(self, n: int) -> None:
        with self.lock:
            self.threads.add(threading.get_ident())
            self.in_flight += n
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self, n: int) -> None:
        with self.lock:
            self.in_flight -= n

    def _counted(self, n: int, call: Any, *args: Any) -> Any:
        self._enter(n)
        try:
            return call(*args)
        finally:
            self._leave(n)

    def get(self, key, byte_range=None):
        return self._counted(1, self.inner.get, key, byte_range)

    def get_many(self, requests):
        requests = list(requests)
        with self.lock:
            self.get_many_calls.append(len(requests))
        return self._counted(len(requests), self.inner.get_many, requests)

    def _set(self, key, value):
        self._counted(1, self.inner.set, key, value)

    def _set_many(self, items):
        self._counted(len(items), self.inner.set_many, items)

    def _delete(self, key):
        self._counted(1, self.inner.delete, key)

    def _delete_many(self, keys):
        self._counted(len(keys), self.inner.delete_many, keys)

    def list_prefix(self, prefix):
        return self._counted(1, lambda: list(self.inner.list_prefix(prefix)))

    def list_dir(self, prefix):
        return self._counted(1, self.inner.list_dir, prefix)


class ThreadRecorder(BytesBytesCodec):
    """A bytes -> bytes codec that changes nothing and records the threads it runs on."""

    name = "test.thread_recorder"
    threads: set[int] = set()

    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}

    def encode(self, data):
        ThreadRecorder.threads.add(threading.get_ident())
        return bytes(data)

    def decode(self, data):
        ThreadRecorder.threads.add(threading.get_ident())
        return bytes(data)


@pytest.fixture
def recorder_codec():
    ThreadRecorder.threads = set()
    zf.register("codecs", ThreadRecorder.name, ThreadRecorder)
    yield ThreadRecorder
    zf.registry.REGISTRIES["codecs"].unregister(ThreadRecorder.name)


def memory_store() -> Any:
    return resolve_store("memory://")


# --- S3 -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def s3_endpoint():
    from zarrforge.testing.s3_server import loopback_s3_server

    saved = {name: os.environ.get(name) for name in S3_ENV}
    os.environ.update(S3_ENV)
    try:
        with loopback_s3_server() as endpoint:
            yield endpoint
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture
def s3_store(s3_endpoint):
    import s3fs

    options = {"key": "testing", "secret": "testing", "endpoint_url": s3_endpoint}
    bucket = f"zf-{uuid.uuid4().hex[:16]}"
    s3fs.S3FileSystem(**options).mkdir(bucket)
    return resolve_store(f"s3://{bucket}", storage_options=options)


def test_500_concurrent_small_reads_on_s3_are_equal_and_many_are_in_flight_at_once(s3_store):
    data = np.arange(500 * 16, dtype="int32").reshape(500, 16)
    zf.create_array(s3_store, "a", shape=data.shape, dtype=data.dtype, chunks=(1, 16))[...] = data
    recording = Recording(s3_store)
    http_in_flight = [0, 0]  # now, most
    fs = s3_store.fs
    original = fs._cat_file

    async def counted_cat_file(*args, **kwargs):
        http_in_flight[0] += 1  # fsspec runs these on its one event loop: no lock needed
        http_in_flight[1] = max(http_in_flight)
        try:
            return await original(*args, **kwargs)
        finally:
            http_in_flight[0] -= 1

    async def main():
        arr = await zfa.open_array(recording, "a", mode="r")
        loop_thread = threading.get_ident()
        values = await asyncio.gather(*(arr.getitem((i, slice(2, 9))) for i in range(500)))
        return loop_thread, values

    fs._cat_file = counted_cat_file
    try:
        loop_thread, values = asyncio.run(main())
    finally:
        del fs._cat_file
    for i, value in enumerate(values):
        np.testing.assert_array_equal(value, data[i, 2:9])
    # the open read the unfinished-write markers at "a" and the root in one batch, and
    # every chunk request of the 500 reads went to the store in a few large batches ...
    assert recording.get_many_calls[0] == 2
    chunk_batches = recording.get_many_calls[1:]
    assert sum(chunk_batches) == 500 and len(chunk_batches) <= 4
    assert recording.max_in_flight >= 200
    # ... which the S3 store sent as concurrent HTTP requests (its concurrency is 32)
    assert http_in_flight[1] >= 16
    assert loop_thread not in recording.threads


def _counting_gets(fs: Any) -> tuple[list[str], Any]:
    """Record the path of every object GET the S3 filesystem makes (``_cat_file``)."""
    paths: list[str] = []
    original = fs._cat_file

    async def counted(path, *args, **kwargs):
        paths.append(path)  # fsspec runs these on its one event loop: no lock needed
        return await original(path, *args, **kwargs)

    return paths, counted


@pytest.mark.parametrize("reads", [64, 1024])
def test_gathered_reads_of_shared_chunks_fetch_each_chunk_once_on_s3(s3_store, reads):
    """Issue #45: 64 gathered one-row reads over 16 chunks made 65 GETs, and 1,024 made
    1,024, where one blocking read of the same rows makes one GET per chunk: reads asked
    for in one loop pass now share their chunks' fetches."""
    rows = reads // 4  # four reads a row, four rows a chunk
    data = np.arange(rows * 16, dtype="int32").reshape(rows, 16)
    zf.create_array(s3_store, "a", shape=data.shape, dtype=data.dtype, chunks=(4, 16))[...] = data
    fs = s3_store.fs
    paths, counted = _counting_gets(fs)

    async def main():
        arr = await zfa.open_array(s3_store, "a", mode="r")
        paths.clear()  # (opening reads documents)
        return await asyncio.gather(*(arr.getitem((i // 4, slice(i % 4, i % 4 + 4))) for i in range(reads)))

    fs._cat_file = counted
    try:
        values = asyncio.run(main())
    finally:
        del fs._cat_file
    for i, value in enumerate(values):
        np.testing.assert_array_equal(value, data[i // 4, i % 4 : i % 4 + 4])
    chunk_gets = [p for p in paths if "/a/c/" in p]
    assert len(chunk_gets) == len(set(chunk_gets)) == rows // 4, sorted(chunk_gets)


def test_gathered_reads_of_shared_chunks_fetch_each_chunk_once_on_any_store():
    """The same on a store with latency (read ahead, in quarter groups) and on one without."""

    class WithLatency(WrapperStore):
        forwards_conditional_writes = True

        @property
        def capabilities(self):
            return dataclasses.replace(self.inner.capabilities, low_latency=False)

    data = np.arange(64 * 16, dtype="int32").reshape(64, 16)
    for latency in (False, True):
        base = memory_store()
        zf.create_array(base, "a", shape=data.shape, dtype=data.dtype, chunks=(4, 16))[...] = data
        store = Recording(WithLatency(base) if latency else base)

        async def main(store=store):
            arr = await zfa.open_array(store, "a", mode="r")
            store.get_many_calls.clear()
            return await asyncio.gather(*(arr.getitem((i // 4, slice(i % 4, i % 4 + 4))) for i in range(256)))

        values = asyncio.run(main())
        for i, value in enumerate(values):
            np.testing.assert_array_equal(value, data[i // 4, i % 4 : i % 4 + 4])
        assert sum(store.get_many_calls) == 16, (latency, store.get_many_calls)


# --- gathering ------------------------------------------------------------------------------


def test_reads_asked_for_in_one_loop_pass_reach_the_store_as_one_batch():
    store = Recording(memory_store())
    data = np.arange(100 * 8, dtype="float64").reshape(100, 8)
    zf.create_array(store, "a", shape=data.shape, dtype=data.dtype, chunks=(1, 8))[...] = data
    store.get_many_calls.clear()

    async def main():
        arr = await zfa.open_array(store, "a")
        store.get_many_calls.clear()  # (opening reads documents)
        return await asyncio.gather(*(arr.getitem(i) for i in range(100)))

    values = asyncio.run(main())
    assert store.get_many_calls == [100]
    for i, value in enumerate(values):
        np.testing.assert_array_equal(value, data[i])


def test_each_gathered_read_gets_its_own_result_or_its_own_error():
    store = memory_store()
    data = np.arange(40, dtype="int16")
    arr = zf.create_array(store, "a", shape=(40,), dtype="int16", chunks=(10,))
    arr[...] = data
    store.set(arr.chunk_key((1,)), b"not a chunk")

    async def main():
        a = await zfa.open_array(store, "a")
        return await asyncio.gather(
            a.getitem(slice(0, 5)),
            a.getitem(12),
            a.getitem(99),
            a.getitem(slice(35, 40)),
            return_exceptions=True,
        )

    first, corrupt, out_of_bounds, last = asyncio.run(main())
    np.testing.assert_array_equal(first, data[:5])
    assert isinstance(corrupt, CorruptChunkError)
    assert isinstance(out_of_bounds, BoundsCheckError)
    np.testing.assert_array_equal(last, data[35:])


# --- the API ---------------------------------------------------------------------------------


def test_every_selection_kind_reads_and_writes_as_the_blocking_array_does():
    store = memory_store()
    expected = np.arange(12 * 10, dtype="int32").reshape(12, 10)
    rows, cols = np.array([1, 5, 11]), np.array([0, 3, 9])
    mask = expected % 7 == 0

    async def main():
        a = await zfa.create_array(store, "a", data=expected, chunks=(4, 3))
        got = {
            "basic": await a.getitem((slice(1, 11, 3), 4)),
            "scalar": await a.getitem((2, 3)),
            "fancy-orthogonal": await a.getitem((rows, slice(None))),
            "fancy-points": await a.getitem((rows, cols)),
            "full-mask": await a.getitem(mask),
            "oindex": await a.oindex.getitem((rows, cols)),
            "vindex": await a.vindex.getitem((rows, cols)),
            "vindex-mask": await a.vindex.getitem(mask),
            "blocks": await a.blocks.getitem((1, slice(0, 2))),
            "get_basic": await a.get_basic_selection((slice(None), 2)),
            "get_orthogonal": await a.get_orthogonal_selection((rows, cols)),
            "get_coordinate": await a.get_coordinate_selection((rows, cols)),
            "get_mask": await a.get_mask_selection(mask),
            "get_block": await a.get_block_selection((2, 3)),
        }
        await a.setitem((0, slice(None)), -1)
        await a.oindex.setitem((rows, cols), -2)
        await a.vindex.setitem((np.array([3, 4]), np.array([5, 6])), -3)
        await a.set_mask_selection(np.eye(12, 10, dtype=bool), -4)
        await a.blocks.setitem((2, 3), -5)
        await a.set_block_selection((0, 0), -6)
        return got, a.array[...]

    got, written = asyncio.run(main())
    assert got["basic"].tolist() == expected[1:11:3, 4].tolist()
    assert got["scalar"] == expected[2, 3] and np.ndim(got["scalar"]) == 0
    np.testing.assert_array_equal(got["fancy-orthogonal"], expected[rows, :])
    np.testing.assert_array_equal(got["fancy-points"], expected[rows, cols])
    np.testing.assert_array_equal(got["full-mask"], expected[mask])
    np.testing.assert_array_equal(got["oindex"], expected[np.ix_(rows, cols)])
    np.testing.assert_array_equal(got["vindex"], expected[rows, cols])
    np.testing.assert_array_equal(got["vindex-mask"], expected[mask])
    np.testing.assert_array_equal(got["blocks"], expected[4:8, 0:6])
    np.testing.assert_array_equal(got["get_basic"], expected[:, 2])
    np.testing.assert_array_equal(got["get_orthogonal"], expected[np.ix_(rows, cols)])
    np.testing.assert_array_equal(got["get_coordinate"], expected[rows, cols])
    np.testing.assert_array_equal(got["get_mask"], expected[mask])
    np.testing.assert_array_equal(got["get_block"], expected[8:12, 9:10])
    want = expected.copy()
    want[0, :] = -1
    want[np.ix_(rows, cols)] = -2
    want[[3, 4], [5, 6]] = -3
    want[np.eye(12, 10, dtype=bool)] = -4
    want[8:12, 9:10] = -5
    want[0:4, 0:3] = -6
    np.testing.assert_array_equal(written, want)


def test_resize_append_attributes_listing_and_info():
    store = memory_store()

    async def main():
        root = await zfa.create_group(store, attributes={"title": "t"})
        a = await root.create_array(
            "x", shape=(4, 3), dtype="uint8", chunks=(2, 3), attributes={"units": "m"}
        )
        await root.create_group("sub")
        await a.setitem(..., 7)
        shape_after_append = await a.append(np.full((2, 3), 9, dtype="uint8"))
        await a.resize((8, 2))
        await a.update_attributes({"more": 1})
        await root.update_attributes({"extra": True})
        again = await zfa.open_group(store, mode="r")
        members = [(name, type(node).__name__) async for name, node in again.members()]
        x = await again.getitem("x")
        return {
            "append": shape_after_append,
            "shape": x.shape,
            "values": await x.getitem(...),
            "attrs": x.attrs,
            "root_attrs": again.attrs,
            "members": members,
            "keys": [k async for k in again.keys()],
            "array_keys": [k async for k in again.array_keys()],
            "group_keys": [k async for k in again.group_keys()],
            "arrays": [n async for n, _ in again.arrays()],
            "groups": [n async for n, _ in again.groups()],
            "nmembers": await again.nmembers(),
            "contains": await again.contains("sub"),
            "missing": await again.get("nope", "default"),
            "info": again.info,
            "info_complete": await again.info_complete(),
            "array_info": x.info,
            "array_info_complete": await x.info_complete(),
            "nchunks_initialized": await x.nchunks_initialized(),
        }

    got = asyncio.run(main())
    assert got["append"] == (6, 3) and got["shape"] == (8, 2)
    expected = np.zeros((8, 2), dtype="uint8")
    expected[:4] = 7
    expected[4:6] = 9
    np.testing.assert_array_equal(got["values"], expected)
    assert got["attrs"] == {"units": "m", "more": 1}
    assert got["root_attrs"] == {"title": "t", "extra": True}
    assert got["members"] == [("sub", "AsyncGroup"), ("x", "AsyncArray")]
    assert got["keys"] == ["sub", "x"] and got["nmembers"] == 2 and got["contains"]
    assert got["array_keys"] == got["arrays"] == ["x"]
    assert got["group_keys"] == got["groups"] == ["sub"]
    assert got["missing"] == "default"
    assert "No. members" not in dict(got["info"].rows)
    assert dict(got["info_complete"].rows)["No. members"] == 2
    assert dict(got["array_info"].rows)["Shape"] == (8, 2)
    assert dict(got["array_info_complete"].rows)["Chunks initialized"] == "3/4"
    assert got["nchunks_initialized"] == 3


def test_from_node_gives_the_async_face_of_an_open_node_and_names_anything_else():
    store = Recording(memory_store())
    root = zf.open_group(store, mode="w")
    blocking = root.create_array("a", shape=(6,), dtype="int8", chunks=(2,))
    blocking[...] = np.arange(6, dtype="int8")
    store.get_many_calls.clear()

    async def main():
        a, g = zfa.from_node(blocking), zfa.from_node(root)
        values = await asyncio.gather(*(a.getitem(slice(i, i + 2)) for i in range(0, 6, 2)))
        return a, g, values, [name async for name in g.keys()]

    a, g, values, keys = asyncio.run(main())
    assert isinstance(a, zfa.AsyncArray) and isinstance(g, zfa.AsyncGroup)
    assert a.array.store.inner is store and keys == ["a"]
    np.testing.assert_array_equal(np.concatenate(values), np.arange(6))
    assert store.get_many_calls == [3]  # the three reads were gathered
    with pytest.raises(
        NodeTypeError,
        match=r"'node' must be a zarrforge Array or Group, got "
        r"array\(\[1, 2\]\) \(type ndarray\)",
    ):
        zfa.from_node(np.array([1, 2]))


def properties(cls: type) -> dict[str, property]:
    return {name: getattr(cls, name) for name in dir(cls) if isinstance(getattr(cls, name), property)}


@pytest.mark.parametrize(
    "blocking, face, differ_by_design, shared_at_least",
    [
        (
            "Array",
            "AsyncArray",
            {"attrs"},
            {
                "name",
                "metadata",
                "read_only",
                "shape",
                "dtype",
                "chunks",
                "shards",
                "nbytes",
                "info",
                "oindex",
            },
        ),
        ("Group", "AsyncGroup", {"attrs", "info"}, {"name", "path", "store", "metadata"}),
    ],
)
def test_a_property_of_both_faces_is_one_property_shared_by_them(
    blocking, face, differ_by_design, shared_at_least
):
    """The async faces compute none of the blocking classes' properties again (issue #42):
    a property both have is the same property object, except those whose answers differ
    by design (``attrs``: a copy; a group's ``info``: no member counts)."""
    ours, theirs = properties(getattr(zf, blocking)), properties(getattr(zfa, face))
    both = ours.keys() & theirs.keys()
    assert shared_at_least <= both
    assert {name for name in both if ours[name] is not theirs[name]} == differ_by_design


def test_no_store_request_and_no_codec_work_runs_on_the_event_loop_thread(recorder_codec):
    store = Recording(memory_store())

    async def main():
        loop_thread = threading.get_ident()
        root = await zfa.open_group(store, mode="w")
        a = await root.create_array(
            "a", shape=(30, 30), dtype="float32", chunks=(10, 10), compressors=[ThreadRecorder.name]
        )
        await a.setitem(..., np.ones((30, 30), dtype="float32"))
        await asyncio.gather(*(a.getitem((i, slice(None))) for i in range(30)))
        await a.vindex.setitem((np.array([1, 2]), np.array([3, 4])), 5.0)
        await a.append(np.zeros((10, 30), dtype="float32"))
        await a.resize(35, 30)
        await a.update_attributes({"k": "v"})
        [name async for name, _ in root.members()]
        await root.info_complete()
        await a.info_complete()
        again = await zfa.open_array(store, "a", mode="r")
        await again.getitem(...)
        return loop_thread

    loop_thread = asyncio.run(main())
    assert recorder_codec.threads and store.threads  # the instruments saw the work
    assert loop_thread not in recorder_codec.threads
    assert loop_thread not in store.threads


# --- cancellation ----------------------------------------------------------------------------


class Gate(WrapperStore):
    """Lets the first ``set_many`` through; holds every later one until ``release`` is set,
    telling the event loop (``reached``) when the first is held."""

    forwards_conditional_writes = True

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.batches = 0
        self.release = threading.Event()
        self.reached: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    def _set_many(self, items):
        self.batches += 1
        if self.batches >= 2 and self.reached is not None:
            loop, reached = self.reached
            loop.call_soon_threadsafe(reached.set)
            self.release.wait()
        self.inner.set_many(items)


def _cancel_at_second_batch(gate: Gate, start: Any) -> None:
    async def main():
        gate.reached = (asyncio.get_running_loop(), asyncio.Event())
        task = asyncio.ensure_future(start())
        await gate.reached[1].wait()  # the second batch of chunks is being stored
        task.cancel()
        await asyncio.sleep(0)  # the task takes its cancellation (sets the call's flag)
        gate.release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task

    asyncio.run(main())


def test_a_cancelled_write_stops_with_every_chunk_old_or_new(monkeypatch):
    # batches (the engine's groups on one thread) of two 64-byte chunks
    monkeypatch.setattr(chunk_io, "BATCH_BYTES", 128)
    gate = Gate(memory_store())
    arr = zf.create_array(gate, "a", shape=(160,), dtype="int32", chunks=(16,), threads=1, compressors=None)
    arr[...] = 1
    gate.batches = 0

    async def start():
        a = await zfa.open_array(gate, "a", threads=1)
        await a.setitem(..., np.arange(160, dtype="int32"))

    _cancel_at_second_batch(gate, start)
    after = zf.open_array(gate, "a", mode="r")[...].reshape(10, 16)
    new = [bool((chunk == np.arange(16 * i, 16 * (i + 1))).all()) for i, chunk in enumerate(after)]
    old = [bool((chunk == 1).all()) for chunk in after]
    assert all(n or o for n, o in zip(new, old))  # every chunk whole: old or new
    # the first two batches were stored (the second was held, not stopped), nothing after
    assert new == [True] * 4 + [False] * 6


def test_a_cancelled_append_keeps_the_old_shape(monkeypatch):
    monkeypatch.setattr(chunk_io, "BATCH_BYTES", 128)
    gate = Gate(memory_store())
    arr = zf.create_array(gate, "a", shape=(16,), dtype="int32", chunks=(16,), threads=1, compressors=None)
    arr[...] = 1
    gate.batches = 0

    async def start():
        a = await zfa.open_array(gate, "a", threads=1)
        await a.append(np.arange(160, dtype="int32"))

    _cancel_at_second_batch(gate, start)
    after = zf.open_array(gate, "a", mode="r")
    assert after.shape == (16,)
    np.testing.assert_array_equal(after[...], np.ones(16, dtype="int32"))
    # what the append wrote beyond the old shape was removed again
    assert sorted(after.stored_chunks()) == [(0,)]


# --- the example service --------------------------------------------------------------------


def test_the_example_service_serves_concurrent_slice_requests():
    import importlib.util
    from pathlib import Path

    from aiohttp.test_utils import TestClient, TestServer

    source = Path(__file__).resolve().parents[1] / "examples" / "async_service.py"
    spec = importlib.util.spec_from_file_location("async_service_example", source)
    service = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(service)
    store = memory_store()
    data = np.arange(50 * 4, dtype="int64").reshape(50, 4)
    zf.create_array(store, "a", shape=data.shape, dtype=data.dtype, chunks=(5, 4))[...] = data

    async def main():
        app = service.make_app(await zfa.open_array(store, "a", mode="r"))
        async with TestClient(TestServer(app)) as client:

            async def get(url):
                response = await client.get(url)
                return response.status, await response.json() if response.status == 200 else None

            answers = await asyncio.gather(*(get(f"/rows/{i}/{i + 3}") for i in range(40)))
            bad, _ = await get("/rows/10/99")
            return answers, bad, await get("/info")

    answers, bad, (_, info) = asyncio.run(main())
    for i, (status, body) in enumerate(answers):
        assert status == 200 and body["values"] == data[i : i + 3].tolist()
    assert bad == 400
    assert info == {"shape": [50, 4], "dtype": "int64", "chunks": [5, 4]}
