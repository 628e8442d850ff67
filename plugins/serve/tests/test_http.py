"""The HTTP behaviour readers rely on, against a real server on 127.0.0.1.

Documents and chunks, byte ranges (one, suffix, past the end, several, If-Range), HEAD,
entity tags and 304, 404 for what is absent, 400 for paths that could leave the tree,
405 for writes, CORS by origin, compressed JSON, one-line 5xx for source failures with
the server still answering, symbolic links refused, and requests answered off the event
loop (counted with a barrier that only opens when several are in flight at once).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.store import WrapperStore
from zarrforge_serve import TranslationOptions
from zarrforge_serve.testing import request


@pytest.fixture
def v3_tree(tmp_path):
    root = tmp_path / "v3.zarr"
    group = zf.open_group(str(root), mode="w")
    group.attrs["title"] = "served"
    plain = group.create_array("plain", shape=(40, 30), chunks=(10, 10), dtype="int32", fill_value=-1)
    plain[:30] = np.arange(900, dtype="int32").reshape(30, 30)
    sharded = group.create_array("sharded", shape=(40, 40), chunks=(10, 10), shards=(20, 20), dtype="float64")
    sharded[:] = np.linspace(0, 1, 1600).reshape(40, 40)
    group.create_group("sub").create_array("x", shape=(5,), chunks=(2,), dtype="uint8")[:] = [1, 2, 3, 4, 5]
    return root


@pytest.fixture
def v2_zlib(tmp_path):
    root = tmp_path / "v2.zarr"
    arr = zf.create_array(
        str(root),
        shape=(12, 9),
        chunks=(5, 5),
        dtype="<i2",
        zarr_format=2,
        compressors=[{"id": "zlib", "level": 1}],
    )
    arr[:10] = np.arange(90, dtype="<i2").reshape(10, 9)
    return root


def test_documents_are_translated_compressed_and_tagged(serve, http, v3_tree):
    url = serve.start(str(v3_tree))
    status, headers, body = http("GET", url + "zarr.json", {"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert headers["content-type"].startswith("application/json")
    document = json.loads(gzip.decompress(body))
    assert document["node_type"] == "group" and document["attributes"] == {"title": "served"}
    members = document["consolidated_metadata"]["metadata"]
    assert sorted(members) == ["plain", "sharded", "sub", "sub/x"]
    assert members["sub"]["consolidated_metadata"]["metadata"] == {}
    status, headers2, _ = http("GET", url + "zarr.json", {"If-None-Match": headers["etag"]})
    assert status == 304 and headers2["etag"] == headers["etag"]
    status, _, body = http("GET", url + "sub/x/zarr.json")
    assert status == 200 and json.loads(body)["shape"] == [5]


def test_an_irregular_grid_is_served_regular_an_empty_axis_included(serve, http, tmp_path):
    # the largest chunk along each axis; an axis of length 0 has none, and gets 1
    rectilinear = {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": [[], [1, 3]]}}
    source = tmp_path / "irregular.zarr"
    zf.create_array(str(source), shape=(0, 4), dtype="int8", chunks=rectilinear)
    url = serve.start(str(source))
    status, _, body = http("GET", url + "zarr.json")
    assert status == 200
    assert json.loads(body)["chunk_grid"]["configuration"]["chunk_shape"] == [1, 3]


def test_a_passed_through_chunk_is_the_stored_bytes_with_the_stores_version(serve, http, v3_tree):
    url = serve.start(str(v3_tree))
    stored = (v3_tree / "plain" / "c" / "1" / "2").read_bytes()
    status, headers, body = http("GET", url + "plain/c/1/2")
    assert status == 200 and body == stored
    assert headers["etag"] and headers["accept-ranges"] == "bytes"
    assert http("GET", url + "plain/c/1/2", {"If-None-Match": headers["etag"]})[0] == 304
    zf.open_array(str(v3_tree), "plain")[10:20, 20:30] = 7  # a new version of that chunk
    status, changed, body = http("GET", url + "plain/c/1/2", {"If-None-Match": headers["etag"]})
    assert status == 200 and changed["etag"] != headers["etag"]
    assert body == (v3_tree / "plain" / "c" / "1" / "2").read_bytes()


def test_byte_ranges(serve, http, v3_tree):
    url = serve.start(str(v3_tree))
    shard = (v3_tree / "sharded" / "c" / "0" / "1").read_bytes()
    size = len(shard)
    status, headers, body = http("GET", url + "sharded/c/0/1", {"Range": "bytes=4-19"})
    assert (status, body) == (206, shard[4:20])
    assert headers["content-range"] == f"bytes 4-19/{size}"
    status, headers, body = http("GET", url + "sharded/c/0/1", {"Range": "bytes=-68"})  # the index
    assert (status, body, headers["content-range"]) == (
        206,
        shard[-68:],
        f"bytes {size - 68}-{size - 1}/{size}",
    )
    status, headers, _ = http("GET", url + "sharded/c/0/1", {"Range": f"bytes={size}-"})
    assert (status, headers["content-range"]) == (416, f"bytes */{size}")
    status, headers, body = http("GET", url + "sharded/c/0/1", {"Range": "bytes=0-1,5-6"})
    assert (status, body) == (200, shard)
    etag = http("GET", url + "sharded/c/0/1")[1]["etag"]
    assert http("GET", url + "sharded/c/0/1", {"Range": "bytes=0-3", "If-Range": etag})[2] == shard[:4]
    status, _, body = http("GET", url + "sharded/c/0/1", {"Range": "bytes=0-3", "If-Range": '"stale"'})
    assert (status, body) == (200, shard)


def test_head_answers_what_get_would_without_the_body(serve, http, v3_tree):
    url = serve.start(str(v3_tree))
    _, got, body = http("GET", url + "plain/c/0/0")
    status, headers, nothing = http("HEAD", url + "plain/c/0/0")
    assert (status, nothing) == (200, b"")
    assert int(headers["content-length"]) == len(body) and headers["etag"] == got["etag"]
    assert http("HEAD", url + "plain/c/3/0")[0] == 404


def test_what_is_absent_is_404(serve, http, v3_tree, v2_zlib):
    url = serve.start(str(v3_tree))
    for path in (
        "plain/c/3/0",
        "plain/c/4/0",
        "plain/c/0",
        "plain/c/0/0/0",
        "nope/zarr.json",
        ".zgroup",
        "sub/c/0",
    ):
        assert http("GET", url + path)[0] == 404, path
    reencoded = serve.start(str(v2_zlib))
    # the last rows were never written: the re-encoded chunk holds only fill values
    assert http("GET", reencoded + "c/2/0")[0] == 404
    assert http("GET", reencoded + "c/0/0")[0] == 200


@pytest.mark.parametrize(
    "target",
    [
        "/../zarr.json",
        "/plain/../zarr.json",
        "/plain/%2e%2e/zarr.json",
        "/plain/..%5Cx/zarr.json",
        "/a/%00/zarr.json",
        "//zarr.json",
    ],
)
def test_paths_that_could_leave_the_tree_are_400(serve, http, v3_tree, target):
    url = serve.start(str(v3_tree))
    status, _, body = http("GET", url, path=target)
    assert status == 400, body
    assert body.count(b"\n") == 1 and b"served" not in body


def test_the_server_is_read_only(serve, http, v3_tree):
    url = serve.start(str(v3_tree))
    before = sorted(p.name for p in (v3_tree / "plain").rglob("*"))
    for method in ("PUT", "POST", "DELETE", "PATCH"):
        status, headers, _ = http(method, url + "plain/c/0/0")
        assert status == 405 and "GET" in headers["allow"]
    assert sorted(p.name for p in (v3_tree / "plain").rglob("*")) == before


def test_cors_headers_go_to_the_configured_origins_only(serve, http, v3_tree):
    closed = serve.start(str(v3_tree))
    _, headers, _ = http("GET", closed + "zarr.json", {"Origin": "https://viewer.example"})
    assert "access-control-allow-origin" not in headers
    url = serve.start(str(v3_tree), cors_origins=["https://viewer.example"])
    _, headers, _ = http("GET", url + "plain/c/0/0", {"Origin": "https://viewer.example"})
    assert headers["access-control-allow-origin"] == "https://viewer.example"
    assert "Content-Range" in headers["access-control-expose-headers"]
    assert "Origin" in headers["vary"]
    _, headers, _ = http("GET", url + "zarr.json", {"Origin": "https://other.example"})
    assert "access-control-allow-origin" not in headers
    status, headers, _ = http(
        "OPTIONS",
        url + "sharded/c/0/0",
        {
            "Origin": "https://viewer.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "range",
        },
    )
    assert status == 204 and "Range" in headers["access-control-allow-headers"]
    everyone = serve.start(str(v3_tree), cors_origins=["*"])
    assert (
        http("GET", everyone + "zarr.json", {"Origin": "https://x.example"})[1]["access-control-allow-origin"]
        == "*"
    )


def test_a_corrupt_source_chunk_is_a_one_line_500_and_the_server_goes_on(serve, http, v2_zlib):
    url = serve.start(str(v2_zlib))
    (v2_zlib / "0.1").write_bytes(b"not zlib at all")
    status, _, body = http("GET", url + "c/0/1")
    assert status == 500
    assert body.count(b"\n") == 1 and b"Traceback" not in body
    assert b"0.1" in body  # the error names the source chunk
    assert http("GET", url + "c/0/0")[0] == 200


def test_symbolic_links_in_a_local_source_are_refused(serve, http, v3_tree, tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(b"private bytes")
    chunk = v3_tree / "plain" / "c" / "0" / "0"
    chunk.unlink()
    chunk.symlink_to(secret)
    url = serve.start(str(v3_tree))
    status, _, body = http("GET", url + "plain/c/0/0")
    assert status == 502 and b"private" not in body
    assert b"link" in body
    followed = serve.start(str(v3_tree), storage_options={"links": "follow"})  # said so explicitly
    assert http("GET", followed + "plain/c/0/0")[2] == b"private bytes"


def test_a_chunk_too_large_to_re_encode_is_refused_with_its_size(serve, http, v2_zlib):
    url = serve.start(str(v2_zlib), options=TranslationOptions(max_chunk_bytes=16))
    status, _, body = http("GET", url + "c/0/0")
    assert status == 500 and b"50 decoded bytes" in body


class _Rendezvous(WrapperStore):
    """A slow store: chunk reads wait until ``parties`` of them are in flight at once."""

    def __init__(self, inner, parties):
        super().__init__(inner)
        self.barrier = threading.Barrier(parties, timeout=20)

    @property
    def capabilities(self):
        return dataclasses.replace(self.inner.capabilities, low_latency=False)

    def get(self, key, byte_range=None):
        if "/c/" in f"/{key}":
            self.barrier.wait()
        return super().get(key, byte_range)

    def get_versioned(self, key):
        if "/c/" in f"/{key}":
            self.barrier.wait()
        return super().get_versioned(key)


def test_requests_are_answered_on_worker_threads_at_once(serve, http):
    store = zf.storage.MemoryStore()
    arr = zf.create_array(store, shape=(8,), chunks=(1,), dtype="uint8")
    arr[:] = np.arange(1, 9, dtype="uint8")
    parties = 6
    url = serve.start(_Rendezvous(store, parties), threads=parties)
    # each read blocks until all six are in flight: only requests answered concurrently,
    # off the event loop, get through (one at a time, the barrier breaks after 20 s)
    with ThreadPoolExecutor(parties) as pool:
        answers = list(pool.map(lambda i: http("GET", f"{url}c/{i}"), range(parties)))
    assert [a[0] for a in answers] == [200] * parties


class _ThreadRecorder(WrapperStore):
    """Records the thread that reads each chunk."""

    def __init__(self, inner):
        super().__init__(inner)
        self.readers = []

    def get(self, key, byte_range=None):
        if "/c/" in f"/{key}":
            self.readers.append(threading.current_thread().name)
        return super().get(key, byte_range)


@pytest.mark.parametrize("fast_reads", [True, False])
def test_fast_stores_are_read_on_the_loop_once_the_array_is_known(serve, http, fast_reads):
    store = zf.storage.MemoryStore()
    zf.create_array(store, shape=(4,), chunks=(1,), dtype="uint8")[:] = [1, 2, 3, 4]
    recorder = _ThreadRecorder(store)
    assert recorder.capabilities.low_latency
    url = serve.start(recorder, fast_reads=fast_reads, warm=False)
    assert [http("GET", f"{url}c/{i}")[0] for i in range(4)] == [200] * 4
    on_pool = [name.startswith("zarrforge-serve") for name in recorder.readers]
    # the first request translates the array on a worker thread; the others are fast reads
    assert on_pool == [True] + [not fast_reads] * 3


def test_the_roots_document_is_built_before_any_request_and_once(serve, v3_tree, monkeypatch):
    from zarrforge_serve.hierarchy import ServedHierarchy

    builds = []
    original = ServedHierarchy.document_json

    def counting(self, path):
        builds.append(path)
        time.sleep(0.2)  # long enough for the requests below to meet the build in progress
        return original(self, path)

    monkeypatch.setattr(ServedHierarchy, "document_json", counting)
    url = serve.start(str(v3_tree))
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: request("GET", url + "zarr.json"), range(4)))
    assert [a[0] for a in answers] == [200] * 4
    assert len({a[2] for a in answers}) == 1
    assert builds == [""]  # by the warm-up, which the four requests waited for
    assert serve.last._building == {}


def test_requests_for_absent_documents_leave_nothing_behind(serve, http, v3_tree):
    url = serve.start(str(v3_tree))
    for i in range(50):
        assert http("GET", f"{url}nope{i}/zarr.json")[0] == 404
    assert serve.last._building == {}
    assert all(not path.startswith("nope") for path in serve.last._nodes)


def test_the_source_is_opened_read_only(serve, http, v3_tree):
    url = serve.start(str(v3_tree))
    stat = os.stat(v3_tree / "zarr.json")
    http("GET", url + "zarr.json")
    assert os.stat(v3_tree / "zarr.json").st_mtime_ns == stat.st_mtime_ns
    assert sorted(os.listdir(v3_tree)) == ["plain", "sharded", "sub", "zarr.json"]


def test_a_member_that_cannot_be_served_is_left_out_and_says_why(serve, http, v3_tree):
    document = json.loads((v3_tree / "plain" / "zarr.json").read_text())
    document["data_type"] = "no.such.type"
    (v3_tree / "plain" / "zarr.json").write_text(json.dumps(document))
    url = serve.start(str(v3_tree))
    status, _, body = http("GET", url + "zarr.json")
    assert status == 200
    assert sorted(json.loads(body)["consolidated_metadata"]["metadata"]) == ["sharded", "sub", "sub/x"]
    status, _, body = http("GET", url + "plain/zarr.json")
    assert status == 500 and body.count(b"\n") == 1
    assert b"no.such.type" in body and b"Traceback" not in body
    assert http("GET", url + "sharded/c/0/0")[0] == 200


def test_a_re_encoded_shard_read_by_ranges_is_encoded_once(serve, http, tmp_path, monkeypatch):
    from zarrforge_serve.translation import ServedArray

    encodes = []
    original = ServedArray.reencoded
    monkeypatch.setattr(
        ServedArray, "reencoded", lambda self, coords: encodes.append(coords) or original(self, coords)
    )
    root = tmp_path / "delta.zarr"
    arr = zf.create_array(
        str(root),
        shape=(8, 8),
        chunks=(2, 2),
        shards=(4, 4),
        dtype="int32",
        filters=[{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}],
    )
    arr[:] = np.arange(64, dtype="int32").reshape(8, 8)
    url = serve.start(str(root))
    assert not serve.last.node("").passthrough
    whole = http("GET", url + "c/0/1")[2]
    for header in ("bytes=-68", "bytes=0-9", "bytes=10-"):  # the index, then inner chunks
        status, _, part = http("GET", url + "c/0/1", {"Range": header})
        assert status == 206 and part in whole
    assert encodes == [(0, 1)]
    uncached = serve.start(str(root), cache_bytes=0)
    for _ in range(3):
        http("GET", uncached + "c/0/1", {"Range": "bytes=0-9"})
    assert encodes == [(0, 1)] * 4
