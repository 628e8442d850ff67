"""Contract for metadata formats (the ``formats`` extension point).

A format owns everything that is specific to one generation of the Zarr
storage layout: where a node's metadata documents live, how they map to the
model of :mod:`zarrforge.abc.metadata`, where chunks live, and how children
are discovered. Arrays and groups call only this contract, so a ZEP that
changes the layout is a new format plugin, not a change to the core.

Node paths given to a format are normalised by
``zarrforge.metadata.paths.normalize_path``: ``""`` for the root, otherwise
``"a/b"`` with no leading or trailing slash.

Reading is two steps, so that finding and listing nodes never loads a plugin:

* ``read_document(store, path)``: the node's documents parsed into a plain
  :class:`~zarrforge.metadata.document.NodeDocument` (node type and JSON,
  nothing resolved), or ``None`` when there is no node of this format at
  ``path``. A :class:`~zarrforge.errors.MetadataError` naming the key for a
  document of this format that is not even well-formed JSON of the right
  shape. One request for the final v3 format. A format may answer a document
  named for an installed *variant* of it (a format whose class subclasses its
  own, in ``NodeDocument.format_name``): detection then opens the node with
  the variant, from what was read (v3 does so for a variant's document holding
  fields v3 would refuse; ``zarrforge.nodes.hierarchy.locate_document``).
* ``resolve(document)``: the node's model, every name resolved through the
  registries (``zarrforge.registries.resolution``); a ``MetadataError`` naming the
  key and field for what is invalid. Entries of a group's consolidated
  metadata stay documents (resolved when a member is opened).
* ``read_node(store, path)`` is the two together; ``detect(store, path)``
  says whether ``read_document`` finds a node (a malformed one counts).
* ``consolidated_keys(path)``: the keys, if any, that hold a group's
  consolidated metadata apart from its own documents (Zarr v2's
  ``.zmetadata``; none for v3, which embeds it). A group opened with
  ``use_consolidated=False`` is read through a view of the store that hides
  them, so they are neither fetched nor parsed. Default: none.

Writing:

* ``new_array(spec)`` / ``new_group(attributes=None, extensions=None)``: the
  model of a node being created from the API's arguments
  (:class:`ArrayCreationSpec`), applying the format's defaults; nothing is
  written. Both arguments of ``new_group`` are optional: ``None`` is no
  attributes and no extensions (the engine calls ``new_group()`` for the
  missing parent groups it writes).
* ``render(metadata)``: the node's documents encoded for writing; raises
  ``MetadataError`` for anything the format cannot write (attributes JSON
  cannot hold). Creation renders the new node before the first write, so a
  failed creation writes nothing, not even the missing parent groups.
* ``write_node(store, path, metadata, rendered=None)``: write the node's
  documents; ``rendered`` is what ``render(metadata)`` returned, when the
  caller has it (it is not rendered again).
* ``document(metadata)``: the JSON document(s) a node is stored as (what
  ``Array.metadata`` shows).

Layout:

* ``chunk_key(path, metadata, coords)``: the store key of one chunk, and
  ``chunk_coords(path, metadata, key)`` its inverse (``None`` for other keys).
* ``list_children(store, path)``: names of the child nodes of a group.
* ``erase_node(store, path)``: remove a node and everything below it.
* ``stored_chunks(store, path, metadata)``: coordinates of the chunks present.
* ``chunks_outside_grid(store, path, metadata)``: keys of the array's chunks stored
  outside its grid (a shrink's or a killed append's leftovers); none by default.
* ``with_attributes(metadata, attributes)``: the model after an attribute change.
"""

from __future__ import annotations

import dataclasses
import itertools
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from ..errors import MetadataError
from ..metadata.document import NodeDocument
from .chunk_key_encoding import ChunkKeyEncoding
from .extension_point import ExtensionPoint
from .metadata import ArrayMetadata, GroupMetadata, NodeMetadata
from .store import Store


class _NoFillValue:
    """``fill_value=NO_FILL_VALUE``: record that the array has no fill value."""

    def __repr__(self) -> str:
        return "NO_FILL_VALUE"

    def __reduce__(self) -> str:
        return "NO_FILL_VALUE"


NO_FILL_VALUE: Any = _NoFillValue()


@dataclasses.dataclass(frozen=True)
class ArrayCreationSpec:
    """What the user asked for when creating an array, before format defaults.

    ``fill_value`` is ``None`` for the data type's default, a value, or
    :data:`NO_FILL_VALUE` to record none at all, for formats that can (Zarr v2's
    ``"fill_value": null``, what xarray writes when a variable has no
    ``_FillValue``); formats that always record one refuse it with a
    ``MetadataError`` naming ``fill_value`` (``resolution.fill_value_from_user``
    does). Reading such an array gives the data type's default where nothing
    was written.
    """

    shape: tuple[int, ...]
    dtype: Any
    chunks: Any
    shards: Any = None
    filters: Any = None
    serializer: Any = None
    compressors: Any = "auto"
    codecs: Any = None
    fill_value: Any = None
    attributes: dict[str, Any] | None = None
    dimension_names: Sequence[str | None] | None = None
    chunk_key_encoding: Any = None
    storage_transformers: Any = None
    extensions: Any = None
    order: str | None = None  # create_array(order=...); formats that store an order (v2) record it


class Format(ExtensionPoint):
    name: ClassVar[str]

    @abstractmethod
    def read_document(self, store: Store, path: str) -> NodeDocument | None:
        """The plain document of this format's node at ``path``, resolving nothing, or
        ``None`` when the format has no node there; a document of its own that is broken
        is a ``MetadataError`` naming its key.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The node's path (``""`` for the root, ``"a/b"``).

        Returns
        -------
        NodeDocument or None
            The document, or ``None`` when this format has no node at ``path``.

        Raises
        ------
        zarrforge.errors.MetadataError
            A document of this format at ``path`` is broken (the error names its key).
        """

    @abstractmethod
    def resolve(self, document: NodeDocument) -> NodeMetadata:
        """The node's model from its document (every extension point resolved through the
        registries); a ``MetadataError`` naming the field for anything invalid.

        Parameters
        ----------
        document : zarrforge.plugin_api.NodeDocument
            The node's plain document, as :meth:`read_document` returned it.

        Returns
        -------
        NodeMetadata
            The node's metadata model.

        Raises
        ------
        zarrforge.errors.MetadataError
            The document is invalid (the error names the field).
        """

    def document_attributes(self, document: NodeDocument) -> dict[str, Any] | None:
        """The node's attributes read straight from ``document``, without resolving it;
        ``None`` (the default) when the format cannot tell them without resolving. A
        listing of a group's members uses this to hand out attributes of members whose
        metadata is resolved only when something else is asked of them.

        Parameters
        ----------
        document : zarrforge.plugin_api.NodeDocument
            The node's plain document, as :meth:`read_document` returned it.

        Returns
        -------
        dict[str, Any] or None
            The attributes, or ``None`` when they cannot be told without resolving.
        """
        return None

    def read_node(self, store: Store, path: str) -> NodeMetadata | None:
        """The resolved model of this format's node at ``path``: :meth:`resolve` of
        :meth:`read_document`.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The node's path (``""`` for the root, ``"a/b"``).

        Returns
        -------
        NodeMetadata or None
            The node's model, or ``None`` when this format has no node at ``path``.

        Raises
        ------
        zarrforge.errors.MetadataError
            The node's document is broken or invalid.
        """
        document = self.read_document(store, path)
        return None if document is None else self.resolve(document)

    def detect(self, store: Store, path: str) -> bool:
        """Is there a node of this format at ``path`` (a broken one counts: reading it
        reports why)?

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The node's path (``""`` for the root, ``"a/b"``).

        Returns
        -------
        bool
            Whether :meth:`read_document` finds a document there (or fails on one).
        """
        try:
            return self.read_document(store, path) is not None
        except MetadataError:
            return True  # a node of this format, but broken: reading it reports why

    @abstractmethod
    def render(self, metadata: NodeMetadata) -> Any:
        """The bytes ``write_node`` would write for ``metadata``, made before anything is
        written, so that what JSON cannot hold fails first.

        Parameters
        ----------
        metadata : zarrforge.abc.metadata.NodeMetadata
            The node's metadata model.

        Returns
        -------
        Any
            The rendered documents, to pass to :meth:`write_node` as ``rendered``.

        Raises
        ------
        zarrforge.errors.MetadataError
            ``metadata`` holds what JSON cannot hold.
        """

    @abstractmethod
    def write_node(self, store: Store, path: str, metadata: NodeMetadata, rendered: Any = None) -> None:
        """Write the node's documents at ``path`` (``rendered``: ``render(metadata)`` made
        before); only documents whose bytes change are written, each whole.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The node's path (``""`` for the root, ``"a/b"``).
        metadata : zarrforge.abc.metadata.NodeMetadata
            The node's metadata model.
        rendered : Any
            What :meth:`render` made of ``metadata``, or ``None`` to render it here.
        """

    @abstractmethod
    def new_array(self, spec: ArrayCreationSpec) -> ArrayMetadata:
        """Metadata of a new array, validated (``render`` then refuses what JSON cannot
        hold); raises :class:`~zarrforge.errors.MetadataError` naming the argument.

        ``spec``'s codec arguments arrive normalised (``zarrforge.engine.codec_arguments``):
        ``filters`` and ``compressors`` are tuples, ``codecs`` a tuple or ``None`` (and
        then the other three are empty), ``serializer`` a codec argument or ``None`` for
        the format's default; no ``"auto"``, and no codec objects of other libraries
        (numcodecs configurations and zarr-python JSON instead).

        Parameters
        ----------
        spec : zarrforge.abc.format.ArrayCreationSpec
            What the user asked for.

        Returns
        -------
        ArrayMetadata
            The new array's metadata, with the format's defaults filled in.

        Raises
        ------
        zarrforge.errors.MetadataError
            An argument is invalid for this format (the error names it).
        """

    @classmethod
    def recording_memory_layouts(cls) -> Format | None:
        """An instance of this format whose documents record any installed chunk memory
        layout (so that a layout other than C/F changes the stored chunks), or ``None``
        (the default: the format records none beyond what C/F orders express). The
        memory layout conformance suite writes its arrays through it, and a format that
        refuses such layouts may name the one that records them.

        Returns
        -------
        Format or None
            The instance, or ``None`` (the default).
        """
        return None

    def default_compressors(self, spec: ArrayCreationSpec) -> list[Any]:
        """The compressors ``compressors="auto"`` means for the array ``spec`` describes
        (codec arguments ``new_array`` reads); the default is none. Formats give what
        other implementations write by default, so that an array made with defaults
        looks the same whoever made it. When that default's codec is not installed, give
        none and say so with ``plugin_api.warn_uncompressed`` (an array the format
        leaves uncompressed on purpose warns of nothing).

        Parameters
        ----------
        spec : zarrforge.abc.format.ArrayCreationSpec
            What the user asked for.

        Returns
        -------
        list[Any]
            The compressors, as codec arguments (empty by default).
        """
        return []

    @abstractmethod
    def new_group(self, attributes: dict[str, Any] | None = None, extensions: Any = None) -> GroupMetadata:
        """Metadata of a new group, checked as ``new_array`` checks arrays. Both arguments
        are optional: ``None`` means no attributes and no extensions (the engine calls
        ``new_group()`` with none for the missing parent groups it writes).

        Parameters
        ----------
        attributes : dict[str, Any] or None
            The group's attributes; ``None``: none.
        extensions : Any
            The group's extensions; ``None``: none.

        Returns
        -------
        GroupMetadata
            The new group's metadata.

        Raises
        ------
        zarrforge.errors.MetadataError
            An argument is invalid for this format (the error names it).
        """

    @abstractmethod
    def document(self, metadata: NodeMetadata) -> dict[str, Any]:
        """The node's documents as JSON values, by key name (what ``Node.metadata`` shows).

        Parameters
        ----------
        metadata : zarrforge.abc.metadata.NodeMetadata
            The node's metadata model.

        Returns
        -------
        dict[str, Any]
            Each document's JSON value, by key name.
        """

    @abstractmethod
    def chunk_key(self, path: str, metadata: ArrayMetadata, coords: Sequence[int]) -> str:
        """The store key of the chunk at grid ``coords`` of the array at ``path``.

        Parameters
        ----------
        path : str
            The array's node path.
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.
        coords : Sequence[int]
            The chunk's grid coordinates.

        Returns
        -------
        str
            The chunk's store key.
        """

    @abstractmethod
    def chunk_coords(self, path: str, metadata: ArrayMetadata, key: str) -> tuple[int, ...] | None:
        """The grid coordinates of the chunk stored at ``key``, or ``None`` when ``key`` is no
        chunk key of the array at ``path`` (the inverse of ``chunk_key``).

        Parameters
        ----------
        path : str
            The array's node path.
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.
        key : str
            A store key.

        Returns
        -------
        tuple[int, ...] or None
            The chunk's grid coordinates, or ``None``.
        """

    @abstractmethod
    def list_children(self, store: Store, path: str) -> list[str]:
        """The sorted names of this format's nodes directly below the group at ``path``.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The group's path.

        Returns
        -------
        list[str]
            The children's names, sorted.
        """

    def child_documents(self, store: Store, path: str) -> list[tuple[str, NodeDocument | None]]:
        """The children of the group at ``path``, sorted by name, each with its document
        (``None`` for a child whose document cannot be read: opening it reports why). What
        a member listing reads. The default reads each child :meth:`list_children` finds;
        a format that can tell a child by reading its document overrides it to read once.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The group's path.

        Returns
        -------
        list[tuple[str, NodeDocument | None]]
            ``(name, document)`` for each child, sorted by name.
        """
        children: list[tuple[str, NodeDocument | None]] = []
        for name in sorted(self.list_children(store, path)):
            try:
                document = self.read_document(store, f"{path}/{name}" if path else name)
            except MetadataError:
                document = None
            children.append((name, document))
        return children

    @abstractmethod
    def erase_node(self, store: Store, path: str) -> None:
        """Remove the node at ``path``: its documents, its chunks and everything below it.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The node's path (``""`` for the root, ``"a/b"``).
        """

    def document_key(self, path: str, node_type: str) -> str | None:
        """The store key of the main document of a node of ``node_type`` at ``path``
        (``"a/zarr.json"`` in v3), for errors found after reading it to name it; ``None``
        (the default) when the format cannot say without reading the store.

        Parameters
        ----------
        path : str
            The node's path (``""`` for the root, ``"a/b"``).
        node_type : str
            ``"array"`` or ``"group"``.

        Returns
        -------
        str or None
            The key, or ``None``.
        """
        return None

    def consolidated_keys(self, path: str) -> list[str]:
        """Keys holding the consolidated metadata of a group at ``path`` apart from its
        own documents (see the module docstring); none by default.

        Parameters
        ----------
        path : str
            The group's path.

        Returns
        -------
        list[str]
            The keys (empty by default).
        """
        return []

    def with_attributes(self, metadata: NodeMetadata, attributes: dict[str, Any]) -> NodeMetadata:
        """The model after the user replaced the node's attributes; formats that mirror
        attributes into other fields (v2's ``_ARRAY_DIMENSIONS``) keep them in step.

        Parameters
        ----------
        metadata : zarrforge.abc.metadata.NodeMetadata
            The node's metadata model.
        attributes : dict[str, Any]
            The new attributes.

        Returns
        -------
        NodeMetadata
            The updated model.
        """
        return dataclasses.replace(metadata, attributes=attributes)

    def stored_chunks(self, store: Store, path: str, metadata: ArrayMetadata) -> Iterator[tuple[int, ...]]:
        """Grid coordinates of the chunks present in the store.

        The default probes every chunk key; formats override it with one listing.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The array's node path.
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.

        Yields
        ------
        tuple[int, ...]
            The grid coordinates of each stored chunk.
        """
        for coords in itertools.product(*(range(n) for n in metadata.chunk_grid.grid_shape)):
            if store.exists(self.chunk_key(path, metadata, coords)):
                yield coords

    def chunks_outside_grid(self, store: Store, path: str, metadata: ArrayMetadata) -> list[str]:
        """The sorted store keys of chunks of the array at ``path`` whose grid coordinates lie
        outside its chunk grid: what a shrink that was interrupted, or an append killed
        before it committed its longer shape, left beyond the shape (no reader reads them).

        Only keys spelled exactly as a chunk key of this array are named, never one inside
        the grid, and never one that may belong to something else (see
        :meth:`ChunksUnderNode.chunks_outside_grid`). The default names none: a format that
        cannot tell such keys apart reports nothing, so nothing is removed.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the hierarchy lives in.
        path : str
            The array's node path.
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.

        Returns
        -------
        list[str]
            The keys, sorted (empty by default).
        """
        return []


class ChunksUnderNode:
    """Mixin for formats whose chunk keys are a prefix of the node's (:meth:`chunk_prefix`:
    ``<node path>/`` for the final v3 format and Zarr v2) followed by the array's chunk key
    encoding's key (:meth:`key_encoding`): ``chunk_key``, its inverse, ``stored_chunks``
    and ``chunks_outside_grid`` with one listing of that prefix."""

    def chunk_prefix(self, path: str) -> str:
        """The prefix every chunk key of the array at ``path`` begins with.

        Parameters
        ----------
        path : str
            The array's node path.

        Returns
        -------
        str
            The prefix (``"<path>/"``, ``""`` for the root).
        """
        return f"{path}/" if path else ""

    def key_encoding(self, metadata: ArrayMetadata) -> ChunkKeyEncoding:
        """The chunk key encoding the array's keys are spelled in.

        Parameters
        ----------
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.

        Returns
        -------
        ChunkKeyEncoding
            The encoding (the default: the metadata's ``chunk_key_encoding``).
        """
        return metadata.chunk_key_encoding

    def chunk_key(self, path: str, metadata: ArrayMetadata, coords: Sequence[int]) -> str:
        """:meth:`Format.chunk_key`: the prefix followed by the encoding's key.

        Parameters
        ----------
        path : str
            The array's node path.
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.
        coords : Sequence[int]
            The chunk's grid coordinates.

        Returns
        -------
        str
            The chunk's store key.
        """
        return self.chunk_prefix(path) + self.key_encoding(metadata).encode_key(coords)

    def _decoded(self, path: str, metadata: ArrayMetadata, key: str) -> tuple[int, ...] | None:
        """The coordinates ``key`` spells as a chunk key of the array, inside its grid or not
        (the grid unbounded); ``None`` for any other key."""
        prefix = self.chunk_prefix(path)
        if not key.startswith(prefix):
            return None
        return self.key_encoding(metadata).decode_key(key[len(prefix) :], len(metadata.shape))

    def chunk_coords(self, path: str, metadata: ArrayMetadata, key: str) -> tuple[int, ...] | None:
        """:meth:`Format.chunk_coords`: the coordinates ``key`` spells, inside the grid.

        Parameters
        ----------
        path : str
            The array's node path.
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.
        key : str
            A store key.

        Returns
        -------
        tuple[int, ...] or None
            The chunk's grid coordinates, or ``None`` for a key that is no chunk key of the
            array inside its grid.
        """
        coords = self._decoded(path, metadata, key)
        if coords is None or not _inside(coords, metadata):
            return None
        return coords

    def stored_chunks(self, store: Store, path: str, metadata: ArrayMetadata) -> Iterator[tuple[int, ...]]:
        """:meth:`Format.stored_chunks` with one listing of :meth:`chunk_prefix`.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the array lives in.
        path : str
            The array's node path.
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.

        Yields
        ------
        tuple[int, ...]
            The grid coordinates of each stored chunk, in listing order.
        """
        for key in store.list_prefix(self.chunk_prefix(path)):
            coords = self.chunk_coords(path, metadata, key)
            if coords is not None:
                yield coords

    def chunks_outside_grid(self, store: Store, path: str, metadata: ArrayMetadata) -> list[str]:
        """Keys under :meth:`chunk_prefix` that decode as the array's chunk keys outside its
        grid. Conservative: a key in a sub-directory of the prefix that also holds a key which
        is no chunk key of the array (a node's document, say: a node nested below the array,
        which Zarr does not allow, or anybody's file) is kept with everything in that
        sub-directory, since it may be another node's chunk.

        Parameters
        ----------
        store : zarrforge.abc.store.Store
            The store the array lives in.
        path : str
            The array's node path.
        metadata : zarrforge.abc.metadata.ArrayMetadata
            The array's metadata.

        Returns
        -------
        list[str]
            The keys, sorted.
        """
        prefix = self.chunk_prefix(path)
        outside: list[str] = []
        foreign_dirs: set[str] = set()
        for key in store.list_prefix(prefix):
            coords = self._decoded(path, metadata, key)
            if coords is None:
                foreign_dirs.update(_directories(key[len(prefix) :]))
            elif not _inside(coords, metadata):
                outside.append(key)
        return sorted(key for key in outside if foreign_dirs.isdisjoint(_directories(key[len(prefix) :])))


def _inside(coords: Sequence[int], metadata: ArrayMetadata) -> bool:
    return all(i < n for i, n in zip(coords, metadata.chunk_grid.grid_shape))


def _directories(relative: str) -> list[str]:
    """The sub-directories ``relative`` (a key below a prefix) lies in: ``"c/1/2"`` is in
    ``"c/"`` and ``"c/1/"``."""
    parts = relative.split("/")[:-1]
    return ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]
