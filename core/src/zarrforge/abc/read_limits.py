"""Bounded reads: the most bytes a store may hold reading one key.

What a store reads is untrusted (an HTTP body that never ends, a zip
member that inflates a thousandfold, a header that lies about a size). A store whose
reads could hold more than the value's stored size, or whose size it cannot tell
before reading (network bodies, decompressing containers), bounds every read by
:func:`read_limit` of the key: ``config.max_document_bytes`` for a metadata document
(:func:`is_document_key`: ``zarr.json``, Zarr v2's ``.zarray``/``.zgroup``/``.zattrs``/
``.zmetadata``, the 2022 draft's ``meta/...array.json``/``group.json``),
``config.max_chunk_bytes`` for anything else (a chunk, a shard read whole). It refuses
a value over the limit with the error :meth:`ReadLimit.refused` makes
(:class:`~zarrforge.errors.DocumentTooLargeError` for a document,
:class:`~zarrforge.errors.ResourceLimitError` otherwise, naming the key and the
setting), before allocating it where it is told the size (a zip directory, a
``Content-Length``) and, whatever it was told, as soon as what it has read passes the
limit: it never holds more than the limit and one buffer.

:class:`BoundedBody` gathers a body read in pieces under a :class:`ReadLimit`. Part of
the store contract (:mod:`zarrforge.abc.store` re-exports every name).
"""

from __future__ import annotations

import dataclasses
import re

from .. import config
from ..errors import DocumentTooLargeError, ResourceLimitError, ZarrforgeError

# The names the published Zarr formats give a node's own document, wherever the node is:
# v3's zarr.json (also the 2022 draft's entry point), v2's array and group documents.
# One table, read here (what counts as a document) and by zarrforge.nodes.unreadable (where a
# node of a format that is not installed may be).
NODE_DOCUMENT_NAMES = ("zarr.json", ".zarray", ".zgroup")
# The last segment of every metadata document key: those, and v2's other two.
DOCUMENT_NAMES = frozenset({*NODE_DOCUMENT_NAMES, ".zattrs", ".zmetadata"})
# The 2022 draft's node documents: meta/root.group.json, meta/root/a/b.array.json (the
# suffix after .array/.group is the entry point's metadata_key_suffix)
_DRAFT_DOCUMENT = re.compile(r"meta/root(?:/.*)?\.(?:array|group)(?:\.[^/]*)?")


def draft_document_keys(path: str) -> list[str]:
    """The keys of the 2022 draft's documents of a node at ``path`` (with the default
    ``.json`` suffix): ``meta/root/<path>.array.json`` and ``.group.json``.

    Parameters
    ----------
    path : str
        The node's path (``""`` for the root).

    Returns
    -------
    list[str]
        The array document's key, then the group document's.
    """
    meta = f"meta/root/{path}" if path else "meta/root"
    return [f"{meta}.array.json", f"{meta}.group.json"]


def is_document_key(key: str) -> bool:
    """Is ``key`` where a format keeps a metadata document (rather than a chunk)?

    Parameters
    ----------
    key : str
        A store key.

    Returns
    -------
    bool
        Whether ``key`` names a metadata document.
    """
    name = key.rpartition("/")[2]
    return name in DOCUMENT_NAMES or (key.startswith("meta/") and _DRAFT_DOCUMENT.fullmatch(key) is not None)


@dataclasses.dataclass(frozen=True)
class ReadLimit:
    """The most bytes a store may hold reading the value at ``key`` (or part of it):
    ``limit`` (``None``: no limit), set by the zarrforge.config ``setting``."""

    key: str
    limit: int | None
    setting: str

    @property
    def document(self) -> bool:
        """Is the limit that of a metadata document (``max_document_bytes``)?

        Returns
        -------
        bool
            Whether ``setting`` is ``max_document_bytes``.
        """
        return self.setting == "max_document_bytes"

    def check(self, size: int, *, declared: bool = False) -> None:
        """Raise :meth:`refused` when ``size`` bytes (read, or ``declared`` by the backend
        before reading) are over the limit.

        Parameters
        ----------
        size : int
            The bytes read, or declared.
        declared : bool
            ``size`` is what the backend declared before reading.

        Raises
        ------
        zarrforge.errors.DocumentTooLargeError
            A metadata document is over ``max_document_bytes``.
        zarrforge.errors.ResourceLimitError
            Any other value is over ``max_chunk_bytes``.
        """
        if self.limit is not None and size > self.limit:
            raise self.refused(size, declared=declared)

    def refused(self, size: int, *, declared: bool = False, where: str = "") -> ZarrforgeError:
        """The error refusing the value at ``key``: ``size`` bytes declared by the backend
        (``declared``), or read so far when the read was stopped (at least that many).

        Parameters
        ----------
        size : int
            The bytes declared, or read so far.
        declared : bool
            ``size`` is what the backend declared before reading.
        where : str
            Added to the message after what is refused (``""``: nothing).

        Returns
        -------
        zarrforge.errors.ZarrforgeError
            A :class:`~zarrforge.errors.DocumentTooLargeError` for a metadata document,
            else a :class:`~zarrforge.errors.ResourceLimitError`; to raise.
        """
        # a DocumentTooLargeError names its key itself (MetadataError's "in 'key': ")
        what = "the metadata document" if self.document else f"the stored value {self.key!r}"
        setting = f"zarrforge.config {self.setting}"
        if declared:
            told = (
                f"{what}{where} declares {size} bytes, over the limit of {self.limit} "
                f"bytes ({setting}); it was not read"
            )
            example = size
        else:
            told = (
                f"{what}{where} holds more than the limit of {self.limit} bytes "
                f"({setting}): the read stopped at {size} bytes"
            )
            example = 2 * (self.limit or 1)
        message = (
            f"{told}. Raise the limit to read it, e.g. zarrforge.config.set("
            f"{self.setting}={example}), or set it to None for no limit"
        )
        if self.document:
            return DocumentTooLargeError(message, size=size, limit=self.limit or 0, key=self.key)
        return ResourceLimitError(message)

    def collector(self, *, wanted: int | None = None) -> BoundedBody:
        """A :class:`BoundedBody` gathering a body read in pieces under this limit.

        Parameters
        ----------
        wanted : int or None
            The bytes needed (the rest of the body is not); ``None``: all of it.

        Returns
        -------
        BoundedBody
            The collector.
        """
        return BoundedBody(self, wanted)


class BoundedBody:
    """A value read in pieces (a network body, an inflating stream) under a
    :class:`ReadLimit`: :meth:`add` each piece until it answers ``True`` (``wanted``
    bytes are in: the rest is not needed) or the body ends; :meth:`add` raises the
    limit's refusal as soon as the pieces pass the limit, so that no more than the limit
    and one piece is ever held. :meth:`room` is how much to ask a ``read(n)`` for."""

    PIECE = 1 << 20

    def __init__(self, bound: ReadLimit, wanted: int | None = None) -> None:
        self.bound = bound
        self.wanted = wanted
        self.size = 0
        self._pieces: list[bytes] = []

    def room(self) -> int:
        """The most bytes worth asking for next: a piece, or less near the end of what is
        wanted, or one byte past the limit (which proves the value is over it).

        Returns
        -------
        int
            The byte count (at least 1).
        """
        room = self.PIECE
        if self.wanted is not None:
            room = min(room, self.wanted - self.size)
        if self.bound.limit is not None:
            room = min(room, self.bound.limit + 1 - self.size)
        return max(room, 1)

    def add(self, piece: bytes | bytearray | memoryview) -> bool:
        """Keep ``piece``; ``True`` once ``wanted`` bytes are kept (the body beyond them is
        not needed). The limit's error once the body is over the limit.

        Parameters
        ----------
        piece : bytes or bytearray or memoryview
            The next piece of the body.

        Returns
        -------
        bool
            ``True`` once ``wanted`` bytes are kept.

        Raises
        ------
        zarrforge.errors.DocumentTooLargeError
            A metadata document is over the limit.
        zarrforge.errors.ResourceLimitError
            Any other value is over the limit.
        """
        self.size += len(piece)
        if (
            self.bound.limit is not None
            and self.size > self.bound.limit
            and (self.wanted is None or self.wanted > self.bound.limit)
        ):
            self._pieces = []
            raise self.bound.refused(self.size)
        self._pieces.append(bytes(piece))
        return self.wanted is not None and self.size >= self.wanted

    def value(self) -> bytes:
        """Everything kept, cut at ``wanted``.

        Returns
        -------
        bytes
            The body (the pieces are released: a second call returns ``b""``).
        """
        data = self._pieces[0] if len(self._pieces) == 1 else b"".join(self._pieces)
        self._pieces = []
        return data if self.wanted is None else data[: self.wanted]


def read_limit(key: str) -> ReadLimit:
    """How many bytes a store may hold reading ``key`` now: ``config.max_document_bytes``
    for a metadata document (:func:`is_document_key`), ``config.max_chunk_bytes`` for
    anything else (module docstring, "Bounded reads").

    Parameters
    ----------
    key : str
        The store key about to be read.

    Returns
    -------
    ReadLimit
        The limit, with the setting that sets it.
    """
    settings = config.get()
    if is_document_key(key):
        return ReadLimit(key, settings.max_document_bytes, "max_document_bytes")
    return ReadLimit(key, settings.max_chunk_bytes, "max_chunk_bytes")
