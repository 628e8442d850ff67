"""zarr-python codecs registered at run time (``zarr.registry.register_codec``) reach zarrforge
below its own codecs (zarrforge-zarr-python's catch-all family ``*``, installed here as this
checkout declares it). The entry-point route and zarr-python 3.4.2 are covered by
``tests/interop/test_codec_bridge_peers.py``."""

from __future__ import annotations

import importlib
import json
import os
import pickle
import subprocess
import sys
import textwrap
import tomllib
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import zarr
from zarr.abc.codec import BytesBytesCodec as ZarrBytesBytesCodec
from zarr.registry import register_codec

import zarrforge as zf
from zarrforge import registry
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.errors import MetadataError, UnknownExtensionError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def bridge(fake_distribution):
    """zarrforge-zarr-python with the entry points this checkout declares."""
    project = tomllib.loads((ROOT / "plugins" / "zarr-python" / "pyproject.toml").read_text())
    fake_distribution("zarrforge-zarr-python", project["project"]["entry-points"])


def xor_class(name: str) -> type:
    """An outside author's zarr-python codec named ``name``: xor with ``key``, async only."""

    @dataclass(frozen=True)
    class Xor(ZarrBytesBytesCodec):
        key: int = 0x5A
        is_fixed_size = True

        @classmethod
        def from_dict(cls, data):
            configuration = data.get("configuration", {})
            if set(configuration) - {"key"}:
                raise ValueError(f"unknown settings {sorted(set(configuration) - {'key'})}")
            return cls(**configuration)

        def to_dict(self):
            return {"name": name, "configuration": {"key": self.key}}

        async def _encode_single(self, chunk, spec):
            data = np.frombuffer(chunk.to_bytes(), "u1") ^ np.uint8(self.key)
            return spec.prototype.buffer.from_bytes(data.tobytes())

        _decode_single = _encode_single

        def compute_encoded_size(self, input_byte_length, spec):
            return input_byte_length

    return Xor


def fresh_name() -> str:
    return f"test.zp-xor-{uuid.uuid4().hex[:8]}"  # zarr-python's registry has no unregister


def test_a_codec_registered_with_zarr_python_is_written_and_read_by_zarrforge(bridge, tmp_path):
    name = fresh_name()
    assert name not in registry.codecs
    register_codec(name, xor_class(name))
    assert name in registry.codecs
    codec = {"name": name, "configuration": {"key": 7}}
    data = np.arange(10, dtype="int32")
    ours = zf.create_array(str(tmp_path / "zf"), shape=(10,), chunks=(5,), dtype="int32", compressors=[codec])
    ours[:] = data
    theirs = zarr.create_array(
        str(tmp_path / "zp"), shape=(10,), chunks=(5,), dtype="int32", compressors=[codec]
    )
    theirs[:] = data
    for key in ("c/0", "c/1"):
        stored = (tmp_path / "zf" / key).read_bytes()
        assert stored == (tmp_path / "zp" / key).read_bytes()
        assert stored != data[:5].tobytes()  # the codec ran
    assert ours.metadata["codecs"][1] == codec
    assert zf.open_array(str(tmp_path / "zp"))[:].tolist() == data.tolist()
    assert zarr.open_array(str(tmp_path / "zf"))[:].tolist() == data.tolist()


def test_a_zarrforge_codec_of_the_same_name_wins(bridge):
    name = fresh_name()
    register_codec(name, xor_class(name))
    assert registry.codecs.get(name).__module__ == "zarrforge_zarr_python.codec_adapter"

    class Ours(BytesBytesCodec):
        @classmethod
        def from_json(cls, name, configuration):
            return cls()

        def to_json(self):
            return {"name": name}

        def encode(self, data):
            return bytes(data)

        decode = encode

    zf.register("codecs", name, Ours)
    try:
        assert registry.codecs.get(name) is Ours
    finally:
        registry.codecs.unregister(name)
    # zarr-python's gzip is there too; zarrforge-numcodecs' answers
    assert registry.codecs.get("gzip").__module__ == "zarrforge_numcodecs.gzip_codec"


def test_a_name_neither_engine_has_stays_unknown(bridge):
    name = fresh_name()
    with pytest.raises(UnknownExtensionError) as info:
        zf.create_array(None, shape=(2,), dtype="int8", compressors=[{"name": name}])
    assert "zarrforge-zarr-python" not in str(info.value)  # no install hint for the catch-all


def test_a_configuration_zarr_python_rejects_names_the_field(bridge):
    name = fresh_name()
    register_codec(name, xor_class(name))
    with pytest.raises(MetadataError) as info:
        zf.create_array(
            None, shape=(2,), dtype="int8", compressors=[{"name": name, "configuration": {"salt": 1}}]
        )
    assert info.value.field.endswith("configuration") and "salt" in str(info.value)


# --- zarrforge codecs in zarr-python (zarrforge_zarr_python.codec_bridge) --------------------

EXAMPLE = ROOT / "examples" / "third-party-plugin"
PROJECTS = [ROOT / "plugins" / "std", ROOT / "plugins" / "zarr-python", EXAMPLE]


def test_the_bridge_class_is_named_after_the_codec_and_pickles_by_reference():
    from zarrforge_zarr_python import codec_bridge

    cls = codec_bridge.zarr_codec_class("zf_example.bitround")
    assert cls.__name__ == cls.__qualname__ == "Zarrforge_zf_example_bitround"
    assert cls.__module__ == "zarrforge_zarr_python.codec_bridge"
    assert codec_bridge.Zarrforge_zf_example_bitround is cls
    assert pickle.loads(pickle.dumps(cls)) is cls
    codec = cls.from_dict({"name": "zf_example.bitround", "configuration": {"keepbits": 4}})
    assert repr(codec).startswith("Zarrforge_zf_example_bitround(")
    assert pickle.loads(pickle.dumps(codec)) == codec
    assert codec_bridge.class_name("a-b.c/d") == "Zarrforge_a_b_c_d"
    with pytest.raises(AttributeError, match="Zarrforge_<codec name>"):
        codec_bridge.Zarrforge_no_such_codec


def test_the_example_declares_a_zarr_codecs_entry_point_naming_its_bridge_class():
    from zarrforge_zarr_python import zarr_codec_class

    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    declared = project["entry-points"]["zarr.codecs"]
    assert set(declared) == set(project["entry-points"]["zarrforge.codecs"])
    for name, target in declared.items():
        module, _, attribute = target.partition(":")
        assert getattr(importlib.import_module(module), attribute) is zarr_codec_class(name)
    assert "zarrforge-zarr-python" in project["optional-dependencies"]["zarr"]


def _run_fresh(tmp_path: Path, source: str) -> dict:
    """``source`` run by this environment's python in a fresh process (a fresh zarr-python
    registry), with this checkout's sources and its projects' entry points as declared in
    their ``pyproject.toml`` (shadowing the installed ones); the JSON it prints last."""
    site = tmp_path / "site"
    for project in PROJECTS:
        metadata = tomllib.loads((project / "pyproject.toml").read_text())["project"]
        info = site / f"{metadata['name'].replace('-', '_')}-0.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {metadata['name']}\nVersion: 0.0\n")
        (info / "entry_points.txt").write_text(
            "".join(
                f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in entries.items())
                for group, entries in metadata.get("entry-points", {}).items()
            )
        )
    paths = [str(site), str(ROOT / "core" / "src"), *(str(p / "src") for p in PROJECTS)]
    script = tmp_path / "case.py"
    script.write_text(f"import sys\nsys.path[:0] = {paths!r}\n" + textwrap.dedent(source))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_zarr_python_reads_the_example_codec_through_its_entry_point_with_no_call(tmp_path):
    result = _run_fresh(
        tmp_path,
        f"""
        import json, warnings
        import numpy as np
        warnings.simplefilter("error")  # two classes for one name would warn in zarr-python
        import zarr
        import zarrforge as zf

        data = (np.linspace(-1, 1, 12, dtype="float32") * np.float32(3.3)).reshape(3, 4)
        ours = zf.create_array({str(tmp_path / "zf")!r}, shape=(3, 4), chunks=(2, 2),
                               dtype="float32", compressors=None,
                               filters=[{{"name": "zf_example.bitround",
                                          "configuration": {{"keepbits": 4}}}}])
        ours[:] = data
        theirs = zarr.open_array({str(tmp_path / "zf")!r}, mode="r")
        print(json.dumps({{
            "read": theirs[:].tolist(), "written": ours[:].tolist(),
            "rounded": bool((ours[:] != data).any()),
            "filter": type(theirs.filters[0]).__name__,
        }}))
    """,
    )
    assert result["rounded"] and result["read"] == result["written"]
    assert result["filter"] == "Zarrforge_zf_example_bitround"


def test_register_with_zarr_leaves_names_a_zarr_codecs_entry_point_declares_alone(tmp_path):
    result = _run_fresh(
        tmp_path,
        """
        import json, warnings
        warnings.simplefilter("error")
        from zarr.registry import get_codec_class
        from zarrforge_zarr_python import register_with_zarr
        import zf_example.zarr_codecs

        registered = register_with_zarr()
        print(json.dumps({
            "registered": registered,
            "entry_point_class": get_codec_class("zf_example.bitround")
                                 is zf_example.zarr_codecs.BitRound,
        }))
    """,
    )
    assert "zf_example.bitround" not in result["registered"]
    assert result["registered"]  # the names no entry point declares are still registered
    assert result["entry_point_class"]
