"""Unknown keywords to the opening and creating functions (issue #48): a ``TypeError``
naming the keyword and, where a known one is close, that one, raised before the node is
looked up; zarr-python 2's keywords that zarr-python 3 still takes are ignored with a
warning or refused, as ``zarrforge.create`` does them."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

import zarrforge as zf
import zarrforge.asyncio as zfa
from zarrforge.errors import IgnoredKeywordWarning
from zarrforge.user_api.keywords import checked_keywords, keywords_of, refuse_unknown


class CountingStore(zf.storage.MemoryStore):
    """A memory store that counts every read and listing (none may happen)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def get(self, key: str, byte_range: Any = None) -> bytes | None:
        self.calls += 1
        return super().get(key, byte_range)

    def exists(self, key: str) -> bool:
        self.calls += 1
        return super().exists(key)

    def list_dir(self, prefix: str) -> Any:
        self.calls += 1
        return super().list_dir(prefix)


@pytest.fixture
def store() -> CountingStore:
    s = CountingStore()
    zf.create_array(s, "a", shape=(4,), dtype="int32")
    zf.create_group(s, "g")
    s.calls = 0
    return s


def expect(keyword: str, closest: str | None) -> Any:
    hint = f"; did you mean {closest!r}?" if closest else ""
    message = f"unexpected keyword argument {keyword!r}{hint}"
    return pytest.raises(TypeError, match=re.escape(message) + ("$" if closest is None else ""))


@pytest.mark.parametrize(
    ("call", "keyword", "closest"),
    [
        (lambda s: zf.open_array(s, "a", fill_valu=3), "fill_valu", "fill_value"),
        (lambda s: zf.open_array(s, "a", threds=2), "threds", "threads"),
        (lambda s: zf.open_array(s, "a", bogus_option=7), "bogus_option", None),
        (lambda s: zf.open(s, "a", read_onl=True), "read_onl", "read_only"),
        (lambda s: zf.open(s, "g", use_consolidate=False), "use_consolidate", "use_consolidated"),
        (lambda s: zf.open_group(s, "g", mdoe="r"), "mdoe", "mode"),
        (lambda s: zf.create_array(s, "b", shape=(3,), dtype="i4", chunk=(2,)), "chunk", "chunks"),
        (lambda s: zf.create_array(s, "b", shape=(3,), dtype="i4", orderr="C"), "orderr", "order"),
        (lambda s: zf.create_group(s, "h", attributs={}), "attributs", "attributes"),
        (lambda s: zf.create(shape=(3,), store=s, path="b", chunk_shap=2), "chunk_shap", "chunk_shape"),
        (lambda s: zf.group(s, overwite=True), "overwite", "overwrite"),
        (lambda s: zf.open_group(s, "g").create_array("b", shape=(3,), dtpye="i4"), "dtpye", "dtype"),
    ],
    ids=[
        "open_array",
        "open_array-option",
        "open_array-nothing-close",
        "open",
        "open-group",
        "open_group",
        "create_array",
        "create_array-option",
        "create_group",
        "zarr-create",
        "zarr-group",
        "Group.create_array",
    ],
)
def test_an_unknown_keyword_names_itself_and_the_closest_known_one(store, call, keyword, closest):
    with expect(keyword, closest):
        call(store)


@pytest.mark.parametrize(
    "call",
    [
        lambda s: zf.open_array(s, "a", chunk_cach=5),
        lambda s: zf.open(s, "a", chunk_cach=5),
        lambda s: zf.open_group(s, "g", chunk_cach=5),
        lambda s: zf.create_array(s, "b", shape=(3,), chunk_cach=5),
    ],
    ids=["open_array", "open", "open_group", "create_array"],
)
def test_it_is_raised_before_the_store_is_read(store, call):
    with pytest.raises(TypeError, match="chunk_cach"):
        call(store)
    assert store.calls == 0
    assert "b" not in {name for name, _ in zf.open_group(store).members()}


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("open_array", {"path": "a", "fill_valu": 3}),
        ("open", {"path": "a", "fill_valu": 3}),
        ("open_group", {"path": "g", "fill_valu": 3}),
        ("create_array", {"path": "b", "shape": (3,), "dtype": "i4", "fill_valu": 3}),
    ],
)
def test_the_asyncio_functions_raise_the_same(store, name, kwargs):
    async def call() -> Any:
        return await getattr(zfa, name)(store, **kwargs)

    with pytest.raises(TypeError, match=re.escape("'fill_valu'")):
        asyncio.run(call())


def test_known_keywords_still_open_and_create(store):
    a = zf.open_array(store, "a", threads=2, order="C", write_empty_chunks=True, mode="r+")
    assert a.shape == (4,)
    assert zf.open(store, "a", threads=1).shape == (4,)
    assert zf.open_group(store, "g", mode="r", use_consolidated=False).path == "g"
    b = zf.open_array(store, "b", mode="a", shape=(5,), dtype="i2", chunks=(2,), fill_value=1)
    assert (b.shape, b.chunks, b.fill_value) == ((5,), (2,), 1)


def test_zarr_python_2_keywords_are_ignored_or_refused_when_opening(store):
    with pytest.warns(IgnoredKeywordWarning, match="cache_attrs= is ignored") as caught:
        zf.open_array(store, "a", cache_attrs=True)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    with pytest.raises(TypeError, match="chunk_store= is not supported"):
        zf.open_array(store, "a", chunk_store={})
    assert zf.open_array(store, "a", zarr_version=3).metadata.zarr_format == 3
    with pytest.raises(ValueError, match="disagree"):
        zf.open(store, "a", zarr_version=2, zarr_format=3)


def test_the_helpers():
    def f(a: int, *, b: int = 0, _internal: int = 0, **rest: Any) -> int:
        return a + b

    assert keywords_of(f) == {"a", "b"}
    refuse_unknown("f", ["a", "b"], {"a", "b"})  # all known: nothing raised
    with pytest.raises(TypeError, match=r"f\(\) got an unexpected keyword argument 'c'$"):
        refuse_unknown("f", ["a", "c"], {"a", "b"})

    @checked_keywords
    def g(x: int, *, width: int = 1, _depth: int = 0) -> int:
        """g's docstring"""
        return x * width + _depth

    assert g(2, width=3, _depth=1) == 7  # internal keywords are accepted, never suggested
    assert g.__doc__ == "g's docstring" and g.__name__ == "g"
    with pytest.raises(
        TypeError, match=re.escape("g() got an unexpected keyword argument 'widht'; did you mean 'width'?")
    ):
        g(2, widht=3)
    with pytest.raises(TypeError, match=re.escape("unexpected keyword argument '_dept'") + "$") as raised:
        g(2, _dept=1)
    assert "_depth" not in str(raised.value)
    with pytest.raises(TypeError, match=r"takes \*\*kwargs"):
        checked_keywords(f)  # a function reading **kwargs checks them itself
