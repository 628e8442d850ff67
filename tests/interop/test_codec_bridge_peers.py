"""One codec for every engine, against zarr-python 3.1 (this environment) and 3.4.2.

Each case runs in a subprocess of the peer's environment (this one's python, and the
zarr-python 3.4.2 environment of ``_side_venv.ensure_zarr34_venv``), on a ``sys.path``
made here: distributions written as an outside author's would be installed (a
``*.dist-info`` with entry points; zarrforge's own read from this checkout's
``pyproject.toml`` files, so entry points not yet installed are seen), the sources of
this checkout, and, for the 3.4.2 environment, which holds zarr-python alone, the pure
Python packages zarrforge needs, taken from this environment.

* a codec written only for zarr-python 3 (``zarr.abc.codec``, async methods, installed
  through zarr-python's ``zarr.codecs`` entry-point group) is written and read by
  zarrforge, with the same chunk bytes zarr-python writes;
* the example third-party zarrforge codec (``examples/third-party-plugin``) is written and
  read by zarr-python with no call (its distribution's ``zarr.codecs`` entry point names
  the bridge class), with the same chunk bytes zarrforge writes;
* ``register_with_zarr()`` registers no name zarr-python already has (the example codec's,
  declared by that entry point, included).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from _side_venv import ensure_zarr34_venv

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = [
    ROOT / "plugins" / "std",
    ROOT / "plugins" / "zarr-python",
    ROOT / "examples" / "third-party-plugin",
]
PURE_DEPENDENCIES = ("pluggy", "importlib_metadata", "zipp", "lazy_importer")


def write_distribution(site: Path, name: str, entry_points: dict[str, dict[str, str]]) -> None:
    info = site / f"{name.replace('-', '_')}-0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0\n")
    lines = []
    for group, entries in entry_points.items():
        lines.append(f"[{group}]")
        lines += [f"{key} = {value}" for key, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


OUTSIDE_CODEC = '''
"""An outside author's zarr-python 3 codec: negates integers (array -> array), async only."""
from dataclasses import dataclass

import numpy as np
from zarr.abc.codec import ArrayArrayCodec


@dataclass(frozen=True)
class Negate(ArrayArrayCodec):
    is_fixed_size = True

    @classmethod
    def from_dict(cls, data):
        return cls()

    def to_dict(self):
        return {"name": "outside.negate"}

    async def _encode_single(self, chunk, spec):
        return chunk.__class__.from_numpy_array(-chunk.as_numpy_array())

    async def _decode_single(self, chunk, spec):
        return chunk.__class__.from_numpy_array(-chunk.as_numpy_array())

    def compute_encoded_size(self, input_byte_length, spec):
        return input_byte_length
'''


@pytest.fixture(params=["zarr-python 3.1 (this environment)", "zarr-python 3.4.2"])
def peer(request, tmp_path):
    """``run(source) -> JSON printed`` in the peer's environment, on the path made here."""
    if request.param.endswith("3.4.2"):
        try:
            python, side = str(ensure_zarr34_venv()), True
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            pytest.fail(f"zarr-python 3.4.2 could not be set up: {exc}")
    else:
        python, side = sys.executable, False
    site = tmp_path / "site"
    for project in PROJECTS:
        metadata = tomllib.loads((project / "pyproject.toml").read_text())["project"]
        write_distribution(site, metadata["name"], metadata.get("entry-points", {}))
    write_distribution(site, "zp-outside-codec", {"zarr.codecs": {"outside.negate": "outside_negate:Negate"}})
    (site / "outside_negate.py").write_text(OUTSIDE_CODEC)
    paths = [site, ROOT / "core" / "src", *(project / "src" for project in PROJECTS)]
    if side:
        deps = tmp_path / "deps"
        deps.mkdir()
        for module in PURE_DEPENDENCIES:
            spec = importlib.util.find_spec(module)
            if spec is None:  # an importlib_metadata that does not need it
                continue
            origin = Path(spec.origin)
            package = spec.submodule_search_locations is not None
            (deps / (module if package else origin.name)).symlink_to(origin.parent if package else origin)
        paths.append(deps)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    prelude = f"import sys\nsys.path[:0] = {[str(p) for p in paths]!r}\n"

    def run(source: str) -> dict:
        script = tmp_path / "case.py"
        script.write_text(prelude + textwrap.dedent(source))
        done = subprocess.run(
            [python, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
        )
        assert done.returncode == 0, f"{request.param}:\n{done.stdout}\n{done.stderr}"
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run


def test_a_zarr_python_only_codec_is_read_and_written_by_zarrforge(peer, tmp_path):
    result = peer(f"""
        import json
        import numpy as np
        import zarr
        import zarrforge as zf
        from zarrforge_zarr_python.codec_adapter import ZarrPythonCodec

        data = np.arange(-6, 6, dtype="int16").reshape(3, 4)
        codec = {{"name": "outside.negate"}}
        theirs = zarr.create_array({str(tmp_path / "zp")!r}, shape=(3, 4), chunks=(2, 2),
                                   dtype="int16", filters=[codec], compressors=None)
        theirs[:] = data
        ours = zf.create_array({str(tmp_path / "zf")!r}, shape=(3, 4), chunks=(2, 2),
                               dtype="int16", filters=[codec], compressors=None)
        ours[:] = data
        chunks = sorted(p.relative_to({str(tmp_path / "zp")!r}).as_posix()
                        for p in __import__("pathlib").Path({str(tmp_path / "zp")!r}).rglob("c/*/*"))
        same = all(open({str(tmp_path / "zp")!r} + "/" + c, "rb").read()
                   == open({str(tmp_path / "zf")!r} + "/" + c, "rb").read() for c in chunks)
        print(json.dumps({{
            "zarr": zarr.__version__,
            "adapter": isinstance(zf.registry.codecs.get("outside.negate"), type)
                       and zf.registry.codecs.get("outside.negate") is ZarrPythonCodec,
            "codecs": ours.metadata["codecs"],
            "chunks": chunks, "same_bytes": same,
            "zarrforge_reads_zarr": zf.open_array({str(tmp_path / "zp")!r})[:].tolist(),
            "zarr_reads_zarrforge": zarr.open_array({str(tmp_path / "zf")!r})[:].tolist(),
            "stored_negated": np.frombuffer(open({str(tmp_path / "zf")!r} + "/c/0/0", "rb").read(),
                                            "<i2").tolist(),
        }}))
    """)
    expected = [[-6, -5, -4, -3], [-2, -1, 0, 1], [2, 3, 4, 5]]
    assert result["adapter"] is True
    assert result["codecs"][0] == {"name": "outside.negate"}
    assert result["chunks"] == ["c/0/0", "c/0/1", "c/1/0", "c/1/1"] and result["same_bytes"]
    assert result["stored_negated"] == [6, 5, 2, 1]
    assert result["zarrforge_reads_zarr"] == expected == result["zarr_reads_zarrforge"]


def test_the_example_zarrforge_codec_is_read_and_written_by_zarr_python_with_no_call(peer, tmp_path):
    result = peer(f"""
        import json
        import numpy as np
        import zarr
        import zarrforge as zf

        data = (np.linspace(-1, 1, 12, dtype="float32") * np.float32(3.3)).reshape(3, 4)
        codec = {{"name": "zf_example.bitround", "configuration": {{"keepbits": 4}}}}
        theirs = zarr.create_array({str(tmp_path / "zp")!r}, shape=(3, 4), chunks=(2, 2),
                                   dtype="float32", filters=[codec], compressors=None)
        theirs[:] = data
        ours = zf.create_array({str(tmp_path / "zf")!r}, shape=(3, 4), chunks=(2, 2),
                               dtype="float32", filters=[codec], compressors=None)
        ours[:] = data
        keys = ["c/0/0", "c/0/1", "c/1/0", "c/1/1"]
        read = lambda root, key: open(root + "/" + key, "rb").read()
        print(json.dumps({{
            "zarr_codecs": theirs.metadata.to_dict()["codecs"],
            "same_bytes": [read({str(tmp_path / "zp")!r}, k) == read({str(tmp_path / "zf")!r}, k)
                           for k in keys],
            "zarrforge_reads_zarr": zf.open_array({str(tmp_path / "zp")!r})[:].tolist(),
            "zarr_reads_zarrforge": zarr.open_array({str(tmp_path / "zf")!r})[:].tolist(),
            "zarrforge_wrote": ours[:].tolist(),
            "rounded": bool((ours[:] != data).any()),
        }}))
    """)
    assert result["zarr_codecs"][0] == {"name": "zf_example.bitround", "configuration": {"keepbits": 4}}
    assert result["same_bytes"] == [True] * 4
    assert result["rounded"]  # keepbits 4 changes these values: the codec ran
    assert result["zarrforge_reads_zarr"] == result["zarr_reads_zarrforge"] == result["zarrforge_wrote"]


def test_register_with_zarr_leaves_every_name_zarr_python_has_alone(peer):
    result = peer("""
        import json
        import warnings
        import zarr
        from zarr.registry import get_codec_class
        import zarrforge as zf
        from zarrforge_zarr_python import register_with_zarr

        def zarr_class(name):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return get_codec_class(name)
            except (KeyError, zarr.errors.UnknownCodecError):
                return None

        names = [n for n in zf.registry.codecs.names() if not n.endswith("*")]
        before = {n: zarr_class(n) for n in names}
        registered = register_with_zarr()
        had = sorted(n for n, cls in before.items() if cls is not None)
        print(json.dumps({
            "zarr": zarr.__version__,
            "had": had,
            "registered": registered,
            "unchanged": [n for n in had if zarr_class(n) is before[n]],
            "missing_registered": sorted(n for n, cls in before.items() if cls is None),
        }))
    """)
    # names both engines have (the 3.4.2 environment holds zarrforge-std's codecs, not
    # zarrforge-numcodecs')
    assert {"bytes", "transpose"} <= set(result["had"])
    if result["zarr"].startswith("3.4"):
        assert {"cast_value", "scale_offset"} <= set(result["had"])
    assert result["unchanged"] == result["had"]
    assert not set(result["registered"]) & set(result["had"])
    assert sorted(result["registered"]) == result["missing_registered"]
    # the example's own zarr.codecs entry point gives zarr-python its codec
    assert "zf_example.bitround" in result["had"]
    assert "zf_example.bitround" not in result["registered"]
