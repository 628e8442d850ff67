"""Lower bounds ("limits") measured in the same run, without any Zarr engine.

Contract: each limit is a :class:`benchmarks.workloads.Workload` whose
``run`` returns ``{phase: seconds}`` (it times its phases itself, so one
repetition measures, e.g., both encode and decode) and whose ``verify``
checks the round trip. They use no engine, and all cores
(``os.cpu_count()`` threads, the work split into one list per thread, so the
Python overhead per item is one loop iteration) unless said otherwise. The
thread sweep (``run.py --threads-sweep``) passes its N to the child, which
calls :func:`set_threads`: then the multi-threaded limits use N threads
instead; :func:`configuration` reports the count a limit runs with.

* ``L-zstd``: numcodecs ``Zstd(level=1)`` encode, then decode, of every chunk
  (128^3) of the W1 array, held in memory: no I/O. Encoding makes a new
  bytes object per chunk (as a writer must); decoding writes into one reused
  buffer per thread, so it measures decompression, not page faults. Phases
  ``encode`` and ``decode``. Two more phases do what a whole-array write and read
  cannot avoid besides the codec: ``write`` copies each chunk out of the source
  array (C order, contiguous, as the ``bytes`` codec lays it out) and encodes it;
  ``read`` decodes each chunk into a reused buffer and copies it into its place in a
  newly allocated output of the array's shape (zstd cannot decode into the strided
  region a chunk occupies in a C-order array, and a reader returns a new array:
  page faults included). ``write`` and ``read`` bound W1 and W2.
* ``L-zstd-inner``: the same for the 32^3 inner chunks of W3; ``write`` and ``read``
  bound W3 and W3r.
* ``L-files``: one file per 64^2 chunk of the W5 array, written with
  ``os.open``/``os.write`` into ``c/<i>/<j>`` directories (phase ``write``: not
  atomically), written again into a second tree as a reader-safe writer must
  (phase ``atomic``: each value to a temporary file beside its name, then
  ``os.replace`` over it, so no reader sees half a value: what W5 cannot avoid),
  then read back with ``os.open``/``os.read`` into a new array (phase ``read``: what
  W5r cannot avoid on this file system). The ``atomic`` and ``read`` phases open each
  directory once and name its files relative to it, as the local store's batches do
  (since session 28; before, each file by its whole path, about 10% slower here). This
  one runs on one thread, the fastest way here for Python: around 4 KiB files, threads
  only hand the GIL back and forth (two were two to three times slower).
* ``L-list``: what W6 cannot avoid: list the group's directory and, for every child
  holding a ``zarr.json``, read it and parse it with the standard library's ``json``,
  keeping its ``attributes``; one thread. The 300 documents are v3 array documents of
  W6's members (same attributes), written in ``prepare``. Phase ``list``.
  ``L-listL``: the same for W6L's 10,000 members.
* ``L-copy``: one ``np.copyto`` of the W1 array; phase ``warm`` copies into a
  destination touched beforehand (the brief's memory-copy limit), ``fresh``
  into a newly allocated one (what a reader returning a new array pays,
  page faults included).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from numcodecs import Zstd

from . import data
from .workloads import Context, VerificationError, Workload, check_equal, mib

#: Limits that always run on the calling thread alone, whatever :func:`set_threads` says.
ONE_THREAD = frozenset({"L-files", "L-copy", "L-list", "L-listL"})

_requested: int | None = None


def set_threads(threads: int | None) -> None:
    """Run the multi-threaded limits on ``threads`` threads (``None``: one per CPU)."""
    global _requested
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    _requested = threads


def _threads() -> int:
    return _requested if _requested is not None else max(1, os.cpu_count() or 1)


def configuration(name: str) -> dict[str, Any]:
    """The threads limit ``name`` runs with, for the record."""
    return {"threads": 1 if name in ONE_THREAD else _threads(), "requested_threads": _requested}


def _parallel(fn: Callable[[list[Any]], list[Any]], items: list[Any]) -> list[Any]:
    """``fn`` over ``items`` split round-robin into one list per thread; results in order."""
    n = min(_threads(), len(items)) or 1
    parts = [items[i::n] for i in range(n)]
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        done = list(pool.map(fn, parts))
    out: list[Any] = [None] * len(items)
    for i, part in enumerate(done):
        out[i::n] = part
    return out


def chunk_slices(shape: tuple[int, ...], chunks: tuple[int, ...]) -> list[tuple[slice, ...]]:
    ranges = [range(0, n, c) for n, c in zip(shape, chunks)]
    return [
        tuple(slice(o, min(o + c, n)) for o, c, n in zip(origin, chunks, shape))
        for origin in itertools.product(*ranges)
    ]


def chunk_bytes(values: np.ndarray, slices: list[tuple[slice, ...]]) -> list[bytes]:
    """Each chunk's values, C-ordered, as the bytes a ``bytes`` codec would write."""
    return [np.ascontiguousarray(values[s]).tobytes() for s in slices]


class ZstdLimit(Workload):
    def size_note(self, scale: float) -> str:
        s = data.spec(self.dataset, scale)
        return f"{len(chunk_slices(s.shape, s.chunks))} chunks {s.chunks}, {mib(s.nbytes)}"

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        spec = data.spec(self.dataset, ctx.scale)
        values = data.generate(spec)
        slices = chunk_slices(spec.shape, spec.chunks)
        raw = chunk_bytes(values, slices)
        codec = Zstd(level=spec.zstd_level)
        return {
            "raw": raw,
            "codec": codec,
            "values": values,
            "slices": slices,
            "stored": [codec.encode(b) for b in raw],
        }

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> dict[str, Any]:
        codec, values, slices = state["codec"], state["values"], state["slices"]
        sizes = [len(b) for b in state["raw"]]
        # ``read`` first, while the process holds least: its new output's page faults are
        # what a reader pays, and they cost more in a process that churned gigabytes
        t0 = time.perf_counter()
        output = np.empty(values.shape, dtype=values.dtype)

        def place(part: list[tuple[bytes, tuple[slice, ...]]]) -> list[None]:
            buffer = np.empty(max(sizes), dtype=np.uint8)
            for stored, where in part:
                shape = tuple(s.stop - s.start for s in where)
                n = int(np.prod(shape)) * values.itemsize
                codec.decode(stored, out=buffer[:n])
                output[where] = buffer[:n].view(values.dtype).reshape(shape)
            return [None] * len(part)

        _parallel(place, list(zip(state["stored"], slices)))
        t1 = time.perf_counter()
        encoded = _parallel(lambda part: [codec.encode(b) for b in part], state["raw"])
        t2 = time.perf_counter()

        def decode(part: list[tuple[bytes, int]]) -> list[int]:
            # One reused buffer per thread: decoding is measured, not page faults.
            out = np.empty(max(sizes), dtype=np.uint8)
            return [len(codec.decode(e, out=out[:n])) for e, n in part]

        lengths = _parallel(decode, list(zip(encoded, sizes)))
        t3 = time.perf_counter()
        _parallel(lambda part: [codec.encode(np.ascontiguousarray(values[s])) for s in part], slices)
        t4 = time.perf_counter()
        return {
            "read": t1 - t0,
            "encode": t2 - t1,
            "decode": t3 - t2,
            "write": t4 - t3,
            "encoded": encoded,
            "lengths": lengths,
            "output": output,
        }

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        codec = state["codec"]
        for i, (encoded, raw) in enumerate(zip(result["encoded"], state["raw"])):
            if result["lengths"][i] != len(raw) or bytes(codec.decode(encoded)) != raw:
                raise VerificationError(f"{self.name}: chunk {i} does not round-trip")
        check_equal(result["output"], state["values"], f"{self.name} read")
        total = sum(len(r) for r in state["raw"])
        return {
            "chunks": len(state["raw"]),
            "threads_used": min(_threads(), len(state["raw"])),
            "compression_ratio": sum(len(e) for e in result["encoded"]) / total,
        }


class FilesLimit(Workload):
    def size_note(self, scale: float) -> str:
        s = data.spec(self.dataset, scale)
        return f"{len(chunk_slices(s.shape, s.chunks))} files of {s.chunks} {s.dtype}"

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        spec = data.spec(self.dataset, ctx.scale)
        values = data.generate(spec)
        slices = chunk_slices(spec.shape, spec.chunks)
        names = ["/".join(str(s.start // c) for s, c in zip(sl, spec.chunks)) for sl in slices]
        raw = chunk_bytes(values, slices)
        return {
            "spec": spec,
            "values": values,
            "slices": slices,
            "names": names,
            "raw": raw,
            "dir": ctx.root / "files-limit" / "c",
            "atomic_dir": ctx.root / "files-limit" / "atomic" / "c",
        }

    def before_rep(self, engine: Any, ctx: Context, state: dict[str, Any]) -> None:
        for tree in (state["dir"], state["atomic_dir"]):
            if tree.exists():
                shutil.rmtree(tree)

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> dict[str, Any]:
        root = str(state["dir"])
        spec = state["spec"]
        items = list(zip(state["names"], state["raw"], state["slices"]))

        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC

        def write(part: list[Any]) -> None:
            for name, raw, _ in part:
                path = os.path.join(root, name)
                try:
                    fd = os.open(path, flags, 0o644)
                except FileNotFoundError:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    fd = os.open(path, flags, 0o644)
                try:
                    os.write(fd, raw)
                finally:
                    os.close(fd)

        atomic_root = str(state["atomic_dir"])
        new_flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL

        def write_atomically(part: list[Any]) -> None:
            for directory, files in _by_directory(atomic_root, part):
                os.makedirs(directory, exist_ok=True)
                with _opened_directory(directory) as at:
                    for n, (name, raw, _) in enumerate(files):
                        temp = f".tmp-{n}"
                        fd = os.open(temp, new_flags, 0o644, dir_fd=at)
                        try:
                            os.write(fd, raw)
                        finally:
                            os.close(fd)
                        os.rename(temp, name, src_dir_fd=at, dst_dir_fd=at)

        t0 = time.perf_counter()
        write(items)
        t_plain = time.perf_counter()
        write_atomically(items)
        t1 = time.perf_counter()
        out = np.empty(spec.shape, dtype=spec.dtype)
        size = int(np.prod(spec.chunks)) * np.dtype(spec.dtype).itemsize

        def read(part: list[Any]) -> None:
            for directory, files in _by_directory(root, part):
                with _opened_directory(directory) as at:
                    for name, _, sl in files:
                        fd = os.open(name, os.O_RDONLY, dir_fd=at)
                        try:
                            chunk = np.frombuffer(os.read(fd, size), dtype=spec.dtype)
                        finally:
                            os.close(fd)
                        out[sl] = chunk.reshape([s.stop - s.start for s in sl])

        read(items)
        t2 = time.perf_counter()
        return {"write": t_plain - t0, "atomic": t1 - t_plain, "read": t2 - t1, "out": out}

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        check_equal(result["out"], state["values"], self.name)
        shutil.rmtree(state["dir"].parent)
        return {"files": len(state["names"])}


def _by_directory(root: str, items: list[Any]) -> list[tuple[str, list[Any]]]:
    """``items`` (``(name, ...)``, names ``<i>/<j>``) as runs of one directory each:
    ``(its path, the items with their file names)``."""
    runs: list[tuple[str, list[Any]]] = []
    for name, *rest in items:
        directory, _, file_name = name.rpartition("/")
        path = os.path.join(root, directory)
        if not runs or runs[-1][0] != path:
            runs.append((path, []))
        runs[-1][1].append((file_name, *rest))
    return runs


@contextlib.contextmanager
def _opened_directory(path: str) -> Iterator[int]:
    """An open descriptor of the directory ``path``: its files are then named relative to
    it, as the local store's batches do (one name looked up a file, not its whole path)."""
    at = os.open(path, getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0))
    try:
        yield at
    finally:
        os.close(at)


class ListLimit(Workload):
    def size_note(self, scale: float) -> str:
        return f"{data.group_size(self.dataset, scale)} zarr.json documents"

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        root = ctx.root / f"list-limit-{self.dataset}"
        if root.exists():
            shutil.rmtree(root)
        spec = data.member_spec()
        members = data.group_members(data.group_size(self.dataset, ctx.scale))
        for name, attributes in members.items():
            (root / name).mkdir(parents=True)
            document = {
                "zarr_format": 3,
                "node_type": "array",
                "shape": list(spec.shape),
                "data_type": spec.dtype,
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(spec.chunks)}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                "fill_value": 0,
                "codecs": [
                    {"name": "bytes", "configuration": {"endian": "little"}},
                    {"name": "zstd", "configuration": {"level": spec.zstd_level, "checksum": False}},
                ],
                "attributes": attributes,
            }
            (root / name / "zarr.json").write_text(json.dumps(document, indent=2))
        (root / "zarr.json").write_text(
            json.dumps({"zarr_format": 3, "node_type": "group", "attributes": {}})
        )
        return {"root": root, "members": members}

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> dict[str, Any]:
        root = str(state["root"])
        t0 = time.perf_counter()
        listed = {}
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name, "zarr.json")
            try:
                with open(path, "rb") as f:
                    raw = f.read()
            except (FileNotFoundError, NotADirectoryError):
                continue
            listed[name] = json.loads(raw).get("attributes", {})
        return {"list": time.perf_counter() - t0, "listed": listed}

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        if result["listed"] != state["members"]:
            raise VerificationError(f"{self.name}: the listing differs from the members written")
        shutil.rmtree(state["root"])
        return {"members": len(result["listed"])}


class CopyLimit(Workload):
    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        values = data.generate(data.spec(self.dataset, ctx.scale))
        warm = np.empty_like(values)
        warm.fill(0)  # touch every page now, so the warm copy pays no page faults
        return {"values": values, "warm": warm}

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> dict[str, Any]:
        src = state["values"]
        t0 = time.perf_counter()
        np.copyto(state["warm"], src)
        t1 = time.perf_counter()
        fresh = np.empty_like(src)
        np.copyto(fresh, src)
        t2 = time.perf_counter()
        return {"warm": t1 - t0, "fresh": t2 - t1, "out": fresh}

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        check_equal(state["warm"], state["values"], f"{self.name} warm")
        check_equal(result["out"], state["values"], f"{self.name} fresh")
        return {}


LIMITS: dict[str, Workload] = {
    w.name: w
    for w in [
        ZstdLimit("L-zstd", "numcodecs Zstd(1) over W1's chunks, all cores, no I/O", "float3d"),
        ZstdLimit("L-zstd-inner", "numcodecs Zstd(1) over W3's inner chunks, all cores, no I/O", "sharded3d"),
        FilesLimit("L-files", "one plain file per W5 chunk, one thread, os-level calls", "bytes2d"),
        CopyLimit("L-copy", "np.copyto of W1's array (warm / fresh destination)", "float3d"),
        ListLimit("L-list", "list W6's group directory and json.loads each zarr.json, one thread", "group"),
        ListLimit("L-listL", "the same for W6L's 10,000-member group", "group10k"),
    ]
}

#: Phases each limit reports, in display order.
PHASES = {
    "L-zstd": ("encode", "decode", "write", "read"),
    "L-zstd-inner": ("encode", "decode", "write", "read"),
    "L-files": ("write", "atomic", "read"),
    "L-copy": ("warm", "fresh"),
    "L-list": ("list",),
    "L-listL": ("list",),
}
