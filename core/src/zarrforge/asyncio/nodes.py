"""What the async faces of arrays and groups share: :class:`AsyncNode`.

Contract: an ``AsyncNode`` stands for one blocking node (``self._node``, over the same
store object). Its properties that read nothing are the blocking node's, computed by the
mixins the blocking classes use (:class:`~zarrforge.nodes.node_properties.NodeProperties`, and
:class:`~zarrforge.user_api.array_properties.ArrayProperties` on
:class:`~zarrforge.asyncio.AsyncArray`) from the wrapped node's state, so the faces do
not restate each other. What an async face adds: ``attrs`` as a copy, and coroutines
that run the wrapped node's blocking calls off the event loop as one call each
(:meth:`AsyncNode._call`), cancellable at their next store request
(:mod:`zarrforge.asyncio.offload`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, TypeVar

from ..nodes.node import Node
from ..nodes.node_properties import NodeProperties
from .offload import run_blocking

T = TypeVar("T")


class AsyncNode(NodeProperties):
    _node: Node  # the blocking node this face wraps

    def __init__(self, node: Node) -> None:
        self._node = node

    @property
    def attrs(self) -> dict[str, Any]:
        """The attributes as last read or written through this handle (a copy, as
        zarr-python's ``attrs``); change them with :meth:`update_attributes`."""
        return dict(self._node.attrs)

    async def _call(self, what: str, fn: Callable[[], T]) -> T:
        """``fn()`` off the loop, named ``"{what} of {name}"`` in a cancellation's error."""
        return await run_blocking(f"{what} of {self._node.name!r}", fn)

    async def update_attributes(self, new_attributes: dict[str, Any]) -> Self:
        """Set the keys of ``new_attributes`` (one read-modify-write); returns this node.

        Parameters
        ----------
        new_attributes : dict
            The keys to set, with their values.

        Returns
        -------
        Self
            This node.

        Raises
        ------
        zarrforge.errors.ReadOnlyError
            The node is read-only.
        """
        await self._call("update_attributes", lambda: self._node.update_attributes(new_attributes))
        return self
