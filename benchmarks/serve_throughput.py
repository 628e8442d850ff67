"""``zarrforge serve`` against a plain static file server, 64 concurrent clients, one run.

Three measurements, each printed as a Markdown table for benchmarks/RESULTS.md:

1. **Pass-through chunks.** A 4096 x 4096 float32 Zarr v3 array, 256 x 256 chunks (256 KiB
   decoded), zstd level 1, written by zarrforge into a local directory. Served by
   ``zarrforge serve`` (which sends the stored bytes: the codecs are standard), by Python's
   ``http.server`` (a ``ThreadingHTTPServer``, a thread per connection, HTTP/1.1 keep-alive
   and a listen backlog of 1024) and, where ``nginx`` is on PATH, by nginx (two worker
   processes), each in a process of its own. A client process fetches every chunk ``--passes`` times with 64 requests in
   flight (aiohttp, 64 connections): MiB/s of chunk bytes, best of ``--repeat``, and the
   ratio zarrforge / each static server (the issue's target: at least 0.8).
2. **Re-encoded chunks.** The same values as Zarr v2 with zlib, which v3 readers cannot
   decode: every served chunk is decoded from zlib and encoded with zstd (the server's
   cache of re-encoded chunks off, so each request does the work). Beside it, the same
   decode and encode done in-process by ``zarrforge.copy`` into a v3 zstd array in
   memory, on all threads: "the speed of the codecs". Ratios: serving time / codec time, and
   the time re-encoding adds to serving (re-encoded minus passed through, the same number of
   chunks of the same values) / codec time: 1 is serving at the speed of the codecs. Both
   servers share the 2 cores with the client, which the in-process codecs do not; so the
   same ratio is also given in CPU seconds (the server process's user and system time,
   from ``/proc``, against the in-process copy's), which the sharing does not change.
3. **Time to first byte of a zarr.json** under a 10,000-member hierarchy (a v3 group of
   10,000 small arrays): a member's document and the root's (which carries all 10,000
   members inline), cold (the first request after the server starts) and warm, median of
   ``--repeat`` server starts.

Command: ``.venv/bin/python -m benchmarks.serve_throughput [--passes 2] [--repeat 3]`` (also
run by ``make bench`` and ``make bench-serve``; ``--side 512 --members 100`` is the quick
form tests/test_benchmarks.py runs). Every server must send every stored byte (checked). Never asserted by a test; timings are of
this machine (2 cores shared by server and client).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

SIDE = 4096
CHUNK = 256
CLIENTS = 64
MEMBERS = 10_000


def write_sources(base: Path) -> None:
    import zarrforge as zf

    rng = np.random.default_rng(0)
    values = np.cumsum(rng.normal(size=(SIDE, SIDE)).astype("f4"), axis=1)
    v3 = zf.create_array(
        str(base / "v3.zarr"),
        shape=(SIDE, SIDE),
        chunks=(CHUNK, CHUNK),
        dtype="f4",
        compressors=[{"name": "zstd", "configuration": {"level": 1}}],
    )
    v3[:] = values
    v2 = zf.create_array(
        str(base / "v2.zarr"),
        shape=(SIDE, SIDE),
        chunks=(CHUNK, CHUNK),
        dtype="<f4",
        zarr_format=2,
        compressors=[{"id": "zlib", "level": 1}],
    )
    v2[:] = values


def write_members(base: Path) -> None:
    import zarrforge as zf

    group = zf.open_group(str(base / "many.zarr"), mode="w")
    holder = group.create_group("m")
    for i in range(MEMBERS):
        holder.create_array(f"a{i:05d}", shape=(4,), chunks=(4,), dtype="int16")


def member_path() -> str:
    return f"/m/a{MEMBERS * 43 // 100:05d}/zarr.json"


def set_sizes(side: int, members: int) -> None:
    """The array's side and the hierarchy's members (smaller for the suite's quick run)."""
    global SIDE, MEMBERS
    if side % CHUNK or side <= 0 or members <= 0:
        raise SystemExit(f"--side must be a positive multiple of {CHUNK} and --members positive")
    SIDE, MEMBERS = side, members


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float = 120) -> None:
    """Wait until something listens on ``port`` of 127.0.0.1."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def zarrforge_server(source: Path, port: int, *extra: str) -> subprocess.Popen[bytes]:
    script = Path(sys.executable).with_name("zarrforge")
    return subprocess.Popen(
        [str(script), "serve", str(source), "--port", str(port), "--quiet", *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


# Python's threading file server with what a server under 64 clients needs: HTTP/1.1
# keep-alive (as nginx and zarrforge serve) and a listen backlog past socketserver's 5 (64
# clients connecting at once otherwise wait out SYN retransmissions)
STATIC_PYTHON = """
import functools, http.server, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 1024
Server(("127.0.0.1", int(sys.argv[1])), functools.partial(Handler, directory=sys.argv[2])).serve_forever()
"""


def static_servers() -> list[str]:
    """The static servers measured: Python's, and nginx where it is on PATH."""
    return ["http.server", *(["nginx"] if shutil.which("nginx") else [])]


def static_server(kind: str, root: Path, port: int, scratch: Path) -> tuple[subprocess.Popen[bytes], str]:
    nginx = shutil.which("nginx")
    if kind == "nginx" and nginx:
        conf = scratch / "nginx.conf"
        conf.write_text(
            # as root nginx's workers would drop to a user that cannot read the scratch tree
            ("user root;\n" if os.geteuid() == 0 else "")
            + f"daemon off; worker_processes 2; pid {scratch}/nginx.pid; error_log {scratch}/error.log;\n"
            f"events {{ worker_connections 1024; }}\n"
            f"http {{ access_log off; client_body_temp_path {scratch}; proxy_temp_path {scratch};\n"
            f"  fastcgi_temp_path {scratch}; uwsgi_temp_path {scratch}; scgi_temp_path {scratch};\n"
            f"  server {{ listen 127.0.0.1:{port}; root {root}; }} }}\n"
        )
        return subprocess.Popen([nginx, "-c", str(conf)], stderr=subprocess.DEVNULL), "nginx"
    process = subprocess.Popen(
        [sys.executable, "-c", STATIC_PYTHON, str(port), str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return process, "http.server (ThreadingHTTPServer, HTTP/1.1)"


CLIENT = """
import asyncio, json, sys, time
import aiohttp
base, keys, passes, clients = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
async def main():
    queue = asyncio.Queue()
    for _ in range(passes):
        for key in keys:
            queue.put_nowait(key)
    total = 0
    async def worker(session):
        nonlocal total
        while not queue.empty():
            key = queue.get_nowait()
            async with session.get(base + key) as response:
                body = await response.read()
                if response.status != 200:
                    raise SystemExit(f"{key}: {response.status}")
                total += len(body)
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector) as session:
        started = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(clients)))
        print(json.dumps({"seconds": time.perf_counter() - started, "bytes": total}))
asyncio.run(main())
"""


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fetch_all(
    port: int, prefix: str, keys: list[str], passes: int, server_pid: int | None = None
) -> dict[str, float]:
    cpu = cpu_seconds(server_pid) if server_pid else 0.0
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            CLIENT,
            f"http://127.0.0.1:{port}/{prefix}",
            json.dumps(keys),
            str(passes),
            str(CLIENTS),
        ],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(f"the client failed against port {port}: {out.stderr[-2000:]}")
    result = dict(json.loads(out.stdout))
    if server_pid:  # the server's CPU time while it answered this client
        result["server_cpu"] = cpu_seconds(server_pid) - cpu
    return result


def chunk_keys() -> list[str]:
    n = SIDE // CHUNK
    return [f"c/{i}/{j}" for i in range(n) for j in range(n)]


def throughput(base: Path, passes: int, repeat: int) -> dict[str, Any]:
    keys = chunk_keys()
    results: dict[str, Any] = {}
    port = free_port()
    server = zarrforge_server(base / "v3.zarr", port)
    try:
        wait_for_port(port)  # the server binds once SOURCE is open
        fetch_all(port, "", keys, 1)  # warm: the node translated, the files in the page cache
        runs = [fetch_all(port, "", keys, passes, server.pid) for _ in range(repeat)]
        results["zarrforge"] = min(runs, key=lambda r: r["seconds"])
    finally:
        server.terminate()
        server.wait()
    for kind in static_servers():
        port = free_port()
        with tempfile.TemporaryDirectory() as scratch:
            static, label = static_server(kind, base / "v3.zarr", port, Path(scratch))
            try:
                wait_for_port(port)
                fetch_all(port, "", keys, 1)
                runs = [fetch_all(port, "", keys, passes) for _ in range(repeat)]
                results[kind] = {**min(runs, key=lambda r: r["seconds"]), "label": label}
            finally:
                static.terminate()
                static.wait()
    return results


def reencoding(base: Path, repeat: int) -> dict[str, Any]:
    import zarrforge as zf

    keys = chunk_keys()
    port = free_port()
    server = zarrforge_server(base / "v2.zarr", port, "--cache-bytes", "0")
    try:
        wait_for_port(port)  # the server binds once SOURCE is open
        runs = [fetch_all(port, "", keys, 1, server.pid) for _ in range(repeat)]
        served = min(runs, key=lambda r: r["seconds"])
    finally:
        server.terminate()
        server.wait()
    source = zf.open_array(str(base / "v2.zarr"), mode="r")
    codec_seconds, codec_cpu = [], []
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        zf.copy(
            source,
            zf.storage.MemoryStore(),
            zarr_format=3,
            compressors=[{"name": "zstd", "configuration": {"level": 3}}],
        )
        codec_seconds.append(time.perf_counter() - started)
        codec_cpu.append(time.process_time() - cpu)
    return {"served": served, "codecs": min(codec_seconds), "codec_cpu": min(codec_cpu)}


def first_byte(port: int, path: str) -> float:
    with socket.create_connection(("127.0.0.1", port)) as s:
        started = time.perf_counter()
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        s.recv(1)
        elapsed = time.perf_counter() - started
        while s.recv(1 << 16):
            pass
    return elapsed


def time_to_first_byte(base: Path, repeat: int) -> dict[str, float]:
    figures: dict[str, list[float]] = {"member cold": [], "member warm": [], "root cold": [], "root warm": []}
    for _ in range(repeat):
        for which, path in (("member", member_path()), ("root", "/zarr.json")):
            port = free_port()
            server = zarrforge_server(base / "many.zarr", port)
            try:
                wait_for_port(port)
                figures[f"{which} cold"].append(first_byte(port, path))
                figures[f"{which} warm"].append(first_byte(port, path))
            finally:
                server.terminate()
                server.wait()
    return {name: statistics.median(values) for name, values in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=2, help="fetches of every chunk per timed run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--side", type=int, default=SIDE, help="the array's side (a multiple of 256)")
    parser.add_argument("--members", type=int, default=MEMBERS, help="arrays in the many-member hierarchy")
    args = parser.parse_args()
    set_sizes(args.side, args.members)
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        write_sources(base)
        total = sum(f.stat().st_size for f in (base / "v3.zarr" / "c").rglob("*") if f.is_file())
        t = throughput(base, args.passes, args.repeat)
        for name in ("zarrforge", *static_servers()):  # every server sent every stored byte
            if t[name]["bytes"] != total * args.passes:
                raise SystemExit(f"{name} sent {t[name]['bytes']} bytes, not {total * args.passes}")
        mib = lambda r: r["bytes"] / r["seconds"] / 2**20  # noqa: E731
        print(
            f"\n### Pass-through chunks: {len(chunk_keys())} chunks ({total / 2**20:.1f} MiB stored) x {args.passes}, {CLIENTS} clients\n"
        )
        print("| server | MiB/s | requests/s |\n| --- | --- | --- |")
        t["zarrforge"]["label"] = "zarrforge serve"
        for name in ("zarrforge", *static_servers()):
            r = t[name]
            print(f"| {r['label']} | {mib(r):.0f} | {len(chunk_keys()) * args.passes / r['seconds']:.0f} |")
        for kind in static_servers():
            print(f"\nzarrforge / {kind} throughput: **{mib(t['zarrforge']) / mib(t[kind]):.2f}**")
        r = reencoding(base, args.repeat)
        print(f"\n### Re-encoded chunks (v2 zlib served as v3 zstd), {CLIENTS} clients\n")
        passing = t["zarrforge"]["seconds"] / args.passes
        print("| | seconds |\n| --- | --- |")
        print(f"| served, every chunk re-encoded | {r['served']['seconds']:.2f} |")
        print(f"| served, passed through (the v3 copy, one pass of the table above) | {passing:.2f} |")
        print(f"| the codecs alone (zarrforge.copy to v3 zstd in memory) | {r['codecs']:.2f} |")
        print(f"\nserving / codecs: **{r['served']['seconds'] / r['codecs']:.2f}**; ", end="")
        print(
            f"(re-encoded - passed through) / codecs: **{(r['served']['seconds'] - passing) / r['codecs']:.2f}**"
        )
        passing_cpu = t["zarrforge"]["server_cpu"] / args.passes
        print("\nCPU seconds (user and system) for the same chunks:\n")
        print("| | CPU s |\n| --- | --- |")
        print(f"| the server, every chunk re-encoded | {r['served']['server_cpu']:.2f} |")
        print(f"| the server, passed through | {passing_cpu:.2f} |")
        print(f"| the codecs alone (zarrforge.copy) | {r['codec_cpu']:.2f} |")
        extra = (r["served"]["server_cpu"] - passing_cpu) / r["codec_cpu"]
        print(
            f"\nthe server's CPU for re-encoding (re-encoded - passed through) / the codecs' CPU: **{extra:.2f}**"
        )
        write_members(base)
        f = time_to_first_byte(base, args.repeat)
        print(
            f"\n### Time to first byte of a zarr.json, {MEMBERS} members (median of {args.repeat} starts)\n"
        )
        print("| document | cold ms | warm ms |\n| --- | --- | --- |")
        for which in ("member", "root"):
            print(f"| {which} | {1000 * f[f'{which} cold']:.1f} | {1000 * f[f'{which} warm']:.1f} |")
    print(f"\nmachine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
