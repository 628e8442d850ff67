"""The conformance kit catches broken implementations (and passes good ones)."""

from __future__ import annotations

import re

BROKEN_STORE = """
from zarrforge.testing import StoreConformance
from zarrforge_std.stores.memory import MemoryStore

class IgnoresRanges(MemoryStore):
    def get(self, key, byte_range=None):
        return super().get(key)

class TestBroken(StoreConformance):
    def make_store(self, tmp_path):
        return IgnoresRanges()
    def make_read_only_store(self, store):
        return IgnoresRanges(read_only=True, data=store._data)
"""

BROKEN_CODEC = """
from zarrforge import register
from zarrforge.abc.codec import BytesBytesCodec
from zarrforge.errors import MetadataError
from zarrforge.testing import CodecConformance

class Truncating(BytesBytesCodec):
    name = "test.truncating"
    @classmethod
    def from_json(cls, name, configuration):
        return cls()
    def to_json(self):
        return {"name": self.name}
    def encode(self, data):
        return bytes(data)[:-1]
    def decode(self, data):
        if not data:
            raise IndexError("bare exception from deep inside")
        return bytes(data)

register("codecs", "test.truncating", Truncating)

class TestBroken(CodecConformance):
    codec_documents = ["test.truncating"]
"""

BROKEN_DTYPE = """
import numpy as np
from zarrforge import register
from zarrforge.testing import DataTypeConformance
from zarrforge_std.data_types import Int16

class SloppyInt16(Int16):
    name = "test.sloppy"
    def to_json(self):
        return "test.sloppy"
    def fill_value_from_json(self, value):
        return np.int16(int(value))  # accepts 1.5 and "3"

register("data_types", "test.sloppy", SloppyInt16)

class TestBroken(DataTypeConformance):
    data_type_documents = ["test.sloppy"]
    valid_fill_values = [0, 7]
    invalid_fill_values = [1.5, "3"]
"""


def test_store_suite_catches_a_store_ignoring_byte_ranges(pytester):
    """--assert=plain: the kit's messages are its own, not pytest's assertion rewriting."""
    pytester.makepyfile(BROKEN_STORE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "--assert=plain", "-rf")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 5  # every byte-range case and get_many
    result.stdout.fnmatch_lines(["*test_byte_ranges*", "*test_get_many_answers_in_request_order*"])
    text = result.stdout.str()
    # each names the key, the value found and the value expected
    assert (
        "get('a/c/0/0', ByteRange(offset=0, length=10)) of a 256-byte value (bytes 0..10) "
        "is 256 bytes b'\\x00\\x01"
    ) in text, text[-3000:]
    assert (
        "; expected b'\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\t' (first difference at "
        "byte 10; 256 bytes, expected 10)"
    ) in text
    assert re.search(
        r"get_many: the answer to \('a/c/0/0', ByteRange\(offset=1, length=2\)\) is "
        r"256 bytes .*; expected b'\\x01\\x02'",
        text,
    ), text[-3000:]


def test_codec_suite_catches_lossy_encoding_and_bare_exceptions(pytester):
    pytester.makepyfile(BROKEN_CODEC)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=5)
    result.stdout.fnmatch_lines(
        [
            "*FAILED*test_round_trip?0:test.truncating?*",
            "*FAILED*test_round_trip_of_generated_chunks*",
            "*FAILED*test_undecodable_input_raises_only_zarrforge_errors*",
            "*FAILED*test_unknown_configuration_keys_are_refused*",
            "*FAILED*test_arrays_with_the_codec_round_trip_through_a_store*",
        ]
    )


def test_data_type_suite_catches_lenient_fill_values(pytester):
    pytester.makepyfile(BROKEN_DTYPE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6, failed=1)
    result.stdout.fnmatch_lines(["*FAILED*test_invalid_fill_values_are_refused?test.sloppy?*"])


BROKEN_CONDITIONAL_STORE = '''
import threading, time
from zarrforge.testing import ConditionalWriteConformance
from zarrforge_std.stores.local import LocalStore

class CheckThenWrite(LocalStore):
    """Checks the generation, then writes, without holding the lock in between."""
    def _set_if(self, key, value, if_generation):
        path = self._path(key)
        self._check_generation(key, path, if_generation)
        time.sleep(0.0005)  # the window other writers fall into
        self._replace(key, path, (value,))
        return self._current(path)

class IgnoresGeneration(LocalStore):
    def _set_if(self, key, value, if_generation):
        self._replace(key, self._path(key), (value,))
        return self._current(self._path(key))

class TestRacy(ConditionalWriteConformance):
    def make_store(self, tmp_path):
        return CheckThenWrite(tmp_path / "root")
    def make_read_only_store(self, store):
        return CheckThenWrite(store.root, read_only=True)

class TestIgnoring(ConditionalWriteConformance):
    def make_store(self, tmp_path):
        return IgnoresGeneration(tmp_path / "root")
    def make_read_only_store(self, store):
        return IgnoresGeneration(store.root, read_only=True)
'''


def test_conditional_write_suite_catches_lost_updates(pytester):
    pytester.makepyfile(BROKEN_CONDITIONAL_STORE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "--assert=plain", "-rf")
    result.stdout.fnmatch_lines(
        [
            "*FAILED*TestRacy::test_threads_lose_no_increment*",
            "*FAILED*TestIgnoring::test_set_if_absent_creates_once*",
            "*FAILED*TestIgnoring::test_a_stale_generation_conflicts*",
            "*FAILED*TestIgnoring::test_threads_lose_no_increment*",
        ]
    )
    text = result.stdout.str()
    assert "set_if_absent('a/k', b'second') of a key that exists succeeded (returned " in text
    assert "expected a ConflictError" in text
    assert re.search(
        r"key 'counter' after 4 threads each added 1 50 times through set_if "
        r"\(lower: increments lost\) is \d+; expected 200",
        text,
    ), text[-3000:]


ONE_DOCUMENT_STORE = '''
import base64, json, os, time
from zarrforge.abc.store import Store, StoreCapabilities, validate_key, validate_prefix
from zarrforge.testing import CrossProcessStoreConformance, StoreConformance


class OneDocumentStore(Store):
    """Every key in one JSON file, read, changed and replaced whole: no lock, no
    conditional write. Right for one writer; two processes lose each other's keys."""
    capabilities = StoreCapabilities()

    def __init__(self, path, read_only=False):
        super().__init__(read_only=read_only)
        self.path = str(path)

    def _load(self):
        try:
            with open(self.path) as f:
                return json.load(f)
        except FileNotFoundError:
            return {}

    def _change(self, change):
        data = self._load()
        time.sleep(0.002)  # the window another writer falls into
        change(data)
        temporary = f"{self.path}.{os.getpid()}"
        with open(temporary, "w") as f:
            json.dump(data, f)
        os.replace(temporary, self.path)

    def get(self, key, byte_range=None):
        validate_key(key)
        held = self._load().get(key)
        if held is None:
            return None
        value = base64.b64decode(held)
        return value if byte_range is None else value[byte_range.slice_of(len(value))]

    def _set(self, key, value):
        self._change(lambda data: data.__setitem__(key, base64.b64encode(bytes(value)).decode()))

    def _delete(self, key):
        self._change(lambda data: data.pop(key, None))

    def list_prefix(self, prefix):
        validate_prefix(prefix)
        return iter(sorted(k for k in self._load() if k.startswith(prefix)))


class TestOneDocument(StoreConformance, CrossProcessStoreConformance):
    def make_store(self, tmp_path):
        return OneDocumentStore(tmp_path / "store.json")

    def make_read_only_store(self, store):
        return OneDocumentStore(store.path, read_only=True)

    def reopen_args(self, store):
        return OneDocumentStore, (store.path,)
'''


def test_store_suite_catches_keys_lost_by_two_writer_processes(pytester):
    """The one-document store passes every single-writer case and fails the two-process
    one, naming keys it lost."""
    pytester.makepyfile(ONE_DOCUMENT_STORE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "--assert=plain", "-rf")
    failed = [line for line in result.stdout.str().splitlines() if line.startswith("FAILED")]
    assert (
        len(failed) == 1
        and "TestOneDocument::test_processes_writing_and_deleting_keys_lose_nothing" in failed[0]
    ), result.stdout.str()[-3000:]
    assert re.search(
        r"2 processes each set 40 keys of their own at once, deleting every other "
        r"one: [1-9]\d* keys set and never deleted read as absent \(lost: "
        r"\['conformance/concurrent/w\d-\d+'",
        result.stdout.str(),
    ), result.stdout.str()[-3000:]
