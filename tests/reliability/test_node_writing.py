"""New nodes are written whole or not at all (``zarrforge.nodes.node_writing.write_nodes``),
whichever call writes them: ``create_array``, ``create_group``, ``Group.create_*``,
``zarrforge.copy`` (its metadata) and the object model's ``to_zarr``.

Each case is run once to count the store writes it makes, then once for every k,
with the k-th write failing: the call raises, the store holds exactly what it held
before (consolidated views included), and running the call again gives the same
store as a run that never failed.
"""

from __future__ import annotations

import pytest

import zarrforge as zf
from zarrforge.errors import ContainsNodeError, NodeTypeError, StoreError
from zarrforge.testing.faults import Fail, FaultyStore, on
from zarrforge_std.stores.local import LocalStore
from zarrforge_std.stores.memory import MemoryStore
from zarrforge_zom import from_zarr, to_zarr

WRITES = ("set", "delete", "erase_prefix")


def _of_metadata(call) -> bool:
    """Writes of documents, and erasures (of replaced nodes): what writing nodes does. A
    copy goes on to write chunks (its data phase, tests/reliability/test_copy_resume.py)."""
    return call.method == "erase_prefix" or call.key.rsplit("/", 1)[-1] in (
        "zarr.json",
        ".zarray",
        ".zgroup",
        ".zattrs",
        ".zmetadata",
    )


def _snapshot(store) -> dict[str, bytes]:
    return {key: store.get(key) for key in sorted(store.list())}


def _consolidated_root(store) -> None:
    root = zf.create_group(store, attributes={"title": "root"})
    root.create_array("old", shape=(4,), chunks=(2,), dtype="i4")[...] = [1, 2, 3, 4]
    zf.consolidate_metadata(store)


def _source_tree():
    source = zf.create_group(MemoryStore(), attributes={"k": 1})
    source.create_array("a", shape=(6,), chunks=(3,), dtype="f4")[...] = [0, 1, 2, 3, 4, 5]
    source.create_group("g").create_array("b", shape=(2, 2), chunks=(1, 2), dtype="u1")
    return source


def _zom_spec():
    model = zf.create_group(MemoryStore(), attributes={"zom": True})
    model.create_array("x", shape=(4, 4), chunks=(2, 2), dtype="i2", attributes={"units": "m"})
    model.create_group("sub").create_array("y", shape=(4, 4), chunks=(2, 2), dtype="i2")
    return from_zarr(model)


CASES = {
    "create_array with parents": lambda s: zf.create_array(
        s, "new/deep/a", shape=(4,), chunks=(2,), dtype="i4"
    ),
    "create_group with parents": lambda s: zf.create_group(s, "new/deep/g", attributes={"a": 1}),
    "Group.create_array": lambda s: zf.open_group(s, mode="r+").create_array(
        "member", shape=(3,), dtype="u2"
    ),
    "overwrite an array": lambda s: zf.create_array(s, "old", shape=(2,), dtype="f8", overwrite=True),
    "copy a hierarchy": lambda s: zf.copy(_source_tree(), s, dest_path="copied"),
    "zom to_zarr": lambda s: to_zarr(_zom_spec(), s, "modelled"),
}


@pytest.fixture(params=["memory", "local"])
def make_store(request, tmp_path):
    counter = iter(range(1000))

    def make():
        if request.param == "memory":
            store = MemoryStore()
        else:
            store = LocalStore(tmp_path / f"store{next(counter)}")
        _consolidated_root(store)
        return store

    return make


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_failed_write_of_new_nodes_leaves_the_store_as_it_was(make_store, case):
    write = CASES[case]
    reference = make_store()
    counting = FaultyStore(reference)
    write(counting)
    expected = _snapshot(reference)
    writes = sum(call.method in WRITES and _of_metadata(call) for call in counting.calls)
    assert writes >= 2, "the case should make several writes"

    for k in range(1, writes + 1):
        inner = make_store()
        before = _snapshot(inner)
        faulty = FaultyStore(inner)
        faulty.add(on(WRITES, nth=k, where=_of_metadata), Fail(), times=1)
        with pytest.raises(StoreError):
            write(faulty)
        if case == "overwrite an array" and _snapshot(inner) != before:
            # overwrite erases the node it replaces first (on purpose); after that, the
            # new node is written whole or not at all: here, not, and the view agrees
            assert not any(key.startswith("old/") for key in _snapshot(inner)), f"k={k}"
            assert "old" not in zf.open_group(inner, mode="r"), f"k={k}: the view lists it"
            assert "old" not in zf.open_group(inner, mode="r", use_consolidated=False)
        else:
            assert _snapshot(inner) == before, f"k={k}: the failed write changed the store"
            assert zf.open_group(inner, mode="r")["old"][...].tolist() == [1, 2, 3, 4]
        write(inner)
        assert _snapshot(inner) == expected, f"k={k}: the retry differs from a clean write"


def test_the_rollback_keeps_data_of_others_below_a_new_parent():
    store = MemoryStore()
    store.set("parent/notes.txt", b"not zarrforge's")  # no node at parent, yet
    faulty = FaultyStore(store)
    faulty.add(on("set", "parent/child/zarr.json"), Fail())
    with pytest.raises(StoreError):
        zf.create_array(faulty, "parent/child", shape=(2,), dtype="i1")
    assert _snapshot(store) == {"parent/notes.txt": b"not zarrforge's"}


def test_zom_refuses_a_node_under_another_format_as_creation_does():
    store = MemoryStore()
    zf.create_group(store, zarr_format=2)
    before = _snapshot(store)
    with pytest.raises(NodeTypeError, match="under the Zarr 2 node '/'"):
        zf.create_group(store, "below", zarr_format=3)
    with pytest.raises(NodeTypeError, match="under the Zarr 2 node '/'"):
        to_zarr(_zom_spec(), store, "below")
    assert _snapshot(store) == before


def test_nodes_in_the_way_below_a_new_root_are_listed_and_nothing_is_written():
    store = MemoryStore()
    zf.create_group(store, "modelled/sub")
    zf.create_array(store, "modelled/x", shape=(1,), dtype="i1")
    store.delete("modelled/zarr.json")  # the root of the tree is missing, two members are not
    before = _snapshot(store)
    with pytest.raises(ContainsNodeError, match="'/modelled/sub', '/modelled/x'"):
        to_zarr(_zom_spec(), store, "modelled")
    assert _snapshot(store) == before
    to_zarr(_zom_spec(), store, "modelled", overwrite=True)
    assert zf.open_group(store, "modelled").attrs["zom"] is True
    assert zf.open_array(store, "modelled/x").shape == (4, 4)


class _MarkerWatch(MemoryStore):
    """A memory store that notes, at each delete of another key, whether the
    unfinished-write marker at the root is there."""

    def __init__(self) -> None:
        super().__init__()
        self.marked_at_deletes: list[tuple[str, bool]] = []

    def _delete(self, key: str) -> None:
        if key != "__zarrforge_unfinished.json":
            self.marked_at_deletes.append((key, self.exists("__zarrforge_unfinished.json")))
        super()._delete(key)


def _group_with_data(store) -> None:
    root = zf.create_group(store, attributes={"v": "old"})
    for name in ("a", "b"):
        root.create_array(name, shape=(4,), chunks=(2,), dtype="i4")[...] = [1, 2, 3, 4]


def test_an_overwrite_keeps_its_marker_through_every_delete_of_the_erasure():
    """Before (issue #44): erasing the replaced root took the marker along first, so a
    process killed during the erasure or after it left partial data unmarked."""
    store = _MarkerWatch()
    _group_with_data(store)
    zf.create_group(store, attributes={"v": "new"}, overwrite=True)
    deleted = [key for key, _ in store.marked_at_deletes]
    assert {"zarr.json", "a/zarr.json", "a/c/0", "b/c/1"} <= set(deleted)
    assert all(marked for _, marked in store.marked_at_deletes), store.marked_at_deletes
    assert deleted.index("a/zarr.json") < deleted.index("a/c/0")  # documents first
    assert zf.unfinished_write(store) is None  # and taken down at the end
    assert dict(zf.open_group(store, mode="r").attrs) == {"v": "new"}


def test_an_erasure_that_fails_partway_leaves_its_leftovers_marked():
    store = MemoryStore()
    _group_with_data(store)
    faulty = FaultyStore(store)
    faulty.add(on("delete", "a/c/1"), Fail())
    with pytest.raises(StoreError):
        zf.create_group(faulty, attributes={"v": "new"}, overwrite=True)
    assert "a/c/1" in _snapshot(store)  # the old group is neither whole nor gone ...
    assert "zarr.json" not in _snapshot(store)
    found = zf.unfinished_write(store)  # ... and says so
    assert found is not None and found.operation == "create_group"
    with pytest.raises(zf.errors.UnfinishedWriteError, match="create_group"):
        zf.create_group(store, attributes={"v": "new"})
    zf.create_group(store, attributes={"v": "new"}, overwrite=True)
    assert _snapshot(store).keys() == {"zarr.json"}


def test_an_erasure_that_fails_before_deleting_anything_leaves_the_old_node_unmarked():
    store = MemoryStore()
    _group_with_data(store)
    before = _snapshot(store)
    faulty = FaultyStore(store)
    faulty.add(on("delete", "zarr.json"), Fail())  # the first key the erasure deletes
    with pytest.raises(StoreError):
        zf.create_group(faulty, attributes={"v": "new"}, overwrite=True)
    assert _snapshot(store) == before
