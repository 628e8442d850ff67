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
    """Shares the parse of equal documents of ``min_bytes`` or more between readers
    while one of them holds it (see the module docstring). What ``parse`` raises comes
    out unchanged.

    Parameters
    ----------
    min_bytes : int
        Documents smaller than this are parsed every time.

    Raises
    ------
    TypeError
        ``parse`` returned, for a document of ``min_bytes`` or more, an object that
        cannot be weakly referenced (a plain ``dict`` or ``list``: wrap it, as in a
        :class:`~zarrforge.metadata.document.NodeDocument`).

    Examples
    --------
    >>> memo = ParseMemo(min_bytes=16)
    >>> def parse(data):
    ...     return NodeDocument("3", "group", "zarr.json", load_document(data, key="zarr.json"))
    >>> data = b'{"zarr_format": 3, "node_type": "group"}'
    >>> first = memo.parse(data, "zarr.json", parse)
    >>> memo.parse(data, "zarr.json", parse) is first  # the same bytes, while ``first`` is held
    True
    >>> memo.parse(b"{}", "zarr.json", parse) is memo.parse(b"{}", "zarr.json", parse)  # small
    False
    """

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
