"""The xarray backend entry point, registered as ``engine="zarrforge"``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from xarray.backends.common import BackendEntrypoint
from xarray.backends.store import StoreBackendEntrypoint

import zarrforge

from .store import ZarrforgeDataStore, open_group


def _names(drop_variables: str | Iterable[str] | None) -> tuple[str, ...]:
    if drop_variables is None:
        return ()
    if isinstance(drop_variables, str):
        return (drop_variables,)
    return tuple(drop_variables)


# The keyword arguments the three entry points take, with their defaults: xarray's
# decoding options (passed on to xarray's CF decoding), then zarrforge's opening options.
DECODING_OPTIONS: dict[str, Any] = {
    "mask_and_scale": True,
    "decode_times": True,
    "concat_characters": True,
    "decode_coords": True,
    "drop_variables": None,
    "use_cftime": None,
    "decode_timedelta": None,
}
OPENING_OPTIONS: dict[str, Any] = {
    "group": None,
    "mode": "r",
    "consolidated": None,
    "storage_options": None,
    "zarr_format": None,
    "use_zarr_fill_value_as_mask": None,
    "chunk_cache": None,
    "recheck": "open",
}


class ZarrforgeBackendEntrypoint(BackendEntrypoint):
    """Open Zarr groups with zarrforge.

    ``filename_or_obj`` is a path, a URL zarrforge resolves (``file://``,
    ``memory://``, store plugins' schemes), a zarrforge ``Store`` or ``Group``.
    ``group`` selects a group below it. ``consolidated``: ``None`` uses
    consolidated metadata when present, ``False`` ignores it, ``True`` requires
    it. ``zarr_format`` restricts detection to one format (``3``, ``2``, ...).
    ``chunk_cache`` (a byte count or a ``zarrforge.ChunkCache``) and ``recheck``: the
    decoded-chunk cache of every variable, as for :func:`zarrforge.open_group`.
    """

    description = "Open Zarr hierarchies (v3; v2 and the 2022 draft with their plugins) with zarrforge"
    url = "https://github.com/zarrforge (docs: plugins/xarray)"
    supports_groups = True

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        # Paths ending in .zarr are left to xarray's own engine unless asked for by name.
        return isinstance(filename_or_obj, zarrforge.Group)

    # xarray reads the accepted keywords from here, since the methods take **options
    open_dataset_parameters = ("filename_or_obj", *DECODING_OPTIONS, *OPENING_OPTIONS)

    def open_dataset(self, filename_or_obj: Any, **options: Any) -> Any:
        decoding, opening = _split_options(options)
        store = ZarrforgeDataStore.open(
            filename_or_obj,
            group=opening["group"],
            mode=opening["mode"],
            consolidated=opening["consolidated"],
            storage_options=opening["storage_options"],
            zarr_format=opening["zarr_format"],
            use_zarr_fill_value_as_mask=opening["use_zarr_fill_value_as_mask"],
            drop_variables=_names(decoding["drop_variables"]),
            chunk_cache=opening["chunk_cache"],
            recheck=opening["recheck"],
        )
        return _dataset(store, **decoding)

    def open_groups_as_dict(
        self,
        filename_or_obj: Any,
        **options: Any,
    ) -> dict[str, Any]:
        """``{"/": dataset, "/a": dataset, "/a/b": dataset}`` for the group and every
        group below it (paths relative to ``group``)."""
        decoding, opening = _split_options(options)
        if opening["mode"] != "r":
            raise ValueError(f"the zarrforge xarray backend reads only (mode='r'), got {opening['mode']!r}")
        root = open_group(
            filename_or_obj,
            group=opening["group"],
            consolidated=opening["consolidated"],
            storage_options=opening["storage_options"],
            zarr_format=opening["zarr_format"],
            chunk_cache=opening["chunk_cache"],
            recheck=opening["recheck"],
        )
        groups = [("", root)] + [
            (name, node) for name, node in root.members(max_depth=None) if isinstance(node, zarrforge.Group)
        ]
        result = {}
        for name, node in groups:
            store = ZarrforgeDataStore(
                node,
                use_zarr_fill_value_as_mask=opening["use_zarr_fill_value_as_mask"],
                drop_variables=_names(decoding["drop_variables"]),
            )
            result["/" + name] = _dataset(store, **decoding)
        return result

    def open_datatree(self, filename_or_obj: Any, **options: Any) -> Any:
        from xarray import DataTree

        return DataTree.from_dict(self.open_groups_as_dict(filename_or_obj, **options))


def _split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` as (decoding, opening) keyword arguments with defaults filled in;
    a name that is neither is a TypeError naming the valid ones."""
    unknown = sorted(set(options) - set(DECODING_OPTIONS) - set(OPENING_OPTIONS))
    if unknown:
        raise TypeError(
            f"the zarrforge backend got unexpected keyword argument(s) {unknown}; "
            f"it takes {sorted({**DECODING_OPTIONS, **OPENING_OPTIONS})}"
        )
    decoding = {name: options.get(name, default) for name, default in DECODING_OPTIONS.items()}
    opening = {name: options.get(name, default) for name, default in OPENING_OPTIONS.items()}
    return decoding, opening


def _dataset(store: ZarrforgeDataStore, **decoding: Any) -> Any:
    try:
        return StoreBackendEntrypoint().open_dataset(store, **decoding)
    except BaseException:
        store.close()
        raise
