"""1,000 concurrent small reads through an asyncio API: zarrforge.asyncio against
zarr-python 3's ``zarr.api.asynchronous``, on the same array in the same store.

    python benchmarks/async_reads.py [--store local|s3] [--reads 1000] [--repeat 5]

The array (1,000 x 64 float64, chunks of one row, zstd) is written once by zarr-python;
each engine then opens it and awaits ``asyncio.gather`` of ``--reads`` ``getitem`` calls
of one row's 16 elements, best of ``--repeat``. ``s3`` serves the directory's keys from
moto's S3 server on 127.0.0.1 (no added latency). Not a test: it prints a table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from zarrforge.abc.store import Store


async def zarrforge_reads(store, reads):
    import zarrforge.asyncio as zfa

    arr = await zfa.open_array(store, "a", mode="r")
    start = time.perf_counter()
    values = await asyncio.gather(*(arr.getitem((i % arr.shape[0], slice(0, 16))) for i in range(reads)))
    return time.perf_counter() - start, values


async def zarr_python_reads(store, reads):
    import zarr.api.asynchronous as za

    if callable(store):  # an S3 store is made on the loop that uses it (aiobotocore's rule)
        store = store()
    arr = await za.open_array(store=store, path="a", mode="r")
    start = time.perf_counter()
    values = await asyncio.gather(*(arr.getitem((i % arr.shape[0], slice(0, 16))) for i in range(reads)))
    return time.perf_counter() - start, values


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", choices=("local", "s3"), default="local")
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import zarr

    data = np.random.default_rng(0).random((1000, 64))
    with tempfile.TemporaryDirectory() as tmp:
        if args.store == "local":
            zarr.create_array(tmp, name="a", data=data, chunks=(1, 64))
            ours: str | Store = tmp
            theirs: str | Callable[[], Any] = tmp
            finish = None
        else:
            from zarrforge.hierarchy_api import resolve_store
            from zarrforge.testing.s3_server import loopback_s3_server

            os.environ.update(
                {
                    "AWS_ACCESS_KEY_ID": "testing",
                    "AWS_SECRET_ACCESS_KEY": "testing",
                    "AWS_DEFAULT_REGION": "us-east-1",
                    "NO_PROXY": "127.0.0.1",
                }
            )
            server = loopback_s3_server()
            endpoint = server.__enter__()
            options = {"key": "testing", "secret": "testing", "endpoint_url": endpoint}
            import s3fs

            bucket = f"zf-{uuid.uuid4().hex[:12]}"
            s3fs.S3FileSystem(**options).mkdir(bucket)
            from zarr.storage import FsspecStore

            zarr.create_array(
                FsspecStore.from_url(f"s3://{bucket}", storage_options=options),
                name="a",
                data=data,
                chunks=(1, 64),
            )

            def fresh_fsspec_store() -> Any:
                return FsspecStore.from_url(
                    f"s3://{bucket}", storage_options={**options, "skip_instance_cache": True}
                )

            theirs = fresh_fsspec_store

            ours = resolve_store(f"s3://{bucket}", storage_options=options)
            finish = server
        results = {}
        for name, run, store in (
            ("zarrforge.asyncio", zarrforge_reads, ours),
            ("zarr.api.asynchronous", zarr_python_reads, theirs),
        ):

            async def rounds(run=run, store=store):
                return [await run(store, args.reads) for _ in range(args.repeat)]

            times = []
            for seconds, values in asyncio.run(rounds()):
                assert all(np.array_equal(v, data[i % 1000, :16]) for i, v in enumerate(values))
                times.append(seconds)
            results[name] = min(times)
        if finish is not None:
            finish.__exit__(None, None, None)
    base = results["zarr.api.asynchronous"]
    print(f"| engine | {args.reads} reads, best of {args.repeat} (s) | / zarr-python |")
    print("| --- | --- | --- |")
    for name, seconds in results.items():
        print(f"| {name} | {seconds:.4f} | {seconds / base:.2f} |")


if __name__ == "__main__":
    main()
