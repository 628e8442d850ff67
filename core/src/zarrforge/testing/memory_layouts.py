"""The memory layout conformance suite.

Subclass :class:`MemoryLayoutConformance` and set:

* ``layout_names``: the registered names of the layouts to test (``["C", "F"]``); each
  is its own test (the test id names it);
* ``max_examples`` (default 50): how many cases hypothesis tries per test;
* ``shrink`` (default ``True``): minimise a failing example before reporting it.

What it checks, for each name, against :mod:`zarrforge.abc.memory_layout`: the name
resolves through the installed ``zarrforge.memory_layouts`` registry to a
:class:`~zarrforge.abc.memory_layout.MemoryLayout` whose ``name`` is that name;
``empty`` and ``full`` give arrays of the asked shape and dtype (0-d, zero-length and
up to 5-d shapes; integer, float, complex, bool, fixed-width bytes and structured
dtypes) and ``full`` holds the fill value everywhere; for hypothesis-generated arrays
(any memory order, views included), ``linearize`` gives a contiguous 1-D array of the
same dtype and size holding each element once (a permutation: nothing lost or
repeated), the same permutation for every array of a shape, and ``delinearize``
inverts it exactly, both ways (``delinearize(linearize(a)) == a`` and
``linearize(delinearize(f)) == f``); ``delinearize`` gives the asked shape; what the
codecs receive (``codec_shape``, ``for_codecs``) holds the same number of elements,
in C order exactly ``linearize``'s, and ``from_codecs`` gives the chunk back; and a real
array created with ``order=<name>`` in a format that records the layout (the first
installed format whose ``recording_memory_layouts()`` gives one: the 2022 draft's editor
dialect among the built-ins; uncompressed; edge chunks, a never-written
chunk, a partial write) stores each chunk as its elements in the layout's order -- the
raw bytes read from the store, decoded with ``delinearize``, are the chunk written
(fill values where nothing was) -- and reads back the values written, also after
reopening. Each failure names the layout and the property, in a sentence.

Without such a format installed (``zarrforge-draft2022``), the suite says so.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

import zarrforge as zf

from ..abc.memory_layout import MemoryLayout
from ..plugin_api import memory_layout, registry
from ._common import hypothesis_settings, parametrize_cases
from .kit_store import KitMemoryStore
from .scaffolding import KitScaffolding

DTYPES = [np.dtype(d) for d in ("uint8", "<i4", ">i8", "<f2", "<f8", "<c16", "?", "S3")] + [
    np.dtype([("a", "<i2"), ("b", "<f4")])
]
SHAPES = [(), (0,), (5,), (3, 0), (2, 3), (4, 1, 3), (2, 3, 2, 2), (1, 2, 1, 3, 2)]


def _arrays(max_ndim: int = 4) -> Any:
    """Hypothesis arrays of small shapes in C or F order, or strided views of them."""
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    shapes = hnp.array_shapes(min_dims=0, max_dims=max_ndim, min_side=0, max_side=5)
    dtypes: list[np.dtype] = [np.dtype("<i4"), np.dtype("<f8"), np.dtype("u1")]
    base = st.tuples(st.sampled_from(dtypes), shapes).flatmap(lambda d_s: hnp.arrays(d_s[0], d_s[1]))

    def arranged(array: np.ndarray, how: str) -> np.ndarray:
        if how == "F":
            return np.asfortranarray(array)
        if how == "view" and array.ndim:
            doubled = np.repeat(array, 2, axis=-1)
            return doubled[..., ::2]
        return np.ascontiguousarray(array)

    return st.tuples(base, st.sampled_from(["C", "F", "view"])).map(lambda a_h: arranged(*a_h))


def _recording_format() -> Any:
    """An instance of the first installed format whose documents record any chunk memory
    layout (``Format.recording_memory_layouts``)."""
    found = registry.formats.first_answer(
        lambda fmt: fmt.recording_memory_layouts(), doing="asked for a format recording memory layouts"
    )
    if found is not None:
        return found
    raise AssertionError(
        "the memory layout suite writes arrays in a format that records a chunk memory "
        "layout, and no installed format does (zarrforge-draft2022's does)"
    )


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


class MemoryLayoutConformance(KitScaffolding):
    layout_names: ClassVar[list[str]] = []
    max_examples = 50
    shrink = True

    def pytest_generate_tests(self, metafunc: Any) -> None:
        parametrize_cases(
            metafunc, "name", self.layout_names, str, "set layout_names to the registered names to test"
        )

    def _settings(self) -> Any:
        return hypothesis_settings(self.max_examples, self.shrink)

    def _layout(self, name: str) -> MemoryLayout:
        return memory_layout(name)

    # --- the tests ------------------------------------------------------------------------

    def test_name_resolves_to_a_memory_layout_of_that_name(self, name):
        registered = registry.memory_layouts.get(name)
        layout = self._layout(name)
        assert isinstance(layout, registered) and isinstance(layout, MemoryLayout), (
            f"layout {name!r}: the registry gives {registered!r}, which does not make a MemoryLayout"
        )
        assert layout.name == name, (
            f"layout {name!r}: its name attribute is {layout.name!r}, not the name it is "
            "registered under (formats that record a layout write that attribute)"
        )

    def test_empty_and_full_give_the_shape_dtype_and_value(self, name):
        layout = self._layout(name)
        for dtype in DTYPES:
            for shape in SHAPES:
                where = f"layout {name!r}, shape {shape}, dtype {dtype}"
                empty = layout.empty(shape, dtype)
                assert isinstance(empty, np.ndarray), f"{where}: empty() gave {type(empty)}"
                assert empty.shape == shape and empty.dtype == dtype, (
                    f"{where}: empty() gave shape {empty.shape}, dtype {empty.dtype}"
                )
                fill = np.zeros((), dtype=dtype)[()] if dtype.kind in "SV" else dtype.type(1)
                full = layout.full(shape, fill, dtype)
                assert full.shape == shape and full.dtype == dtype, (
                    f"{where}: full() gave shape {full.shape}, dtype {full.dtype}"
                )
                assert (full == fill).all(), f"{where}: full() does not hold the fill value everywhere"

    def test_linearize_is_a_permutation_and_delinearize_inverts_it(self, name):
        layout = self._layout(name)
        from hypothesis import example, given

        # a chunk whose C and F orders differ, tried every run whatever the draw brings
        # (a layout that linearizes one way and delinearizes the other passes 0-d and 1-d
        # draws: the suite once let one through when no drawn array had two real sides)
        @self._settings()
        @given(_arrays())
        @example(np.arange(6, dtype="<i4").reshape(2, 3))
        def round_trip(array):
            where = f"layout {name!r}, a {array.shape} {array.dtype} array"
            flat = layout.linearize(array)
            assert isinstance(flat, np.ndarray) and flat.ndim == 1, (
                f"{where}: linearize gave {getattr(flat, 'shape', flat)!r}, not a 1-D array"
            )
            assert flat.size == array.size and flat.dtype == array.dtype, (
                f"{where}: linearize gave {flat.size} {flat.dtype} elements, not {array.size} {array.dtype}"
            )
            assert flat.flags.c_contiguous, f"{where}: linearize did not give a contiguous array"
            back = layout.delinearize(flat, array.shape)
            assert _same(np.asarray(back), array), f"{where}: delinearize(linearize(a)) is not a"
            # one permutation per shape: labels 0..n-1 come back as a rearrangement of 0..n-1
            labels = np.arange(array.size).reshape(array.shape)
            order = layout.linearize(labels)
            assert np.array_equal(np.sort(order), np.arange(array.size)), (
                f"{where}: linearize loses or repeats elements (labels give {order.tolist()[:12]})"
            )
            assert np.array_equal(layout.linearize(np.asfortranarray(labels)), order), (
                f"{where}: linearize depends on the input's memory order, not only its values"
            )
            assert np.array_equal(layout.linearize(layout.delinearize(order, array.shape)), order), (
                f"{where}: linearize(delinearize(f)) is not f"
            )

        round_trip()

    def test_delinearize_gives_the_asked_shape(self, name):
        layout = self._layout(name)
        for shape in SHAPES:
            flat = np.arange(int(np.prod(shape)), dtype="<i4")
            out = np.asarray(layout.delinearize(flat, shape))
            assert out.shape == shape and out.dtype == flat.dtype, (
                f"layout {name!r}: delinearize to {shape} gave shape {out.shape}, dtype {out.dtype}"
            )

    def test_codecs_receive_the_elements_in_this_order(self, name):
        layout = self._layout(name)
        for shape in SHAPES:
            where = f"layout {name!r}, a {shape} chunk"
            labels = np.arange(int(np.prod(shape)), dtype="<i4").reshape(shape)
            codec_shape = tuple(layout.codec_shape(shape))
            assert int(np.prod(codec_shape)) == labels.size, (
                f"{where}: codec_shape gives {codec_shape}, which does not hold {labels.size} elements"
            )
            given = np.asarray(layout.for_codecs(labels))
            assert given.shape == codec_shape and given.dtype == labels.dtype, (
                f"{where}: for_codecs gave shape {given.shape}, dtype {given.dtype}, not "
                f"codec_shape's {codec_shape}, {labels.dtype}"
            )
            assert np.array_equal(np.ravel(given, order="C"), layout.linearize(labels)), (
                f"{where}: the elements for_codecs hands the codecs are not, in C order, "
                "linearize's (the stored bytes would not be in this layout's order)"
            )
            back = np.asarray(layout.from_codecs(given, shape))
            assert _same(back, labels), f"{where}: from_codecs(for_codecs(a)) is not a"

    def test_arrays_in_this_order_store_and_read_back_what_was_written(self, name):
        from hypothesis import given
        from hypothesis import strategies as st

        layout = self._layout(name)
        fmt = _recording_format()
        cases = [((7,), (3,)), ((5, 7), (2, 3)), ((4, 5, 3), (3, 2, 2))]

        @self._settings()
        @given(st.sampled_from(cases), st.integers(0, 2**32 - 1))
        def written_and_read(case, seed):
            shape, chunks = case
            rng = np.random.default_rng(seed)
            values = rng.integers(-1000, 1000, size=shape).astype("<i4")
            array = zf.create_array(
                KitMemoryStore(),
                "a",
                shape=shape,
                chunks=chunks,
                dtype="<i4",
                fill_value=-1,
                compressors=None,
                order=name,
                fmt=fmt,
            )
            region = tuple(slice(0, n - 1) for n in shape)  # leaves edge chunks partly written
            array[region] = values[region]
            expected = np.full(shape, -1, dtype="<i4")
            expected[region] = values[region]
            where = f"layout {name!r}, shape {shape}, chunks {chunks}"
            for coords in np.ndindex(*array.cdata_shape):
                raw = array.chunk_store.get(array.chunk_key(coords))
                if raw is None:
                    continue  # all fill value: not stored
                chunk = np.full(chunks, -1, dtype="<i4")  # edge chunks are stored whole
                inside = tuple(slice(i * n, min((i + 1) * n, s)) for i, n, s in zip(coords, chunks, shape))
                chunk[tuple(slice(0, p.stop - p.start) for p in inside)] = expected[inside]
                stored = np.frombuffer(raw, dtype="<i4")
                assert stored.size == chunk.size, (
                    f"{where}: chunk {coords} is stored as {len(raw)} bytes, not {chunk.nbytes}"
                )
                assert _same(np.asarray(layout.delinearize(stored, chunks)), chunk), (
                    f"{where}: the stored bytes of chunk {coords} are not its elements in this layout's order"
                )
            assert _same(np.asarray(array[...]), expected), f"{where}: a read differs from what was written"
            again = zf.open_array(array.store, "a", order=name)
            assert _same(np.asarray(again[...]), expected), (
                f"{where}: the array read after reopening differs from what was written"
            )

        written_and_read()
