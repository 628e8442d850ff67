"""The storage transformer suite catches broken transformers, naming the entry and the
property (issue #21), and passes the 2022 draft's sharding transformer
(plugins/sharding/tests/test_transformer_conformance.py).

Each broken transformer is registered in-process in a test module with one suite subclass
per transformer; the module runs in a subprocess (pytester), and the suite must fail each
where it is broken, and only there."""

from __future__ import annotations

BROKEN_TRANSFORMERS = '''
from zarrforge import register
from zarrforge.abc.storage_transformer import StorageTransformer
from zarrforge.abc.store import WrapperStore
from zarrforge.errors import MetadataError
from zarrforge.testing import StorageTransformerConformance


class Passing(StorageTransformer):
    """A correct pass-through transformer with one configuration key, "tag" (a string)."""
    name = "test.passing"

    def __init__(self, tag):
        self.tag = tag

    @classmethod
    def from_json(cls, name, configuration):
        config = dict(configuration or {})
        tag = config.pop("tag", None)
        if config:
            raise MetadataError(f"unknown configuration key(s) {sorted(config)}",
                                field="configuration", value=configuration)
        if not isinstance(tag, str):
            raise MetadataError(f"tag must be a string, got {tag!r}", field="configuration.tag",
                                value=tag)
        return cls(tag)

    def to_json(self):
        return {"name": self.name, "configuration": {"tag": self.tag}}

    def wrap(self, store, keys, metadata):
        return WrapperStore(store)


class Forgetful(Passing):
    """to_json() drops the configuration."""
    name = "test.forgetful"

    def to_json(self):
        return {"name": self.name}


class Credulous(Passing):
    """from_json() checks nothing."""
    name = "test.credulous"

    @classmethod
    def from_json(cls, name, configuration):
        return cls((configuration or {}).get("tag"))


class OneSlot(WrapperStore):
    def __init__(self, inner, keys):
        super().__init__(inner)
        self.keys = keys

    def _slot(self, key):
        return "slot" if self.keys.coords(key) is not None else key

    def get(self, key, byte_range=None):
        return self.inner.get(self._slot(key), byte_range)

    def get_many(self, requests):
        return [self.get(k, r) for k, r in requests]

    def _set(self, key, value):
        self.inner.set(self._slot(key), value)

    def _delete(self, key):
        self.inner.delete(self._slot(key))


class Colliding(Passing):
    """Stores every chunk under one key: chunks overwrite each other."""
    name = "test.colliding"

    def wrap(self, store, keys, metadata):
        return OneSlot(store, keys)


class Prefixed(WrapperStore):
    def get(self, key, byte_range=None):
        return self.inner.get("x/" + key, byte_range)

    def get_many(self, requests):
        return [self.get(k, r) for k, r in requests]

    def _set(self, key, value):
        self.inner.set("x/" + key, value)

    def _delete(self, key):
        self.inner.delete("x/" + key)


class Leaky(Passing):
    """Moves every key, not only chunk keys, under "x/"."""
    name = "test.leaky"

    def wrap(self, store, keys, metadata):
        return Prefixed(store)


class WholeValues(WrapperStore):
    def get(self, key, byte_range=None):
        return self.inner.get(key)

    def get_many(self, requests):
        return [self.inner.get(k) for k, _ in requests]


class RangeBlind(Passing):
    """Answers byte-range reads with the whole value."""
    name = "test.range-blind"

    def wrap(self, store, keys, metadata):
        return WholeValues(store)


for cls in (Passing, Forgetful, Credulous, Colliding, Leaky, RangeBlind):
    register("storage_transformers", cls.name, cls)


class Suite(StorageTransformerConformance):
    max_examples = 25
    shrink = False


def entry(name):
    return {"name": name, "configuration": {"tag": "t"}}


def invalid(name):
    return [({"name": name, "configuration": {"tag": 5}}, "configuration.tag")]


class TestPassing(Suite):
    transformer_documents = [entry("test.passing")]
    invalid_transformer_documents = invalid("test.passing")


class TestForgetful(Suite):
    transformer_documents = [entry("test.forgetful")]
    invalid_transformer_documents = invalid("test.forgetful")


class TestCredulous(Suite):
    transformer_documents = [entry("test.credulous")]
    invalid_transformer_documents = invalid("test.credulous")


class TestColliding(Suite):
    transformer_documents = [entry("test.colliding")]
    invalid_transformer_documents = invalid("test.colliding")


class TestLeaky(Suite):
    transformer_documents = [entry("test.leaky")]
    invalid_transformer_documents = invalid("test.leaky")


class TestRangeBlind(Suite):
    transformer_documents = [entry("test.range-blind")]
    invalid_transformer_documents = invalid("test.range-blind")
'''

STORE_TEST = "test_the_wrapped_store_keeps_chunk_values_and_passes_other_keys"
ARRAY_TEST = "test_a_real_array_reads_back_what_was_written"
EXPECTED = {
    "TestForgetful::test_to_json_is_json_and_rebuilds_an_equal_entry",
    f"TestForgetful::{ARRAY_TEST}",  # the stored entry lacks "tag": it cannot be reopened
    "TestCredulous::test_invalid_configurations_are_refused_naming_the_field",
    "TestCredulous::test_unknown_configuration_keys_are_refused",
    f"TestColliding::{STORE_TEST}",
    f"TestColliding::{ARRAY_TEST}",
    f"TestLeaky::{STORE_TEST}",
    f"TestLeaky::{ARRAY_TEST}",  # listing goes below the prefix: stored_chunks() finds none
    f"TestRangeBlind::{STORE_TEST}",
}


def _failed(result) -> set[str]:
    return {
        line.split("::", 1)[1].split(" - ")[0].split("[")[0]
        for line in result.stdout.str().splitlines()
        if line.startswith("FAILED")
    }


def test_the_transformer_suite_catches_each_broken_transformer(pytester):
    pytester.makepyfile(BROKEN_TRANSFORMERS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    failed = _failed(result)
    assert EXPECTED <= failed, f"not caught: {sorted(EXPECTED - failed)}\n{result.stdout.str()[-3000:]}"
    assert failed == EXPECTED, f"failed where not broken: {sorted(failed - EXPECTED)}"
    text = result.stdout.str()
    assert "test.forgetful" in text and "which does not rebuild a transformer" in text
    assert "the invalid entry was accepted; expected a MetadataError naming 'configuration.tag'" in text
    assert "test.colliding" in text and "reads back" in text
    assert "a key that is not a chunk key did not reach the store below unchanged" in text
    assert "bytes 2..6 of chunk key" in text


_REGISTERED = BROKEN_TRANSFORMERS.split("class Suite(")[0]
PERMISSIVE = (
    _REGISTERED
    + '''
class TestPermissive(StorageTransformerConformance):
    """Accepts any configuration: nothing invalid to list."""
    transformer_documents = [{"name": "test.credulous", "configuration": {"tag": "t"}}]
    rejects_unknown_configuration = False
    max_examples = 5
'''
)
MISDECLARED = (
    _REGISTERED
    + '''
class TestMisdeclared(StorageTransformerConformance):
    """Declared to accept any configuration, but refuses an unknown key."""
    transformer_documents = [{"name": "test.passing", "configuration": {"tag": "t"}}]
    rejects_unknown_configuration = False
    max_examples = 5
'''
)
STRICT = (
    _REGISTERED
    + """
class TestStrict(StorageTransformerConformance):
    transformer_documents = [{"name": "test.passing", "configuration": {"tag": "t"}}]
    max_examples = 5
"""
)


def test_invalid_documents_are_demanded_only_of_transformers_refusing_unknown_keys(pytester):
    pytester.makepyfile(test_permissive=PERMISSIVE)
    permissive = pytester.runpytest_subprocess("-v", "-p", "no:cacheprovider")
    permissive.assert_outcomes(passed=6)
    permissive.stdout.fnmatch_lines(
        [
            "*TestPermissive::test_invalid_configurations_are_refused_naming_the_field"
            "[[]none-declared-accepts-any[]] PASSED*"
        ]
    )
    # what the declaration claims is checked: a transformer refusing unknown keys fails it
    pytester.makepyfile(test_permissive="", test_misdeclared=MISDECLARED)
    misdeclared = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    misdeclared.assert_outcomes(passed=4, failed=2)
    assert "yet rejects_unknown_configuration = False declares" in misdeclared.stdout.str()
    pytester.makepyfile(test_misdeclared="", test_strict=STRICT)
    strict = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    text = strict.stdout.str()
    assert "ERROR test_strict.py::TestStrict" in text, text[-3000:]
    assert "set invalid_transformer_documents to (document, field) pairs" in text


READ_ONLY_TRANSFORMERS = '''
import numpy as np

from zarrforge import register
from zarrforge.abc.storage_transformer import StorageTransformer
from zarrforge.abc.store import WrapperStore
from zarrforge.errors import MetadataError, ReadOnlyError
from zarrforge.testing import StorageTransformerConformance

CHUNK = np.arange(6, dtype="<i4").reshape(2, 3) + 1  # the kit's int32 chunks of (2, 3)


class Served(WrapperStore):
    """Chunk (0, 0) and chunk (1, 1) read the bytes under "raw/c"; chunk writes refused."""

    def __init__(self, inner, keys, leaky):
        super().__init__(inner)
        self.keys, self.leaky = keys, leaky

    def _served(self, key):
        return self.keys.coords(key) in ((0, 0), (1, 1))

    def get(self, key, byte_range=None):
        if self.keys.coords(key) is None:
            return self.inner.get(key, byte_range)
        return self.inner.get("raw/c", byte_range) if self._served(key) else None

    def get_many(self, requests):
        return [self.get(k, r) for k, r in requests]

    def _set(self, key, value):
        if self.keys.coords(key) is not None and not self.leaky:
            raise ReadOnlyError(f"{key}: read-only")
        self.inner.set("raw/c" if self._served(key) else key, value)

    def _delete(self, key):
        if self.keys.coords(key) is not None and not self.leaky:
            raise ReadOnlyError(f"{key}: read-only")
        self.inner.delete(key)

    def list_prefix(self, prefix):
        yield from (k for k in self.inner.list_prefix(prefix) if self.keys.coords(k) is None)
        yield from (self.keys.key(c) for c in ((0, 0), (1, 1)) if self.keys.key(c).startswith(prefix))


class Fixed(StorageTransformer):
    name = "test.fixed"
    leaky = False

    @classmethod
    def from_json(cls, name, configuration):
        if configuration:
            raise MetadataError(f"unknown configuration key(s) {sorted(configuration)}", field="configuration")
        return cls()

    def to_json(self):
        return {"name": self.name}

    def wrap(self, store, keys, metadata):
        return Served(store, keys, self.leaky)


class Writable(Fixed):
    """Says it is read-only, but chunk writes reach the store below."""
    name = "test.writable"
    leaky = True


for cls in (Fixed, Writable):
    register("storage_transformers", cls.name, cls)


class TestFixed(StorageTransformerConformance):
    transformer_documents = [{"name": "test.fixed"}]
    invalid_transformer_documents = [({"name": "test.fixed", "configuration": {"x": 1}}, "configuration")]
    writable = False
    max_examples = 15

    def fixture(self, document, store):
        store.set("raw/c", CHUNK.tobytes())
        values = np.zeros(self.shape, dtype=self.dtype)
        values[0:2, 0:3] = CHUNK
        values[2:4, 3:6] = CHUNK
        return values


class TestWritable(TestFixed):
    transformer_documents = [{"name": "test.writable"}]
    invalid_transformer_documents = [({"name": "test.writable", "configuration": {"x": 1}}, "configuration")]
'''


def test_the_read_only_mode_reads_the_fixture_and_catches_a_transformer_that_writes(pytester):
    """``writable = False``: a read-only transformer passes every check, reading the
    plugin's fixture instead of writing; one that lets chunk writes through fails the two
    checks that write, and nothing else."""
    pytester.makepyfile(READ_ONLY_TRANSFORMERS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    failed = _failed(result)
    assert failed == {f"TestWritable::{STORE_TEST}", f"TestWritable::{ARRAY_TEST}"}, result.stdout.str()[
        -3000:
    ]
    text = result.stdout.str()
    assert "writable = False, yet setting chunk key 'c/0/0' was accepted" in text
    assert "writable = False, yet writing 7 to" in text
    result.assert_outcomes(passed=10, failed=2)
