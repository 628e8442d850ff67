"""The properties of a node that read nothing from the store, computed once for both faces
of a node: the blocking :class:`~zarrforge.nodes.node.Node` and the async face that wraps one
(:class:`zarrforge.asyncio.nodes.AsyncNode`).

Contract: :class:`NodeProperties` is a mixin whose properties are computed from the state
of ``self._node``, a :class:`NodeState`: the node itself for a blocking node, the wrapped
blocking node for an async face. So a property added here is the same answer on both
faces, and neither face restates another's. Nothing here makes a store request; a node
opened deferred (:mod:`zarrforge.nodes.node`) resolves its document, already read, at the first
property that needs the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..abc.format import Format
from ..abc.store import Store
from .stored_document import StoredDocument


class NodeState(Protocol):
    """What the properties read: a blocking node's state."""

    _store: Store
    _path: str
    _read_only: bool
    _format: Format

    @property
    def _metadata(self) -> Any: ...


class NodeProperties:
    """``store``, ``path``, ``name``, ``basename``, ``read_only``, ``metadata``,
    ``metadata_model`` and ``format`` of the node ``self._node``; and equality.

    Two handles of one class are equal when they are on the same store (the same object,
    or stores that compare equal), at the same path, with equal metadata documents: as
    zarr-python compares its handles, so ``group["a"] == group.create_array("a", ...)``."""

    if TYPE_CHECKING:
        # the node described: read-only here (a blocking node's is itself, a property); an
        # async face sets it (an attribute of its own)
        @property
        def _node(self) -> NodeState: ...

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        mine, theirs = self._node, other._node
        if mine is theirs:
            return True
        return (
            mine._path == theirs._path
            and (mine._store is theirs._store or mine._store == theirs._store)
            and self.metadata == other.metadata
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._node._path))

    @property
    def store(self) -> Store:
        """The store the node is in (a :class:`zarrforge.abc.store.Store`)."""
        return self._node._store

    @property
    def path(self) -> str:
        """The node's path in its store, without a leading ``/`` (``""``: the root)."""
        return self._node._path

    @property
    def name(self) -> str:
        """The node's path with a leading ``/`` (``"/"``: the root), as zarr-python's ``name``."""
        return "/" + self._node._path

    @property
    def basename(self) -> str:
        """The last component of the node's path (``""``: the root)."""
        return self._node._path.rpartition("/")[2]

    @property
    def read_only(self) -> bool:
        """Whether the node cannot be written (opened read-only, or in a read-only store)."""
        node = self._node
        return node._read_only or node._store.read_only

    @property
    def metadata(self) -> StoredDocument:
        """The node's metadata document, as stored (a ``dict`` that also answers
        zarr-python's metadata attribute names: ``zarrforge.nodes.stored_document``)."""
        node = self._node
        return StoredDocument(node._format.document(node._metadata))

    @property
    def metadata_model(self) -> Any:
        """The node's metadata as its format's model (the parsed document the engine uses)."""
        return self._node._metadata

    @property
    def format(self) -> Format:
        """The format the node is stored in (a :class:`zarrforge.abc.format.Format`)."""
        return self._node._format
