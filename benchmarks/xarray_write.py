"""Writing an xarray Dataset: zarrforge_xarray.to_zarr against ds.to_zarr (zarr-python).

    python benchmarks/xarray_write.py [--scale 1] [--repeat 3] [--variables 20] [--path /dev/shm]

One dataset of 20 float32 variables, (64, 512, 410) each at scale 1 (1 GiB in all),
chunks (8, 256, 410), default compression (zstd level 0 for both), Zarr v3, written to a
new directory with each engine in turn (the engines take turns within each repetition, so
a machine that warms up or slows down treats them alike); best of ``--repeat``. Before
timing, each engine's output is opened with the other engine and compared with the
dataset, so a fast wrong writer cannot win. The same run measures a floor: compressing
every chunk of every variable with zstd (the ``zstandard`` package, the level both engines
use) on as many threads as the machine has cores, with no store, no metadata and no xarray;
neither engine can write faster than that. Prints a JSON report with the times, the ratio
zarrforge / zarr-python and each engine's time over the floor. Run it in zarrforge's environment (``.venv``), which has
xarray and zarr-python 3 (on Python 3.11 that is zarr-python 3.1).

Nothing here is a timed assertion.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import xarray as xr
import zstandard

import zarrforge_xarray

VARIABLES = 20
SHAPE = (64, 512, 410)
CHUNKS = (8, 256, 410)


def dataset(scale: float, count: int = VARIABLES) -> xr.Dataset:
    first = max(CHUNKS[0], round(SHAPE[0] * scale / CHUNKS[0]) * CHUNKS[0])
    shape = (first, *SHAPE[1:])
    rng = np.random.default_rng(0)
    base = np.round(rng.normal(280, 5, size=shape).astype("float32"), 1)
    variables = {f"v{i:02d}": (("t", "y", "x"), base + i, {"units": "K", "index": i}) for i in range(count)}
    ds = xr.Dataset(
        variables,
        coords={"t": np.arange(shape[0]), "y": np.arange(shape[1]), "x": np.arange(shape[2])},
        attrs={"title": "benchmark"},
    )
    for name in variables:
        ds[name].encoding["chunks"] = CHUNKS
    return ds


def write_zarrforge(ds: xr.Dataset, path: Path) -> None:
    zarrforge_xarray.to_zarr(ds, str(path), mode="w", consolidated=True)


def write_zarr_python(ds: xr.Dataset, path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds.to_zarr(str(path), mode="w", zarr_format=3, consolidated=True)


def compress_only(ds: xr.Dataset, path: Path) -> None:
    """The floor: zstd over every chunk's bytes, one compressor per thread, nothing stored."""
    pieces = [
        ds[name].values[t : t + CHUNKS[0], y : y + CHUNKS[1]]
        for name in ds.data_vars
        for t in range(0, ds[name].shape[0], CHUNKS[0])
        for y in range(0, ds[name].shape[1], CHUNKS[1])
    ]

    def compress(share: list) -> int:
        compressor = zstandard.ZstdCompressor(level=0, write_content_size=True)
        return sum(len(compressor.compress(np.ascontiguousarray(piece).data)) for piece in share)

    threads = os.cpu_count() or 1
    with ThreadPoolExecutor(threads) as pool:
        sum(pool.map(compress, [pieces[i::threads] for i in range(threads)]))


def check(ds: xr.Dataset, root: Path) -> None:
    """Each engine's output, read by the other engine, equals the dataset."""
    write_zarrforge(ds, root / "check-zf.zarr")
    write_zarr_python(ds, root / "check-zp.zarr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_zarr = xr.open_dataset(root / "check-zf.zarr", engine="zarr").load()
    by_zarrforge = xr.open_dataset(root / "check-zp.zarr", engine="zarrforge").load()
    xr.testing.assert_identical(by_zarr, ds)
    xr.testing.assert_identical(by_zarrforge, ds)
    shutil.rmtree(root / "check-zf.zarr")
    shutil.rmtree(root / "check-zp.zarr")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="1 = 1 GiB of variables")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variables", type=int, default=VARIABLES)
    parser.add_argument("--path", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    args = parser.parse_args(argv)
    ds = dataset(args.scale, args.variables)
    root = Path(tempfile.mkdtemp(prefix="zarrforge-xarray-write-", dir=args.path))
    engines = {
        "zarrforge": write_zarrforge,
        "zarr-python": write_zarr_python,
        "floor (zstd only)": compress_only,
    }
    best = {name: float("inf") for name in engines}
    try:
        check(ds, root)
        for _ in range(args.repeat):
            for name, write in engines.items():
                target = root / "output.zarr"
                start = time.perf_counter()
                write(ds, target)
                best[name] = min(best[name], time.perf_counter() - start)
                shutil.rmtree(target, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report = {
        "variables": args.variables,
        "shape": list(ds["v00"].shape),
        "bytes": int(sum(v.nbytes for v in ds.data_vars.values())),
        "chunks": list(CHUNKS),
        "repeat": args.repeat,
        "best_s": best,
        "ratio_zarrforge_to_zarr_python": best["zarrforge"] / best["zarr-python"],
        "over_floor": {name: best[name] / best["floor (zstd only)"] for name in ("zarrforge", "zarr-python")},
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
