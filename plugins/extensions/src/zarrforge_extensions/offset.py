"""``zarrforge.offset``: address an array through a shifted index domain.

Metadata (arrays only; ``must_understand`` is true unless the document says
otherwise, because a reader that ignored it would address different elements)::

    {"name": "zarrforge.offset", "configuration": {"offset": [12, -3]}}

``offset`` holds one integer per dimension (any sign). The stored element at
index ``i`` of dimension ``d`` has the *logical* coordinate ``i - offset[d]``,
so logical coordinate ``x`` addresses stored index ``x + offset[d]`` and the
stored element ``offset[d]`` is the logical origin (ZEP 10's ``example.offset``).
The logical domain of dimension ``d`` is the half-open range
``[-offset[d], shape[d] - offset[d])``.

How selections are read, per kind (reads and writes alike):

* ``basic`` (``a[...]``) and ``orthogonal`` (``a.oindex[...]``): integers and
  slice bounds are logical coordinates. Negative values are coordinates like
  any other: they are **never** wrapped around from the end. An integer (or
  an entry of an integer index array) outside the logical domain raises
  :class:`~zarrforge.errors.BoundsCheckError` naming the domain. Slice bounds
  outside the domain are clipped to it, as numpy clips slice bounds; a
  ``None`` bound means the end of the domain in the slice's direction, so
  ``a[:]`` and ``a[::-1]`` cover the whole domain. Steps are unchanged.
  Boolean masks of a dimension cover the whole domain in order, so they are
  passed on unchanged. ``Ellipsis`` and ``None`` (new axes) keep their numpy
  meaning.
* ``coordinate`` (``a.vindex[ints...]``): every coordinate array is shifted
  and bounds-checked like integer index arrays.
* ``mask`` (``a.vindex[mask]``): a mask of the array's shape covers the whole
  domain; unchanged.
* ``block`` (``a.blocks[...]``): block indices count *stored* chunks, which
  the offset does not move; unchanged. ``a.blocks[0]`` is the chunk whose
  first element has the logical coordinate ``-offset``.

``Array.shape`` stays the stored shape; :func:`domain` gives the logical one.
Selections the mapping cannot interpret (a float, too many indices, a zero
step) are passed on unchanged so that the core reports its usual error.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from zarrforge.abc.extension import Extension
from zarrforge.errors import BoundsCheckError, MetadataError, SelectionError

NAME = "zarrforge.offset"


def _is_int(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu"


class Offset(Extension):
    """The ``zarrforge.offset`` extension: one integer offset per dimension."""

    name = NAME
    node_types = frozenset({"array"})

    def __init__(self, offset: Sequence[int]) -> None:
        self.offset = tuple(int(o) for o in offset)

    # --- metadata -------------------------------------------------------------------

    @classmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> Offset:
        if configuration is None:
            raise MetadataError(
                f'{name} needs a configuration {{"offset": [int, ...]}}', field="configuration", value=None
            )
        unknown = sorted(set(configuration) - {"offset"})
        if unknown:
            raise MetadataError(
                f"unknown configuration key(s) {unknown}; valid: ['offset']",
                field="configuration",
                value=configuration,
            )
        offset = configuration.get("offset")
        if not isinstance(offset, list) or not all(
            isinstance(o, int) and not isinstance(o, bool) for o in offset
        ):
            raise MetadataError(
                f"offset must be a list of integers, one per dimension, got {offset!r}",
                field="configuration.offset",
                value=offset,
            )
        return cls(offset)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "configuration": {"offset": list(self.offset)}}

    def check(self, shape: Sequence[int], *, where: str = "configuration.offset") -> None:
        """Raise ``MetadataError`` naming ``where`` unless there is one offset per dimension."""
        if len(self.offset) != len(shape):
            raise MetadataError(
                f"{NAME} has {len(self.offset)} offset(s) {list(self.offset)} but the array "
                f"has {len(shape)} dimension(s) (shape {tuple(shape)})",
                field=where,
                value=list(self.offset),
            )

    def validate(self, metadata: Any) -> None:
        """The node-level check, for cores that call ``Extension.validate`` before writing."""
        self.check(metadata.shape)

    def domain(self, shape: Sequence[int]) -> tuple[range, ...]:
        """The logical coordinates of each dimension."""
        return tuple(range(-o, n - o) for o, n in zip(self.offset, shape))

    # --- selections -----------------------------------------------------------------

    def map_selection(self, array: Any, selection: Any, kind: str) -> Any:
        """The Extension contract: the user's selection, in logical coordinates, as stored
        indices. The length is checked again here: ``set_extension`` cannot see the array."""
        return self.to_stored(selection, kind, array.shape)

    def to_stored(self, selection: Any, kind: str, shape: Sequence[int]) -> Any:
        """``selection`` (logical coordinates) as a selection of stored indices."""
        self.check(shape)
        if kind == "basic":
            return self._map_product(selection, shape, allow_newaxis=True, arrays=False)
        if kind == "orthogonal":
            return self._map_product(selection, shape, allow_newaxis=False, arrays=True)
        if kind == "coordinate":
            return self._map_coordinate(selection, shape)
        return selection  # "mask" and "block" need no change (see the module docstring)

    def _map_product(self, selection: Any, shape: Sequence[int], *, allow_newaxis: bool, arrays: bool) -> Any:
        items = list(selection) if isinstance(selection, tuple) else [selection]
        ndim = len(shape)
        if sum(s is Ellipsis for s in items) > 1:
            raise SelectionError("a selection may contain at most one Ellipsis (...)")
        if not allow_newaxis and any(s is None for s in items):
            raise SelectionError("None (np.newaxis) is only supported in basic selections")
        n_real = sum(s is not Ellipsis and s is not None for s in items)
        if n_real > ndim:
            raise SelectionError(
                f"too many indices: the array has {ndim} dimension(s) but the selection indexes {n_real}"
            )
        out: list[Any] = []
        d = 0
        for entry in items:
            if entry is None:
                out.append(None)
            elif entry is Ellipsis:
                out.append(Ellipsis)
                d += ndim - n_real  # the dimensions the Ellipsis stands for: whole domains
            else:
                out.append(self._map_entry(entry, d, shape[d], arrays))
                d += 1
        # Dimensions the selection leaves out are whole domains, i.e. whole stored ranges.
        return tuple(out) if isinstance(selection, tuple) else out[0]

    def _map_entry(self, entry: Any, d: int, length: int, arrays: bool) -> Any:
        if _is_int(entry):
            return self._shift_int(operator.index(entry), d, length)
        if isinstance(entry, slice):
            return self._map_slice(entry, d, length)
        if arrays and isinstance(entry, (list, np.ndarray)):
            array = np.asarray(entry)
            if array.dtype == bool:
                return entry  # a mask over the whole domain, in order
            return self._shift_array(array, d, length)
        return entry  # not ours to interpret: the core reports it

    def _domain_text(self, d: int, length: int) -> str:
        lo = -self.offset[d]
        return (
            f"the logical domain [{lo}, {lo + length}) of dimension {d} "
            f"({NAME} {self.offset[d]}, stored length {length})"
        )

    def _shift_int(self, x: int, d: int, length: int) -> int:
        stored = x + self.offset[d]
        if not 0 <= stored < length:
            raise BoundsCheckError(f"index {x} is outside {self._domain_text(d, length)}")
        return stored

    def _shift_array(self, array: np.ndarray, d: int, length: int) -> Any:
        if array.size == 0:
            return np.zeros(array.shape, dtype=np.int64)
        if array.dtype.kind not in "iu":
            return array  # the core refuses it with its own message
        stored = array.astype(np.int64) + self.offset[d]
        bad = (stored < 0) | (stored >= length)
        if bad.any():
            x = int(array[bad].flat[0])
            raise BoundsCheckError(f"index {x} is outside {self._domain_text(d, length)}")
        return stored

    def _map_slice(self, entry: slice, d: int, length: int) -> slice:
        parts = []
        for value in (entry.start, entry.stop, entry.step):
            if value is not None and not _is_int(value):
                return entry  # the core reports the invalid bound
            parts.append(None if value is None else operator.index(value))
        start, stop, step = parts
        step = 1 if step is None else step
        if step == 0:
            return entry  # the core reports the zero step
        off = self.offset[d]
        lo, hi = -off, length - off  # the logical domain [lo, hi)
        if step > 0:
            a = lo if start is None else min(max(start, lo), hi)
            b = hi if stop is None else min(max(stop, lo), hi)
            a, b = a + off, b + off  # stored, both in [0, length]
            return slice(a, max(a, b), step)
        a = hi - 1 if start is None else min(max(start, lo - 1), hi - 1)
        b = lo - 1 if stop is None else min(max(stop, lo - 1), hi - 1)
        a, b = a + off, b + off  # stored, both in [-1, length - 1]
        if a <= b:
            return slice(0, 0, step)  # empty
        # A stored stop of -1 means "past index 0": spelled None, since -1 would wrap.
        return slice(a, None if b < 0 else b, step)

    def _map_coordinate(self, selection: Any, shape: Sequence[int]) -> Any:
        items = selection if isinstance(selection, tuple) else (selection,)
        if len(items) != len(shape):
            return selection  # the core reports the wrong number of arrays
        out = []
        for d, entry in enumerate(items):
            if _is_int(entry):
                out.append(self._shift_int(operator.index(entry), d, shape[d]))
            elif isinstance(entry, (list, np.ndarray)) and np.asarray(entry).dtype != bool:
                out.append(self._shift_array(np.asarray(entry), d, shape[d]))
            else:
                out.append(entry)
        return tuple(out) if isinstance(selection, tuple) else out[0]


# --- helpers ----------------------------------------------------------------------------


def offset_of(array: Any) -> tuple[int, ...] | None:
    """The array's offsets, or ``None`` when it has no ``zarrforge.offset`` extension."""
    entry = array.get_extension(NAME)
    return entry.offset if isinstance(entry, Offset) else None


def domain(array: Any) -> tuple[range, ...]:
    """The logical coordinates of each dimension (``range(0, n)`` without an offset)."""
    entry = array.get_extension(NAME)
    if isinstance(entry, Offset):
        entry.check(array.shape)
        return entry.domain(array.shape)
    return tuple(range(n) for n in array.shape)


def set_offset(array: Any, offset: Sequence[int], *, must_understand: bool | None = None) -> None:
    """Add or replace the array's ``zarrforge.offset``, checking it against the array first.

    ``must_understand``: ``None`` (default) writes the entry without the member, which
    readers take as true; ``True`` or ``False`` writes it.

    Prefer this to ``array.set_extension(...)``: the length check needs the
    array, which ``set_extension`` cannot give the extension before it writes.
    """
    entry = Offset.from_json(NAME, {"offset": [operator.index(o) for o in offset]})
    entry.check(array.shape, where=f"extensions[{NAME!r}].configuration.offset")
    entry.must_understand = must_understand
    array.set_extension(entry)
