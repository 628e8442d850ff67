"""Chunks equal to the fill value are not stored -- but "equal" must mean bit for bit.

Every implementation leaves out chunks whose elements all equal the fill value
(zarrforge and zarr-python by default, tensorstore always). A chunk of -0.0 under
the fill value 0.0, or of NaNs with a payload under the fill value NaN, compares
equal as numbers but is different data: leaving it out changes what is read.

zarrforge and tensorstore compare bits and store such chunks. zarr-python 3.1
compares NaN-aware and leaves out a chunk of payload NaNs under a NaN fill
value, so its array reads back canonical NaNs (asserted as its documented
deviation). Chunks that really are all fill value (canonical NaN under NaN)
are left out by all three.
"""

from __future__ import annotations

import _interop as X
import numpy as np
import pytest

IMPLEMENTATIONS = ("zarrforge", *X.PEERS)


def _f32(bits: int) -> np.ndarray:
    return np.full((4,), bits, dtype="<u4").view("<f4").astype("float32")


VARIANTS = {  # fill value (JSON), values written, are the chunks different from the fill?
    "negative-zero-under-zero": (0.0, _f32(0x80000000), True),
    "nan-payload-under-nan": ("NaN", _f32(0x7FC00001), True),
    "negative-nan-under-nan": ("NaN", _f32(0xFFC00000), True),
    "nan-under-nan": ("NaN", _f32(0x7FC00000), False),
    "zero-under-zero": (0.0, _f32(0x00000000), False),
}


@pytest.mark.parametrize("reader", IMPLEMENTATIONS)
@pytest.mark.parametrize("writer", IMPLEMENTATIONS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_chunks_equal_to_the_fill_value_bit_for_bit(tmp_path, variant, writer, reader):
    fill, values, differs = VARIANTS[variant]
    case = X.Case(variant, "float32", (4,), (2,), (X.bytes_codec(),), fill=fill)
    X.WRITERS[writer](tmp_path, case, values)
    expected = values
    if writer == "zarr-python" and differs and np.isnan(values[0]):
        # zarr-python 3.1 compares chunks with the fill value NaN-aware: a chunk of
        # NaNs is "empty" whatever its bits, is not stored, and reads as canonical NaN.
        assert X.stored_chunk_keys(tmp_path) == []
        expected = np.full((4,), np.nan, dtype="float32")
    else:
        assert X.stored_chunk_keys(tmp_path) == (["c/0", "c/1"] if differs else [])
    X.assert_same_bits(X.READERS[reader](tmp_path).values, expected, f"{writer} -> {reader}")
