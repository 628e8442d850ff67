"""Local servers for the zarrforge-fsspec tests. Nothing here talks to any address but 127.0.0.1.

* ``moto_endpoint`` (session): a moto S3 server on a free port of 127.0.0.1
  (``zarrforge.testing.s3_server``: conditional writes atomic as on S3), with
  dummy AWS credentials in the environment and instance metadata off.
* ``s3_options`` / ``s3_url``: s3fs options pointing at it, and a new bucket
  per test (``s3://<bucket>``).
* ``http_server`` (session): a static file server on 127.0.0.1 serving a
  temporary directory, answering byte ranges (206/416) like real static
  hosts, with no directory listings, and able to inject faults (``fail``
  the next requests for a path with a status) and count requests.
* ``black_hole``: a TCP port that accepts connections and never answers.
* ``closed_port``: a port nothing listens on.
"""

from __future__ import annotations

import http.server
import os
import re
import socket
import threading
import uuid
from pathlib import Path

import pytest

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


@pytest.fixture(scope="session")
def aws_env():
    """Dummy credentials, a region, no instance metadata, no proxy for 127.0.0.1."""
    import s3fs

    saved = {name: os.environ.get(name) for name in S3_ENV}
    os.environ.update(S3_ENV)
    try:
        yield
    finally:
        import s3fs

        s3fs.S3FileSystem.clear_instance_cache()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="session")
def moto_endpoint(aws_env):
    from zarrforge.testing.s3_server import loopback_s3_server

    with loopback_s3_server() as endpoint:
        yield endpoint


def s3_options_for(endpoint: str, **extra) -> dict:
    return {"key": "testing", "secret": "testing", "endpoint_url": endpoint, **extra}


@pytest.fixture
def s3_options(moto_endpoint):
    return s3_options_for(moto_endpoint)


@pytest.fixture
def s3_url(s3_options):
    import s3fs

    bucket = f"zf-{uuid.uuid4().hex[:16]}"
    s3fs.S3FileSystem(**s3_options).mkdir(bucket)
    return f"s3://{bucket}"


# --- a static HTTP server -------------------------------------------------------------

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class StaticHandler(http.server.BaseHTTPRequestHandler):
    """GET/HEAD of files below the server's root, with single byte ranges."""

    server: StaticServer

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def do_GET(self) -> None:
        self._serve(body=True)

    def _serve(self, body: bool) -> None:
        from urllib.parse import unquote, urlsplit

        relative = unquote(urlsplit(self.path).path).lstrip("/")
        status = self.server.record(relative)
        if status is not None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.send_header("Retry-After", "0")
            self.end_headers()
            return
        path = (self.server.root / relative).resolve()
        if self.server.root not in path.parents or not path.is_file():
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = path.read_bytes()
        size = len(data)
        status, headers = 200, {}
        wanted = self.headers.get("Range")
        match = _RANGE.match(wanted or "")
        if wanted and match and (match.group(1) or match.group(2)):
            first, last = match.groups()
            if first == "":
                start, stop = max(0, size - int(last)), size
            else:
                start = int(first)
                stop = size if last == "" else min(size, int(last) + 1)
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status, data = 206, data[start:stop]
            headers["Content-Range"] = f"bytes {start}-{stop - 1}/{size}"
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Accept-Ranges", "bytes")
        if self.server.validators:  # as nginx names a file's version
            stat = path.stat()
            if self.server.validators != "last-modified":
                self.send_header("ETag", f'"{stat.st_mtime_ns:x}-{size:x}"')
            self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)


class StaticServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: Path) -> None:
        super().__init__(("127.0.0.1", 0), StaticHandler)
        self.root = root.resolve()
        self.lock = threading.Lock()
        self.requests: dict[str, int] = {}
        self.faults: dict[str, list[int]] = {}
        # True: ETag and Last-Modified on every answer; "last-modified": that alone; False: none
        self.validators: bool | str = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def fail(self, relative: str, *statuses: int) -> None:
        """Answer the next requests for ``relative`` with these statuses, in order."""
        with self.lock:
            self.faults.setdefault(relative, []).extend(statuses)

    def record(self, relative: str) -> int | None:
        with self.lock:
            self.requests[relative] = self.requests.get(relative, 0) + 1
            pending = self.faults.get(relative)
            return pending.pop(0) if pending else None

    def new_site(self, values: dict[str, bytes] | None = None) -> tuple[Path, str]:
        """A fresh directory below the root holding ``values`` (key -> bytes), and its URL."""
        name = uuid.uuid4().hex[:12]
        directory = self.root / name
        directory.mkdir()
        for key, value in (values or {}).items():
            path = directory.joinpath(*key.split("/"))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(value)
        return directory, f"{self.url}/{name}"


@pytest.fixture(scope="session")
def http_server(tmp_path_factory):
    server = StaticServer(tmp_path_factory.mktemp("www"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# --- unreachable endpoints --------------------------------------------------------------


@pytest.fixture
def black_hole():
    """``http://127.0.0.1:<port>`` that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.1)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()


@pytest.fixture
def closed_port():
    """``http://127.0.0.1:<port>`` where nothing listens (connections are refused)."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return f"http://127.0.0.1:{port}"
