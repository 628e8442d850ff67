"""Reading many small chunks from S3 with a per-request latency: batched vs one at a time.

Starts a moto S3 server on 127.0.0.1 and, in front of it, a proxy on 127.0.0.1 (in a
process of its own) that delays every request by ``--latency`` milliseconds (default
20), the way a real object store's round trip does. moto spends several milliseconds
of CPU per request, which on a 2-core machine would swamp the latency being studied,
so the proxy answers a repeated GET of an unchanged object from memory (any write
clears that memory): the server side then costs what a real object store costs the
client, a round trip. An array of ``--chunks`` small chunks (default 200)
is written once, then read three ways through the proxy:

* zarrforge, the whole array in one call: the fsspec store's ``get_many`` fetches all
  chunk keys concurrently;
* zarrforge, one chunk per call (``a.blocks[i]``), one round trip after another;
* zarr-python 3 (its own fsspec store), the whole array in one call.

Prints seconds (best of ``--repeat``) and the ratios, and writes JSON to
``benchmarks/results/s3_latency.json``. Run: ``make bench-s3`` or
``python benchmarks/s3_latency.py [--latency 20] [--chunks 200] [--repeat 3]``.
Nothing leaves the loopback interface.
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import json
import multiprocessing
import os
import platform
import threading
import time
from pathlib import Path

import numpy as np

HOP_HEADERS = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"}


def serve_latency_proxy(target_port: int, latency: float, ports: "multiprocessing.Queue") -> None:
    """Run (in a child process) a proxy on 127.0.0.1 forwarding to ``target_port``."""
    cache: dict[tuple[str, str], tuple[int, str, list, bytes]] = {}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            return None

        def _upstream(self, body: bytes | None) -> tuple[int, str, list, bytes]:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
            upstream = http.client.HTTPConnection("127.0.0.1", target_port, timeout=30)
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


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=20.0, help="milliseconds per request")
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--zarr-connections", type=int, default=0,
                        help="botocore connection pool for zarr-python (0: its default)")
    parser.add_argument("--output", default=str(Path(__file__).parent / "results" / "s3_latency.json"))
    args = parser.parse_args()

    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing",
                      AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true",
                      NO_PROXY="127.0.0.1,localhost")
    import boto3
    import moto.server
    import zarr
    from zarr.storage import FsspecStore as ZarrFsspecStore

    import zarrforge as zf

    moto_server = moto.server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto_server.start()
    _, moto_port = moto_server.get_host_and_port()
    context = multiprocessing.get_context("spawn")
    ports = context.Queue()
    proxy = context.Process(target=serve_latency_proxy, args=(moto_port, args.latency / 1000, ports),
                            daemon=True)
    proxy.start()
    endpoint = f"http://127.0.0.1:{ports.get(timeout=30)}"
    try:
        boto3.client("s3", endpoint_url=f"http://127.0.0.1:{moto_port}").create_bucket(Bucket="bench")
        # zarrforge's store raises botocore's connection pool (10 by default) to its own
        # concurrency; zarr-python keeps the default unless told (--zarr-connections).
        options = {"client_kwargs": {"endpoint_url": endpoint}, "anon": False,
                   "skip_instance_cache": True}
        zarr_options = dict(options)
        if args.zarr_connections:
            zarr_options["config_kwargs"] = {"max_pool_connections": args.zarr_connections}
        url = "s3://bench/latency.zarr"
        n = args.chunks
        values = np.arange(n * 64, dtype="int32").reshape(n, 64)
        a = zf.create_array(url, shape=values.shape, dtype="int32", chunks=(1, 64),
                            compressors=None, storage_options=options)
        a[...] = values
        reader = zf.open_array(url, storage_options=options)
        assert np.array_equal(reader[...], values)

        def one_at_a_time() -> None:
            for i in range(n):
                reader.blocks[i]

        z = zarr.open_array(ZarrFsspecStore.from_url(url, storage_options=zarr_options,
                                                     read_only=True), mode="r")
        assert np.array_equal(z[...], values)
        reader[...], z[...], one_at_a_time()  # warm the proxy's memory of the objects
        results = {
            "zarrforge batched": best_of(args.repeat, lambda: reader[...]),
            "zarrforge one at a time": best_of(args.repeat, one_at_a_time),
            "zarr-python batched": best_of(args.repeat, lambda: z[...]),
        }
    finally:
        proxy.terminate()
        moto_server.stop()

    speedup = results["zarrforge one at a time"] / results["zarrforge batched"]
    vs_zarr = results["zarrforge batched"] / results["zarr-python batched"]
    print(f"{n} chunks, {args.latency:g} ms per request, best of {args.repeat}")
    for name, seconds in results.items():
        print(f"  {name:<26} {seconds:8.3f} s")
    print(f"  batched vs one at a time: {speedup:.1f}x faster")
    print(f"  zarrforge / zarr-python (batched): {vs_zarr:.2f}")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps({
        "date": time.strftime("%Y-%m-%d"), "machine": platform.machine(), "cpus": os.cpu_count(),
        "python": platform.python_version(), "chunks": n, "latency_ms": args.latency,
        "repeat": args.repeat, "zarr_connections": args.zarr_connections or "default",
        "seconds": results, "batched_speedup": speedup,
        "zarrforge_over_zarr_python": vs_zarr,
        "command": "python benchmarks/s3_latency.py " + " ".join(
            f"--{k} {v}" for k, v in (("latency", args.latency), ("chunks", n), ("repeat", args.repeat),
                                      ("zarr-connections", args.zarr_connections))),
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
