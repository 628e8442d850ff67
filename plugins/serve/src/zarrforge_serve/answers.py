"""What requests are answered with: bytes with their place in a value and an entity tag.

:class:`Body` is one answer; :func:`digest_tag` and :func:`generation_tag` make entity tags
(from the bytes, or from a store's version of them); :func:`part_of` cuts the byte range a
request asked for out of a whole answer; :class:`AnswerCache` keeps whole answers that cost
work to make (re-encoded chunks), least recently used out first, within a byte budget.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from typing import Any

from .byte_ranges import RangeRequest


@dataclasses.dataclass(frozen=True)
class Body:
    """What a request is answered with: ``data`` is bytes ``start`` to ``start + len(data)``
    of a value of ``size`` bytes; ``etag`` is a quoted entity tag, or ``None``."""

    data: bytes
    size: int
    etag: str | None
    start: int = 0
    content_type: str = "application/octet-stream"


def digest_tag(data: bytes) -> str:
    """A strong entity tag of ``data``: a digest of its bytes, quoted (SHA-256, which CPUs
    compute in hardware: twice blake2b's speed on a re-encoded chunk here)."""
    return '"' + hashlib.sha256(data).hexdigest()[:24] + '"'


def generation_tag(generation: Any) -> str:
    """A strong entity tag of a store version (a generation of conditional writes), quoted."""
    return '"g' + hashlib.blake2b(repr(generation).encode(), digest_size=12).hexdigest() + '"'


def part_of(whole: Body, wanted: RangeRequest | None) -> Body:
    """The part of ``whole`` that ``wanted`` asks for (all of it for ``None``)."""
    if wanted is None:
        return whole
    start, stop = wanted.resolve(whole.size)
    return Body(whole.data[start:stop], whole.size, whole.etag, start, whole.content_type)


class AnswerCache:
    """Re-encoded chunks (with their entity tags) kept for repeated and ranged reads, least
    recently used out first.

    A sharded reader asks for one shard several times (its index, then inner chunks by
    range); without this each request would read and encode the whole shard again.
    ``max_bytes=0`` keeps nothing.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: dict[tuple[str, tuple[int, ...]], Body | None] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, tuple[int, ...]]) -> tuple[bool, Body | None]:
        with self._lock:
            if key not in self._entries:
                return False, None
            value = self._entries.pop(key)
            self._entries[key] = value
            return True, value

    def put(self, key: tuple[str, tuple[int, ...]], value: Body | None) -> None:
        size = len(value.data) if value is not None else 0
        if size > self.max_bytes or self.max_bytes == 0:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            self._bytes -= len(old.data) if old is not None else 0
            self._entries[key] = value
            self._bytes += size
            while self._bytes > self.max_bytes or len(self._entries) > 65536:
                dropped = self._entries.pop(next(iter(self._entries)))
                self._bytes -= len(dropped.data) if dropped is not None else 0
