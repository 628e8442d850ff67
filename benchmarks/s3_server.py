"""A local S3 (moto's server) with a latency proxy in front, for the S3 benchmarks.

:func:`latency_s3` starts moto's server and a proxy, both on 127.0.0.1 and each in a
process of its own (so neither takes the measured engine's GIL). The proxy delays every
request by ``latency_ms`` before forwarding it, the way a real object store's round trip
does. moto spends several milliseconds of CPU per request, which on a 2-core machine
would swamp the latency being studied, so the proxy answers a repeated GET of an
unchanged object (same path and range) from memory; any other request clears that
memory. It yields the proxy's endpoint and moto's own (for setting up without latency),
with AWS credentials set in the environment for every client. Nothing leaves the
loopback interface.
"""

from __future__ import annotations

import contextlib
import http.client
import http.server
import multiprocessing
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

HOP_HEADERS = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"}
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
    "NO_PROXY": "127.0.0.1,localhost",
}


def serve_latency_proxy(target_port: int, latency: float, ports: multiprocessing.Queue) -> None:
    """Run (in a child process) a proxy on 127.0.0.1 forwarding to ``target_port``."""
    cache: dict[tuple[str, str], tuple[int, str, list, bytes]] = {}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # send at once: with Nagle's algorithm on, a client that delays its ACKs (curl,
        # reqwest: tensorstore, obstore) waited 40 ms for every response body
        disable_nagle_algorithm = True

        def log_message(self, *args: object) -> None:
            return None

        def _upstream(self, body: bytes | None) -> tuple[int, str, list, bytes]:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
            upstream = http.client.HTTPConnection("127.0.0.1", target_port, timeout=60)
            upstream.request(self.command, self.path, body=body, headers=headers)
            response = upstream.getresponse()
            answer = (response.status, response.reason, response.getheaders(), response.read())
            upstream.close()
            return answer

        def _forward(self) -> None:
            time.sleep(latency)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            key = (self.path, self.headers.get("Range", ""))
            if self.command == "GET":
                with lock:
                    answer = cache.get(key)
                if answer is None:
                    answer = self._upstream(body)
                    if answer[0] in (200, 206):
                        with lock:
                            cache[key] = answer
            else:
                with lock:
                    cache.clear()
                answer = self._upstream(body)
            status, reason, headers, payload = answer
            self.send_response(status, reason)
            for name, value in headers:
                if name.lower() not in HOP_HEADERS and name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _forward

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ports.put(server.server_address[1])
    server.serve_forever()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start_moto() -> tuple[subprocess.Popen, int]:
    """moto's server in a process of its own (in this one its request handling would take
    the GIL from the engine being measured), once it answers."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server, port
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"moto's server exited with {server.returncode}") from None
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("moto's server did not start within 60 s")


@contextlib.contextmanager
def latency_s3(latency_ms: float) -> Iterator[tuple[str, str]]:
    """``(proxy endpoint, moto endpoint)`` of a fresh local S3 (see the module docstring)."""
    os.environ.update(CREDENTIALS)
    moto_server, moto_port = _start_moto()
    context = multiprocessing.get_context("spawn")
    ports = context.Queue()
    proxy = context.Process(
        target=serve_latency_proxy, daemon=True, args=(moto_port, latency_ms / 1000, ports)
    )
    proxy.start()
    try:
        yield f"http://127.0.0.1:{ports.get(timeout=30)}", f"http://127.0.0.1:{moto_port}"
    finally:
        proxy.terminate()
        moto_server.terminate()
        moto_server.wait(10)
