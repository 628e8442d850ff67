"""The conformance kit needs no plugin: with every installed plugin hidden, its suites
pass on a codec and a key encoding defined in the test module, on the kit's stand-ins
for the spec's data types, and on the kit's own store (tests/_kit_alone_suites.py).

Before, the kit's scratch arrays were written in format '3' with the 'bytes' codec,
the 'regular' grid, the 'default' key encoding and the 'C' layout, all zarrforge-std's:
without it every suite that builds an array failed. tests/test_packaging.py runs the same
module where only the core's wheel is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from zarrforge.plugin_api import registry
from zarrforge.testing.scaffolding import kit_scaffolding

SUITES = Path(__file__).with_name("_kit_alone_suites.py")

# Every installed name of every extension point hidden for the whole run: the session
# starts as where only the core is installed (the catch-all codec family '*' too).
HIDE_EVERYTHING = """
import contextlib
import pytest
from zarrforge.plugin_api import registry

POINTS = ("data_types", "chunk_grids", "chunk_key_encodings", "memory_layouts", "codecs",
          "storage_transformers", "extensions", "stores", "formats", "url_adapters")


@pytest.fixture(autouse=True, scope="session")
def nothing_installed():
    with contextlib.ExitStack() as stack:
        for point in POINTS:
            table = getattr(registry, point)
            installed = {e.name for e in table.entries() if e.source == "entry point"}
            stack.enter_context(table.hidden(*installed, "*"))
        assert "3" not in registry.formats and "bytes" not in registry.codecs
        assert "float64" not in registry.data_types and "C" not in registry.memory_layouts
        yield
"""


def test_the_suites_pass_with_no_plugin_installed(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(HIDE_EVERYTHING)
    pytester.makepyfile(test_kit_alone=SUITES.read_text())
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("errors", 0) == 0, result.stdout.str()[-4000:]
    assert outcomes.get("passed", 0) >= 60, outcomes
    result.stdout.no_fnmatch_line("*skipped*")


def test_the_scaffolding_leaves_nothing_registered_and_shadows_no_plugin() -> None:
    """Stand-ins only where nothing answers; everything registered goes at the end."""
    installed_float64 = registry.data_types.get("float64")
    before = {
        point: registry_names(point)
        for point in (
            "formats",
            "codecs",
            "chunk_grids",
            "chunk_key_encodings",
            "data_types",
            "memory_layouts",
        )
    }
    with kit_scaffolding():
        assert registry.data_types.get("float64") is installed_float64
        assert "zarrforge-kit" in registry.formats and "zarrforge-kit.bytes" in registry.codecs
        with kit_scaffolding():  # nested: the inner end takes nothing away
            pass
        assert "zarrforge-kit" in registry.formats
    assert {point: registry_names(point) for point in before} == before
    with registry.data_types.hidden("int16"), kit_scaffolding():
        stand_in = registry.data_types.get("int16")
        assert stand_in.__module__ == "zarrforge.testing.kit_stand_ins"
    assert registry.data_types.get("int16").__module__ != "zarrforge.testing.kit_stand_ins"


def registry_names(point: str) -> list[str]:
    return getattr(registry, point).names()


def test_codec_arguments_need_no_numcodecs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the kit's run with the core's wheel alone (tests/test_packaging.py): every
    create_array naming a codec imported numcodecs, which the core does not depend on, to
    ask whether the codec was a numcodecs object."""
    import numpy as np

    import zarrforge as zf
    from zarrforge.testing.kit_format import FORMAT_NAME
    from zarrforge.testing.kit_store import KitMemoryStore

    monkeypatch.setitem(sys.modules, "numcodecs", None)  # "import numcodecs" now fails
    monkeypatch.setitem(sys.modules, "numcodecs.abc", None)
    with kit_scaffolding():
        array = zf.create_array(
            KitMemoryStore(),
            shape=(4,),
            chunks=(2,),
            dtype="int16",
            serializer="zarrforge-kit.bytes",
            compressors=None,
            zarr_format=FORMAT_NAME,
        )
        array[...] = np.arange(4, dtype="int16")
        assert array[...].tolist() == [0, 1, 2, 3]
