"""The generic extension conformance suite (ZEP 10 ``extensions`` entries).

Subclass :class:`ExtensionConformance` and set:

* ``extension_documents``: entries of the extension to test
  (``{"name": "zarrforge.offset", "configuration": {"offset": [2, -1]}}``); each is its
  own test (the test id names it);
* ``invalid_extension_documents``: ``(document, field)`` pairs that must be refused with
  a :class:`~zarrforge.errors.MetadataError` naming ``field`` (relative to the entry:
  ``"configuration.offset"``); at least one;
* ``shape`` (default ``(6, 4)``) and ``dtype`` (``"int32"``): the arrays the entries are
  tried on (the entries must suit that shape);
* ``rejects_unknown_configuration = False`` if the extension deliberately accepts
  configuration keys it does not know;
* ``max_examples`` (default 50) and ``shrink`` (default ``True``), for the hypothesis
  checks; ``probe_radius`` (default 16): how far outside ``0..n-1`` the suite looks for
  the coordinates basic selections address;
* ``writable = False`` for an extension whose arrays cannot be written through (a view
  of data stored some other way), with ``fixture(self, document, array)``: store data in
  ``array`` (just created with the entry) as the extension allows, and return what
  ``array[...]`` must then read. The checks that write instead read that fixture, and
  every write must be refused with a zarrforge error that changes nothing.

What it checks, for each entry, against :mod:`zarrforge.abc.extension`: the name
resolves through the installed ``zarrforge.extensions`` registry to an
:class:`~zarrforge.abc.extension.Extension` whose ``node_types`` is a frozenset of
``"array"``/``"group"``; ``to_json`` is JSON, names the extension and rebuilds an equal
entry; a node created with the entry (each node type it allows) stores it, reopens with an
equal entry, and keeps it through an attribute update, also when the entry says
``must_understand: true`` (kept as written) or ``false`` (refused at
``extensions[0].must_understand`` for an extension with a value stage); a node type it does not allow refuses it with a
``MetadataError``; invalid configurations are refused naming the field and unknown
configuration keys are refused; and on an array, for hypothesis-generated basic
selections (integers of any sign, slices with steps, ``Ellipsis``, ``None``), reading
and writing either work or raise a zarrforge error (never another exception), and what
is written through a selection is what a read of the same selection gives back, the rest
of the array untouched; and the other kinds of selection agree with basic indexing:
with the coordinates basic selections of single elements address (``a[i, j]``; per
dimension those of ``-n - probe_radius`` to ``n + probe_radius - 1`` that read, numpy's
wrapped negative indices left out, and there must be ``n`` of them), ``a[...]`` reads the
elements in that order, and hypothesis-generated orthogonal (``a.oindex``), coordinate
and mask (``a.vindex``) and block (``a.blocks``, blocks of the stored chunks) selections
read, and write, the elements numpy's indexing of that model says (a kind refused with a
zarrforge error is not checked further).

An extension with a value stage (it overrides ``encode_values`` or ``decode_values``) is
checked in value mode: a read returns ``decode_values(encode_values(x))`` of what was
written, bit for bit (not ``x``), an element never written reads the fill value decoded,
and the values stored, read with the entry removed from the document, are
``encode_values(x)`` (as a multiset of elements, so an extension that also maps
selections may place them where it likes). Each failure names the entry and the
property, in a sentence.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, cast

import numpy as np

import zarrforge as zf

from ..abc.extension import Extension, has_value_stage
from ..errors import MetadataError, ZarrforgeError
from ..plugin_api import extension_from_json, registry
from ._common import document_id as _document_id
from ._common import entry_name as _name
from ._common import (
    expect_refused_naming,
    expect_unknown_key_refused,
    expect_write_refused,
    first_difference,
    hypothesis_settings,
    parametrize_cases,
    with_unknown_key,
)
from .kit_store import KitMemoryStore
from .scaffolding import FORMAT_NAME, KitScaffolding


def _selections(shape: tuple[int, ...]) -> Any:
    """Basic selections of an array of ``shape``: per dimension an int (any sign, maybe out
    of range), a slice (bounds of any sign, steps of either sign), or nothing; maybe an
    ``Ellipsis`` or a ``None`` among them."""
    from hypothesis import strategies as st

    def one(n: int) -> Any:
        bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
        return st.one_of(
            st.integers(-n - 1, n),
            st.builds(slice, bound, bound, st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2]))),
        )

    parts = st.tuples(*(one(n) for n in shape))
    return st.tuples(parts, st.integers(0, len(shape)), st.sampled_from(["", "...", "None"])).map(
        lambda p: p[0][: p[1]] + ((Ellipsis,) if p[2] == "..." else (None,) if p[2] == "None" else ())
    )


class ExtensionConformance(KitScaffolding):
    extension_documents: ClassVar[list[Any]] = []
    invalid_extension_documents: ClassVar[list[tuple[Any, str]]] = []
    shape: tuple[int, ...] = (6, 4)
    dtype = "int32"
    rejects_unknown_configuration = True
    max_examples = 50
    shrink = True
    probe_radius = 16
    writable = True

    def fixture(self, document: Any, array: Any) -> np.ndarray:
        """For ``writable = False``: store data in ``array`` (created with ``document``) as
        the extension allows, and return what ``array[...]`` must read."""
        raise AssertionError(
            f"{type(self).__name__} says writable = False: define fixture(self, document, array) "
            "to store data in the array and return what array[...] must read"
        )

    def pytest_generate_tests(self, metafunc: Any) -> None:
        parametrize_cases(
            metafunc,
            "document",
            self.extension_documents,
            _document_id,
            "set extension_documents to the entries to test",
        )
        parametrize_cases(
            metafunc,
            "invalid",
            self.invalid_extension_documents,
            lambda invalid: _document_id(invalid[0]),
            "set invalid_extension_documents to (document, field) pairs the "
            "extension must refuse with a MetadataError naming field",
        )

    def _settings(self) -> Any:
        return hypothesis_settings(self.max_examples, self.shrink)

    def _extension(self, document: Any, node_type: str = "array") -> tuple[str, Extension]:
        # the kit's documents name the registered extension under test, never an unknown one
        extension = cast(Extension, extension_from_json(document, node_type, field="extensions[0]"))
        return _document_id(document), extension

    def _node(self, document: Any, node_type: str) -> Any:
        if node_type == "group":
            return zf.create_group(KitMemoryStore(), "node", extensions=[document], zarr_format=FORMAT_NAME)
        return zf.create_array(
            KitMemoryStore(),
            "node",
            shape=self.shape,
            dtype=self.dtype,
            fill_value=0,
            chunks=tuple(max(1, (n + 1) // 2) for n in self.shape),
            compressors=None,
            extensions=[document],
            zarr_format=FORMAT_NAME,
        )

    def _stored_entry(self, node: Any) -> Any:
        # the kit's format keeps every entry in the list (kit_format: extensions_to_document
        # with default="list"), so its one entry is the list's first
        return node.metadata["extensions"][0]

    # --- the tests ------------------------------------------------------------------------

    def test_name_resolves_to_the_registered_extension_class(self, document):
        where = _document_id(document)
        registered = registry.extensions.get(_name(document))
        kinds = getattr(registered, "node_types", None)
        assert isinstance(kinds, frozenset) and kinds and kinds <= {"array", "group"}, (
            f"{where}: node_types is {kinds!r}; it must be a non-empty frozenset of 'array' and 'group'"
        )
        _, extension = self._extension(document, sorted(kinds)[0])
        assert isinstance(extension, registered) and isinstance(extension, Extension), (
            f"{where}: the entry built {type(extension).__name__}, not the registered {registered.__name__}"
        )

    def test_to_json_is_json_and_rebuilds_an_equal_entry(self, document):
        where = _document_id(document)
        node_type = sorted(registry.extensions.get(_name(document)).node_types)[0]
        _, extension = self._extension(document, node_type)
        written = extension.to_json()
        assert json.loads(json.dumps(written)) == written, f"{where}: to_json() is not JSON"
        assert _name(written) == _name(document), (
            f"{where}: to_json() gives {written!r}, whose name is not {_name(document)!r}"
        )
        rebuilt = extension_from_json(written, node_type, field="to_json()")
        assert rebuilt.to_json() == written, f"{where}: rebuilding from to_json() changes it"
        assert rebuilt == extension, f"{where}: the entry rebuilt from to_json() is not equal to the original"
        if isinstance(document, dict) and "configuration" in document:
            assert isinstance(written, dict) and written.get("configuration") == extension_from_json(
                written, node_type, field="x"
            ).to_json().get("configuration"), f"{where}: to_json() loses the configuration"

    def test_nodes_store_the_entry_and_keep_it(self, document):
        where = _document_id(document)
        registered = registry.extensions.get(_name(document))
        whole = document if isinstance(document, dict) else {"name": document}
        value_stage = has_value_stage(self._extension(document, sorted(registered.node_types)[0])[1])
        for node_type in sorted(registered.node_types):
            skippable = {**whole, "must_understand": False}
            marks: list[Any] = [None, True]
            if value_stage:
                # a reader skipping it would read stored values as the data: refused
                expect_refused_naming(
                    lambda entry=skippable, kind=node_type: self._node(entry, kind),
                    where,
                    "extensions[0].must_understand",
                )
            else:
                marks.append(False)
            for mark in marks:
                entry = document if mark is None else {**whole, "must_understand": mark}
                node = self._node(entry, node_type)
                stored = self._stored_entry(node)
                expected = extension_from_json(entry, node_type, field="x").to_json()
                if mark is not None:
                    assert isinstance(stored, dict) and stored.get("must_understand") is mark, (
                        f"{where}: a {node_type} created with must_understand: "
                        f"{str(mark).lower()} stores {stored!r}, without it"
                    )
                    stored = {k: v for k, v in stored.items() if k != "must_understand"}
                assert stored == expected, (
                    f"{where}: a {node_type} created with the entry stores {stored!r}, not "
                    f"its to_json() {expected!r}"
                )
                reopened = zf.open(node.store, "node", zarr_format=FORMAT_NAME)
                assert self._stored_entry(reopened) == self._stored_entry(node), (
                    f"{where}: the {node_type} reopened holds {self._stored_entry(reopened)!r}"
                )
                reopened = zf.open(node.store, "node", mode="r+", zarr_format=FORMAT_NAME)
                reopened.attrs["touched"] = True
                kept = self._stored_entry(zf.open(node.store, "node", zarr_format=FORMAT_NAME))
                assert kept == self._stored_entry(node), (
                    f"{where}: an attribute update on the {node_type} rewrites the entry as {kept!r}"
                )
        for node_type in {"array", "group"} - set(registered.node_types):
            try:
                self._node(document, node_type)
            except MetadataError:
                continue
            raise AssertionError(
                f"{where}: a {node_type} accepted the entry, but node_types "
                f"is {sorted(registered.node_types)}"
            )

    def test_invalid_configurations_are_refused_naming_the_field(self, invalid):
        document, field = invalid
        where = _document_id(document)
        expected = f"extensions[0].{field}" if field else "extensions[0]"
        node_type = sorted(registry.extensions.get(_name(document)).node_types)[0]
        expect_refused_naming(
            lambda: extension_from_json(document, node_type, field="extensions[0]"), where, expected
        )

    def test_unknown_configuration_keys_are_refused(self, document):
        if not self.rejects_unknown_configuration:
            return
        where = _document_id(document)
        node_type = sorted(registry.extensions.get(_name(document)).node_types)[0]
        written = extension_from_json(document, node_type, field="x").to_json()
        changed = with_unknown_key(written if isinstance(written, dict) else {"name": written})
        expect_unknown_key_refused(
            lambda: extension_from_json(changed, node_type, field="extensions[0]"), where
        )

    def test_what_a_selection_writes_is_what_it_reads(self, document):
        where = _document_id(document)
        if "array" not in registry.extensions.get(_name(document)).node_types:
            return
        from hypothesis import example, given
        from hypothesis import strategies as st

        _, extension = self._extension(document)

        @self._settings()
        @given(_selections(self.shape), st.integers(0, 2**32 - 1))
        # a new axis, always: an extension that cannot map one must fail every run, not the
        # runs whose draws happen to hold a None
        @example((None,), 0)
        def consistent(selection, seed):
            array = self._filled_node(document)
            before = array[...] if self._readable_whole(array) else None
            try:
                target = np.asarray(array[selection])
            except ZarrforgeError:
                return
            except Exception as exc:  # the finding
                raise AssertionError(
                    f"{where}: reading {selection!r} raised "
                    f"{type(exc).__name__}: {exc}, not a zarrforge error"
                ) from exc
            values = np.random.default_rng(seed).integers(1, 1000, size=target.shape).astype(target.dtype)
            if not self.writable:
                self._expect_write_refused(
                    where, array, selection, values, array=array, before=before, shown=repr(selection)
                )
                return
            try:
                array[selection] = values
            except ZarrforgeError as exc:
                raise AssertionError(f"{where}: {selection!r} reads but does not write: {exc}") from exc
            except Exception as exc:  # the finding
                raise AssertionError(
                    f"{where}: writing {selection!r} raised {type(exc).__name__}: {exc}"
                ) from exc
            back = np.asarray(array[selection])
            if target.size and len({int(v) for v in np.ravel(values)}) == values.size:
                expected = _round_trip(extension, array, values)
                assert back.shape == expected.shape and back.tobytes() == expected.tobytes(), (
                    f"{where}: reading {selection!r} after writing {values.tolist()} gives "
                    f"{back.tolist()}, not {_written_is(extension)} "
                    f"({first_difference(back, expected, expected_is='where it should be')})"
                )
            if before is not None:
                touched = int(np.count_nonzero(array[...] != before))
                assert touched <= values.size, (
                    f"{where}: writing {values.size} values through {selection!r} changed {touched} elements"
                )

        consistent()

    def test_the_value_stage_stores_encoded_values_and_reads_them_decoded(self, document):
        """Value mode (an extension overriding ``encode_values`` / ``decode_values``): an
        unwritten element reads the fill value decoded; after a whole-array write of ``x``
        a read gives ``decode_values(encode_values(x))`` bit for bit, and the stored
        values (the entry removed from the document) are ``encode_values(x)``. For an
        extension without a value stage: reads are the stored values."""
        where = _document_id(document)
        if "array" not in registry.extensions.get(_name(document)).node_types:
            return
        array = self._filled_node(document)
        _, extension = self._extension(document)
        fill = np.full(self.shape, array.fill_value, dtype=self.dtype)
        if self.writable:
            unwritten = np.asarray(array[...])
            expected = _decoded(extension, array, fill)
            assert unwritten.tobytes() == expected.tobytes(), (
                f"{where}: an array never written reads {unwritten.tolist()}, not the fill value "
                f"{'decoded' if has_value_stage(extension) else 'itself'}: "
                f"{first_difference(unwritten, expected, expected_is='where it should be')}"
            )
            x = (np.arange(int(np.prod(self.shape))).reshape(self.shape) % 97 + 3).astype(self.dtype)
            array[...] = x
        else:
            x = np.asarray(array[...])
        stored = _stored_values(array)
        if self.writable:
            expected = _round_trip(extension, array, x)
            back = np.asarray(array[...])
            assert back.tobytes() == expected.tobytes(), (
                f"{where}: after writing {x.tolist()}, the array reads {back.tolist()}, not "
                f"{_written_is(extension)}: {first_difference(back, expected, expected_is='where it should be')}"
            )
            encoded = _encoded(extension, array, x)
            assert _multiset(stored) == _multiset(encoded), (
                f"{where}: after writing {x.tolist()}, the values stored (read with the entry "
                f"removed) are {stored.tolist()}, not "
                f"{'encode_values(x)' if has_value_stage(extension) else 'the values written'} "
                f"{encoded.tolist()}"
            )
        else:
            decoded = _decoded(extension, array, stored)
            assert _multiset(decoded) == _multiset(x), (
                f"{where}: the fixture reads {x.tolist()}, but decode_values of the values stored "
                f"(read with the entry removed) gives {decoded.tolist()}"
            )

    def _filled_node(self, document: Any) -> Any:
        """A new array with the entry: empty if the extension writes, else holding the
        plugin's fixture (checked to read as the fixture says)."""
        array = self._node(document, "array")
        if not self.writable:
            expected = np.asarray(self.fixture(document, array))
            got = np.asarray(array[...])
            assert got.shape == expected.shape and got.tobytes() == expected.tobytes(), (
                f"{_document_id(document)}: the fixture array reads {got.tolist()}, not the "
                f"{expected.tolist()} fixture() says: "
                f"{first_difference(got, expected, expected_is='where fixture() has')}"
            )
        return array

    def _expect_write_refused(
        self, where: str, writer: Any, selection: Any, values: Any, *, array: Any, before: Any, shown: str
    ) -> None:
        """``writable = False``: ``writer[selection] = values`` (``writer`` the array or one
        of its selection accessors) raises a zarrforge error and changes nothing."""
        expect_write_refused(lambda: writer.__setitem__(selection, values), where, f"writing {shown}")
        if before is not None:
            after = np.asarray(array[...])
            assert after.tobytes() == np.asarray(before).tobytes(), (
                f"{where}: the refused write through {shown} changed the array: "
                f"{first_difference(after, before, expected_is='where it was')}"
            )

    def _domain(self, where: str, array: Any) -> list[list[int]]:
        """Per dimension, the integers a basic selection addresses there, in order: those
        ``array[..., i, ...]`` reads (the other dimensions whole), numpy's wrapped negative
        indices left out. Each dimension must have ``shape[d]`` of them."""
        domain = []
        for d, n in enumerate(self.shape):
            accepted = []
            for i in range(-n - self.probe_radius, n + self.probe_radius):
                try:
                    array[(slice(None),) * d + (i,)]
                except ZarrforgeError:
                    continue
                accepted.append(i)
            if accepted == list(range(-n, n)):
                accepted = list(range(n))  # numpy's indices, negative ones wrapped
            assert len(accepted) == n, (
                f"{where}: basic selections accept the integers {accepted} in dimension {d} "
                f"(probed from {-n - self.probe_radius} to {n + self.probe_radius - 1}); "
                f"expected {n} coordinates, one per element of the dimension"
            )
            domain.append(accepted)
        return domain

    def _points(self, array: Any, domain: list[list[int]]) -> np.ndarray:
        """The array as basic selections of single elements read it, element by element,
        in the order of ``domain``."""
        out = np.empty(self.shape, dtype=self.dtype)
        for position in np.ndindex(*self.shape):
            out[position] = array[tuple(domain[d][p] for d, p in enumerate(position))]
        return out

    def test_selection_kinds_agree_with_basic_indexing(self, document):
        """Orthogonal (``oindex``), coordinate and mask (``vindex``) and block (``blocks``)
        selections read and write the elements that basic selections of single elements
        (``a[i, j]``) address, as numpy's indexing of the same model says; ``a[...]`` reads
        the elements in the order of the basic coordinates."""
        where = _document_id(document)
        if "array" not in registry.extensions.get(_name(document)).node_types:
            return
        from hypothesis import given
        from hypothesis import strategies as st

        domain = self._domain(where, self._filled_node(document))
        _, extension = self._extension(document)
        chunks = tuple(max(1, (n + 1) // 2) for n in self.shape)
        grid = tuple(-(-n // c) for n, c in zip(self.shape, chunks))
        size = int(np.prod(self.shape))

        def orthogonal(draw: Any) -> tuple[Any, Any]:
            user: list[Any] = []
            model: list[np.ndarray] = []
            dropped: list[int] = []
            for d, n in enumerate(self.shape):
                how = draw(st.sampled_from(["list", "int", "all"]))
                if how == "all":
                    user.append(slice(None))
                    model.append(np.arange(n))
                elif how == "int":
                    p = draw(st.integers(0, n - 1))
                    user.append(domain[d][p])
                    model.append(np.array([p]))
                    dropped.append(d)
                else:
                    ps = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
                    user.append(np.array([domain[d][p] for p in ps]))
                    model.append(np.array(ps))
            return tuple(user), _Orthogonal(np.ix_(*model), tuple(dropped))

        def coordinate(draw: Any) -> tuple[Any, Any]:
            points = draw(
                st.lists(
                    st.tuples(*(st.integers(0, n - 1) for n in self.shape)),
                    min_size=1,
                    max_size=6,
                    unique=True,
                )
            )
            user = tuple(np.array([domain[d][p[d]] for p in points]) for d in range(len(self.shape)))
            return user, tuple(np.array([p[d] for p in points]) for d in range(len(self.shape)))

        def mask(draw: Any) -> tuple[Any, Any]:
            flat = draw(st.lists(st.booleans(), min_size=size, max_size=size))
            selection = np.array(flat, dtype=bool).reshape(self.shape)
            return selection, selection

        def block(draw: Any) -> tuple[Any, Any]:
            user, model = [], []
            for n, c, g in zip(self.shape, chunks, grid):
                b = draw(st.integers(0, g - 1))
                if draw(st.booleans()):
                    user.append(b)
                    model.append(slice(b * c, min(n, (b + 1) * c)))
                else:
                    e = draw(st.integers(b + 1, g))
                    user.append(slice(b, e))
                    model.append(slice(b * c, min(n, e * c)))
            return tuple(user), tuple(model)

        kinds = {
            "oindex": ("orthogonal", orthogonal),
            "vindex": ("coordinate", coordinate),
            "vindex (mask)": ("mask", mask),
            "blocks": ("block", block),
        }

        @self._settings()
        @given(st.sampled_from(sorted(kinds)), st.data())
        def agree(kind: str, data: Any) -> None:
            accessor, draw_selection = kinds[kind][0], kinds[kind][1]
            selection, model_index = draw_selection(data.draw)
            shown = f"a.{kind.split()[0]}[{_selection_text(selection)}]"
            if self.writable:
                array = self._node(document, "array")
                array[...] = np.arange(1, size + 1).reshape(self.shape).astype(self.dtype)
            else:
                array = self._filled_node(document)
            model = self._points(array, domain)
            whole = np.asarray(array[...])
            assert np.array_equal(whole, model), (
                f"{where}: a[...] reads the elements in another order than the basic "
                f"selections a[i, j] address them: {first_difference(whole, model, expected_is='where a[i, j] gives')}"
            )
            selector = {"oindex": array.oindex, "vindex": array.vindex, "blocks": array.blocks}[
                kind.split()[0]
            ]
            try:
                found = np.asarray(selector[selection])
            except ZarrforgeError:
                return  # refused, not misread: a kind the extension does not support
            except Exception as exc:  # the finding
                raise AssertionError(
                    f"{where}: reading {shown} raised {type(exc).__name__}: {exc}, not a zarrforge error"
                ) from exc
            expected = model_index.read(model) if isinstance(model_index, _Orthogonal) else model[model_index]
            assert found.shape == expected.shape and np.array_equal(found, expected), (
                f"{where}: {shown} ({accessor} selection) reads {found.tolist()}; the basic "
                f"selections of the same elements read {expected.tolist()}: "
                f"{first_difference(found, expected, expected_is='where basic indexing gives')}"
            )
            values = (np.arange(expected.size).reshape(expected.shape) + 10 * size + 1).astype(self.dtype)
            if not self.writable:
                self._expect_write_refused(
                    where, selector, selection, values, array=array, before=whole, shown=shown
                )
                return
            try:
                selector[selection] = values
            except ZarrforgeError as exc:
                raise AssertionError(f"{where}: {shown} reads but does not write: {exc}") from exc
            except Exception as exc:  # the finding
                raise AssertionError(f"{where}: writing {shown} raised {type(exc).__name__}: {exc}") from exc
            stored_as = _round_trip(extension, array, values)
            if isinstance(model_index, _Orthogonal):
                model_index.write(model, stored_as)
            else:
                model[model_index] = stored_as
            after = self._points(array, domain)
            assert np.array_equal(after, model), (
                f"{where}: after writing {values.tolist()} through {shown} ({accessor} "
                f"selection), the basic selections a[i, j] read "
                f"{first_difference(after, model, expected_is='where numpy indexing of the model has')}"
            )

        agree()

    def _readable_whole(self, array: Any) -> bool:
        try:
            array[...]
        except ZarrforgeError:
            return False
        return True


def _encoded(extension: Extension, array: Any, values: np.ndarray) -> np.ndarray:
    """``extension.encode_values`` of a copy of ``values`` (a stage may work in place)."""
    return np.asarray(extension.encode_values(array, np.array(values, copy=True)))


def _decoded(extension: Extension, array: Any, values: np.ndarray) -> np.ndarray:
    """``extension.decode_values`` of a copy of ``values``."""
    return np.asarray(extension.decode_values(array, np.array(values, copy=True)))


def _round_trip(extension: Extension, array: Any, values: np.ndarray) -> np.ndarray:
    """What a read gives for ``values`` written: decoded after encoded."""
    return _decoded(extension, array, _encoded(extension, array, values))


def _written_is(extension: Extension) -> str:
    if has_value_stage(extension):
        return "decode_values(encode_values(x)) of what was written"
    return "what was written"


def _stored_values(array: Any) -> np.ndarray:
    """The values ``array`` stores: its store copied, its document without its
    ``extensions`` (the kit's format keeps every entry there), opened read-only."""
    store, key = array.store, f"{array.path}/zarr.json" if array.path else "zarr.json"
    copy = KitMemoryStore()
    for name in store.list():
        copy.set(name, store.get(name))
    document = json.loads(store.get(key))
    document.pop("extensions", None)
    copy.set(key, json.dumps(document).encode())
    return np.asarray(zf.open_array(copy, array.path, mode="r", zarr_format=FORMAT_NAME)[...])


def _multiset(values: np.ndarray) -> list[bytes]:
    """The elements of ``values`` as their bytes, sorted: equal for the same elements in
    any order, bit for bit."""
    flat = np.ascontiguousarray(values).reshape(-1)
    return sorted(flat[i : i + 1].tobytes() for i in range(flat.size))


class _Orthogonal:
    """An orthogonal selection of a numpy model: ``np.ix_`` indices, and the dimensions
    an integer selected (which a read drops)."""

    def __init__(self, index: tuple[np.ndarray, ...], dropped: tuple[int, ...]) -> None:
        self.index, self.dropped = index, dropped

    def read(self, model: np.ndarray) -> np.ndarray:
        picked = model[self.index]
        return picked.reshape([n for d, n in enumerate(picked.shape) if d not in self.dropped])

    def write(self, model: np.ndarray, values: np.ndarray) -> None:
        model[self.index] = values.reshape(model[self.index].shape)


def _selection_text(selection: Any) -> str:
    parts = selection if isinstance(selection, tuple) else (selection,)
    return ", ".join(
        repr(p.tolist()) if isinstance(p, np.ndarray) else ":" if p == slice(None) else repr(p) for p in parts
    )
