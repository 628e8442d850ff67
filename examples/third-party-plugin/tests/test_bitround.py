from typing import Literal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import zarrforge as zf
from zarrforge.errors import MetadataError
from zf_example.bitround import MANTISSA_BITS


def bitround_array(dtype, keepbits, shape=(64,)):
    return zf.create_array(
        None,
        shape=shape,
        dtype=dtype,
        chunks=(16,),
        filters=[{"name": "zf_example.bitround", "configuration": {"keepbits": keepbits}}],
    )


FLOAT_WIDTHS: dict[str, Literal[16, 32, 64]] = {"float16": 16, "float32": 32, "float64": 64}


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["float16", "float32", "float64"]).flatmap(
        lambda dtype: st.tuples(
            st.just(dtype),
            st.integers(0, MANTISSA_BITS[np.dtype(dtype).itemsize]),
            hnp.arrays(dtype, 64, elements=st.floats(width=FLOAT_WIDTHS[dtype])),
        )
    )
)
def test_relative_error_is_bounded_and_non_finite_values_survive(case):
    dtype, keepbits, values = case
    a = bitround_array(dtype, keepbits)
    a[:] = values
    got = a[:]
    finite = np.isfinite(values)
    assert np.array_equal(got[~finite], values[~finite], equal_nan=True)
    assert np.array_equal(
        got.view(f"u{values.itemsize}")[np.isnan(values)],
        values.view(f"u{values.itemsize}")[np.isnan(values)],
    )  # payloads kept
    x, y = values[finite].astype(np.float64), got[finite].astype(np.float64)
    tiny = np.finfo(dtype).smallest_subnormal
    # relative error <= 2**-(keepbits+1) for normal numbers (subnormals: half an ulp of keepbits)
    bound = np.maximum(
        np.abs(x) * 2.0 ** -(keepbits + 1), tiny * 2.0 ** (MANTISSA_BITS[values.itemsize] - keepbits)
    )
    overflow = np.isinf(y)  # rounding up past the largest finite value
    assert np.all((np.abs(y - x) <= bound) | overflow)


def test_low_bits_are_zero_and_ties_go_to_even():
    a = bitround_array("float32", 2, shape=(4,))
    # 1.125 = 1.001b, 1.375 = 1.011b: both halfway at 2 kept bits
    a[:] = np.array([1.125, 1.375, 1.3, -1.7], dtype="float32")
    assert a[:].tolist() == [1.0, 1.5, 1.25, -1.75]
    assert np.all(a[:].view("u4") & np.uint32((1 << 21) - 1) == 0)


@pytest.mark.parametrize(
    "configuration,field",
    [
        ({}, "configuration.keepbits"),
        ({"keepbits": -1}, "configuration.keepbits"),
        ({"keepbits": 3.0}, "configuration.keepbits"),
        ({"keepbits": 3, "x": 1}, "configuration"),
    ],
)
def test_bad_configurations_name_the_field(configuration, field):
    with pytest.raises(MetadataError) as info:
        zf.create_array(
            None,
            shape=(4,),
            dtype="float32",
            filters=[{"name": "zf_example.bitround", "configuration": configuration}],
        )
    assert info.value.field == f"filters[0].{field}"


def test_data_types_and_widths_are_checked_before_writing():
    with pytest.raises(MetadataError, match="float16, float32 and float64"):
        zf.create_array(
            None,
            shape=(4,),
            dtype="int32",
            filters=[{"name": "zf_example.bitround", "configuration": {"keepbits": 3}}],
        )
    with pytest.raises(MetadataError, match="exceeds the 10 mantissa bits"):
        zf.create_array(
            None,
            shape=(4,),
            dtype="float16",
            filters=[{"name": "zf_example.bitround", "configuration": {"keepbits": 11}}],
        )


def test_rounded_data_compresses_better():
    rng = np.random.default_rng(0)
    values = rng.normal(280, 5, size=20_000).astype("float32")
    sizes = {}
    for keep in (23, 7):
        a = bitround_array("float32", keep, shape=values.shape)
        a[:] = values
        sizes[keep] = sum(len(a.store.get(k)) for k in a.store.list() if k != "zarr.json")
    assert sizes[7] < 0.8 * sizes[23]  # zstd alone, no shuffle: about 0.73
