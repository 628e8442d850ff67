"""Consolidated metadata: the documents of a whole hierarchy kept in its root group.

* :func:`consolidate_metadata` walks every node below a group (reading the
  store, not any existing consolidated view), records their models in the
  group's metadata (``GroupMetadata.consolidated``; the v3 format writes it as
  zarr-python 3 does, ``consolidated_metadata`` with ``kind: inline``) and
  returns the group.
* Reading: a group opened with a consolidated view lists and opens every node
  below it from that view, with no store request (:class:`ConsolidatedView`,
  shared by the group and every node opened through it). A name missing from
  the view is still looked up in the store, so nodes other tools added are
  found; nodes other tools *removed* or changed are not noticed until the
  hierarchy is consolidated again or opened with ``use_consolidated=False``.
* Keeping it correct: every metadata change made through zarrforge (creating
  or erasing a node, attributes, resize) updates the shared in-memory view
  and, through :func:`refresh_ancestors`, the stored view of every ancestor
  group that has one. Concurrent writers updating the same consolidated root
  race like any read-modify-write of one document: the last writer wins.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from . import paths
from .abc.format import Format
from .abc.store import Store
from .metadata.model import GroupMetadata, NodeMetadata


def _without_view(model: NodeMetadata) -> NodeMetadata:
    """Entries never nest views: the outermost view is authoritative."""
    if isinstance(model, GroupMetadata) and model.consolidated is not None:
        return dataclasses.replace(model, consolidated=None)
    return model


def _relative(path: str, ancestor: str) -> str:
    return path[len(ancestor) + 1:] if ancestor else path


class ConsolidatedView:
    """A shared, mutable index of node models keyed by path relative to one group."""

    def __init__(self, models: dict[str, NodeMetadata]) -> None:
        self._models = dict(models)
        self._lock = threading.Lock()

    def get(self, relative: str) -> NodeMetadata | None:
        with self._lock:
            return self._models.get(relative)

    def children(self, relative: str) -> list[str]:
        prefix = f"{relative}/" if relative else ""
        with self._lock:
            return sorted(name[len(prefix):] for name in self._models
                          if name.startswith(prefix) and "/" not in name[len(prefix):])

    def put(self, relative: str, model: NodeMetadata) -> None:
        with self._lock:
            self._models[relative] = _without_view(model)

    def remove(self, relative: str) -> None:
        with self._lock:
            for name in [n for n in self._models
                         if n == relative or n.startswith(relative + "/") or not relative]:
                del self._models[name]

    def models(self) -> dict[str, NodeMetadata]:
        with self._lock:
            return dict(self._models)


def refresh_ancestors(store: Store, fmt: Format, path: str, model: NodeMetadata | None) -> None:
    """Update stored consolidated views above ``path``; ``model=None`` means it was erased."""
    ancestor = path
    while ancestor:
        ancestor = paths.parent_of(ancestor)
        found = fmt.read_node(store, ancestor)
        if not isinstance(found, GroupMetadata) or found.consolidated is None:
            continue
        relative = _relative(path, ancestor)
        view = ConsolidatedView(found.consolidated)
        if model is None:
            view.remove(relative)
        else:
            view.put(relative, model)
        fmt.write_node(store, ancestor, dataclasses.replace(found, consolidated=view.models()))


def consolidate_metadata(store: Any, path: str = "", *,
                         storage_options: dict[str, Any] | None = None) -> Any:
    """Gather the metadata of every node below the group at ``path`` into it."""
    from .api import open_group

    group = open_group(store, path, mode="r+", use_consolidated=False,
                       storage_options=storage_options)
    models = {name: _without_view(node.metadata_model)
              for name, node in group.members(max_depth=None)}
    group._write_metadata(dataclasses.replace(group.metadata_model, consolidated=models))
    return open_group(group.store, group.path, mode="r+")
