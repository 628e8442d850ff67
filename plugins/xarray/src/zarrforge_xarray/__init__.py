"""zarrforge-xarray: read Zarr hierarchies into xarray with zarrforge.

Installing the package registers the backend under xarray's ``xarray.backends``
entry point::

    import xarray as xr
    ds = xr.open_dataset("data.zarr", engine="zarrforge")
    tree = xr.open_datatree("data.zarr", engine="zarrforge")

Zarr v3 is read with zarrforge-std; Zarr v2 (what ``to_zarr(zarr_format=2)``
writes) needs zarrforge-v2, and the 2022 draft zarrforge-draft2022.
"""

from .backend import ZarrforgeBackendEntrypoint
from .store import MissingDimensionNamesError, ZarrforgeArray, ZarrforgeDataStore

__all__ = ["MissingDimensionNamesError", "ZarrforgeArray", "ZarrforgeBackendEntrypoint",
           "ZarrforgeDataStore"]
__version__ = "0.1.0"
