"""Contract for storage transformers (the ``storage_transformers`` extension point).

A storage transformer sits between an array and its store and is itself a
store: ``wrap(store, array_prefix, metadata)`` returns the store the array's
chunk I/O goes through. ``array_prefix`` is the array's node path (``""`` for
the root) and ``metadata`` its :class:`~zarrforge.metadata.model.ArrayMetadata`,
so a transformer that rewrites keys (the 2022 draft's sharding) can parse
chunk keys. The array's ``storage_transformers`` list is applied in order,
the first entry being closest to the array.

*Runtime* transformers that change no keys (a cache, a request counter) are
not recorded in metadata: pass them when opening an array
(``open_array(..., transformers=[...])``); they wrap the store below the
recorded ones. Any callable ``store -> Store`` works there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from .store import Store

if TYPE_CHECKING:
    from ..metadata.model import ArrayMetadata


class StorageTransformer(ABC):
    name: ClassVar[str]

    @classmethod
    @abstractmethod
    def from_json(cls, name: str, configuration: dict[str, Any] | None) -> "StorageTransformer":
        ...

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        ...

    @abstractmethod
    def wrap(self, store: Store, array_prefix: str, metadata: "ArrayMetadata") -> Store:
        """The store seen by the array whose node path is ``array_prefix``."""
