"""What conditional writes cost, and what concurrent writers of one shard achieve.

    python benchmarks/conditional_writes.py [--scale 1] [--repeat 3] [--path /dev/shm]

Measurements on the local directory store, best of ``--repeat``:

* **W1 and W3 themselves** (the suite's workloads at ``--scale 1``: a (512, 512, 512)
  float32 array, zstd level 1, written whole in one call; W1 in chunks of 128^3, W3 in
  shards of 256^3 holding inner chunks of 32^3), with conditional writes (the default)
  and through the same store declaring none (what zarrforge did before);

* **whole chunks** (W1's pattern, smaller): create a float32 array, chunks 64^3, zstd
  level 1, and write it whole. Whole-chunk writes are blind ``set`` calls with or without
  conditional writes, so the two should take the same time.
* **partial chunks** (W3's pattern of read-modify-write): overwrite the first half of every
  chunk along the first axis, so every chunk is read, changed and written back: with
  ``set_if`` against the generation read (the default), and through a store that
  declares no conditional writes (plain read and write, what zarrforge did before).
* **four processes, one shard**: a (64, 64) int32 array stored as one shard of 16
  inner chunks of (16, 16); each of four processes writes its own four inner chunks,
  round after round. Reported: updates per second over all processes (each update a
  read-modify-write of the shard, redone on conflict). The final values are checked:
  every inner chunk holds its writer's last round.

Times are of whole calls in this process (``time.perf_counter``), the data regenerated
the same way for each variant; nothing here is a timed assertion.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import zarrforge as zf
from zarrforge_std.stores.local import LocalStore


class UnconditionalLocalStore(LocalStore):
    """The local store without conditional writes: read-modify-writes are plain."""

    capabilities = dataclasses.replace(LocalStore.capabilities, conditional_writes=False)


def _data(shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.round(rng.normal(size=shape).astype("float32"), 2)


def whole_and_partial(root: Path, side: int, repeat: int) -> dict[str, float]:
    """Best times of each variant; the variants take turns within each repetition, so a
    machine that slows down or warms up treats them alike."""
    shape, chunks = (side, side, side), (64, 64, 64)
    data = _data(shape)
    compressors = [{"name": "zstd", "configuration": {"level": 1}}]

    def whole(name: str, cls: type) -> float:
        path = root / f"whole-{name}"
        shutil.rmtree(path, ignore_errors=True)
        array = zf.create_array(
            cls(path), shape=shape, dtype="float32", chunks=chunks, compressors=compressors
        )
        start = time.perf_counter()
        array[...] = data
        return time.perf_counter() - start

    def partial(name: str, cls: type) -> float:
        path = root / f"partial-{name}"
        shutil.rmtree(path, ignore_errors=True)
        array = zf.create_array(
            cls(path), shape=shape, dtype="float32", chunks=chunks, compressors=compressors
        )
        array[...] = data
        half = [slice(None)] * 3
        start = time.perf_counter()
        for origin in range(0, side, 64):  # the first half of every chunk along axis 0
            half[0] = slice(origin, origin + 32)
            array[tuple(half)] = -data[tuple(half)]
        return time.perf_counter() - start

    variants = (("conditional", LocalStore), ("unconditional", UnconditionalLocalStore))
    results: dict[str, float] = {}
    for _ in range(repeat):
        for kind, run in (("whole", whole), ("partial", partial)):
            for name, cls in variants:
                seconds = run(name, cls)
                key = f"{kind}/{name}"
                results[key] = min(seconds, results.get(key, seconds))
    return results


def w1_and_w3(root: Path, side: int, repeat: int) -> dict[str, float]:
    """W1 and W3 written whole, with and without conditional writes, taking turns."""
    data = _data((side, side, side))
    zstd = [{"name": "zstd", "configuration": {"level": 1}}]
    layouts = {"W1": {"chunks": (128,) * 3}, "W3": {"chunks": (32,) * 3, "shards": (256,) * 3}}

    def write(workload: str, name: str, cls: type) -> float:
        path = root / f"{workload}-{name}"
        shutil.rmtree(path, ignore_errors=True)
        array = zf.create_array(
            cls(path), shape=data.shape, dtype="float32", compressors=zstd, **layouts[workload]
        )
        start = time.perf_counter()
        array[...] = data
        seconds = time.perf_counter() - start
        shutil.rmtree(path, ignore_errors=True)
        return seconds

    results: dict[str, float] = {}
    for _ in range(repeat):
        for workload in layouts:
            for name, cls in (("conditional", LocalStore), ("unconditional", UnconditionalLocalStore)):
                key = f"{workload}/{name}"
                seconds = write(workload, name, cls)
                results[key] = min(seconds, results.get(key, seconds))
    return results


def _writer(root: str, worker: int, rounds: int) -> None:
    """Write inner chunks ``worker*4 .. worker*4+3`` of the shard, ``rounds`` times."""
    array = zf.open_array(root, mode="r+", threads=1)
    for r in range(rounds):
        for k in range(4):
            row, col = divmod(worker * 4 + k, 4)
            array[row * 16 : (row + 1) * 16, col * 16 : (col + 1) * 16] = worker * 1000 + r


def one_shard(root: Path, rounds: int) -> dict[str, float]:
    path = root / "shard"
    shutil.rmtree(path, ignore_errors=True)
    zf.create_array(
        LocalStore(path), shape=(64, 64), dtype="int32", chunks=(16, 16), shards=(64, 64), fill_value=-1
    )
    context = multiprocessing.get_context("spawn")
    with context.Pool(4) as pool:
        warm = [pool.apply_async(os.getpid) for _ in range(8)]
        [w.get() for w in warm]  # workers started and imported before the clock starts
        start = time.perf_counter()
        runs = [pool.apply_async(_writer, (str(path), w, rounds)) for w in range(4)]
        [r.get(timeout=600) for r in runs]
        elapsed = time.perf_counter() - start
    final = zf.open_array(str(path))[...]
    for inner in range(16):
        row, col = divmod(inner, 4)
        block = final[row * 16 : (row + 1) * 16, col * 16 : (col + 1) * 16]
        expected = (inner // 4) * 1000 + rounds - 1
        if not np.all(block == expected):
            raise SystemExit(f"inner chunk {inner} lost an update: {np.unique(block)}")
    updates = 4 * 4 * rounds
    return {"seconds": elapsed, "updates": updates, "updates_per_second": updates / elapsed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scale", type=float, default=1.0, help="1 = a (256, 256, 256) float32 array (64 MiB)"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=50, help="rounds per shard writer")
    parser.add_argument("--path", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    args = parser.parse_args(argv)
    side = max(64, round(256 * args.scale ** (1 / 3) / 64) * 64)
    workload_side = max(128, round(512 * args.scale ** (1 / 3) / 128) * 128)
    root = Path(tempfile.mkdtemp(prefix="zarrforge-conditional-", dir=args.path))
    try:
        workloads = w1_and_w3(root, workload_side, args.repeat)
        timings = whole_and_partial(root, side, args.repeat)
        shard = one_shard(root, args.rounds)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report = {
        "workloads": {
            "array": [workload_side] * 3,
            "timings_s": workloads,
            "W1_ratio": workloads["W1/conditional"] / workloads["W1/unconditional"],
            "W3_ratio": workloads["W3/conditional"] / workloads["W3/unconditional"],
        },
        "array": [side] * 3,
        "repeat": args.repeat,
        "timings_s": timings,
        "whole_ratio": timings["whole/conditional"] / timings["whole/unconditional"],
        "partial_ratio": timings["partial/conditional"] / timings["partial/unconditional"],
        "one_shard_four_processes": shard,
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
