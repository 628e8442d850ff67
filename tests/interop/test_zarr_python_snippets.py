"""A zarr-python user's lines, with ``import zarrforge as zarr`` the only change.

Each snippet is written as zarr-python 3's documentation and users write it, against a
directory store ``STORE``, leaving what it computed in ``result``. It runs twice: with
``zarr`` being zarr-python 3 and with ``zarr`` being zarrforge, each in a directory of its
own. Both runs must give equal results and store equal metadata documents (every
``zarr.json``, ``.zarray``, ``.zgroup``, ``.zattrs``, compared as JSON), up to the
differences docs/coming-from-zarr-python.md lists, which :data:`DIFFERENCES` names here.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import zarrforge

zarr = pytest.importorskip("zarr")
if not zarr.__version__.startswith("3."):
    pytest.skip("zarr-python 3 is the reference", allow_module_level=True)

SNIPPETS = {
    "zeros": """
        z = zarr.zeros((100, 100), chunks=(10, 10), dtype="i4", store=STORE)
        result = z[:]
    """,
    "ones": """
        z = zarr.ones((50,), chunks=(10,), store=STORE)
        result = z[:]
    """,
    "full": """
        z = zarr.full((20, 20), fill_value=3.5, chunks=(5, 5), store=STORE)
        result = z[...]
    """,
    "empty with a fill value": """
        z = zarr.empty((5,), chunks=(5,), dtype="i8", fill_value=0, store=STORE)
        result = z.shape, z.dtype
    """,
    "create_array, then write": """
        z = zarr.create_array(store=STORE, shape=(100,), chunks=(10,), dtype="f8")
        z[:] = np.arange(100)
        result = z[:]
    """,
    "create_array with name=": """
        z = zarr.create_array(store=STORE, name="data", shape=(4, 4), chunks=(2, 2), dtype="i2")
        z[1, :] = 7
        result = z[:]
    """,
    "array from numpy": """
        z = zarr.array(np.arange(10), chunks=(5,), store=STORE)
        result = z[:]
    """,
    "group and a member": """
        g = zarr.group(store=STORE)
        a = g.create_array("a", shape=(10,), chunks=(5,), dtype="i4")
        a[:] = 1
        result = zarr.open_group(STORE)["a"][:]
    """,
    "save and load one array": """
        zarr.save(STORE, np.arange(6))
        result = zarr.load(STORE)
    """,
    "save named arrays, open the group": """
        zarr.save(STORE, x=np.arange(3), y=np.ones(2))
        g = zarr.open_group(STORE)
        result = g["x"][:], g["y"][:]
    """,
    "zeros_like a numpy array": """
        z = zarr.zeros_like(np.ones((4, 4), dtype="u1"), chunks=(2, 2), store=STORE)
        result = z[:], z.dtype
    """,
    "full_like an array": """
        z = zarr.full_like(np.zeros((4,), dtype="i4"), fill_value=9, chunks=(2,), store=STORE)
        result = z[:]
    """,
    "sharded array": """
        z = zarr.create_array(store=STORE, shape=(8, 8), chunks=(2, 2), shards=(4, 4), dtype="f4")
        z[:] = 1
        result = z[:], z.chunks, z.shards
    """,
    "attributes": """
        z = zarr.create_array(store=STORE, shape=(10,), chunks=(5,), dtype="i4",
                              attributes={"a": 1})
        z.attrs["b"] = 2
        result = dict(zarr.open_array(STORE).attrs)
    """,
    "group attributes": """
        g = zarr.group(STORE)
        g.attrs["title"] = "x"
        result = dict(zarr.open_group(STORE).attrs)
    """,
    "consolidated": """
        zarr.create_group(STORE).create_group("sub")
        zarr.consolidate_metadata(STORE)
        result = sorted(name for name, _ in zarr.open_consolidated(STORE).members())
    """,
    "v2 array": """
        z = zarr.create(shape=(6,), chunks=(3,), dtype="i4", store=STORE, zarr_format=2)
        z[:] = 5
        result = z[:]
    """,
    "v2 without a compressor": """
        z = zarr.zeros((10, 10), chunks=(5, 5), store=STORE, zarr_format=2, compressor=None)
        result = z[:]
    """,
    "from_array of numpy": """
        z = zarr.from_array(STORE, data=np.arange(12).reshape(3, 4))
        result = z[:]
    """,
    "append": """
        z = zarr.zeros((4, 3), chunks=(2, 3), dtype="i4", store=STORE)
        z.append(np.ones((2, 3), dtype="i4"))
        result = z[:]
    """,
    "resize": """
        z = zarr.ones((10,), chunks=(5,), dtype="f4", store=STORE)
        z.resize((15,))
        result = z[:]
    """,
    "save_array": """
        zarr.save_array(STORE, np.arange(4))
        result = zarr.open_array(STORE)[:]
    """,
    "save_group": """
        zarr.save_group(STORE, np.arange(2), b=np.zeros(3))
        result = sorted(name for name, _ in zarr.open_group(STORE).members())
    """,
    "compressors of an array": """
        z = zarr.create_array(store=STORE, shape=(10,), chunks=(5,), dtype="i4",
                              compressors=None)
        result = z.compressors, z.filters
    """,
    "fancy selection": """
        z = zarr.array(np.arange(20).reshape(4, 5), chunks=(2, 2), store=STORE)
        result = z[1:3, ::2], z[[0, 3], 1]
    """,
    "nbytes": """
        z = zarr.zeros((100, 10), chunks=(10, 10), dtype="f4", store=STORE)
        result = z.nbytes, z.size, z.ndim
    """,
    "orthogonal and coordinate selections": """
        z = zarr.array(np.arange(30).reshape(5, 6), chunks=(2, 3), store=STORE)
        result = (z.get_orthogonal_selection(([0, 4], [1, 5])),
                  z.get_coordinate_selection(([0, 4], [1, 5])),
                  z.oindex[[1, 2], :2], z.vindex[[1, 2], [0, 3]])
    """,
    "mask and block selections": """
        z = zarr.array(np.arange(12).reshape(3, 4), chunks=(2, 2), store=STORE)
        mask = z[...] % 2 == 0
        result = z.get_mask_selection(mask), z.get_block_selection((1, 0)), z.blocks[0, 1]
    """,
    "set selections": """
        z = zarr.zeros((4, 4), chunks=(2, 2), dtype="i4", store=STORE)
        z.set_basic_selection((slice(0, 1), slice(None)), 1)
        z.set_orthogonal_selection(([2, 3], [0]), 2)
        z.set_coordinate_selection(([3], [3]), 3)
        z.set_block_selection((0, 1), 4)
        result = z[:]
    """,
    "require_array and nmembers": """
        g = zarr.group(STORE)
        g.require_array("a", shape=(3,), dtype="i4")
        again = g.require_array("a", shape=(3,), dtype="i4")
        g.create_group("sub")
        result = again.shape, g.nmembers(), sorted(g.array_keys())
    """,
    "update_attributes": """
        z = zarr.zeros((3,), chunks=(3,), store=STORE)
        z.update_attributes({"units": "m", "scale": 2})
        g = zarr.open_group(STORE + "-group", mode="a")
        g.update_attributes({"title": "t"})
        result = dict(zarr.open_array(STORE).attrs), dict(g.attrs)
    """,
    "a 0-d array": """
        z = zarr.full((), 4.5, store=STORE)
        result = z[()], z.shape
    """,
    "fill value and dtype of empty_like": """
        z = zarr.empty_like(np.zeros((2, 3), dtype="i2"), chunks=(2, 3), store=STORE)
        result = z.shape, z.dtype, z.fill_value
    """,
    "open creates a group": """
        g = zarr.open(STORE, mode="a")
        g.create_array("x", shape=(2,), dtype="i1")
        result = sorted(name for name, _ in zarr.open_group(STORE).members())
    """,
    "open_array creates with a shape": """
        z = zarr.open_array(STORE, mode="a", shape=(6,), chunks=(3,), dtype="i4")
        z[:] = 2
        z2 = zarr.open_array(STORE, mode="w", shape=(3,), chunks=(3,), dtype="i4")
        result = z2[:], zarr.open(STORE).shape
    """,
    "create_array with data=": """
        z = zarr.create_array(store=STORE, data=np.arange(10).reshape(2, 5))
        result = z[:], z.dtype
    """,
    "ones_like a zarr array keeps its chunks": """
        a = zarr.ones((4, 4), chunks=(2, 2), dtype="i2", store=STORE)
        b = zarr.ones_like(a, store=STORE + "-like")
        result = b[:], b.chunks, b.dtype
    """,
    "group and array keys": """
        g = zarr.group(STORE)
        g.create_group("b")
        g.create_array("a", shape=(1,), dtype="i1")
        result = sorted(g.group_keys()), sorted(g.array_keys()), "a" in g, "zz" in g
    """,
    "v2 group with attributes and an array": """
        g = zarr.group(STORE, zarr_format=2)
        g.attrs["x"] = [1, 2]
        a = g.create_array("arr", shape=(3,), dtype="f8", chunks=(3,))
        a[:] = 1.5
        result = dict(zarr.open_group(STORE).attrs), zarr.open_array(STORE, path="arr")[:]
    """,
    "mode r is read-only": """
        zarr.zeros((2,), store=STORE)
        result = zarr.open_array(STORE, mode="r").read_only, zarr.open_array(STORE).read_only
    """,
    "shards auto": """
        z = zarr.create_array(store=STORE, shape=(64, 64), chunks=(8, 8), shards="auto",
                              dtype="u1")
        z[:] = 3
        result = z[:], z.chunks
    """,
}

# Snippets whose stored documents differ on purpose (docs/coming-from-zarr-python.md).
DIFFERENCES: dict[str, str] = {
    "v2 group with attributes and an array": "zarr-python 3.1's create_array gives a v2 array "
    "blosc (lz4) by default and its create zstd; "
    "zarrforge gives zstd both ways",
    "shards auto": "zarr-python doubles the chunks along sides with more than 8 of them; "
    "zarrforge grows shards up to config.auto_shard_bytes (the values agree)",
    "consolidated": "zarr-python gives every group inside a consolidated view an empty view "
    "of its own; zarrforge leaves it out",
}

METADATA = ("zarr.json", ".zarray", ".zgroup", ".zattrs")


def run(snippet: str, module: Any, store: Path) -> Any:
    namespace = {"zarr": module, "np": np, "STORE": str(store)}
    exec(textwrap.dedent(snippet), namespace)  # noqa: S102  # the snippets above, nothing else
    return namespace["result"]


def documents(root: Path) -> dict[str, Any]:
    return {
        str(path.relative_to(root)): _without_empty_transformers(json.loads(path.read_text()))
        for path in sorted(root.rglob("*"))
        if path.name in METADATA
    }


def _without_empty_transformers(document: Any) -> Any:
    """zarr-python writes ``"storage_transformers": []`` where zarrforge leaves the optional
    member out; both mean none (the first row of docs/coming-from-zarr-python.md)."""
    if isinstance(document, dict):
        return {
            k: _without_empty_transformers(v)
            for k, v in document.items()
            if not (k == "storage_transformers" and v == [])
        }
    return document


def same(a: Any, b: Any) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b)) and np.asarray(a).dtype == np.asarray(b).dtype
    if isinstance(a, tuple) or isinstance(b, tuple):
        return False
    if hasattr(a, "to_dict") or hasattr(b, "to_dict"):  # codecs: compared by their JSON
        return _codec_json(a) == _codec_json(b)
    return a == b


def _codec_json(codec: Any) -> Any:
    return codec.to_dict() if hasattr(codec, "to_dict") else codec.to_json()


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_a_zarr_python_snippet_runs_the_same_with_zarrforge(name, tmp_path):
    snippet = SNIPPETS[name]
    expected = run(snippet, zarr, tmp_path / "zarr-python")
    got = run(snippet, zarrforge, tmp_path / "zarrforge")
    assert same(got, expected), f"{name}: zarrforge gave {got!r}, zarr-python {expected!r}"
    theirs, ours = documents(tmp_path / "zarr-python"), documents(tmp_path / "zarrforge")
    if name in DIFFERENCES:
        return
    assert ours.keys() == theirs.keys(), name
    for key in ours:
        assert ours[key] == theirs[key], f"{name}: {key} differs"


def test_there_are_enough_snippets():
    assert len(SNIPPETS) >= 40
