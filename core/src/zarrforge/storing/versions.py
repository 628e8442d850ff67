"""Telling the versions apart in a read of several ranges of one value.

For stores that implement ``Store.get_ranges`` (``capabilities.versioned_ranges``)
with one request per range, each answer naming the version it came from (an ETag,
an object store's e_tag, a Last-Modified time): :func:`one_version` decides from
the answers of one such read whether they are of one version, and raises the
conflicts the contract asks for; the store reads again while it answers ``None``,
up to :data:`TRIES` times, then raises :func:`still_changing`'s error.

An answer is ``(data, version)``: ``data`` ``None`` where the value is missing;
``version`` the generation the answer names, ``None`` where it names none (a server
that names no versions), or :class:`PastEnd` for a range that starts at or past the
end of the value that answered it (S3's and HTTP's ``416``, which name no version).

The rules, so that no read combines parts of two versions:

* answers naming two versions, or a missing value beside a present one, are mixed;
* an answer naming no version beside answers naming one is mixed too: it may have
  come from another version (a store that claims versioned ranges must name them);
* a :class:`PastEnd` answer (empty bytes) agrees with version ``V`` only when ``V`` is
  at most that range's offset long, which ``sizes`` (version -> size in bytes, from
  the other answers) says; without ``V``'s size it cannot be vouched for and is mixed;
* when no answer names a version (every range past the end, say), the parts come back
  with the version ``None`` and the store must find the version some other way (a
  look-up whose answer it adds to the others: :func:`names_a_version`).

Raises
------
zarrforge.errors.ConflictError
    :func:`one_version`: the answers are of a version other than ``if_generation``, or
    the value was deleted (or exists, where it was read as absent). :func:`still_changing`
    returns the error for the store to raise when the answers kept mixing versions.

Examples
--------
>>> versions.one_version([(b"ab", "v1"), (b"cd", "v1")], None, key="k")
([b'ab', b'cd'], 'v1')
>>> versions.one_version([(b"ab", "v1"), (b"cd", "v2")], None, key="k") is None  # read again
True
>>> from zarrforge.errors import ConflictError
>>> try:
...     versions.one_version([(b"ab", "v2")], "v1", key="k")
... except ConflictError as error:
...     print(error)
'k' at 'k' changed since it was read
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..abc.store import ABSENT
from ..errors import ConflictError

#: reads of the ranges, each answered from several versions, before giving up
TRIES = 8


@dataclasses.dataclass(frozen=True)
class PastEnd:
    """The version of an answer for a range starting at ``offset`` that lay wholly past the
    end of the value that answered it, when the answer named no version: its (empty)
    bytes are that range of every version of at most ``offset`` bytes, and of no other."""

    offset: int


def names_a_version(version: Any) -> bool:
    """Does an answer's ``version`` name one (a generation, not ``None``, ``ABSENT`` or
    :class:`PastEnd`)?"""
    return version is not None and version is not ABSENT and not isinstance(version, PastEnd)


def one_version(
    answers: Sequence[tuple[bytes | None, Any]],
    if_generation: Any,
    *,
    key: str,
    url: str | None = None,
    sizes: Mapping[Any, int] | None = None,
) -> tuple[list[bytes] | None, Any] | None:
    """``(parts, version)`` when the answers are of one version (``version`` ``None``
    when none names one: the store decides what that means), ``(None, ABSENT)`` when the
    value is missing, ``None`` when they mix versions or presence (read again).
    ``if_generation`` (``None``: any version) as ``Store.get_ranges`` takes it: another
    version, or a missing value, is a :class:`~zarrforge.errors.ConflictError`.
    ``sizes``: the size in bytes of each version the store knows it of, which
    :class:`PastEnd` answers are checked against (see the module's rules)."""
    where = url or key
    present = [data is not None for data, _ in answers]
    named = {version for data, version in answers if data is not None and names_a_version(version)}
    pinned = if_generation is not None and if_generation is not ABSENT
    if answers and not any(present):
        if pinned:
            raise ConflictError(f"{key!r} at {where!r} was deleted since it was read", key=key, url=url)
        return None, ABSENT
    if pinned and named - {if_generation}:
        raise ConflictError(f"{key!r} at {where!r} changed since it was read", key=key, url=url)
    if not all(present) or len(named) > 1:
        return None
    version = next(iter(named)) if named else None
    if version is not None:
        if any(v is None for _, v in answers):
            return None  # an answer naming no version may be of another one
        size = (sizes or {}).get(version)
        for _, v in answers:
            if isinstance(v, PastEnd) and (size is None or size > v.offset):
                return None  # empty there, where this version has bytes: another version's
    if if_generation is ABSENT and answers:
        raise ConflictError(f"{key!r} at {where!r} exists, where it was read as absent", key=key, url=url)
    return [data for data, _ in answers], version  # type: ignore[misc]


def still_changing(key: str, ranges: int, url: str | None = None) -> ConflictError:
    """The error when :data:`TRIES` reads of ``ranges`` ranges each mixed versions."""
    return ConflictError(
        f"{key!r} at {url or key!r} kept changing while {ranges} ranges of it were read ({TRIES} tries)",
        key=key,
        url=url,
    )
