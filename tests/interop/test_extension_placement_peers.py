"""ZEP 10 entries that peers can read (issue #50), run against the peers themselves.

An array with ``zarrforge.array-statistics`` enabled writes its entry as a top-level key
(``must_understand: false``): zarr-python 3.4.2 (its own environment, the ``zarr34``
fixture) and tensorstore open it, read the data, and keep the key when they rewrite the
document (attributes, resize); zarrforge then reads the statistics and updates them. The
same entry in ZEP 10's ``extensions`` list (``skippable_extensions="list"``) makes both
refuse the array; a group's top-level entry survives zarr-python 3.4.2's rewrite too.
``ZARRFORGE_SKIP_ZARR34=1`` skips the zarr-python 3.4.2 half explicitly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import tensorstore as ts
from _side_venv import ZARR34_LABEL, run_script

import zarrforge as zf
import zarrforge_extensions as zfx
from zarrforge_extensions.array_statistics import NAME, Statistics

REWRITE_WITH_ZARR34 = """
import json, sys, zarr
a = zarr.open_array(sys.argv[1], mode="r+")
print(json.dumps(a[:].tolist()))
a.attrs["by"] = "zarr-python"
a.resize((8,))
"""

READ_WITH_ZARR34 = """
import json, sys, zarr
try:
    zarr.open_array(sys.argv[1], mode="r")
except Exception as exc:
    print(type(exc).__name__, exc)
"""

REWRITE_GROUP_WITH_ZARR34 = """
import sys, zarr
g = zarr.open_group(sys.argv[1], mode="r+")
g.attrs["by"] = "zarr-python"
"""


def _array_with_statistics(path: Path) -> zf.Array:
    a = zf.create_array(str(path), shape=(6,), chunks=(3,), dtype="float32", fill_value=0)
    zfx.enable_statistics(a)
    a[:] = np.arange(6, dtype="float32")
    return a


def _document(path: Path) -> dict:
    return json.loads((path / "zarr.json").read_text())


def _tensorstore(path: Path) -> ts.TensorStore:
    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": f"{path}/"}}).result()


def test_zarr_python_reads_and_rewrites_an_array_with_statistics(tmp_path, zarr34):
    path = tmp_path / "a"
    _array_with_statistics(path)
    entry = _document(path)[NAME]
    read = run_script(zarr34, REWRITE_WITH_ZARR34, [str(path)], label=ZARR34_LABEL, cwd=tmp_path)
    assert json.loads(read) == [0, 1, 2, 3, 4, 5]
    rewritten = _document(path)
    assert (
        rewritten[NAME] == entry
        and rewritten["shape"] == [8]
        and rewritten["attributes"] == {"by": "zarr-python"}
    )
    a = zf.open_array(str(path), mode="r+")
    assert zfx.statistics(a) == Statistics(0.0, 5.0, 6)
    a[6:] = [-1, 20]
    assert zfx.statistics(a) == Statistics(-1.0, 20.0, 8)


def test_tensorstore_reads_and_rewrites_an_array_with_statistics(tmp_path):
    path = tmp_path / "a"
    _array_with_statistics(path)
    entry = _document(path)[NAME]
    store = _tensorstore(path)
    assert store.read().result().tolist() == [0, 1, 2, 3, 4, 5]
    store.resize(exclusive_max=[10]).result()
    rewritten = _document(path)
    assert rewritten[NAME] == entry and rewritten["shape"] == [10]
    a = zf.open_array(str(path), mode="r+")
    assert zfx.statistics(a) == Statistics(0.0, 5.0, 6)
    a[8:] = [7, 3]
    assert zfx.statistics(a) == Statistics(0.0, 7.0, 8)


def test_both_peers_refuse_the_same_entry_in_the_zep_10_list(tmp_path, zarr34):
    path = tmp_path / "a"
    with zf.config.set(skippable_extensions="list"):
        _array_with_statistics(path)
    assert _document(path)["extensions"][0]["name"] == NAME
    said = run_script(zarr34, READ_WITH_ZARR34, [str(path)], label=ZARR34_LABEL, cwd=tmp_path)
    assert said.startswith("MetadataValidationError") and "['extensions']" in said
    with pytest.raises(ValueError, match='Unsupported metadata field "extensions"'):
        _tensorstore(path)


def test_a_group_entry_survives_a_zarr_python_rewrite(tmp_path, zarr34):
    entry = {"name": "x.provenance", "configuration": {"tool": "zarrforge"}, "must_understand": False}
    g = zf.create_group(str(tmp_path / "g"))
    g.set_extension(entry)
    assert _document(tmp_path / "g")["x.provenance"] == entry
    run_script(zarr34, REWRITE_GROUP_WITH_ZARR34, [str(tmp_path / "g")], label=ZARR34_LABEL, cwd=tmp_path)
    rewritten = _document(tmp_path / "g")
    assert rewritten["x.provenance"] == entry and rewritten["attributes"] == {"by": "zarr-python"}
    assert zf.open_group(str(tmp_path / "g")).get_extension("x.provenance").document == entry
