"""The format-independent model of a node: everything but the chunk data.

This is the ZEP 6 view of a hierarchy node. Formats translate their documents
to and from these objects; arrays and groups only ever see the model. The
model holds resolved extension objects (a :class:`DataType`, a
:class:`ChunkGrid`, codec instances), so building one is where unknown names
are caught.

A group may carry ``consolidated``: the models of every node below it, keyed
by path relative to the group (``"a"``, ``"a/b"``), so a whole hierarchy can
be listed and opened from one document.

``extensions`` is the ZEP 10 list: resolved :class:`Extension` objects and,
for entries no plugin understands that may be ignored, :class:`UnknownExtension`
holders kept verbatim.

``extra_fields`` holds top-level document fields that the format did not
recognise but that may be ignored (``must_understand: false``); they are
written back unchanged. ``format_name`` names the registered format the node
belongs to.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..abc.chunk_grid import ChunkGrid
from ..abc.chunk_key_encoding import ChunkKeyEncoding
from ..abc.codec import Codec
from ..abc.data_type import DataType
from ..abc.extension import Extension
from ..abc.storage_transformer import StorageTransformer


@dataclasses.dataclass(frozen=True)
class UnknownExtension:
    """An entry of ``extensions`` that no installed plugin understands but that says
    ``must_understand: false``: ignored, and written back exactly as it was read."""

    document: Any

    @property
    def name(self) -> str:
        return self.document if isinstance(self.document, str) else self.document.get("name", "")

    must_understand = False


ExtensionEntry = Extension | UnknownExtension


@dataclasses.dataclass(frozen=True)
class GroupMetadata:
    attributes: dict[str, Any]
    format_name: str
    extra_fields: dict[str, Any] = dataclasses.field(default_factory=dict)
    consolidated: "dict[str, NodeMetadata] | None" = None
    extensions: tuple[ExtensionEntry, ...] = ()

    node_type = "group"


@dataclasses.dataclass(frozen=True)
class ArrayMetadata:
    shape: tuple[int, ...]
    data_type: DataType
    chunk_grid: ChunkGrid
    chunk_key_encoding: ChunkKeyEncoding
    fill_value: Any
    codecs: tuple[Codec, ...]
    attributes: dict[str, Any]
    format_name: str
    dimension_names: tuple[str | None, ...] | None = None
    storage_transformers: tuple[StorageTransformer, ...] = ()
    extra_fields: dict[str, Any] = dataclasses.field(default_factory=dict)
    extensions: tuple[ExtensionEntry, ...] = ()

    node_type = "array"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def replace(self, **changes: Any) -> "ArrayMetadata":
        return dataclasses.replace(self, **changes)


NodeMetadata = ArrayMetadata | GroupMetadata
