"""``GroupMetadata``, as zarr-python's ``zarr.core.group`` names it: a group's document.

``GroupMetadata(attributes=None, zarr_format=3)`` is the metadata document of a group
(:class:`~zarrforge.nodes.stored_document.StoredDocument`, a ``dict`` answering zarr-python's
attribute names), for code that describes nodes as zarr-python does, such as
``create_hierarchy(store=..., nodes={"a/b": GroupMetadata()})``. A Zarr 3 document is the
``zarr.json`` of a group; a Zarr 2 one is ``{"zarr_format": 2}`` with its attributes under
``"attributes"``, the form ``create_hierarchy`` takes for a v2 group.
"""

from __future__ import annotations

from typing import Any

from ..nodes.stored_document import StoredDocument

__all__ = ["GroupMetadata"]


class GroupMetadata(StoredDocument):
    """A group's metadata document (a ``dict``), built from zarr-python's arguments."""

    __slots__ = ()

    def __init__(
        self,
        attributes: dict[str, Any] | None = None,
        zarr_format: int = 3,
        consolidated_metadata: Any = None,
    ) -> None:
        if zarr_format not in (2, 3):
            raise ValueError(f"GroupMetadata: zarr_format must be 2 or 3, got {zarr_format!r}")
        if attributes is not None and not isinstance(attributes, dict):
            raise TypeError(
                f"GroupMetadata: attributes must be a dict, got {type(attributes).__name__} {attributes!r}"
            )
        if consolidated_metadata is not None:
            raise ValueError(
                "GroupMetadata: consolidated_metadata is written by "
                "zarrforge.consolidate_metadata, not given here"
            )
        document: dict[str, Any] = {"zarr_format": zarr_format}
        if zarr_format == 3:
            document["node_type"] = "group"
        document["attributes"] = dict(attributes or {})
        super().__init__(document)

    @property
    def node_type(self) -> str:
        return "group"
