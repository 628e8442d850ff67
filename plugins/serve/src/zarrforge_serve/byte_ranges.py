"""HTTP ``Range`` headers (RFC 9110 section 14) as the one byte range a response serves.

Zarr readers ask for one range at a time: a shard's index as a suffix
(``bytes=-N``), then inner chunks as ``bytes=a-b``. :func:`parse_range` reads one
``bytes`` range; a header with several ranges, another unit or bad syntax is
ignored (``None``), which RFC 9110 allows: the whole value is sent with 200.
:func:`resolve` places a range against a value's size: a ``(start, stop)`` pair, or
:class:`Unsatisfiable` (answered 416 with ``Content-Range: bytes */size``).
"""

from __future__ import annotations

import dataclasses
import re

_ONE_RANGE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$", re.ASCII)
_MAX_DIGITS = 20  # 10**20 bytes is past any value a store holds


class Unsatisfiable(ValueError):
    """A range that selects no byte of the value; ``size`` is the value's size."""

    def __init__(self, message: str, size: int) -> None:
        super().__init__(message)
        self.size = size


@dataclasses.dataclass(frozen=True)
class RangeRequest:
    first: int | None  # None: a suffix range of the last ``last`` bytes
    last: int | None  # inclusive; None: to the end

    def resolve(self, size: int) -> tuple[int, int]:
        """The ``(start, stop)`` byte offsets this range selects from ``size`` bytes.

        Parameters
        ----------
        size : int
            The whole value's size in bytes.

        Returns
        -------
        tuple[int, int]
            Start (inclusive) and stop (exclusive), ``start < stop``.

        Raises
        ------
        Unsatisfiable
            The range selects no byte of a value of ``size`` bytes.

        Examples
        --------
        >>> RangeRequest(None, 4).resolve(10)
        (6, 10)
        >>> RangeRequest(2, None).resolve(10)
        (2, 10)
        """
        if self.first is None:
            length = self.last or 0
            if length == 0 or size == 0:
                raise Unsatisfiable(f"the suffix range of {length} bytes selects nothing of {size}", size)
            return max(0, size - length), size
        if self.first >= size:
            raise Unsatisfiable(f"the range starts at byte {self.first}, past the value's {size} bytes", size)
        stop = size if self.last is None else min(self.last + 1, size)
        return self.first, stop


def parse_range(header: str | None) -> RangeRequest | None:
    """The one byte range ``header`` asks for, or ``None`` to send the whole value.

    Parameters
    ----------
    header : str or None
        The request's ``Range`` header.

    Returns
    -------
    RangeRequest or None
        The range, or ``None`` for no header, several ranges, another unit, or bad syntax.

    Examples
    --------
    >>> parse_range("bytes=0-99")
    RangeRequest(first=0, last=99)
    >>> parse_range("bytes=-16")
    RangeRequest(first=None, last=16)
    >>> parse_range("bytes=0-1,5-6") is None
    True
    """
    if not header:
        return None
    match = _ONE_RANGE.match(header)
    if match is None:
        return None
    first, last = match.groups()
    if len(first) > _MAX_DIGITS or len(last) > _MAX_DIGITS or (not first and not last):
        return None
    if not first:
        return RangeRequest(None, int(last))
    if last and int(last) < int(first):
        return None
    return RangeRequest(int(first), int(last) if last else None)
