"""The chunk edge lengths of one dimension: parsing, validation, compact JSON.

One entry of the rectilinear grid's ``configuration.chunk_shapes`` describes
how one array dimension is cut into chunks. The specification allows:

* a positive integer ``m``: a regular step, repeated as often as the
  dimension needs (``m`` for any array length, so it never limits a resize);
* a list whose items are either a positive integer (one edge) or a
  run-length pair ``[length, count]`` of positive integers (``count`` edges
  of ``length``). Together the edges must cover the dimension: their sum
  must be at least the array's length (overflowing it, even by several
  chunks, is allowed).

:func:`parse_edges` validates one entry and returns a :class:`DimensionEdges`;
every problem is a :class:`~zarrforge.errors.MetadataError` naming the field
(``configuration.chunk_shapes[1]`` or, for one bad item of a list,
``configuration.chunk_shapes[1][2]``), the offending value and what is valid.

A :class:`DimensionEdges` keeps the JSON form it was read from, so writing the
grid back gives the same document: run-length pairs stay pairs, integers stay
integers. Internally the edges are *runs* ``(length, count)`` with adjacent
equal lengths merged; the integer form is the single run ``(m, None)``
(unbounded). Runs are never expanded, so ``[[1, 1000000000]]`` costs no
more than ``[1]``.

:func:`compact` turns explicit edge lengths into the compact JSON form (runs
longer than one edge become ``[length, count]`` pairs), and
:meth:`DimensionEdges.covering` is the resize rule for a dimension that
grows past the end of its declared edges.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from zarrforge.errors import MetadataError

Run = tuple[int, "int | None"]

_ITEM_RULE = (
    "an edge length (a positive integer) or a run-length pair [length, count] of two positive integers"
)


def is_positive_int(value: Any) -> bool:
    """A JSON integer (or numpy integer) of at least 1; booleans and floats are not."""
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (int, np.integer)) and bool(value >= 1)


@dataclasses.dataclass(frozen=True)
class DimensionEdges:
    """The declared edges of one dimension.

    ``json``: the metadata form (an int, or a list of ints and ``[length,
    count]`` lists). ``runs``: ``(length, count)`` pairs, adjacent equal
    lengths merged; ``count`` is ``None`` for the unbounded integer form.
    """

    json: Any
    runs: tuple[Run, ...]

    @property
    def unbounded(self) -> bool:
        """True for the integer form, which covers any length."""
        return bool(self.runs) and self.runs[-1][1] is None

    @property
    def total(self) -> int | None:
        """The sum of the declared edges (``None`` when unbounded)."""
        total = 0
        for length, count in self.runs:
            if count is None:  # the unbounded integer form
                return None
            total += length * count
        return total

    @property
    def count(self) -> int | None:
        """The number of declared edges (``None`` when unbounded)."""
        number = 0
        for _, count in self.runs:
            if count is None:  # the unbounded integer form
                return None
            number += count
        return number

    def covers(self, length: int) -> bool:
        total = self.total
        return total is None or total >= length

    def covering(self, length: int) -> DimensionEdges:
        """These edges, extended (if needed) so that they cover ``length``.

        Edges that already cover ``length`` are returned unchanged (a shrink
        keeps every edge: the specification allows edges past the end of the
        array). Otherwise one edge spanning the missing part is appended, so
        the grown region becomes a chunk of its own and no existing chunk
        changes shape. The appended edge joins a trailing ``[length, count]``
        pair, or a trailing bare integer of the same length, as a run.
        """
        total = self.total
        if total is None or total >= length:  # self.covers(length)
            return self
        edge = length - total
        items = list(self.json)
        last = items[-1] if items else None
        if isinstance(last, list) and last[0] == edge:
            items[-1] = [edge, last[1] + 1]
        elif last == edge:
            items[-1] = [edge, 2]
        else:
            items.append(edge)
        return DimensionEdges(items, _merge((*self.runs, (edge, 1))))


def _merge(runs: Iterable[Run]) -> tuple[Run, ...]:
    merged: list[list[Any]] = []
    for length, count in runs:
        if merged and merged[-1][0] == length and merged[-1][1] is not None:
            merged[-1][1] = None if count is None else merged[-1][1] + count
        else:
            merged.append([length, count])
    return tuple((length, count) for length, count in merged)


def parse_edges(value: Any, field: str) -> DimensionEdges:
    """Validate one ``chunk_shapes`` entry found at ``field``."""
    if is_positive_int(value):
        return DimensionEdges(int(value), ((int(value), None),))
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, list):
        raise MetadataError(
            f"must be a positive integer (a regular step) or a list of edges, each {_ITEM_RULE}; "
            f"got {value!r}",
            field=field,
            value=value,
        )
    items: list[Any] = []
    runs: list[Run] = []
    for k, item in enumerate(value):
        if is_positive_int(item):
            items.append(int(item))
            runs.append((int(item), 1))
            continue
        if isinstance(item, tuple):
            item = list(item)
        if isinstance(item, list) and len(item) == 2 and all(is_positive_int(v) for v in item):
            pair = [int(item[0]), int(item[1])]
            items.append(pair)
            runs.append((pair[0], pair[1]))
            continue
        raise MetadataError(
            f"each item must be {_ITEM_RULE}; got {item!r}", field=f"{field}[{k}]", value=item
        )
    return DimensionEdges(items, _merge(runs))


def compact(edges: Sequence[int]) -> list[Any]:
    """The compact JSON form of explicit edge lengths.

    A run of two or more equal edges becomes ``[length, count]``; a lone edge
    stays an integer: ``[10, 10, 10, 5] -> [[10, 3], 5]``.
    """
    out: list[Any] = []
    for k, edge in enumerate(edges):
        if not is_positive_int(edge):
            raise MetadataError(
                f"edge lengths must be positive integers, got {edge!r}", field=f"[{k}]", value=edge
            )
        edge = int(edge)
        last = out[-1] if out else None
        if isinstance(last, list) and last[0] == edge:
            last[1] += 1
        elif last == edge:
            out[-1] = [edge, 2]
        else:
            out.append(edge)
    return out
