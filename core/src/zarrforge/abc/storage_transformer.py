"""Contract for storage transformers (the ``storage_transformers`` extension point).

A storage transformer sits between an array and its store and is itself a
store: ``wrap(store, keys, metadata)`` returns the store the array's chunk
I/O goes through. ``keys`` (:class:`ChunkKeys`) maps chunk coordinates to
store keys and back, as the array's format lays them out, and ``metadata`` is
the array's :class:`~zarrforge.abc.metadata.ArrayMetadata`, so a
transformer that regroups chunks (the 2022 draft's sharding) can tell chunk
keys from other keys. The array's ``storage_transformers`` list is applied in order,
the first entry being closest to the array.

``wrap`` may also take a keyword ``path``: the array's node path (``""`` for
the root, ``"a/b"``), or ``None`` when a format wraps the whole hierarchy
(below). Callers go through :func:`wrap_store`, which passes ``path`` only to
a ``wrap`` that declares it (or ``**kwargs``), so transformers written before
it existed keep working; the signature is read once per class.

*Runtime* transformers that change no keys (a cache, a request counter) are
not recorded in metadata: pass them when opening an array
(``open_array(..., transformers=[...])``); they wrap the store below the
recorded ones. Any callable ``store -> Store`` works there.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from .extension_point import ExtensionPoint
from .store import Store


@dataclasses.dataclass(frozen=True)
class ChunkKeys:
    """The chunk keys of one array: ``key(coords)`` and its inverse ``coords(key)``
    (``None`` for keys that are not chunk keys of the array)."""

    key: Callable[[Sequence[int]], str]
    coords: Callable[[str], tuple[int, ...] | None]


class StorageTransformer(ExtensionPoint):
    name: ClassVar[str]

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> StorageTransformer:
        """The transformer for a ``storage_transformers`` entry; invalid configuration is a
        ``MetadataError`` naming the field.

        Parameters
        ----------
        name : str
            The entry's ``name``.
        configuration : dict[str, Any] or None
            The entry's ``configuration``; ``None`` for a short-hand name.

        Returns
        -------
        StorageTransformer
            The transformer the entry describes.

        Raises
        ------
        zarrforge.errors.MetadataError
            The configuration is invalid (the error names the field).
        """

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The metadata entry that rebuilds this transformer (``from_json`` of it is equal).

        Returns
        -------
        dict[str, Any]
            The ``storage_transformers`` entry.
        """

    def validate(self, metadata: Any) -> None:
        """Check the entry against the array it is on (nothing by default): at creation,
        on open and before a resize is written, so a configuration that does not fit the
        array (a manifest naming a chunk outside the grid) is refused before anything
        is written or read. Raise :class:`~zarrforge.errors.MetadataError` with ``field``
        inside the entry (``"configuration.manifest"``); the core prefixes
        ``storage_transformers[i]``.

        Parameters
        ----------
        metadata : Any
            The array's :class:`~zarrforge.abc.metadata.ArrayMetadata`.

        Raises
        ------
        zarrforge.errors.MetadataError
            The entry does not fit the array.
        """
        return None

    @abstractmethod
    def wrap(self, store: Store, keys: ChunkKeys, metadata: Any, *, path: str | None = None) -> Store:
        """The store the array's chunk I/O goes through (``metadata``: the array's
        :class:`~zarrforge.abc.metadata.ArrayMetadata`, which itself holds transformers,
        so this module does not import it; ``path``: the array's node path). Declaring
        ``path`` is optional: :func:`wrap_store` passes it only where it is declared.

        A format applying hierarchy-wide (global) transformers, as the 2022 draft
        allows, wraps the whole store: ``metadata`` and ``path`` are then ``None`` and
        ``keys`` match no key.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store below (the next transformer's, or the array's store).
        keys : zarrforge.abc.storage_transformer.ChunkKeys
            The array's chunk keys and their inverse.
        metadata : Any
            The array's metadata, or ``None`` for a hierarchy-wide transformer.
        path : str or None
            The array's node path (``""`` for the root), or ``None`` for a hierarchy-wide
            transformer.

        Returns
        -------
        zarrforge.abc.store.Store
            The store the array's chunk I/O goes through.
        """


def wrap_store(
    transformer: StorageTransformer, store: Store, keys: ChunkKeys, metadata: Any, *, path: str | None
) -> Store:
    """``transformer.wrap(store, keys, metadata)``, with ``path=path`` when its ``wrap``
    takes it: every caller of ``wrap`` goes through here.

    Parameters
    ----------
    transformer : zarrforge.abc.storage_transformer.StorageTransformer
        The transformer.
    store : zarrforge.abc.store.Store
        The store it wraps.
    keys : zarrforge.abc.storage_transformer.ChunkKeys
        The array's chunk keys.
    metadata : Any
        The array's metadata, or ``None`` for a hierarchy-wide transformer.
    path : str or None
        The array's node path, or ``None`` for a hierarchy-wide transformer.

    Returns
    -------
    zarrforge.abc.store.Store
        What ``transformer.wrap`` returns.
    """
    if _takes_path(type(transformer)):
        return transformer.wrap(store, keys, metadata, path=path)
    return transformer.wrap(store, keys, metadata)


@functools.cache
def _takes_path(cls: type[StorageTransformer]) -> bool:
    try:
        parameters = inspect.signature(cls.wrap).parameters.values()
    except (TypeError, ValueError):  # no signature to read (a builtin): the old call
        return False
    return any(
        (p.name == "path" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)) or p.kind is p.VAR_KEYWORD
        for p in parameters
    )
