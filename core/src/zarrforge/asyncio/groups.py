"""The asynchronous group: :class:`AsyncGroup`, zarr-python 3's ``AsyncGroup`` on the
zarrforge engine, and :func:`wrap`, the async face of a node (:func:`from_node`, the same
for a node a caller opened with the blocking API, checked to be one).

An ``AsyncGroup`` stands for one :class:`~zarrforge.Group` (``.group``). Its properties
read nothing: those of every node (name, path, metadata...) are the group's own, shared
through :class:`~zarrforge.asyncio.nodes.AsyncNode`; ``attrs`` is a copy, and ``info``
the group's facts without its members. Everything else is a coroutine whose work runs
off the event loop as one blocking call (:mod:`zarrforge.asyncio.offload`), cancellable
at its next store request. Member listings (``keys``, ``members``, ``arrays``, ``groups``,
``array_keys``, ``group_keys``) are asynchronous generators, as zarr-python's: the
listing is read whole off the loop (each listed array's document resolved there too, so
nothing a member's properties need is left for the loop to do), then yielded. Members
are :class:`AsyncArray` and :class:`AsyncGroup` objects over the same store object.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, overload

from ..errors import NodeTypeError, ZarrforgeError
from ..user_api.arrays import Array
from ..user_api.groups import Group
from ..user_api.info import Summary, group_summary
from .arrays import AsyncArray, data_argument
from .nodes import AsyncNode
from .offload import cancellable, run_blocking


@overload
def wrap(node: Array) -> AsyncArray: ...
@overload
def wrap(node: Group) -> AsyncGroup: ...
@overload
def wrap(node: Array | Group) -> AsyncArray | AsyncGroup: ...


def wrap(node: Array | Group) -> AsyncArray | AsyncGroup:
    """The async face of ``node``, over its store under a cancellation point."""
    store = cancellable(node.store)
    if store is not node.store:
        node = node._rebound(store)
    return AsyncGroup(node) if isinstance(node, Group) else AsyncArray(node)


def from_node(node: Array | Group) -> AsyncArray | AsyncGroup:
    """The async face of a blocking :class:`~zarrforge.Array` or :class:`~zarrforge.Group`
    someone already opened (an xarray backend array, say): an :class:`AsyncArray` or
    :class:`AsyncGroup` over the same store object, under a cancellation point. Reads
    nothing; each call returns a new face, and reads are gathered per face.

    Parameters
    ----------
    node : zarrforge.Array or zarrforge.Group
        The opened node.

    Returns
    -------
    zarrforge.asyncio.AsyncArray or zarrforge.asyncio.AsyncGroup
        A new async face of ``node``.

    Raises
    ------
    zarrforge.errors.NodeTypeError
        ``node`` is not a zarrforge Array or Group.
    """
    if not isinstance(node, (Array, Group)):
        raise NodeTypeError(
            f"from_node: 'node' must be a zarrforge Array or Group, got {node!r} (type {type(node).__name__})"
        )
    return wrap(node)


def _resolved(node: Any) -> Any:
    """A listed array, its document resolved here (off the loop); one that cannot be is
    left deferred, to raise its own error at its first use, as a listing's member does."""
    if not isinstance(node, Group):
        try:
            node.metadata_model  # noqa: B018  # reading it resolves the document
        except ZarrforgeError:
            pass
    return node


class AsyncGroup(AsyncNode):
    """The async face of a :class:`zarrforge.Group`: zarr-python 3's ``AsyncGroup`` on the zarrforge engine.

    Its properties are the blocking group's and read nothing; member listings, opening and
    creation are coroutines run off the event loop, cancellable at their next store request.
    Members come back as async faces (:class:`AsyncArray`, :class:`AsyncGroup`). Get one from
    :func:`zarrforge.asyncio.open_group`, :func:`zarrforge.asyncio.create_group` or
    :func:`zarrforge.asyncio.from_node`.

    Parameters
    ----------
    node : zarrforge.Group
        The blocking group to wrap (over the same store object).
    """

    _node: Group

    @classmethod
    async def from_store(
        cls,
        store: Any,
        *,
        attributes: dict[str, Any] | None = None,
        zarr_format: Any = 3,
        overwrite: bool = False,
    ) -> AsyncGroup:
        """``Group.from_store``, off the loop.

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
        zarrforge.asyncio.AsyncGroup
            The new group.

        Raises
        ------
        zarrforge.errors.ContainsNodeError
            A node is at the root and ``overwrite`` is false.
        """
        return wrap(
            await run_blocking(
                "from_store",
                lambda: Group.from_store(
                    store, attributes=attributes, zarr_format=zarr_format, overwrite=overwrite
                ),
            )
        )

    @classmethod
    async def open(cls, store: Any, zarr_format: Any = 3) -> AsyncGroup:
        """``Group.open``, off the loop.

        Parameters
        ----------
        store : Any
            The store (any store-like).
        zarr_format : Any
            The format the group must be in; ``None``: any.

        Returns
        -------
        zarrforge.asyncio.AsyncGroup
            The group at the root of ``store``.
        """
        return wrap(await run_blocking("open", lambda: Group.open(store, zarr_format)))

    @property
    def group(self) -> Group:
        """The blocking :class:`~zarrforge.Group` behind this one (same store object)."""
        return self._node

    def __repr__(self) -> str:
        return f"<zarrforge.asyncio.AsyncGroup {self.name!r}>"

    @property
    def info(self) -> Summary:
        """The group's facts; reads nothing (:meth:`info_complete` counts its members)."""
        return group_summary(self._node, complete=False)

    async def info_complete(self) -> Summary:
        """The group's facts and its direct members (``Group.info``).

        Returns
        -------
        zarrforge.user_api.info.Summary
            The summary.
        """
        return await self._call("info_complete", lambda: self._node.info)

    # --- members -------------------------------------------------------------------------

    async def getitem(self, name: str) -> AsyncArray | AsyncGroup:
        """The member at ``name`` (``"a/b"`` for a nested one).

        Parameters
        ----------
        name : str
            The member's name (a path below this group).

        Returns
        -------
        zarrforge.asyncio.AsyncArray or zarrforge.asyncio.AsyncGroup
            The member's async face.

        Raises
        ------
        zarrforge.errors.NodeNotFoundError
            No member at ``name``.
        """
        return wrap(await self._call(f"getitem({name!r})", lambda: self._node[name]))

    async def get(self, name: str, default: Any = None) -> Any:
        """The member at ``name``, or ``default`` when there is none (``Group.get``).

        Parameters
        ----------
        name : str
            The member's name (a path below this group).
        default : Any
            What to return when there is no such member.

        Returns
        -------
        Any
            The member's async face, or ``default``.
        """
        node = await self._call(f"get({name!r})", lambda: self._node.get(name))
        return default if node is None else wrap(node)

    async def contains(self, name: str) -> bool:
        """Whether the group has a member at ``name`` (``name in group``).

        Parameters
        ----------
        name : str
            The member's name (a path below this group).

        Returns
        -------
        bool
            ``True`` when there is one.
        """
        return await self._call(f"contains({name!r})", lambda: name in self._node)

    async def delitem(self, name: str) -> None:
        """Erase the member at ``name`` (``del group[name]``).

        Parameters
        ----------
        name : str
            The member's name (a path below this group).

        Raises
        ------
        zarrforge.errors.NodeNotFoundError
            No member at ``name``.
        zarrforge.errors.ReadOnlyError
            The group is read-only.
        """
        await self._call(f"delitem({name!r})", lambda: self._node.__delitem__(name))

    async def _listed(self, what: str, max_depth: int | None = 0) -> list[tuple[str, Any]]:
        members = await self._call(
            what, lambda: [(name, _resolved(node)) for name, node in self._node.members(max_depth)]
        )
        return [(name, wrap(node)) for name, node in members]

    async def members(self, max_depth: int | None = 0) -> AsyncIterator[tuple[str, Any]]:
        """``(name, member)`` pairs sorted by name (``max_depth=None``: the whole subtree,
        names as relative paths).

        Parameters
        ----------
        max_depth : int or None
            As for :meth:`zarrforge.Group.members`.

        Yields
        ------
        tuple
            ``(name, member)``, each member an async face.
        """
        for pair in await self._listed("members", max_depth):
            yield pair

    async def nmembers(self, max_depth: int | None = 0) -> int:
        """``Group.nmembers``, off the loop.

        Parameters
        ----------
        max_depth : int or None
            As for :meth:`zarrforge.Group.members`.

        Returns
        -------
        int
            The number of members.
        """
        return await self._call("nmembers", lambda: self._node.nmembers(max_depth))

    async def keys(self) -> AsyncIterator[str]:
        """The names of the direct members, sorted.

        Yields
        ------
        str
            Each name.
        """
        for name in await self._call("keys", self._node.keys):
            yield name

    async def arrays(self) -> AsyncIterator[tuple[str, AsyncArray]]:
        """``(name, array)`` pairs of the direct members that are arrays, sorted by name.

        Yields
        ------
        tuple
            ``(name, zarrforge.asyncio.AsyncArray)``.
        """
        for name, node in await self._listed("arrays"):
            if isinstance(node, AsyncArray):
                yield name, node

    async def groups(self) -> AsyncIterator[tuple[str, AsyncGroup]]:
        """``(name, group)`` pairs of the direct members that are groups, sorted by name.

        Yields
        ------
        tuple
            ``(name, zarrforge.asyncio.AsyncGroup)``.
        """
        for name, node in await self._listed("groups"):
            if isinstance(node, AsyncGroup):
                yield name, node

    async def array_keys(self) -> AsyncIterator[str]:
        """The names of the direct members that are arrays, sorted.

        Yields
        ------
        str
            Each name.
        """
        for name in await self._call("array_keys", self._node.array_keys):
            yield name

    async def group_keys(self) -> AsyncIterator[str]:
        """The names of the direct members that are groups, sorted.

        Yields
        ------
        str
            Each name.
        """
        for name in await self._call("group_keys", self._node.group_keys):
            yield name

    async def tree(
        self,
        level: int | None = None,
        *,
        max_nodes: int = 500,
        plain: bool = False,
        expand: bool | None = None,
    ) -> Any:
        """``Group.tree``, off the loop.

        Parameters
        ----------
        level : int or None
            As for :meth:`zarrforge.Group.tree`.
        max_nodes : int
            As for :meth:`zarrforge.Group.tree`.
        plain : bool
            As for :meth:`zarrforge.Group.tree`.
        expand : bool or None
            As for :meth:`zarrforge.Group.tree`.

        Returns
        -------
        Any
            A :class:`zarrforge.user_api.tree_view.TreeText`.
        """
        return await self._call(
            "tree", lambda: self._node.tree(level, max_nodes=max_nodes, plain=plain, expand=expand)
        )

    # --- creation ------------------------------------------------------------------------

    async def create_array(self, name: str, **kwargs: Any) -> AsyncArray:
        """``Group.create_array`` (``data=`` is written as a cancellable write once the
        array is created, as :func:`zarrforge.asyncio.create_array` does).

        Parameters
        ----------
        name : str
            The new array's name (a path below this group).
        **kwargs : Any
            The keywords of :func:`zarrforge.create_array`.

        Returns
        -------
        zarrforge.asyncio.AsyncArray
            The new array's async face.

        Raises
        ------
        zarrforge.errors.ContainsNodeError
            A node is at that path and ``overwrite`` is not true.
        """
        kwargs, data = data_argument(kwargs)
        array = await self._call(f"create_array({name!r})", lambda: self._node.create_array(name, **kwargs))
        created = wrap(array)
        if data is not None:
            await created.setitem(Ellipsis, data)
        return created

    async def create_group(self, name: str, **kwargs: Any) -> AsyncGroup:
        """``Group.create_group``, off the loop.

        Parameters
        ----------
        name : str
            The new group's name (a path below this group).
        **kwargs : Any
            The keywords of :func:`zarrforge.create_group`.

        Returns
        -------
        zarrforge.asyncio.AsyncGroup
            The new group's async face.

        Raises
        ------
        zarrforge.errors.ContainsNodeError
            A node is at that path and ``overwrite`` is not true.
        """
        return wrap(
            await self._call(f"create_group({name!r})", lambda: self._node.create_group(name, **kwargs))
        )

    async def require_group(self, name: str) -> AsyncGroup:
        """``Group.require_group``, off the loop: the group ``name``, created if it is not there.

        Parameters
        ----------
        name : str
            The group's name (a path below this group).

        Returns
        -------
        zarrforge.asyncio.AsyncGroup
            The group's async face.
        """
        return wrap(await self._call(f"require_group({name!r})", lambda: self._node.require_group(name)))

    async def require_array(self, name: str, *, shape: Any, dtype: Any = None, **kwargs: Any) -> AsyncArray:
        """``Group.require_array``, off the loop: the array ``name``, created with these arguments
        if it is not there.

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
        zarrforge.asyncio.AsyncArray
            The array's async face.

        Raises
        ------
        zarrforge.errors.NodeTypeError
            A group is at ``name``.
        """
        return wrap(
            await self._call(
                f"require_array({name!r})",
                lambda: self._node.require_array(name, shape=shape, dtype=dtype, **kwargs),
            )
        )
