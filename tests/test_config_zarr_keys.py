"""zarrforge.config with zarr-python's API and keys (zarrforge.config_keys), beside its own."""

from __future__ import annotations

import numpy as np
import pytest

import zarrforge as zf
from zarrforge import config


@pytest.fixture(autouse=True)
def _fresh_settings():
    config.reset()
    yield
    config.reset()


def test_get_by_zarr_python_key_reads_the_translated_setting():
    assert config.get("array.order") == "C"
    assert config.get("default_zarr_format") == 3
    with config.set(default_format="2"):
        assert config.get("default_zarr_format") == 2
    with config.set(default_format="draft-2022"):
        assert config.get("default_zarr_format") == "draft-2022"
    assert config.get("threading.max_workers") == config.get().threads


def test_set_without_with_applies_until_reset():
    config.set({"array.order": "F"})
    assert config.get().order == "F"
    assert config.get("array.order") == "F"
    config.reset()
    assert config.get().order == "C"


def test_set_as_a_block_restores_only_what_it_changed():
    with config.set({"array.write_empty_chunks": True}):
        assert config.get().write_empty_chunks is True
        config.update(threads=3)  # changed inside the block by someone else
    assert config.get().write_empty_chunks is False
    assert config.get().threads == 3


def test_keyword_and_mapping_forms_and_nested_mappings():
    with config.set({"array": {"order": "F"}}, threads=2, array__write_empty_chunks=True) as now:
        assert (now.order, now.threads, now.write_empty_chunks) == ("F", 2, True)


def test_the_setting_changes_what_arrays_do():
    store = {}
    with config.set({"array.write_empty_chunks": True}):
        arr = zf.create_array(store, shape=(4,), chunks=(2,), dtype="i4", fill_value=0)
        arr[:] = 0
    assert "c/0" in store and "c/1" in store
    assert np.array_equal(arr[:], np.zeros(4, "i4"))
    config.set({"default_zarr_format": 2})
    v2_store: dict = {}
    zf.create_array(v2_store, shape=(4,), dtype="i4")
    assert ".zarray" in v2_store and "zarr.json" not in v2_store


def test_unsafe_pickle_key_maps_to_allow_unsafe_codecs():
    with config.set({"array.allow_unsafe_pickle_decode": True}):
        assert "numcodecs.pickle" in config.get().allow_unsafe_codecs
        assert config.get("array.allow_unsafe_pickle_decode") is True
    assert config.get("array.allow_unsafe_pickle_decode") is False


def test_zarr_python_implementation_keys_are_recorded_without_effect():
    assert config.get("json_indent") == 2
    with config.set({"codec_pipeline.path": "x.Y", "json_indent": 4, "codecs.blosc": "a.B"}):
        assert config.get("codec_pipeline.path") == "x.Y"
        assert config.get("json_indent") == 4
        assert config.get("codecs.blosc") == "a.B"
    assert config.get("json_indent") == 2


def test_get_of_a_section_is_a_nested_dict():
    section = config.get("async")
    assert set(section) == {"concurrency", "timeout"}


def test_unknown_key_is_refused_naming_the_closest():
    with pytest.raises(KeyError, match="did you mean 'array.order'"):
        config.set({"array.ordr": "F"})
    with pytest.raises(KeyError, match="unknown config option 'nonsense'"):
        config.get("nonsense")
    assert config.get("nonsense", 7) == 7


def test_a_value_zarrforge_cannot_honour_safely_is_refused():
    with pytest.raises(NotImplementedError, match="array.read_missing_chunks"):
        config.set({"array.read_missing_chunks": False})
    assert config.get("array.read_missing_chunks") is True


def test_bad_value_names_the_zarr_python_key_and_the_setting():
    with pytest.raises(ValueError, match="'threading.max_workers' .*'threads'"):
        config.set({"threading.max_workers": 0})


def test_pprint_prints_both_views(capsys):
    config.pprint()
    out = capsys.readouterr().out
    assert "'threads'" in out and "'default_zarr_format': 3" in out
