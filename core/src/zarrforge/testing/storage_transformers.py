"""The storage transformer conformance suite (the ``storage_transformers`` extension point).

Subclass :class:`StorageTransformerConformance` and set:

* ``transformer_documents``: entries of the transformer to test (``{"name": ...,
  "configuration": {...}}``); each is its own test (the test id names it);
* ``invalid_transformer_documents``: ``(document, field)`` pairs that must be refused with
  a :class:`~zarrforge.errors.MetadataError` naming ``field`` (relative to the entry:
  ``"configuration.chunks_per_shard"``); at least one, unless
  ``rejects_unknown_configuration`` is ``False`` (a transformer that accepts any
  configuration may have none);
* ``shape`` (default ``(9, 13)``), ``chunks`` (``(2, 3)``) and ``dtype`` (``"int32"``):
  the arrays the entries are tried on (the entries must suit them);
* ``rejects_unknown_configuration = False`` if the transformer deliberately accepts
  configuration keys it does not know (checked: each entry with an unknown key added
  must still build it);
* ``max_examples`` (default 40) and ``shrink`` (default ``True``) for hypothesis;
* ``writable = False`` for a transformer that only reads (a chunk manifest of data
  stored elsewhere), with ``fixture(self, document, store)``: write into ``store`` (the
  empty store the array will be created in, at ``"a"``) what the entry refers to, and
  return the values the array must read (``shape`` and ``dtype`` above, fill value 0).
  The write checks are then replaced by reads of that fixture (below).

What it checks, against :mod:`zarrforge.abc.storage_transformer`: the name resolves
through the installed ``zarrforge.storage_transformers`` registry to a
:class:`~zarrforge.abc.storage_transformer.StorageTransformer`; ``to_json`` is JSON, names
the transformer and rebuilds an equal entry; invalid configurations are refused naming the
field and unknown keys are refused; ``wrap`` gives a :class:`~zarrforge.abc.store.Store`
on which a chunk key reads ``None`` until it is set, reads back what was set (whole and by
byte range, single and batched), reads ``None`` again once deleted, and leaves the other
chunks' values alone, while keys that are not chunk keys (``zarr.json``, an attribute
file) pass through to the store below unchanged; and through a real array created with
the entry, for hypothesis-generated basic selections, what is written reads back as a
NumPy model of the array says, also after reopening, and ``stored_chunks`` names the
chunks holding anything but the fill value. For ``writable = False``: through ``wrap``,
each chunk key of a chunk the fixture holds reads bytes (whole, by byte range and
batched, consistently), writing or deleting a chunk key raises a zarrforge error and
changes nothing below, and other keys pass through as above; the array created on the
fixture reads the fixture whole and for hypothesis-generated basic selections, also
reopened read-only, ``stored_chunks`` names the chunks holding anything but the fill
value, and every write is refused with a zarrforge error that changes nothing. Each
failure names the entry and the property, in a sentence.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np

import zarrforge as zf

from ..abc.storage_transformer import ChunkKeys, StorageTransformer, wrap_store
from ..abc.store import ByteRange, Store
from ..errors import MetadataError, ZarrforgeError
from ..plugin_api import registry
from ._common import document_id as _document_id
from ._common import entry_name as _name
from ._common import (
    expect_unknown_key_refused,
    expect_write_refused,
    first_difference,
    hypothesis_settings,
    parametrize_cases,
    with_unknown_key,
)
from .kit_store import KitMemoryStore
from .scaffolding import FORMAT_NAME, KitScaffolding


def _keys(ndim: int) -> ChunkKeys:
    """The chunk keys of an array at the root of a store, as Zarr v3's default encoding
    lays them out (``c/0/1``)."""

    def coords(key: str) -> tuple[int, ...] | None:
        parts = key.split("/")
        if len(parts) != ndim + 1 or parts[0] != "c" or not all(p.isdigit() for p in parts[1:]):
            return None
        return tuple(int(p) for p in parts[1:])

    return ChunkKeys(key=lambda c: "/".join(["c", *(str(int(i)) for i in c)]), coords=coords)


_UNKNOWN_KEY = "zarrforge_conformance_unknown"


def _with_unknown_key(document: dict[str, Any]) -> dict[str, Any]:
    """The entry, by name and configuration only, with :data:`_UNKNOWN_KEY` added."""
    return with_unknown_key(
        {"name": _name(document), "configuration": document.get("configuration")}, _UNKNOWN_KEY
    )


class StorageTransformerConformance(KitScaffolding):
    transformer_documents: ClassVar[list[Any]] = []
    invalid_transformer_documents: ClassVar[list[tuple[Any, str]]] = []
    shape: tuple[int, ...] = (9, 13)
    chunks: tuple[int, ...] = (2, 3)
    dtype = "int32"
    rejects_unknown_configuration = True
    max_examples = 40
    shrink = True
    writable = True

    def fixture(self, document: Any, store: Store) -> np.ndarray:
        """For ``writable = False``: write into ``store`` what ``document`` refers to and
        return the values the array created with it must read."""
        raise AssertionError(
            f"{type(self).__name__} says writable = False: define fixture(self, document, store) "
            "to write the data the entry refers to and return the values the array must read"
        )

    def _fixture(self, document: Any, store: Store) -> np.ndarray:
        values = np.asarray(self.fixture(document, store))
        assert values.shape == tuple(self.shape) and values.dtype == np.dtype(self.dtype), (
            f"{_document_id(document)}: fixture() returned {values.dtype} values of shape "
            f"{values.shape}; the arrays are {self.dtype} of shape {tuple(self.shape)}"
        )
        return values

    def _holding(self, values: np.ndarray) -> set[tuple[int, ...]]:
        """The chunks of ``values`` holding anything but the fill value 0."""
        return {
            tuple(int(i) for i in coords)
            for coords in np.ndindex(*self._grid())
            if np.any(values[tuple(slice(c * n, (c + 1) * n) for c, n in zip(coords, self.chunks))] != 0)
        }

    def pytest_generate_tests(self, metafunc: Any) -> None:
        parametrize_cases(
            metafunc,
            "document",
            self.transformer_documents,
            _document_id,
            "set transformer_documents to the entries to test",
        )
        if (
            not self.invalid_transformer_documents
            and not self.rejects_unknown_configuration
            and "invalid" in metafunc.fixturenames
        ):
            # a transformer that accepts any configuration may have nothing invalid:
            # what is checked then is that it does accept one (see the test)
            metafunc.parametrize("invalid", [None], ids=["none-declared-accepts-any"])
            return
        parametrize_cases(
            metafunc,
            "invalid",
            self.invalid_transformer_documents,
            lambda invalid: _document_id(invalid[0]),
            "set invalid_transformer_documents to (document, field) pairs the "
            "transformer must refuse with a MetadataError naming field (or, for a "
            "transformer that accepts any configuration, "
            "rejects_unknown_configuration = False)",
        )

    def _settings(self) -> Any:
        return hypothesis_settings(self.max_examples, self.shrink)

    def _transformer(self, document: Any) -> StorageTransformer:
        cls = registry.storage_transformers.get(_name(document))
        configuration = document.get("configuration") if isinstance(document, dict) else None
        return cls.from_json(_name(document), configuration)

    def _array(self, document: Any, store: Any = None) -> Any:
        return zf.create_array(
            KitMemoryStore() if store is None else store,
            "a",
            shape=self.shape,
            chunks=self.chunks,
            dtype=self.dtype,
            zarr_format=FORMAT_NAME,
            fill_value=0,
            compressors=None,
            storage_transformers=[document],
        )

    def _grid(self) -> tuple[int, ...]:
        return tuple(-(-n // c) for n, c in zip(self.shape, self.chunks))

    # --- the tests --------------------------------------------------------------------------

    def test_name_resolves_to_the_registered_transformer(self, document):
        where = _document_id(document)
        registered = registry.storage_transformers.get(_name(document))
        assert isinstance(registered, type) and issubclass(registered, StorageTransformer), (
            f"{where}: the registry gives {registered!r}, not a StorageTransformer subclass"
        )
        transformer = self._transformer(document)
        assert isinstance(transformer, registered), (
            f"{where}: from_json built {type(transformer).__name__}, not the registered {registered.__name__}"
        )

    def test_to_json_is_json_and_rebuilds_an_equal_entry(self, document):
        where = _document_id(document)
        written = self._transformer(document).to_json()
        assert json.loads(json.dumps(written)) == written, f"{where}: to_json() is not JSON"
        assert _name(written) == _name(document), (
            f"{where}: to_json() gives {written!r}, whose name is not {_name(document)!r}"
        )
        try:
            again = self._transformer(written).to_json()
        except MetadataError as exc:
            raise AssertionError(
                f"{where}: to_json() gives {written!r}, which does not rebuild a transformer: {exc}"
            ) from exc
        assert again == written, f"{where}: rebuilding from to_json() changes it: {written!r} -> {again!r}"
        if isinstance(document, dict) and document.get("configuration"):
            for key, value in document["configuration"].items():
                assert written.get("configuration", {}).get(key) is not None, (
                    f"{where}: to_json() drops the configuration key {key!r} ({value!r})"
                )

    def test_invalid_configurations_are_refused_naming_the_field(self, invalid):
        if invalid is None:  # none declared, and rejects_unknown_configuration is False
            self._check_accepts_any_configuration()
            return
        document, field = invalid
        where = _document_id(document)
        try:
            self._transformer(document)
        except MetadataError as exc:
            named = getattr(exc, "field", None)
            assert named == field or field in str(exc), (
                f"{where}: refused, but naming field {named!r}, not {field!r}: {exc}"
            )
        except Exception as exc:
            raise AssertionError(
                f"{where}: raised {type(exc).__name__} ({exc}), not a MetadataError naming {field!r}"
            ) from exc
        else:
            raise AssertionError(
                f"{where}: the invalid entry was accepted; expected a MetadataError naming {field!r}"
            )

    def _check_accepts_any_configuration(self) -> None:
        """What ``rejects_unknown_configuration = False`` declares: each entry with an
        unknown configuration key added still builds the transformer."""
        for document in self.transformer_documents:
            if not isinstance(document, dict):
                continue
            where = _document_id(document)
            try:
                self._transformer(_with_unknown_key(document))
            except Exception as exc:  # the declaration says it accepts it
                raise AssertionError(
                    f"{where}: an unknown configuration key was refused ({type(exc).__name__}: "
                    f"{exc}), yet rejects_unknown_configuration = False declares that any "
                    "configuration is accepted"
                ) from exc

    def test_unknown_configuration_keys_are_refused(self, document):
        if not isinstance(document, dict):
            return
        if not self.rejects_unknown_configuration:
            self._check_accepts_any_configuration()
            return
        expect_unknown_key_refused(
            lambda: self._transformer(_with_unknown_key(document)),
            _document_id(document),
            _UNKNOWN_KEY,
            "; refuse it (or set rejects_unknown_configuration = False)",
        )

    def test_the_wrapped_store_keeps_chunk_values_and_passes_other_keys(self, document):
        if not self.writable:
            self._check_read_only_wrapped_store(document)
            return
        where = _document_id(document)
        inner = KitMemoryStore()
        array = self._array(document, inner)  # what wrap() gets: the real metadata
        store = wrap_store(
            self._transformer(document), inner, _keys(len(self.shape)), array.metadata_model, path=array.path
        )
        assert isinstance(store, Store), f"{where}: wrap() returned {store!r}, not a Store"
        grid = self._grid()
        keys = _keys(len(grid))
        corner = tuple(n - 1 for n in grid)
        first, last = keys.key((0,) * len(grid)), keys.key(corner)
        assert store.get(first) is None, f"{where}: chunk key {first!r} reads a value before any set"
        values = {first: b"first chunk bytes", last: bytes(range(200))}
        for key, value in values.items():
            store.set(key, value)
        for key, value in values.items():
            got = store.get(key)
            assert got is not None and bytes(got) == value, (
                f"{where}: chunk key {key!r} reads back {got!r}, not the {len(value)} bytes set"
            )
            part = store.get(key, ByteRange(2, 5))
            assert part is not None and bytes(part) == value[2:7], (
                f"{where}: bytes 2..6 of chunk key {key!r} read {part!r}, not {value[2:7]!r}"
            )
        batch = store.get_many([(first, None), (last, ByteRange(length=4)), (keys.key(corner), None)])
        assert [None if b is None else bytes(b) for b in batch] == [
            values[first],
            values[last][-4:],
            values[last],
        ], f"{where}: get_many gives {batch!r} for a whole value, a 4-byte suffix and a repeated key"
        store.delete(first)
        assert store.get(first) is None, f"{where}: chunk key {first!r} reads a value after delete"
        assert store.get(last) is not None and bytes(store.get(last)) == values[last], (
            f"{where}: deleting {first!r} changed chunk key {last!r}"
        )
        _check_other_keys_pass_through(where, store, inner)

    def _check_read_only_wrapped_store(self, document: Any) -> None:
        where = _document_id(document)
        inner = KitMemoryStore()
        values = self._fixture(document, inner)
        array = self._array(document, inner)
        store = wrap_store(
            self._transformer(document), inner, _keys(len(self.shape)), array.metadata_model, path=array.path
        )
        assert isinstance(store, Store), f"{where}: wrap() returned {store!r}, not a Store"
        keys = _keys(len(self.shape))
        holding = sorted(self._holding(values))
        assert holding, f"{where}: the fixture holds nothing but the fill value; give it some data"
        whole = {}
        for coords in holding:
            key = keys.key(coords)
            got = store.get(key)
            assert got is not None, f"{where}: chunk key {key!r} of a chunk the fixture holds reads nothing"
            whole[key] = bytes(got)
            if len(got) > 2:
                part = store.get(key, ByteRange(1, len(got) - 2))
                assert part is not None and bytes(part) == whole[key][1:-1], (
                    f"{where}: bytes 1..{len(got) - 2} of chunk key {key!r} read {part!r}, "
                    f"not the {len(got) - 2} bytes inside the whole value"
                )
        batch = store.get_many([(key, None) for key in whole])
        assert [None if b is None else bytes(b) for b in batch] == list(whole.values()), (
            f"{where}: get_many of the chunk keys {list(whole)} reads other bytes than get"
        )
        below = {name: inner.get(name) for name in inner.list()}
        first = next(iter(whole))
        for attempt, write in (
            ("setting", lambda: store.set(first, b"new bytes")),
            ("deleting", lambda: store.delete(first)),
            ("setting in a batch", lambda: store.set_many([(first, b"new bytes")])),
        ):
            expect_write_refused(write, where, f"{attempt} chunk key {first!r}")
            assert {name: inner.get(name) for name in inner.list()} == below, (
                f"{where}: {attempt} chunk key {first!r} was refused, but changed the store below"
            )
        assert bytes(store.get(first) or b"") == whole[first], (
            f"{where}: chunk key {first!r} reads other bytes after the refused writes"
        )
        _check_other_keys_pass_through(where, store, inner)

    def _check_read_only_array(self, document: Any) -> None:
        from hypothesis import given

        where = _document_id(document)
        store = KitMemoryStore()
        values = self._fixture(document, store)
        array = self._array(document, store)
        got = np.asarray(array[...])
        assert np.array_equal(got, values), (
            f"{where}: the array on the fixture reads {_first_difference(got, values)}"
        )
        reopened = zf.open_array(store, "a", mode="r", zarr_format=FORMAT_NAME)
        assert np.array_equal(reopened[...], values), (
            f"{where}: reopened read-only, the array reads {_first_difference(reopened[...], values)}"
        )
        stored = set(array.stored_chunks())
        assert stored == self._holding(values), (
            f"{where}: stored_chunks() names {sorted(stored)}; the chunks the fixture holds "
            f"anything but the fill value in are {sorted(self._holding(values))}"
        )

        @self._settings()
        @given(self._basic_selections())
        def check(selection: Any) -> None:
            part = np.asarray(array[selection])
            assert np.array_equal(part, values[selection]), (
                f"{where}: reading {selection} gives {_first_difference(part, values[selection])}"
            )
            expect_write_refused(lambda: array.__setitem__(selection, 7), where, f"writing 7 to {selection}")
            after = np.asarray(array[...])
            assert np.array_equal(after, values), (
                f"{where}: the refused write to {selection} changed the array: {_first_difference(after, values)}"
            )

        check()

    def _basic_selections(self) -> Any:
        from hypothesis import strategies as st

        def one(n: int) -> Any:
            return st.one_of(
                st.integers(0, n - 1),
                st.builds(
                    lambda a, b: slice(min(a, b), max(a, b) + 1), st.integers(0, n - 1), st.integers(0, n - 1)
                ),
            )

        return st.tuples(*(one(n) for n in self.shape))

    def test_a_real_array_reads_back_what_was_written(self, document):
        if not self.writable:
            self._check_read_only_array(document)
            return
        from hypothesis import given
        from hypothesis import strategies as st

        where = _document_id(document)

        selections = self._basic_selections()

        @self._settings()
        @given(st.lists(st.tuples(selections, st.integers(-50, 50)), min_size=1, max_size=4))
        def check(writes: list) -> None:
            array = self._array(document)
            model = np.zeros(self.shape, dtype=self.dtype)
            for selection, value in writes:
                try:
                    array[selection] = value
                except ZarrforgeError as exc:
                    raise AssertionError(
                        f"{where}: writing {value} to {selection} failed: {type(exc).__name__}: {exc}"
                    ) from exc
                model[selection] = value
            got = array[...]
            assert np.array_equal(got, model), (
                f"{where}: after writing {writes}, the array reads {_first_difference(got, model)}"
            )
            reopened = zf.open_array(array.store, "a", mode="r", zarr_format=FORMAT_NAME)
            assert np.array_equal(reopened[...], model), (
                f"{where}: after writing {writes} and reopening, the array reads "
                f"{_first_difference(reopened[...], model)}"
            )
            expected = self._holding(model)
            stored = set(array.stored_chunks())
            assert stored == expected, (
                f"{where}: after writing {writes}, stored_chunks() names {sorted(stored)}; the "
                f"chunks holding anything but the fill value are {sorted(expected)}"
            )

        check()


def _check_other_keys_pass_through(where: str, store: Store, inner: Store) -> None:
    """Keys that are not chunk keys reach the store below the transformer as they are."""
    store.set("notes.json", b"{}")
    assert inner.get("notes.json") == b"{}", (
        f"{where}: a key that is not a chunk key did not reach the store below unchanged"
    )
    assert store.get("zarr.json") == inner.get("zarr.json"), (
        f"{where}: zarr.json reads other bytes through the transformer than below it"
    )


def _first_difference(got: np.ndarray, expected: np.ndarray) -> str:
    return first_difference(got, expected, expected_is="where the model has")
