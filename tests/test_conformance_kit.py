"""The conformance kit catches broken implementations (and passes good ones)."""

from __future__ import annotations

BROKEN_STORE = '''
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
'''

BROKEN_CODEC = '''
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
'''

BROKEN_DTYPE = '''
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
'''


def test_store_suite_catches_a_store_ignoring_byte_ranges(pytester):
    pytester.makepyfile(BROKEN_STORE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) >= 5  # every byte-range case and get_many
    result.stdout.fnmatch_lines(["*test_byte_ranges*", "*test_get_many_answers_in_request_order*"])


def test_codec_suite_catches_lossy_encoding_and_bare_exceptions(pytester):
    pytester.makepyfile(BROKEN_CODEC)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=5)
    result.stdout.fnmatch_lines(["*FAILED*test_round_trip?0:test.truncating?*",
                                 "*FAILED*test_round_trip_of_generated_chunks*",
                                 "*FAILED*test_undecodable_input_raises_only_zarrforge_errors*",
                                 "*FAILED*test_unknown_configuration_keys_are_refused*",
                                 "*FAILED*test_arrays_with_the_codec_round_trip_through_a_store*"])


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
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*FAILED*TestRacy::test_threads_lose_no_increment*",
                                 "*FAILED*TestIgnoring::test_set_if_absent_creates_once*",
                                 "*FAILED*TestIgnoring::test_a_stale_generation_conflicts*",
                                 "*FAILED*TestIgnoring::test_threads_lose_no_increment*"])
