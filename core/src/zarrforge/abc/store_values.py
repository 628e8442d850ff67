"""The values a store's calls take and give: keys and prefixes (checked by
:func:`validate_key` / :func:`validate_prefix`), byte ranges (:class:`ByteRange`), what a
store can do (:class:`StoreCapabilities`), a listing (:class:`ListDirResult`), and the
generation of a key with no value (:data:`ABSENT`). Part of the store contract
(:mod:`zarrforge.abc.store` re-exports every name).
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from ..errors import InvalidPathError


class _Absent:
    """The generation of a key that has no value."""

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:
        return "ABSENT"  # one instance, in every process


#: the value of a key with no value, and the generation of such a key (one instance, in every process)
ABSENT: Any = _Absent()


@dataclasses.dataclass(frozen=True)
class ByteRange:
    """A byte range request: ``offset`` and/or ``length``.

    * ``ByteRange(offset=10, length=5)``: bytes 10..14,
    * ``ByteRange(offset=10)``: from byte 10 to the end,
    * ``ByteRange(length=5)`` with ``offset=None``: the last 5 bytes (a suffix).
    """

    offset: int | None = None
    length: int | None = None

    def __post_init__(self) -> None:
        if self.offset is None and self.length is None:
            raise ValueError("a ByteRange needs an offset, a length, or both")
        for field in ("offset", "length"):
            v = getattr(self, field)
            if v is not None and (not isinstance(v, int) or v < 0):
                raise ValueError(f"ByteRange {field} must be a non-negative int, got {v!r}")

    def slice_of(self, size: int) -> slice:
        """The Python slice this range selects from a value of ``size`` bytes.

        Parameters
        ----------
        size : int
            The value's size in bytes.

        Returns
        -------
        slice
            The slice, clipped to the value.
        """
        if self.offset is None:
            # a suffix: __post_init__ refuses a range with neither an offset nor a length
            return slice(max(0, size - cast(int, self.length)), size)
        stop = size if self.length is None else min(size, self.offset + self.length)
        return slice(min(self.offset, size), stop)


@dataclasses.dataclass(frozen=True)
class StoreCapabilities:
    writable: bool = True
    listable: bool = True
    partial_reads: bool = True
    atomic_writes: bool = False
    independent_keys: bool = True
    low_latency: bool = False
    conditional_writes: bool = False
    versioned_ranges: bool = False
    bookkeeping_keys: bool = True
    io_without_gil: bool = False


@dataclasses.dataclass(frozen=True)
class ListDirResult:
    keys: list[str]
    prefixes: list[str]


def validate_key(key: str) -> str:
    """Return ``key`` if it is a well-formed store key, else raise ``InvalidPathError``.

    Parameters
    ----------
    key : str
        The key to check.

    Returns
    -------
    str
        ``key``.

    Raises
    ------
    zarrforge.errors.InvalidPathError
        ``key`` is not a string, is empty or absolute, holds a backslash or NUL, or has an
        empty, ``.`` or ``..`` segment.
    """
    # The common key ("c/0/1", "a/zarr.json") passes these substring tests, which cost a
    # fraction of splitting it; anything they do not clear gets the full check below.
    if (
        type(key) is str
        and key
        and key[0] not in "/."
        and key[-1] != "/"
        and "//" not in key
        and "/." not in key
        and "\\" not in key
        and "\x00" not in key
    ):
        return key
    if not isinstance(key, str):
        raise InvalidPathError(f"store key must be a string, got {type(key).__name__} {key!r}")
    if key == "" or key.startswith("/") or "\\" in key or "\x00" in key:
        raise InvalidPathError(
            f"invalid store key {key!r}: keys are non-empty, relative, '/'-separated, "
            "without backslashes or NUL characters"
        )
    for segment in key.split("/"):
        if segment in ("", ".", ".."):
            raise InvalidPathError(
                f"invalid store key {key!r}: segment {segment!r} is not allowed "
                "(no empty, '.' or '..' segments)"
            )
    return key


def validate_prefix(prefix: str) -> str:
    """A listing prefix is empty or a valid key followed by ``/``.

    Parameters
    ----------
    prefix : str
        The prefix to check.

    Returns
    -------
    str
        ``prefix``.

    Raises
    ------
    zarrforge.errors.InvalidPathError
        ``prefix`` is neither ``""`` nor a valid key followed by ``/``.
    """
    if prefix == "":
        return prefix
    if not prefix.endswith("/"):
        raise InvalidPathError(f"invalid store prefix {prefix!r}: a prefix is '' or ends with '/'")
    validate_key(prefix[:-1])
    return prefix
