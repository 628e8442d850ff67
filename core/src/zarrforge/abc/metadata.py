"""The resolved model of a node: what formats build and the engine consumes.

A format reads a node's documents as a plain
:class:`~zarrforge.metadata.document.NodeDocument` and resolves it into
these objects, in which every name has been turned into its implementation
(a :class:`DataType`, a :class:`ChunkGrid`, codec instances): building one is
where unknown names are caught. Arrays and groups only ever see this model.
It is the ZEP 6 view of a hierarchy node.

A group may carry ``consolidated``: the metadata of every node below it,
keyed by path relative to the group (``"a"``, ``"a/b"``), so a whole
hierarchy can be listed and opened from one document. Entries are kept as
read (:class:`NodeDocument`) until a member is opened, so one entry no
installed plugin understands fails only that member; entries written by
zarrforge are models.

``extensions`` is the ZEP 10 list: resolved :class:`Extension` objects and,
for entries no plugin understands that may be ignored, :class:`UnknownExtension`
holders kept verbatim.

``extra_fields`` holds top-level document fields that the format did not
recognise but that may be ignored (``must_understand: false``); they are
written back unchanged. ``format_name`` names the registered format the node
belongs to.

``format_data`` is side data formats keep for themselves: what a document said
that the model cannot hold (the spelling a data type was read with, the URI
that named a codec, a codec configuration the codec cannot state), so that
writing the node back reproduces what was read. Its contract:

* it maps a format's registered name to a value only that format reads; the
  format sets its entry when it builds the model (reading a document, or
  creating a node from the format's own spellings) and consults it when it
  writes. Other code never interprets it and never changes it in place;
* ``replace`` (``dataclasses.replace``) carries it along unchanged; a model
  built afresh has none, and its format then writes in its own style;
* it takes no part in equality, hashing or ``repr``: two models that describe
  the same node are equal whatever their formats remembered;
* it is pickled and deep-copied with the model, so values must allow both;
* side data about one codec or the data type holds that very object and finds
  it by identity (``is``), never by equality (codecs compare by configuration,
  so two equal codecs may have been read under different names) nor by bare
  ``id()`` (an id is reused once its object is gone; holding the object rules
  that out, and pickling keeps the identity, since the model's fields travel in
  one pickle). A codec ``replace`` put in finds nothing and is spelled afresh.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..metadata.document import NodeDocument
from ..metadata.document import UnknownExtension as UnknownExtension
from ..metadata.replacing import replaced
from .chunk_grid import ChunkGrid
from .chunk_key_encoding import ChunkKeyEncoding
from .codec import Codec
from .data_type import DataType
from .extension import Extension
from .storage_transformer import StorageTransformer

#: an entry of a node's extensions, a resolved extension or one no installed plugin knows
ExtensionEntry = Extension | UnknownExtension


@dataclasses.dataclass(frozen=True)
class GroupMetadata:
    attributes: dict[str, Any]
    format_name: str
    extra_fields: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: a mapping (a dict, or a format's lazy one, such as
    #: :class:`~zarrforge.metadata.indexed_view.IndexedEntries`)
    consolidated: Mapping[str, NodeMetadata | NodeDocument] | None = None
    extensions: tuple[ExtensionEntry, ...] = ()
    format_data: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)
    #: why a consolidated view the group stores is not used (``consolidated`` is then
    #: ``None``): too large to read, say. The format keeps the stored view to write back.
    view_unused: str | None = dataclasses.field(default=None, compare=False)

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
    format_data: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    node_type = "array"

    @property
    def ndim(self) -> int:
        """The array's number of dimensions.

        Returns
        -------
        int
            ``len(shape)``.
        """
        return len(self.shape)

    def replace(self, **changes: Any) -> ArrayMetadata:
        """A copy with ``changes`` applied, as ``dataclasses.replace`` makes it (without
        running ``__init__`` again where that only sets the fields:
        ``zarrforge.metadata.replacing.replaced``).

        Parameters
        ----------
        **changes : Any
            New values of fields, by name.

        Returns
        -------
        ArrayMetadata
            The copy.
        """
        return replaced(self, **changes)


#: the resolved metadata of a node, an array's or a group's
NodeMetadata = ArrayMetadata | GroupMetadata
