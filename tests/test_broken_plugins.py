"""No plugin can break the library (issue #30).

For each of the ten extension points a broken plugin is installed beside the built-ins as
a fake distribution: one that fails to import, one that raises where it is asked about
other data (detection, ``claims``, a numpy dtype, a hook), one that raises or returns
garbage on its own data. Everything that does not need it keeps working, with at most one
``PluginFailureWarning`` per plugin naming its distribution and entry point; data that
needs it fails with a zarrforge error naming the plugin, never a bare traceback.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import hooks
from zarrforge.errors import (
    NodeNotFoundError,
    PluginFailureError,
    PluginFailureWarning,
    PluginLoadError,
    UnknownExtensionError,
)
from zarrforge.registries import plugin_failures
from zarrforge_std.stores.memory import MemoryStore

CODECS = """
from zarrforge.abc.codec import BytesBytesCodec

class _Codec(BytesBytesCodec):
    @classmethod
    def from_json(cls, name, configuration):
        return cls()
    def to_json(self):
        return {"name": self.name}
    def decode(self, data):
        return data

class Raises(_Codec):
    name = "broken.raises"
    def encode(self, data):
        raise RuntimeError("a bug in encode")

class Garbage(_Codec):
    name = "broken.garbage"
    def encode(self, data):
        return None

class DecodeRaises(_Codec):
    name = "broken.decode"
    def encode(self, data):
        return data
    def decode(self, data):
        raise AttributeError("a bug in decode")

class Short(_Codec):
    name = "broken.short"
    def encoded_size(self, decoded_size):
        return decoded_size + 4  # as a checksum would
    def encode(self, data):
        return bytes(data) + b"abc"  # one byte fewer than declared

class Family(_Codec):
    name = "broken.*"
    @classmethod
    def claims(cls, name):
        raise TypeError("a bug in claims")
    def encode(self, data):
        return data
"""

ARRAY_DOCUMENT = {
    "zarr_format": 3,
    "node_type": "array",
    "shape": [4],
    "data_type": "int8",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
    "chunk_key_encoding": {"name": "default"},
    "fill_value": 0,
    "codecs": [{"name": "bytes"}],
}


@pytest.fixture(autouse=True)
def fresh_failures(monkeypatch):
    """Each test sees its own first warning for each plugin."""
    monkeypatch.setattr(plugin_failures, "_warned", set())


def _failure_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, PluginFailureWarning)]


def _zstd_array_works() -> None:
    array = zf.create_array(MemoryStore(), shape=(6,), chunks=(3,), dtype="int16", compressors="zstd")
    array[...] = np.arange(6)
    np.testing.assert_array_equal(zf.open_array(array.store)[...], np.arange(6))


def _store_with(document: dict) -> MemoryStore:
    store = MemoryStore()
    store.set("zarr.json", json.dumps(document).encode())
    return store


def test_a_codec_encoding_to_another_size_than_it_declared_is_refused_before_storing(fake_distribution):
    """A codec whose output disagrees with its ``encoded_size()`` used to be stored, and
    the chunk then read as corrupt, blamed on the data (issue #41)."""
    fake_distribution(
        "zf-short-codec",
        {"zarrforge.codecs": {"broken.short": "zfshort_codec:Short"}},
        {"zfshort_codec": CODECS},
    )
    store = MemoryStore()
    array = zf.create_array(
        store, shape=(4,), chunks=(2,), dtype="int8", fill_value=0, compressors="broken.short"
    )
    before = {key: store.get(key) for key in store.list()}
    with pytest.raises(
        PluginFailureError,
        match=r"codec plugin 'broken.short'.*zf-short-codec"
        r".*encode returned 5 bytes where its encoded_size\(\) declared 6",
    ) as info:
        array[...] = 1
    assert info.value.point == "codec" and info.value.name == "broken.short"
    assert {key: store.get(key) for key in store.list()} == before  # nothing stored


def test_broken_codecs_do_not_stop_other_codecs_and_name_themselves(fake_distribution):
    fake_distribution(
        "zf-broken-codecs",
        {
            "zarrforge.codecs": {
                "broken.gone": "no_such_module_zf:Codec",
                "broken.raises": "zfbroken_codecs:Raises",
                "broken.garbage": "zfbroken_codecs:Garbage",
                "broken.decode": "zfbroken_codecs:DecodeRaises",
                "broken.*": "zfbroken_codecs:Family",
            }
        },
        {"zfbroken_codecs": CODECS},
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _zstd_array_works()
    assert _failure_warnings(caught) == []

    with pytest.raises(PluginLoadError, match="broken.gone.*zf-broken-codecs"):
        zf.create_array(MemoryStore(), shape=(2,), dtype="int8", compressors="broken.gone")
    for name, said in (
        ("broken.raises", "RuntimeError: a bug in encode"),
        ("broken.garbage", "encode returned NoneType, not bytes"),
    ):
        array = zf.create_array(MemoryStore(), shape=(2,), dtype="int8", compressors=name)
        with pytest.raises(
            PluginFailureError, match=f"codec plugin '{name}'.*zfbroken_codecs.*zf-broken-codecs.*{said}"
        ) as info:
            array[...] = 1
        assert info.value.point == "codec" and info.value.name == name
    array = zf.create_array(MemoryStore(), shape=(2,), chunks=(2,), dtype="int8", compressors="broken.decode")
    array[...] = 3
    with pytest.raises(PluginFailureError, match="'broken.decode'.*AttributeError") as info:
        array[...]
    assert info.value.key == "c/0"

    # the family's claims() raises: it claims nothing, once warned, and zstd is untouched
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            with pytest.raises(UnknownExtensionError, match="broken.other"):
                zf.create_array(MemoryStore(), shape=(2,), dtype="int8", compressors="broken.other")
        _zstd_array_works()
    said = _failure_warnings(caught)
    assert len(said) == 1 and "'broken.*'" in said[0] and "zf-broken-codecs" in said[0]
    assert "TypeError: a bug in claims" in said[0]


DATA_TYPES = """
from zarrforge.abc.data_type import DataType

class Asks(DataType):
    name = "broken.dtype"
    @classmethod
    def from_json(cls, name, configuration):
        raise RuntimeError("a bug in from_json")
    @classmethod
    def from_numpy_dtype(cls, np_dtype):
        raise TypeError("a bug in from_numpy_dtype")
"""


def test_broken_data_types_are_left_out_of_numpy_dtype_lookups(fake_distribution):
    fake_distribution(
        "zf-broken-dtypes",
        {
            "zarrforge.data_types": {
                "broken.dtype": "zfbroken_dtypes:Asks",
                "broken.gone": "no_such_module_zf:Type",
            }
        },
        {"zfbroken_dtypes": DATA_TYPES},
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):  # a dtype numpy names as no registered type: every type is asked
            array = zf.create_array(MemoryStore(), shape=(2,), dtype="M8[s]")
            array[...] = np.array(["2024-01-01", "2024-01-02"], dtype="M8[s]")
        _zstd_array_works()
    said = _failure_warnings(caught)
    assert len(said) == 2, said
    assert any("'broken.dtype'" in s and "zf-broken-dtypes" in s and "a bug in" in s for s in said)
    assert any("'broken.gone'" in s and "no_such_module_zf" in s for s in said)
    assert array.metadata["data_type"]["name"] == "numpy.datetime64"

    with pytest.raises(
        PluginFailureError, match="data type plugin 'broken.dtype'.*zf-broken-dtypes.*a bug in from_json"
    ):
        zf.open_array(_store_with({**ARRAY_DOCUMENT, "data_type": "broken.dtype"}))


def _broken_extension_point(fake_distribution, group: str, module: str, base: str, name: str) -> None:
    """Install ``name`` at ``group``: a subclass of ``base`` whose ``from_json`` raises,
    and ``<name>-gone``, whose module does not exist."""
    source = f"""
from {module} import {base}

class Broken({base}):
    @classmethod
    def from_json(cls, name, configuration, *args):
        raise RuntimeError("a bug in from_json")
"""
    module_name = "zfbroken_" + name.replace(".", "_")
    fake_distribution(
        f"zf-broken-{name}",
        {group: {name: f"{module_name}:Broken", f"{name}-gone": "no_such_module_zf:Broken"}},
        {module_name: source},
    )


@pytest.mark.parametrize(
    "field, group, module, base",
    [
        ("chunk_grid", "zarrforge.chunk_grids", "zarrforge.abc.chunk_grid", "ChunkGrid"),
        (
            "chunk_key_encoding",
            "zarrforge.chunk_key_encodings",
            "zarrforge.abc.chunk_key_encoding",
            "ChunkKeyEncoding",
        ),
        (
            "storage_transformers",
            "zarrforge.storage_transformers",
            "zarrforge.abc.storage_transformer",
            "StorageTransformer",
        ),
        ("extensions", "zarrforge.extensions", "zarrforge.abc.extension", "Extension"),
    ],
)
def test_a_broken_grid_key_encoding_transformer_or_extension_fails_only_its_arrays(
    fake_distribution, field, group, module, base
):
    name = f"broken.{field}"
    _broken_extension_point(fake_distribution, group, module, base, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _zstd_array_works()
        np.testing.assert_array_equal(zf.open_array(_store_with(ARRAY_DOCUMENT))[...], [0] * 4)
    assert _failure_warnings(caught) == []

    def naming(entry_name: str) -> dict:
        entry = {"name": entry_name, "configuration": {}}
        listed = field in ("storage_transformers", "extensions")
        return {**ARRAY_DOCUMENT, field: [entry] if listed else entry}

    with pytest.raises(PluginFailureError, match=f"plugin '{name}'.*zf-broken-{name}.*a bug in from_json"):
        zf.open_array(_store_with(naming(name)))
    with pytest.raises(PluginLoadError, match=f"{name}-gone.*zf-broken-{name}"):
        zf.open_array(_store_with(naming(f"{name}-gone")))


LAYOUTS = """
from zarrforge.abc.memory_layout import MemoryLayout

class Broken(MemoryLayout):
    name = "broken.layout"
    def __init__(self):
        raise RuntimeError("a bug in __init__")
    def empty(self, shape, dtype):
        raise AssertionError("never built")
    def linearize(self, array):
        return array.ravel()
    def delinearize(self, flat, shape):
        return flat.reshape(shape)
"""


def test_a_broken_memory_layout_fails_only_the_arrays_asking_for_it(fake_distribution):
    fake_distribution(
        "zf-broken-layouts",
        {
            "zarrforge.memory_layouts": {
                "broken.layout": "zfbroken_layouts:Broken",
                "broken.gone": "no_such_module_zf:L",
            }
        },
        {"zfbroken_layouts": LAYOUTS},
    )
    for order in ("C", "F"):
        array = zf.create_array(MemoryStore(), shape=(2, 3), dtype="int8", order=order)
        array[...] = np.arange(6).reshape(2, 3)
        np.testing.assert_array_equal(array[...], np.arange(6).reshape(2, 3))
    with pytest.raises(
        PluginFailureError, match="memory layout plugin 'broken.layout'.*zf-broken-layouts.*a bug in __init__"
    ):
        zf.create_array(
            MemoryStore(), shape=(2,), dtype="int8", order="broken.layout", zarr_format="draft-2022"
        )
    with pytest.raises(PluginLoadError, match="broken.gone.*zf-broken-layouts"):
        zf.create_array(
            MemoryStore(), shape=(2,), dtype="int8", order="broken.gone", zarr_format="draft-2022"
        )


FORMATS = """
from zarrforge_std.format_v3 import V3Format

class Broken(V3Format):
    name = "broken-fmt"
    def read_document(self, store, path):
        raise TypeError("the JSON object must be str, bytes or bytearray, not NoneType")
    def detect(self, store, path):
        raise TypeError("a bug in detect")
"""


def test_a_broken_format_beside_the_built_ins_breaks_nothing_else(fake_distribution, tmp_path):
    fake_distribution(
        "zf-broken-format",
        {
            "zarrforge.formats": {
                "broken-fmt": "zfbroken_format:Broken",
                "broken-gone": "no_such_module_zf:Format",
            }
        },
        {"zfbroken_format": FORMATS},
    )
    path = str(tmp_path / "data.zarr")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        zf.create_array(MemoryStore(), "x", shape=(2,), dtype="int8")  # in memory too
        array = zf.create_array(path, "g/a", shape=(3,), dtype="int8")
        array[...] = [1, 2, 3]
        np.testing.assert_array_equal(zf.open_array(path, path="g/a")[...], [1, 2, 3])
        with pytest.raises(NodeNotFoundError):
            zf.open_array(path, path="missing")
        assert list(zf.open_group(path)) == ["g"]
        from click.testing import CliRunner

        from zarrforge_cli.main import cli

        result = CliRunner().invoke(cli, ["tree", path])
        assert result.exit_code == 0, result.output
        assert "a" in result.output
    said = _failure_warnings(caught)
    assert len(said) == 2, said  # one per broken format, for the whole process
    assert any(
        "'broken-fmt'" in s and "zf-broken-format" in s and "'zfbroken_format:Broken'" in s for s in said
    )
    assert any("'broken-gone'" in s and "no_such_module_zf" in s for s in said)

    with pytest.raises(PluginFailureError, match="format plugin 'broken-fmt'.*zf-broken-format"):
        zf.open_array(path, path="g/a", zarr_format="broken-fmt")
    with pytest.raises(PluginLoadError, match="broken-gone.*zf-broken-format"):
        zf.create_array(MemoryStore(), shape=(2,), dtype="int8", zarr_format="broken-gone")
    rows = {row.name: row.status for row in zf.plugins() if row.point == "formats"}
    assert rows["broken-fmt"].startswith("error: its detection raises TypeError")
    assert "an empty store" in rows["broken-fmt"]
    assert rows["broken-gone"].startswith("error:")
    assert rows["3"] == rows["2"] == rows["draft-2022"] == "ok"


STORES = """
import zarrforge
from zarrforge.abc.url_adapter import URLAdapter
from zarrforge_std.stores.memory import MemoryStore

class Raises(MemoryStore):
    scheme = "brokenstore"
    @classmethod
    def from_url(cls, url, *, read_only=False, **options):
        raise RuntimeError("a bug in from_url")

class Garbage(MemoryStore):
    scheme = "garbagestore"
    @classmethod
    def from_url(cls, url, *, read_only=False, **options):
        return "not a store"

class Working(MemoryStore):
    scheme = "xmem"
    @classmethod
    def from_url(cls, url, *, read_only=False, **options):
        return cls(read_only=read_only)

class AdapterRaises(URLAdapter):
    name = "brokenurl"
    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        raise KeyError("a bug in resolve")

class ClaimsRaise(URLAdapter):
    name = "x*"
    @classmethod
    def claims(cls, name):
        raise ValueError("a bug in claims")
    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        raise AssertionError("never asked")

@zarrforge.hookimpl
def zarrforge_resolve_store(url, options, read_only):
    raise RuntimeError("a bug in the URL hook")

@zarrforge.hookimpl
def zarrforge_adapt_store(obj, options, read_only):
    raise RuntimeError("a bug in the adapting hook")

@zarrforge.hookimpl
def zarrforge_node_opened(node):
    raise RuntimeError("a bug in node_opened")
"""


@pytest.fixture
def fresh_hooks():
    saved = hooks._manager
    hooks._manager = None  # a fresh manager reads the entry points again
    yield
    hooks._manager = saved


def test_broken_stores_url_adapters_and_hooks_beside_the_built_ins(fake_distribution, tmp_path, fresh_hooks):
    fake_distribution(
        "zf-broken-storage",
        {
            "zarrforge.stores": {
                "brokenstore": "zfbroken_storage:Raises",
                "garbagestore": "zfbroken_storage:Garbage",
                "xmem": "zfbroken_storage:Working",
                "gonestore": "no_such_module_zf:Store",
            },
            "zarrforge.url_adapters": {
                "brokenurl": "zfbroken_storage:AdapterRaises",
                "x*": "zfbroken_storage:ClaimsRaise",
            },
            "zarrforge.plugins": {"brokenhooks": "zfbroken_storage"},
        },
        {"zfbroken_storage": STORES},
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        array = zf.create_array("memory://zf-broken-storage", shape=(2,), dtype="int8")
        array[...] = [4, 5]
        np.testing.assert_array_equal(zf.open_array("memory://zf-broken-storage")[...], [4, 5])
        zf.create_group(str(tmp_path / "local.zarr"))
        zf.create_array(f"file:{tmp_path}/p.zarr|zarr3:a", shape=(1,), dtype="int8")
        zf.create_array("xmem://any|zarr3:a", shape=(1,), dtype="int8")  # claims() raises
        with pytest.raises(TypeError, match="no installed plugin adapts it"):
            zf.open_group(object())
    said = _failure_warnings(caught)
    assert len(said) == 2, said  # the hook plugin, once; the URL adapter family, once
    assert any("hook plugin 'brokenhooks'" in s and "zf-broken-storage" in s for s in said)
    assert any("URL adapter plugin 'x*'" in s and "a bug in claims" in s for s in said)

    with pytest.raises(
        PluginFailureError, match="store plugin 'brokenstore'.*zf-broken-storage.*a bug in from_url"
    ):
        zf.open_group("brokenstore://x")
    with pytest.raises(PluginFailureError, match="'garbagestore'.*not a Store"):
        zf.open_group("garbagestore://x")
    with pytest.raises(PluginLoadError, match="gonestore.*zf-broken-storage"):
        zf.open_group("gonestore://x")
    with pytest.raises(
        PluginFailureError, match="URL adapter plugin 'brokenurl'.*zf-broken-storage.*a bug in resolve"
    ):
        zf.open_group("memory://|brokenurl:")
    rows = {(row.point, row.name): row.status for row in zf.plugins()}
    assert rows[("hooks", "brokenhooks")].startswith("error: failed unexpectedly")
    assert rows[("url_adapters", "x*")].startswith("error: failed unexpectedly")
    assert rows[("stores", "memory")] == "ok"


CHUNK_STORE = """
from zarrforge_std.stores.memory import MemoryStore

class ChunkBug(MemoryStore):
    '''Metadata works; a chunk read or write hits a bug in the store.'''
    def get(self, key, byte_range=None):
        if key.startswith("c/"):
            raise KeyError("a bug in get")
        return super().get(key, byte_range)
    def get_many(self, requests):
        return [self.get(k, r) for k, r in requests]
    def set_many(self, items):
        raise ValueError("a bug in set_many")
"""


def test_a_store_that_raises_on_chunk_io_is_named_and_other_stores_work(fake_distribution):
    fake_distribution("zf-chunk-bug", {}, {"zfchunkbug": CHUNK_STORE})
    import zfchunkbug

    store = zfchunkbug.ChunkBug()
    array = zf.create_array(store, shape=(4,), chunks=(2,), dtype="int8")
    with pytest.raises(
        PluginFailureError,
        match="store plugin 'ChunkBug'.*zfchunkbug.*reading or writing chunks.*a bug in get",
    ):
        array[...]
    with pytest.raises(PluginFailureError, match="ChunkBug.*a bug in set_many"):
        array[...] = [1, 2, 3, 4]
    other = zf.create_array(MemoryStore(), shape=(4,), chunks=(2,), dtype="int8")
    other[...] = [1, 2, 3, 4]
    assert other[...].tolist() == [1, 2, 3, 4]


def test_a_format_failing_to_resolve_a_group_with_a_view_is_named_when_a_node_is_created_below(monkeypatch):
    """Updating the consolidated views above a new node resolves each ancestor group: a
    format failing there unexpectedly is a PluginFailureError naming it, as when a node
    is opened, not its bare exception."""
    import zarrforge_std.format_v3 as format_v3

    store = MemoryStore()
    zf.create_group(store).create_array("a", shape=(2,), dtype="int8")
    zf.consolidate_metadata(store)
    resolve = format_v3.V3Format.resolve

    def buggy(self, document):
        if document.content.get("consolidated_metadata") is not None:
            raise RuntimeError("a bug in resolve")
        return resolve(self, document)

    monkeypatch.setattr(format_v3.V3Format, "resolve", buggy)
    with pytest.raises(PluginFailureError, match="format plugin '3'.*a bug in resolve"):
        zf.create_array(store, "b", shape=(2,), dtype="int8")
