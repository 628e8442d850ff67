"""zarr-python's functions and keyword forms on zarrforge (zarrforge.user_api.zarr_api, and
create_array's name=/data=): what differs from a plain translation, and what is refused.
tests/interop/test_zarr_python_snippets.py compares them with zarr-python itself."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import zarrforge as zf


def test_create_array_takes_name_and_data_as_zarr_python_does():
    store = zf.create_group(None).store
    array = zf.create_array(store, name="x", data=np.arange(6).reshape(2, 3))
    assert array.path == "x" and array.dtype == np.int64 and array.shape == (2, 3)
    np.testing.assert_array_equal(zf.open_array(store, "x")[...], np.arange(6).reshape(2, 3))
    empty = zf.create_array(store, name="y", data=np.ones(4), write_data=False)
    np.testing.assert_array_equal(empty[...], np.zeros(4))
    with pytest.raises(TypeError, match=r"create_array\(\): name='z' and path='w' both name"):
        zf.create_array(store, "w", name="z", shape=(2,), dtype="i4")
    with pytest.raises(TypeError, match=r"create_array\(\) needs shape and dtype"):
        zf.create_array(store, "v")


@pytest.mark.parametrize(
    "options, message",
    [
        ({"threads": "two"}, r"create_array\(\): threads='two'; give a positive int"),
        ({"threads": 0}, r"threads=0; give a positive int"),
        ({"write_empty_chunks": "yes"}, r"write_empty_chunks='yes'; give True or False"),
        (
            {"bogus": 1},
            r"create_array\(\) got an unexpected keyword argument 'bogus'$",  # nothing close to name
        ),
    ],
)
def test_runtime_options_are_checked_at_creation_before_anything_is_written(options, message):
    """``threads='two'`` used to be accepted and fail at the first write, inside the engine."""
    store = zf.create_group(None).store
    with pytest.raises(TypeError, match=message):
        zf.create_array(store, "a", shape=(4,), dtype="i4", **options)
    assert [key for key in store.list() if key.startswith("a/")] == []


def test_zarr_python_2_keywords_are_ignored_with_a_warning_or_refused_saying_why():
    with pytest.warns(
        zf.errors.IgnoredKeywordWarning,
        match=r"zarrforge.create\(\): synchronizer= is ignored: writers need no "
        r"synchronizer",
    ):
        assert zf.zeros((3,), synchronizer=object())[:].tolist() == [0.0, 0.0, 0.0]
    with pytest.warns(zf.errors.IgnoredKeywordWarning, match=r"meta_array= is ignored"):
        zf.create((3,), meta_array=np.empty(()))
    with pytest.raises(TypeError, match=r"chunk_store= is not supported"):
        zf.create((3,), chunk_store={})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zf.create((3,), synchronizer=None, meta_array=None)  # not given: no warning
    with pytest.raises(
        TypeError,
        match=r"zarrforge.create\(\) got an unexpected keyword argument 'colour'$",
    ):
        zf.ones((3,), colour="red")
    with pytest.raises(ValueError, match=r"zarr_version=2 and zarr_format=3 disagree"):
        zf.create((3,), zarr_version=2, zarr_format=3)


def test_compressor_dimension_separator_and_config_take_zarr_python_meanings():
    v2 = zf.zeros((4, 4), chunks=(2, 2), dtype="i2", zarr_format=2, compressor=None, dimension_separator="/")
    assert v2.compressors == () and v2.metadata_model.format_name == "2"
    v2[...] = 1
    assert sorted(v2.store.list()) == [".zarray", ".zattrs", "0/0", "0/1", "1/0", "1/1"]
    fortran = zf.ones((3, 2), config={"order": "F"})
    assert fortran.order == "F"
    with pytest.raises(TypeError, match="Unknown array config keys: \\['speed'\\]"):
        zf.ones((3,), config={"speed": "max"})


def test_load_of_a_group_reads_each_array_when_looked_up():
    store = zf.create_group(None).store
    zf.save(store, np.arange(3), b=np.ones(2))
    loaded = zf.load(store)
    assert sorted(loaded) == ["arr_0", "b"] and len(loaded) == 2
    np.testing.assert_array_equal(loaded["b"], np.ones(2))
    with pytest.raises(KeyError):
        loaded["missing"]


def test_from_array_of_an_array_keeps_its_chunks_shards_and_codecs():
    source = zf.create_array(
        None,
        shape=(8, 8),
        chunks=(2, 2),
        shards=(4, 4),
        dtype="u2",
        compressors=[{"name": "gzip", "configuration": {"level": 1}}],
    )
    source[...] = np.arange(64, dtype="u2").reshape(8, 8)
    copied = zf.from_array(None, data=source, name="copy")
    assert (copied.chunks, copied.shards) == ((2, 2), (4, 4))
    assert [c.to_json() for c in copied.compressors] == [c.to_json() for c in source.compressors]
    np.testing.assert_array_equal(copied[...], source[...])
    rechunked = zf.from_array(None, data=source, chunks=(4, 4), shards=None)
    assert rechunked.chunks == (4, 4) and rechunked.shards is None
    np.testing.assert_array_equal(rechunked[...], source[...])
    with pytest.raises(TypeError, match="chunks='keep' needs a zarrforge Array"):
        zf.from_array(None, data=np.ones(3), chunks="keep")
    shaped = zf.from_array(None, data=source, write_data=False)  # kept, but nothing written
    assert (shaped.chunks, shaped.shards) == ((2, 2), (4, 4)) and not shaped[...].any()


def test_group_tree_and_open_consolidated():
    store = zf.create_group(None).store
    group = zf.group(store)
    group.create_group("a").create_array("deep", shape=(2,), dtype="i1")
    assert str(zf.tree(group, level=0)).splitlines() == ["/", "└── a"]
    with pytest.raises(zf.errors.ZarrforgeError):
        zf.open_consolidated(store)  # no view yet
    zf.consolidate_metadata(store)
    assert [name for name, _ in zf.open_consolidated(store).members()] == ["a"]


def test_selection_methods_refuse_zarr_python_buffers_and_read_fields():
    record = np.dtype([("a", "<i4"), ("b", "<f8")])
    array = zf.create_array(None, shape=(3,), dtype=record, chunks=(3,))
    array[...] = np.array([(1, 1.5), (2, 2.5), (3, 3.5)], dtype=record)
    np.testing.assert_array_equal(array.get_basic_selection(slice(0, 2), fields="a"), [1, 2])
    with pytest.raises(TypeError, match=r"get_basic_selection\(\): out= is not supported"):
        array.get_basic_selection(..., out=np.empty(3, dtype=record))
    with pytest.raises(
        TypeError,
        match=r"set_basic_selection\(\): fields= is supported when "
        r"reading only",
    ):
        array.set_basic_selection(..., 0, fields="a")


def test_nbytes_and_nbytes_stored():
    array = zf.zeros((100, 10), chunks=(10, 10), dtype="f4")
    assert array.nbytes == 4000
    stored = array.nbytes_stored()  # the metadata document only: no chunk was written
    array[:10] = 1.5
    assert array.nbytes_stored() > stored
    text = zf.create_array(None, shape=(2,), dtype="string")
    with pytest.raises(TypeError, match="no fixed size per element"):
        text.nbytes


def test_require_array_refuses_another_shape_or_dtype_naming_both():
    group = zf.group(None)
    first = group.require_array("a", shape=(3,), dtype="i4")
    assert group.require_array("a", shape=(3,), dtype="i4").path == first.path
    with pytest.raises(TypeError, match=r"'/a' has shape \(3,\), not \(4,\)"):
        group.require_array("a", shape=(4,), dtype="i4")
    with pytest.raises(TypeError, match="holds int32, not float64"):
        group.require_array("a", shape=3, dtype="f8")
    assert group.nmembers() == 1 and group.update_attributes({"k": 1}).attrs["k"] == 1


def test_open_and_open_array_take_zarr_python_modes_and_create():
    store = zf.create_group(None).store
    with pytest.raises(
        zf.errors.NodeNotFoundError,
        match=r"no array at path '/a'.*"
        r"give shape= and dtype= to create",
    ):
        zf.open_array(store, "a")
    created = zf.open_array(store, "a", shape=(4,), dtype="i2", chunks=(2,))  # mode "a"
    created[...] = 3
    again = zf.open_array(store, "a", shape=(4,), dtype="i2")  # there: opened, writable
    assert not again.read_only and again[0] == 3
    with pytest.raises(ValueError, match=r"has shape \(4,\), not \(5,\) given; open it without"):
        zf.open_array(store, "a", shape=(5,), dtype="i2")
    with pytest.raises(zf.errors.ContainsNodeError, match="mode 'w-' creates only"):
        zf.open_array(store, "a", mode="w-", shape=(4,), dtype="i2")
    replaced = zf.open_array(store, "a", mode="w", shape=(2,), dtype="f4")
    assert replaced.shape == (2,) and replaced[0] == 0
    with pytest.raises(TypeError, match=r"open_array\(mode='w'\) creates the array"):
        zf.open_array(store, "a", mode="w")
    assert zf.open_array(store, "a", mode="r").read_only


def test_open_creates_a_group_where_nothing_is_and_an_array_given_a_shape():
    store = zf.create_group(None).store
    assert isinstance(zf.open(store, "g"), zf.Group)  # mode "a": created
    assert isinstance(zf.open(store, "x", shape=(3,), dtype="u1"), zf.Array)
    with pytest.raises(zf.errors.NodeNotFoundError):
        zf.open(store, "nothing", mode="r")
    with pytest.raises(
        TypeError,
        match=r"open\(\) got unexpected keyword argument\(s\) "
        r"\['dtype'\]; creation arguments need shape=",
    ):
        zf.open(store, "y", dtype="u1")
    assert isinstance(zf.open(store, "x", mode="w"), zf.Group)  # "w" replaces, with a group


def test_a_store_that_can_only_be_read_opens_read_only_without_a_mode():
    from zarrforge.testing.kit_store import KitMemoryStore

    kit = KitMemoryStore()
    zf.create_array(kit, "a", shape=(2,), dtype="i1")
    view = kit.read_only_view()
    array = zf.open_array(view, "a")
    assert array.read_only and zf.open(view, "a").read_only


def test_opening_with_the_wrong_format_says_which_format_is_there():
    """Opening v2 data with zarr_format=3 said "no array or group"."""
    array = zf.create_array(None, shape=(2,), dtype="i4", zarr_format=2)
    for opener in (zf.open_array, zf.open, zf.open_group):
        with pytest.raises(
            zf.errors.NodeOfAnotherFormatError,
            match=r"no Zarr 3 node at path '/'.*but a Zarr 2 node is there: open "
            r"it with zarr_format='2'",
        ) as info:
            opener(array.store, zarr_format=3, mode="r")
        assert info.value.format_name == "2"
        assert isinstance(info.value, zf.errors.NodeNotFoundError)


def test_compressors_auto_warns_when_the_formats_default_compressor_is_not_installed(monkeypatch):
    import warnings

    import zarrforge_draft2022.creation as draft_creation
    import zarrforge_std.format_v3 as v3
    from zarrforge.errors import UncompressedWarning

    class Without:  # the registries as they are, less the default compressors
        codecs: frozenset = frozenset()

    monkeypatch.setattr(v3, "registry", Without)
    with pytest.warns(
        UncompressedWarning,
        match=r"compressors='auto' for a Zarr 3 array means "
        r"'zstd', which no installed plugin provides.*"
        r"Install zarrforge-numcodecs \(pip install "
        r"'zarrforge\[standard\]'",
    ):
        array = zf.create_array(None, shape=(2,), dtype="i4")
    assert array.compressors == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zf.create_array(None, shape=(2,), dtype="i4", compressors=None)  # chosen: no warning
        # the 2022 draft leaves 0-d arrays uncompressed on purpose: nothing to warn of
        zf.create_array(None, shape=(), dtype="i4", zarr_format="draft-2022")
    monkeypatch.setattr(draft_creation, "registry", Without)
    with pytest.warns(UncompressedWarning, match="Zarr draft-2022 array means 'blosc'"):
        zf.create_array(None, shape=(2,), dtype="i4", zarr_format="draft-2022")
