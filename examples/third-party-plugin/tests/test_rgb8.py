import json

import numpy as np
import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zf_example import RGB8_DTYPE, to_rgb8


def test_create_with_the_numpy_dtype_and_read_back_channels():
    a = zf.create_array(None, shape=(2, 2), dtype=RGB8_DTYPE, fill_value=(10, 20, 30), compressors=None)
    document = json.loads(a.store.get("zarr.json"))
    assert document["data_type"] == "zf_example.rgb8" and document["fill_value"] == [10, 20, 30]
    a[0] = to_rgb8([[255, 0, 0], [0, 255, 0]])
    b = zf.open_array(a.store)
    assert b[0, 1].tolist() == (0, 255, 0)
    assert b[1]["b"].tolist() == [30, 30]
    assert a.store.get("c/0/0") == bytes([255, 0, 0, 0, 255, 0, 10, 20, 30, 10, 20, 30])


@pytest.mark.parametrize("fill", ["#12345", "red", (1, 2), (0, 0, 300), 7])
def test_bad_user_fill_values_are_refused(fill):
    with pytest.raises(MetadataError):
        zf.create_array(None, shape=(1,), dtype="zf_example.rgb8", fill_value=fill)


def test_configuration_is_refused():
    with pytest.raises(MetadataError, match="takes no configuration"):
        zf.create_array(None, shape=(1,), dtype={"name": "zf_example.rgb8", "configuration": {"depth": 16}})


def test_to_rgb8_checks_its_input():
    assert to_rgb8(np.zeros((2, 3), dtype=int)).shape == (2,)
    with pytest.raises(ValueError):
        to_rgb8([[1, 2]])
    with pytest.raises(ValueError):
        to_rgb8([[1, 2, 256]])
