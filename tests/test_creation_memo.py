"""The v3 format gives the model it built for a new array again for equal arguments
(zarrforge.registries.creation_memo): what is shared, what tells arguments apart, and what
makes it build again (a registry or settings change)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import SkippedExtensionWarning
from zarrforge.plugin_api.codecs import BytesBytesCodec
from zarrforge.registries import registry
from zarrforge.storage import MemoryStore
from zarrforge.user_api import array_engine

ZSTD = [{"name": "zstd", "configuration": {"level": 1, "checksum": False}}]


def _create(store, path, **arguments):
    options = {"shape": (10,), "dtype": "int32", "chunks": (5,), "compressors": ZSTD, "fill_value": 0}
    return zf.create_array(store, path, **{**options, **arguments})


def _document(store, path):
    return json.loads(store.get(f"{path}/zarr.json"))


def test_equal_arguments_share_the_resolved_parts_and_keep_their_own_attributes() -> None:
    store = MemoryStore()
    first = _create(store, "a", attributes={"units": "m"})
    second = _create(store, "b", attributes={"units": "s", "n": 2})
    assert second._metadata.codecs is first._metadata.codecs  # resolved once
    assert second._metadata is not first._metadata
    assert (dict(first.attrs), dict(second.attrs)) == ({"units": "m"}, {"units": "s", "n": 2})
    one, two = _document(store, "a"), _document(store, "b")
    assert {**one, "attributes": None} == {**two, "attributes": None}
    second._metadata.extra_fields["x"] = 1  # no dict is shared between the two models
    assert "x" not in first._metadata.extra_fields
    second[...] = np.arange(10)
    assert first[...].tolist() == [0] * 10 and second[...].tolist() == list(range(10))


@pytest.mark.parametrize(
    ("one", "other", "field", "expected"),
    [
        ({"fill_value": 0.0}, {"fill_value": -0.0}, "fill_value", [0.0, -0.0]),
        ({"fill_value": np.float32(1.5)}, {"fill_value": np.float32(2.5)}, "fill_value", [1.5, 2.5]),
        ({"chunks": (5,)}, {"chunks": (2,)}, "chunk_grid", [[5], [2]]),
        ({"dimension_names": ["x"]}, {"dimension_names": ["y"]}, "dimension_names", [["x"], ["y"]]),
        (
            {"compressors": [{"name": "zstd", "configuration": {"level": 1, "checksum": False}}]},
            {"compressors": [{"name": "zstd", "configuration": {"level": 2, "checksum": False}}]},
            "codecs",
            [1, 2],
        ),
    ],
)
def test_arguments_that_differ_in_value_or_type_build_their_own_model(one, other, field, expected) -> None:
    store = MemoryStore()
    dtype = "float32" if field == "fill_value" else "int32"
    _create(store, "a", dtype=dtype, **one)
    _create(store, "b", dtype=dtype, **other)
    written = [_document(store, path)[field] for path in ("a", "b")]
    if field == "chunk_grid":
        written = [grid["configuration"]["chunk_shape"] for grid in written]
    if field == "codecs":
        written = [codecs[-1]["configuration"]["level"] for codecs in written]
    if field == "fill_value" and expected == [0.0, -0.0]:
        assert [str(value) for value in written] == ["0.0", "-0.0"]
    assert written == expected


def test_an_argument_equal_to_an_earlier_one_but_of_another_type_is_judged_on_its_own() -> None:
    # True == 1 in Python, but an int32 array takes the fill value 1 and refuses True
    store = MemoryStore()
    _create(store, "a", fill_value=1)
    with pytest.raises(zf.errors.MetadataError, match="invalid fill value True"):
        _create(store, "b", fill_value=True)
    assert store.get("b/zarr.json") is None


@pytest.mark.parametrize(
    "arguments",
    [
        [{"dimension_names": ["x"]}, {"dimension_names": ["y"]}],
        [{"attributes": {"_ARRAY_DIMENSIONS": ["x"]}}, {"attributes": {"_ARRAY_DIMENSIONS": ["y"]}}],
    ],
)
def test_v2_arrays_keep_the_dimension_names_their_attributes_hold(arguments) -> None:
    # v2 keeps dimension names in an attribute: its model depends on the attributes
    store = MemoryStore()
    arrays = [_create(store, path, zarr_format=2, **given) for path, given in zip("ab", arguments)]
    assert [json.loads(store.get(f"{path}/.zattrs"))["_ARRAY_DIMENSIONS"] for path in "ab"] == [["x"], ["y"]]
    assert [array._metadata.dimension_names for array in arrays] == [("x",), ("y",)]


class _Marked(BytesBytesCodec):
    """A codec whose instances say which registration built them."""

    name = "test.memo-marked"
    mark = "first"

    def __init__(self) -> None:
        self.made_by = self.mark

    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}

    def encoded_size(self, decoded_size):
        return decoded_size

    def encode(self, data):
        return bytes(data)

    def decode(self, data):
        return bytes(data)


class _MarkedAgain(_Marked):
    mark = "second"


def test_a_registry_change_makes_the_next_creation_resolve_again() -> None:
    store = MemoryStore()
    zf.register("codecs", _Marked.name, _Marked)
    try:
        before = registry.generation()
        first = _create(store, "a", compressors=[{"name": _Marked.name}])
        zf.register("codecs", _Marked.name, _MarkedAgain, replace=True)
        assert registry.generation() > before
        second = _create(store, "b", compressors=[{"name": _Marked.name}])
    finally:
        registry.codecs.unregister(_Marked.name)
    assert [array._metadata.codecs[-1].made_by for array in (first, second)] == ["first", "second"]


def test_a_settings_change_makes_the_next_creation_resolve_again() -> None:
    # numcodecs.pickle is refused unless the settings allow it: a model built while they
    # did is not given out after the block
    pickle = {"name": "numcodecs.pickle", "configuration": {"protocol": 5}}
    store = MemoryStore()
    with zf.config.set(allow_unsafe_codecs={"numcodecs.pickle"}):
        _create(store, "a", dtype="int32", serializer=pickle, compressors=None)
    with pytest.raises(PermissionError, match="numcodecs.pickle"):
        _create(store, "b", dtype="int32", serializer=pickle, compressors=None)
    assert store.get("b/zarr.json") is None


def test_a_skipped_extension_warns_at_every_creation() -> None:
    # (creating with a codec that is not installed and need not be understood used to
    # fail with a bare AttributeError in the chain's order check)
    skipped = {"name": "other.checksum", "must_understand": False}
    store = MemoryStore()
    for path in ("a", "b"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            array = _create(store, path, compressors=[*ZSTD, skipped])
        assert [w.category for w in caught] == [SkippedExtensionWarning], path
        assert _document(store, path)["codecs"][-1] == skipped
        with pytest.raises(zf.errors.CodecError, match="other.checksum"):
            array[0] = 1


def test_object_arguments_are_resolved_each_time() -> None:
    store = MemoryStore()
    codec = registry.codecs.get("zstd").from_json("zstd", {"level": 1, "checksum": False})
    first = _create(store, "a", compressors=[codec])
    second = _create(store, "b", compressors=[codec])
    assert first._metadata.codecs is not second._metadata.codecs


def test_arrays_created_alike_share_one_codec_chain_checked_once(monkeypatch) -> None:
    # the chain is a function of the objects it is checked against: members created
    # alike share them (the memo above), so the second member's chain is the first's,
    # with no second check; other codecs or another layout get a chain of their own
    from zarrforge.abc.codec import ChunkSpec
    from zarrforge.engine.codec_chain import CodecChain

    checks: list[object] = []
    real = CodecChain.validate

    def counting(chain: CodecChain, spec: ChunkSpec) -> None:
        checks.append(chain)
        real(chain, spec)

    monkeypatch.setattr(CodecChain, "validate", counting)
    monkeypatch.setattr(array_engine, "_CHECKED_CHAINS", {})  # none from an earlier test
    store = MemoryStore()
    first = _create(store, "a", attributes={"n": 1}, fill_value=4321)
    second = _create(store, "b", attributes={"n": 2}, fill_value=4321)
    assert second._chain() is first._chain()
    assert len(checks) == 1
    level_3 = [{"name": "zstd", "configuration": {"level": 3, "checksum": False}}]
    other = _create(store, "c", compressors=level_3, fill_value=4321)
    fortran = _create(store, "d", attributes={"n": 3}, order="F", fill_value=4321)
    assert len({id(first._chain()), id(other._chain()), id(fortran._chain())}) == 3
    assert len(checks) == 3
    second[...] = np.arange(10)
    fortran[...] = np.arange(10) * 2
    assert first[...].tolist() == [4321] * 10
    assert second[...].tolist() == list(range(10)) and fortran[...].tolist() == list(range(0, 20, 2))


def test_a_chain_that_fails_its_check_is_never_remembered(monkeypatch) -> None:
    # the first check refuses (as a codec would refuse the array): nothing is written,
    # and the next creation with the same objects is checked again, not let through
    from zarrforge.abc.codec import ChunkSpec
    from zarrforge.engine.codec_chain import CodecChain

    checks: list[object] = []
    real = CodecChain.validate

    def refusing_once(chain: CodecChain, spec: ChunkSpec) -> None:
        checks.append(chain)
        if len(checks) == 1:
            raise zf.errors.MetadataError("refused by the test", field="codecs[1]")
        real(chain, spec)

    monkeypatch.setattr(CodecChain, "validate", refusing_once)
    monkeypatch.setattr(array_engine, "_CHECKED_CHAINS", {})  # none from an earlier test
    store = MemoryStore()
    with pytest.raises(zf.errors.MetadataError, match="refused by the test"):
        _create(store, "a", fill_value=4322)
    assert store.get("a/zarr.json") is None
    _create(store, "b", fill_value=4322)
    assert len(checks) == 2


def test_a_remembered_model_is_copied_with_changes_as_dataclasses_replace_would() -> None:
    # the memo copies the model with ArrayMetadata.replace, which takes it without
    # running the frozen __init__ again while ArrayMetadata has no __post_init__
    import dataclasses

    from zarrforge.abc.metadata import ArrayMetadata

    assert not hasattr(ArrayMetadata, "__post_init__")
    model = _create(MemoryStore(), "a", attributes={"a": 1})._metadata
    changes = {"attributes": {"b": 2}, "extra_fields": {}, "format_data": {}}
    copy = model.replace(**changes)
    assert copy == dataclasses.replace(model, **changes) and type(copy) is ArrayMetadata
    assert model.attributes == {"a": 1}  # the original as it was
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.attributes = {}  # type: ignore[misc]


def test_a_data_type_name_resolves_once_until_a_registry_change() -> None:
    # every member of a group names its data type again: the name is resolved once,
    # and again after any registration (or unregistration) changes what it may mean
    from zarrforge.registries.resolution import data_type_from_user

    base = registry.data_types.get("int16")
    first, second = type("First", (base,), {}), type("Second", (base,), {})
    zf.register("data_types", "test.memo-dtype", first)
    try:
        found = data_type_from_user("test.memo-dtype")
        assert type(found) is first and data_type_from_user("test.memo-dtype") is found
        zf.register("data_types", "test.memo-dtype", second, replace=True)
        assert type(data_type_from_user("test.memo-dtype")) is second
    finally:
        registry.data_types.unregister("test.memo-dtype")
    with pytest.raises(zf.errors.UnknownExtensionError):
        data_type_from_user("test.memo-dtype")
