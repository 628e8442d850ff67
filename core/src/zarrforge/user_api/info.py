"""Printable summaries of arrays and groups: ``Array.info``, ``Array.info_complete()``,
``Group.info``, and their HTML for Jupyter.

A summary is a frozen record of facts, printed as an aligned table (``str``) or an
HTML table (``_repr_html_``). Codecs and the data type are given in their metadata
spelling (``{"name": "zstd", "configuration": {...}}``), the spec's words rather
than a library's objects; so are an array's storage transformers, in a row of their
own when it has any. ``info`` reads nothing from the store; ``info_complete()``
lists the array's keys once to add what is stored: bytes, the ratio of decoded to
stored bytes, and how many chunks (or shards) are written. A group's HTML is its
tree, each array with its shape, data type and size.
"""

from __future__ import annotations

import dataclasses
import html
import json
from typing import Any

from .tree_view import unopened_reason


def human_bytes(count: int) -> str:
    """``count`` as people read it: ``40000 (39.1 KiB)``, ``72 B``."""
    size, unit = float(count), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024 or unit == "PiB":
            break
        size /= 1024
    return f"{count} B" if unit == "B" else f"{count} ({size:.1f} {unit})"


@dataclasses.dataclass(frozen=True)
class Summary:
    """Ordered ``(label, value)`` rows; ``None`` values are left out."""

    title: str
    rows: tuple[tuple[str, Any], ...]

    def shown(self) -> list[tuple[str, str]]:
        return [(label, _text(value)) for label, value in self.rows if value is not None]

    def __str__(self) -> str:
        rows = self.shown()
        width = max(len(label) for label, _ in rows)
        return "\n".join(f"{label:<{width}} : {value}" for label, value in rows)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><th style='text-align:left'>{html.escape(label)}</th>"
            f"<td style='text-align:left'>{html.escape(value)}</td></tr>"
            for label, value in self.shown()
        )
        return f"<table><caption>{html.escape(self.title)}</caption>{cells}</table>"

    def value(self, label: str) -> Any:
        """The value of the row ``label``."""
        return dict(self.rows)[label]


def array_summary(array: Any, *, complete: bool = False) -> Summary:
    """What ``Array.info`` (``complete``: ``info_complete()``) shows of ``array``."""
    try:
        chunks: Any = array.chunks
        shards = array.shards
    except AttributeError:  # no single chunk shape (a rectilinear grid): the grid itself
        chunks, shards = array.metadata_model.chunk_grid.to_json(), None
    decoded = _decoded_bytes(array)
    transformers = array.metadata_model.storage_transformers
    rows: list[tuple[str, Any]] = [
        ("Type", "Array"),
        ("Name", array.name),
        ("Zarr format", array.metadata_model.format_name),
        ("Data type", array.data_type.to_json()),
        ("Fill value", array.fill_value),
        ("Shape", array.shape),
        ("Shard shape", shards),
        ("Chunk shape", chunks),
        ("Dimension names", array.dimension_names),
        ("Order", array.order),
        ("Read-only", array.read_only),
        ("Store", repr(array.store)),
        ("Filters", [codec.to_json() for codec in array.filters]),
        ("Serializer", array.serializer.to_json()),
        ("Compressors", [codec.to_json() for codec in array.compressors]),
        # between the codecs and the store: which keys hold the bytes (left out when none)
        ("Storage transformers", [t.to_json() for t in transformers] or None),
        ("No. bytes", None if decoded is None else human_bytes(decoded)),
    ]
    if complete:
        stored = array.nbytes_stored()
        rows.append(("No. bytes stored", human_bytes(stored)))
        if decoded is not None and stored:
            rows.append(("Storage ratio", f"{decoded / stored:.1f}"))
        unit = "Shards" if shards is not None else "Chunks"
        rows.append((f"{unit} initialized", f"{array.nchunks_initialized}/{array.nchunks}"))
    return Summary(f"zarrforge.Array {array.name!r}", tuple(rows))


def group_summary(group: Any, *, complete: bool = True) -> Summary:
    """What ``Group.info`` shows of ``group``: the group's facts and its direct members
    (``complete=False``: the facts alone, reading nothing from the store, as zarr-python's
    ``AsyncGroup.info``)."""
    rows: list[tuple[str, Any]] = [
        ("Type", "Group"),
        ("Name", group.name),
        ("Zarr format", group.metadata_model.format_name),
        ("Read-only", group.read_only),
        ("Store", repr(group.store)),
    ]
    if complete:
        members = group.members()
        arrays = sum(1 for _, node in members if not _is_group(node))
        rows += [("No. members", len(members)), ("No. arrays", arrays), ("No. groups", len(members) - arrays)]
    return Summary(f"zarrforge.Group {group.name!r}", tuple(rows))


def _decoded_bytes(array: Any) -> int | None:
    """``array.nbytes``, or ``None`` for a data type of no fixed size per element."""
    return None if array.data_type.item_size is None else array.nbytes


def _text(value: Any) -> str:
    """Metadata (codecs, data types, grids) in its JSON spelling; anything else as str."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(", ", ": "), default=str)
    return str(value)


def _array_detail(array: Any) -> str:
    decoded = _decoded_bytes(array)
    nbytes = "" if decoded is None else f", {human_bytes(decoded)}"
    return f"{array.shape} {array.dtype}{nbytes}"


def _is_group(node: Any) -> bool:
    return node.metadata_model.node_type == "group"


def group_tree_html(group: Any) -> str:
    """The group's tree as nested HTML lists: each array with its shape, type and size."""

    def items(node: Any) -> str:
        parts = []
        for name, member in node._members_here(tolerant=True):  # one that fails is listed, saying why
            label = html.escape(name)
            reason = unopened_reason(member, lambda m: _is_group(m) or _array_detail(m))
            if reason is not None:
                parts.append(f"<li>{label} <i>(cannot be opened: {html.escape(reason)})</i></li>")
            elif _is_group(member):
                parts.append(f"<li>{label}/<ul>{items(member)}</ul></li>")
            else:
                parts.append(f"<li>{label} <code>{html.escape(_array_detail(member))}</code></li>")
        return "".join(parts)

    return f"<div><b>zarrforge.Group {html.escape(group.name)}</b><ul>{items(group)}</ul></div>"
