"""A failed store write leaves the previous value readable (chunks and metadata).

Faults come from :class:`zarrforge.testing.faults.FaultyStore`; after the
failure the node is opened again through the undamaged inner store and
every chunk is classified (:func:`_reliability.classify`): entirely the old
value or entirely the new one, never torn, and the chunk whose write failed
holds the old bytes exactly. Both built-in stores, every format, sharded
or not.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from _reliability import LAYOUTS, classify, create, generation_values

import zarrforge
from zarrforge.errors import CorruptChunkError, MetadataError, StoreError
from zarrforge.testing.faults import Fail, FaultyStore, Truncate, on
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore

SHAPE, CHUNKS = (8, 12), (2, 3)
OLD = generation_values(SHAPE, CHUNKS, 0)
NEW = generation_values(SHAPE, CHUNKS, 1)
DOCUMENTS = (".json", ".zarray", ".zattrs", ".zgroup", ".zmetadata")


def is_chunk(call) -> bool:
    return call.key is not None and not call.key.endswith(DOCUMENTS)


def is_document(call) -> bool:
    return call.key is not None and call.key.endswith(DOCUMENTS)


@pytest.fixture(params=["memory", "local"])
def inner(request, tmp_path):
    return MemoryStore() if request.param == "memory" else LocalStore(tmp_path / "store")


def _snapshot(store) -> dict[str, bytes]:
    return {key: store.get(key) for key in store.list()}


def _written_array(inner, layout: str):
    array = create(inner, layout, shape=SHAPE, chunks=CHUNKS)
    array[...] = OLD
    return array


def _check(inner, *, allowed=(0, 1)) -> dict:
    read = zarrforge.open_array(inner, "a")[...]
    labels = classify(read, {0: OLD, 1: NEW}, CHUNKS)
    bad = {c: label for c, label in labels.items() if label not in allowed}
    assert not bad, f"chunks neither old nor new: {bad}"
    return labels


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("nth", [1, 3])
def test_failed_chunk_write_keeps_the_previous_chunk(inner, layout: str, nth: int) -> None:
    _written_array(inner, layout)
    before = _snapshot(inner)
    faulty = FaultyStore(inner)
    faulty.add(on("set", where=is_chunk, nth=nth), Fail())
    array = zarrforge.open_array(faulty, "a", mode="r+")
    with pytest.raises(StoreError):
        array[...] = NEW
    [(call, _)] = faulty.fired
    assert call.key is not None  # a set names its key
    assert inner.get(call.key) == before[call.key], "the chunk whose write failed changed"
    labels = _check(inner)
    assert 0 in labels.values()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_failed_partial_chunk_write_keeps_the_chunk(inner, layout: str) -> None:
    """A write covering part of one chunk (a read-modify-write, or for shards an
    in-place update) that fails leaves the chunk as it was."""
    _written_array(inner, layout)
    before = _snapshot(inner)
    faulty = FaultyStore(inner)
    faulty.add(on("set", where=is_chunk), Fail())
    array = zarrforge.open_array(faulty, "a", mode="r+")
    with pytest.raises(StoreError):
        array[0, 0:2] = -5
    assert _snapshot(inner) == before
    assert np.array_equal(zarrforge.open_array(inner, "a")[...], OLD)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_failed_delete_keeps_the_chunk(inner, layout: str) -> None:
    """Writing the fill value over whole chunks deletes them; a failed delete leaves the
    chunk readable with its old value."""
    _written_array(inner, layout)
    faulty = FaultyStore(inner)
    faulty.add(on(("delete", "set"), where=is_chunk), Fail())
    array = zarrforge.open_array(faulty, "a", mode="r+")
    with pytest.raises(StoreError):
        array[...] = 0
    assert np.array_equal(zarrforge.open_array(inner, "a")[...], OLD)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("keep", [0.5, -1])
def test_torn_chunk_write_is_detected(inner, layout: str, keep: float) -> None:
    """On a store without atomic writes a crash can leave the first part of a value.
    Reading such a chunk raises CorruptChunkError naming the key; it never returns
    wrong numbers (the codecs' size checks, compressed stream framing, CRCs)."""
    _written_array(inner, layout)
    faulty = FaultyStore(inner)
    cut = Truncate(0.5 if keep == 0.5 else 0, then_fail=True)
    if keep == -1:  # all but the last byte

        class AllButOne(Truncate):
            def _cut(self, value: bytes) -> bytes:
                return value[:-1]

        cut = AllButOne(then_fail=True)
    faulty.add(on("set", where=is_chunk), cut, times=1)
    array = zarrforge.open_array(faulty, "a", mode="r+")
    with pytest.raises(StoreError):
        array[...] = NEW
    [(call, _)] = faulty.fired
    with pytest.raises(CorruptChunkError) as info:
        zarrforge.open_array(inner, "a")[...]
    assert info.value.key == call.key


# --- metadata ---------------------------------------------------------------------------------

METADATA_CHANGES = {
    "set attribute": lambda a: a.attrs.__setitem__("new", [1, 2]),
    "update attributes": lambda a: a.attrs.update({"k": "v", "x": None}),
    "delete attribute": lambda a: a.attrs.__delitem__("keep"),
    "resize (grow)": lambda a: a.resize(16, 12),
    "resize (shrink)": lambda a: a.resize(3, 12),
}


def _metadata_of(store) -> dict[str, str]:
    return {k: v.decode() for k, v in _snapshot(store).items() if k.endswith(DOCUMENTS)}


@pytest.mark.parametrize("layout", ["v3", "v3-sharded", "draft-2022", "draft-2022-sharded", "v2"])
@pytest.mark.parametrize("change", sorted(METADATA_CHANGES))
@pytest.mark.parametrize("which", ["first", "every"])
def test_failed_metadata_write_keeps_the_previous_metadata(
    inner, layout: str, change: str, which: str
) -> None:
    array = _written_array(inner, layout)
    array.attrs.put({"keep": True})
    before = _metadata_of(inner)
    faulty = FaultyStore(inner)
    faulty.add(on("set", where=is_document, nth=1 if which == "first" else None), Fail())
    handle = zarrforge.open_array(faulty, "a", mode="r+")
    with pytest.raises(StoreError):
        METADATA_CHANGES[change](handle)
    assert _metadata_of(inner) == before
    # the handle did not take the change either, and keeps working
    assert dict(handle.attrs) == {"keep": True} and handle.shape == SHAPE
    reopened = zarrforge.open_array(inner, "a")
    assert reopened.shape == SHAPE and dict(reopened.attrs) == {"keep": True}
    assert np.array_equal(reopened[...], OLD)
    faulty.clear()  # the storage recovers: the same handle reads, and makes the change
    assert np.array_equal(handle[...], OLD)
    METADATA_CHANGES[change](handle)
    changed = zarrforge.open_array(inner, "a")
    assert changed.shape == handle.shape and dict(changed.attrs) == dict(handle.attrs)
    assert _metadata_of(inner) != before
    common = tuple(slice(0, min(n, m)) for n, m in zip(SHAPE, changed.shape))
    assert np.array_equal(changed[common], OLD[common])


# B7 (fixed): v2 wrote .zattrs, then .zarray / .zgroup, so a failure of the second write
# left an attribute change on disk although the call raised. Now only documents whose
# bytes change are written: the update touches .zattrs alone and never meets the fault.
@pytest.mark.parametrize("node", ["array", "group"])
def test_v2_attribute_update_writes_only_zattrs(inner, node: str) -> None:
    if node == "array":
        zarrforge.create_array(
            inner, "a", shape=(4,), chunks=(2,), dtype="int8", zarr_format=2, attributes={"v": 0}
        )
        second = "a/.zarray"
    else:
        zarrforge.create_group(inner, "a", zarr_format=2, attributes={"v": 0})
        second = "a/.zgroup"
    before = inner.get(second)
    faulty = FaultyStore(inner)
    faulty.add(on("set", second), Fail())
    handle = zarrforge.open(faulty, "a", mode="r+")
    handle.attrs["v"] = 1
    assert dict(zarrforge.open(inner, "a").attrs) == dict(handle.attrs) == {"v": 1}
    assert inner.get(second) == before


def test_v2_resize_writes_only_zarray(inner) -> None:
    zarrforge.create_array(
        inner, "a", shape=(4,), chunks=(2,), dtype="int8", zarr_format=2, attributes={"v": 0}
    )
    faulty = FaultyStore(inner)
    faulty.add(on("set", "a/.zattrs"), Fail())
    handle = zarrforge.open_array(faulty, "a", mode="r+")
    handle.resize(6)
    assert zarrforge.open_array(inner, "a").shape == (6,)


@pytest.mark.parametrize("layout", ["v3", "v2", "draft-2022"])
def test_torn_metadata_write_is_an_error_naming_the_key(inner, layout: str) -> None:
    _written_array(inner, layout)
    faulty = FaultyStore(inner)
    faulty.add(
        on("set", where=lambda c: is_document(c) and (c.key or "").startswith(("a/", "meta/root/a."))),
        Truncate(0.5, then_fail=True),
        times=1,
    )
    with pytest.raises(StoreError) as failed:
        zarrforge.open_array(faulty, "a", mode="r+").attrs["x"] = 1
    with pytest.raises(MetadataError) as info:
        zarrforge.open_array(inner, "a")
    assert info.value.key == failed.value.key


def test_failed_shrink_keeps_the_old_shape_and_every_value(inner) -> None:
    """A shrinking ``resize`` commits the new shape before it deletes anything: when the
    metadata write fails, the array keeps its old shape and all its data (it used to
    delete the chunks outside the new shape first, losing them)."""
    _written_array(inner, "v3")
    faulty = FaultyStore(inner)
    faulty.add(on("set", "a/zarr.json"), Fail())
    with pytest.raises(StoreError):
        zarrforge.open_array(faulty, "a", mode="r+").resize(3, 12)
    reopened = zarrforge.open_array(inner, "a")
    assert reopened.shape == SHAPE
    assert np.array_equal(reopened[...], OLD)


def test_a_failed_trim_after_a_shrink_never_shows_stale_data_on_a_later_grow(inner) -> None:
    """When deleting the chunks beyond a committed smaller shape fails, what is left there
    is outside the array; the next grow clears it before committing."""
    _written_array(inner, "v3")
    faulty = FaultyStore(inner)
    faulty.add(on(("delete", "set"), "a/c/*"), Fail())
    with pytest.raises(StoreError):
        zarrforge.open_array(faulty, "a", mode="r+").resize(3, 12)
    shrunk = zarrforge.open_array(inner, "a", mode="r+")
    assert shrunk.shape == (3, 12) and np.array_equal(shrunk[...], OLD[:3])
    assert any(key.startswith("a/c/3/") for key in inner.list()), "stale chunks stayed"
    shrunk.resize(SHAPE)
    grown = zarrforge.open_array(inner, "a")[...]
    assert np.array_equal(grown[:3], OLD[:3]) and not np.any(grown[3:])


def test_failed_consolidated_refresh_leaves_a_stale_but_readable_view(inner) -> None:
    """A metadata change below a consolidated group writes the node's document, then the
    group's consolidated view. When the second write fails the call raises, the node's
    own document has the change and the consolidated view still shows the old one;
    both open. ``consolidate_metadata`` (or repeating the change) brings them in step."""
    zarrforge.create_group(inner, "", attributes={})
    _written_array(inner, "v3")
    zarrforge.consolidate_metadata(inner)
    faulty = FaultyStore(inner)
    faulty.add(on("set", "zarr.json"), Fail())
    with pytest.raises(StoreError):
        zarrforge.open_array(faulty, "a", mode="r+").attrs["x"] = 1
    direct = zarrforge.open_group(inner, mode="r", use_consolidated=False)["a"]
    through_view = zarrforge.open_group(inner, mode="r")["a"]
    assert dict(direct.attrs) == {"x": 1} and dict(through_view.attrs) == {}
    zarrforge.consolidate_metadata(inner)
    assert dict(zarrforge.open_group(inner, mode="r")["a"].attrs) == {"x": 1}
    assert json.loads(inner.get("a/zarr.json"))["attributes"] == {"x": 1}
