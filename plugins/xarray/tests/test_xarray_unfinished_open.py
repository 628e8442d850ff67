"""``xr.open_dataset(engine="zarrforge")`` of a group a killed write left marked warns
(:class:`~zarrforge.errors.UnfinishedWriteWarning`, naming the operation) and still reads."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from zarrforge.errors import UnfinishedWriteWarning
from zarrforge.hierarchy_api import marking_unfinished, resolve_store


def test_opening_a_dataset_a_killed_addition_left_warns_and_reads(tmp_path):
    path = str(tmp_path / "ds.zarr")
    import zarrforge_xarray  # noqa: F401  # the accessor

    xr.Dataset({"t": ("x", np.arange(3.0))}).zarrforge.to_zarr(path)
    with marking_unfinished(resolve_store(path), "", "to_zarr adding 'wind'") as mark:
        mark.keep()  # what a process killed while adding 'wind' leaves
    with pytest.warns(UnfinishedWriteWarning, match=r"\"to_zarr adding 'wind'\".*may be partial"):
        ds = xr.open_dataset(path, engine="zarrforge")
    assert ds["t"].values.tolist() == [0.0, 1.0, 2.0]
