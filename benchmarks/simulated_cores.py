"""The simulated many-core benchmark: how well each engine overlaps codec work on threads.

Every workload stores its chunks through ``bench.sleep`` (:mod:`benchmarks.sleep_codec`),
a codec that sleeps a fixed time per call and releases the GIL while it does, so 16
threads run 16 calls at once on a 2-core machine. A workload of ``calls`` codec calls of
``ms`` each then takes at least ``ideal(N) = calls * ms / N`` with N threads; what it
takes beyond that is work the engine could not overlap: its serial fraction, measured
directly (``serial = T(N) - ideal(N)``).

Workloads (memory stores, float32, written whole in one call, then read whole in one):

========  ==============================================  =======
name      chunks                                          ms/call
========  ==============================================  =======
``1m``    256 chunks of 1 MiB                             4
``shard`` one shard of 256 inner chunks of 64 KiB         1
``4k``    4,096 chunks of 4 KiB                           0.25
========  ==============================================  =======

each in a 1-D form and a 2-D form (``1m-2d``: 16 x 16 chunks of 256 x 1024...), and
``4k-zstd1``: the 4 KiB chunks through zstd level 1 instead, a real codec costing
microseconds a chunk, which threads must not slow down (its ideal is 0: the serial
seconds are the whole time). Both
engines run every (workload, operation, threads): zarrforge in this process
(``config.set(threads=N)``), zarr-python 3.4.2 in a child under the Python of
``--zarr-python`` (its own environment, Python >= 3.12; ``threading.max_workers`` and
``async.concurrency`` set to N), with a zarr-python codec that sleeps the same way
(``asyncio.to_thread(time.sleep, ...)``, as its numcodecs codecs run their work).

Output: ``simulated-cores.json`` (every time), ``simulated-cores.md`` (per workload
and operation: best seconds at each N, the speedup T(1)/T(16) and the serial seconds at
16 threads, per engine) and, where matplotlib is installed, ``simulated-cores.png`` (the
speedup at each N) in ``--out``. Command::

    .venv/bin/python -m benchmarks.simulated_cores --zarr-python .venv-zarr34/bin/python

``--quick`` runs the 1-D forms at 1 and 16 threads only. Times are for the record
(benchmarks/RESULTS.md), never asserted; tests/test_simulated_cores.py counts the
codec calls running at once instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

THREADS = (1, 2, 4, 8, 16)
ROOT = Path(__file__).resolve().parent.parent


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    shape: tuple[int, ...]
    chunks: tuple[int, ...]  # the inner chunks of a sharded workload
    ms: float
    shards: tuple[int, ...] | None = None
    zstd_level: int | None = None  # a real, fast codec instead of the sleeping one

    @property
    def compressor(self) -> dict[str, Any]:
        if self.zstd_level is not None:
            return {"name": "zstd", "configuration": {"level": self.zstd_level, "checksum": False}}
        return {"name": "bench.sleep", "configuration": {"ms": self.ms}}

    @property
    def calls(self) -> int:
        """Codec calls one whole write (or read) makes: one per (inner) chunk."""
        return int(np.prod([-(-n // c) for n, c in zip(self.shape, self.chunks)]))

    def ideal(self, threads: int) -> float:
        return self.calls * self.ms / 1000 / threads


WORKLOADS = (
    Workload("1m", (256 * 262144,), (262144,), 4.0),
    Workload("1m-2d", (4096, 16384), (256, 1024), 4.0),
    Workload("shard", (256 * 16384,), (16384,), 1.0, shards=(256 * 16384,)),
    Workload("shard-2d", (1024, 4096), (64, 256), 1.0, shards=(1024, 4096)),
    Workload("4k", (4096 * 1024,), (1024,), 0.25),
    Workload("4k-2d", (2048, 2048), (32, 32), 0.25),
    # the same chunks through zstd level 1 (microseconds a chunk): threads must not slow it
    Workload("4k-zstd1", (4096 * 1024,), (1024,), 0.0, zstd_level=1),
)
QUICK = ("1m", "shard", "4k", "4k-zstd1")


def data(workload: Workload) -> np.ndarray:
    return np.arange(int(np.prod(workload.shape)), dtype="float32").reshape(workload.shape)


def zarrforge_times(workload: Workload, threads: int, repeat: int) -> dict[str, float]:
    """Best seconds of a whole write and a whole read with ``threads`` threads."""
    import zarrforge as zf

    from .sleep_codec import register

    register()
    values = data(workload)
    best = {"write": float("inf"), "read": float("inf")}
    with zf.config.set(threads=threads):
        for _ in range(repeat):
            array = zf.create_array(
                zf.storage.MemoryStore(),
                shape=workload.shape,
                chunks=workload.chunks,
                shards=workload.shards,
                dtype="float32",
                compressors=[workload.compressor],
                fill_value=-1.0,
            )
            start = time.perf_counter()
            array[...] = values
            best["write"] = min(best["write"], time.perf_counter() - start)
            start = time.perf_counter()
            back = array[...]
            best["read"] = min(best["read"], time.perf_counter() - start)
            assert np.array_equal(back, values)
    return best


ZARR_PYTHON_CHILD = r"""
import asyncio, json, sys, time
from dataclasses import dataclass
import numpy as np
import zarr
import zarr.codecs
from zarr.abc.codec import BytesBytesCodec
from zarr.registry import register_codec


@dataclass(frozen=True)
class SleepCodec(BytesBytesCodec):
    is_fixed_size = True
    ms: float = 0.0

    @classmethod
    def from_dict(cls, data):
        return cls(ms=data.get("configuration", {}).get("ms", 0.0))

    def to_dict(self):
        return {"name": "bench.sleep", "configuration": {"ms": self.ms}}

    async def _sleep(self, chunk_bytes):
        await asyncio.to_thread(time.sleep, self.ms / 1000)
        return chunk_bytes

    async def _encode_single(self, chunk_bytes, chunk_spec):
        return await self._sleep(chunk_bytes)

    async def _decode_single(self, chunk_bytes, chunk_spec):
        return await self._sleep(chunk_bytes)

    def compute_encoded_size(self, input_byte_length, chunk_spec):
        return input_byte_length


register_codec("bench.sleep", SleepCodec)
spec = json.loads(sys.argv[1])
shape, chunks, shards = tuple(spec["shape"]), tuple(spec["chunks"]), spec["shards"]
values = np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)
best = {"write": float("inf"), "read": float("inf")}
with zarr.config.set({"threading.max_workers": spec["threads"], "async.concurrency": spec["threads"]}):
    for _ in range(spec["repeat"]):
        array = zarr.create_array(
            zarr.storage.MemoryStore(), shape=shape, chunks=chunks,
            shards=tuple(shards) if shards else None, dtype="float32",
            compressors=[
                zarr.codecs.ZstdCodec(level=spec["zstd_level"]) if spec["zstd_level"] is not None
                else SleepCodec(ms=spec["ms"])
            ], fill_value=-1.0,
        )
        start = time.perf_counter()
        array[...] = values
        best["write"] = min(best["write"], time.perf_counter() - start)
        start = time.perf_counter()
        back = array[...]
        best["read"] = min(best["read"], time.perf_counter() - start)
        assert np.array_equal(back, values)
print(json.dumps(best))
"""


def zarr_python_times(python: str, workload: Workload, threads: int, repeat: int) -> dict[str, float]:
    spec = {
        "shape": workload.shape,
        "chunks": workload.chunks,
        "shards": workload.shards,
        "ms": workload.ms,
        "zstd_level": workload.zstd_level,
        "threads": threads,
        "repeat": repeat,
    }
    done = subprocess.run(
        [python, "-c", ZARR_PYTHON_CHILD, json.dumps(spec)],
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"zarr-python child failed on {workload.name}, {threads} threads:\n{done.stderr[-2000:]}"
        )
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def run(
    workloads: list[Workload], threads: list[int], repeat: int, zarr_python: str | None
) -> list[dict[str, Any]]:
    records = []
    for workload in workloads:
        for n in threads:
            engines = {"zarrforge": zarrforge_times(workload, n, repeat)}
            if zarr_python:
                engines["zarr-python"] = zarr_python_times(zarr_python, workload, n, repeat)
            for engine, times in engines.items():
                for operation, seconds in times.items():
                    records.append(
                        {
                            "workload": workload.name,
                            "engine": engine,
                            "operation": operation,
                            "threads": n,
                            "seconds": seconds,
                            "ideal": workload.ideal(n),
                            "calls": workload.calls,
                            "ms": workload.ms,
                        }
                    )
                    print(
                        f"{workload.name:9} {engine:12} {operation:5} {n:2} threads: {seconds:7.3f} s "
                        f"(ideal {workload.ideal(n):.3f})",
                        flush=True,
                    )
    return records


def markdown(records: list[dict[str, Any]]) -> str:
    """One row per (workload, operation, engine): seconds at each thread count, the
    speedup from the fewest threads to the most, and the serial seconds at the most."""
    counts = sorted({r["threads"] for r in records})
    lo, hi = counts[0], counts[-1]
    head = (
        "| workload | op | engine | "
        + " | ".join(f"T{n} s" for n in counts)
        + f" | speedup T{lo}/T{hi} | ideal T{hi} s | serial s at {hi} |"
    )
    lines = [head, "|" + " --- |" * (len(counts) + 6)]
    keys = sorted(
        {(r["workload"], r["operation"], r["engine"]) for r in records},
        key=lambda k: ([w.name for w in WORKLOADS].index(k[0]), k[1] != "write", k[2]),
    )
    for workload, operation, engine in keys:
        row = {
            r["threads"]: r
            for r in records
            if (r["workload"], r["operation"], r["engine"]) == (workload, operation, engine)
        }
        times = " | ".join(f"{row[n]['seconds']:.3f}" if n in row else "-" for n in counts)
        if lo in row and hi in row:
            speedup = f"{row[lo]['seconds'] / row[hi]['seconds']:.1f}"
            serial = f"{row[hi]['seconds'] - row[hi]['ideal']:.3f}"
            ideal = f"{row[hi]['ideal']:.3f}"
        else:
            speedup = serial = ideal = "-"
        lines.append(f"| {workload} | {operation} | {engine} | {times} | {speedup} | {ideal} | {serial} |")
    return "\n".join(lines) + "\n"


def write_chart(records: list[dict[str, Any]], path: Path) -> bool:
    """Speedup T(1)/T(N) against N, one panel per workload, a line per engine and
    operation, with the ideal (N) dashed; ``False`` when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [w.name for w in WORKLOADS if any(r["workload"] == w.name for r in records)]
    ncols = min(4, len(names)) or 1
    nrows = -(-len(names) // ncols) or 1
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 2.8 * nrows), dpi=90, squeeze=False)
    counts = sorted({r["threads"] for r in records})
    styles = {"zarrforge": "tab:blue", "zarr-python": "tab:orange"}
    for ax, name in zip(axes.flat, names):
        part = [r for r in records if r["workload"] == name]
        for engine in sorted({r["engine"] for r in part}):
            for operation, line in (("write", "-"), ("read", ":")):
                times = {
                    r["threads"]: r["seconds"]
                    for r in part
                    if (r["engine"], r["operation"]) == (engine, operation)
                }
                if 1 not in times:
                    continue
                ns = sorted(times)
                ax.plot(
                    ns,
                    [times[1] / times[n] for n in ns],
                    line,
                    marker="o",
                    markersize=3,
                    color=styles.get(engine),
                    label=f"{engine} {operation}",
                )
        if part[0]["ms"]:
            ax.plot(counts, counts, "--", color="black", linewidth=0.8, label="ideal")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xticks(counts, [str(n) for n in counts])
        ax.set_title(name, fontsize=8)
        ax.set_xlabel("threads", fontsize=7)
        ax.set_ylabel("speedup T1/TN", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    for ax in list(axes.flat)[len(names) :]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=7)
    fig.suptitle("Simulated cores: a codec that sleeps, on a 2-core machine (memory stores)", fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    fig.savefig(path)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--threads", default=",".join(map(str, THREADS)), help="comma-separated thread counts"
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--only", default="", help="comma-separated workload names")
    parser.add_argument("--quick", action="store_true", help=f"{', '.join(QUICK)} at 1 and 16 threads")
    parser.add_argument(
        "--zarr-python",
        default=os.environ.get("ZARRFORGE_BENCH_ZARRS_PYTHON"),
        help="a Python with zarr-python 3.4.2 (default $ZARRFORGE_BENCH_ZARRS_PYTHON; none: zarrforge only)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or (
        list(QUICK) if args.quick else [w.name for w in WORKLOADS]
    )
    unknown = sorted(set(names) - {w.name for w in WORKLOADS})
    if unknown:
        parser.error(f"unknown workload(s) {unknown}; known: {[w.name for w in WORKLOADS]}")
    threads = [1, 16] if args.quick else sorted({int(t) for t in args.threads.split(",")})
    records = run([w for w in WORKLOADS if w.name in names], threads, args.repeat, args.zarr_python)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "simulated-cores.json").write_text(json.dumps(records, indent=1) + "\n")
    table = markdown(records)
    (args.out / "simulated-cores.md").write_text(table)
    if write_chart(records, args.out / "simulated-cores.png"):
        print(f"chart: {args.out / 'simulated-cores.png'}")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
