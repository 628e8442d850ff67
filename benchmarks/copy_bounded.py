"""Copy a large array on disk and record each engine's time and peak memory (W10).

``python benchmarks/copy_bounded.py [--gib 8] [--path DIR] [--json FILE]`` writes a
float32 array of ``--gib`` GiB (chunks 128^3 of 8 MiB, zstd level 1) under ``--path``
(default: a new directory in the working directory's file system, not ``/dev/shm``),
then copies it to a new array with the same chunks and codecs, each copy in a child
process of its own whose peak resident memory GNU time reports (``/usr/bin/time -f %M``):

* ``zarrforge copy`` (the command-line tool, ``--progress plain``: a progress line per unit);
* ``zarrforge.copy`` (the Python function, with a progress callback);
* tensorstore: ``dst.write(src)`` between two opened arrays;
* zarr-python: block by block (``dst[region] = src[region]`` per chunk row), since it has no
  copy function for v3 arrays.

The target (issue "Performance, round two"): zarrforge's copies stay under 1 GiB of peak
memory whatever the array's size. The source is written once by zarrforge and read by
every engine; every copy is checked against the source on a sample of chunks.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHUNK = 128

ENGINES = {
    "zarrforge copy (CLI)": "cli",
    "zarrforge.copy": "function",
    "tensorstore": "tensorstore",
    "zarr-python": "zarr-python",
}

CHILD = r"""
import sys, time
kind, src, dst = sys.argv[1:4]
if kind == "function":
    import zarrforge as zf
    done = [0]
    def progress(path, n, total):
        done[0] = n
    zf.copy(src, dst, progress=progress)
elif kind == "tensorstore":
    import tensorstore as ts
    source = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": src}}).result()
    spec = source.spec(retain_context=False).to_json()
    spec["kvstore"] = {"driver": "file", "path": dst}
    spec["create"] = True
    target = ts.open(spec).result()
    target.write(source).result()
elif kind == "zarr-python":
    import zarr
    source = zarr.open_array(src, mode="r")
    target = zarr.create_array(dst, shape=source.shape, chunks=source.chunks, dtype=source.dtype,
                               compressors=source.compressors, fill_value=source.fill_value)
    step = source.chunks[0]
    for start in range(0, source.shape[0], step):
        target[start:start + step] = source[start:start + step]
"""


def make_source(path: Path, gib: float) -> tuple[int, ...]:
    import numpy as np

    import zarrforge as zf

    depth = max(CHUNK, round(gib * 2**30 / (4 * 1024 * 1024) / CHUNK) * CHUNK)
    shape = (depth, 1024, 1024)
    array = zf.create_array(
        str(path),
        shape=shape,
        chunks=(CHUNK,) * 3,
        dtype="float32",
        compressors=[{"name": "zstd", "configuration": {"level": 1}}],
    )
    rng = np.random.default_rng(0)
    slab = (rng.standard_normal((CHUNK, 1024, 1024), dtype=np.float32) * 16).round() / 16
    for start in range(0, depth, CHUNK):
        array[start : start + CHUNK] = slab + np.float32(start)
    return shape


def run_copy(kind: str, src: Path, dst: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of one copy in a child process."""
    if kind == "cli":
        command = [
            str(Path(sys.executable).with_name("zarrforge")),
            "copy",
            str(src),
            str(dst),
            "--progress",
            "plain",
        ]
    else:
        command = [sys.executable, "-c", CHILD, kind, str(src), str(dst)]
    # GNU time reports the peak of the process it starts; read from this process
    # instead, the peak would include this one's (a vfork'ed child inherits it)
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", report.name, *command],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - start
        peak_kib = int(report.read().split()[-1])
    return seconds, peak_kib / 1024


def check(src: Path, dst: Path, shape: tuple[int, ...]) -> None:
    import numpy as np

    import zarrforge as zf

    a, b = zf.open_array(str(src), mode="r"), zf.open_array(str(dst), mode="r")
    for start in sorted({0, shape[0] // 2 // CHUNK * CHUNK, shape[0] - CHUNK}):
        region = (slice(start, start + CHUNK), slice(0, 256), slice(768, 1024))
        if not np.array_equal(a[region], b[region]):
            raise AssertionError(f"the copy differs from the source at {region}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=8.0)
    parser.add_argument("--path", type=Path, default=None)
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="zarrforge-copy-", dir=args.path or Path.cwd()))
    results: dict[str, dict[str, float]] = {}
    try:
        src = root / "source.zarr"
        start = time.perf_counter()
        shape = make_source(src, args.gib)
        print(
            f"source {shape} float32 ({args.gib:g} GiB) written in {time.perf_counter() - start:.1f} s",
            flush=True,
        )
        for label in [e.strip() for e in args.engines.split(",") if e.strip()]:
            dst = root / f"{ENGINES[label]}.zarr"
            seconds, peak = run_copy(ENGINES[label], src, dst)
            check(src, dst, shape)
            results[label] = {"seconds": seconds, "peak_rss_mib": peak}
            print(f"{label}: {seconds:.1f} s, peak {peak:.0f} MiB", flush=True)
            shutil.rmtree(dst)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("\n| engine | seconds | peak RSS MiB |\n|---|---:|---:|")
    for label, r in results.items():
        print(f"| {label} | {r['seconds']:.1f} | {r['peak_rss_mib']:.0f} |")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"gib": args.gib, "shape": list(shape), "command": " ".join(sys.argv), "results": results},
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
