"""A JSON value kept as its text: what a large document's bulk is read as.

:class:`RawJSON` is the leaf both ends of metadata JSON share: the reader of large
documents (:mod:`zarrforge.metadata.raw_reading`) keeps the entries of a consolidated
view, or a large ``attributes`` value, as their text; :func:`~zarrforge.metadata.json_io.dump_document`
writes such a value back verbatim, so a document read and written back without
those values changing never builds them.
"""

from __future__ import annotations

from typing import Any

#: a member named to be kept that the object lacks (see :class:`RawJSON`)
ABSENT_MEMBER: Any = object()


class RawJSON:
    """A JSON value kept as its text, ``source[start:end]``, unparsed (``source`` is the
    document's text, or its UTF-8 bytes with byte offsets); ``kept`` holds the
    named members of an object value as parsed when it was read, ``ABSENT_MEMBER``
    for those it lacks (``kept`` is ``None`` when the value is not an object).
    :func:`dump_document` writes it back verbatim.

    Parameters
    ----------
    source : str or bytes
        The document's text, or its UTF-8 bytes.
    start, end : int
        Where the value lies in ``source`` (byte offsets for bytes).
    kept : dict[str, Any] or None
        The parsed members of an object value kept at hand; ``None`` otherwise.

    Raises
    ------
    UnicodeDecodeError
        ``text`` is read over bytes that are not UTF-8 (the readers that build it
        have checked them).

    Examples
    --------
    >>> raw = RawJSON('{"shape": [2, 3]}', 10, 16, None)
    >>> raw.text, raw.encoded_size, raw.end
    ('[2, 3]', 6, 16)
    >>> print(dump_document({"shape": raw}).decode())
    {
      "shape": [2, 3]
    }
    """

    __slots__ = ("_end", "_source", "_start", "kept")

    def __init__(self, source: str | bytes, start: int, end: int, kept: dict[str, Any] | None) -> None:
        self._source = source
        self._start = start
        self._end = end
        self.kept = kept

    @property
    def text(self) -> str:
        source = self._source
        if type(source) is bytes:
            return source[self._start : self._end].decode("utf-8")  # checked when it was read
        return source[self._start : self._end]  # type: ignore[return-value]

    @property
    def encoded_size(self) -> int:
        """The value's size in UTF-8 bytes."""
        if type(self._source) is bytes:
            return self._end - self._start
        return len(self.text.encode("utf-8"))

    @property
    def end(self) -> int:
        """The index in the source after the value."""
        return self._end
