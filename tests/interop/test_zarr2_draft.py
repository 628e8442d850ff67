"""The 2022 draft against a real zarr-python 2.18 (``ZARR_V3_EXPERIMENTAL_API=1``), both ways.

zarr-python 2.x is the only widely used writer of the draft (its experimental
v3 mode), and it cannot share the project's environment (which holds zarr 3),
so it runs in a virtual environment of its own:

* location: ``$ZARRFORGE_ZARR2_VENV`` if set, else ``<repository>/.venv-zarr2``
  (git-ignored); created on first use with ``python -m venv`` and
  ``pip install "zarr>=2.18,<2.19" numcodecs pytest`` (zarr 2.18 imports
  ``pytest`` when it decodes a sharding storage transformer), then reused:
  a marker file records what was installed, and a lock file keeps parallel
  sessions from building it twice. ``make test`` builds it up front.
* if it cannot be built (no network, no PyPI mirror) the tests *fail* with
  pip's output; they never skip silently. ``ZARRFORGE_SKIP_ZARR2=1`` skips
  them explicitly, with that reason in the report.

One hierarchy of cases (:data:`CASES`) is written by each implementation --
zarr-python through its v3 API in a subprocess, zarrforge with
``zarr_format="draft-2022"`` in the default (zarr-python) dialect -- and read
by the other. Compared: values (as bytes), dtypes with byte order, fill values
(bit for bit), attributes, chunk shapes, memory order, compressors, and
across the two trees: the stored keys, the metadata documents (byte for
byte: zarrforge dumps them as zarr-python does) and the chunks (byte for
byte when uncompressed, after decompression otherwise). Covered: gzip, blosc
and zstd compressors (and none), C and F order, big-endian types, every
numeric type, complex and datetime extension types, numcodecs filters, the
"." separator, a 0-d array, explicit and implicit groups, sharded arrays
(``ZARR_V3_SHARDING=1``), attributes.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numcodecs
import numpy as np
import pytest
from _side_venv import ensure_zarr2_venv, run_script

import zarrforge as zf
from zarrforge_draft2022 import Draft2022Format

ENV = {"ZARR_V3_EXPERIMENTAL_API": "1", "ZARR_V3_SHARDING": "1", "PYTHONWARNINGS": "ignore"}

SHARDING = "https://purl.org/zarr/spec/storage_transformers/sharding/1.0"

# --------------------------------------------------------------------------------------------
# the zarr-python 2.18 environment: _side_venv.ensure_zarr2_venv ($ZARRFORGE_ZARR2_VENV)


@pytest.fixture(scope="module")
def zarr2() -> Path:
    if os.environ.get("ZARRFORGE_SKIP_ZARR2") == "1":
        pytest.skip("ZARRFORGE_SKIP_ZARR2=1: interop with zarr-python 2.18 explicitly skipped")
    try:
        return ensure_zarr2_venv()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(
            f"zarr-python 2.18 is needed for these tests and could not be set up "
            f"(set ZARRFORGE_SKIP_ZARR2=1 to skip them explicitly): {exc}"
        )


def run_zarr2(python: Path, script: str, *args: str, cwd: Path) -> str:
    # cwd: never a directory that shadows zarr's modules
    return run_script(
        python, VALUES_SOURCE + textwrap.dedent(script), args, label="zarr-python 2.18", cwd=cwd, env=ENV
    )


# --------------------------------------------------------------------------------------------
# the cases (JSON, shared by both implementations)

# Deterministic values, defined once and run by both interpreters.
VALUES_SOURCE = textwrap.dedent('''
    import numpy as np

    def make_values(dtype, shape):
        dt = np.dtype(dtype)
        n = 1
        for s in shape:
            n *= s
        base = np.arange(n, dtype=np.int64)
        if dt.kind == "b":
            v = base % 3 == 0
        elif dt.kind in "iu":
            v = (base * 7919 + 3) % 251 - (100 if dt.kind == "i" else 0)
        elif dt.kind == "f":
            v = base * 0.5 - 3.25
        elif dt.kind == "c":
            v = base * 0.5 - 1j * base
        elif dt.kind == "M":
            v = (base * 3600).astype("M8[s]")
        else:
            raise ValueError(dt)
        return v.astype(dt).reshape(shape)

    def region_of(shape):
        """What each writer writes: all but the last index of the first axis."""
        return (slice(0, max(shape[0] - 1, 0)),) if shape else ()
''')
_namespace: dict[str, Any] = {}
exec(VALUES_SOURCE, _namespace)  # noqa: S102  # the same source runs in zarr-python 2's process
make_values, region_of = _namespace["make_values"], _namespace["region_of"]

BLOSC_BIT = {"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0}
BLOSC_DEFAULT = {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}


def case(
    path: str,
    dtype: str,
    shape: tuple[int, ...],
    chunks: tuple[int, ...],
    *,
    compressor: Any = None,
    order: str = "C",
    fill: Any = 0,
    attrs: dict | None = None,
    separator: str = "/",
    shards: list[int] | None = None,
    filters: list[dict] | None = None,
) -> dict[str, Any]:
    return {
        "path": path,
        "dtype": dtype,
        "shape": list(shape),
        "chunks": list(chunks),
        "compressor": compressor,
        "order": order,
        "fill": fill,
        "attrs": attrs or {},
        "separator": separator,
        "shards": shards,
        "filters": filters or [],
    }


CASES = [
    case(
        "gzip_c",
        "<i4",
        (7, 5),
        (3, 2),
        compressor={"id": "gzip", "level": 4},
        fill=-1,
        attrs={"units": "K", "scale": [1, 2]},
    ),
    case("gzip_f", "<i8", (5, 4), (2, 3), compressor={"id": "gzip", "level": 1}, order="F", fill=7),
    case("blosc_f", "<f8", (6, 4), (4, 3), compressor=BLOSC_BIT, order="F", fill="NaN"),
    case("blosc_default", "<f4", (9,), (4,), compressor="default", fill="Infinity"),
    case(
        "zstd_big", ">u2", (4, 6), (3, 4), compressor={"id": "zstd", "level": 2, "checksum": False}, fill=300
    ),
    case(
        "zstd_f_big",
        ">f8",
        (5, 3),
        (2, 2),
        compressor={"id": "zstd", "level": 0, "checksum": True},
        order="F",
        fill="-Infinity",
    ),
    case("raw_f_3d", "<i2", (4, 3, 5), (3, 2, 2), order="F", fill=-5),
    case("bool", "bool", (10,), (4,), fill=True),
    case("int8", "i1", (6,), (4,), fill=-8),
    case("uint8", "u1", (6,), (4,), compressor={"id": "gzip", "level": 9}, fill=255),
    case("uint64", "<u8", (5,), (2,), fill=2**64 - 1),
    case("float16", "<f2", (5,), (3,), fill=0.5),
    case("complex64", "<c8", (4, 2), (3, 2), fill=[1.0, -1.0]),
    case("complex128_f", "<c16", (3, 4), (2, 3), order="F", fill=["NaN", 0.0]),
    case("datetime", "<M8[ns]", (4,), (3,), fill="NaT"),
    case("dots", "<i4", (4, 4), (3, 3), separator=".", fill=1),
    case("scalar", "<f8", (), (), fill=2.5),
    case(
        "delta",
        "<i4",
        (8,),
        (8,),
        filters=[{"id": "delta", "dtype": "<i4"}],
        compressor={"id": "gzip", "level": 1},
    ),
    case("grp/sharded", "<i4", (7, 9), (2, 3), shards=[2, 2], fill=-2),
    case("grp/sharded_f", "<u2", (5, 4), (2, 2), shards=[3, 1], order="F", fill=3),
    case(
        "imp/sub/leaf",
        "<f4",
        (3, 3),
        (2, 2),
        compressor={"id": "zstd", "level": 1, "checksum": False},
        fill=1.5,
    ),
]
GROUPS = {"": {"title": "draft interop", "n": 3}, "grp": {"kind": "explicit"}}
IMPLICIT = ["imp", "imp/sub"]
SPEC = {"arrays": CASES, "groups": GROUPS}


def fill_of(c: dict[str, Any]) -> Any:
    """The fill value as a numpy scalar of the case's dtype."""
    dtype = np.dtype(c["dtype"])
    special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
    value = c["fill"]
    if dtype.kind == "c":
        return np.array(complex(*(special.get(v, v) for v in value)), dtype)[()]
    if dtype.kind == "M":
        return np.array(value, dtype)[()]
    return np.array(special.get(value, value), dtype)[()]


def expected_values(c: dict[str, Any]) -> np.ndarray:
    shape = tuple(c["shape"])
    out = np.full(shape, fill_of(c), dtype=np.dtype(c["dtype"]))
    values = make_values(c["dtype"], shape)
    region = region_of(shape)
    out[region] = values[region]
    return out


def same_bits(a: Any, b: Any, dtype: np.dtype) -> bool:
    return np.asarray(a, dtype).tobytes() == np.asarray(b, dtype).tobytes()


# --------------------------------------------------------------------------------------------
# the writers and the reader


ZARR2_WRITER = """
import json, math, sys
import numcodecs, zarr
from zarr._storage.v3 import DirectoryStoreV3
from zarr._storage.v3_storage_transformers import ShardingStorageTransformer

spec = json.load(open(sys.argv[1]))
store = DirectoryStoreV3(sys.argv[2])
special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
for path, attrs in spec["groups"].items():
    zarr.group(store=store, path=path or None, zarr_version=3).attrs.update(attrs)
for c in spec["arrays"]:
    compressor = c["compressor"]
    compressor = (None if compressor is None else "default" if compressor == "default"
                  else numcodecs.get_codec(dict(compressor)))
    fill = c["fill"]
    if isinstance(fill, list):
        fill = complex(*(special.get(v, v) for v in fill))
    else:
        fill = special.get(fill, fill)
    a = zarr.create(store=store, path=c["path"], shape=tuple(c["shape"]),
                    chunks=tuple(c["chunks"]) or True, dtype=c["dtype"], order=c["order"],
                    compressor=compressor, fill_value=fill, zarr_version=3,
                    filters=[numcodecs.get_codec(dict(f)) for f in c["filters"]] or None,
                    dimension_separator="." if c["separator"] == "." else None,
                    storage_transformers=[ShardingStorageTransformer("indexed", c["shards"])]
                    if c["shards"] else ())
    a.attrs.update(c["attrs"])
    values = make_values(c["dtype"], tuple(c["shape"]))
    region = region_of(tuple(c["shape"]))
    a[region] = values[region]
"""

ZARR2_READER = f"""
import json, sys
import numpy as np, zarr
from zarr._storage.v3 import DirectoryStoreV3

spec = json.load(open(sys.argv[1]))
root = zarr.open_group(DirectoryStoreV3(sys.argv[2]), mode="r", zarr_version=3)
report = {{"arrays": {{}}, "groups": {{}}}}
for c in spec["arrays"]:
    a = root[c["path"]]
    fill = a.fill_value
    report["arrays"][c["path"]] = {{
        "type": type(a).__name__, "dtype": a.dtype.str, "shape": list(a.shape),
        "chunks": list(a.chunks), "order": a.order,
        "fill": np.array(fill, a.dtype).tobytes().hex() if fill is not None else None,
        "attrs": a.attrs.asdict(),
        "compressor": a.compressor.get_config() if a.compressor is not None else None,
        "filters": [f.get_config() for f in a.filters or []],
        "values": np.ascontiguousarray(a[...]).tobytes().hex(),
    }}
for path in [""] + sorted(set(spec["groups"]) - {{""}}) + {IMPLICIT!r}:
    g = root[path] if path else root
    report["groups"][path] = {{"type": type(g).__name__, "attrs": g.attrs.asdict(),
                              "keys": sorted(g.keys()), "group_keys": sorted(g.group_keys())}}
print(json.dumps(report))
"""


def compressor_for_zarrforge(config: Any) -> Any:
    if config is None:
        return None
    if config == "default":
        return "auto"
    options = {k: v for k, v in config.items() if k != "id"}
    return [{"codec": f"https://purl.org/zarr/spec/codec/{config['id']}/1.0", "configuration": options}]


def write_with_zarrforge(root: Path) -> None:
    fmt = Draft2022Format(dialect="zarr-python")
    for path, attrs in GROUPS.items():
        zf.create_group(str(root), path, attributes=attrs, fmt=fmt)
    for c in CASES:
        shape, chunks = tuple(c["shape"]), tuple(c["chunks"])
        kwargs: dict[str, Any] = {}
        if c["shards"]:
            kwargs["shards"] = tuple(n * k for n, k in zip(chunks, c["shards"]))
        a = zf.create_array(
            str(root),
            c["path"],
            shape=shape,
            chunks=chunks,
            dtype=c["dtype"],
            fill_value=fill_of(c),
            attributes=c["attrs"],
            chunk_key_encoding=c["separator"],
            compressors=compressor_for_zarrforge(c["compressor"]),
            filters=[
                {"name": f"numcodecs.{f['id']}", "configuration": {k: v for k, v in f.items() if k != "id"}}
                for f in c["filters"]
            ]
            or None,
            fmt=Draft2022Format(dialect="zarr-python", chunk_memory_layout=c["order"]),
            **kwargs,
        )
        values = make_values(c["dtype"], shape)
        region = region_of(shape)
        a[region] = values[region]
    # zarrforge's API creates missing parents as explicit groups; the draft lets them be implied
    for path in IMPLICIT:
        (root / "meta" / "root" / f"{path}.group.json").unlink()


@pytest.fixture(scope="module")
def trees(zarr2: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("draft2022-interop")
    spec = base / "spec.json"
    spec.write_text(json.dumps(SPEC))
    run_zarr2(zarr2, ZARR2_WRITER, str(spec), str(base / "by-zarr2"), cwd=base)
    write_with_zarrforge(base / "by-zarrforge")
    return {"zarr2": base / "by-zarr2", "zarrforge": base / "by-zarrforge", "spec": spec}


@pytest.fixture(scope="module")
def zarr2_report(zarr2: Path, trees: dict[str, Path]) -> dict[str, Any]:
    out = run_zarr2(
        zarr2, ZARR2_READER, str(trees["spec"]), str(trees["zarrforge"]), cwd=trees["spec"].parent
    )
    return json.loads(out)


def expected_compressor(c: dict[str, Any]) -> Any:
    if c["compressor"] == "default":
        return BLOSC_DEFAULT
    if c["compressor"] is None and not c["shape"]:
        return None
    return c["compressor"]


IDS = [c["path"] for c in CASES]


# --------------------------------------------------------------------------------------------
# zarr-python 2.18 writes, zarrforge reads


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_zarrforge_reads_what_zarr2_wrote(trees, c):
    a = zf.open_array(str(trees["zarr2"]), c["path"])
    assert a.format.name == "draft-2022"
    dtype = np.dtype(c["dtype"])
    assert a.dtype == dtype.newbyteorder("=")
    assert a.shape == tuple(c["shape"]) and a.chunks == tuple(c["chunks"])
    assert same_bits(a.fill_value, fill_of(c), dtype)
    assert dict(a.attrs) == c["attrs"]  # zarr-python's attributes["filters"] became codecs
    assert same_bits(a[...], expected_values(c), dtype)
    names = [k.to_json()["name"] for k in a.codecs]
    assert (names[0] == "transpose") == (c["order"] == "F")
    if c["shards"]:
        assert a.metadata["storage_transformers"] == [
            {"extension": SHARDING, "type": "indexed", "configuration": {"chunks_per_shard": c["shards"]}}
        ]


def test_zarrforge_reads_zarr2_groups(trees):
    root = zf.open_group(str(trees["zarr2"]), mode="r")
    assert dict(root.attrs) == GROUPS[""]
    assert dict(root["grp"].attrs) == GROUPS["grp"]
    for path in IMPLICIT:  # zarr-python 2 creates no parents in v3 mode
        assert not (trees["zarr2"] / "meta" / "root" / f"{path}.group.json").exists()
        group = zf.open_group(str(trees["zarr2"]), path, mode="r")
        assert dict(group.attrs) == {}
    assert root.keys() == sorted({p.split("/")[0] for p in IDS})
    assert zf.open_group(str(trees["zarr2"]), "imp/sub", mode="r").keys() == ["leaf"]


# --------------------------------------------------------------------------------------------
# zarrforge writes, zarr-python 2.18 reads


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_zarr2_reads_what_zarrforge_wrote(zarr2_report, c):
    got = zarr2_report["arrays"][c["path"]]
    dtype = np.dtype(c["dtype"])
    assert got["type"] == "Array"
    assert got["dtype"] == dtype.str
    assert got["shape"] == c["shape"]
    assert got["chunks"] == (c["chunks"] or [])
    assert got["order"] == c["order"]
    assert got["fill"] == np.array(fill_of(c), dtype).tobytes().hex()
    assert {k: v for k, v in got["attrs"].items() if k != "filters"} == c["attrs"]
    assert got["compressor"] == expected_compressor(c)
    assert got["filters"] == [numcodecs.get_codec(dict(f)).get_config() for f in c["filters"]]
    assert bytes.fromhex(got["values"]) == expected_values(c).tobytes()


def test_zarr2_reads_zarrforge_groups(zarr2_report):
    groups = zarr2_report["groups"]
    assert groups[""]["attrs"] == GROUPS[""]
    assert groups[""]["keys"] == sorted({p.split("/")[0] for p in IDS})
    assert groups["grp"]["attrs"] == GROUPS["grp"]
    assert groups["grp"]["keys"] == ["sharded", "sharded_f"]
    for path in IMPLICIT:
        assert groups[path]["type"] == "Group" and groups[path]["attrs"] == {}
    assert groups["imp"]["group_keys"] == ["sub"]
    assert groups["imp/sub"]["keys"] == ["leaf"]


# --------------------------------------------------------------------------------------------
# the two trees side by side


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)).replace(os.sep, "/"): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_both_implementations_store_the_same_keys(trees):
    assert sorted(files(trees["zarr2"])) == sorted(files(trees["zarrforge"]))


def test_metadata_documents_are_byte_identical(trees):
    ours, theirs = files(trees["zarrforge"]), files(trees["zarr2"])
    documents = [k for k in theirs if k == "zarr.json" or k.startswith("meta/")]
    assert len(documents) == 1 + len(CASES) + len(GROUPS)
    for key in documents:
        assert ours[key] == theirs[key], key


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_chunks_match(trees, c):
    ours, theirs = files(trees["zarrforge"]), files(trees["zarr2"])
    prefix = f"data/root/{c['path']}/"
    keys = sorted(k for k in theirs if k.startswith(prefix))
    assert keys and keys == sorted(k for k in ours if k.startswith(prefix))
    compressor = expected_compressor(c)
    for key in keys:
        if c["shards"]:
            # the same chunks and the same index semantics; the order of the chunks inside a
            # shard is the writer's choice (zarr-python appends, zarrforge sorts)
            assert inner_chunks(ours[key], c["shards"]) == inner_chunks(theirs[key], c["shards"])
        elif compressor is None:
            assert ours[key] == theirs[key], key
        else:
            codec = numcodecs.get_codec(dict(compressor))
            assert bytes(codec.decode(ours[key])) == bytes(codec.decode(theirs[key])), key


def inner_chunks(shard: bytes, chunks_per_shard: list[int]) -> dict[tuple[int, ...], bytes]:
    """The chunks of a shard by their position in it, read through its index."""
    n = int(np.prod(chunks_per_shard))
    index = np.frombuffer(shard[-16 * n :], "<u8").reshape(*chunks_per_shard, 2)
    found = {}
    for position in np.ndindex(*chunks_per_shard):
        offset, length = (int(v) for v in index[position])
        if (offset, length) != (2**64 - 1, 2**64 - 1):
            assert offset + length <= len(shard) - 16 * n
            found[position] = shard[offset : offset + length]
    return found
