"""v2 data types against zarr-python 2.18, both ways: fixed-length bytes ``|S<n>``, raw
``|V<n>``, structured dtypes (nested included), and the ``fill_value: 0`` older zarr-python
2 releases wrote for ``<U4`` / ``|S1`` arrays (the public zarr-python fixtures hold it), whose
unwritten regions zarrforge reads as zarr-python 2 does, ``"0"`` / ``b"0"`` (docs/formats.md,
"Leniencies when reading").

zarr-python 2.18 runs in its own environment (see test_zarr2_draft.py, whose ``zarr2``
fixture builds or reuses it, failing rather than skipping when it cannot).
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest
from test_zarr2_draft import zarr2  # noqa: F401  # the fixture

import zarrforge as zf

NESTED = [["id", "<i4"], ["pos", [["x", "<f4"], ["y", "<f4"]]], ["tag", "|S2"]]
BIG = [["a", ">i2"], ["b", ">f8"]]


def _run(python: Path, script: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONWARNINGS"] = "ignore"
    done = subprocess.run(
        [str(python), "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )
    if done.returncode != 0:
        raise AssertionError(f"zarr-python 2.18 failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _descr(fields):
    return [(n, _descr(t) if isinstance(t, list) else t) for n, t in fields]


def test_zarrforge_reads_zarr2_fixtures(zarr2, tmp_path):  # noqa: F811
    _run(
        zarr2,
        f"""
        import numpy as np, zarr
        root = zarr.open_group({str(tmp_path / "v2.zarr")!r}, mode="w")
        s5 = root.create_dataset("s5", shape=(3,), chunks=(2,), dtype="|S5", fill_value=b"hey")
        s5[:1] = [b"hello"]
        v = root.create_dataset("v", shape=(3,), chunks=(2,), dtype="|V3",
                                fill_value=np.void(b"abc"))
        v[:1] = np.array([b"xyz"], dtype="V3")
        for name, fields in (("n", {NESTED!r}), ("b", {BIG!r})):
            def descr(f):
                return [(n, descr(t) if isinstance(t, list) else t) for n, t in f]
            dt = np.dtype(descr(fields))
            fill = np.zeros((), dt)
            fill[dt.names[0]] = 7
            a = root.create_dataset(name, shape=(3,), chunks=(2,), dtype=dt, fill_value=fill[()])
            value = np.zeros(1, dt)
            value[dt.names[0]] = -5
            a[:1] = value
    """,
        tmp_path,
    )
    root = tmp_path / "v2.zarr"
    s5 = zf.open_array(str(root), "s5", mode="r")
    assert s5.data_type.to_json() == {"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}}
    assert s5[:].tolist() == [b"hello", b"hey", b"hey"]
    v = zf.open_array(str(root), "v", mode="r")
    assert v.data_type.to_json() == "r24"
    assert [bytes(x) for x in v[:].tolist()] == [b"xyz", b"abc", b"abc"]
    n = zf.open_array(str(root), "n", mode="r")
    assert n.data_type.to_json()["name"] == "struct"
    assert n[:]["id"].tolist() == [-5, 7, 7]
    b = zf.open_array(str(root), "b", mode="r")
    assert b[:]["a"].tolist() == [-5, 7, 7]


STRING_DTYPES = ("<U4", "|S1", "|S3", ">U2")


def test_string_arrays_with_fill_value_0_read_as_zarr2_reads_them(zarr2, tmp_path):  # noqa: F811
    # zarr-python 2.18 writes each array, one element of four, then the document's fill
    # value becomes the integer 0 older zarr-python 2 releases wrote ("z<i>"), and 2.18
    # reads it back; "d<i>" keeps what zarr.open_array writes by default ("0", "MA==")
    out = _run(
        zarr2,
        f"""
        import json, zarr
        path = {str(tmp_path / "v2.zarr")!r}
        zarr.open_group(path, mode="w")
        seen = {{}}
        for i, dtype in enumerate({STRING_DTYPES!r}):
            for name in (f"d{{i}}", f"z{{i}}"):
                a = zarr.open_array(f"{{path}}/{{name}}", mode="w", shape=(4,), chunks=(2,),
                                    dtype=dtype)
                a[:1] = ["x" if a.dtype.kind == "U" else b"x"]
                with open(f"{{path}}/{{name}}/.zarray") as f:
                    document = json.load(f)
                if name[0] == "z":
                    document["fill_value"] = 0
                    with open(f"{{path}}/{{name}}/.zarray", "w") as f:
                        json.dump(document, f)
                a = zarr.open_array(f"{{path}}/{{name}}", mode="r")
                seen[name] = {{"fill": document["fill_value"],
                              "values": [v if isinstance(v, str) else v.decode()
                                         for v in a[:].tolist()]}}
        print(json.dumps(seen))
    """,
        tmp_path,
    )
    seen = json.loads(out.strip().splitlines()[-1])
    assert {seen[f"z{i}"]["fill"] for i in range(len(STRING_DTYPES))} == {0}
    for name, written in sorted(seen.items()):
        array = zf.open_array(str(tmp_path / "v2.zarr"), name, mode="r")
        values = [v if isinstance(v, str) else v.decode() for v in array[:].tolist()]
        assert values == written["values"], (name, array.dtype, written)
        assert written["values"] == ["x", "0", "0", "0"], (name, written)


def test_zarr2_reads_what_zarrforge_writes(zarr2, tmp_path):  # noqa: F811
    root = tmp_path / "zf.zarr"
    zf.create_group(str(root), zarr_format=2)
    nested = np.dtype(_descr(NESTED))
    n = zf.create_array(
        str(root),
        "n",
        shape=(3,),
        chunks=(2,),
        dtype=nested,
        zarr_format=2,
        fill_value=(7, (1.5, 2.5), b"zz"),
    )
    value = np.zeros(1, nested)
    value["id"], value["tag"] = -5, b"ab"
    n[:1] = value
    big = np.dtype(_descr(BIG))
    b = zf.create_array(
        str(root), "b", shape=(2,), chunks=(2,), dtype=big, zarr_format=2, fill_value=(3, 0.5)
    )
    b[:1] = np.array([(-1, 4.0)], big)
    s = zf.create_array(str(root), "s", shape=(2,), chunks=(2,), dtype="S3", zarr_format=2, fill_value=b"ab")
    s[:1] = np.array([b"xyz"], "S3")
    document = json.loads((root / "n/.zarray").read_text())
    assert document["dtype"] == NESTED
    assert json.loads((root / "b/.zarray").read_text())["dtype"] == BIG
    out = _run(
        zarr2,
        f"""
        import json, zarr
        root = zarr.open_group({str(root)!r}, mode="r")
        n, b, s = root["n"], root["b"], root["s"]
        print(json.dumps({{
            "n_id": n[:]["id"].tolist(), "n_x": n[:]["pos"]["x"].tolist(),
            "n_tag": [t.decode() for t in n[:]["tag"].tolist()],
            "b": [list(r) for r in b[:].tolist()], "b_order": b.dtype["a"].str,
            "s": [x.decode() for x in s[:].tolist()]}}))
    """,
        tmp_path,
    )
    got = json.loads(out.strip().splitlines()[-1])
    assert got == {
        "n_id": [-5, 7, 7],
        "n_x": [0.0, 1.5, 1.5],
        "n_tag": ["ab", "zz", "zz"],
        "b": [[-1, 4.0], [3, 0.5]],
        "b_order": ">i2",
        "s": ["xyz", "ab"],
    }


def test_unknown_v2_dtype_error_lists_v2_spellings(tmp_path):
    from zarrforge.errors import MetadataError
    from zarrforge_std.stores.memory import MemoryStore

    store = MemoryStore()
    store.set(".zgroup", b'{"zarr_format": 2}')
    store.set(
        "a/.zarray",
        json.dumps(
            {
                "shape": [2],
                "chunks": [2],
                "dtype": "<q9",
                "fill_value": 0,
                "order": "C",
                "filters": None,
                "compressor": None,
                "zarr_format": 2,
            }
        ).encode(),
    )
    with pytest.raises(MetadataError) as info:
        zf.open_array(store, "a")
    assert info.value.field == "dtype"
    message = str(info.value)
    assert "'<f8'" in message and "'|S<n>'" in message and "structured" in message
    assert "float32" not in message  # v3 names would not help a v2 reader
