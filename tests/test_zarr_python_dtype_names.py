"""zarrforge.dtype: zarr-python 3's data type class names on zarrforge's data types (#43).

The expected documents were written by zarr-python 3.4.2 for its own objects of the same
name and arguments (``zarr.create_array(store={}, shape=(2,), dtype=obj, zarr_format=...)``):
the ``data_type`` of ``zarr.json`` and the ``dtype`` of ``.zarray``. Where the installed
zarr-python has the class too, its ``to_json`` is compared as well.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import zarrforge as zf
import zarrforge.dtype as zd
from zarrforge.errors import MetadataError

I16, F32 = {"name": "a", "data_type": "int16"}, {"name": "b", "data_type": "float32"}
# (class name, keyword arguments, zarr-python 3.4.2's v3 data_type, its v2 dtype)
CASES: list[tuple[str, dict[str, Any], Any, Any]] = [
    ("Bool", {}, "bool", "|b1"),
    ("Int8", {}, "int8", "|i1"),
    ("UInt8", {}, "uint8", "|u1"),
    ("Int16", {}, "int16", "<i2"),
    ("Int16", {"endianness": "little"}, "int16", "<i2"),
    ("Int32", {}, "int32", "<i4"),
    ("Int64", {}, "int64", "<i8"),
    ("UInt16", {}, "uint16", "<u2"),
    ("UInt32", {}, "uint32", "<u4"),
    ("UInt64", {}, "uint64", "<u8"),
    ("Float16", {}, "float16", "<f2"),
    ("Float32", {}, "float32", "<f4"),
    ("Float64", {}, "float64", "<f8"),
    ("Complex64", {}, "complex64", "<c8"),
    ("Complex128", {}, "complex128", "<c16"),
    (
        "FixedLengthUTF32",
        {"length": 4},
        {"name": "fixed_length_utf32", "configuration": {"length_bytes": 16}},
        "<U4",
    ),
    ("VariableLengthUTF8", {}, "string", "|O"),
    ("VariableLengthBytes", {}, "variable_length_bytes", "|O"),
    (
        "NullTerminatedBytes",
        {"length": 3},
        {"name": "null_terminated_bytes", "configuration": {"length_bytes": 3}},
        "|S3",
    ),
    ("RawBytes", {"length": 3}, {"name": "raw_bytes", "configuration": {"length_bytes": 3}}, "|V3"),
    (
        "DateTime64",
        {"unit": "s", "scale_factor": 1},
        {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}},
        "<M8[s]",
    ),
    (
        "DateTime64",
        {"unit": "ms", "scale_factor": 10},
        {"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 10}},
        "<M8[10ms]",
    ),
    (
        "TimeDelta64",
        {"unit": "ns"},
        {"name": "numpy.timedelta64", "configuration": {"unit": "ns", "scale_factor": 1}},
        "<m8[ns]",
    ),
    (
        "TimeDelta64",
        {},
        {"name": "numpy.timedelta64", "configuration": {"unit": "generic", "scale_factor": 1}},
        "<m8",
    ),
    (
        "Struct",
        {"fields": (("a", "int16"), ("b", "float32"))},
        {"name": "struct", "configuration": {"fields": [I16, F32]}},
        [["a", "<i2"], ["b", "<f4"]],
    ),
    (
        "Structured",
        {"fields": (("a", "int16"), ("b", "float32"))},
        {"name": "structured", "configuration": {"fields": [["a", "int16"], ["b", "float32"]]}},
        [["a", "<i2"], ["b", "<f4"]],
    ),
]
# zarr-python writes these as Zarr v2; zarrforge's v2 format refuses a data type whose
# .zarray would read back as another one ('|O' with vlen-bytes reads as 'bytes', '|V3' as
# 'r24', a record list as 'struct'), saying so.
V2_REFUSED = {"VariableLengthBytes", "RawBytes", "Structured"}


def _case_id(case: tuple[str, dict[str, Any], Any, Any]) -> str:
    return case[0] + "".join(f"-{v}" for v in case[1].values() if not isinstance(v, tuple))


def _face(name: str, kwargs: dict[str, Any]) -> Any:
    kwargs = dict(kwargs)
    if "fields" in kwargs:  # fields given as this module's objects, as zarr-python's are
        kwargs["fields"] = tuple(
            (n, zd.Int16() if t == "int16" else zd.Float32()) for n, t in kwargs["fields"]
        )
    return getattr(zd, name)(**kwargs)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_a_new_v3_array_stores_the_data_type_zarr_python_stores(case):
    name, kwargs, v3, _ = case
    data_type = _face(name, kwargs)
    assert data_type.to_json() == v3
    store: dict = {}
    array = zf.create_array(store, shape=(2,), dtype=data_type)
    assert json.loads(bytes(store["zarr.json"]))["data_type"] == v3
    assert isinstance(array.data_type, getattr(zd, name))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_a_new_v2_array_stores_the_dtype_zarr_python_stores(case):
    name, kwargs, _, v2 = case
    store: dict = {}
    if name in V2_REFUSED:
        with pytest.raises(MetadataError, match="has no Zarr v2 type string"):
            zf.create_array(store, shape=(2,), dtype=_face(name, kwargs), zarr_format=2)
        return
    zf.create_array(store, shape=(2,), dtype=_face(name, kwargs), zarr_format=2)
    assert json.loads(bytes(store[".zarray"]))["dtype"] == v2


@pytest.mark.filterwarnings("ignore:The data type .* does not have a Zarr V3 specification")
# the classes the installed zarr-python has (3.1 has no Struct; the literal cases above
# cover every class against what zarr-python 3.4.2 writes)
@pytest.mark.parametrize(
    "case", [case for case in CASES if hasattr(pytest.importorskip("zarr.dtype"), case[0])], ids=_case_id
)
def test_the_installed_zarr_python_writes_the_same_json_for_its_object(case):
    zarr_dtype = pytest.importorskip("zarr.dtype")
    name, kwargs, _, v2 = case
    ours = _face(name, kwargs)
    if "fields" in kwargs:
        kwargs = {
            "fields": tuple(
                (n, zarr_dtype.Int16() if t == "int16" else zarr_dtype.Float32()) for n, t in kwargs["fields"]
            )
        }
    theirs = getattr(zarr_dtype, name)(**kwargs)
    assert ours.to_json() == theirs.to_json(zarr_format=3)
    if name not in V2_REFUSED:  # zarr-python's own object as dtype= stores zarr-python's dtype
        store: dict = {}
        zf.create_array(store, shape=(2,), dtype=theirs, zarr_format=2)
        assert json.loads(bytes(store[".zarray"]))["dtype"] == v2


BIG = {"name": "bytes", "configuration": {"endian": "big"}}


@pytest.mark.parametrize(
    "make",
    [
        lambda: zd.Int16(endianness="big"),
        lambda: zd.FixedLengthUTF32(length=2, endianness="big"),
        lambda: zd.DateTime64(unit="s", endianness="big"),
    ],
)
def test_big_endianness_is_refused_naming_the_serializer_that_stores_it(make):
    with pytest.raises(MetadataError, match="endianness must be 'little'.*serializer=") as caught:
        make()
    assert caught.value.field == "endianness" and caught.value.value == "big"


def test_the_named_serializer_stores_big_endian_chunks_in_both_formats():
    store: dict = {}
    array = zf.create_array(
        store, shape=(2,), chunks=(2,), dtype=zd.Int16(), zarr_format=2, compressors=None, serializer=BIG
    )
    array[:] = [1, -2]
    assert json.loads(bytes(store[".zarray"]))["dtype"] == ">i2"
    assert bytes(store["0"]) == np.array([1, -2], dtype=">i2").tobytes()
    assert zf.open_array(store)[:].tolist() == [1, -2]
    v3: dict = {}
    zf.create_array(v3, shape=(2,), dtype=zd.Int16(), serializer=BIG)
    assert json.loads(bytes(v3["zarr.json"]))["codecs"][0] == BIG


def test_isinstance_tells_the_registered_types_apart():
    assert isinstance(zf.create_array({}, shape=(1,), dtype="i2").data_type, zd.Int16)
    assert not isinstance(zf.create_array({}, shape=(1,), dtype="i4").data_type, zd.Int16)
    struct, legacy = (zd.Struct(fields=[("a", "i2")]), zd.Structured(fields=[("a", "i2")]))
    assert isinstance(struct, zd.Struct) and not isinstance(struct, zd.Structured)
    assert isinstance(legacy, zd.Structured) and not isinstance(legacy, zd.Struct)
    assert not isinstance(zf.create_array({}, shape=(1,), dtype="bytes").data_type, zd.VariableLengthBytes)
    assert isinstance(zd.Int16(), zd.ZDType)
    assert not isinstance("int16", zd.Int16) and not isinstance(np.dtype("i2"), zd.Int16)
    zarr_dtype = pytest.importorskip("zarr.dtype")
    assert not isinstance(zarr_dtype.Int16(), zd.Int16)


BAD_CALLS: list[tuple[Callable[[], Any], str, str]] = [
    (lambda: zd.Int16(endianness="native"), "endianness", "must be 'little'"),  # type: ignore[arg-type]  # refused on purpose
    (lambda: zd.FixedLengthUTF32(length=0), "length", "positive integer"),
    (lambda: zd.RawBytes(length=True), "length", "positive integer"),
    (lambda: zd.Struct(fields=[("a",)]), "fields[0]", "pair"),  # type: ignore[list-item]  # not a pair on purpose
    (lambda: zd.Struct(fields=[]), "fields", "non-empty"),
    (
        lambda: zd.DateTime64(unit="parsec"),
        "zarrforge.dtype.DateTime64.configuration.unit",
        "unit must be one of",
    ),
]


@pytest.mark.parametrize("call, field, says", BAD_CALLS, ids=[b[1] for b in BAD_CALLS])
def test_bad_arguments_are_refused_naming_the_field(call, field, says):
    with pytest.raises(MetadataError, match=says) as caught:
        call()
    assert caught.value.field == field


def test_only_keyword_arguments_as_in_zarr_python() -> None:
    with pytest.raises(TypeError):
        zd.Int16("big")  # type: ignore[call-arg]  # positional on purpose: refused
    with pytest.raises(TypeError, match="length"):
        zd.FixedLengthUTF32()  # type: ignore[call-arg]  # length left out on purpose: refused


@pytest.mark.parametrize(
    "name",
    [
        "data_type_registry",
        "DateTime64JSON_V3",
        "DTypeSpec_V2",
        "check_dtype_spec_v2",
        "DataTypeValidationError",
    ],
)
def test_a_name_not_supplied_says_why(name):
    with pytest.raises(AttributeError, match=f"does not supply zarr-python's '{name}': "):
        getattr(zd, name)


def test_every_name_of_all_is_there_and_unknown_names_are_attribute_errors():
    assert all(hasattr(zd, name) for name in zd.__all__)
    with pytest.raises(AttributeError, match="has no attribute 'Int17'"):
        zd.Int17


def test_the_names_cover_zarr_pythons_classes():
    zarr_dtype = pytest.importorskip("zarr.dtype")
    theirs = set(zarr_dtype.__all__) | {"parse_data_type"}
    assert theirs <= set(zd.__all__) | set(zd.NOT_SUPPLIED)


def test_parse_data_type_reads_what_dtype_takes():
    assert isinstance(zd.parse_data_type(np.dtype(">i2"), zarr_format=2), zd.Int16)
    assert zd.parse_dtype("float32") == zd.Float32()
    assert zd.parse_data_type(zd.Bool()) == zd.Bool()
    with pytest.raises(MetadataError, match="zarr_format must be 2, 3 or None") as caught:
        zd.parse_data_type("int8", zarr_format=4)
    assert caught.value.field == "zarr_format"


def test_importing_the_module_loads_no_data_type_plugin():
    code = "import sys, zarrforge.dtype\nprint(sorted(m for m in sys.modules if m.startswith('zarrforge_')))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"
