"""``ds.zarrforge.to_zarr(...)`` and ``dt.zarrforge.to_zarr(...)``: the writer as xarray
accessors, registered when ``zarrforge_xarray`` is imported.

A DataTree is written node by node, each node's dataset to the group of the same
path below ``group`` (parents first); the first node (the root) takes ``mode``,
the others are written into the hierarchy it created (mode ``"a"`` when the root
was created or replaced). Metadata is consolidated once, at the end.
"""

from __future__ import annotations

from typing import Any

import xarray as xr

from .writer import to_zarr


@xr.register_dataset_accessor("zarrforge")
class DatasetAccessor:
    def __init__(self, dataset: xr.Dataset) -> None:
        self._dataset = dataset

    def to_zarr(self, store: Any = None, **options: Any) -> Any:
        """:func:`zarrforge_xarray.to_zarr` of this dataset."""
        return to_zarr(self._dataset, store, **options)


@xr.register_datatree_accessor("zarrforge")
class DataTreeAccessor:
    def __init__(self, tree: xr.DataTree) -> None:
        self._tree = tree

    def to_zarr(self, store: Any = None, *, group: str | None = None, mode: str = "w-",
                consolidated: bool | None = None, compute: bool = True,
                **options: Any) -> Any:
        """Write every node of the tree (see the module docstring)."""
        if not compute:
            raise ValueError("compute=False is not supported for DataTrees yet; write the "
                             "nodes with ds.zarrforge.to_zarr(..., compute=False)")
        base = (group or "").strip("/")
        root = None
        for number, node in enumerate(self._tree.subtree):
            path = "/".join(p for p in (base, node.relative_to(self._tree).strip("./")) if p)
            node_mode = mode if number == 0 else ("a" if mode in ("w", "w-") else mode)
            written = to_zarr(node.to_dataset(inherit=False), store, group=path or None,
                              mode=node_mode, consolidated=False, **options)
            if root is None:
                root = written
                store = written.store
        if consolidated is not False and root is not None:
            import zarrforge

            zarrforge.consolidate_metadata(root.store, root.path)
        return root
