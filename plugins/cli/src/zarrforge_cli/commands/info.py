"""``zarrforge info URL``: what an array or group is and how it is stored.

What needs a listing of the store (an array's written chunks and their sizes, a
group's members without consolidated metadata) is reported as unknown, with the
reason, on a store that cannot list its keys (plain HTTP): the JSON report gives
``null`` for it and names it in ``unknown``; the table says "unknown".
"""

from __future__ import annotations

import json
import math
from typing import Any

import click

from .. import storage_options as storage
from ..console import compact_json, human_bytes, make_console
from ._common import format_label, json_option, open_node, path_option

UNLISTABLE = "the store cannot list its keys"


def _stored_sizes(store: Any, keys: list[str]) -> int:
    """Total size of ``keys`` (``Store.getsize``: stores that can answer without reading
    the value do)."""
    return sum(int(store.getsize(key) or 0) for key in keys)


def _extensions(model: Any) -> list[Any]:
    """The node's ZEP 10 extensions as stored; ignored ones (not installed, may be
    skipped) are marked so."""
    from zarrforge.hierarchy_api import UnknownExtension

    listed = []
    for entry in model.extensions:
        if isinstance(entry, UnknownExtension):
            listed.append({"extension": entry.document, "ignored": "not installed; must_understand is false"})
        else:
            listed.append(entry.to_json())
    return listed


def _written(array: Any) -> dict[str, Any]:
    """What the written chunks tell: their count, stored size and size in memory, or,
    on a store that cannot list its keys, ``None`` for each and the reason."""
    if not array.chunk_store.capabilities.listable:
        reason = f"{UNLISTABLE} (it would take a request per chunk to find them)"
        return {
            "chunks_written": None,
            "stored_bytes": None,
            "raw_bytes": None,
            "compression_ratio": None,
            "unknown": dict.fromkeys(
                ("chunks_written", "stored_bytes", "raw_bytes", "compression_ratio"), reason
            ),
        }
    model = array.metadata_model
    grid = model.chunk_grid
    stored = list(array.stored_chunks())
    keys = [array.format.chunk_key(array.path, model, coords) for coords in stored]
    stored_bytes = _stored_sizes(array.chunk_store, keys)
    itemsize = array.dtype.itemsize if array.dtype.kind not in "OT" else None
    raw_bytes = (
        sum(math.prod(grid.chunk_shape(c)) for c in stored) * itemsize if itemsize is not None else None
    )
    return {
        "chunks_written": len(stored),
        "stored_bytes": stored_bytes,
        "raw_bytes": raw_bytes,
        "compression_ratio": (
            round(raw_bytes / stored_bytes, 3) if raw_bytes is not None and stored_bytes else None
        ),
        "unknown": {},
    }


def array_report(array: Any) -> dict[str, Any]:
    model = array.metadata_model
    try:
        chunks: Any = list(array.chunks)
    except AttributeError:
        chunks = model.chunk_grid.to_json()
    document = array.metadata
    fill = (
        document.get("fill_value")
        if "fill_value" in document
        else document.get(".zarray", {}).get("fill_value")
    )
    return {
        "path": array.name,
        "node_type": "array",
        "format": model.format_name,
        "shape": list(array.shape),
        "dtype": str(array.dtype),
        "data_type": model.data_type.to_json(),
        "chunks": chunks,
        "shards": list(array.shards) if array.shards else None,
        "grid_shape": list(array.cdata_shape),
        "codecs": [codec.to_json() for codec in model.codecs],
        "storage_transformers": [t.to_json() for t in model.storage_transformers],
        "fill_value": fill,
        "dimension_names": list(array.dimension_names) if array.dimension_names else None,
        "extensions": _extensions(model),
        "ignored_fields": sorted(model.extra_fields),
        "attributes": len(array.attrs),
        "nchunks": array.nchunks,
        **_written(array),
    }


def _members(group: Any) -> dict[str, Any]:
    """The group's member counts; on a store that cannot list its keys and without
    consolidated metadata to list them from, ``None`` for each and the reason."""
    import zarrforge
    from zarrforge.errors import StoreError

    try:
        members = group.members(max_depth=None)
        here = len(group.keys())
    except StoreError:
        if group.store.capabilities.listable:
            raise  # a failure of a store that lists, not something it cannot tell
        reason = f"{UNLISTABLE} and the group has no consolidated metadata to list them from"
        return {
            "members": None,
            "arrays": None,
            "groups": None,
            "unknown": dict.fromkeys(("members", "arrays", "groups"), reason),
        }
    return {
        "members": here,
        "arrays": sum(1 for _, m in members if not isinstance(m, zarrforge.Group)),
        "groups": sum(1 for _, m in members if isinstance(m, zarrforge.Group)),
        "unknown": {},
    }


def group_report(group: Any) -> dict[str, Any]:
    model = group.metadata_model
    return {
        "path": group.name,
        "node_type": "group",
        "format": model.format_name,
        "attributes": len(group.attrs),
        "extensions": _extensions(model),
        "ignored_fields": sorted(model.extra_fields),
        **_members(group),
        "consolidated": model.consolidated is not None,
    }


def _extension_rows(report: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [("Extensions", "\n".join(compact_json(e) for e in report["extensions"]) or "none")]
    if report["ignored_fields"]:
        rows.append(("Ignored fields", ", ".join(report["ignored_fields"]) + " (must_understand: false)"))
    return rows


def _unknown(report: dict[str, Any], key: str) -> str:
    return f"unknown: {report['unknown'][key]}"


def _rows(report: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        ("Path", report["path"]),
        ("Type", report["node_type"]),
        ("Format", format_label(report["format"])),
    ]
    if report["node_type"] == "group":
        below = (
            _unknown(report, "arrays")
            if report["arrays"] is None
            else f"{report['arrays']} array{'s' * (report['arrays'] != 1)}, "
            f"{report['groups']} group{'s' * (report['groups'] != 1)}"
        )
        rows += [
            ("Members", _unknown(report, "members") if report["members"] is None else str(report["members"])),
            ("Below it", below),
            ("Attributes", str(report["attributes"])),
            ("Consolidated metadata", "yes" if report["consolidated"] else "no"),
            *_extension_rows(report),
        ]
        return rows
    unit = "shards" if report["shards"] else "chunks"
    written = report["chunks_written"]
    total = report["nchunks"]
    ratio = report["compression_ratio"]
    if written is None:
        written_row = f"unknown of {total}: {report['unknown']['chunks_written']}"
        stored_row = raw_row = ratio_row = "unknown"
    else:
        share = f" ({100 * written / total:.1f}%)" if total else ""
        written_row = f"{written} of {total}{share}"
        stored_row = human_bytes(report["stored_bytes"])
        raw_row = human_bytes(report["raw_bytes"])
        ratio_row = f"{ratio:.2f}" if ratio is not None else "n/a"
    rows += [
        ("Shape", compact_json(report["shape"])),
        ("Data type", f"{compact_json(report['data_type'])} (numpy {report['dtype']})"),
        ("Chunks", compact_json(report["chunks"])),
        ("Shards", compact_json(report["shards"]) if report["shards"] else "none"),
        ("Grid", f"{compact_json(report['grid_shape'])} = {total} {unit}"),
        ("Codecs", "\n".join(compact_json(c) for c in report["codecs"])),
        *(
            [("Storage transformers", "\n".join(compact_json(t) for t in report["storage_transformers"]))]
            if report["storage_transformers"]
            else []
        ),
        ("Fill value", compact_json(report["fill_value"])),
        ("Dimension names", compact_json(report["dimension_names"])),
        *_extension_rows(report),
        ("Attributes", str(report["attributes"])),
        (f"{unit.capitalize()} written", written_row),
        ("Stored bytes", stored_row),
        ("Uncompressed", raw_row),
        ("Compression ratio", ratio_row),
    ]
    return rows


@click.command()
@click.argument("url")
@path_option
@storage.flags()
@json_option
def info(url: str, path: str, as_json: bool, storage_options: dict[str, Any]) -> None:
    """Show an array's format, shape, data type, chunking, codecs, storage transformers,
    fill value, stored size, compression ratio and written chunks, or a group's summary.

    Stored bytes and the compression ratio count the chunks that are written
    (sizing each one); "uncompressed" is their size in memory. On a store that
    cannot list its keys (plain HTTP) what needs a listing is shown as unknown.
    """
    import zarrforge

    node = open_node(url, path, storage_options)
    report = group_report(node) if isinstance(node, zarrforge.Group) else array_report(node)
    if as_json:
        click.echo(json.dumps(report, indent=2, allow_nan=True, default=str))
        return
    from rich.table import Table

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for key, value in _rows(report):
        table.add_row(key, value)
    make_console().print(table)
