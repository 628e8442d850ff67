"""The metadata format conformance suite (the ``formats`` extension point).

Subclass :class:`FormatConformance` and set:

* ``format_name``: the format's registered name (``"3"``, ``"2"``, ``"draft-2022"``);
* ``array_cases``: keyword arguments of ``create_array`` (``shape``, ``chunks``,
  ``dtype``, ``fill_value``, ``compressors``...) for arrays the format can write; each is
  created, written and read back (default: an int32 and a float64 array, edge chunks
  included);
* ``attributes``: the attributes written on every node (default: nested JSON, unicode,
  ``None``, booleans, large and negative numbers);
* ``document_keys(self, path)``: a method giving the store keys of the documents of the
  node at ``path`` (``["a/zarr.json"]`` for v3), for the damaged-document checks;
* ``max_examples`` (default 40) and ``shrink`` (default ``True``) for hypothesis;
* ``shared_store(tmp_path)``: a store location (a URL or path) that other processes can
  open too, for the concurrent-writer cases (default: a local directory below
  ``tmp_path``); ``writer_processes`` (default 3) and ``writer_rounds`` (default 8).

What it checks, against :mod:`zarrforge.abc.format`: the name resolves through the
installed ``zarrforge.formats`` registry to a :class:`~zarrforge.abc.format.Format` of
that name; in a hierarchy it creates (a root group, a subgroup, one array per case),
``detect`` finds every node and nothing where there is none, ``read_document`` gives each
node's type and ``resolve`` its model, ``list_children`` and ``child_documents`` name
exactly the children, ``document`` is JSON, the attributes and every array's values read
back, after reopening too, ``chunk_key`` and ``chunk_coords`` are inverse over every
chunk and no document key is taken for a chunk, ``stored_chunks`` names the chunks
written, ``with_attributes`` changes the attributes and nothing else, and ``erase_node``
removes a node with its chunks and leaves its sibling; the nodes of every other installed
format are not taken for this format's; with this format not installed
(``registry.formats.hidden``), each node it wrote is refused by name
(:class:`~zarrforge.errors.UnreadableNodeError`) when opened for reading, opened or
created over with another installed format (the configured default set to it), or
created below, and the store is left byte for byte (with no other format installed, the
reads alone are checked); and a node's documents damaged (each top-level
key deleted in turn, then hypothesis-chosen values put in place of its keys, or bytes
that are not JSON) open, read and list as a node or raise a zarrforge error, never
another exception, a ``MetadataError`` from reading naming the document's key; and
attribute updates from several writers lose nothing: one update meeting another
writer's change between its read and its write (made certain by a store wrapper)
keeps both, and processes each adding their own keys to one node end with every key;
and processes creating groups below one group at once, deleting every other one,
leave exactly the groups not deleted, found by ``detect`` and listed by
``list_children`` (a format keeping its nodes in one document rewritten without
conditional writes loses some). The writer processes are spawned, or forked for a
format registered in this process only (a spawned process would not know it). Each failure
names the case and the property, in a sentence.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

import zarrforge as zf

from ..abc.format import Format
from ..errors import MetadataError, NodeNotFoundError, PluginFailureError, UnreadableNodeError, ZarrforgeError
from ..hierarchy_api import candidate_keys, get_format, installed_formats
from ..plugin_api import config, registry
from ._common import hypothesis_settings
from .cross_process import run_processes
from .faults import ChangeBetweenReads
from .kit_store import KitMemoryStore
from .scaffolding import KitScaffolding

DEFAULT_ARRAY_CASES = [
    {"shape": (9, 13), "chunks": (4, 5), "dtype": "int32", "fill_value": 0},
    {"shape": (7,), "chunks": (3,), "dtype": "float64", "fill_value": -1.5},
]
DEFAULT_ATTRIBUTES = {
    "title": "conformance",
    "nested": {"list": [1, 2.5, None, True, False]},
    "unicode": "é∂ 测试",
    "big": 2**62,
    "negative": -7,
    "empty": {},
}


def _memory_store() -> Any:
    return KitMemoryStore()  # the kit's own: no store plugin needed


def add_attribute_keys(location: str, path: str, rounds: int, worker: int) -> None:
    """A writer process: add the attributes ``w<worker>-<r>`` to the node at ``path``."""
    array = zf.open_array(location, path, mode="r+")
    for r in range(rounds):
        array.attrs[f"w{worker}-{r}"] = r


def create_and_delete_nodes(location: str, name: str, rounds: int, worker: int) -> None:
    """A writer process: create groups ``n/w<worker>-<i>``, deleting each even one once
    the next is created."""
    group = zf.open_group(location, "n", mode="r+", zarr_format=name)
    vanished = []
    for i in range(rounds):
        group.create_group(f"w{worker}-{i}")
        if i % 2:
            try:
                del group[f"w{worker}-{i - 1}"]
            except NodeNotFoundError:
                vanished.append(f"n/w{worker}-{i - 1}")
    if vanished:
        raise AssertionError(f"groups this writer created were gone when it came to delete them: {vanished}")


class FormatConformance(KitScaffolding):
    format_name: str = ""
    array_cases: list[dict[str, Any]] = DEFAULT_ARRAY_CASES
    attributes: dict[str, Any] = DEFAULT_ATTRIBUTES
    max_examples = 40
    shrink = True
    writer_processes = 3
    writer_rounds = 8

    def shared_store(self, tmp_path: Any) -> str:
        """A store location other processes can open (a local directory by default)."""
        return str(tmp_path / "shared.zarr")

    def document_keys(self, path: str) -> list[str]:
        raise NotImplementedError("return the store keys of the documents of the node at path")

    # --- helpers ----------------------------------------------------------------------------

    def _format(self) -> Format:
        assert self.format_name, "set format_name to the format's registered name"
        return get_format(self.format_name)

    def _settings(self) -> Any:
        return hypothesis_settings(self.max_examples, self.shrink)

    def _values(self, case: dict[str, Any], seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return (rng.random(case["shape"]) * 1000 - 500).astype(case["dtype"])

    def _hierarchy(self) -> tuple[Any, dict[str, np.ndarray]]:
        """A store holding a root group, "g", and "g/a<i>" for each array case (written)."""
        store = _memory_store()
        zf.create_group(store, zarr_format=self.format_name, attributes=self.attributes)
        zf.create_group(store, "g", zarr_format=self.format_name, attributes=self.attributes)
        written = {}
        for i, case in enumerate(self.array_cases):
            path = f"g/a{i}"
            array = zf.create_array(
                store, path, zarr_format=self.format_name, attributes=self.attributes, **case
            )
            written[path] = self._values(case, i)
            array[...] = written[path]
        return store, written

    # --- the tests --------------------------------------------------------------------------

    def test_name_resolves_to_a_format_of_that_name(self):
        registered = registry.formats.get(self.format_name)
        assert isinstance(registered, type) and issubclass(registered, Format), (
            f"format {self.format_name!r}: the registry gives {registered!r}, not a Format subclass"
        )
        assert self._format().name == self.format_name, (
            f"format {self.format_name!r}: its name attribute is {self._format().name!r}"
        )

    def test_a_hierarchy_is_found_listed_and_read_back(self):
        name = self.format_name
        fmt = self._format()
        store, written = self._hierarchy()
        kinds = {"": "group", "g": "group", **dict.fromkeys(written, "array")}
        for path, kind in kinds.items():
            where = f"format {name!r}, node {'/' + path!r}"
            assert fmt.detect(store, path), f"{where}: detect() does not find the node it wrote"
            document = fmt.read_document(store, path)
            assert document is not None and document.node_type == kind, (
                f"{where}: read_document() gives {document!r}, not a {kind}"
            )
            metadata = fmt.resolve(document)
            rendered = fmt.document(metadata)
            assert json.loads(json.dumps(rendered)) == rendered, f"{where}: document() is not JSON"
        for missing in ("nope", "g/nope", "g/a0/nope"):
            assert not fmt.detect(store, missing), f"format {name!r}: detect() finds {missing!r}"
            assert fmt.read_document(store, missing) is None, (
                f"format {name!r}: read_document() gives a node at {missing!r}, where none is"
            )
        assert sorted(fmt.list_children(store, "")) == ["g"], (
            f"format {name!r}: list_children of the root is {fmt.list_children(store, '')}, not ['g']"
        )
        names = sorted(path.split("/")[1] for path in written)
        assert sorted(fmt.list_children(store, "g")) == names, (
            f"format {name!r}: list_children('g') is {sorted(fmt.list_children(store, 'g'))}; "
            f"the children written are {names}"
        )
        documented = sorted(child for child, _ in fmt.child_documents(store, "g"))
        assert documented == names, (
            f"format {name!r}: child_documents('g') names {documented}; the children are {names}"
        )
        group = zf.open_group(store, "g", mode="r", zarr_format=name)
        assert group.attrs.asdict() == self.attributes, (
            f"format {name!r}: the group's attributes read back as {group.attrs.asdict()!r}"
        )
        for path, values in written.items():
            array = zf.open_array(store, path, mode="r", zarr_format=name)
            assert np.array_equal(array[...], values), (
                f"format {name!r}, array {path!r}: reads back other values than were written"
            )
            assert array.attrs.asdict() == self.attributes, (
                f"format {name!r}, array {path!r}: attributes read back as {array.attrs.asdict()!r}"
            )

    def test_chunk_keys_and_coordinates_are_inverse(self):
        name = self.format_name
        fmt = self._format()
        store, written = self._hierarchy()
        for path in written:
            where = f"format {name!r}, array {path!r}"
            metadata = fmt.read_node(store, path)
            grid = tuple(-(-n // c) for n, c in zip(metadata.shape, _chunk_shape(metadata)))
            keys = set()
            for coords in np.ndindex(*grid):
                key = fmt.chunk_key(path, metadata, coords)
                back = fmt.chunk_coords(path, metadata, key)
                assert back is not None and tuple(back) == tuple(coords), (
                    f"{where}: chunk {coords} is stored at {key!r}, which chunk_coords() reads back as {back}"
                )
                keys.add(key)
            assert len(keys) == int(np.prod(grid)), f"{where}: two chunks share a key"
            for key in self.document_keys(path):
                assert fmt.chunk_coords(path, metadata, key) is None, (
                    f"{where}: chunk_coords() takes the document {key!r} for a chunk"
                )
            stored = sorted(tuple(c) for c in fmt.stored_chunks(store, path, metadata))
            assert stored == sorted(np.ndindex(*grid)), (
                f"{where}: stored_chunks() names {stored}, not every chunk of the grid {grid}"
            )

    def test_attributes_change_alone_and_erase_removes_one_node(self):
        name = self.format_name
        fmt = self._format()
        store, written = self._hierarchy()
        first, *rest = sorted(written)
        metadata = fmt.read_node(store, first)
        changed = fmt.with_attributes(metadata, {"other": [1, 2]})
        assert changed.attributes == {"other": [1, 2]}, (
            f"format {name!r}: with_attributes() gives attributes {changed.attributes!r}"
        )
        before, after = fmt.document(metadata), fmt.document(changed)
        differing = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        assert len(differing) <= 1, (
            f"format {name!r}: with_attributes() changes {differing} of the document; only "
            "the attributes may change"
        )
        chunk_keys = [fmt.chunk_key(first, metadata, c) for c in fmt.stored_chunks(store, first, metadata)]
        fmt.erase_node(store, first)
        assert not fmt.detect(store, first), f"format {name!r}: {first!r} is found after erase_node"
        left = [key for key in chunk_keys if store.get(key) is not None]
        assert not left, f"format {name!r}: erase_node({first!r}) left its chunks {left}"
        for path in rest:
            again = zf.open_array(store, path, mode="r", zarr_format=name)
            assert np.array_equal(again[...], written[path]), (
                f"format {name!r}: erasing {first!r} changed its sibling {path!r}"
            )

    def test_an_attribute_update_racing_another_writer_keeps_both(self, tmp_path):
        name = self.format_name
        location = self.shared_store(tmp_path)
        zf.create_array(
            location, "a", shape=(4,), chunks=(2,), dtype="int32", zarr_format=name, attributes={"before": 0}
        )
        other = zf.open_array(location, "a", mode="r+")
        mine = zf.open_array(location, "a", mode="r+")
        wrapper = ChangeBetweenReads(
            mine.store, lambda: other.attrs.__setitem__("theirs", 1), versioned_only=True
        )
        if not wrapper.capabilities.conditional_writes:
            raise AssertionError(
                f"format {name!r}: shared_store() gives {mine.store!r}, which has no "
                "conditional writes; give a store location that has them"
            )
        zf.open_array(wrapper, "a", mode="r+").attrs["mine"] = 2
        assert wrapper.reads, f"format {name!r}: an attribute update read nothing versioned"
        got = dict(zf.open_array(location, "a").attrs)
        assert got == {"before": 0, "theirs": 1, "mine": 2}, (
            f"format {name!r}: another writer set 'theirs' between this update's read and its "
            f"write, and the attributes are now {got}: an update was lost"
        )

    def _start_method(self) -> str:
        """``fork`` for a format registered in this process only (a spawned process would
        not know it), else ``spawn``."""
        in_process = any(
            entry.name == self.format_name and entry.source == "in-process"
            for entry in registry.formats.entries()
        )
        return "fork" if in_process else "spawn"

    def test_attribute_updates_from_several_writers_lose_nothing(self, tmp_path):
        name = self.format_name
        location = self.shared_store(tmp_path)
        zf.create_array(location, "a", shape=(4,), chunks=(2,), dtype="int32", zarr_format=name)
        rounds, count = self.writer_rounds, self.writer_processes
        failures = run_processes(
            add_attribute_keys, (location, "a", rounds), count, method=self._start_method()
        )
        assert not failures, f"format {name!r}: a writer process failed:\n" + "\n".join(failures)
        got = dict(zf.open_array(location, "a").attrs)
        expected = {f"w{w}-{r}": r for w in range(count) for r in range(rounds)}
        lost = sorted(set(expected) - set(got))
        wrong = sorted(k for k in expected if k in got and got[k] != expected[k])
        assert not lost and not wrong, (
            f"format {name!r}: {count} processes each added {rounds} attributes to node '/a' "
            f"and {len(lost)} are missing ({lost[:5]}), {len(wrong)} hold other values "
            f"({[(k, got[k], expected[k]) for k in wrong[:3]]} as (key, found, expected)): "
            "an update was lost"
        )

    def test_processes_creating_and_deleting_nodes_lose_nothing(self, tmp_path):
        name = self.format_name
        location = self.shared_store(tmp_path)
        zf.create_group(location, "n", zarr_format=name)
        rounds, count = self.writer_rounds * 2, self.writer_processes
        failures = run_processes(
            create_and_delete_nodes, (location, name, rounds), count, method=self._start_method()
        )
        kept = {f"w{w}-{i}" for w in range(count) for i in range(rounds) if i % 2 or i == rounds - 1}
        deleted = {f"w{w}-{i}" for w in range(count) for i in range(rounds)} - kept
        group = zf.open_group(location, "n", mode="r", zarr_format=name)
        fmt, store = self._format(), group.store
        found = {child for child in kept | deleted if fmt.detect(store, f"n/{child}")}
        listed = set(fmt.list_children(store, "n"))
        lost, back = sorted(kept - found), sorted(deleted & found)
        unlisted, stale = sorted(kept - listed), sorted(listed - kept)
        assert not (failures or lost or back or unlisted or stale), (
            f"format {name!r}: {count} processes each created {rounds} groups below '/n' at "
            f"once, deleting every other one; expected the {len(kept)} groups "
            f"{sorted(kept)[:4]}... and no other. Lost (not found by detect()): {len(lost)} "
            f"{lost[:6]}; deleted but found: {back[:6]}; not listed by list_children('n'): "
            f"{unlisted[:6]}; listed but not expected: {stale[:6]}; writers that failed: "
            + ("\n".join(failures) or "none")
        )

    def test_other_formats_nodes_are_not_taken_for_this_ones(self):
        fmt = self._format()
        for other in installed_formats():
            if other == self.format_name:
                continue
            store = _memory_store()
            try:
                zf.create_group(store, "g", zarr_format=other)
                zf.create_array(store, "g/a", shape=(3,), chunks=(2,), dtype="int8", zarr_format=other)
            except ZarrforgeError:
                continue  # a format that cannot write these nodes has nothing to confuse
            for path in ("g", "g/a"):
                assert not fmt.detect(store, path), (
                    f"format {self.format_name!r}: detect() takes the format {other!r}'s node "
                    f"{path!r} for one of its own"
                )

    def test_its_nodes_are_never_written_over_where_it_is_not_installed(self):
        name = self.format_name
        store, written = self._hierarchy()
        before = {key: store.get(key) for key in store.list()}
        writers = [other for other in installed_formats() if other != name]
        with registry.formats.hidden(name), config.set(default_format=writers[0] if writers else name):
            for path in ["", "g", *written]:
                where = f"format {name!r} not installed, node {'/' + path!r}"
                calls = [("zarrforge.open(mode='r')", lambda: zf.open(store, path, mode="r"))]  # noqa: B023  # called before the loop moves on
                if writers:  # with no other format installed, nothing could write here
                    calls += [
                        ("open_group (mode 'a')", lambda: zf.open_group(store, path)),  # noqa: B023  # called before the loop moves on
                        (
                            "open_array(mode='a', shape=...)",
                            lambda: zf.open_array(store, path, mode="a", shape=(2,), dtype="int8"),  # noqa: B023  # called in this iteration
                        ),
                        ("create_group", lambda: zf.create_group(store, path)),  # noqa: B023  # called before the loop moves on
                        (
                            "create_array below it",
                            lambda: zf.create_array(
                                store,
                                f"{path}/new" if path else "new",  # noqa: B023  # called in this iteration
                                shape=(2,),
                                dtype="int8",
                            ),
                        ),
                    ]
                for what, call in calls:
                    try:
                        call()
                    except UnreadableNodeError as exc:
                        assert exc.key is not None and exc.key in str(exc), (
                            f"{where}: {what} refused without naming the document: {exc}"
                        )
                        continue
                    except ZarrforgeError as exc:
                        raise AssertionError(
                            f"{where}: {what} raised {type(exc).__name__} ({exc}), not "
                            "UnreadableNodeError naming the document no installed format "
                            "reads"
                        ) from exc
                    raise AssertionError(
                        f"{where}: {what} went through, as if nothing were there. zarrforge "
                        "knows a node of a format that is not installed only by the "
                        "documents it finds at zarrforge.hierarchy_api.candidate_keys(path) "
                        f"({candidate_keys(path)}); this format's are "
                        f"{self.document_keys(path) if path in written else 'elsewhere'}: "
                        "keep them under one of those names (a zarr.json with a zarr_format "
                        "of your own, say)"
                    )
        after = {key: store.get(key) for key in store.list()}
        assert after == before, (
            f"format {name!r}: with it not installed, calls that should have been refused "
            f"changed the store: keys added {sorted(set(after) - set(before))[:6]}, removed "
            f"{sorted(set(before) - set(after))[:6]}, changed "
            f"{sorted(k for k in before if k in after and after[k] != before[k])[:6]}"
        )

    def test_damaged_documents_open_or_raise_a_zarrforge_error(self):
        from hypothesis import given
        from hypothesis import strategies as st

        name = self.format_name
        store, written = self._hierarchy()
        path = sorted(written)[0]
        originals = {key: store.get(key) for key in self.document_keys(path)}
        assert all(v is not None for v in originals.values()), (
            f"format {name!r}: document_keys({path!r}) names keys holding nothing: "
            f"{[k for k, v in originals.items() if v is None]}"
        )

        def attempt(key: str, damaged: bytes, how: str) -> None:
            store.set(key, damaged)
            try:
                # a damaged shape can describe terabytes or millions of chunks: such a
                # read is refused before its chunks are listed, not tried
                with zf.config.set(max_request_bytes=_READ_LIMIT):
                    array = zf.open_array(store, path, mode="r", zarr_format=name)
                    array[...]
                    zf.open_group(store, "g", mode="r", zarr_format=name).members()
            except MetadataError as exc:
                assert exc.key is not None or any(k in str(exc) for k in originals), (
                    f"format {name!r}: {key!r} {how}: the MetadataError names no key: {exc}"
                )
            except PluginFailureError as exc:  # the engine naming the format's own bug
                raise AssertionError(
                    f"format {name!r}: {key!r} {how}: opening or reading the "
                    f"node raised {type(exc.__cause__).__name__} ({exc}), not "
                    "a zarrforge error"
                ) from exc
            except ZarrforgeError:
                pass
            except Exception as exc:
                raise AssertionError(
                    f"format {name!r}: {key!r} {how}: opening or reading the "
                    f"node raised {type(exc).__name__} ({exc}), not a zarrforge "
                    "error"
                ) from exc
            finally:
                store.set(key, originals[key])

        for key, original in originals.items():
            document = json.loads(original)
            if isinstance(document, dict):
                for field in document:
                    damaged = {k: v for k, v in document.items() if k != field}
                    attempt(key, json.dumps(damaged).encode(), f"without {field!r}")

        json_values = st.recursive(
            st.one_of(
                st.none(),
                st.booleans(),
                st.integers(-(2**70), 2**70),
                st.floats(allow_nan=False),
                st.text(max_size=8),
            ),
            lambda inner: st.one_of(
                st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
            ),
            max_leaves=6,
        )

        @self._settings()
        @given(st.sampled_from(sorted(originals)), st.data())
        def check(key: str, data: Any) -> None:
            document = json.loads(originals[key])
            if isinstance(document, dict) and document and data.draw(st.booleans()):
                field = data.draw(st.sampled_from(sorted(document)))
                damaged = json.dumps(dict(document, **{field: data.draw(json_values)})).encode()
                how = f"with {field!r} replaced"
            else:
                damaged = data.draw(st.binary(max_size=40))
                how = "replaced by other bytes"
            attempt(key, damaged, how)

        check()


_READ_LIMIT = 8 << 20  # bytes a damaged document's array may be read with


def _chunk_shape(metadata: Any) -> tuple[int, ...]:
    shape = getattr(metadata.chunk_grid, "regular_chunk_shape", None)
    assert shape is not None, "the suite's array cases must use a regular chunk grid"
    return tuple(shape)
