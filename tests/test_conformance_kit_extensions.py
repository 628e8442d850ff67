"""The generic extension suite catches broken extensions, naming the entry and the
property (issue #21), and passes the built-ins (plugins/extensions/tests/test_conformance.py).

Each broken extension is registered in-process in a test module that subclasses the
suite; the module runs in a subprocess (pytester), and the suite must fail it where it is
broken."""

from __future__ import annotations

import re

BROKEN_EXTENSIONS = '''
from zarrforge import register
from zarrforge.abc.extension import Extension
from zarrforge.errors import MetadataError
from zarrforge.testing import ExtensionConformance
from zarrforge_extensions.offset import Offset


class Tagged(Extension):
    """A well-behaved array extension: one string tag."""
    name = "test.tagged"
    node_types = frozenset({"array"})

    def __init__(self, tag):
        self.tag = tag

    @classmethod
    def from_json(cls, name, configuration):
        configuration = configuration or {}
        unknown = set(configuration) - {"tag"}
        if unknown:
            raise MetadataError(f"unknown keys {sorted(unknown)}", field="configuration")
        tag = configuration.get("tag")
        if not isinstance(tag, str):
            raise MetadataError(f"tag must be a string, got {tag!r}", field="configuration.tag")
        return cls(tag)

    def to_json(self):
        return {"name": self.name, "configuration": {"tag": self.tag}}


class Forgetful(Tagged):
    """to_json drops the configuration."""
    name = "test.forgetful"
    def to_json(self):
        return {"name": self.name}


class Credulous(Tagged):
    """from_json validates nothing."""
    name = "test.credulous"
    @classmethod
    def from_json(cls, name, configuration):
        return cls((configuration or {}).get("tag"))


class Fussy(Tagged):
    """map_selection cannot take None (a new axis) and fails with a bare TypeError."""
    name = "test.fussy"
    def map_selection(self, array, selection, kind):
        parts = selection if isinstance(selection, tuple) else (selection,)
        if any(p is None for p in parts):
            raise TypeError("cannot handle None")
        return selection


class Meddling(Tagged):
    """after_write also overwrites the array's first element."""
    name = "test.meddling"
    def after_write(self, array, selection, kind, values):
        if not getattr(array, "_meddling", False):
            array._meddling = True
            try:
                array[(0,) * array.ndim] = -7
            finally:
                array._meddling = False


class OnlyBasic(Offset):
    """Shifts coordinates in basic selections only: a[0] is stored row 1, a.oindex[[0]]
    and a.vindex[[0], [0]] stored row 0."""
    name = "test.only-basic"
    def map_selection(self, array, selection, kind):
        return super().map_selection(array, selection, kind) if kind == "basic" else selection


for cls in (Tagged, Forgetful, Credulous, Fussy, Meddling, OnlyBasic):
    register("extensions", cls.name, cls)


def entries(name):
    return [{"name": name, "configuration": {"tag": "x"}}]


def invalid(name):
    return [({"name": name, "configuration": {"tag": 5}}, "configuration.tag")]


class TestTagged(ExtensionConformance):
    extension_documents = entries("test.tagged")
    invalid_extension_documents = invalid("test.tagged")
    max_examples = 25
    shrink = False


class TestForgetful(TestTagged):
    extension_documents = entries("test.forgetful")
    invalid_extension_documents = invalid("test.forgetful")


class TestCredulous(TestTagged):
    extension_documents = entries("test.credulous")
    invalid_extension_documents = invalid("test.credulous")


class TestFussy(TestTagged):
    extension_documents = entries("test.fussy")
    invalid_extension_documents = invalid("test.fussy")


class TestMeddling(TestTagged):
    extension_documents = entries("test.meddling")
    invalid_extension_documents = invalid("test.meddling")


class TestOnlyBasic(TestTagged):
    extension_documents = [{"name": "test.only-basic", "configuration": {"offset": [1, 0]}}]
    invalid_extension_documents = [({"name": "test.only-basic", "configuration": {"offset": "1"}},
                                     "configuration.offset")]
'''


def _failed(result) -> set[str]:
    return {
        line.split("::", 1)[1].split(" - ")[0]
        for line in result.stdout.str().splitlines()
        if line.startswith("FAILED")
    }


def test_the_extension_suite_catches_each_broken_extension(pytester):
    pytester.makepyfile(BROKEN_EXTENSIONS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    failed = _failed(result)
    classes = {f.split("::")[0] for f in failed}
    assert "TestTagged" not in classes, failed  # the well-behaved one passes everything
    assert (
        'TestForgetful::test_to_json_is_json_and_rebuilds_an_equal_entry[0:test.forgetful{"tag":"x"}]'
        in failed
    ), failed
    assert (
        'TestCredulous::test_invalid_configurations_are_refused_naming_the_field[0:test.credulous{"tag":5}]'
        in failed
    )
    assert 'TestCredulous::test_unknown_configuration_keys_are_refused[0:test.credulous{"tag":"x"}]' in failed
    assert 'TestFussy::test_what_a_selection_writes_is_what_it_reads[0:test.fussy{"tag":"x"}]' in failed
    assert 'TestMeddling::test_what_a_selection_writes_is_what_it_reads[0:test.meddling{"tag":"x"}]' in failed
    text = result.stdout.str()
    assert "test.credulous" in text and "accepted (built" in text
    assert "raised TypeError: cannot handle None, not a zarrforge error" in text


def test_the_extension_suite_catches_an_extension_mapping_basic_selections_only(pytester):
    """a[0] and a.oindex[[0]] read different rows: the suite fails the extension on the
    selection kinds, naming the selection, what it read and what basic indexing reads,
    and on nothing else. Hypothesis may draw integers only (a.oindex[0, 2]), which reads
    a scalar, so either an array or a number may follow "reads"."""
    pytester.makepyfile(BROKEN_EXTENSIONS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf", "-k", "OnlyBasic")
    failed = _failed(result)
    assert failed == {
        'TestOnlyBasic::test_selection_kinds_agree_with_basic_indexing[0:test.only-basic{"offset":[1,0]}]'
    }, result.stdout.str()[-3000:]
    text = result.stdout.str()
    assert re.search(
        r"test\.only-basic.*: a\.(oindex|vindex)\[.*\] \((orthogonal|coordinate) "
        r"selection\) reads (\[.*\]|-?\d+); the basic selections of the same elements "
        r"read (\[.*\]|-?\d+): element \(.*\) is -?\d+ where basic indexing gives -?\d+",
        text,
    ), text[-3000:]


VALUE_STAGES = '''
import contextlib

import numpy as np

from zarrforge import register
from zarrforge.abc.extension import Extension
from zarrforge.errors import MetadataError, ReadOnlyError
from zarrforge.testing import ExtensionConformance


class Halved(Extension):
    """A correct value stage: stores half of what is written."""
    name = "test.halved"
    node_types = frozenset({"array"})

    @classmethod
    def from_json(cls, name, configuration):
        if configuration:
            raise MetadataError(f"unknown keys {sorted(configuration)}", field="configuration")
        return cls()

    def to_json(self):
        return {"name": self.name}

    def encode_values(self, array, values):
        return values / 2

    def decode_values(self, array, values):
        return values * 2


class Drifting(Halved):
    """Keeps state: each encode divides by a larger number, so what is stored is not
    encode_values(x) and what is read is not decode_values(encode_values(x))."""
    name = "test.drifting"
    calls = 0

    def encode_values(self, array, values):
        Drifting.calls += 1
        return values / (2 + Drifting.calls)


class Positional(Halved):
    """Decodes by position in the selection read: a[...] and a[i, j] disagree."""
    name = "test.positional"

    def encode_values(self, array, values):
        return values - np.arange(values.size).reshape(values.shape)

    def decode_values(self, array, values):
        return values + np.arange(values.size).reshape(values.shape)


class Frozen(Halved):
    """Read-only: refuses every write (the fixture writes with it unlocked)."""
    name = "test.frozen"
    unlocked = False

    def encode_values(self, array, values):
        if not Frozen.unlocked:
            raise ReadOnlyError("test.frozen arrays are read-only")
        return values / 2


class Thawed(Frozen):
    """Says it is read-only (writable = False), but writes."""
    name = "test.thawed"

    def encode_values(self, array, values):
        return values / 2


for cls in (Halved, Drifting, Positional, Frozen, Thawed):
    register("extensions", cls.name, cls)


class TestHalved(ExtensionConformance):
    extension_documents = [{"name": "test.halved"}]
    invalid_extension_documents = [({"name": "test.halved", "configuration": {"x": 1}}, "configuration")]
    dtype = "float64"
    max_examples = 15
    shrink = False


class TestDrifting(TestHalved):
    extension_documents = [{"name": "test.drifting"}]
    invalid_extension_documents = [({"name": "test.drifting", "configuration": {"x": 1}}, "configuration")]


class TestPositional(TestHalved):
    extension_documents = [{"name": "test.positional"}]
    invalid_extension_documents = [({"name": "test.positional", "configuration": {"x": 1}}, "configuration")]


class TestFrozen(TestHalved):
    extension_documents = [{"name": "test.frozen"}]
    invalid_extension_documents = [({"name": "test.frozen", "configuration": {"x": 1}}, "configuration")]
    writable = False

    def fixture(self, document, array):
        values = np.arange(array.size, dtype=array.dtype).reshape(array.shape) * 1.5
        Frozen.unlocked = True
        try:
            array[...] = values
        finally:
            Frozen.unlocked = False
        return values


class TestThawed(TestFrozen):
    extension_documents = [{"name": "test.thawed"}]
    invalid_extension_documents = [({"name": "test.thawed", "configuration": {"x": 1}}, "configuration")]
'''

VALUE_TEST = "test_the_value_stage_stores_encoded_values_and_reads_them_decoded"
WRITES_TEST = "test_what_a_selection_writes_is_what_it_reads"
KINDS_TEST = "test_selection_kinds_agree_with_basic_indexing"


def test_value_mode_and_read_only_mode_catch_what_they_promise(pytester):
    """A correct value stage and a correct read-only extension pass every check; a value
    stage keeping state fails value mode; one decoding by position fails the selection
    kinds; an extension declared read-only that writes fails the checks that write."""
    pytester.makepyfile(VALUE_STAGES)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    failed = {f.split("[")[0] for f in _failed(result)}
    assert not {f for f in failed if f.startswith(("TestHalved::", "TestFrozen::"))}, result.stdout.str()[
        -3000:
    ]
    assert f"TestDrifting::{VALUE_TEST}" in failed, failed
    assert f"TestPositional::{KINDS_TEST}" in failed, failed
    assert {f"TestThawed::{WRITES_TEST}", f"TestThawed::{KINDS_TEST}"} <= failed, failed
    text = result.stdout.str()
    assert "are not encode_values(x)" in text or "not decode_values(encode_values(x))" in text
    assert "writable = False, yet writing" in text
