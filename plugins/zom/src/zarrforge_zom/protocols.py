"""What the services below the models need of a model: :class:`ModelNode`, :class:`ModelGroup`.

:mod:`.diff` and :mod:`.hierarchy` work on models without importing :mod:`.models`,
which imports them for its convenience methods (``spec.to_zarr()``, ``spec.diff()``,
``GroupSpec.from_zarr()``); imports run one way, from the models down. Every
:class:`~zarrforge_zom.models.Node` is a ``ModelNode`` and every
:class:`~zarrforge_zom.models.GroupSpec` a ``ModelGroup``; a service tells a group by
``node_type == "group"``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol


class ModelNode(Protocol):
    """A ZOM array or group."""

    # read-only: the node classes state them as class variables
    @property
    def zarr_format(self) -> int: ...

    @property
    def node_type(self) -> str:  # "array" or "group"
        ...

    def to_json(self) -> dict[str, Any]:
        """The node's ZOM document (a group's includes its members)."""
        ...

    def properties(self) -> dict[str, Any]:
        """The ZOM document without ``members``."""
        ...

    def documents(self) -> dict[str, Any]:
        """The node's metadata documents in its format, keyed by name; members excluded."""
        ...


class ModelGroup(ModelNode, Protocol):
    """A ZOM group: a node with ``members``."""

    members: dict[str, ModelNode]

    def walk(self) -> Iterator[tuple[str, ModelNode]]:
        """``(relative path, node)`` for the group (``""``) and everything below it,
        parents before children."""
        ...
