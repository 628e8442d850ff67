"""Which chunk is being encoded: a context the chunk engine sets for the codecs it calls.

Codecs receive a chunk's values and its :class:`~zarrforge.abc.codec.ChunkSpec`, not
its position, and most need nothing more. A codec whose choices may depend on the
position (the registry's ``conditional`` codec hands its decision function the chunk
index) reads :func:`current_chunk`: the grid coordinates of the chunk being encoded,
or ``None`` outside an encode the engine started (a codec called directly). The
engine sets it around every chunk it encodes, in whichever thread encodes it; a
codec that encodes sub-chunks of its own (sharding's inner chunks) sets it for each
with :func:`encoding_chunk`, to the sub-chunk's coordinates in the array's grid of
such sub-chunks.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

_current: contextvars.ContextVar[tuple[int, ...] | None] = contextvars.ContextVar(
    "zarrforge_current_chunk", default=None
)


def current_chunk() -> tuple[int, ...] | None:
    """The grid coordinates of the chunk being encoded, or ``None``. It raises nothing.

    Returns
    -------
    tuple[int, ...] or None
        The coordinates set by :func:`encoding_chunk`, or ``None`` outside it.

    Examples
    --------
    >>> current_chunk() is None  # no encode in progress
    True
    >>> with encoding_chunk((0, 2)):
    ...     current_chunk()
    (0, 2)
    """
    return _current.get()


def enter_chunk(coords: tuple[int, ...]) -> contextvars.Token:
    """Set the chunk being encoded (the engine's fast path; pair with :func:`leave_chunk`)."""
    return _current.set(coords)


def leave_chunk(token: contextvars.Token) -> None:
    _current.reset(token)


@contextlib.contextmanager
def encoding_chunk(coords: tuple[int, ...]) -> Iterator[None]:
    """Within the block, :func:`current_chunk` returns ``coords``.

    It raises nothing of its own (a coordinate ``int()`` refuses raises what ``int()``
    raises); the previous coordinates are restored however the block ends.

    Parameters
    ----------
    coords : tuple[int, ...]
        The grid coordinates of the chunk being encoded.

    Yields
    ------
    None
        Nothing: the block runs with ``coords`` set (restored on exit).

    Examples
    --------
    >>> with encoding_chunk((1, 0)):
    ...     outer = current_chunk()
    ...     with encoding_chunk((1, 0, 3)):  # a sub-chunk, as sharding sets it
    ...         inner = current_chunk()
    ...     after = current_chunk()
    >>> outer, inner, after, current_chunk()
    ((1, 0), (1, 0, 3), (1, 0), None)
    """
    token = _current.set(tuple(int(c) for c in coords))
    try:
        yield
    finally:
        _current.reset(token)
