"""The user-facing :class:`Group`.

A group lists and opens its children through its format, creates child arrays
and groups, and persists its attributes on change. ``group["a/b"]`` opens a
nested member; ``"a/b" in group`` tests for one. A group with consolidated
metadata lists and opens its members from that view without store requests
(see :mod:`zarrforge.nodes.consolidated`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

from ..abc.format import Format
from ..abc.store import Store
from ..errors import (
    ArrayNotGroupError,
    GroupNotArrayError,
    MetadataError,
    NodeNotFoundError,
    NodeTypeError,
    UnusedViewWarning,
    ZarrforgeError,
)
from ..metadata import paths
from ..nodes.consolidated import ConsolidatedView
from ..nodes.hierarchy import refresh_consolidated, views_above
from ..nodes.node import Node, node_from_metadata, open_node, opened_at_root
from ..storing import write_notices
from . import creation
from .arrays import mismatch
from .info import Summary, group_summary, group_tree_html
from .like import like_arguments
from .tree_view import TreeText, UnopenedMember, group_tree


class Group(Node, node_type="group"):
    """A group of a Zarr hierarchy: it lists and opens its members and creates child arrays and groups.

    ``group["a/b"]`` opens a nested member; ``"a/b" in group`` tests for one; ``del group["a"]``
    erases one. A group with consolidated metadata lists and opens its members from that view
    without store requests (see ``zarrforge.nodes.consolidated``). Open or create one with
    :func:`zarrforge.open_group`, :func:`zarrforge.create_group` or :func:`zarrforge.group`.
    """

    # array options handed to every member opened or created through the group (and on to
    # the members of its member groups): open_group's chunk_cache= and recheck=
    _inherited: Mapping[str, Any] = MappingProxyType({})

    def __init__(self, *args: Any, use_consolidated: bool | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if len(args) < 2 and "path" not in kwargs:  # Group(async_group): adopted as it is
            return
        unused = self._metadata.view_unused
        if use_consolidated is False:
            self._view = None
        elif self._metadata.consolidated is not None:
            self._view = (ConsolidatedView(self._metadata.consolidated, self._format), "")
        elif use_consolidated and unused:
            raise MetadataError(f"group {self.name!r} has no consolidated metadata it can use: {unused}")
        elif use_consolidated:
            raise NodeNotFoundError(
                f"group {self.name!r} has no consolidated metadata; "
                "create it with zarrforge.consolidate_metadata()"
            )
        elif unused:
            warnings.warn(f"group {self.name!r}: {unused}", UnusedViewWarning, stacklevel=3)

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
    ) -> Group:
        return cls._opened(
            store, path, metadata, fmt, read_only=read_only, view=view, use_consolidated=use_consolidated
        )

    # --- zarr-python's constructors ------------------------------------------------------

    @classmethod
    def from_store(
        cls,
        store: Any,
        *,
        attributes: dict[str, Any] | None = None,
        zarr_format: Any = 3,
        overwrite: bool = False,
    ) -> Group:
        """zarr-python's ``Group.from_store``: a new group at the root of ``store``; a node
        already there is refused unless ``overwrite=True`` (:func:`zarrforge.create_group`).

        Parameters
        ----------
        store : Any
            The store (any store-like).
        attributes : dict or None
            The group's attributes.
        zarr_format : Any
            The format to write.
        overwrite : bool
            Replace a node already at the root.

        Returns
        -------
        zarrforge.Group
            The new group.

        Raises
        ------
        zarrforge.errors.ContainsNodeError
            A node is at the root and ``overwrite`` is false.
        """
        return creation.create_group(
            store, attributes=attributes, zarr_format=zarr_format, overwrite=overwrite
        )

    @classmethod
    def open(cls, store: Any, zarr_format: Any = 3) -> Group:
        """zarr-python's ``Group.open``: the group at the root of ``store``, writable unless
        the store is read-only (``zarr_format=None``: any installed format's).

        Parameters
        ----------
        store : Any
            The store (any store-like).
        zarr_format : Any
            The format the group must be in; ``None``: any.

        Returns
        -------
        zarrforge.Group
            The group at the root.

        Raises
        ------
        zarrforge.errors.NodeNotFoundError
            No group at the root.
        zarrforge.errors.NodeTypeError
            The node at the root is an array.
        """
        return opened_at_root(store, "group", zarr_format=zarr_format)

    # --- members ---------------------------------------------------------------------

    def _child(self, name: str) -> tuple[str, str | None]:
        """The child's store path, and its path in this group's view (if any)."""
        relative = paths.normalize_path(name)
        path = paths.join(self._path, relative)
        if self._view is None:
            return path, None
        return path, paths.join(self._view[1], relative)

    def _from_view(self, name: str) -> Any:
        path, in_view = self._child(name)
        if in_view is None or self._view is None:  # (one is None where the other is)
            return None
        model = self._view[0].get(in_view)
        if model is None:
            return None
        return self._handed_down(
            node_from_metadata(
                self._store,
                path,
                self._format,
                model,
                read_only=self._read_only,
                view=(self._view[0], in_view),
                **self._inherited,
            )
        )

    def __getitem__(self, name: str) -> Any:
        node = self._from_view(name)
        if node is not None:
            return node
        return self._handed_down(
            open_node(
                self._store,
                self._child(name)[0],
                fmt=self._format,
                mode="r" if self._read_only else "r+",
                **self._inherited,
            )
        )

    def _handed_down(self, node: Any) -> Any:
        """``node``, a member group taking this group's inherited array options along."""
        return node._inheriting(self._inherited) if isinstance(node, Group) else node

    def _inheriting(self, options: Mapping[str, Any]) -> Group:
        """This group, handing ``options`` (array options) down to its members (none: as it is)."""
        if options:
            self._inherited = options
        return self

    def _members_here(self, *, tolerant: bool = False) -> Iterator[tuple[str, Any]]:
        """The children for a listing. From the store, each child's document is read once
        (``Format.child_documents``) and an array is opened deferred (resolved on first
        use; see :mod:`zarrforge.nodes.node`), so listing members with their attributes
        resolves no data type, grid or codec; a group, or a child whose document cannot
        be read, is opened as by ``[]`` (which reports why). ``tolerant`` (for displays):
        a child that cannot be opened comes as an :class:`UnopenedMember` saying why,
        instead of stopping the listing."""
        if self._view is not None:
            for name in self.keys():
                yield name, self._member(name, tolerant)
            return
        for name, document in self._format.child_documents(self._store, self._path):
            if document is None or document.node_type != "array":
                yield name, self._member(name, tolerant)
                continue
            path = self._child(name)[0]
            yield (
                name,
                node_from_metadata(
                    self._store, path, self._format, document, read_only=self._read_only, **self._inherited
                ),
            )

    def _member(self, name: str, tolerant: bool) -> Any:
        if not tolerant:
            return self[name]
        try:
            return self[name]
        except ZarrforgeError as exc:
            return UnopenedMember(exc)

    def get(self, name: str, default: Any = None) -> Any:
        """The member ``name``, or ``default`` when there is none.

        Parameters
        ----------
        name : str
            The member's name (a path below this group).
        default : Any
            What to return when there is no such member.

        Returns
        -------
        Any
            The :class:`zarrforge.Array` or :class:`zarrforge.Group`, or ``default``.
        """
        try:
            return self[name]
        except NodeNotFoundError:
            return default

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        path, in_view = self._child(name)
        if in_view is not None and self._view is not None and in_view in self._view[0]:
            return True
        return self._format.detect(self._store, path)

    def keys(self) -> list[str]:
        """The names of the direct members, sorted.

        Returns
        -------
        list of str
            The names.
        """
        if self._view is not None:
            view, here = self._view
            return view.children(here)
        return sorted(self._format.list_children(self._store, self._path))

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def members(self, max_depth: int | None = 0) -> list[tuple[str, Any]]:
        """``(name, node)`` pairs of the children, sorted by name.
        ``max_depth=None`` walks the whole subtree (names are then relative
        paths); ``0`` lists direct children only.

        Parameters
        ----------
        max_depth : int or None
            How many levels below the direct children to list too; ``None``: all.

        Returns
        -------
        list of tuple
            ``(name, node)`` pairs, each node a :class:`zarrforge.Array` or :class:`zarrforge.Group`.
        """
        result: list[tuple[str, Any]] = []
        for name, node in self._members_here():
            result.append((name, node))
            if isinstance(node, Group) and (max_depth is None or max_depth > 0):
                deeper = None if max_depth is None else max_depth - 1
                result.extend((f"{name}/{sub}", n) for sub, n in node.members(deeper))
        return result

    def arrays(self) -> list[tuple[str, Any]]:
        """``(name, array)`` pairs of the direct members that are arrays, sorted by name.

        Returns
        -------
        list of tuple
            ``(name, zarrforge.Array)`` pairs.
        """
        return [(n, m) for n, m in self.members() if not isinstance(m, Group)]

    def groups(self) -> list[tuple[str, Group]]:
        """``(name, group)`` pairs of the direct members that are groups, sorted by name.

        Returns
        -------
        list of tuple
            ``(name, zarrforge.Group)`` pairs.
        """
        return [(n, m) for n, m in self.members() if isinstance(m, Group)]

    def array_keys(self) -> list[str]:
        """The names of the direct members that are arrays, sorted.

        Returns
        -------
        list of str
            The names.
        """
        return [n for n, _ in self.arrays()]

    def group_keys(self) -> list[str]:
        """The names of the direct members that are groups, sorted.

        Returns
        -------
        list of str
            The names.
        """
        return [n for n, _ in self.groups()]

    # --- creation --------------------------------------------------------------------

    # The first member created through this object checks every ancestor for arrays
    # and nodes of other formats, as zarrforge.create_array does; later ones trust that
    # answer and check only below this group, which saves most of the store reads of
    # creating many members. (A hierarchy changed meanwhile by another writer is a
    # race the full check could not prevent either.)
    _ancestry_checked = False

    def _checked_group(self) -> str | None:
        return self._path if self._ancestry_checked else None

    def create_array(self, name: str, **kwargs: Any) -> Any:
        """Create the array ``name`` below this group (:func:`zarrforge.create_array`, in this
        group's format); a group with consolidated metadata adds it to its view.

        Parameters
        ----------
        name : str
            The new array's name (a path below this group; missing groups between are created).
        **kwargs : Any
            The keywords of :func:`zarrforge.create_array`.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.

        Raises
        ------
        zarrforge.errors.ContainsNodeError
            A node is at that path and ``overwrite`` is not true.
        """
        array = creation.create_array(
            self._store,
            self._child(name)[0],
            fmt=self._format,
            _checked_group=self._checked_group(),
            **{**self._inherited, **kwargs},
        )
        self._ancestry_checked = True
        self._record_created(name, array.metadata_model)
        return array

    def create_group(self, name: str, **kwargs: Any) -> Group:
        """Create the group ``name`` below this group (:func:`zarrforge.create_group`, in this
        group's format); a group with consolidated metadata adds it to its view.

        Parameters
        ----------
        name : str
            The new group's name (a path below this group; missing groups between are created).
        **kwargs : Any
            The keywords of :func:`zarrforge.create_group`.

        Returns
        -------
        zarrforge.Group
            The new group.

        Raises
        ------
        zarrforge.errors.ContainsNodeError
            A node is at that path and ``overwrite`` is not true.
        """
        group = creation.create_group(
            self._store,
            self._child(name)[0],
            fmt=self._format,
            _checked_group=self._checked_group(),
            **kwargs,
        )
        self._ancestry_checked = True
        self._record_created(name, group.metadata_model)
        return self._handed_down(group)

    def _record_created(self, name: str, model: Any) -> None:
        """Add a new node, and any parents created for it, to this group's view."""
        if self._view is None:
            return
        view, here = self._view
        parts = paths.normalize_path(name).split("/")
        for depth in range(1, len(parts)):
            in_view = paths.join(here, "/".join(parts[:depth]))
            if in_view not in view:  # a parent created for the new node, or by another tool
                parent = self._format.read_node(self._store, paths.join(self._path, "/".join(parts[:depth])))
                if parent is not None:
                    view.put(in_view, parent)
        view.put(paths.join(here, "/".join(parts)), model)

    # --- zarr-python's shorthands: a member by type, arrays by their fill ------------------

    def get_array(self, path: str) -> Any:
        """The array at ``path`` below this group; a group there is a ``NodeTypeError``
        (:class:`~zarrforge.errors.GroupNotArrayError`, zarr-python's ``ContainsGroupError``).

        Parameters
        ----------
        path : str
            The array's path below this group.

        Returns
        -------
        Any
            The :class:`zarrforge.Array`.

        Raises
        ------
        zarrforge.errors.GroupNotArrayError
            A group is at ``path``.
        zarrforge.errors.NodeNotFoundError
            Nothing is at ``path``.
        """
        node = self[path]
        if isinstance(node, Group):
            raise GroupNotArrayError(f"{node.name!r} is a group, not an array")
        return node

    def get_group(self, path: str) -> Group:
        """The group at ``path`` below this group; an array there is a ``NodeTypeError``
        (:class:`~zarrforge.errors.ArrayNotGroupError`, zarr-python's ``ContainsArrayError``).

        Parameters
        ----------
        path : str
            The group's path below this group.

        Returns
        -------
        zarrforge.Group
            The group.

        Raises
        ------
        zarrforge.errors.ArrayNotGroupError
            An array is at ``path``.
        zarrforge.errors.NodeNotFoundError
            Nothing is at ``path``.
        """
        node = self[path]
        if not isinstance(node, Group):
            raise ArrayNotGroupError(f"{node.name!r} is an array, not a group")
        return node

    def full(self, *, name: str, shape: Any, fill_value: Any, **kwargs: Any) -> Any:
        """A new array ``name`` whose unwritten elements read as ``fill_value`` (the data
        type float64 unless given), as zarr-python's ``Group.full``.

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        shape : Any
            The array's shape: an int or a sequence of ints.
        fill_value : Any
            The value unwritten elements read as.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.
        """
        kwargs.setdefault("dtype", "float64")
        return self.create_array(name, shape=shape, fill_value=fill_value, **kwargs)

    def zeros(self, *, name: str, shape: Any, **kwargs: Any) -> Any:
        """A new array ``name`` of zeros (:meth:`full` with ``fill_value=0``).

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        shape : Any
            The array's shape: an int or a sequence of ints.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.
        """
        return self.full(name=name, shape=shape, fill_value=0, **kwargs)

    def ones(self, *, name: str, shape: Any, **kwargs: Any) -> Any:
        """A new array ``name`` of ones (:meth:`full` with ``fill_value=1``).

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        shape : Any
            The array's shape: an int or a sequence of ints.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.
        """
        return self.full(name=name, shape=shape, fill_value=1, **kwargs)

    def empty(self, *, name: str, shape: Any, **kwargs: Any) -> Any:
        """A new array whose unwritten elements read as its fill value (``fill_value=`` or
        the data type's default).

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        shape : Any
            The array's shape: an int or a sequence of ints.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.
        """
        return self.full(name=name, shape=shape, fill_value=kwargs.pop("fill_value", None), **kwargs)

    def zeros_like(self, *, name: str, data: Any, **kwargs: Any) -> Any:
        """``zeros`` with ``data``'s shape and data type (``.like``).

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        data : Any
            The array (or array-like) to take the shape and data type from.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`; they win over what ``data`` gives.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.
        """
        return self.zeros(name=name, **like_arguments(data, kwargs))

    def ones_like(self, *, name: str, data: Any, **kwargs: Any) -> Any:
        """``ones`` with ``data``'s shape and data type (``.like``).

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        data : Any
            The array (or array-like) to take the shape and data type from.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`; they win over what ``data`` gives.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.
        """
        return self.ones(name=name, **like_arguments(data, kwargs))

    def empty_like(self, *, name: str, data: Any, **kwargs: Any) -> Any:
        """``empty`` with ``data``'s shape, data type and (an array's) fill value (``.like``).

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        data : Any
            The array (or array-like) to take the shape and data type (and an array's fill value) from.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`; they win over what ``data`` gives.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.
        """
        return self.empty(name=name, **like_arguments(data, kwargs, fill=True))

    def full_like(self, *, name: str, data: Any, **kwargs: Any) -> Any:
        """``full`` with ``data``'s shape, data type and (an array's) fill value.

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        data : Any
            The array (or array-like) to take the shape and data type (and an array's fill value) from.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`; they win over what ``data`` gives.

        Returns
        -------
        Any
            The new :class:`zarrforge.Array`.
        """
        return self.full(name=name, **like_arguments(data, kwargs, fill=True))

    def require_array(self, name: str, *, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        """The array ``name``, created with these arguments if it is not there; an array
        there of another shape or dtype is a ``TypeError`` naming both (as zarr-python).

        Parameters
        ----------
        name : str
            The array's name (a path below this group).
        shape : Any
            The shape it must have (or is created with).
        dtype : Any
            The data type it must have (or is created with); ``None``: any.
        **kwargs : Any
            Other keywords of :func:`zarrforge.create_array`, used when creating.

        Returns
        -------
        Any
            The :class:`zarrforge.Array`, existing or new.

        Raises
        ------
        zarrforge.errors.NodeTypeError
            A group is at ``name``.
        """
        if name not in self:
            return self.create_array(name, shape=shape, dtype=dtype, **kwargs)
        node = self[name]
        if isinstance(node, Group):
            raise NodeTypeError(f"{node.name!r} is a group, not an array")
        differs = mismatch(node, shape, dtype)
        if differs:
            raise TypeError(differs)
        return node

    def nmembers(self, max_depth: int | None = 0) -> int:
        """How many members :meth:`members` lists at this depth (``None``: the subtree).

        Parameters
        ----------
        max_depth : int or None
            As for :meth:`members`.

        Returns
        -------
        int
            The number of members.
        """
        return len(self.members(max_depth=max_depth))

    def require_group(self, name: str) -> Group:
        """The group ``name``, created if it is not there.

        Parameters
        ----------
        name : str
            The group's name (a path below this group).

        Returns
        -------
        zarrforge.Group
            The group, existing or new.

        Raises
        ------
        zarrforge.errors.ContainsNodeError
            An array is at ``name``.
        """
        if name in self:
            node = self[name]
            if isinstance(node, Group):
                return node
        return self.create_group(name)

    def __delitem__(self, name: str) -> None:
        self._check_writable()
        path, in_view = self._child(name)
        if not self._format.detect(self._store, path):
            raise NodeNotFoundError(f"no member {name!r} in group {self.name!r}")
        above = views_above(self._store, self._format, path)  # refuses before erasing
        with write_notices.announcing_erasure(self._store, f"{path}/" if path else ""):
            self._format.erase_node(self._store, path)
        if in_view is not None and self._view is not None:
            self._view[0].remove(in_view)
        refresh_consolidated(self._store, self._format, path, None, above)

    # --- display ---------------------------------------------------------------------

    def tree(
        self,
        level: int | None = None,
        *,
        max_nodes: int = 500,
        plain: bool = False,
        expand: bool | None = None,
    ) -> TreeText:
        """The hierarchy below this group as text (``zarrforge.user_api.tree_view``): ``level``
        levels deep at most (``0``: the direct members; ``None``: all of it), at most
        ``max_nodes`` nodes; names bold in a terminal and in Jupyter unless ``plain``.

        Parameters
        ----------
        level : int or None
            How many levels deep to show (above).
        max_nodes : int
            The most nodes to show.
        plain : bool
            No bold names.
        expand : bool or None
            zarr-python's; ``True`` is not implemented.

        Returns
        -------
        zarrforge.user_api.tree_view.TreeText
            The tree, printable and shown in Jupyter.
        """
        return group_tree(
            self,
            level,
            is_group=lambda node: isinstance(node, Group),
            max_nodes=max_nodes,
            plain=plain,
            expand=expand,
        )

    @property
    def info(self) -> Summary:
        """A summary of the group and its direct members (``zarrforge.user_api.info``)."""
        return group_summary(self)

    def _repr_html_(self) -> str:
        return group_tree_html(self)

    def __repr__(self) -> str:
        return f"<zarrforge.Group {self.name!r}>"
