"""The codec and data type suites catch the faulty plugins met in practice (issue #21):
a decode that turns NaN into 0, a decode that returns another data type, a decoder that
trusts a length written in the data, a lossy codec that drops a byte, a codec that claims
its bytes are the plain elements (``plain_dtype``) when they are not, a record type that
says it has no endianness. Each is a fixture here, run through the suite in a subprocess
(pytester); the suite must fail it, naming the document and the property."""

from __future__ import annotations

CODECS = '''
import numpy as np
from zarrforge import register
from zarrforge.abc.codec import ArrayArrayCodec, ArrayBytesCodec, BytesBytesCodec
from zarrforge.errors import CorruptChunkError
from zarrforge.testing import CodecConformance


class _Plain:
    @classmethod
    def from_json(cls, name, configuration):
        return cls()
    def to_json(self):
        return {"name": self.name}


class NanToZero(_Plain, ArrayArrayCodec):
    name = "test.nan-to-zero"
    def resolve(self, spec):
        return spec
    def encode(self, chunk, spec):
        return chunk
    def decode(self, chunk, spec):
        return np.where(np.isnan(chunk), 0, chunk).astype(chunk.dtype)


class Byteswapped(_Plain, ArrayArrayCodec):
    name = "test.byteswapped"
    def resolve(self, spec):
        return spec
    def encode(self, chunk, spec):
        return chunk
    def decode(self, chunk, spec):
        return chunk.astype(chunk.dtype.newbyteorder())  # same values, another data type


class TrustsItsHeader(_Plain, BytesBytesCodec):
    name = "test.trusting"
    def encode(self, data):
        return len(data).to_bytes(8, "little") + bytes(data)
    def decode(self, data):
        if len(data) < 8:
            raise CorruptChunkError("too short")
        out = np.empty(int.from_bytes(bytes(data[:8]), "little"), dtype=np.uint8)
        if len(out) != len(data) - 8:
            raise CorruptChunkError("length mismatch")
        out[:] = np.frombuffer(bytes(data[8:]), dtype=np.uint8)
        return out.tobytes()


class DropsAByte(_Plain, BytesBytesCodec):
    name = "test.drops-a-byte"
    def encode(self, data):
        return bytes(data)
    def decode(self, data):
        return bytes(data)[:-1]


class ClaimsPlain(_Plain, ArrayBytesCodec):
    """Stores the elements in F order, but says they are plain (C order)."""
    name = "test.claims-plain"
    def encoded_size(self, spec):
        return spec.nbytes
    def plain_dtype(self, spec):
        return spec.dtype
    def encode(self, chunk, spec):
        return np.asfortranarray(chunk).tobytes(order="F")
    def decode(self, data, spec):
        return np.frombuffer(data, spec.dtype).reshape(spec.shape, order="F")


for cls in (NanToZero, Byteswapped, TrustsItsHeader, DropsAByte, ClaimsPlain):
    register("codecs", cls.name, cls)


class TestNanToZero(CodecConformance):
    codec_documents = ["test.nan-to-zero"]
    rejects_unknown_configuration = False

class TestByteswapped(CodecConformance):
    codec_documents = ["test.byteswapped"]
    rejects_unknown_configuration = False

class TestTrusting(CodecConformance):
    codec_documents = ["test.trusting"]
    rejects_unknown_configuration = False

class TestDropsAByte(CodecConformance):
    codec_documents = ["test.drops-a-byte"]
    rejects_unknown_configuration = False
    lossless = False

class TestClaimsPlain(CodecConformance):
    codec_documents = ["test.claims-plain"]
    rejects_unknown_configuration = False
'''


def test_the_codec_suite_catches_each_faulty_codec(pytester):
    pytester.makepyfile(CODECS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    text = result.stdout.str()
    failed = {
        line.split("::")[1] + "::" + line.split("::")[2].split(" ")[0]
        for line in text.splitlines()
        if line.startswith("FAILED")
    }
    assert {
        # NaN -> 0: the special-value chunk and generated chunks
        "TestNanToZero::test_round_trip[0:test.nan-to-zero]",
        "TestNanToZero::test_arrays_with_the_codec_round_trip_through_a_store[0:test.nan-to-zero]",
        # another data type with the same values: caught because nothing is cast
        "TestByteswapped::test_round_trip[0:test.byteswapped]",
        "TestByteswapped::test_round_trip_of_generated_chunks[0:test.byteswapped]",
        # a length header trusted: a gigabyte allocated for a few bytes of input
        "TestTrusting::test_undecodable_input_raises_only_zarrforge_errors[0:test.trusting]",
        # lossy, but the byte count must still be right
        "TestDropsAByte::test_round_trip[0:test.drops-a-byte]",
        "TestDropsAByte::test_round_trip_of_generated_chunks[0:test.drops-a-byte]",
        # F order stored, C order claimed: the engine's own coding would differ
        "TestClaimsPlain::test_round_trip[0:test.claims-plain]",
    } <= failed, text[-6000:]
    # the bits of both: which NaN (payload, sign) the chunk had
    assert (
        "element (0, 0) is 0.0 (bits 0x0000000000000000) where the chunk had nan (bits 0x7ff8000000000000)"
    ) in text
    assert "decode gave shape (7, 5) and data type >f8 for a chunk of (7, 5) and float64" in text
    assert "decoding leading 4 bytes = 1073741824 (little-endian) input (288 bytes" in text
    assert "allocated" in text and "must not trust sizes written in the data" in text
    assert "decode gave 279 bytes for 280 encoded" in text
    assert "plain_dtype() says the encoding is the elements as float64 in C order" in text
    # the faultless parts of each pass
    assert "TestTrusting::test_round_trip[0:test.trusting]" not in failed
    assert "TestNanToZero::test_to_json_is_json_and_rebuilds_an_equal_codec[0:test.nan-to-zero]" not in failed


DATA_TYPE = '''
from zarrforge import register
from zarrforge.abc.data_type import DataType
from zarrforge.testing import DataTypeConformance
from zarrforge_dtypes.struct_type import Struct


class Forgetful(Struct):
    """A record type that takes the base class's answer: numpy says '|' for records."""
    @property
    def has_endianness(self):
        return DataType.has_endianness.fget(self)


register("data_types", "struct", Forgetful, replace=True)


class TestForgetful(DataTypeConformance):
    data_type_documents = [{"name": "struct", "configuration": {"fields": [
        {"name": "x", "data_type": "float32"}, {"name": "n", "data_type": "int16"}]}}]
'''


def test_the_data_type_suite_catches_a_record_type_without_endianness(pytester):
    pytester.makepyfile(DATA_TYPE)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*FAILED*TestForgetful::test_has_endianness_agrees_with_numpy*"])
    result.stdout.fnmatch_lines(["*has_endianness is False, but*has multi-byte parts*"])
    assert result.parseoutcomes().get("failed") == 1
