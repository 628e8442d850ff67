"""Extensions that change values (issue #50): ``encode_values`` / ``decode_values``, on every
path that reads or writes an array's elements.

``test.scale`` stores ``values / factor`` and reads ``stored * factor`` (float32 and
float64); ``test.shift`` adds ``shift`` when read. The stored values are read by opening the
same store with the extension entries removed from ``zarr.json``.
"""

from __future__ import annotations

import asyncio
import json
import math

import numpy as np
import pytest

import zarrforge as zf
import zarrforge.asyncio as zfa
from zarrforge.abc.extension import Extension
from zarrforge.errors import MetadataError, PluginFailureError


class Scale(Extension):
    """{"factor": <finite non-zero number>}: read = stored * factor."""

    name = "test.scale"
    node_types = frozenset({"array"})
    seen_after_write: list = []

    def __init__(self, factor: float) -> None:
        self.factor = factor

    @classmethod
    def from_json(cls, name, configuration):
        factor = (configuration or {}).get("factor")
        if (
            isinstance(factor, bool)
            or not isinstance(factor, (int, float))
            or not math.isfinite(factor)
            or not factor
        ):
            raise MetadataError(
                f"factor must be a finite non-zero number, got {factor!r}", field="configuration.factor"
            )
        return cls(factor)

    def to_json(self):
        return {"name": self.name, "configuration": {"factor": self.factor}}

    def encode_values(self, array, values):
        return (values / self.factor).astype(values.dtype)

    def decode_values(self, array, values):
        values *= self.factor  # in place: the engine's own array
        return values

    def after_write(self, array, selection, kind, values):
        Scale.seen_after_write.append(np.array(values, copy=True))


class Shift(Extension):
    """{"shift": n}: read = stored + n."""

    name = "test.shift"
    node_types = frozenset({"array"})

    def __init__(self, shift: float) -> None:
        self.shift = shift

    @classmethod
    def from_json(cls, name, configuration):
        return cls((configuration or {}).get("shift", 0))

    def to_json(self):
        return {"name": self.name, "configuration": {"shift": self.shift}}

    def encode_values(self, array, values):
        return (values - self.shift).astype(values.dtype)

    def decode_values(self, array, values):
        return (values + self.shift).astype(values.dtype)


class WrongType(Shift):
    name = "test.wrong-type"

    def decode_values(self, array, values):
        return values.astype("float16")


@pytest.fixture(autouse=True)
def registered():
    for cls in (Scale, Shift, WrongType):
        zf.register("extensions", cls.name, cls)
    Scale.seen_after_write = []
    yield
    for cls in (Scale, Shift, WrongType):
        zf.registry.extensions.unregister(cls.name)


SCALE = {"name": "test.scale", "configuration": {"factor": 2.0}}


def scaled(
    store=None, *, shape=(6, 4), chunks=(2, 2), fill_value=0.0, dtype="float64", extensions=(SCALE,), **kw
):
    return zf.create_array(
        store,
        shape=shape,
        chunks=chunks,
        dtype=dtype,
        fill_value=fill_value,
        extensions=list(extensions),
        **kw,
    )


def stored(array) -> np.ndarray:
    """The values as stored: the array opened with its extension entries removed."""
    key = f"{array.path}/zarr.json" if array.path else "zarr.json"
    document = json.loads(array.store.get(key))
    document.pop("extensions", None)
    copy = {k: array.store.get(k) for k in array.store.list()}
    copy[key] = json.dumps(document).encode()
    return zf.open_array(copy, path=array.path, mode="r")[...]


DATA = np.arange(24, dtype="float64").reshape(6, 4) - 7.5


def test_basic_writes_store_encoded_values_and_reads_decode_them():
    a = scaled()
    a[...] = DATA
    assert np.array_equal(stored(a), DATA / 2)
    assert np.array_equal(a[...], DATA) and np.array_equal(a[1:3, 2], DATA[1:3, 2])
    assert a[5, 3] == DATA[5, 3]


def test_every_selection_kind_goes_through_the_value_stage():
    a = scaled()
    a.oindex[[0, 4], [1, 3]] = [[1.0, 2.0], [3.0, 4.0]]
    a.vindex[[5, 2], [0, 0]] = [5.0, 6.0]
    mask = np.zeros((6, 4), dtype=bool)
    mask[3, 2] = True
    a.vindex[mask] = [7.0]
    a.blocks[2, 1] = [[8.0, 9.0], [10.0, 11.0]]
    expected = np.zeros((6, 4))
    expected[np.ix_([0, 4], [1, 3])] = [[1, 2], [3, 4]]
    expected[5, 0], expected[2, 0], expected[3, 2] = 5, 6, 7
    expected[4:6, 2:4] = [[8, 9], [10, 11]]
    assert np.array_equal(stored(a), expected / 2)
    assert np.array_equal(a[...], expected)
    assert np.array_equal(a.oindex[[0, 4], [1, 3]], expected[np.ix_([0, 4], [1, 3])])  # (4, 3): the block's 9
    assert np.array_equal(a.vindex[[5, 2], [0, 0]], [5, 6]) and np.array_equal(a.vindex[mask], [7])
    assert np.array_equal(a.blocks[2, 1], [[8, 9], [10, 11]])


def test_append_and_get_chunk_use_the_value_stage():
    a = scaled(shape=(2, 4))
    a[...] = DATA[:2]
    a.append(np.full((1, 4), 7.0))
    assert np.array_equal(a[2], [7.0] * 4)  # not 3.5, as appending past map_selection once read
    assert np.array_equal(stored(a)[2], [3.5] * 4)
    assert np.array_equal(a.get_chunk((0, 1)), DATA[:2, 2:4])
    assert np.array_equal(a.get_chunk((1, 0)), [[7.0, 7.0], [0.0, 0.0]])  # part fill: decoded 0


def test_the_fill_value_is_stored_an_unwritten_element_reads_it_decoded():
    a = scaled(fill_value=1.5)
    assert np.array_equal(a[...], np.full((6, 4), 3.0))
    assert np.array_equal(a.get_chunk((0, 0)), np.full((2, 2), 3.0))
    a[0:2, 0:2] = 3.0  # stored 1.5: all fill, judged on stored values, so nothing is stored
    assert list(a.stored_chunks()) == []
    a[0:2, 0:2] = 1.5  # stored 0.75
    assert list(a.stored_chunks()) == [(0, 0)]


def test_after_write_receives_the_users_values():
    a = scaled()
    a[0, :] = [2.0, 4.0, 6.0, 8.0]
    assert np.array_equal(Scale.seen_after_write[-1], [2.0, 4.0, 6.0, 8.0])


def test_entries_decode_in_document_order_and_encode_in_reverse():
    shift = {"name": "test.shift", "configuration": {"shift": 10.0}}
    a = scaled(extensions=(SCALE, shift))  # read = stored * 2 + 10
    a[0, 0] = 30.0
    assert stored(a)[0, 0] == 10.0 and a[0, 0] == 30.0
    b = scaled(extensions=(shift, SCALE))  # read = (stored + 10) * 2
    b[0, 0] = 30.0
    assert stored(b)[0, 0] == 5.0 and b[0, 0] == 30.0


def test_the_asyncio_api_and_its_gathered_reads_decode():
    a = scaled()
    a[...] = DATA

    async def go():
        array = await zfa.open_array(a.store)
        await array.setitem((0, 0), 100.0)
        return await asyncio.gather(
            array.getitem((0, 0)), array.getitem((slice(1, 3), 1)), array.getitem(...)
        )

    first, column, whole = asyncio.run(go())
    assert first == 100.0 and np.array_equal(column, DATA[1:3, 1])
    assert stored(a)[0, 0] == 50.0 and whole[0, 0] == 100.0


def test_dask_reads_and_writes_decode_and_encode():
    da = pytest.importorskip("dask.array")
    a = scaled()
    a[...] = DATA
    assert np.array_equal(zf.to_dask(a).compute(), DATA)
    target = scaled()
    zf.from_dask(da.from_array(DATA * 3, chunks=(2, 2)), target)
    assert np.array_equal(target[...], DATA * 3) and np.array_equal(stored(target), DATA * 3 / 2)


def test_copy_moves_stored_values_unchanged_when_the_destination_keeps_the_extension():
    odd = {"name": "test.scale", "configuration": {"factor": 3.0}}
    a = scaled(extensions=(odd,))
    values = np.array([[0.1, 0.7, 1e-300, 5e300]] * 6)
    a[...] = values
    before = stored(a)
    dest = zf.create_group(None)
    zf.copy(a.store, dest.store, dest_path="copied")
    copied = zf.open_array(dest.store, path="copied")
    assert copied.get_extension("test.scale").factor == 3.0
    assert stored(copied).tobytes() == before.tobytes()  # bit for bit, no decode and encode
    assert np.array_equal(copied[...], a[...])


def test_an_entry_with_a_value_stage_cannot_be_skipped():
    with pytest.raises(MetadataError) as info:
        scaled(extensions=({**SCALE, "must_understand": False},))
    assert info.value.field == "extensions[0].must_understand" and "changes the values" in str(info.value)
    a = zf.create_array(None, shape=(6, 4), chunks=(2, 2), dtype="float64")
    entry = Scale(2.0)
    entry.must_understand = False
    with pytest.raises(MetadataError, match="must_understand"):
        a.set_extension(entry)
    document = json.loads(a.store.get("zarr.json"))
    document["extensions"] = [{**SCALE, "must_understand": False}]
    a.store.set("zarr.json", json.dumps(document).encode())
    with pytest.raises(MetadataError, match=r"extensions\[0\]\.must_understand"):
        zf.open_array(a.store)


def test_a_stage_returning_another_dtype_is_the_plugins_failure_named():
    a = scaled(extensions=({"name": "test.wrong-type"},))
    a[0, 0] = 1.0  # encoding is fine
    with pytest.raises(PluginFailureError) as info:
        a[0, 0]
    assert "test.wrong-type" in str(info.value) and "float16" in str(info.value)


def test_an_array_without_a_value_stage_hands_out_the_engines_output_unchanged():
    a = zf.create_array(
        None, shape=(4,), dtype="int16", extensions=[{"name": "test.shift", "configuration": {}}]
    )
    a.remove_extension("test.shift")
    a[:] = [1, 2, 3, 4]
    assert np.array_equal(a[:], [1, 2, 3, 4])
