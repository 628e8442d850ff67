"""Contract for storage transformers (the ``storage_transformers`` extension point).

A storage transformer sits between an array and its store and is itself a
store: ``wrap(store, keys, metadata)`` returns the store the array's chunk
I/O goes through. ``keys`` (:class:`ChunkKeys`) maps chunk coordinates to
store keys and back, as the array's format lays them out, and ``metadata`` is
the array's :class:`~zarrforge.abc.metadata.ArrayMetadata`, so a
transformer that regroups chunks (the 2022 draft's sharding) can tell chunk
keys from other keys. The array's ``storage_transformers`` list is applied in order,
the first entry being closest to the array.

*Runtime* transformers that change no keys (a cache, a request counter) are
not recorded in metadata: pass them when opening an array
(``open_array(..., transformers=[...])``); they wrap the store below the
recorded ones. Any callable ``store -> Store`` works there.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Sequence

from .store import Store


@dataclasses.dataclass(frozen=True)
class ChunkKeys:
    """The chunk keys of one array: ``key(coords)`` and its inverse ``coords(key)``
    (``None`` for keys that are not chunk keys of the array)."""

    key: Callable[[Sequence[int]], str]
    coords: Callable[[str], "tuple[int, ...] | None"]


class StorageTransformer(ABC):
    name: ClassVar[str]

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> "StorageTransformer":
        """The transformer for a ``storage_transformers`` entry; invalid configuration is a
        ``MetadataError`` naming the field."""

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The metadata entry that rebuilds this transformer (``from_json`` of it is equal)."""

    @abstractmethod
    def wrap(self, store: Store, keys: ChunkKeys, metadata: Any) -> Store:
        """The store the array's chunk I/O goes through (``metadata``: the array's
        :class:`~zarrforge.abc.metadata.ArrayMetadata`, which itself holds transformers,
        so this module does not import it).

        A format applying hierarchy-wide (global) transformers, as the 2022 draft
        allows, wraps the whole store: ``metadata`` is then ``None`` and ``keys``
        match no key.
        """
