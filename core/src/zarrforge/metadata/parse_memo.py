"""The parse of a large document, found again while it is in use.

Creating a node under a root with a consolidated view of thousands of members reads
the root document twice: once to survey the hierarchy, and once more under the
generation its view update is committed against. Parsing it is most of the cost.
:class:`ParseMemo` gives the second reader the first one's parse when the bytes are
the same, found by a digest of them (not the bytes, which would double the memory).

Contract: what ``parse`` returns must be treated as read-only by everyone (as
:class:`~zarrforge.metadata.document.NodeDocument` already is), since two readers may
get the same object. The memo holds it weakly: once no caller keeps the parse, it is
gone, so nothing stays in memory after the operation. Documents under ``min_bytes``
are parsed every time (hashing them would cost about as much).
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")


class ParseMemo:
    def __init__(self, min_bytes: int) -> None:
        self.min_bytes = min_bytes
        self._lock = threading.Lock()
        self._entries: dict[tuple[Hashable, bytes], weakref.ref] = {}

    def parse(self, data: bytes, key: Hashable, parse: Callable[[bytes], T]) -> T:
        """``parse(data)``, or the object an earlier call returned for equal ``data`` and
        ``key`` (what the parse depends on besides the bytes) if someone still holds it."""
        if len(data) < self.min_bytes:
            return parse(data)
        memo_key = (key, hashlib.blake2b(data, digest_size=16).digest())
        with self._lock:
            found = self._entries.get(memo_key)
            result = found() if found is not None else None
        if result is not None:
            return result
        result = parse(data)
        if result is not None:
            with self._lock:
                self._entries = {k: ref for k, ref in self._entries.items() if ref() is not None}
                self._entries[memo_key] = weakref.ref(result)
        return result
