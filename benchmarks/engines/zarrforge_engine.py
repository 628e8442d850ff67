"""The zarrforge engine (``import zarrforge``), with its default runtime settings.

``Engine(threads=N)`` (the thread sweep) sets ``zarrforge.config.update(threads=N)``:
the worker threads that encode and decode chunks; nothing else changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import zarrforge as zf

from ..data import ArraySpec

# zarrforge loads its user API the first time a name is used; load it here, with the
# engine, so that a workload's timing holds the workload alone, as it did when
# ``import zarrforge`` loaded the API (the other engines' imports load theirs whole)
zf.create_array, zf.create_group, zf.open_array, zf.open_group  # noqa: B018


def _compressors(spec: ArraySpec) -> list[dict[str, Any]] | None:
    if spec.zstd_level is None:
        return None
    return [{"name": "zstd", "configuration": {"level": spec.zstd_level, "checksum": False}}]


def _create(store: Any, path: str, spec: ArraySpec, attributes: dict[str, Any] | None = None) -> Any:
    return zf.create_array(
        store,
        path,
        shape=spec.shape,
        dtype=spec.dtype,
        chunks=spec.chunks,
        shards=spec.shards,
        compressors=_compressors(spec),
        serializer={"name": "bytes", "configuration": {"endian": "little"}},
        fill_value=0,
        attributes=attributes,
    )


class Engine:
    name = "zarrforge"

    def __init__(self, threads: int | None = None) -> None:
        if threads is not None:
            zf.config.update(threads=threads)

    def write_array(self, path: str, spec: ArraySpec, data: np.ndarray) -> None:
        _create(path, "", spec)[...] = data

    def read_array(self, path: str) -> np.ndarray:
        return zf.open_array(path)[...]

    def open_array(self, path: str) -> Any:
        return zf.open_array(path)

    def read_region(self, handle: Any, region: tuple[slice, ...]) -> np.ndarray:
        return handle[region]

    def create_group(self, path: str, members: dict[str, dict[str, Any]], spec: ArraySpec) -> None:
        group = zf.create_group(path)
        for name, attributes in members.items():
            group.create_array(
                name,
                shape=spec.shape,
                dtype=spec.dtype,
                chunks=spec.chunks,
                compressors=_compressors(spec),
                serializer={"name": "bytes", "configuration": {"endian": "little"}},
                fill_value=0,
                attributes=attributes,
            )

    def list_group(self, path: str) -> dict[str, dict[str, Any]]:
        group = zf.open_group(path, mode="r")
        return {name: node.attrs.asdict() for name, node in group.members()}

    def configuration(self) -> dict[str, Any]:
        settings = zf.config.get()
        return {
            "version": zf.__version__,
            "threads": settings.threads,
            "write_empty_chunks": settings.write_empty_chunks,
            "order": settings.order,
        }
