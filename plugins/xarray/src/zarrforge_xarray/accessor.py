"""``ds.zarrforge.to_zarr(...)`` and ``dt.zarrforge.to_zarr(...)``: the writer as xarray
accessors, registered when ``zarrforge_xarray`` is imported.

A DataTree is written node by node, each node's dataset to the group of the same
path below ``group`` (parents first); the first node (the root) takes ``mode``,
the others are written into the hierarchy it created (mode ``"a"`` when the root
was created or replaced). Metadata is consolidated once, at the end. With
``compute=False`` every node's groups and array metadata are written (and consolidated)
at once, as xarray writes them, and the returned dask ``Delayed`` writes all the nodes'
data.

A tree whose root group this call creates is written whole or not at all: a failure at
any node (a bad encoding, a store error) takes every key the call wrote back out, so the
store is as it was and the same call can be repeated.
"""

from __future__ import annotations

import contextlib
from typing import Any

import xarray as xr

import zarrforge
from zarrforge.hierarchy_api import marking_unfinished, resolve_store

from .undo import remove_written
from .writer import _auto_region, _existing_group, _keys_at, to_zarr


def _keys_before_a_new_tree(store: Any, base: str, mode: str) -> set[str] | None:
    """The keys below ``base`` when this call will create the tree's root group there (so a
    failure at any node can take the whole tree back out); ``None`` when the root exists
    and stays (mode "a" or "r+" onto an existing group: each node's own write is undone
    by that write). Mode "w" replaces the old root: nothing of it is remembered. The
    writer's own rules decide (:func:`.writer._existing_group`, :func:`.writer._keys_at`)."""
    if _existing_group(store, base, mode) is not None:
        return None
    return set() if mode == "w" else _keys_at(store, base)


def _node_path(tree: xr.DataTree, node: xr.DataTree, base: str) -> str:
    relative = node.relative_to(tree)
    return "/".join(part for part in (base, "" if relative == "." else relative) if part)


def _tree_region(tree: xr.DataTree, store: Any, base: str, region: Any) -> dict[str, Any]:
    """The tree's ``region`` with each ``"auto"`` dimension found once, in the group
    holding that dimension's index coordinate. A child node usually inherits its
    coordinates from an ancestor and stores none of its own, so resolving "auto" node by
    node would place it at the start of the dimension; this resolves it where the
    coordinate lives and hands every node explicit slices."""
    if region == "auto":
        region = {dim: "auto" for node in tree.subtree for dim in node.dims}
    if not isinstance(region, dict):
        raise TypeError(f"region must be a dict of dimension -> slice or 'auto', or 'auto'; got {region!r}")
    found = {dim: value for dim, value in region.items() if value != "auto"}
    for node in tree.subtree:
        own = node.to_dataset(inherit=False)
        wanted = {dim: "auto" for dim in own.indexes if region.get(dim) == "auto" and dim not in found}
        if wanted:
            group = zarrforge.open_group(
                store, _node_path(tree, node, base), mode="r", use_consolidated=False
            )
            found.update(_auto_region(own, group, wanted))
    return found


def _after_all(_written: list[Any]) -> None:
    """The delayed write's result, once every node's data (``_written``) is written."""
    return None


@xr.register_dataset_accessor("zarrforge")
class DatasetAccessor:
    def __init__(self, dataset: xr.Dataset) -> None:
        self._dataset = dataset

    def to_zarr(self, store: Any = None, *args: Any, **options: Any) -> Any:
        """:func:`zarrforge_xarray.to_zarr` of this dataset (``Dataset.to_zarr``'s parameters,
        ``mode``, ``group`` and ``encoding`` positional too)."""
        return to_zarr(self._dataset, store, *args, **options)


@xr.register_datatree_accessor("zarrforge")
class DataTreeAccessor:
    def __init__(self, tree: xr.DataTree) -> None:
        self._tree = tree

    def to_zarr(
        self,
        store: Any = None,
        mode: str = "w-",
        encoding: dict[str, Any] | None = None,
        consolidated: bool | None = None,
        group: str | None = None,
        write_inherited_coords: bool = False,
        compute: bool = True,
        **options: Any,
    ) -> Any:
        """Write every node of the tree (see the module docstring). With ``compute=False``
        the hierarchy and its metadata are written (and consolidated) now and a dask
        ``Delayed`` writes every node's data."""
        encoding = dict(encoding or {})
        if unknown := sorted(set(encoding) - set(self._tree.groups)):
            raise ValueError(
                f"encoding is keyed by the tree's group paths "
                f"{list(self._tree.groups)}; {unknown} are not among them"
            )
        store = resolve_store(store, storage_options=options.pop("storage_options", None))
        base = (group or "").strip("/")
        region = options.pop("region", None)
        if region is not None:
            region = _tree_region(self._tree, store, base, region)
        before = _keys_before_a_new_tree(store, base, mode)
        marked = (
            marking_unfinished(store, base, "DataTree.to_zarr", refuse_leftovers=mode != "w")
            if before is not None
            else contextlib.nullcontext()
        )
        finish = None
        if consolidated is not False:

            def finish() -> None:
                zarrforge.consolidate_metadata(store, base)

        delayed = []
        with marked:
            try:
                for number, node in enumerate(self._tree.subtree):
                    path = _node_path(self._tree, node, base)
                    node_mode = mode if number == 0 else ("a" if mode in ("w", "w-") else mode)
                    dataset = node.to_dataset(inherit=write_inherited_coords or number == 0)
                    if region is not None:
                        options["region"] = {dim: region.get(dim, "auto") for dim in dataset.dims}
                    written = to_zarr(
                        dataset,
                        store,
                        group=path or None,
                        mode=node_mode,
                        consolidated=False,
                        compute=compute,
                        encoding=encoding.get(node.path),
                        **options,
                    )
                    delayed.append(written)
                if finish is not None:
                    finish()  # part of the write: a failure here takes the tree out too
            except BaseException:
                if before is not None:  # the tree's root was created by this call: undo it all
                    remove_written(store, base, before)
                raise
        if not compute:
            from dask.delayed import delayed as dask_delayed

            return dask_delayed(_after_all)(delayed)
        return zarrforge.open_group(store, base, mode="r+")
