"""A store and a node path inside it: zarr-python's ``StorePath``, as zarrforge takes it.

``StorePath(store, path="")`` names the node at ``path`` of ``store`` (a zarrforge
:class:`~zarrforge.abc.store.Store`). It is accepted wherever zarrforge takes a store:
the functions that take a node's location (``open_group``, ``create_array``...,
:func:`zarrforge.storing.storage.resolve_location`) read it as its store with the node
path ``path``, the caller's ``path=`` joined below it (``StorePath(s, "a")`` with
``path="b"`` is the node ``a/b``); the calls that take a store alone
(:func:`~zarrforge.storing.storage.resolve_store`: a transaction, ``unfinished_commits``)
take one whose path is ``""`` and refuse any other, naming the path, as they refuse a URL
pipeline that names a node.

The path is normalised as node paths are (:func:`zarrforge.metadata.paths.normalize_path`:
``"/a/b/"`` is ``"a/b"``) and refused there when a name in it is not a valid node name.
``store_path / "c"`` joins a path below (a new ``StorePath``); two are equal when their
stores are equal and their paths are. A ``StorePath`` holds no state of its own and opens
nothing: its store is used as it is, read-only or not.
"""

from __future__ import annotations

from ..abc.store import Store
from ..errors import StoreArgumentError
from ..metadata import paths


class StorePath:
    """``store`` and the node ``path`` inside it (the module docstring has the contract)."""

    __slots__ = ("path", "store")

    store: Store
    path: str

    def __init__(self, store: Store, path: str = "") -> None:
        if not isinstance(store, Store):
            kind = f"{type(store).__module__}.{type(store).__qualname__}"
            raise StoreArgumentError(
                f"StorePath(store=...) takes a zarrforge store (an instance of "
                f"zarrforge.abc.store.Store, such as zarrforge.storage.LocalStore('data.zarr')), "
                f"got {kind} {store!r:.80}; pass a path or URL straight to the function instead"
            )
        self.store = store
        self.path = paths.normalize_path(path)

    @property
    def read_only(self) -> bool:
        """Whether the store refuses writes."""
        return bool(self.store.read_only)

    def __truediv__(self, other: str) -> StorePath:
        """The node ``other`` below this one (``other`` may hold several names)."""
        if not isinstance(other, str):
            return NotImplemented
        return StorePath(self.store, paths.join(self.path, paths.normalize_path(other)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StorePath):
            return NotImplemented
        return self.path == other.path and self.store == other.store

    def __hash__(self) -> int:
        return hash((type(self.store), self.path))

    def __repr__(self) -> str:
        return f"StorePath({self.store!r}, path={self.path!r})"
