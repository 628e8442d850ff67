"""Models of hierarchies zarr-python writes, and hierarchies from models that zarr-python reads."""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
import pytest
import zarr

import zarrforge as zf
import zarrforge_zom as zom

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")


def write_with_zarr_python(path: str, zarr_format: Literal[2, 3]) -> None:
    extra: dict[str, Any] = {"dimension_names": ["y", "x"]} if zarr_format == 3 else {}
    root = zarr.open_group(path, mode="w", zarr_format=zarr_format, attributes={"made": "zarr"})
    a = root.create_array(
        "a",
        shape=(6, 8),
        chunks=(3, 4),
        dtype="float64",
        fill_value=np.nan,
        attributes={"units": "m"},
        **extra,
    )
    a[:] = np.arange(48.0).reshape(6, 8)
    sub = root.create_group("sub", attributes={"level": 1})
    sub.create_array("b", shape=(10,), chunks=(5,), dtype="int32", fill_value=-1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.consolidate_metadata(path, zarr_format=zarr_format)


@pytest.mark.parametrize("zarr_format", [3, 2])
def test_zarr_python_hierarchies_round_trip(tmp_path, zarr_format):
    source = str(tmp_path / "source.zarr")
    write_with_zarr_python(source, zarr_format)
    spec = zom.GroupSpec.from_zarr(source)
    assert spec.zarr_format == zarr_format
    assert zom.schema_issues(spec.to_json()) == []
    assert spec.members["sub"].attributes == {"level": 1}
    # the same model without consolidated metadata
    assert zom.from_zarr(zf.open_group(source, mode="r", use_consolidated=False)) == spec

    target = str(tmp_path / "target.zarr")
    spec.to_zarr(target)
    assert zom.GroupSpec.from_zarr(target) == spec
    opened = zarr.open_group(target, mode="r", zarr_format=zarr_format)
    assert dict(opened.attrs) == {"made": "zarr"}
    b = opened["sub/b"]
    assert b.shape == (10,) and b.chunks == (5,) and b.dtype == np.dtype("int32")
    np.testing.assert_array_equal(b[:], np.full(10, -1, dtype="int32"))
    assert np.isnan(opened["a"][0, 0])
