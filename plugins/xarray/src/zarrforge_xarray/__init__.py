"""zarrforge-xarray: read and write Zarr hierarchies with xarray through zarrforge.

Installing the package registers the backend under xarray's ``xarray.backends``
entry point::

    import xarray as xr
    ds = xr.open_dataset("data.zarr", engine="zarrforge")
    tree = xr.open_datatree("data.zarr", engine="zarrforge")

Writing (:mod:`zarrforge_xarray.writer`, with ``to_zarr``'s semantics)::

    import zarrforge_xarray
    zarrforge_xarray.to_zarr(ds, "out.zarr", mode="w")
    ds.zarrforge.to_zarr("out.zarr", mode="w")      # the accessor, after the import

Zarr v3 is read with zarrforge-std; Zarr v2 (what ``to_zarr(zarr_format=2)``
writes) needs zarrforge-v2, and the 2022 draft zarrforge-draft2022.
"""

from . import accessor  # noqa: F401  # registers ds.zarrforge and dt.zarrforge
from .backend import ZarrforgeBackendEntrypoint
from .store import MissingDimensionNamesError, ZarrforgeArray, ZarrforgeDataStore
from .writer import ZarrforgeWritableStore, open_zarr, to_zarr

__all__ = [
    "MissingDimensionNamesError",
    "ZarrforgeArray",
    "ZarrforgeBackendEntrypoint",
    "ZarrforgeDataStore",
    "ZarrforgeWritableStore",
    "open_zarr",
    "to_zarr",
]
from zarrforge import __version__ as __version__  # released together, one version
