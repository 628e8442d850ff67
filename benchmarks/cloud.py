"""Cloud workloads W7 and W8: S3 with a round-trip latency, zarrforge against every peer.

    python benchmarks/cloud.py [--latency 20] [--repeat 3] [--scale 1] [--reads 500]
                               [--engines ...] [--json benchmarks/results/cloud.json]

A local S3 with ``--latency`` milliseconds per request (:mod:`benchmarks.s3_server`:
moto's server behind a latency proxy, both on 127.0.0.1). Workloads, each engine
through its own public API, best of ``--repeat``:

* **W7w**: create a float32 array of 256 chunks of 1 MiB ((256, 512, 512), chunks
  (1, 512, 512), ``bytes`` + ``zstd`` level 1) and write it whole in one call;
* **W7r**: open it and read it whole in one call;
* **W8**: open a sharded array ((64, 512, 512) float32, shards (16, 256, 256) of inner
  chunks (4, 32, 32), zstd level 1) written beforehand, then ``--reads`` reads of a
  (1, 1, 32) region at positions from a fixed seed (the same for every engine), each a
  separate call.

``--scale`` shrinks the arrays' first axis (for the smoke test). Every read is checked
against the values written (a wrong answer stops the run). Engines: zarrforge over its
fsspec store (``s3://``) and over obstore (``obstore+s3://``), zarr-python 3 with
``FsspecStore`` and with ``ObjectStore`` (obstore), tensorstore's ``s3`` kvstore. An
engine that fails is reported with its error, not dropped. Prints a table of seconds
and of zarrforge-over-peer ratios (below 1: zarrforge faster) and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.s3_server import latency_s3

BUCKET = "bench"
SEED = 8


def values_for(shape: tuple[int, ...]) -> np.ndarray:
    """A smooth float32 field with a little noise, rounded so zstd keeps about a third."""
    rng = np.random.default_rng(SEED)
    grid = np.indices(shape, dtype=np.float32).sum(axis=0)
    return np.round(np.sin(grid / 37.0) * 100 + rng.normal(size=shape).astype(np.float32), 1)


def regions(shape: tuple[int, ...], n: int) -> list[tuple[slice, ...]]:
    rng = np.random.default_rng(SEED + 1)
    out: list[tuple[slice, ...]] = []
    for _ in range(n):
        i, j = (int(rng.integers(0, shape[0])), int(rng.integers(0, shape[1])))
        k = int(rng.integers(0, shape[2] // 32)) * 32
        out.append((slice(i, i + 1), slice(j, j + 1), slice(k, k + 32)))
    return out


# --- engines: create(name, values, chunks, shards) -> None; open(name) -> handle;
#     read(handle, selection) -> ndarray ---------------------------------------------------


class Zarrforge:
    def __init__(self, endpoint: str, obstore: bool) -> None:
        import zarrforge as zf

        self.zf = zf
        self.prefix = f"{'obstore+' if obstore else ''}s3://{BUCKET}/"
        self.options = (
            {
                "endpoint": endpoint,
                "region": "us-east-1",
                "access_key_id": "testing",
                "secret_access_key": "testing",
                "virtual_hosted_style_request": False,
                "client_options": {"allow_http": True},
            }
            if obstore
            else {
                "key": "testing",
                "secret": "testing",
                "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"},
            }
        )

    def create(
        self, name: str, values: np.ndarray, chunks: tuple[int, ...], shards: tuple[int, ...] | None
    ) -> None:
        array = self.zf.create_array(
            self.prefix + name,
            shape=values.shape,
            dtype=values.dtype,
            chunks=chunks,
            shards=shards,
            fill_value=0,
            compressors=[{"name": "zstd", "configuration": {"level": 1}}],
            storage_options=self.options,
            overwrite=True,
        )
        array[...] = values

    def open(self, name: str) -> Any:
        return self.zf.open_array(self.prefix + name, mode="r", storage_options=self.options)

    def read(self, handle: Any, selection: Any) -> np.ndarray:
        return handle[selection]


class ZarrPython:
    def __init__(self, endpoint: str, obstore: bool) -> None:
        import zarr
        import zarr.storage

        self.zarr = zarr
        self.store: Callable[[bool], Any]  # a zarr-python store, read-only or not
        if obstore:
            from obstore.store import S3Store

            self.store = lambda read_only: zarr.storage.ObjectStore(
                S3Store(
                    BUCKET,
                    endpoint=endpoint,
                    region="us-east-1",
                    access_key_id="testing",
                    secret_access_key="testing",
                    virtual_hosted_style_request=False,
                    client_options={"allow_http": True},
                ),
                read_only=read_only,
            )
        else:
            options = {
                "key": "testing",
                "secret": "testing",
                "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"},
            }
            self.store = lambda read_only: zarr.storage.FsspecStore.from_url(
                f"s3://{BUCKET}", storage_options=options, read_only=read_only
            )

    def create(
        self, name: str, values: np.ndarray, chunks: tuple[int, ...], shards: tuple[int, ...] | None
    ) -> None:
        from zarr.codecs import ZstdCodec

        array = self.zarr.create_array(
            self.store(False),
            name=name,
            shape=values.shape,
            dtype=values.dtype,
            chunks=chunks,
            shards=shards,
            fill_value=0,
            compressors=ZstdCodec(level=1, checksum=False),
            overwrite=True,
        )
        array[...] = values

    def open(self, name: str) -> Any:
        return self.zarr.open_array(self.store(True), path=name, mode="r")

    def read(self, handle: Any, selection: Any) -> np.ndarray:
        return handle[selection]


class Tensorstore:
    def __init__(self, endpoint: str, obstore: bool = False) -> None:
        import tensorstore as ts

        self.ts = ts
        self.kvstore = {"driver": "s3", "bucket": BUCKET, "endpoint": endpoint, "aws_region": "us-east-1"}

    def _spec(self, name: str) -> dict[str, Any]:
        return {"driver": "zarr3", "kvstore": {**self.kvstore, "path": name + "/"}}

    def create(
        self, name: str, values: np.ndarray, chunks: tuple[int, ...], shards: tuple[int, ...] | None
    ) -> None:
        zstd = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}
        little = {"name": "bytes", "configuration": {"endian": "little"}}
        if shards is None:
            grid, codecs = chunks, [little, zstd]
        else:
            grid, codecs = (
                shards,
                [
                    {
                        "name": "sharding_indexed",
                        "configuration": {
                            "chunk_shape": list(chunks),
                            "codecs": [little, zstd],
                            "index_codecs": [little, {"name": "crc32c"}],
                            "index_location": "end",
                        },
                    }
                ],
            )
        metadata = {
            "shape": list(values.shape),
            "data_type": str(values.dtype),
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(grid)}},
            "codecs": codecs,
            "fill_value": 0,
        }
        store = self.ts.open(
            {**self._spec(name), "metadata": metadata, "create": True, "delete_existing": True},
            context=self.ts.Context(),
        ).result()
        store.write(values).result()

    def open(self, name: str) -> Any:
        return self.ts.open({**self._spec(name), "open": True}, context=self.ts.Context()).result()

    def read(self, handle: Any, selection: Any) -> np.ndarray:
        return handle[selection].read().result()


ENGINES: dict[str, Callable[[str], Any]] = {
    "zarrforge (fsspec)": lambda ep: Zarrforge(ep, obstore=False),
    "zarrforge (obstore)": lambda ep: Zarrforge(ep, obstore=True),
    "zarr-python (FsspecStore)": lambda ep: ZarrPython(ep, obstore=False),
    "zarr-python (ObjectStore)": lambda ep: ZarrPython(ep, obstore=True),
    "tensorstore (s3)": lambda ep: Tensorstore(ep),
}
ZARRFORGE = ("zarrforge (fsspec)", "zarrforge (obstore)")


# --- running ------------------------------------------------------------------------------


def best(repeat: int, before: Callable[[], Any], timed: Callable[[Any], Any]) -> float:
    times = []
    for _ in range(repeat):
        state = before()
        start = time.perf_counter()
        timed(state)
        times.append(time.perf_counter() - start)
    return min(times)


def check(got: np.ndarray, expected: np.ndarray, what: str) -> None:
    if got.shape != expected.shape or not np.array_equal(got, expected):
        raise AssertionError(f"{what}: read values differ from what was written")


def run_engine(engine: Any, label: str, args: argparse.Namespace) -> dict[str, float]:
    slug = "".join(c if c.isalnum() else "-" for c in label).strip("-")
    depth = max(1, round(256 * args.scale))
    w7 = values_for((depth, 512, 512))
    w8 = values_for((max(16, round(64 * args.scale)), 512, 512))
    where = regions(w8.shape, args.reads)
    out: dict[str, float] = {}
    if "W7" in args.workloads:
        out["W7w"] = best(
            args.repeat, lambda: None, lambda _: engine.create(f"{slug}/w7", w7, (1, 512, 512), None)
        )
        check(engine.read(engine.open(f"{slug}/w7"), ...), w7, f"{label} W7")
        out["W7r"] = best(args.repeat, lambda: None, lambda _: engine.read(engine.open(f"{slug}/w7"), ...))
    if "W8" in args.workloads:
        engine.create(f"{slug}/w8", w8, (4, 32, 32), (16, 256, 256))
        handle = engine.open(f"{slug}/w8")
        for region in where[:20]:
            check(engine.read(handle, region), w8[region], f"{label} W8")

        def reads(handle: Any) -> None:
            for region in where:
                engine.read(handle, region)

        out["W8"] = best(args.repeat, lambda: engine.open(f"{slug}/w8"), reads)
    return out


def table(results: dict[str, dict[str, Any]], workloads: list[str]) -> str:
    names = list(results)
    lines = ["| workload | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for w in workloads:
        cells = [(f"{r[w]:.3f} s" if isinstance(r.get(w), float) else "FAILED") for r in results.values()]
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "zarrforge over each peer (below 1: zarrforge faster):",
        "",
        "| workload | zarrforge store | " + " | ".join(n for n in names if n not in ZARRFORGE) + " |",
        "|---|---|" + "---:|" * (len(names) - len(ZARRFORGE)),
    ]
    for w in workloads:
        for ours in ZARRFORGE:
            mine = results.get(ours, {}).get(w)
            cells = []
            for peer in names:
                if peer in ZARRFORGE:
                    continue
                theirs = results[peer].get(w)
                if isinstance(mine, float) and isinstance(theirs, float):
                    cells.append(f"{mine / theirs:.2f}")
                else:
                    cells.append("-")
            lines.append(f"| {w} | {ours} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=20.0, help="milliseconds per request")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--workloads", default="W7,W8")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--json", type=Path, default=Path(__file__).parent / "results" / "cloud.json")
    args = parser.parse_args(argv)
    args.workloads = args.workloads.split(",")
    names = [n.strip() for n in args.engines.split(",") if n.strip()]
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        parser.error(f"unknown engines {unknown}; known: {', '.join(ENGINES)}")
    shown = [w for w in ("W7w", "W7r", "W8") if w[:2] in args.workloads]
    results: dict[str, dict[str, Any]] = {}
    with latency_s3(args.latency) as (endpoint, direct):
        import boto3

        boto3.client("s3", endpoint_url=direct, region_name="us-east-1").create_bucket(Bucket=BUCKET)
        for name in names:
            try:
                results[name] = run_engine(ENGINES[name](endpoint), name, args)
            except AssertionError:
                raise
            except Exception as exc:  # noqa: BLE001  # a peer that cannot run is reported, not dropped
                results[name] = {"error": f"{type(exc).__name__}: {exc}"[:500]}
            print(f"{name}: {results[name]}", file=sys.stderr, flush=True)
    text = table(results, shown)
    print(f"latency {args.latency:g} ms per request, scale {args.scale:g}, best of {args.repeat}\n")
    print(text)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "date": time.strftime("%Y-%m-%d"),
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "latency_ms": args.latency,
                "scale": args.scale,
                "reads": args.reads,
                "repeat": args.repeat,
                "seconds": results,
                "table": text,
                "command": "python benchmarks/cloud.py " + " ".join(argv or sys.argv[1:]),
            },
            indent=2,
        )
        + "\n"
    )
    return 0 if all("error" not in results[n] for n in names if n in ZARRFORGE) else 1


if __name__ == "__main__":
    sys.exit(main())
