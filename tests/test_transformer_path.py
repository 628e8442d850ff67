"""A storage transformer's ``wrap`` receives the array's node path when it declares the
keyword ``path`` (or ``**kwargs``); one written before the keyword existed is called as
before (``zarrforge.abc.storage_transformer.wrap_store``)."""

from __future__ import annotations

import pytest

import zarrforge as zf
from zarrforge.abc import StorageTransformer
from zarrforge.abc.storage_transformer import ChunkKeys, wrap_store
from zarrforge.abc.store import WrapperStore

SEEN: list[tuple[str, object]] = []


class _Base(StorageTransformer):
    @classmethod
    def from_json(cls, name, configuration):
        return cls()

    def to_json(self):
        return {"name": self.name}


class WithPath(_Base):
    name = "test.with-path"

    def wrap(self, store, keys, metadata, *, path=None):
        SEEN.append((self.name, path))
        return WrapperStore(store)


class WithKwargs(_Base):
    name = "test.with-kwargs"

    def wrap(self, store, keys, metadata, **options):
        SEEN.append((self.name, options["path"]))
        return WrapperStore(store)


class OldStyle(_Base):
    name = "test.old-style"

    def wrap(self, store, keys, metadata):  # written before wrap took a path
        SEEN.append((self.name, "no path"))
        return WrapperStore(store)


@pytest.fixture(autouse=True)
def registered():
    SEEN.clear()
    for cls in (WithPath, WithKwargs, OldStyle):
        zf.register("storage_transformers", cls.name, cls)
    yield
    for cls in (WithPath, WithKwargs, OldStyle):
        zf.registry.storage_transformers.unregister(cls.name)


@pytest.mark.parametrize("path", ["", "a", "a/b/c"])
def test_wrap_receives_the_node_path_of_the_array(path):
    array = zf.create_array(
        None,
        path,
        shape=(4,),
        chunks=(2,),
        dtype="int8",
        storage_transformers=[{"name": WithPath.name}, {"name": WithKwargs.name}],
    )
    array[:] = [1, 2, 3, 4]
    assert zf.open_array(array.store, path)[:].tolist() == [1, 2, 3, 4]
    assert set(SEEN) == {(WithPath.name, path), (WithKwargs.name, path)}


def test_a_wrap_without_the_path_keyword_is_called_as_before():
    array = zf.create_array(
        None,
        "x/y",
        shape=(4,),
        chunks=(2,),
        dtype="int8",
        storage_transformers=[{"name": OldStyle.name}, {"name": WithPath.name}],
    )
    array[:] = 7
    assert array[:].tolist() == [7] * 4
    assert set(SEEN) == {(OldStyle.name, "no path"), (WithPath.name, "x/y")}


def test_wrap_store_passes_none_for_a_hierarchy_wide_wrap():
    keys = ChunkKeys(lambda coords: "never", lambda key: None)
    store = zf.create_group(None).store
    assert isinstance(wrap_store(WithPath(), store, keys, None, path=None), WrapperStore)
    wrap_store(OldStyle(), store, keys, None, path=None)
    assert SEEN == [(WithPath.name, None), (OldStyle.name, "no path")]
