"""The xarray backend entry point, registered as ``engine="zarrforge"``."""

from __future__ import annotations

from typing import Any, Iterable

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


class ZarrforgeBackendEntrypoint(BackendEntrypoint):
    """Open Zarr groups with zarrforge.

    ``filename_or_obj`` is a path, a URL zarrforge resolves (``file://``,
    ``memory://``, store plugins' schemes), a zarrforge ``Store`` or ``Group``.
    ``group`` selects a group below it. ``consolidated``: ``None`` uses
    consolidated metadata when present, ``False`` ignores it, ``True`` requires
    it. ``zarr_format`` restricts detection to one format (``3``, ``2``, ...).
    """

    description = "Open Zarr hierarchies (v3; v2 and the 2022 draft with their plugins) with zarrforge"
    url = "https://github.com/zarrforge (docs: plugins/xarray)"
    supports_groups = True

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        # Paths ending in .zarr are left to xarray's own engine unless asked for by name.
        return isinstance(filename_or_obj, zarrforge.Group)

    def open_dataset(  # type: ignore[override]
        self,
        filename_or_obj: Any,
        *,
        mask_and_scale: bool = True,
        decode_times: Any = True,
        concat_characters: bool = True,
        decode_coords: Any = True,
        drop_variables: str | Iterable[str] | None = None,
        use_cftime: Any = None,
        decode_timedelta: Any = None,
        group: str | None = None,
        mode: str = "r",
        consolidated: bool | None = None,
        storage_options: dict[str, Any] | None = None,
        zarr_format: Any = None,
        use_zarr_fill_value_as_mask: bool | None = None,
    ) -> Any:
        store = ZarrforgeDataStore.open(
            filename_or_obj, group=group, mode=mode, consolidated=consolidated,
            storage_options=storage_options, zarr_format=zarr_format,
            use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask,
            drop_variables=_names(drop_variables))
        return _dataset(store, mask_and_scale=mask_and_scale, decode_times=decode_times,
                        concat_characters=concat_characters, decode_coords=decode_coords,
                        drop_variables=drop_variables, use_cftime=use_cftime,
                        decode_timedelta=decode_timedelta)

    def open_groups_as_dict(  # type: ignore[override]
        self,
        filename_or_obj: Any,
        *,
        mask_and_scale: bool = True,
        decode_times: Any = True,
        concat_characters: bool = True,
        decode_coords: Any = True,
        drop_variables: str | Iterable[str] | None = None,
        use_cftime: Any = None,
        decode_timedelta: Any = None,
        group: str | None = None,
        mode: str = "r",
        consolidated: bool | None = None,
        storage_options: dict[str, Any] | None = None,
        zarr_format: Any = None,
        use_zarr_fill_value_as_mask: bool | None = None,
    ) -> dict[str, Any]:
        """``{"/": dataset, "/a": dataset, "/a/b": dataset}`` for the group and every
        group below it (paths relative to ``group``)."""
        if mode != "r":
            raise ValueError(f"the zarrforge xarray backend reads only (mode='r'), got {mode!r}")
        root = open_group(filename_or_obj, group=group, consolidated=consolidated,
                          storage_options=storage_options, zarr_format=zarr_format)
        groups = [("", root)] + [(name, node) for name, node in root.members(max_depth=None)
                                 if isinstance(node, zarrforge.Group)]
        result = {}
        for name, node in groups:
            store = ZarrforgeDataStore(node, use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask,
                                       drop_variables=_names(drop_variables))
            result["/" + name] = _dataset(
                store, mask_and_scale=mask_and_scale, decode_times=decode_times,
                concat_characters=concat_characters, decode_coords=decode_coords,
                drop_variables=drop_variables, use_cftime=use_cftime,
                decode_timedelta=decode_timedelta)
        return result

    def open_datatree(  # type: ignore[override]
        self,
        filename_or_obj: Any,
        *,
        mask_and_scale: bool = True,
        decode_times: Any = True,
        concat_characters: bool = True,
        decode_coords: Any = True,
        drop_variables: str | Iterable[str] | None = None,
        use_cftime: Any = None,
        decode_timedelta: Any = None,
        group: str | None = None,
        mode: str = "r",
        consolidated: bool | None = None,
        storage_options: dict[str, Any] | None = None,
        zarr_format: Any = None,
        use_zarr_fill_value_as_mask: bool | None = None,
    ) -> Any:
        from xarray import DataTree

        groups = self.open_groups_as_dict(
            filename_or_obj, mask_and_scale=mask_and_scale, decode_times=decode_times,
            concat_characters=concat_characters, decode_coords=decode_coords,
            drop_variables=drop_variables, use_cftime=use_cftime,
            decode_timedelta=decode_timedelta, group=group, mode=mode,
            consolidated=consolidated, storage_options=storage_options, zarr_format=zarr_format,
            use_zarr_fill_value_as_mask=use_zarr_fill_value_as_mask)
        return DataTree.from_dict(groups)


def _dataset(store: ZarrforgeDataStore, **decoding: Any) -> Any:
    try:
        return StoreBackendEntrypoint().open_dataset(store, **decoding)
    except BaseException:
        store.close()
        raise
