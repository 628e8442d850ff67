"""Contract for chunk key encodings (the ``chunk_key_encoding`` extension point).

A chunk key encoding maps a chunk's grid coordinates to the key of its data,
relative to the array's own prefix (the format adds the prefix). ``decode_key``
is the inverse, returning ``None`` for keys that are not chunk keys of this
encoding; it lets tools count and list stored chunks.

Keys are valid store keys (``/``-separated, no empty, ``.`` or ``..`` segments),
distinct coordinates get distinct keys, and a 0-d array's only chunk has the
coordinates ``()``. ``decode_key`` returns coordinates only for the key
``encode_key`` gives them, and ``None`` (or a zarrforge error) for anything
else. ``from_json`` raises :class:`~zarrforge.errors.MetadataError` naming the
offending field. Two encodings are equal when they have the same type and the
same ``to_json()``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from .extension_point import ExtensionPoint


class ChunkKeyEncoding(ExtensionPoint):
    name: ClassVar[str]
    #: the character between coordinates in a key (``"/"`` or ``"."`` for the spec's
    #: encodings), or ``None`` for an encoding that has none; a format translating keys
    #: into another encoding (the 2022 draft's) keeps it
    separator: str | None = None

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> ChunkKeyEncoding:
        """The encoding for a ``chunk_key_encoding`` entry (``name``, ``configuration``);
        a ``MetadataError`` naming the configuration field for anything invalid.

        Parameters
        ----------
        name : str
            The entry's ``name``.
        configuration : dict[str, Any] or None
            The entry's ``configuration``; ``None`` for a short-hand name.

        Returns
        -------
        ChunkKeyEncoding
            The encoding the entry describes.

        Raises
        ------
        zarrforge.errors.MetadataError
            The configuration is invalid (the error names the field).
        """

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The metadata entry that rebuilds this encoding (``from_json`` of it is equal).

        Returns
        -------
        dict[str, Any]
            The ``chunk_key_encoding`` entry.
        """

    @abstractmethod
    def encode_key(self, coords: Sequence[int]) -> str:
        """The store key (below the array's path) of the chunk at grid ``coords``; distinct
        coordinates give distinct keys, each a valid key (``validate_key``).

        Parameters
        ----------
        coords : Sequence[int]
            The chunk's grid coordinates (``()`` for a 0-d array's chunk).

        Returns
        -------
        str
            The chunk's key, relative to the array's prefix.
        """

    @abstractmethod
    def decode_key(self, key: str, ndim: int) -> tuple[int, ...] | None:
        """The grid coordinates ``key`` stands for in an array of ``ndim`` dimensions, or
        ``None`` for a key this encoding does not produce (listings use it to find chunks,
        so a key that decodes must be exactly the one ``encode_key`` gives).

        Parameters
        ----------
        key : str
            A key relative to the array's prefix.
        ndim : int
            The array's number of dimensions.

        Returns
        -------
        tuple[int, ...] or None
            The chunk's grid coordinates, or ``None`` for a key that is not a chunk key
            of this encoding.
        """

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_json() == self.to_json()

    def __hash__(self) -> int:
        return hash(repr(self.to_json()))
