"""The workloads W1..W6: what each one times, and how its result is checked.

Contract: a :class:`Workload` is run by :func:`benchmarks.child.run` as

    state = w.prepare(engine, ctx)          # untimed: make inputs, data on disk
    for each repetition:
        w.before_rep(engine, ctx, state)    # untimed: e.g. remove the previous output
        result = w.run(engine, ctx, state)  # timed
    w.verify(engine, ctx, state, result)    # untimed; raises VerificationError

Every workload is the same for every engine: the engine object (see
:mod:`benchmarks.engines`) is the only thing that differs. Each engine reads
data that it wrote itself: a read workload reuses the store that the matching
write workload left (a ``<store>.complete`` file records its spec) or, if
there is none, writes it first, untimed. Write workloads always start from a
missing directory (removed untimed), so they measure create + write only.

``limit`` names the limit (``"L-zstd/encode"`` etc., see
:mod:`benchmarks.limits`) that bounds a workload from below, if any.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from . import data


class VerificationError(AssertionError):
    """The values read (or the members listed) differ from what was written."""


@dataclasses.dataclass
class Context:
    """Where an engine keeps its stores, and the scale of the run."""

    root: Path
    scale: float

    def store(self, dataset: str) -> Path:
        return self.root / f"{dataset}.zarr"


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".complete")


def _remove(path: Path) -> None:
    _marker(path).unlink(missing_ok=True)
    if path.exists():
        shutil.rmtree(path)


def _mark(path: Path, what: dict[str, Any]) -> None:
    _marker(path).write_text(json.dumps(what, sort_keys=True))


def _is_marked(path: Path, what: dict[str, Any]) -> bool:
    marker = _marker(path)
    return path.exists() and marker.exists() and json.loads(marker.read_text()) == what


def mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:.3g} MiB"


def stored_bytes(path: Path) -> int:
    total = 0
    for folder, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(folder, f)) for f in files)
    return total


def check_equal(actual: Any, expected: np.ndarray, what: str) -> None:
    actual = np.asarray(actual)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        raise VerificationError(
            f"{what}: got shape {actual.shape} dtype {actual.dtype}, "
            f"expected shape {expected.shape} dtype {expected.dtype}"
        )
    if not np.array_equal(actual, expected):
        wrong = np.argwhere(actual != expected)
        first = tuple(int(i) for i in wrong[0])
        raise VerificationError(
            f"{what}: {len(wrong)} of {expected.size} values differ; first at "
            f"{first}: got {actual[first]!r}, expected {expected[first]!r}"
        )


def ensure_array(engine: Any, ctx: Context, dataset: str) -> Path:
    """The engine's store of ``dataset``, written now (untimed) unless already complete."""
    spec = data.spec(dataset, ctx.scale)
    path = ctx.store(dataset)
    if not _is_marked(path, spec.to_json()):
        _remove(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        engine.write_array(str(path), spec, data.generate(spec))
        _mark(path, spec.to_json())
    return path


def ensure_group(engine: Any, ctx: Context, dataset: str = "group") -> Path:
    path = ctx.store(dataset)
    n = data.group_size(dataset, ctx.scale)
    what = {"members": n, "spec": data.member_spec().to_json()}
    if not _is_marked(path, what):
        _remove(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        engine.create_group(str(path), data.group_members(n), data.member_spec())
        _mark(path, what)
    return path


def check_members(listed: dict[str, dict[str, Any]], what: str, n: int = data.GROUP_MEMBERS) -> None:
    expected = data.group_members(n)
    if len(listed) != len(expected):
        raise VerificationError(f"{what}: listed {len(listed)} members, expected {len(expected)}")
    for name, attributes in expected.items():
        if name not in listed:
            raise VerificationError(f"{what}: member {name!r} is missing")
        if listed[name] != attributes:
            raise VerificationError(
                f"{what}: member {name!r} has attributes {listed[name]!r}, expected {attributes!r}"
            )


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    title: str
    dataset: str
    limit: str | None = None

    def size_note(self, scale: float) -> str:
        s = data.spec(self.dataset, scale)
        return f"{s.shape} {s.dtype}, {mib(s.nbytes)}"

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        return {}

    def before_rep(self, engine: Any, ctx: Context, state: dict[str, Any]) -> None:
        pass

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> Any:
        raise NotImplementedError

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        """Raise :class:`VerificationError` if wrong; else details for the record."""
        raise NotImplementedError


class WriteArray(Workload):
    """Create the array and write it whole, in one call."""

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        spec = data.spec(self.dataset, ctx.scale)
        ctx.root.mkdir(parents=True, exist_ok=True)
        return {"spec": spec, "values": data.generate(spec), "path": ctx.store(self.dataset)}

    def before_rep(self, engine: Any, ctx: Context, state: dict[str, Any]) -> None:
        _remove(state["path"])

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> None:
        engine.write_array(str(state["path"]), state["spec"], state["values"])

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        path = state["path"]
        check_equal(engine.read_array(str(path)), state["values"], f"{self.name} read back")
        _mark(path, state["spec"].to_json())
        return {"stored_mib": stored_bytes(path) / 2**20}


class ReadArray(Workload):
    """Open the array and read it whole."""

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        return {"path": ensure_array(engine, ctx, self.dataset)}

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> np.ndarray:
        return engine.read_array(str(state["path"]))

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        check_equal(result, data.generate(data.spec(self.dataset, ctx.scale)), self.name)
        return {"stored_mib": stored_bytes(state["path"]) / 2**20}


class RandomRegions(Workload):
    """Open the array once, then read each region with a call of its own."""

    def size_note(self, scale: float) -> str:
        s = data.spec(self.dataset, scale)
        return f"{data.REGION_READS} x (1,1,{data.REGION_WIDTH}) of {s.shape}"

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        spec = data.spec(self.dataset, ctx.scale)
        return {"path": ensure_array(engine, ctx, self.dataset), "regions": data.regions(spec)}

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> list[np.ndarray]:
        handle = engine.open_array(str(state["path"]))
        return [engine.read_region(handle, region) for region in state["regions"]]

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        expected = data.generate(data.spec(self.dataset, ctx.scale))
        if len(result) != len(state["regions"]):
            raise VerificationError(f"{self.name}: {len(result)} results for {len(state['regions'])} reads")
        for i, (region, got) in enumerate(zip(state["regions"], result)):
            check_equal(got, expected[region], f"{self.name} read {i} {region}")
        return {"reads": len(result)}


class CreateGroup(Workload):
    """Create the group and its members, each with its attributes."""

    def size_note(self, scale: float) -> str:
        return f"{data.group_size(self.dataset, scale)} arrays (10,) int32, 3 attributes each"

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        ctx.root.mkdir(parents=True, exist_ok=True)
        return {"path": ctx.store(self.dataset), "n": data.group_size(self.dataset, ctx.scale)}

    def before_rep(self, engine: Any, ctx: Context, state: dict[str, Any]) -> None:
        _remove(state["path"])

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> None:
        engine.create_group(str(state["path"]), data.group_members(state["n"]), data.member_spec())

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        check_members(engine.list_group(str(state["path"])), self.name, state["n"])
        _mark(state["path"], {"members": state["n"], "spec": data.member_spec().to_json()})
        return {"members": state["n"]}


class ListGroup(Workload):
    """Open the group fresh and list every member with its attributes."""

    def size_note(self, scale: float) -> str:
        return f"{data.group_size(self.dataset, scale)} members"

    def prepare(self, engine: Any, ctx: Context) -> dict[str, Any]:
        return {
            "path": ensure_group(engine, ctx, self.dataset),
            "n": data.group_size(self.dataset, ctx.scale),
        }

    def run(self, engine: Any, ctx: Context, state: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return engine.list_group(str(state["path"]))

    def verify(self, engine: Any, ctx: Context, state: dict[str, Any], result: Any) -> dict[str, Any]:
        check_members(result, self.name, state["n"])
        return {"members": len(result)}


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in [
        WriteArray("W1", "write float32 3-D, chunks 128^3, zstd 1", "float3d", "L-zstd/write"),
        ReadArray("W2", "read W1's array whole", "float3d", "L-zstd/read"),
        WriteArray(
            "W3", "write it sharded: shards 256^3, inner 32^3, zstd 1", "sharded3d", "L-zstd-inner/write"
        ),
        ReadArray("W3r", "read W3's array whole", "sharded3d", "L-zstd-inner/read"),
        RandomRegions("W4", "random (1,1,32) reads of W3's array, one call each", "sharded3d"),
        WriteArray("W5", "write uint8 2-D, chunks 64^2, uncompressed", "bytes2d", "L-files/atomic"),
        ReadArray("W5r", "read W5's array whole", "bytes2d", "L-files/read"),
        CreateGroup("W6c", "create a group of 300 small arrays with attributes", "group"),
        ListGroup("W6", "open the group, list members with attributes", "group", "L-list/list"),
        CreateGroup("W6Lc", "create a group of 10,000 small arrays with attributes", "group10k"),
        ListGroup(
            "W6L", "open the 10,000-member group, list members with attributes", "group10k", "L-listL/list"
        ),
        # the scaling family: one 256 MiB array, ever more and smaller chunks
        *(
            workload
            for label, dataset in data.SCALING.items()
            for workload in (
                WriteArray(
                    f"W9w-{label}", f"write 256 MiB float32 2-D in {label[:-1]} Ki chunks, zstd 1", dataset
                ),
                ReadArray(f"W9r-{label}", f"read it whole ({label[:-1]} Ki chunks)", dataset),
            )
        ),
    ]
}
