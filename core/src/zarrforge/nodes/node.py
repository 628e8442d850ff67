"""What arrays and groups share: identity, metadata, attributes, the open hook.

A :class:`Node` is a view of one node of a hierarchy: its store, its
normalised path, its metadata model and the format that stores it. Its
properties that read nothing (``store``, ``path``, ``name``, ``metadata``...) are
:class:`~zarrforge.nodes.node_properties.NodeProperties`, which the async face of a node shares.
Metadata changes go through :meth:`Node.update_metadata`, which refuses on read-only
nodes and writes the format's document before the in-memory model changes,
so a failed write leaves both as they were; consolidated views above the node
are kept in step (:mod:`zarrforge.nodes.consolidated`). A change is a function of
the stored model, applied to the latest stored document on stores with
conditional writes (:mod:`zarrforge.storing.optimistic`): attribute updates made
through other handles or processes are kept, not overwritten from a stale
copy.

Opening: :func:`node_from_metadata` builds the node object for a model
already read, :func:`open_node` finds and opens the node at a path. Each
subclass declares the node type it stands for (``class Array(Node,
node_type="array")``), so this module opens arrays and groups without
importing them, and :class:`~zarrforge.Group` can open its members without
an import cycle; :func:`node_class` imports a class's module the first time its node
type is opened, if nothing has yet.

Deferred opening: a node may be built from its format's
:class:`~zarrforge.metadata.document.NodeDocument` instead of a model (the document
read, nothing resolved), as a group's member listing does for arrays. Its name,
path, type and, when the format can read them from the document
(``Format.document_attributes``), its attributes are answered from the document;
the first use of anything else resolves the document and finishes opening
(validation, then the ``zarrforge_node_opened`` hook). An error in the document is
raised by that first use, and by every use after it, rather than by the listing.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any, ClassVar, cast

from ..abc.extension import Extension
from ..abc.format import Format
from ..abc.metadata import NodeMetadata
from ..abc.store import Store
from ..errors import (
    ArrayNotFoundError,
    GroupNotFoundError,
    MetadataError,
    NodeNotFoundError,
    NodeOfAnotherFormatError,
    NodeTypeError,
    ReadOnlyError,
    UnreadableNodeError,
)
from ..metadata.document import NodeDocument
from ..registries import hooks
from ..registries.resolution import extension_from_json
from ..storing.optimistic import read_modify_write
from ..storing.storage import StoreLike, resolve_location
from .attributes import Attributes
from .consolidated import ConsolidatedView
from .hierarchy import (
    detect_format,
    get_format,
    locate_node,
    refresh_consolidated,
    resolved,
    unreadable_node,
    views_above,
)
from .node_properties import NodeProperties

MODES = ("r", "r+", "a", "w", "w-")


# ``path`` of a node constructed from one argument, another handle on a node
ADOPT: Any = "\x00adopt"


class Node(NodeProperties):
    _kind = "node"
    _format: Format
    _classes: ClassVar[dict[str, type[Node]]] = {}  # node type -> the class standing for it

    def __init_subclass__(cls, node_type: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if node_type is not None:
            cls._kind = node_type
            Node._classes[node_type] = cls

    def __init__(
        self,
        store: Store,
        path: str = ADOPT,
        metadata: Any = None,
        fmt: Format | None = None,
        *,
        read_only: bool = False,
        view: tuple[ConsolidatedView, str] | None = None,
    ) -> None:
        if path is ADOPT:  # zarr-python's Array(async_array), Group(async_group)
            self.__dict__.update(adopted_node(store, type(self)._kind).__dict__)
            return
        self._store = store
        self._path = path
        self._model = metadata  # the node's model, or its NodeDocument until its first use
        # every node opened has its format; only an adopted handle (path ADOPT) omits it
        self._format = cast(Format, fmt)
        self._read_only = read_only
        # The consolidated view this node was opened from, and its path in it.
        self._view = view

    @property
    def attrs(self) -> Attributes:
        """The node's attributes, a mutable mapping persisted on every change. A new view
        each time (it holds no state), so a node is not part of a reference cycle and
        listing thousands of nodes leaves the garbage collector nothing to chase."""
        return Attributes(self._current_attributes, self._change_attributes)

    @property
    def _metadata(self) -> Any:
        model = self._model
        if type(model) is NodeDocument:
            model = self._resolve_deferred(model)
        return model

    @_metadata.setter
    def _metadata(self, model: Any) -> None:
        self._model = model

    def _resolve_deferred(self, document: NodeDocument) -> Any:
        """Resolve a deferred node's document and finish opening it; on failure the node
        stays deferred, so every later use raises the same error."""
        model = resolved(self._format, document)
        self._model = model
        try:
            self._validate()
        except BaseException:
            self._model = document
            raise
        self._announced()
        return model

    def _current_attributes(self) -> dict[str, Any]:
        model = self._model
        if type(model) is NodeDocument:
            attributes = self._format.document_attributes(model)
            if attributes is not None:
                return attributes
        return self._metadata.attributes

    def __reduce__(self) -> Any:
        # Nodes travel (to dask workers, subprocesses) as "reopen this path of this store",
        # through a method of their own class: unpickling imports the class's module, so
        # the node classes are known (importing zarrforge does not import them).
        return (type(self)._reopened, (self._store, self._path, self._read_only, self._runtime_options()))

    @classmethod
    def _reopened(cls, store: Store, path: str, read_only: bool, options: dict[str, Any]) -> Any:
        return open_node(store, path, mode="r" if read_only else "r+", **options)

    def _runtime_options(self) -> dict[str, Any]:
        return {}

    @classmethod
    def _from_metadata(
        cls,
        store: Store,
        path: str,
        metadata: Any,
        fmt: Format,
        *,
        read_only: bool,
        view: Any,
        use_consolidated: bool | None,
        **options: Any,
    ) -> Any:
        """Open a node of this class for a model already read (see :func:`node_from_metadata`)."""
        return cls._opened(store, path, metadata, fmt, read_only=read_only, view=view)

    @classmethod
    def _opened(cls, *args: Any, **kwargs: Any) -> Any:
        """Construct, validate, and announce through the ``zarrforge_node_opened`` hook."""
        return cls._validated(*args, **kwargs)._announced()

    @classmethod
    def _validated(cls, *args: Any, **kwargs: Any) -> Any:
        node = cls(*args, **kwargs)
        node._validate()
        return node

    def _announced(self) -> Any:
        hooks.broadcast("zarrforge_node_opened", "told that a node was opened", node=self)
        return self

    def _validate(self) -> None:
        """Check what can be checked without reading data; subclasses extend it. An
        extension's refusal names the node's document (or at least its path)."""
        try:
            validate_entries(self._metadata)
        except MetadataError as exc:
            raise self._located(exc) from exc

    def _located(self, exc: MetadataError) -> MetadataError:
        """``exc`` naming this node's document (or at least its path) unless it names one."""
        key = self._format.document_key(self._path, self._kind)
        return exc.at(key if key is not None else f"/{self._path}")

    @property
    def _node(self) -> Node:
        """The node :class:`NodeProperties` describes: this one (an async face's is the
        blocking node it wraps)."""
        return self

    def _check_writable(self) -> None:
        if self._read_only:
            raise ReadOnlyError(
                f"{self._kind} {self.name!r} is open read-only; open it with mode='r+' or 'a' to change it"
            )
        if self._store.read_only:  # opened for writing, yet no mode helps: say what is
            raise ReadOnlyError(
                f"{self._kind} {self.name!r} is in a read-only store "
                f"({self._store!r}), so it cannot be changed there; copy it "
                "to a writable store to change it"
            )

    def _write_metadata(self, metadata: Any) -> None:
        """Write ``metadata`` as the node's whole new model (no merge with the store)."""
        self._check_writable()
        above = views_above(self._store, self._format, self._path)  # refuses before writing
        self._format.write_node(self._store, self._path, metadata)
        self._adopt(metadata, above)

    def update_metadata(self, change: Callable[[Any], Any]) -> Any:
        """Apply ``change`` (model -> new model) to the node's latest stored metadata and
        write the result; returns it. On a store with conditional writes the change is
        applied to what is stored now and redone if another writer changes the document
        meanwhile, so concurrent changes to other parts of it are kept; elsewhere it is
        applied to this handle's copy. Plugins that read, merge and write back (statistics
        kept in an extension) use this.

        Parameters
        ----------
        change : Callable
            Takes the node's metadata model and returns the new one.

        Returns
        -------
        Any
            The new metadata model, as written.

        Raises
        ------
        zarrforge.errors.ReadOnlyError
            The node is read-only.
        zarrforge.errors.NodeNotFoundError
            Another writer removed or replaced the node.
        """
        self._check_writable()
        fmt, path, own = self._format, self._path, self._metadata
        above = views_above(self._store, fmt, path)  # refuses before writing

        def attempt(store: Store) -> Any:
            latest = own if store is self._store else fmt.read_node(store, path)
            if latest is None or latest.node_type != own.node_type:
                raise NodeNotFoundError(
                    f"the {self._kind} {self.name!r} was removed or replaced by another writer"
                )
            new = change(latest)
            validate_entries(new)
            fmt.write_node(store, path, new)
            return new

        new = read_modify_write(self._store, attempt)
        self._adopt(new, above)
        return new

    def _adopt(self, metadata: Any, above: Any = None) -> None:
        """Take ``metadata``, just written, as the node's model and tell the views above
        (``above``: their documents as :func:`views_above` read them before the write)."""
        self._metadata = metadata
        if self._view is not None:
            view, relative = self._view
            view.put(relative, metadata)
        refresh_consolidated(self._store, self._format, self._path, metadata, above)
        self._metadata_changed()

    def _metadata_changed(self) -> None:
        """Drop state derived from the metadata; subclasses extend it."""

    def _rebound(self, store: Store) -> Any:
        """This node over ``store``, a wrapper of its store (the same data), nothing read
        again: :mod:`zarrforge.asyncio` puts its cancellation point under the nodes it
        hands out this way. State derived from the store (an array's engine) is rebuilt."""
        # not copy.copy: __reduce__ reopens the node from the store
        node = object.__new__(type(self))
        node.__dict__.update(self.__dict__)
        node._store = store
        node._metadata_changed()
        return node

    # --- generic extensions (ZEP 10) ----------------------------------------------------

    @property
    def extensions(self) -> tuple[Any, ...]:
        """The node's ``extensions`` entries (resolved extensions, or unknown ones kept as read)."""
        return self._metadata.extensions

    def get_extension(self, name: str) -> Any:
        """The node's ``extensions`` entry named ``name``, or ``None``.

        Parameters
        ----------
        name : str
            The extension's name.

        Returns
        -------
        Any
            The entry (a resolved extension, or an unknown one kept as read), or ``None``.
        """
        for entry in self._metadata.extensions:
            if entry.name == name:
                return entry
        return None

    def set_extension(self, extension: Any) -> None:
        """Add an extension, or replace the one of the same name.

        ``extension`` is an :class:`~zarrforge.abc.extension.Extension` or its JSON
        form; the JSON is validated by the extension's own ``from_json``.

        Parameters
        ----------
        extension : Any
            The extension, or its JSON form.

        Raises
        ------
        zarrforge.errors.ReadOnlyError
            The node is read-only.
        """
        name = (
            extension.name
            if hasattr(extension, "name")
            else (extension if isinstance(extension, str) else dict(extension).get("name"))
        )
        entry = extension_from_json(extension, self._metadata.node_type, field=f"extensions[{name!r}]")

        def change(model: Any) -> Any:
            entries = [e for e in model.extensions if e.name != entry.name]
            position = next((i for i, e in enumerate(model.extensions) if e.name == entry.name), len(entries))
            entries.insert(position, entry)
            return dataclasses.replace(model, extensions=tuple(entries))

        self.update_metadata(change)

    def replace_metadata(self, metadata: Any) -> None:
        """Write a whole new model for this node (validated first); for plugins that
        read, merge and write back, such as statistics kept in an extension.

        Parameters
        ----------
        metadata : Any
            The new metadata model, of the node's type.

        Raises
        ------
        zarrforge.errors.MetadataError
            The model is of another node type.
        zarrforge.errors.ReadOnlyError
            The node is read-only.
        """
        if metadata.node_type != self._metadata.node_type:
            raise MetadataError(
                f"cannot replace a {self._metadata.node_type}'s metadata with a {metadata.node_type}'s",
                field="node_type",
                value=metadata.node_type,
            )
        validate_entries(metadata)
        self._write_metadata(metadata)

    def remove_extension(self, name: str) -> None:
        """Remove the node's ``extensions`` entry named ``name``.

        Parameters
        ----------
        name : str
            The extension's name.

        Raises
        ------
        zarrforge.errors.MetadataError
            The node has no extension of that name.
        zarrforge.errors.ReadOnlyError
            The node is read-only.
        """
        if self.get_extension(name) is None:
            raise MetadataError(
                f"the node has no extension {name!r}; present: {[e.name for e in self._metadata.extensions]}",
                field="extensions",
                value=name,
            )
        self.update_metadata(
            lambda model: dataclasses.replace(
                model, extensions=tuple(e for e in model.extensions if e.name != name)
            )
        )

    def update_attributes(self, new_attributes: dict[str, Any]) -> Any:
        """Set the keys of ``new_attributes`` (one read-modify-write) and return the node,
        as zarr-python's ``update_attributes``.

        Parameters
        ----------
        new_attributes : dict
            The keys to set, with their values.

        Returns
        -------
        Any
            This node.

        Raises
        ------
        zarrforge.errors.ReadOnlyError
            The node is read-only.
        """
        self.attrs.update(new_attributes)
        return self

    def _change_attributes(self, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        fmt = self._format
        self.update_metadata(lambda model: fmt.with_attributes(model, change(model.attributes)))


def _reopen(store: Store, path: str, read_only: bool, options: dict[str, Any]) -> Any:
    """What nodes pickled by earlier releases unpickle through."""
    return open_node(store, path, mode="r" if read_only else "r+", **options)


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"invalid mode {mode!r}; valid modes: {', '.join(MODES)}")


# Where the node classes are defined: a class registers itself when its module is
# imported, and importing zarrforge imports neither (the package loads its user API
# lazily), so a caller that reaches open_node another way (zarrforge.hierarchy_api, an
# unpickled node) gets the module imported here on first use.
_DEFINED_IN = {"array": "zarrforge.user_api.arrays", "group": "zarrforge.user_api.groups"}


def node_class(node_type: str) -> type[Node]:
    """The class standing for ``node_type`` (``"array"``, ``"group"``)."""
    cls = Node._classes.get(node_type)
    if cls is None:
        importlib.import_module(_DEFINED_IN[node_type])
        cls = Node._classes[node_type]
    return cls


def node_from_metadata(
    store: Store,
    path: str,
    fmt: Format,
    metadata: NodeMetadata | NodeDocument,
    *,
    read_only: bool,
    view: tuple[ConsolidatedView, str] | None = None,
    use_consolidated: bool | None = None,
    **array_options: Any,
) -> Any:
    """An Array or Group for metadata already read (no store access).

    ``metadata`` is the node's model, or ``fmt``'s document of it to open the node deferred
    (see the module docstring); ``view`` is the consolidated view the node was found in,
    with its path there;
    ``array_options`` are an array's runtime settings (ignored for groups).
    """
    cls = node_class(metadata.node_type)
    if type(metadata) is NodeDocument:  # opened on first use: see the module docstring
        return cls(store, path, metadata, fmt, read_only=read_only, view=view, **array_options)
    return cls._from_metadata(
        store,
        path,
        metadata,
        fmt,
        read_only=read_only,
        view=view,
        use_consolidated=use_consolidated,
        **array_options,
    )


def open_node(
    store: StoreLike,
    path: str = "",
    *,
    mode: str = "r",
    fmt: Format | None = None,
    storage_options: dict[str, Any] | None = None,
    use_consolidated: bool | None = None,
    zarr_format: Any = None,
    **array_options: Any,
) -> Any:
    """Open the array or group at ``path`` (``fmt``, or the format named by ``zarr_format``
    or by a URL pipeline's format segment: ask only that format)."""
    check_mode(mode)
    location = resolve_location(
        store, path, zarr_format=zarr_format, read_only=(mode == "r"), storage_options=storage_options
    )
    resolved, path = location.store, location.path
    if fmt is None and location.zarr_format is not None:
        fmt = get_format(location.zarr_format)
    found = locate_node(resolved, path, fmt, consolidated=use_consolidated is not False)
    if found is None:
        raise missing_node(resolved, path, fmt, "array or group")
    return node_from_metadata(
        resolved, path, *found, read_only=(mode == "r"), use_consolidated=use_consolidated, **array_options
    )


def adopted_node(source: Any, kind: str) -> Node:
    """The node ``Array(source)`` / ``Group(source)`` stands for, as zarr-python constructs
    its blocking handles from async ones: a zarrforge async handle's node, a zarrforge
    handle itself (a second handle on the node), or the node a zarr-python ``AsyncArray`` /
    ``AsyncGroup`` is on (its ``store_path``: its store, adapted as any store argument is,
    and its path), opened writable unless the store is read-only."""
    node: Node
    if isinstance(source, NodeProperties):  # a handle, or an async face holding one
        node = cast(Node, source._node)  # a NodeState to the properties, a Node always
    else:
        store_path = getattr(source, "store_path", None)  # zarr-python's async handles
        if store_path is None:
            raise TypeError(
                f"{kind.capitalize()}() takes a store, a path, the metadata and the format, "
                f"or one other handle on {'an' if kind == 'array' else 'a'} {kind} (an Async"
                f"{kind.capitalize()} of zarrforge or zarr-python); got "
                f"{type(source).__name__} {source!r}. To open one, use "
                f"zarrforge.open_{kind}(store, path)"
            )
        try:
            node = open_node(store_path.store, store_path.path, mode="r+")
        except ReadOnlyError:  # a read-only store opens read-only
            node = open_node(store_path.store, store_path.path, mode="r")
    if node._kind != kind:
        raise NodeTypeError(
            f"{node.name!r} is {'an' if node._kind == 'array' else 'a'} "
            f"{node._kind}, not {'an' if kind == 'array' else 'a'} {kind}"
        )
    return node


def opened_at_root(store: StoreLike, node_type: str, *, zarr_format: Any = None, **array_options: Any) -> Any:
    """The ``node_type`` node at the root of ``store`` (zarr-python's ``Group.open`` and
    ``Array.open``): writable unless the store is read-only, another type refused."""
    try:
        node = open_node(store, mode="r+", zarr_format=zarr_format, **array_options)
    except ReadOnlyError:  # a store that only opens read-only (an HTTP URL, an archive)
        node = open_node(store, mode="r", zarr_format=zarr_format, **array_options)
    if node._kind != node_type:
        raise NodeTypeError(
            f"the node at the root of {node.store!r} is "
            f"{'an' if node._kind == 'array' else 'a'} {node._kind}, "
            f"not {'an' if node_type == 'array' else 'a'} {node_type}"
        )
    return node


def missing_node(
    store: Store, path: str, fmt: Format | None, what: str
) -> NodeNotFoundError | UnreadableNodeError:
    """The error for no ``what`` at ``path``: when only the format asked for (``fmt``) has
    none, and another format has a node there, one that says so and how to open it."""
    other = detect_format(store, path) if fmt is not None else None
    if other is not None and fmt is not None:
        return NodeOfAnotherFormatError(
            f"no Zarr {fmt.name} node at path {'/' + path!r} in {store!r}, but a Zarr "
            f"{other.name} node is there: open it with zarr_format={other.name!r}, or "
            "without zarr_format to take the format found",
            format_name=other.name,
        )
    unread = unreadable_node(store, path)
    if unread is not None:
        return unread.error(f"cannot open {'/' + path!r} in {store!r}: it holds")
    kind = {"array": ArrayNotFoundError, "group": GroupNotFoundError}.get(what, NodeNotFoundError)
    # "does not exist": the words zarr-python's and xarray's callers match for a missing store
    return kind(f"no {what} at path {'/' + path!r} in {store!r}: the node does not exist")


def validate_entries(metadata: Any) -> None:
    """Let every resolved extension, and an array's every storage transformer, check itself
    against the node's model: at creation, on open, and before any metadata change (a
    resize) is written. A refusal is positioned at ``extensions[i]`` or
    ``storage_transformers[i]``."""
    for i, entry in enumerate(metadata.extensions):
        if not isinstance(entry, Extension):
            continue
        try:
            entry.validate(metadata)
        except MetadataError as exc:  # any class: an UnknownExtensionError from a helper too
            raise exc.within(f"extensions[{i}]") from exc
    if metadata.node_type != "array":
        return
    for i, transformer in enumerate(metadata.storage_transformers):
        try:
            transformer.validate(metadata)
        except MetadataError as exc:
            raise exc.within(f"storage_transformers[{i}]") from exc
