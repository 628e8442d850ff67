"""zarr-python codecs registered at run time (``zarr.registry.register_codec``) reach zarrforge
below its own codecs (zarrforge-zarr-python's catch-all family ``*``, installed here as this
checkout declares it). The entry-point route and zarr-python 3.4.2 are covered by
``tests/interop/test_codec_bridge_peers.py``."""

from __future__ import annotations

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
    ours = zf.create_array(str(tmp_path / "zf"), shape=(10,), chunks=(5,), dtype="int32",
                           compressors=[codec])
    ours[:] = data
    theirs = zarr.create_array(str(tmp_path / "zp"), shape=(10,), chunks=(5,), dtype="int32",
                               compressors=[codec])
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
        zf.create_array(None, shape=(2,), dtype="int8",
                        compressors=[{"name": name, "configuration": {"salt": 1}}])
    assert info.value.field.endswith("configuration") and "salt" in str(info.value)
