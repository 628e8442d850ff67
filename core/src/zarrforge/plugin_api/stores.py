"""The surface of a store plugin (the ``stores`` extension point, keyed by URL scheme)
and of a URL adapter plugin (``url_adapters``, the segments of a chained URL).

Contracts: :mod:`zarrforge.abc.store` (a flat mapping of keys to bytes:
:class:`Store`, :class:`WrapperStore`, :class:`StoreCapabilities`, ranges and listings,
the key rules :func:`validate_key` / :func:`validate_prefix`) and
:mod:`zarrforge.abc.url_adapter` (:class:`URLAdapter` turns a :class:`Segment` and the
:class:`PipelineState` before it into the state after it).

Tools: :data:`paths` (``normalize_path``, ``join``, ``parent_of``, ``validate_name``),
:data:`versions` (``one_version``, ``still_changing``, ``TRIES``: for a store that reads
ranges of one version with a request per range, each answer naming its version),
:data:`registry`, :data:`config`. A store that claims URLs a scheme alone does not
identify does it through a hook (:mod:`zarrforge.plugin_api.hooks`).
"""

from __future__ import annotations

from .. import config
from ..abc.store import (
    ABSENT,
    ByteRange,
    ListDirResult,
    ReadLimit,
    Store,
    StoreCapabilities,
    WrapperStore,
    directory_location,
    is_document_key,
    read_limit,
    validate_key,
    validate_prefix,
)
from ..abc.url_adapter import FormatSegment, PipelineState, Segment, URLAdapter
from ..metadata import paths
from ..registries.registry_facade import FACADE as registry
from ..storing import versions

__all__ = [
    "ABSENT",
    "ByteRange",
    "FormatSegment",
    "ListDirResult",
    "PipelineState",
    "ReadLimit",
    "Segment",
    "Store",
    "StoreCapabilities",
    "URLAdapter",
    "WrapperStore",
    "config",
    "directory_location",
    "is_document_key",
    "paths",
    "read_limit",
    "registry",
    "validate_key",
    "validate_prefix",
    "versions",
]
