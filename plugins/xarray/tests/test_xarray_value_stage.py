"""An extension that changes values (issue #50) through xarray: engine="zarrforge" reads the
decoded values, and zarrforge_xarray.to_zarr writes (region and append) store encoded ones.
``test.halve`` stores half of what is written and reads stored values doubled."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr

import zarrforge as zf
import zarrforge_xarray as zx
from zarrforge.abc.extension import Extension

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning")


class Halve(Extension):
    name = "test.halve"
    node_types = frozenset({"array"})

    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}

    def encode_values(self, array, values):
        return (values / 2).astype(values.dtype)

    def decode_values(self, array, values):
        return (values * 2).astype(values.dtype)


@pytest.fixture(autouse=True)
def registered():
    zf.register("extensions", Halve.name, Halve)
    yield
    zf.registry.extensions.unregister(Halve.name)


def _stored(path, name):
    document = json.loads((path / name / "zarr.json").read_text())
    document.pop("extensions")  # the same array without its value stage: the stored values
    copy = {"zarr.json": json.dumps(document).encode()}
    array = zf.open_array(str(path / name), mode="r")
    copy.update({k: array.store.get(k) for k in array.store.list() if not k.endswith("zarr.json")})
    return zf.open_array(copy, mode="r")[...]


def test_the_backend_reads_decoded_values_and_the_writer_stores_encoded_ones(tmp_path):
    path = tmp_path / "halved.zarr"
    root = zf.create_group(str(path))
    t = root.create_array(
        "t",
        shape=(4, 3),
        chunks=(2, 3),
        dtype="float64",
        fill_value=0.0,
        dimension_names=["time", "x"],
        extensions=[{"name": "test.halve"}],
    )
    t[...] = np.arange(12.0).reshape(4, 3)
    opened = xr.open_dataset(str(path), engine="zarrforge")
    np.testing.assert_array_equal(opened["t"].values, np.arange(12.0).reshape(4, 3))

    update = xr.Dataset({"t": (("time", "x"), np.full((2, 3), 8.0))})
    zx.to_zarr(update, str(path), region={"time": slice(2, 4), "x": slice(0, 3)})
    np.testing.assert_array_equal(_stored(path, "t")[2:], np.full((2, 3), 4.0))
    zx.to_zarr(xr.Dataset({"t": (("time", "x"), np.full((1, 3), 6.0))}), str(path), append_dim="time")
    reread = xr.open_dataset(str(path), engine="zarrforge")["t"].values
    np.testing.assert_array_equal(reread[:2], np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(reread[2:], [[8.0] * 3, [8.0] * 3, [6.0] * 3])
    np.testing.assert_array_equal(_stored(path, "t")[4], [3.0] * 3)
