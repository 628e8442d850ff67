"""Fixtures of the command-line tests; nothing here talks to any address but 127.0.0.1.

* ``cli``: runs the installed ``zarrforge`` script in a subprocess and returns the
  completed process (``cli(*args, env=..., columns=...)``); no AWS settings of the
  caller's environment reach it, so credentials can only come from options.
* ``s3_endpoint`` (session): the S3 test server (``zarrforge.testing.s3_server``).
* ``http_site``: serves a fresh directory over plain HTTP on 127.0.0.1, as a static
  host does: GET and HEAD of files with byte ranges, no directory listings.
"""

from __future__ import annotations

import http.server
import os
import pathlib
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator

import pytest

SCRIPT = pathlib.Path(sys.executable).with_name("zarrforge")
_DROPPED = ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE", "COLUMNS")
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess]:
    def run(
        *args: str, env: dict[str, str] | None = None, columns: int | None = 200
    ) -> subprocess.CompletedProcess:
        full = {k: v for k, v in os.environ.items() if k not in _DROPPED and not k.startswith("AWS_")}
        full.update(
            {
                "AWS_EC2_METADATA_DISABLED": "true",
                "AWS_CONFIG_FILE": os.devnull,
                "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
                "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost",
            }
        )
        if columns is not None:
            full["COLUMNS"] = str(columns)
        full.update(env or {})
        return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=full, timeout=120)

    return run


@pytest.fixture(scope="session")
def s3_endpoint():
    from zarrforge.testing.s3_server import loopback_s3_server

    with loopback_s3_server() as endpoint:
        yield endpoint


class _SiteServer(http.server.ThreadingHTTPServer):
    """The server of ``http_site``: ``root`` is the directory it serves."""

    root: pathlib.Path


class _Files(http.server.BaseHTTPRequestHandler):
    """GET and HEAD of the files below the server's root, single byte ranges."""

    def log_message(self, *args: object) -> None:
        pass

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, body: bool) -> None:
        from urllib.parse import unquote, urlsplit

        assert isinstance(self.server, _SiteServer)
        root = self.server.root
        path = (root / unquote(urlsplit(self.path).path).lstrip("/")).resolve()
        if root not in path.parents or not path.is_file():  # directories are not listed
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = path.read_bytes()
        status, extra = 200, {}
        match = _RANGE.match(self.headers.get("Range") or "")
        if match and any(match.groups()):
            first, last = match.groups()
            start = max(0, len(data) - int(last)) if first == "" else int(first)
            stop = len(data) if first == "" or last == "" else min(len(data), int(last) + 1)
            extra["Content-Range"] = f"bytes {start}-{stop - 1}/{len(data)}"
            status, data = 206, data[start:stop]
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Accept-Ranges", "bytes")
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)


@pytest.fixture
def http_site(tmp_path: pathlib.Path) -> Iterator[tuple[pathlib.Path, str]]:
    """``(directory, url)``: what is written below ``directory`` is served at ``url``."""
    directory = tmp_path / "site"
    directory.mkdir()
    server = _SiteServer(("127.0.0.1", 0), _Files)
    server.daemon_threads = True
    server.root = directory.resolve()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield directory, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
