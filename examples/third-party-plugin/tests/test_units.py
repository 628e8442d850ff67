import gc
import json
import weakref

import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zf_example import set_units, units_of
from zf_example.units import NAME, _opened


def test_the_hook_records_units_when_nodes_open():
    g = zf.create_group(
        None, extensions=[{"name": NAME, "must_understand": False, "configuration": {"units": "1"}}]
    )
    a = g.create_array(
        "speed", shape=(3,), dtype="float32", extensions=[{"name": NAME, "configuration": {"units": "m/s"}}]
    )
    opened = zf.open_array(a.store, "speed")
    assert opened in _opened and _opened[opened].units == "m/s"  # before anyone asked
    assert units_of(opened) == "m/s" and units_of(zf.open_group(g.store)) == "1"
    assert units_of(g.create_array("plain", shape=(1,), dtype="int8")) is None


def test_records_follow_changes_and_go_with_the_node():
    a = zf.create_array(None, shape=(2,), dtype="int8")
    set_units(a, "kg")
    assert units_of(a) == "kg"
    # skippable, so written as a top-level key (zarr-python and tensorstore read those)
    assert json.loads(a.store.get("zarr.json"))[NAME] == {
        "name": NAME,
        "configuration": {"units": "kg"},
        "must_understand": False,
    }
    a.set_extension({"name": NAME, "configuration": {"units": "g"}})  # behind the helper's back
    assert units_of(a) == "g"
    a.remove_extension(NAME)
    assert units_of(a) is None
    set_units(a, "s")
    assert a in _opened
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None  # the record did not keep the node alive, and left with it


@pytest.mark.parametrize("configuration", [{}, {"units": ""}, {"units": 3}, {"units": "m", "scale": 2}])
def test_bad_configurations_are_refused(configuration):
    with pytest.raises(MetadataError, match="configuration"):
        zf.create_group(None, extensions=[{"name": NAME, "configuration": configuration}])


def test_everything_is_found_through_entry_points():
    rows = {(r.point, r.name): r for r in zf.plugins() if r.distribution == "zarrforge-example-thirdparty"}
    assert set(rows) == {
        ("codecs", "zf_example.bitround"),
        ("data_types", "zf_example.rgb8"),
        ("extensions", NAME),
        ("hooks", "zf-example"),
    }
    assert all(r.status == "ok" for r in rows.values())
