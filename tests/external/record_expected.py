"""Regenerate ``expected.json``: reference values and peer readability for every corpus node.

Usage (from the repository root)::

    make zarr2-venv                                   # zarr-python 2.18 in .venv-zarr2
    .venv/bin/python tests/external/record_expected.py

Each node found by ``_corpus.discover()`` is read by every peer that can be
asked: zarr-python 3 (in this process), tensorstore (arrays; ``zarr`` driver
for v2, ``zarr3`` for v3) and zarr-python 2.18 (v2 nodes, in its own
environment, through a subprocess). Each reading is summarised by
``_summary`` (shape, data type, SHA-256 of the values; or a group's
attributes and members).

The reference for a case is the reading of the peer that ``manifest.json``
names for the case's writer (the writer itself where it is a peer; otherwise
the implementation closest to it), then whichever other peer reads it; for a
group no peer opens, the attributes and child nodes found in its files. Every peer's outcome is recorded as
``"reads"`` (same summary as the reference), ``"reads, differs in <what>"`` or
``"refuses: <exception>: <message>"``. zarrforge is not consulted: what it does
is the test's business, checked against this file and ``manifest.json``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _corpus  # noqa: E402
from _summary import summarize_array, summarize_group  # noqa: E402

REPO = HERE.parents[1]
ZARR2 = "zarr-python-2.18"
ZARR3 = "zarr-python-3"
TENSORSTORE = "tensorstore"
MESSAGE_CHARS = 200


def _refusal(name: str, message: str) -> str:
    message = " ".join(message.split())
    # tensorstore prefixes the reason with the (machine-specific) file it was reading
    message = re.sub(r'Error opening "\w+" driver: Error reading local file "[^"]*": ', "", message)
    message = re.sub(r" \[tensorstore_spec=.*", "", message)
    message = message.replace(str(_corpus.DATA), "<data>")
    return f"refuses: {name}: {message[:MESSAGE_CHARS]}"


def read_zarr3(node: _corpus.Node) -> dict[str, Any]:
    import zarr

    store = zarr.storage.LocalStore(str(node.store), read_only=True)
    if node.kind == "array":
        arr = zarr.open_array(store, path=node.path, mode="r", zarr_format=node.zarr_format)
        return summarize_array(arr[...])
    group = zarr.open_group(store, path=node.path, mode="r", zarr_format=node.zarr_format)
    return summarize_group(group.attrs.asdict(), [name for name, _ in group.members()])


def read_tensorstore(node: _corpus.Node) -> dict[str, Any]:
    import tensorstore as ts

    spec = {
        "driver": "zarr3" if node.zarr_format == 3 else "zarr",
        "kvstore": {"driver": "file", "path": str(node.directory) + "/"},
    }
    return summarize_array(ts.open(spec, read=True, open=True).result().read().result())


_ZARR2_SCRIPT = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
import zarr
from _summary import summarize_array, summarize_group
out = {}
for case, store, path, kind in json.load(sys.stdin):
    try:
        if kind == "array":
            arr = zarr.open_array(store, path=path or None, mode="r")
            out[case] = {"ok": summarize_array(arr[...])}
        else:
            group = zarr.open_group(store, path=path or None, mode="r")
            out[case] = {"ok": summarize_group(group.attrs.asdict(), list(group.keys()))}
    except Exception as exc:
        out[case] = {"error": [type(exc).__name__, str(exc)]}
json.dump(out, sys.stdout)
"""


def zarr2_python() -> Path:
    venv = REPO / (os.environ.get("ZARRFORGE_ZARR2_VENV") or ".venv-zarr2")
    python = venv / "bin" / "python"
    if not python.exists():
        sys.exit(f"zarr-python 2.18 not found at {python}: run `make zarr2-venv` first")
    return python


def read_all_zarr2(nodes: list[_corpus.Node]) -> dict[str, Any]:
    request = [[n.case, str(n.store), n.path, n.kind] for n in nodes if n.zarr_format == 2]
    done = subprocess.run(
        [str(zarr2_python()), "-c", _ZARR2_SCRIPT, str(HERE)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


DOCUMENTS = "metadata documents"


WRITER_DESCRIPTION = "the writer's description"
_CELL = re.compile(r"^(N|SN|-?\d+)$")


def read_writer_description(node: _corpus.Node) -> dict[str, Any] | None:
    """An array's values as its writer spelled them out in its ``description`` attribute:
    the last resort for arrays no peer reads (zarrs' ``optional`` fixtures draw their grid
    of values there, ``N`` for a missing value and ``SN`` for a present-but-missing inner
    value). Elements become ``None``, the integer, or ``["Some", inner]`` when the data
    type is optional of optional, as ``_summary`` renders such elements."""
    if node.zarr_format != 3:
        return None
    document = _corpus.load(node.directory / _corpus.V3_DOC)
    description = document.get("attributes", {}).get("description")
    if not isinstance(description, str):
        return None
    rows = [line.split() for line in description.splitlines()]
    rows = [row for row in rows if row and all(_CELL.match(cell) for cell in row)]
    shape = document.get("shape")
    if not rows or [len(rows), len(rows[0])] != shape:
        return None
    data_type = document.get("data_type", {})
    nested = isinstance(data_type, dict) and (data_type.get("configuration") or {}).get("name") == "optional"

    def element(cell: str) -> Any:
        if cell == "N":
            return None
        value = None if cell == "SN" else int(cell)
        return ["Some", value] if nested else value

    values = np.empty(shape, dtype=object)
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            values[i, j] = element(cell)
    return summarize_array(values)


def read_documents(node: _corpus.Node) -> dict[str, Any]:
    """A group's summary straight from its files: the last resort when no peer opens the group.

    zarr-python 3 opens every member to list a group, so one member it refuses
    hides the whole group; the attributes and the child nodes on disk are
    what the writer wrote all the same.
    """
    directory = node.directory
    if node.zarr_format == 3:
        attributes = _corpus.load(directory / _corpus.V3_DOC).get("attributes", {})
    else:
        attrs = directory / ".zattrs"
        attributes = json.loads(attrs.read_text(encoding="utf-8")) if attrs.is_file() else {}
    members = [child.name for child in directory.iterdir() if child.is_dir() and _corpus.node_kind(child)]
    return summarize_group(attributes, members)


class _Zarr2Error(Exception):
    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


def _attempt(read: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any] | None, str | None]:
    try:
        return read(), None
    except _Zarr2Error as exc:
        return None, _refusal(exc.name, str(exc))
    except Exception as exc:  # noqa: BLE001  # a peer's failure is a result to record, whatever its type
        return None, _refusal(type(exc).__name__, str(exc))


def reference_peer(manifest: dict[str, Any], node: _corpus.Node) -> str:
    """The peer named by the manifest for the node's writer (longest matching prefix)."""
    source = next(s for s in manifest["sources"] if s["id"] == node.source)
    relative = node.case[len(node.source) + 1 :]
    matches = [w for w in source["writers"] if (relative + "/").startswith(w["prefix"])]
    if not matches:
        sys.exit(f"manifest.json: no writer of source {node.source!r} covers {relative!r}")
    return max(matches, key=lambda w: len(w["prefix"]))["reference"]


def record(nodes: list[_corpus.Node], manifest: dict[str, Any]) -> dict[str, Any]:
    zarr2 = read_all_zarr2(nodes)

    def from_zarr2(node: _corpus.Node) -> dict[str, Any]:
        result = zarr2[node.case]
        if "error" in result:
            raise _Zarr2Error(*result["error"])
        return result["ok"]

    expected: dict[str, Any] = {}
    for node in nodes:
        readers: dict[str, Callable[[], dict[str, Any]]] = {}
        if node.zarr_format == 2:
            readers[ZARR2] = functools.partial(from_zarr2, node)
        readers[ZARR3] = functools.partial(read_zarr3, node)
        if node.kind == "array":
            readers[TENSORSTORE] = functools.partial(read_tensorstore, node)
        results = {name: _attempt(read) for name, read in readers.items()}
        preferred = reference_peer(manifest, node)
        order = [preferred, *(name for name in results if name != preferred)]
        reference = next((name for name in order if results.get(name, (None,))[0] is not None), None)
        if reference is None and node.kind == "group":
            results[DOCUMENTS] = (read_documents(node), None)
            reference = DOCUMENTS
        if reference is None and (described := read_writer_description(node)) is not None:
            results[WRITER_DESCRIPTION] = (described, None)
            reference = WRITER_DESCRIPTION
        # the reference is the first peer that read the node: none when no peer did
        reference_summary = results[reference][0] if reference is not None else None
        peers = {}
        for name, (summary, refusal) in results.items():
            if name in (DOCUMENTS, WRITER_DESCRIPTION):
                continue
            if summary is None:
                peers[name] = refusal
            elif summary == reference_summary:
                peers[name] = "reads"
            else:
                assert reference_summary is not None  # this peer read it: so did the reference
                differ = sorted(k for k in summary if summary[k] != reference_summary.get(k))
                peers[name] = "reads, differs in " + ", ".join(differ)
        expected[node.case] = {
            "kind": node.kind,
            "zarr_format": node.zarr_format,
            "reference": reference,
            "expected": results[reference][0] if reference else None,
            "peers": peers,
        }
    return expected


def main() -> None:
    expected = record(_corpus.discover(), _corpus.load(_corpus.MANIFEST))
    _corpus.EXPECTED.write_text(
        json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"{len(expected)} cases written to {_corpus.EXPECTED.relative_to(REPO)}")


if __name__ == "__main__":
    main()
