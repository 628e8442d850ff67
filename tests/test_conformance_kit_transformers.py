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
