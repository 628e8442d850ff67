"""One dimension of a rectilinear grid as a :class:`DimensionChunking`.

:class:`RunPartition` cuts a dimension of ``length`` elements with the runs
of a :class:`~zarrforge_rectilinear.edges.DimensionEdges` (``(edge, count)``
pairs; the last count may be ``None``, unbounded).

* Chunk ``i`` along the dimension is the ``i``-th declared edge; its stored
  ``size`` is the edge length and its ``start`` the sum of the edges before
  it. ``start``/``size`` answer for every declared chunk, including those
  past the end of the array; other indices raise ``IndexError``. (A
  dimension with no declared edge at all, legal only for length 0, reports
  ``size(0) == 0``.)
* ``nchunks`` counts the chunks holding at least one element, i.e. those
  starting before ``length``; declared chunks entirely past the end (the
  specification allows edges to overflow the array by several chunks) are
  not part of the grid until the array grows over them. The last counted
  chunk may extend past the end, like a regular grid's edge chunk.
* ``index_of`` is vectorised: the cumulative edge sums at run boundaries are
  searched with ``np.searchsorted`` and the offset inside the run divided by
  the run's edge. When every run is one edge long the searched array is
  exactly the cumulative edges; runs keep ``[[1, 10**9]]`` from being
  expanded into a billion edges.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np

from zarrforge.abc.chunk_grid import DimensionChunking

from .edges import Run


class RunPartition(DimensionChunking):
    def __init__(self, runs: Sequence[Run], length: int) -> None:
        self.length = int(length)
        self._runs = tuple(runs)
        # Declared runs, in Python ints (sums may exceed int64 far past the array's end).
        self._edges = [edge for edge, _ in self._runs]
        self._first_chunk: list[int] = []
        self._first_pos: list[int] = []
        chunk = pos = 0
        for edge, count in self._runs:
            self._first_chunk.append(chunk)
            self._first_pos.append(pos)
            if count is None:
                break
            chunk += count
            pos += edge * count
        self._declared = None if self._runs and self._runs[-1][1] is None else chunk
        # The runs that hold array elements (they start before the end), as int64 arrays.
        active = [r for r, p in enumerate(self._first_pos) if p < self.length]
        self._nchunks = 0
        if active:
            r = active[-1]
            edge, count = self._runs[r]
            needed = -(-(self.length - self._first_pos[r]) // edge)
            self._nchunks = self._first_chunk[r] + (needed if count is None else min(count, needed))
        # An edge longer than the array divides like one of the array's length (and fits int64).
        self._active_edges = np.array([min(self._edges[r], self.length) for r in active], dtype=np.int64)
        self._active_chunk = np.array([self._first_chunk[r] for r in active], dtype=np.int64)
        self._active_pos = np.array([self._first_pos[r] for r in active], dtype=np.int64)
        self._sizes = tuple(sorted({self._edges[r] for r in active}))

    def __repr__(self) -> str:
        return f"RunPartition(runs={list(self._runs)!r}, length={self.length})"

    @property
    def nchunks(self) -> int:
        return self._nchunks

    @property
    def active_sizes(self) -> tuple[int, ...]:
        """The distinct stored sizes of the ``nchunks`` chunks, ascending."""
        return self._sizes

    def distinct_sizes(self) -> tuple[int, ...]:
        """Same as :attr:`active_sizes`, without visiting the chunks one by one."""
        return self._sizes

    @property
    def declared_sizes(self) -> tuple[int, ...]:
        """The distinct declared edge lengths, ascending (including overflow chunks)."""
        return tuple(sorted(set(self._edges)))

    def _run_of(self, index: int) -> int:
        index = int(index)
        if index < 0 or (self._declared is not None and index >= self._declared):
            raise IndexError(
                f"chunk index {index} is outside the {self._declared} declared chunks of this dimension"
            )
        return bisect.bisect_right(self._first_chunk, index) - 1

    def start(self, index: int) -> int:
        if not self._runs and index == 0:
            return 0
        r = self._run_of(index)
        return self._first_pos[r] + (int(index) - self._first_chunk[r]) * self._edges[r]

    def size(self, index: int) -> int:
        if not self._runs and index == 0:
            return 0
        return self._edges[self._run_of(index)]

    def index_of(self, positions: np.ndarray) -> np.ndarray:
        pos = np.asarray(positions, dtype=np.int64)
        edges = self._active_edges
        if edges.size == 0:
            return np.zeros(pos.shape, dtype=np.int64)
        if edges.size == 1:
            quotient: np.ndarray = pos // edges[0]
            return quotient
        run = np.searchsorted(self._active_pos, pos, side="right") - 1
        np.maximum(run, 0, out=run)
        return self._active_chunk[run] + (pos - self._active_pos[run]) // edges[run]

    def sizes(self) -> tuple[int, ...]:
        """The stored size of each of the ``nchunks`` chunks (expands the runs)."""
        firsts = [*self._active_chunk.tolist(), self._nchunks]
        out: list[int] = []
        for r, chunk in enumerate(firsts[:-1]):
            out.extend([self._edges[self._run_of(chunk)]] * (firsts[r + 1] - chunk))
        return tuple(out)
