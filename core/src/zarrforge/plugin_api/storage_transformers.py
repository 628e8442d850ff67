"""The surface of a storage transformer plugin (the ``storage_transformers`` extension
point).

Contract: :mod:`zarrforge.abc.storage_transformer`: a transformer wraps the store an
array's chunks are read from and written to (:class:`ChunkKeys` names what it is
asked for), as a :class:`WrapperStore` does (:mod:`zarrforge.abc.store`).

Tools: :func:`storage_transformers_from_json` (a node's ``storage_transformers``
list), :func:`resolve` with :class:`ExtensionRef` (one reference through one
registry, for a format whose documents spell transformers their own way: an engine
service, since it reports a failing plugin as the engine reports every plugin failure),
:data:`registry`, :data:`config`; and, for a transformer whose metadata refers to data
stored elsewhere (a chunk manifest), the engine service for reading it:
:func:`check_reference` (in ``validate``: is a target one the array may read?) and
:class:`ReferenceReader` (in ``wrap``: read targets by byte range). Targets are keys of
the array's own store unless the user's ``reference_targets`` setting allows absolute
paths and URLs below prefixes it lists (docs/zep-playground.md, "Reading other data").
"""

from __future__ import annotations

from .. import config
from ..abc.storage_transformer import ChunkKeys, StorageTransformer
from ..abc.store import ByteRange, Store, WrapperStore
from ..metadata.extension_def import ExtensionRef
from ..registries.registry_facade import FACADE as registry
from ..registries.resolution import resolve, storage_transformers_from_json
from ..storing.references import ReferenceReader, check_reference

__all__ = [
    "ByteRange",
    "ChunkKeys",
    "ExtensionRef",
    "ReferenceReader",
    "Store",
    "StorageTransformer",
    "WrapperStore",
    "check_reference",
    "config",
    "registry",
    "resolve",
    "storage_transformers_from_json",
]
