"""The chunk key encoding conformance suite.

Subclass :class:`ChunkKeyEncodingConformance` and set:

* ``key_encoding_documents``: metadata entries of the encoding to test
  (``{"name": "default", "configuration": {"separator": "."}}``); each is its
  own test (the test id names it);
* ``invalid_key_encoding_documents``: ``(document, field)`` pairs that must be
  refused with a :class:`~zarrforge.errors.MetadataError` naming ``field``
  (relative to the entry: ``"configuration.separator"``); at least one;
* ``decodes = False`` for an encoding whose ``decode_key`` never recognises a
  key (the round trip and canonical-key checks are then replaced by checking
  that it answers ``None``);
* ``rejects_unknown_configuration = False`` if the encoding deliberately
  accepts configuration keys it does not know;
* ``max_examples`` (default 50): how many cases hypothesis tries per test.
* ``shrink`` (default ``True``): minimise a failing example before reporting it; ``False``
  reports the first one found, which is faster when failures are expected.

What it checks, for each entry, against :mod:`zarrforge.abc.chunk_key_encoding`:
the name resolves through the installed ``zarrforge.chunk_key_encodings``
registry to the class; ``to_json`` is JSON and rebuilds an equal encoding
giving the same keys; for hypothesis-generated coordinates of 0 to 5
dimensions (small, multi-digit and huge values) keys are valid store keys (no
empty, ``.`` or ``..`` segments, no leading ``/``) and ``decode_key`` gives the
coordinates back; distinct coordinates give distinct keys (every pair in a
13 x 13 block and in a 3-d block, and generated pairs); the 0-d chunk ``()``
has a valid key of its own; a configured ``separator`` stands between the
coordinates (``1<sep>2``); invalid configurations raise ``MetadataError``
naming the field and unknown configuration keys are refused; malformed keys
(hypothesis-generated text, and near misses of real keys: leading zeros, signs,
other digits, extra or missing coordinates, stray separators) are refused with
``None`` or a zarrforge error, never another exception, and any key
``decode_key`` does accept is the one ``encode_key`` gives those coordinates;
and a real array using the encoding (``create_array(chunk_key_encoding=...)``)
stores each written chunk under exactly ``<array path>/<encode_key(coords)>``
(the store's listing shows no other new key), lists its stored chunks back and
round trips its data after reopening. Each failure names the entry and the
property, in a sentence.
"""

from __future__ import annotations

import itertools
import json
from typing import Any, ClassVar

import numpy as np

import zarrforge as zf

from ..abc.chunk_key_encoding import ChunkKeyEncoding
from ..abc.store import validate_key
from ..errors import InvalidPathError, ZarrforgeError
from ..plugin_api import chunk_key_encoding_from_json, registry
from ._common import document_id as _document_id
from ._common import entry_name as _name
from ._common import (
    expect_refused_naming,
    expect_unknown_key_refused,
    hypothesis_settings,
    parametrize_cases,
    with_unknown_key,
)
from .kit_store import KitMemoryStore
from .scaffolding import FORMAT_NAME, KitScaffolding

# Coordinates that trip careless encodings: one and several digits, powers of ten, int64's top.
SPECIAL_COORDINATES = [0, 1, 2, 9, 10, 11, 99, 100, 101, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1]


def _separator(document: Any) -> str | None:
    if isinstance(document, dict) and isinstance(document.get("configuration"), dict):
        separator = document["configuration"].get("separator")
        return separator if isinstance(separator, str) else None
    return None


def coordinates_strategy(min_ndim: int = 0, max_ndim: int = 5) -> Any:
    from hypothesis import strategies as st

    coordinate = st.one_of(
        st.sampled_from(SPECIAL_COORDINATES), st.integers(0, 2**63 - 1), st.integers(0, 1000)
    )
    return st.integers(min_ndim, max_ndim).flatmap(lambda n: st.tuples(*(coordinate for _ in range(n))))


def near_misses(encoding: ChunkKeyEncoding, coords: tuple[int, ...]) -> list[str]:
    """Strings close to the key of ``coords`` that no canonical encoder writes for them."""
    key = encoding.encode_key(coords)
    misses = [
        "",
        "/",
        "//",
        ".",
        "..",
        "zarr.json",
        "c",
        "0",
        "c/",
        "c.",
        "-1",
        "x",
        " ",
        "/" + key,
        key + "/",
        key + "//",
        "//" + key,
        key + ".",
        key + "x",
        "x" + key,
        key + "/0",
        key + ".0",
        key + "0",
        key.upper(),
        key + "\x00",
        "../" + key,
        key.replace("/", "//"),
        key.replace(".", ".."),
        key[:-1],
        key[1:],
    ]
    for c in {str(int(c)) for c in coords}:
        for other in (
            "0" + c,
            "-" + c,
            "+" + c,
            " " + c,
            c + ".5",
            c + "e0",
            c.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")),
            c.translate(str.maketrans("0123456789", "０１２３４５６７８９")),  # noqa: RUF001  # fullwidth digits on purpose
        ):
            misses.append(key.replace(c, other, 1))
    return [m for m in dict.fromkeys(misses) if m != key]


class ChunkKeyEncodingConformance(KitScaffolding):
    key_encoding_documents: ClassVar[list[Any]] = []
    invalid_key_encoding_documents: ClassVar[list[tuple[Any, str]]] = []
    decodes = True
    rejects_unknown_configuration = True
    max_examples = 50
    shrink = True

    def pytest_generate_tests(self, metafunc: Any) -> None:
        parametrize_cases(
            metafunc,
            "document",
            self.key_encoding_documents,
            _document_id,
            "set key_encoding_documents to the metadata entries to test",
        )
        parametrize_cases(
            metafunc,
            "invalid",
            self.invalid_key_encoding_documents,
            lambda invalid: _document_id(invalid[0]),
            "set invalid_key_encoding_documents to (document, field) pairs the "
            "encoding must refuse with a MetadataError naming field",
        )

    def _settings(self) -> Any:
        return hypothesis_settings(self.max_examples, self.shrink)

    def _encoding(self, document: Any) -> tuple[str, ChunkKeyEncoding]:
        return _document_id(document), chunk_key_encoding_from_json(document)

    def _check_key(self, where: str, encoding: ChunkKeyEncoding, coords: tuple[int, ...]) -> str:
        key = encoding.encode_key(coords)
        assert isinstance(key, str), f"{where}: encode_key({coords}) gave {key!r}, not a str"
        try:
            validate_key(key)
        except InvalidPathError as exc:
            raise AssertionError(
                f"{where}: the key of chunk {coords}, {key!r}, is not a valid store key: {exc}"
            ) from exc
        if self.decodes:
            back = encoding.decode_key(key, len(coords))
            assert back is not None and tuple(back) == coords, (
                f"{where}: decode_key({key!r}) gives {back!r}, not the chunk {coords} it is the key of"
            )
            assert all(isinstance(c, (int, np.integer)) for c in back), (
                f"{where}: decode_key({key!r}) gives {back!r}, not integers"
            )
        return key

    def _check_refused(self, where: str, encoding: ChunkKeyEncoding, key: str, ndim: int) -> None:
        try:
            got = encoding.decode_key(key, ndim)
        except ZarrforgeError:
            return
        except Exception as exc:  # the finding
            raise AssertionError(
                f"{where}: decode_key({key!r}, {ndim}) raised {type(exc).__name__}: {exc}; a key "
                "that is not a chunk key gives None (or a zarrforge error)"
            ) from exc
        if got is None:
            return
        assert self.decodes, f"{where}: decodes = False, but decode_key({key!r}) gave {got!r}"
        got = tuple(got)
        assert len(got) == ndim and all(isinstance(c, (int, np.integer)) and c >= 0 for c in got), (
            f"{where}: decode_key({key!r}, {ndim}) gives {got!r}, not {ndim} chunk coordinates"
        )
        again = encoding.encode_key(got)
        assert again == key, (
            f"{where}: decode_key({key!r}, {ndim}) accepts the key as chunk {got}, whose key is "
            f"{again!r}; only the key encode_key gives may decode (else two keys name one chunk)"
        )

    # --- the tests ------------------------------------------------------------------------

    def test_name_resolves_to_the_registered_encoding_class(self, document):
        where, encoding = self._encoding(document)
        registered = registry.chunk_key_encodings.get(_name(document))
        assert isinstance(encoding, registered), (
            f"{where}: the document built {type(encoding).__name__}, not the registered {registered.__name__}"
        )
        assert isinstance(encoding, ChunkKeyEncoding), (
            f"{where}: {type(encoding).__name__} is not a ChunkKeyEncoding"
        )

    def test_to_json_is_json_and_rebuilds_an_equal_encoding(self, document):
        where, encoding = self._encoding(document)
        written = encoding.to_json()
        assert json.loads(json.dumps(written)) == written, f"{where}: to_json() is not JSON"
        assert isinstance(written, dict) and written.get("name") == _name(document), (
            f"{where}: to_json() gives {written!r}, whose name is not {_name(document)!r}"
        )
        assert set(written) <= {"name", "configuration"}, (
            f"{where}: to_json() has members besides name and configuration: {sorted(written)}"
        )
        rebuilt = chunk_key_encoding_from_json(written, field="to_json()")
        assert rebuilt.to_json() == written, f"{where}: rebuilding changes to_json()"
        assert rebuilt == encoding, (
            f"{where}: the encoding rebuilt from to_json() is not equal to the original"
        )
        for coords in [(), (0,), (3, 14), (1, 22, 333)]:
            assert rebuilt.encode_key(coords) == encoding.encode_key(coords), (
                f"{where}: the encoding rebuilt from to_json() gives chunk {coords} the key "
                f"{rebuilt.encode_key(coords)!r}, the original {encoding.encode_key(coords)!r}"
            )

    def test_generated_coordinates_round_trip_through_valid_keys(self, document):
        where, encoding = self._encoding(document)
        from hypothesis import given

        @self._settings()
        @given(coordinates_strategy())
        def round_trip(coords):
            self._check_key(where, encoding, coords)

        round_trip()

    def test_distinct_coordinates_give_distinct_keys(self, document):
        where, encoding = self._encoding(document)
        for block in (
            itertools.product(range(13), repeat=2),
            itertools.product(range(4), repeat=3),
            ((c,) for c in range(120)),
        ):
            seen: dict[str, tuple[int, ...]] = {}
            for coords in block:
                key = encoding.encode_key(coords)
                assert key not in seen, f"{where}: chunks {seen[key]} and {coords} both get the key {key!r}"
                seen[key] = coords
        from hypothesis import given
        from hypothesis import strategies as st

        @self._settings()
        @given(
            st.integers(0, 5).flatmap(
                lambda n: st.tuples(coordinates_strategy(n, n), coordinates_strategy(n, n))
            )
        )
        def distinct(pair):
            a, b = pair
            if a != b:
                ka, kb = encoding.encode_key(a), encoding.encode_key(b)
                assert ka != kb, f"{where}: chunks {a} and {b} both get the key {ka!r}"

        distinct()

    def test_the_0d_chunk_has_a_valid_key(self, document):
        where, encoding = self._encoding(document)
        key = self._check_key(where, encoding, ())
        assert encoding.encode_key(()) == key, f"{where}: the 0-d key changes between calls"

    def test_the_configured_separator_stands_between_coordinates(self, document):
        where, encoding = self._encoding(document)
        separator = _separator(document)
        if separator is None:
            return
        for coords in [(1, 2), (10, 0, 345), (7, 8, 9, 10)]:
            key = encoding.encode_key(coords)
            joined = separator.join(str(c) for c in coords)
            assert joined in key, (
                f"{where}: the key of chunk {coords} is {key!r}; with separator {separator!r} "
                f"it should hold {joined!r}"
            )

    def test_invalid_configurations_are_refused_naming_the_field(self, invalid):
        document, field = invalid
        where = _document_id(document)
        expected = f"chunk_key_encoding.{field}" if field else "chunk_key_encoding"
        expect_refused_naming(lambda: chunk_key_encoding_from_json(document), where, expected)

    def test_unknown_configuration_keys_are_refused(self, document):
        if not self.rejects_unknown_configuration:
            return
        where, encoding = self._encoding(document)
        changed = with_unknown_key(encoding.to_json())
        expect_unknown_key_refused(lambda: chunk_key_encoding_from_json(changed), where)

    def test_malformed_keys_are_refused(self, document):
        where, encoding = self._encoding(document)
        for coords in [(), (0,), (7,), (1, 2), (10, 0, 345), (2**63 - 1, 5)]:
            for ndim in {len(coords), len(coords) + 1, max(0, len(coords) - 1)}:
                for key in near_misses(encoding, coords):
                    self._check_refused(where, encoding, key, ndim)
        from hypothesis import given
        from hypothesis import strategies as st

        @self._settings()
        @given(
            st.one_of(st.text(alphabet="c0123456789/.-_x+ ", max_size=16), st.text(max_size=16)),
            st.integers(0, 4),
        )
        def refused(key, ndim):
            self._check_refused(where, encoding, key, ndim)

        refused()

    def test_arrays_store_chunks_under_the_encoded_keys(self, document):
        """Each written chunk is stored at ``<path>/<encode_key(coords)>``; nothing else new
        appears; the array lists its chunks and reads back after reopening."""
        where, encoding = self._encoding(document)
        from hypothesis import given
        from hypothesis import strategies as st

        layouts = [((), ()), ((7,), (2,)), ((26, 26), (2, 2)), ((5, 7, 4), (2, 3, 1))]

        @self._settings()
        @given(
            st.sampled_from(layouts).flatmap(
                lambda layout: st.tuples(
                    st.just(layout),
                    st.sets(
                        st.tuples(*(st.integers(0, -(-n // c) - 1) for n, c in zip(*layout))),
                        min_size=1,
                        max_size=6,
                    ),
                )
            ),
            st.integers(0, 2**32 - 1),
        )
        def stored_where_the_encoding_says(chosen, seed):
            (shape, chunks), written = chosen
            rng = np.random.default_rng(seed)
            path = "group/array"
            array = zf.create_array(
                KitMemoryStore(),
                path,
                shape=shape,
                chunks=chunks,
                dtype="uint16",
                compressors=None,
                fill_value=0,
                chunk_key_encoding=document,
                zarr_format=FORMAT_NAME,
            )
            store = array.store
            before = set(store.list())
            expected = np.zeros(shape, dtype=np.uint16)
            for coords in written:
                region = tuple(slice(i * c, min(n, (i + 1) * c)) for i, c, n in zip(coords, chunks, shape))
                values = rng.integers(1, 2**16, size=expected[region].shape, dtype=np.uint16)
                expected[region] = values
                array[region] = values
            new = set(store.list()) - before
            keys = {f"{path}/{encoding.encode_key(coords)}": coords for coords in written}
            assert new == set(keys), (
                f"{where}: writing chunks {sorted(written)} of an array at {path!r} added the "
                f"keys {sorted(new)}; the encoding says {sorted(keys)}"
            )
            reopened = zf.open_array(store, path, zarr_format=FORMAT_NAME)
            for label, handle in (("written", array), ("reopened", reopened)):
                assert handle.metadata_model.chunk_key_encoding == encoding, (
                    f"{where} ({label}): the array records the encoding as "
                    f"{handle.metadata_model.chunk_key_encoding.to_json()!r}"
                )
                if self.decodes:
                    listed = set(handle.stored_chunks())
                    assert listed == set(written), (
                        f"{where} ({label}): the array lists its stored chunks as "
                        f"{sorted(listed)}; {sorted(written)} were written"
                    )
                got = np.asarray(handle[...])
                if got.shape != expected.shape or not np.array_equal(got, expected):
                    differs = np.argwhere(np.atleast_1d(got != expected))
                    at = tuple(int(i) for i in differs[0]) if got.ndim and differs.size else ()
                    raise AssertionError(
                        f"{where} ({label}): element {at} reads {got[at]!r} where "
                        f"{expected[at]!r} was written"
                    )

        stored_where_the_encoding_says()
