"""Reading many small chunks from S3 with a per-request latency: batched vs one at a time.

Starts a local S3 with ``--latency`` milliseconds per request (default 20;
:mod:`benchmarks.s3_server`: moto's server behind a latency proxy, both on 127.0.0.1).
An array of ``--chunks`` small chunks (default 200)
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
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.s3_server import latency_s3


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
    parser.add_argument(
        "--zarr-connections",
        type=int,
        default=0,
        help="botocore connection pool for zarr-python (0: its default)",
    )
    parser.add_argument("--output", default=str(Path(__file__).parent / "results" / "s3_latency.json"))
    args = parser.parse_args()

    import boto3
    import zarr
    from zarr.storage import FsspecStore as ZarrFsspecStore

    import zarrforge as zf

    with latency_s3(args.latency) as (endpoint, direct):
        boto3.client("s3", endpoint_url=direct).create_bucket(Bucket="bench")
        # zarrforge's store raises botocore's connection pool (10 by default) to its own
        # concurrency; zarr-python keeps the default unless told (--zarr-connections).
        options = {"client_kwargs": {"endpoint_url": endpoint}, "anon": False, "skip_instance_cache": True}
        zarr_options = dict(options)
        if args.zarr_connections:
            zarr_options["config_kwargs"] = {"max_pool_connections": args.zarr_connections}
        url = "s3://bench/latency.zarr"
        n = args.chunks
        values = np.arange(n * 64, dtype="int32").reshape(n, 64)
        a = zf.create_array(
            url, shape=values.shape, dtype="int32", chunks=(1, 64), compressors=None, storage_options=options
        )
        a[...] = values
        reader = zf.open_array(url, storage_options=options)
        assert np.array_equal(reader[...], values)

        def one_at_a_time() -> None:
            for i in range(n):
                reader.blocks[i]

        z = zarr.open_array(
            ZarrFsspecStore.from_url(url, storage_options=zarr_options, read_only=True), mode="r"
        )
        assert np.array_equal(z[...], values)
        # warm the proxy's memory of the objects
        reader[...]
        z[...]
        one_at_a_time()
        results = {
            "zarrforge batched": best_of(args.repeat, lambda: reader[...]),
            "zarrforge one at a time": best_of(args.repeat, one_at_a_time),
            "zarr-python batched": best_of(args.repeat, lambda: z[...]),
        }

    speedup = results["zarrforge one at a time"] / results["zarrforge batched"]
    vs_zarr = results["zarrforge batched"] / results["zarr-python batched"]
    print(f"{n} chunks, {args.latency:g} ms per request, best of {args.repeat}")
    for name, seconds in results.items():
        print(f"  {name:<26} {seconds:8.3f} s")
    print(f"  batched vs one at a time: {speedup:.1f}x faster")
    print(f"  zarrforge / zarr-python (batched): {vs_zarr:.2f}")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(
        json.dumps(
            {
                "date": time.strftime("%Y-%m-%d"),
                "machine": platform.machine(),
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
                "chunks": n,
                "latency_ms": args.latency,
                "repeat": args.repeat,
                "zarr_connections": args.zarr_connections or "default",
                "seconds": results,
                "batched_speedup": speedup,
                "zarrforge_over_zarr_python": vs_zarr,
                "command": "python benchmarks/s3_latency.py "
                + " ".join(
                    f"--{k} {v}"
                    for k, v in (
                        ("latency", args.latency),
                        ("chunks", n),
                        ("repeat", args.repeat),
                        ("zarr-connections", args.zarr_connections),
                    )
                ),
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
