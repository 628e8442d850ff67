"""Plain chunks read whole, copied into the output a row of chunks at a time.

A *plain* chunk's stored bytes are its elements in C order (``CodecChain.plain_dtype``:
the chain only lays out the elements). Copying each small chunk into the output with
a numpy call of its own costs more Python than reading it: about 2.5 us a chunk, a
third of a 4 KiB chunk's whole read from a local file. :class:`PlainRuns` collects the
chunks of one read that lie side by side along the output's last axis, each filling
its whole chunk shape there, and copies each such run with one call: the run's bytes
joined, seen as ``(m, *chunk_shape)``, and written through a view of the output region
that splits its last axis into ``(m, chunk_width)``.

Writes go the same way (:func:`plain_chunks_by_runs`): the values of a run of whole
chunks are gathered from the caller's array with one copy into ``(m, *chunk_shape)``,
each chunk's bytes then a contiguous copy of its row of that.

Contract: :meth:`PlainRuns.add` takes a chunk the read covers whole (its bytes of the
plain length, its output selection slices) or declines it, and a taken chunk's values
are in the output once :meth:`PlainRuns.flush` has returned. The output selections of
one read never overlap (a read's projections are disjoint), so the order of the copies
does not matter. Anything that does not fit a run (an edge chunk narrower than the chunk
shape, a selection with steps) is copied alone, as the read would copy it otherwise.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class PlainRuns:
    """The runs of plain chunks of one read into ``target``, copied a run per call."""

    __slots__ = ("_datas", "_dtype", "_first", "_shape", "_stop", "_target", "_width")

    def __init__(self, dtype: np.dtype, shape: tuple[int, ...], target: np.ndarray) -> None:
        self._dtype = dtype
        self._shape = shape
        self._width = shape[-1]
        self._target = target
        self._datas: list[bytes] = []
        self._first: tuple[slice, ...] = ()
        self._stop = -1  # where the pending run ends along the last axis

    @staticmethod
    def usable(dtype: np.dtype | None, shape: tuple[int, ...], target: np.ndarray | None) -> bool:
        """Can reads of chunks of ``shape`` into ``target`` go by runs at all?"""
        return (
            dtype is not None
            and target is not None
            and dtype.shape == ()
            and len(shape) >= 1
            and target.ndim == len(shape)
            and min(shape) > 0
        )

    def add(self, out_selection: tuple[Any, ...], data: bytes) -> bool:
        """Take a whole chunk's plain bytes for ``out_selection``; ``False``: not taken
        (a selection a run cannot hold), the caller copies it as before."""
        last = out_selection[-1]
        if type(last) is not slice or last.step is not None:
            return False
        start = last.start
        try:
            if last.stop - start != self._width:
                return False
        except TypeError:  # an open-ended slice
            return False
        if self._datas and start == self._stop and _same_rows(out_selection, self._first):
            self._datas.append(data)
            self._stop = start + self._width
            return True
        if not _whole_chunk(out_selection, self._shape):
            return False
        self.flush()
        self._first = out_selection
        self._datas.append(data)
        self._stop = start + self._width
        return True

    def flush(self) -> None:
        """Copy the pending run into the output."""
        datas = self._datas
        if not datas:
            return
        self._datas = []
        first, shape, count = self._first, self._shape, len(datas)
        if count == 1:
            view = self._target[first]
            np.copyto(view, np.frombuffer(datas[0], self._dtype).reshape(shape), casting="equiv")
            return
        region = self._target[(*first[:-1], slice(first[-1].start, self._stop))]
        staged = np.frombuffer(b"".join(datas), self._dtype).reshape(count, *shape)
        run_view = None
        if region.shape == (*shape[:-1], count * self._width):  # never past the output
            run_view = _run_view(region, shape, count, writeable=True)
        if run_view is None:  # (not expected: see the checks above)
            for k in range(count):
                at = first[-1].start + k * self._width
                self._target[(*first[:-1], slice(at, at + self._width))] = staged[k]
            return
        np.copyto(run_view, staged, casting="equiv")


def _run_view(
    region: np.ndarray, shape: tuple[int, ...], count: int, *, writeable: bool
) -> np.ndarray | None:
    """``region`` (``(*shape[:-1], count * shape[-1])``) seen as ``(count, *shape)``, the
    chunks side by side along its last axis one after the other. Splitting one axis in two
    is a view at any stride, so numpy never copies here; ``writeable`` makes sure of it
    (``None`` if it had copied, where writes through the view would be lost). A reshape
    rather than ``as_strided``, which cannot pass the data types of plugins (``ml_dtypes``'
    float8 has no array-interface type string)."""
    split = region.reshape(*shape[:-1], count, shape[-1])
    if writeable and not np.may_share_memory(split, region):
        return None
    return np.moveaxis(split, -2, 0)


def plain_chunks_by_runs(
    selections: list[tuple[Any, ...]], value: np.ndarray, dtype: np.dtype, shape: tuple[int, ...]
) -> list[bytes | None]:
    """The plain bytes (``dtype``, C order) of the whole chunk of ``shape`` that each of
    ``selections`` takes from ``value`` (``value[selection]`` is the chunk), gathered a
    run of side-by-side chunks at a time; ``None`` for a selection that is not one whole
    chunk of slices (the caller codes that chunk itself)."""
    out: list[bytes | None] = [None] * len(selections)
    if value.ndim != len(shape) or not len(shape) or dtype.shape != ():
        return out
    width = shape[-1]
    start_at = 0
    while start_at < len(selections):
        first = selections[start_at]
        if not _whole_chunk(first, shape):
            start_at += 1
            continue
        end = start_at + 1
        stop = first[-1].stop
        while end < len(selections):
            following = selections[end]
            last = following[-1]
            if (
                type(last) is not slice
                or last.step is not None
                or last.start != stop
                or last.stop != stop + width
                or not _same_rows(following, first)
            ):
                break
            stop += width
            end += 1
        count = end - start_at
        region = value[(*first[:-1], slice(first[-1].start, stop))]
        if region.shape == (*shape[:-1], count * width):  # never past the caller's array
            staged = np.empty((count, *shape), dtype)
            gathered = _run_view(region, shape, count, writeable=False)
            assert gathered is not None  # (only a writeable view can be refused)
            np.copyto(staged, gathered, casting="unsafe")
            for k in range(count):
                out[start_at + k] = staged[k].tobytes()
        start_at = end
    return out


def _same_rows(selection: tuple[Any, ...], first: tuple[slice, ...]) -> bool:
    """Does ``selection`` cover the rows (every axis but the last) that ``first``, a
    selection of slices, covers? ``False`` for one holding anything but those slices."""
    try:
        return selection[:-1] == first[:-1]
    except ValueError:  # an index array among them: compared element by element
        return False


def _whole_chunk(selection: tuple[Any, ...], shape: tuple[int, ...]) -> bool:
    """Is ``selection`` slices, without steps, one chunk of ``shape`` long on every axis?"""
    if len(selection) != len(shape):
        return False
    for s, length in zip(selection, shape):
        if type(s) is not slice or s.step is not None or s.start is None or s.stop is None:
            return False
        if s.stop - s.start != length:
            return False
    return True
