"""zarr-python's class methods and keywords on zarrforge's objects (issue #43):
Group.from_store/open, Array.open, config= and Array.config (user_api.array_config),
create(mode=), Array[...] in annotations, AsyncArray/AsyncGroup at the top level."""

from __future__ import annotations

import typing
from typing import Any

import pytest

import zarrforge as zf
from zarrforge.errors import ContainsNodeError, NodeTypeError, ReadOnlyError


def test_group_from_store_creates_at_the_root_and_refuses_an_existing_node():
    store: dict = {}
    group = zf.Group.from_store(store, attributes={"a": 1})
    assert isinstance(group, zf.Group) and group.attrs.asdict() == {"a": 1}
    with pytest.raises(ContainsNodeError):
        zf.Group.from_store(store)
    assert zf.Group.from_store(store, overwrite=True).attrs.asdict() == {}
    v2: dict = {}
    zf.Group.from_store(v2, zarr_format=2)
    assert ".zgroup" in v2 and "zarr.json" not in v2


def test_group_open_and_array_open_find_the_node_at_the_root():
    store: dict = {}
    zf.create_array(store, shape=(3,), dtype="i2")
    opened = zf.Array.open(store, config={"write_empty_chunks": True})
    assert opened.config == zf.user_api.array_config.ArrayConfig("C", True)
    assert not opened.read_only
    with pytest.raises(NodeTypeError, match="is an array, not a group"):
        zf.Group.open(store)
    group_store: dict = {}
    zf.create_group(group_store)
    assert isinstance(zf.Group.open(group_store), zf.Group)


def test_config_is_the_keywords_in_zarr_pythons_form():
    arr = zf.create_array({}, shape=(4,), dtype="u1", config={"order": "F", "write_empty_chunks": True})
    assert (arr.order, arr.config.write_empty_chunks, arr.config.read_missing_chunks) == ("F", True, True)
    store: dict = {}
    zf.create_array(store, shape=(4,), dtype="u1")
    assert (
        zf.open_array(store, mode="a", config={"write_empty_chunks": True}).config.write_empty_chunks is True
    )
    assert zf.open(store, config={"order": "F"}).order == "F"


def test_bad_config_is_refused_naming_what_is_wrong():
    with pytest.raises(TypeError, match=r"Unknown array config keys: \['nope'\]"):
        zf.create_array({}, shape=(1,), dtype="u1", config={"nope": 1})
    with pytest.raises(ValueError, match="'read_missing_chunks'='yes': Expected instance of bool"):
        zf.create_array({}, shape=(1,), dtype="u1", config={"read_missing_chunks": "yes"})
    with pytest.raises(NotImplementedError, match="read_missing_chunks=False"):
        zf.create_array({}, shape=(1,), dtype="u1", config={"read_missing_chunks": False})
    with pytest.raises(TypeError, match="given as a keyword .* and in config"):
        zf.create_array({}, shape=(1,), dtype="u1", order="C", config={"order": "F"})


def test_array_options_for_what_resolves_to_a_group_are_refused_before_writing():
    existing: dict = {}
    zf.create_group(existing)
    with pytest.raises(TypeError, match="resolves to a group"):
        zf.open(existing, mode="a", config={"order": "F"})
    empty: dict = {}
    with pytest.raises(TypeError, match="resolves to a group"):
        zf.open(empty, mode="a", order="F")
    assert empty == {}


def test_create_takes_zarr_python_2s_mode():
    store: dict = {}
    zf.create(4, store=store, mode="w-")
    with pytest.raises(ContainsNodeError):
        zf.create(4, store=store, mode="w-", overwrite=True)
    assert zf.create(8, store=store, mode="w").shape == (8,)
    with pytest.raises(ContainsNodeError):
        zf.create(8, store=store, mode="a")
    with pytest.raises(ReadOnlyError, match="cannot create"):
        zf.create(4, store={}, mode="r")


def test_array_classes_are_subscriptable_for_annotations_and_async_names_are_top_level():
    assert typing.get_origin(zf.Array[typing.Any]) is zf.Array
    assert typing.get_origin(zf.AsyncArray[typing.Any]) is zf.AsyncArray
    import zarrforge.asyncio as zfa

    assert zf.AsyncGroup is zfa.AsyncGroup and "AsyncArray" in zf.__all__


def test_zarr_pythons_error_names_are_raised_where_it_raises_them():
    store: dict = {}
    zf.create_array(store, "a", shape=(2,), dtype="u1")
    zf.create_group(store, "g")
    with pytest.raises(zf.errors.ContainsArrayError, match="an array of Zarr 3 already exists"):
        zf.create_array(store, "a", shape=(2,), dtype="u1")
    with pytest.raises(zf.errors.ContainsGroupError, match="a group of Zarr 3 already exists"):
        zf.open_group(store).create_array("g", shape=(2,), dtype="u1")
    with pytest.raises(zf.errors.ContainsArrayError, match="mode 'w-' creates only"):
        zf.open_array(store, "a", mode="w-")
    with pytest.raises(zf.errors.ArrayNotFoundError, match="no array at path '/nope'"):
        zf.open_array(store, "nope", mode="r")
    with pytest.raises(zf.errors.GroupNotFoundError, match="no group at path '/nope'"):
        zf.open_group(store, "nope", mode="r")
    # each is one of zarrforge's own errors
    assert issubclass(zf.errors.ContainsArrayError, zf.errors.ContainsNodeError)
    assert issubclass(zf.errors.GroupNotFoundError, zf.errors.NodeNotFoundError)
    # and a FileNotFoundError where nothing is at the path, as zarr-python's (still a KeyError)
    with pytest.raises(FileNotFoundError, match="no group at path '/nope'") as missing:
        zf.open_group(store, "nope", mode="r")
    assert isinstance(missing.value, KeyError)
    assert zf.errors.BaseZarrError is zf.errors.ZarrforgeError


def test_group_shorthands_create_and_find_members():
    import numpy as np

    group = zf.group()
    assert group.zeros(name="z", shape=(3,))[:].tolist() == [0.0, 0.0, 0.0]
    assert group.ones(name="o", shape=(2,), dtype="i2")[:].tolist() == [1, 1]
    source = group.full(name="f", shape=(2,), fill_value=7, dtype="u1")
    assert group.full_like(name="fl", data=source)[:].tolist() == [7, 7]
    assert group.zeros_like(name="zl", data=np.arange(4)).shape == (4,)
    assert group.empty_like(name="el", data=source).chunks == source.chunks
    assert group.get_array("z").shape == (3,)
    group.create_group("sub")
    assert isinstance(group.get_group("sub"), zf.Group)
    with pytest.raises(NodeTypeError, match="is an array, not a group"):
        group.get_group("z")
    with pytest.raises(NodeTypeError, match="is a group, not an array"):
        group.get_array("sub")
    # zarr-python's names for the same two refusals (its user guide catches the second)
    with pytest.raises(zf.errors.ContainsArrayError, match="is an array, not a group"):
        group.get_group("z")
    with pytest.raises(zf.errors.ContainsGroupError, match="is a group, not an array"):
        group.get_array("sub")


async def _async_group_round_trip(store: dict) -> tuple[Any, Any]:
    created = await zf.AsyncGroup.from_store(store, attributes={"k": 1})
    opened = await zf.AsyncGroup.open(store)
    return created, opened


def test_async_group_from_store_and_open():
    import asyncio

    store: dict = {}
    created, opened = asyncio.run(_async_group_round_trip(store))
    assert isinstance(created, zf.AsyncGroup) and isinstance(opened, zf.AsyncGroup)
    assert opened.attrs == {"k": 1} and "zarr.json" in store


def test_zarr_python_data_type_objects_are_taken_as_dtype():
    import zarr.dtype

    assert zf.create_array({}, shape=(2,), dtype=zarr.dtype.Int16()).dtype == "int16"
    assert zf.create_array({}, shape=(2,), dtype=zarr.dtype.UInt8()).dtype == "uint8"
    v2: dict = {}
    assert zf.create_array(v2, shape=(2,), dtype=zarr.dtype.Bool(), zarr_format=2).dtype == bool
    assert ".zarray" in v2


def test_zarr_pythons_api_module_paths_hold_zarrforges_functions():
    import zarrforge.api.asynchronous as asynchronous
    import zarrforge.api.synchronous as synchronous
    import zarrforge.asyncio as zfa

    assert synchronous.zeros is zf.zeros and synchronous.open_group is zf.open_group
    assert synchronous.copy is zf.copy
    assert all(callable(getattr(synchronous, name)) for name in synchronous.__all__)
    assert asynchronous.open_array is zfa.open_array
    assert synchronous.create_array({}, shape=(2,), dtype="u1").shape == (2,)


def test_array_config_equals_zarr_pythons_settings_object_of_the_same_values() -> None:
    import dataclasses

    from zarrforge.user_api.array_config import ArrayConfig

    @dataclasses.dataclass(frozen=True)
    class TheirArrayConfig:  # the shape of zarr-python's zarr.core.array_spec.ArrayConfig
        order: str
        write_empty_chunks: bool
        read_missing_chunks: bool
        sharding_coalesce_max_gap_bytes: int = 1 << 20  # zarr-python's own, not compared

    ours = ArrayConfig("F", True)
    assert TheirArrayConfig("F", True, True) == ours and ours == TheirArrayConfig("F", True, True)
    assert TheirArrayConfig("C", True, True) != ours
    assert TheirArrayConfig("F", True, True, 0) == ours
    assert ours != {"order": "F", "write_empty_chunks": True}
    assert {ours, ArrayConfig("F", True)} == {ours}


def test_two_handles_on_one_node_are_equal_and_handles_on_others_are_not() -> None:
    import asyncio

    store: dict = {}
    group = zf.group(store)
    array = group.create_array("a", shape=(3,), dtype="i4")
    sub = group.create_group("sub")
    assert group["a"] == array and group["sub"] == sub and zf.open_group(store) == group
    assert len({array, group["a"]}) == 1
    assert (
        array != sub and group != sub and array != zf.group({}).create_array("a", shape=(3,), dtype="i4")
    )  # the same document in another store
    assert group.create_array("b", shape=(3,), dtype="i4") != group.create_array("c", shape=(3,), dtype="i4")
    assert group["a"] != group.create_array("a", shape=(4,), dtype="i4", overwrite=True)

    async def both() -> tuple[Any, Any]:
        return (await zf.AsyncGroup.open(store), await zf.AsyncGroup.open(store))

    first, second = asyncio.run(both())
    assert first == second and first != group


def test_zarr_pythons_asynchronous_names_are_coroutines_of_zarrforges_functions():
    import inspect

    import zarrforge.api.asynchronous as asynchronous
    import zarrforge.api.synchronous as synchronous

    for name in asynchronous.ZARR_PYTHON_NAMES:
        assert inspect.iscoroutinefunction(getattr(asynchronous, name)), name
    assert set(synchronous.__all__) <= set(asynchronous.__all__)
    assert inspect.signature(asynchronous.full) == inspect.signature(zf.full).replace(
        return_annotation=inspect.Signature.empty
    )
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        asynchronous.no_such_name


async def _async_convenience_round_trip() -> dict[str, Any]:
    import zarrforge.api.asynchronous as za

    seen: dict[str, Any] = {}
    store: dict = {}
    z = await za.zeros((4,), store=store, chunks=(2,), dtype="i2")
    seen["zeros"] = (type(z), (await z.getitem(slice(None))).tolist())
    seen["full_like"] = await (await za.full_like(z, fill_value=7, store={})).getitem(slice(None))
    for name, call in [
        ("ones", za.ones((2,))),
        ("empty", za.empty((2,))),
        ("full", za.full((2,), 3)),
        ("array", za.array([1, 2])),
        ("create", za.create((2,))),
        ("zeros_like", za.zeros_like(z)),
        ("ones_like", za.ones_like(z)),
        ("empty_like", za.empty_like(z)),
        ("from_array", za.from_array({}, data=[5, 6])),
    ]:
        seen[name] = type(await call)
    saved: dict = {}
    assert await za.save(saved, first=[1, 2], second=[3]) is None
    seen["load_group"] = await za.load(saved)
    single: dict[str, bytes] = {}
    await za.save_array(single, [4, 5])
    seen["load_array"] = (await za.load(single)).tolist()
    grouped: dict[str, bytes] = {}
    await za.save_group(grouped, a=[0])
    grp = await za.group(store=grouped)
    seen["group"] = type(grp)
    seen["tree"] = str(await za.tree(grp))
    seen["consolidate_metadata"] = type(await za.consolidate_metadata(grouped))
    seen["open_consolidated"] = type(await za.open_consolidated(grouped))
    copied: dict = {}
    await za.copy(grouped, copied)
    seen["copy"] = (await za.load(copied))["a"].tolist()
    return seen


def test_the_asynchronous_convenience_functions_run_and_return_async_faces():
    import asyncio

    seen = asyncio.run(_async_convenience_round_trip())
    assert seen.pop("zeros") == (zf.AsyncArray, [0, 0, 0, 0])
    assert seen.pop("full_like").tolist() == [7, 7, 7, 7]
    load_group = seen.pop("load_group")
    assert type(load_group) is dict  # every array read off the loop, not lazily
    assert {k: v.tolist() for k, v in load_group.items()} == {"first": [1, 2], "second": [3]}
    assert seen.pop("load_array") == [4, 5]
    assert "a (1,)" in seen.pop("tree")
    assert seen.pop("copy") == [0]
    assert (
        seen.pop("group")
        is seen.pop("consolidate_metadata")
        is seen.pop("open_consolidated")
        is zf.AsyncGroup
    )
    assert set(seen.values()) == {zf.AsyncArray}, seen


def test_open_like_as_a_coroutine_opens_an_array_like_an_async_array():
    import asyncio

    import zarrforge.api.asynchronous as asynchronous

    array = zf.full((6,), fill_value=3, chunks=(4,), dtype="i2")
    store: dict = {}
    result = asyncio.run(asynchronous.open_like(zf.asyncio.from_node(array), "x", store=store))
    assert isinstance(result, zf.AsyncArray)
    assert (result.shape, result.chunks, str(result.dtype)) == ((6,), (4,), "int16")
    assert zf.open_array(store, "x")[:].tolist() == [3] * 6


def test_zarr_pythons_array_config_with_its_shard_read_settings_is_taken() -> None:
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class TheirArrayConfig:  # zarr-python 3.4's fields
        order: str = "C"
        write_empty_chunks: bool = False
        read_missing_chunks: bool = True
        sharding_coalesce_max_gap_bytes: int = 1 << 20
        sharding_coalesce_max_bytes: int = 1 << 24

    array = zf.create_array({}, shape=(4,), dtype="u1", config=TheirArrayConfig(order="F"))
    assert array.config.order == "F"
    assert array.with_config(TheirArrayConfig(write_empty_chunks=True)).config.write_empty_chunks
    with pytest.raises(TypeError, match=r"Unknown array config keys: \['no_such_key'\]"):
        array.with_config({"no_such_key": 1, "sharding_coalesce_max_bytes": 5})


def test_a_handle_is_constructed_from_an_async_handle_as_zarr_python_does() -> None:
    import asyncio

    store: dict = {}
    group = zf.group(store)
    array = group.create_array("a", shape=(3,), dtype="i4", fill_value=2)

    async def opened() -> tuple[Any, Any]:
        return (await zf.AsyncGroup.open(store), await zf.asyncio.open_array(store, "a"))

    async_group, async_array = asyncio.run(opened())
    assert zf.Array(async_array) == array and zf.Array(async_array)[:].tolist() == [2, 2, 2]
    assert zf.Group(async_group) == group and list(zf.Group(async_group)) == ["a"]
    assert zf.Array(array) == array
    with pytest.raises(NodeTypeError, match="'/' is a group, not an array"):
        zf.Array(async_group)
    with pytest.raises(TypeError, match=r"one other handle on an array .* got dict"):
        zf.Array({})
