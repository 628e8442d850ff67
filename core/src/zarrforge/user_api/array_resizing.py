"""Shape changes of an :class:`~zarrforge.Array`: ``resize``, ``append`` and the staged
grow they are built on, all or nothing.

:class:`Resizing` is a mixin of ``Array``. A grow first clears whatever lies beyond the
old shape (what a failed append or an interrupted shrink left), then commits the new
shape; a shrink commits the smaller shape first and deletes after; an append writes the
new region through a handle with the new shape (:meth:`Resizing._with_shape`, nothing
committed) and commits the shape last (:class:`StagedResize`). A failure, or a killed
process, can leave data only outside the committed shape, where nobody reads it and the
next grow removes it.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..abc.format import Format
from ..abc.metadata import ArrayMetadata
from ..abc.store import Store
from ..engine.chunk_helpers import all_equal_fill
from ..engine.codec_chain import CodecChain
from ..errors import SelectionError, ZarrforgeError
from ..nodes.node import open_node
from ..registries.resolution import MAX_EXTENT
from ..storing import write_notices


class Resizing:
    """``resize``, ``stage_resize`` and ``append`` of an ``Array``."""

    if TYPE_CHECKING:  # what it uses of the Array (Node, ArrayProperties and ArrayEngine's)
        _store: Store
        _path: str
        _read_only: bool
        _format: Format

        @property
        def _metadata(self) -> ArrayMetadata: ...
        @property
        def shape(self) -> tuple[int, ...]: ...
        @property
        def ndim(self) -> int: ...
        @property
        def fill_value(self) -> Any: ...
        def _check_writable(self) -> None: ...
        def _checked_chain(self, meta: ArrayMetadata) -> CodecChain: ...
        def _runtime_options(self) -> dict[str, Any]: ...
        def update_metadata(self, change: Callable[[Any], Any]) -> Any: ...
        @classmethod
        def _validated(cls, *args: Any, **kwargs: Any) -> Any: ...

    @classmethod
    def _reopened_with_shape(
        cls, store: Store, path: str, read_only: bool, options: dict[str, Any], shape: tuple[int, ...]
    ) -> Any:
        """How a staged handle unpickles (a method of its class, so that unpickling imports
        the class's module): reopened, with the shape no document holds yet."""
        return open_node(store, path, mode="r" if read_only else "r+", **options)._with_shape(shape)

    def resize(self, *shape: Any) -> None:
        """Change the shape, committing the new shape before anything is deleted.

        Growing first clears what lies beyond the old shape (chunks, and the cut-off parts
        of edge chunks, that a failed append or an interrupted shrink left there), so the
        new region reads as the fill value, never as stale data; then the new shape is
        written. Shrinking writes the new shape first, then deletes the chunks outside it
        and resets the parts of edge chunks beyond the new edge to the fill value. If the
        metadata write fails nothing was deleted and the array keeps its old shape and
        data; if a deletion fails after it, the array has its new shape and what is left
        beyond it is cleared by the next grow.

        Parameters
        ----------
        *shape : Any
            The new shape: one length per dimension (``resize(4, 8)``), or one tuple (``resize((4, 8))``).

        Raises
        ------
        zarrforge.errors.SelectionError
            Not one valid length per dimension.
        zarrforge.errors.ReadOnlyError
            The array is read-only.
        """
        new_shape = self._shape_argument(shape)
        old = self._metadata
        new_meta = old.replace(shape=new_shape, chunk_grid=old.chunk_grid.with_shape(new_shape))
        self._checked_chain(new_meta)  # the new grid's chunk shapes must suit the codecs too
        grows = tuple(n > o for n, o in zip(new_shape, old.shape))
        shrinks = any(n < o for n, o in zip(new_shape, old.shape))
        # chunks are listed on the larger grid: a grid lists only the chunks it has
        larger = self._with_shape(tuple(map(max, new_shape, old.shape))) if any(grows) or shrinks else None
        if any(grows):
            self._clear_beyond(old.shape, larger, grows=grows)
        self._commit_shape(new_shape)
        if shrinks:
            self._clear_beyond(new_shape, larger)

    def _shape_argument(self, shape: tuple[Any, ...]) -> tuple[int, ...]:
        """``resize(4, 8)`` or ``resize((4, 8))`` as a checked shape (the array writable)."""
        self._check_writable()
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if len(shape) != self.ndim:
            raise SelectionError(
                f"resize needs {self.ndim} lengths in [0, 2**63 - 1] (one per "
                f"dimension of the array's shape {self.shape}), got {shape!r}"
            )
        return tuple(_new_length(axis, length, shape) for axis, length in enumerate(shape))

    def _commit_shape(self, new_shape: tuple[int, ...]) -> None:
        self.update_metadata(
            lambda model: model.replace(shape=new_shape, chunk_grid=model.chunk_grid.with_shape(new_shape))
        )

    def _clear_beyond(
        self, shape: tuple[int, ...], handle: Any, grows: tuple[bool, ...] | None = None
    ) -> None:
        """Delete the stored chunks that lie wholly outside ``shape`` and reset the parts of
        edge chunks beyond it to the fill value (only across the dimensions in ``grows``,
        all by default: elsewhere those parts stay outside the array). ``handle``: a
        handle (:meth:`_with_shape`, nothing committed) whose grid reaches the chunks."""
        engine = handle._engine_()
        grid = handle._metadata.chunk_grid
        grows = grows or (True,) * len(shape)
        doomed = []
        for coords in list(handle.stored_chunks()):
            origin = grid.chunk_origin(coords)
            extent = grid.chunk_extent(coords)
            if any(o >= n for o, n in zip(origin, shape)):
                doomed.append(engine.keys.key(coords))
                continue
            keep = tuple(min(e, n - o) if g else e for o, e, n, g in zip(origin, extent, shape, grows))
            if keep != extent:
                engine.update_chunk(
                    coords, functools.partial(_trimmed, keep=keep, fill_value=self.fill_value)
                )
        if doomed:
            with write_notices.announcing_writes(engine.store, doomed):
                engine.store.delete_many(doomed)

    def _with_shape(self, new_shape: tuple[int, ...]) -> Any:
        """A handle on this array with ``new_shape``, nothing written: data goes into a new
        region through it before the new shape is committed, and chunks beyond the
        stored shape are listed through it."""
        meta = self._metadata
        grown = meta.replace(shape=new_shape, chunk_grid=meta.chunk_grid.with_shape(new_shape))
        handle = type(self)._validated(
            self._store, self._path, grown, self._format, read_only=self._read_only, **self._runtime_options()
        )
        handle._uncommitted_shape = new_shape
        return handle

    def stage_resize(self, *shape: Any) -> StagedResize:
        """Prepare a resize whose new region is written before the new shape is committed.

        Returns a :class:`StagedResize`: write into the new region through its ``array``
        (a handle with the new shape; readers of this array still see the old one), then
        ``commit()`` the new shape, or ``abandon()`` to remove what was written beyond the
        old shape. The shape may only grow. Until the commit nothing a reader sees
        changes, so a failure (or a killed process) leaves the old array; what was
        written beyond its shape is invisible and cleared by the next grow.

        Parameters
        ----------
        *shape : Any
            The new shape, as for :meth:`resize`; no length smaller than the current one.

        Returns
        -------
        zarrforge.user_api.array_resizing.StagedResize
            The staged grow.

        Raises
        ------
        zarrforge.errors.SelectionError
            A length is invalid or smaller than the current one.
        zarrforge.errors.ReadOnlyError
            The array is read-only.
        """
        new_shape = self._shape_argument(shape)
        if any(n < o for n, o in zip(new_shape, self.shape)):
            raise SelectionError(
                f"a staged resize only grows: {new_shape} is smaller than "
                f"{self.shape} in some dimension; use resize() to shrink"
            )
        return StagedResize(self, self.shape, self._with_shape(new_shape))

    def append(self, data: Any, axis: int = 0) -> tuple[int, ...]:
        """Grow along ``axis`` and write ``data`` into the new region; returns the new shape.

        All or nothing (:meth:`stage_resize`): the new region is written first, and the
        new shape is committed last. If anything fails, what was written beyond the old
        shape is removed (best effort) and the array keeps its old shape; what a killed
        process leaves beyond it is invisible, and cleared by the next grow.

        Parameters
        ----------
        data : Any
            The values to append (an array-like with the array's number of dimensions, and its
            lengths in every dimension but ``axis``).
        axis : int
            The dimension to grow (negative: counted from the end).

        Returns
        -------
        tuple of int
            The new shape.

        Raises
        ------
        zarrforge.errors.SelectionError
            ``data``'s dimensions or shape do not fit, or ``axis`` is out of range.
        zarrforge.errors.ReadOnlyError
            The array is read-only.
        """
        self._check_writable()
        data = np.asarray(data)
        if data.ndim != self.ndim:
            raise SelectionError(f"append needs data with {self.ndim} dimensions, got shape {data.shape}")
        axis = axis + self.ndim if axis < 0 else axis
        if not 0 <= axis < self.ndim:
            raise SelectionError(f"axis {axis} is out of range for a {self.ndim}-d array")
        for d in range(self.ndim):
            if d != axis and data.shape[d] != self.shape[d]:
                raise SelectionError(
                    f"append along axis {axis}: data shape {data.shape} does not "
                    f"match the array shape {self.shape} in dimension {d}"
                )
        old_shape = self.shape
        new_shape = tuple(s + data.shape[axis] if d == axis else s for d, s in enumerate(old_shape))
        staged = self.stage_resize(new_shape)
        region = tuple(slice(old_shape[axis], None) if d == axis else slice(None) for d in range(self.ndim))
        try:
            staged.array._write("basic", region, data, stored=True)
            staged.commit()
        except BaseException:
            staged.abandon()
            raise
        return new_shape


def _new_length(axis: int, length: Any, shape: tuple[Any, ...]) -> int:
    """A length given to ``resize``: an integer (a float only if whole) in the range a
    shape allows; otherwise a :class:`SelectionError` naming the dimension and value."""
    try:
        value = operator.index(length)
    except TypeError:
        if not (isinstance(length, float) and length.is_integer()):
            raise SelectionError(
                f"resize needs whole-number lengths: dimension {axis} is {length!r} in {shape!r}"
            ) from None
        value = int(length)
    if not 0 <= value <= MAX_EXTENT:
        raise SelectionError(
            f"resize needs lengths in [0, 2**63 - 1]: dimension {axis} is {value} in {shape!r}"
        )
    return value


class StagedResize:
    """A grow of ``owner`` to ``array.shape``, not committed yet (:meth:`zarrforge.Array.stage_resize`)."""

    def __init__(self, owner: Any, old_shape: tuple[int, ...], array: Any) -> None:
        self.owner = owner
        self.old_shape = old_shape
        self.array = array  # write the new region through this handle

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    def commit(self, through: Store | None = None) -> None:
        """Write the new shape (as one read-modify-write of the latest document, so other
        changes to it are kept). ``through``: another store to write it through, such as a
        :func:`zarrforge.transaction` on the same store, to commit several arrays together."""
        if through is None:
            self.owner._commit_shape(self.shape)
            return
        open_node(through, self.owner.path, mode="r+", fmt=self.owner.format)._commit_shape(self.shape)

    def revert(self) -> None:
        """After :meth:`commit`: write the old shape back (for a caller whose commit of
        several arrays failed part way); the new region's data stays until :meth:`abandon`."""
        self.owner._commit_shape(self.old_shape)

    def abandon(self) -> None:
        """Remove what was written beyond the old shape; best effort (called while handling
        another error: anything left is invisible and cleared by the next grow)."""
        try:
            self.owner._clear_beyond(self.old_shape, self.array)
        except ZarrforgeError:
            pass


def _trimmed(chunk: np.ndarray, *, keep: tuple[int, ...], fill_value: Any) -> np.ndarray | None:
    """``chunk`` with everything outside its first ``keep`` elements per axis set to
    the fill value (the part of an edge chunk outside the array); ``None`` when that part
    holds only the fill value already (nothing to write)."""
    cut = np.ones(chunk.shape, dtype=bool)
    cut[tuple(slice(0, k) for k in keep)] = False
    if all_equal_fill(chunk[cut], fill_value):
        return None
    chunk[cut] = fill_value
    return chunk
