"""The zarr-python 3 engine (``import zarr``), at its default async configuration.

``Engine(threads=N)`` (the thread sweep) sets ``threading.max_workers`` to N: the size of
the thread pool zarr-python makes the default executor of its event loop, where its codecs
run (``asyncio.to_thread``). ``async.concurrency`` (how many chunks are in flight) stays at
its default. ``configuration()["threads"]`` is the pool's size as made (``None`` while
zarr-python has made none: then asyncio's default executor serves, ``min(32, CPUs + 4)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import zarr
import zarr.core.sync
from zarr.codecs import BytesCodec, ZstdCodec

from ..data import ArraySpec


def _options(spec: ArraySpec) -> dict[str, Any]:
    compressors = None if spec.zstd_level is None else ZstdCodec(level=spec.zstd_level, checksum=False)
    return {
        "shape": spec.shape,
        "dtype": spec.dtype,
        "chunks": spec.chunks,
        "shards": spec.shards,
        "compressors": compressors,
        "serializer": BytesCodec(endian="little"),
        "fill_value": 0,
    }


def _pool_size() -> int | None:
    """The workers of zarr-python's own thread pool, if it made one."""
    executor = getattr(zarr.core.sync, "_executor", None)
    return getattr(executor, "_max_workers", None) if executor is not None else None


class Engine:
    name = "zarr-python"

    def __init__(self, threads: int | None = None) -> None:
        if threads is not None:
            zarr.config.set({"threading.max_workers": threads})

    def write_array(self, path: str, spec: ArraySpec, data: np.ndarray) -> None:
        array = zarr.create_array(store=path, zarr_format=3, **_options(spec))
        array[...] = data

    def read_array(self, path: str) -> np.ndarray:
        return np.asarray(zarr.open_array(store=path, mode="r")[...])  # typed array-or-scalar

    def open_array(self, path: str) -> Any:
        return zarr.open_array(store=path, mode="r")

    def read_region(self, handle: Any, region: tuple[slice, ...]) -> np.ndarray:
        return handle[region]

    def create_group(self, path: str, members: dict[str, dict[str, Any]], spec: ArraySpec) -> None:
        group = zarr.create_group(store=path, zarr_format=3)
        for name, attributes in members.items():
            group.create_array(name=name, attributes=attributes, **_options(spec))

    def list_group(self, path: str) -> dict[str, dict[str, Any]]:
        group = zarr.open_group(store=path, mode="r")
        return {name: node.attrs.asdict() for name, node in group.members()}

    def configuration(self) -> dict[str, Any]:
        return {
            "version": zarr.__version__,
            "threads": _pool_size() or zarr.config.get("threading.max_workers"),
            "async": dict(zarr.config.get("async")),
            "threading": dict(zarr.config.get("threading")),
            "codec_pipeline": dict(zarr.config.get("codec_pipeline")),
            "write_empty_chunks": zarr.config.get("array.write_empty_chunks"),
        }
