"""The memory layout suite catches broken layouts, naming the layout and the property
(issue #21; the codecs' view and the stored bytes, issue #30), and passes the built-ins (plugins/std/tests/test_conformance.py).

Each broken layout is registered in-process in a test module that subclasses the suite;
the module runs in a subprocess (pytester), and the suite must fail it where it is
broken, and only there."""

from __future__ import annotations

BROKEN_LAYOUTS = '''
import numpy as np
from zarrforge import register
from zarrforge.testing import MemoryLayoutConformance
from zarrforge_std.memory_layouts import COrder


class HalfFortran(COrder):
    """Linearizes column-major but delinearizes row-major."""
    name = "half-fortran"
    def linearize(self, array):
        return np.ravel(array, order="F")


class Widening(COrder):
    """Linearizes into float64 whatever the dtype."""
    name = "widening"
    def linearize(self, array):
        return np.ravel(array).astype("<f8")


class Misnamed(COrder):
    """Registered as "misnamed", but calls itself "C"."""
    name = "C"


class FlatEmpty(COrder):
    """empty() hands out a flat buffer instead of the asked shape."""
    name = "flat-empty"
    def empty(self, shape, dtype):
        return np.empty(int(np.prod(shape)), dtype=dtype)


class Unstored(COrder):
    """Linearizes in F order but hands the codecs the chunk in C order: the stored bytes
    are not in the layout's order."""
    name = "unstored"
    def linearize(self, array):
        return np.ravel(array, order="F")
    def delinearize(self, flat, shape):
        return np.reshape(flat, shape, order="F")


for name, cls in [("half-fortran", HalfFortran), ("widening", Widening),
                  ("misnamed", Misnamed), ("flat-empty", FlatEmpty), ("unstored", Unstored)]:
    register("memory_layouts", name, cls)


class TestBroken(MemoryLayoutConformance):
    layout_names = ["half-fortran", "widening", "misnamed", "flat-empty", "unstored"]
    max_examples = 20
    shrink = False
'''


def _failed(result) -> set[str]:
    return {
        line.split("::", 1)[1].split(" - ")[0]
        for line in result.stdout.str().splitlines()
        if line.startswith("FAILED")
    }


def test_the_layout_suite_catches_each_broken_layout(pytester):
    pytester.makepyfile(BROKEN_LAYOUTS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    failed = _failed(result)
    permutation = "TestBroken::test_linearize_is_a_permutation_and_delinearize_inverts_it"
    assert f"{permutation}[0:half-fortran]" in failed
    assert f"{permutation}[1:widening]" in failed
    assert "TestBroken::test_name_resolves_to_a_memory_layout_of_that_name[2:misnamed]" in failed
    assert "TestBroken::test_empty_and_full_give_the_shape_dtype_and_value[3:flat-empty]" in failed
    # only where broken: the misnamed layout orders elements correctly, the others are named right
    assert not {f for f in failed if "[2:misnamed]" in f and "test_name_resolves" not in f}
    assert not {f for f in failed if "test_name_resolves" in f and "[2:misnamed]" not in f}
    text = result.stdout.str()
    assert "layout 'half-fortran'" in text and "delinearize(linearize(a)) is not a" in text
    assert "layout 'widening'" in text and "float64" in text
    assert "layout 'misnamed': its name attribute is 'C'" in text
    assert "layout 'flat-empty', shape" in text
    # what the codecs receive, and so the stored bytes, must follow the layout's order
    assert "TestBroken::test_codecs_receive_the_elements_in_this_order[4:unstored]" in failed
    assert (
        "TestBroken::test_arrays_in_this_order_store_and_read_back_what_was_written[4:unstored]"
    ) in failed
    assert "are not, in C order, linearize's" in text
    assert "the stored bytes of chunk" in text and "are not its elements in this layout's order" in text
    assert not {
        f
        for f in failed
        if "[4:unstored]" in f and "test_codecs_receive" not in f and "store_and_read_back" not in f
    }
