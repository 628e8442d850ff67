"""The tensorstore engine (``import tensorstore``), through its ``zarr3`` driver.

Every operation gets a new ``tensorstore.Context`` so nothing (metadata,
chunks) is cached from one repetition to the next; the context's resource
limits stay at their defaults, except with ``Engine(threads=N)`` (the thread
sweep): then every context is made from the spec
``{"data_copy_concurrency": {"limit": N}, "file_io_concurrency": {"limit": N}}``
(N threads for encoding, decoding and copying; N for file I/O).

tensorstore has no group API. As a tensorstore user does, groups are handled
with its key-value store layer: ``create_group`` writes the group's
``zarr.json`` through a ``file`` KvStore and creates each member array with
``tensorstore.open``; ``list_group`` reads the group's ``zarr.json``, lists the
keys below it, and opens every ``<name>/zarr.json`` found as an array to read
its attributes from the opened array's spec.
"""

from __future__ import annotations

import json
from importlib import metadata as importlib_metadata
from typing import Any

import numpy as np
import tensorstore as ts

from ..data import ArraySpec

_BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


def _kvstore(path: str) -> dict[str, Any]:
    return {"driver": "file", "path": path}


def metadata(spec: ArraySpec, attributes: dict[str, Any] | None = None) -> dict[str, Any]:
    """The zarr3 metadata tensorstore creates the array with (same as the other engines')."""
    codecs: list[dict[str, Any]] = [_BYTES]
    if spec.zstd_level is not None:
        codecs.append({"name": "zstd", "configuration": {"level": spec.zstd_level, "checksum": False}})
    grid = spec.chunks
    if spec.shards is not None:
        codecs = [
            {
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": list(spec.chunks),
                    "codecs": codecs,
                    "index_codecs": [_BYTES, {"name": "crc32c"}],
                    "index_location": "end",
                },
            }
        ]
        grid = spec.shards
    meta: dict[str, Any] = {
        "shape": list(spec.shape),
        "data_type": spec.dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(grid)}},
        "chunk_key_encoding": {"name": "default"},
        "fill_value": 0,
        "codecs": codecs,
    }
    if attributes is not None:
        meta["attributes"] = attributes
    return meta


def _create(path: str, spec: ArraySpec, context: Any, attributes: dict[str, Any] | None = None) -> Any:
    return ts.open(
        {
            "driver": "zarr3",
            "kvstore": _kvstore(path),
            "metadata": metadata(spec, attributes),
            "create": True,
            "delete_existing": True,
        },
        context=context,
    ).result()


def _open(path: str, context: Any) -> Any:
    return ts.open(
        {"driver": "zarr3", "kvstore": _kvstore(path), "open": True}, read=True, context=context
    ).result()


def context_spec(threads: int | None) -> dict[str, Any]:
    """The context spec of every operation: defaults, or ``threads`` of each kind."""
    if threads is None:
        return {}
    return {"data_copy_concurrency": {"limit": threads}, "file_io_concurrency": {"limit": threads}}


class Engine:
    name = "tensorstore"

    def __init__(self, threads: int | None = None) -> None:
        self._spec = context_spec(threads)

    def _context(self) -> Any:
        """A new context (nothing cached), with this engine's concurrency limits."""
        return ts.Context(ts.Context.Spec(self._spec)) if self._spec else ts.Context()

    def write_array(self, path: str, spec: ArraySpec, data: np.ndarray) -> None:
        _create(path, spec, self._context()).write(data).result()

    def read_array(self, path: str) -> np.ndarray:
        return _open(path, self._context()).read().result()

    def open_array(self, path: str) -> Any:
        return _open(path, self._context())

    def read_region(self, handle: Any, region: tuple[slice, ...]) -> np.ndarray:
        return handle[region].read().result()

    def create_group(self, path: str, members: dict[str, dict[str, Any]], spec: ArraySpec) -> None:
        context = self._context()
        kv = ts.KvStore.open(_kvstore(path + "/"), context=context).result()
        group = {"zarr_format": 3, "node_type": "group", "attributes": {}}
        kv.write("zarr.json", json.dumps(group).encode()).result()
        for name, attributes in members.items():
            _create(f"{path}/{name}", spec, context, attributes)

    def list_group(self, path: str) -> dict[str, dict[str, Any]]:
        context = self._context()
        kv = ts.KvStore.open(_kvstore(path + "/"), context=context).result()
        found = kv.read("zarr.json").result()
        if found.state != "value" or json.loads(found.value).get("node_type") != "group":
            raise FileNotFoundError(f"no zarr v3 group at {path}")
        names = sorted(
            {
                key[: -len(b"/zarr.json")].decode()
                for key in kv.list().result()
                if key.endswith(b"/zarr.json") and key.count(b"/") == 1
            }
        )
        out = {}
        for name in names:
            spec = _open(f"{path}/{name}", context).spec().to_json()
            out[name] = spec["metadata"].get("attributes", {})
        return out

    def configuration(self) -> dict[str, Any]:
        # read back from a context made as the operations make theirs ({}: a default)
        context = self._context()
        limits = {name: context[name].to_json() for name in ("data_copy_concurrency", "file_io_concurrency")}
        copy_limit = limits["data_copy_concurrency"].get("limit")
        return {
            "version": importlib_metadata.version("tensorstore"),
            "threads": copy_limit if isinstance(copy_limit, int) else None,
            "context_limits": limits,
            "context": (
                f"a new tensorstore.Context({self._spec}) per operation"
                if self._spec
                else "a new tensorstore.Context() (defaults) per operation"
            ),
        }
