"""Telling the versions apart in a read of several ranges of one value.

For stores that implement ``Store.get_ranges`` (``capabilities.versioned_ranges``)
with one request per range, each answer naming the version it came from (an ETag,
an object store's e_tag, a Last-Modified time): :func:`one_version` decides from
the answers of one such read whether they are of one version, and raises the
conflicts the contract asks for; the store reads again while it answers ``None``,
up to :data:`TRIES` times, then raises :func:`still_changing`'s error.

An answer is ``(data, version)``: ``data`` ``None`` where the value is missing,
``version`` ``None`` where the answer names none (a range past the end, or a
server that names no versions). Answers naming no version agree with any.
"""

from __future__ import annotations

from typing import Any, Sequence

from .abc.store import ABSENT
from .errors import ConflictError

#: reads of the ranges, each answered from several versions, before giving up
TRIES = 8


def one_version(answers: Sequence[tuple[bytes | None, Any]], if_generation: Any, *,
                key: str, url: str | None = None) -> tuple[list[bytes] | None, Any] | None:
    """``(parts, version)`` when the answers are of one version (``version`` ``None``
    when none names one: the store decides what that means), ``(None, ABSENT)`` when the
    value is missing, ``None`` when they mix versions or presence (read again).
    ``if_generation`` (``None``: any version) as ``Store.get_ranges`` takes it: another
    version, or a missing value, is a :class:`~zarrforge.errors.ConflictError`."""
    where = url or key
    present = [data is not None for data, _ in answers]
    versions = {version for data, version in answers if data is not None and version is not None}
    pinned = if_generation is not None and if_generation is not ABSENT
    if not any(present):
        if pinned:
            raise ConflictError(f"{key!r} at {where!r} was deleted since it was read", key=key,
                                url=url)
        return None, ABSENT
    if pinned and versions - {if_generation}:
        raise ConflictError(f"{key!r} at {where!r} changed since it was read", key=key, url=url)
    if not all(present) or len(versions) > 1:
        return None
    if if_generation is ABSENT:
        raise ConflictError(f"{key!r} at {where!r} exists, where it was read as absent",
                            key=key, url=url)
    return [data for data, _ in answers], (next(iter(versions)) if versions else None)


def still_changing(key: str, ranges: int, url: str | None = None) -> ConflictError:
    """The error when :data:`TRIES` reads of ``ranges`` ranges each mixed versions."""
    return ConflictError(f"{key!r} at {url or key!r} kept changing while {ranges} ranges of "
                         f"it were read ({TRIES} tries)", key=key, url=url)
