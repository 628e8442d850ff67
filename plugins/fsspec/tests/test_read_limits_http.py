"""A hostile web server (127.0.0.1) cannot make a read hold more than the limit of the
key being read (issue #41): a body that never ends, or one that declares a huge
length, for a metadata document stops at ``config.max_document_bytes`` with a
:class:`DocumentTooLargeError`, and for a chunk at ``config.max_chunk_bytes`` with a
:class:`ResourceLimitError`, each naming the key and the setting, with memory bounded
by a few times the limit (measured with tracemalloc), within the time it takes to
receive the limit."""

from __future__ import annotations

import http.server
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import zarrforge as zf
import zarrforge_fsspec  # noqa: F401
from zarrforge.errors import DocumentTooLargeError, ResourceLimitError
from zarrforge_fsspec import FsspecStore

MiB = 1 << 20
LIMIT = 2 * MiB
# a read holds the limit and a piece; detecting the format reads a few documents at once
# (v2's .zarray, .zgroup and .zattrs)
MOST = 6 * LIMIT
PIECE = bytes(64 << 10)
SAFETY = 512 * MiB  # the most the server ever sends (so an unbounded reader fails, slowly)
OPTIONS = {"request_timeout": 10, "max_retries": 0, "deadline": 30}


def _array_document() -> bytes:
    array = zf.create_array(None, shape=(16,), chunks=(16,), dtype="uint8", compressors=None)
    return array.store.get("zarr.json")


class HostileHandler(http.server.BaseHTTPRequestHandler):
    """``/endless/...``: a body without a length that never ends; ``/declared/...``: a
    length of a terabyte, then the same; ``/array/zarr.json``: a real array document,
    whose chunks are endless."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.endswith("/array/zarr.json"):
            document = _array_document()
            self.send_response(200)
            self.send_header("Content-Length", str(len(document)))
            self.end_headers()
            self.wfile.write(document)
            return
        self.send_response(200)  # whatever Range asked for
        if self.path.startswith("/declared/"):
            self.send_header("Content-Length", str(1 << 40))
        self.end_headers()  # HTTP/1.0 without a length: the body ends when the connection does
        sent = 0
        try:
            while sent < SAFETY:
                self.wfile.write(PIECE)
                sent += len(PIECE)
        except OSError:
            pass  # the reader hung up: what it should do


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), HostileHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _measured(action: Callable[[], Any]) -> tuple[BaseException | None, int, float]:
    """What ``action`` raised, the most memory Python held meanwhile, and the seconds (of
    the second run: the first imports what the reads need, which counts as allocated)."""
    try:
        action()
    except Exception:  # noqa: BLE001  # measured below
        pass
    tracemalloc.start()
    started = time.monotonic()
    try:
        try:
            action()
        except BaseException as exc:  # noqa: BLE001  # returned to the test
            return exc, tracemalloc.get_traced_memory()[1], time.monotonic() - started
        return None, tracemalloc.get_traced_memory()[1], time.monotonic() - started
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("route", ["endless", "declared"])
def test_an_endless_document_body_stops_at_max_document_bytes(hostile, route):
    url = f"{hostile}/{route}"
    with zf.config.set(max_document_bytes=LIMIT):
        error, peak, seconds = _measured(lambda: zf.open_group(url, mode="r", storage_options=OPTIONS))
    assert isinstance(error, DocumentTooLargeError), repr(error)
    assert error.key == "zarr.json" and error.limit == LIMIT
    assert "max_document_bytes" in str(error) and "zarrforge.config.set(" in str(error)
    assert peak < MOST, peak
    assert seconds < 10


@pytest.mark.parametrize("route", ["endless", "declared"])
def test_an_endless_chunk_body_stops_at_max_chunk_bytes(hostile, route):
    array = zf.open_array(f"{hostile}/{route}/array", mode="r", storage_options=OPTIONS)
    with zf.config.set(max_chunk_bytes=LIMIT):
        error, peak, seconds = _measured(lambda: array[...])
    assert isinstance(error, ResourceLimitError), repr(error)
    assert "'c/0'" in str(error) and "max_chunk_bytes" in str(error)
    assert peak < MOST, peak
    assert seconds < 10


def test_every_read_path_of_the_store_is_bounded(hostile):
    from zarrforge.abc.store import ByteRange

    store = FsspecStore.from_url(f"{hostile}/endless", **OPTIONS)
    with zf.config.set(max_chunk_bytes=LIMIT, max_document_bytes=LIMIT // 2):
        for read in (
            lambda: store.get("c/0"),
            lambda: store.get("c/0", ByteRange(offset=5)),
            lambda: store.get_many([("c/1", None), ("zarr.json", None)]),
            lambda: store.get_ranges("c/0", [None, ByteRange(length=5)]),
        ):
            error, peak, _ = _measured(read)
            assert isinstance(error, (ResourceLimitError, DocumentTooLargeError)), repr(error)
            assert peak < MOST, peak
        # a range the server ignores is cut where it ends: the body beyond is not read
        assert store.get("c/0", ByteRange(offset=10, length=6)) == bytes(6)
