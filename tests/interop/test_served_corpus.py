"""The vendored corpus (tests/external: 387 nodes written by zarr-python, zarrs, zarr-java,
zarr.js, zarrita.js, netcdf-c and neuroglancer's fixtures), served by ``zarrforge serve`` and
read back over HTTP by zarr-python 3.1.

Each hierarchy root of the corpus is served once; every array zarrforge reads (all but the
manifest's known refusals) must read, through zarr-python over HTTP, exactly as zarrforge
reads it from the files (compared as bytes in native byte order, strings as text), whether
the server passed its chunks through or re-encoded them. Two kinds of array are read
otherwise, each named here:

* :data:`NO_V3_FORM`: Zarr v2 arrays of JSON objects (``|O`` with the ``json2`` codec),
  which v3 has no data type for: their ``zarr.json`` is a one-line 500 naming the field.
* :data:`PEER_LACKS`: data types zarr-python 3.1 does not implement (zarrs' ``optional``):
  served as they are and read back over HTTP by zarrforge instead.
"""

from __future__ import annotations

import collections
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import zarr

import zarrforge as zf
from zarrforge_serve.testing import Servers, request

EXTERNAL = Path(__file__).resolve().parents[1] / "external"
if str(EXTERNAL) not in sys.path:
    sys.path.insert(0, str(EXTERNAL))

from _corpus import MANIFEST, discover, load  # noqa: E402  # the corpus' own index

NO_V3_FORM = ("json2",)  # a codec whose arrays v3 cannot hold
PEER_LACKS = ("optional",)  # data type names zarr-python 3.1 has no implementation of


def _arrays_by_root() -> dict[Path, list]:
    refused = {entry["case"] for entry in load(MANIFEST)["known_refusals"]}
    roots: dict[Path, list] = collections.defaultdict(list)
    for node in discover():
        if node.kind == "array" and node.case not in refused:
            roots[node.store].append(node)
    return dict(sorted(roots.items()))


ROOTS = _arrays_by_root()


def _comparable(values: np.ndarray) -> bytes | list[str]:
    values = np.asarray(values)
    if values.dtype.kind in "OTUS" or values.dtype.names:
        return [str(v) for v in values.ravel().tolist()]
    return values.astype(values.dtype.newbyteorder("=")).tobytes()


@pytest.fixture(scope="module")
def servers():
    running = Servers()
    yield running
    running.close()


def test_the_corpus_is_here():
    assert sum(len(nodes) for nodes in ROOTS.values()) > 250


@pytest.mark.parametrize("root", list(ROOTS), ids=[str(r.relative_to(EXTERNAL / "data")) for r in ROOTS])
def test_zarr_python_reads_every_served_array_as_zarrforge_reads_the_files(root, servers):
    url = servers.start(str(root))
    for node in ROOTS[root]:
        source = zf.open_array(str(root), path=node.path, mode="r")
        want = source[...]
        where = url + node.path + ("/" if node.path else "")
        if any(name in str(source.metadata) for name in NO_V3_FORM):
            status, _, body = request("GET", where + "zarr.json")
            assert status == 500 and b"fill_value" in body and body.count(b"\n") == 1, node.case
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zarr-python's notes on v3 extension types
            document = zf.open_array(where, mode="r").metadata
            data_type = document["data_type"]
            if (data_type.get("name") if isinstance(data_type, dict) else data_type) in PEER_LACKS:
                got = zf.open_array(where, mode="r")[...]
            else:
                got = zarr.open_array(where, mode="r")[...]
        assert np.shape(got) == want.shape, node.case
        assert _comparable(got) == _comparable(want), node.case
