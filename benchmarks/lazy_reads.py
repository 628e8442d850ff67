"""Lazy reads against eager reads of the same region: ``array.lazy[sel].result()`` beside
``array[sel]``, and beside zarr-indexing's own ``LazyArray(array)`` (its basic reader, part by
part through ``__getitem__``: what wrapping by hand gave before ``Array.lazy``).

A 4096 x 4096 float32 array with 256 x 256 chunks, zstd, on a local directory. Selections:
the whole array, a window, a strided view composed in two steps (``[::2][10:2000]``), and a
window of a window. Each figure is the best of ``--repeat`` reads, interleaved; the ratio
is lazy over eager (the issue's target: at most 1.1).

Command: ``.venv/bin/python -m benchmarks.lazy_reads [--repeat 5]`` (Python 3.12 with
zarr-indexing: ``zarrforge[lazy]``; run by ``make bench-cache``); prints a Markdown table for
benchmarks/RESULTS.md. Never asserted by a test.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.slab_scan import write

SELECTIONS: dict[str, Callable[[Any], Any]] = {
    "whole array": lambda a: a[:, :],
    "window [1000:3000, 500:2500]": lambda a: a[1000:3000, 500:2500],
    "[::2][10:2000]": lambda a: a[::2][10:2000],
    "[512:3584][256:2304, ::3]": lambda a: a[512:3584][256:2304, ::3],
}


def seconds(read: Callable[[], Any]) -> float:
    began = time.perf_counter()
    read()
    return time.perf_counter() - began


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    import zarr_indexing

    import zarrforge as zf

    with tempfile.TemporaryDirectory() as directory:
        path = str(Path(directory) / "lazy.zarr")
        write(path)
        array = zf.open_array(path, mode="r")
        rows = []
        for name, select in SELECTIONS.items():
            lazy = select(array.lazy)
            by_hand = select(zarr_indexing.LazyArray(array))

            # eagerly, a composed selection reads its first step whole, then slices it
            def eager(select: Callable[[Any], Any] = select) -> Any:
                return select(array)

            np.testing.assert_array_equal(lazy.result(), np.asarray(eager()))
            readers = (eager, lazy.result, by_hand.result)
            # interleaved: a busy moment of the host hits all three
            times = [[seconds(read) for read in readers] for _ in range(args.repeat)]
            rows.append((name, *(min(column) for column in zip(*times))))
    print(
        f"Lazy and eager reads of a 4096² float32 zstd array, 256² chunks, local directory; best of {args.repeat}, seconds"
    )
    print()
    print(
        "| selection | eager `array[...]` | `array.lazy[...].result()` | lazy / eager | `LazyArray(array)` by hand | by hand / eager |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, eager_s, lazy_s, hand_s in rows:
        print(
            f"| `{name}` | {eager_s:.3f} | {lazy_s:.3f} | {lazy_s / eager_s:.2f} | {hand_s:.3f} | {hand_s / eager_s:.2f} |"
        )


if __name__ == "__main__":
    main()
