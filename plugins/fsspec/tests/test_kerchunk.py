"""kerchunk reference sets (``reference://``) read through fsspec's ReferenceFileSystem.

An HDF5 file is written here with h5py (chunked and compressed, contiguous, a group,
fill values), kerchunk itself builds its references, and zarrforge reads the result,
compared element for element with h5py reading the file directly: from the references
in memory, from a JSON file, from kerchunk's parquet form, with small arrays inlined in the
references, and as Zarr v3
references (the form virtualizarr writes) built from kerchunk's own chunk references.
"""

from __future__ import annotations

import getpass
import json
import os

import h5py
import numpy as np
import pytest
from kerchunk.hdf import SingleHdf5ToZarr

import zarrforge as zf

DATASETS = ("temperature", "lat", "sub/counts")


@pytest.fixture
def hdf5_file(tmp_path):
    path = tmp_path / "source.h5"
    rng = np.random.default_rng(7)
    with h5py.File(path, "w") as f:
        f.attrs["title"] = "kerchunk test"
        f.create_dataset(
            "temperature",
            data=rng.normal(280, 5, (20, 30)).astype("float32"),
            chunks=(8, 10),
            compression="gzip",
            compression_opts=4,
            shuffle=True,
        )
        f.create_dataset("lat", data=np.linspace(-60, 60, 30))  # contiguous, 240 bytes
        sub = f.create_group("sub")
        counts = sub.create_dataset("counts", shape=(13, 7), dtype="int16", chunks=(5, 5), fillvalue=-3)
        counts[:10, :] = np.arange(70, dtype="int16").reshape(10, 7)
        counts.attrs["units"] = "1"
    return path


def references(path, **options) -> dict:
    return SingleHdf5ToZarr(str(path), **options).translate()


def assert_matches_the_file(group: zf.Group, path) -> None:
    with h5py.File(path, "r") as f:
        for name in DATASETS:
            np.testing.assert_array_equal(group[name][...], f[name][...], err_msg=name)
            assert group[name].dtype == f[name].dtype
        np.testing.assert_array_equal(group["sub/counts"][11:, 2:4], f["sub/counts"][11:, 2:4])
    assert group.attrs["title"] == "kerchunk test"
    assert group["sub/counts"].attrs["units"] == "1"


def test_references_in_memory_read_like_the_file(hdf5_file):
    refs = references(hdf5_file, inline_threshold=0)
    # a set given in memory has no directory of its own: the files it may read are named
    group = zf.open_group(
        "reference://",
        mode="r",
        storage_options={"fo": refs, "remote_protocol": "file", "reference_targets": [str(hdf5_file.parent)]},
    )
    assert_matches_the_file(group, hdf5_file)
    # the unwritten chunk of sub/counts has no reference: it reads as the fill value
    assert "sub/counts/2.1" not in refs["refs"]
    np.testing.assert_array_equal(group["sub/counts"][10:, 5:], -3)


def test_references_from_a_json_file_with_inlined_small_arrays(hdf5_file, tmp_path):
    refs = references(hdf5_file, inline_threshold=500)
    assert isinstance(refs["refs"]["lat/0"], str)  # inlined (base64), not a byte range
    path = tmp_path / "refs.json"
    path.write_text(json.dumps(refs))
    group = zf.open_group(
        "reference://", mode="r", storage_options={"fo": str(path), "remote_protocol": "file"}
    )
    assert_matches_the_file(group, hdf5_file)


def test_references_from_a_parquet_reference_set(hdf5_file, tmp_path):
    # kerchunk's own parquet form (kerchunk.df, written with fastparquet): fsspec reads it
    # lazily, record by record
    from kerchunk.df import refs_to_dataframe

    refs = references(hdf5_file, inline_threshold=100)
    refs_to_dataframe(refs, str(tmp_path / "refs.parq"), record_size=5)
    group = zf.open_group(
        "reference://",
        mode="r",
        storage_options={"fo": str(tmp_path / "refs.parq"), "remote_protocol": "file"},
    )
    assert_matches_the_file(group, hdf5_file)
    np.testing.assert_array_equal(group["sub/counts"][10:, 5:], -3)


def test_references_are_read_only(hdf5_file):
    array = zf.open_array(
        "reference://",
        "temperature",
        storage_options={"fo": references(hdf5_file), "remote_protocol": "file"},
    )
    assert array.store.read_only
    with pytest.raises(zf.errors.ReadOnlyError):
        array[0, 0] = 1.0
    with pytest.raises(zf.errors.ReadOnlyError):
        zf.open_group(
            "reference://", mode="a", storage_options={"fo": references(hdf5_file), "remote_protocol": "file"}
        ).attrs["x"] = 1


def _v3_references(hdf5_file) -> dict:
    """kerchunk's v2 references turned into Zarr v3 references: each array's zarr.json
    written by zarrforge with the same chunks and codecs, each chunk reference moved to
    its v3 key (``temperature/0.1`` -> ``temperature/c/0/1``)."""
    v2 = references(hdf5_file, inline_threshold=0)["refs"]
    metadata = zf.open_group("memory://kerchunk-v3", mode="w")
    metadata.attrs.update({"title": "kerchunk test"})
    refs: dict = {}
    with h5py.File(hdf5_file, "r") as f:
        for name in DATASETS:
            zarray = json.loads(v2[f"{name}/.zarray"])
            # kerchunk lists HDF5's filters (shuffle, zlib) as v2 filters: in v3 they are
            # bytes -> bytes codecs, in the same order
            compressors = [
                {"name": f"numcodecs.{codec.pop('id')}", "configuration": codec}
                for codec in [
                    *(zarray["filters"] or []),
                    *([zarray["compressor"]] if zarray["compressor"] else []),
                ]
            ]
            zf.create_array(
                metadata.store,
                name,
                shape=zarray["shape"],
                chunks=zarray["chunks"],
                dtype=f[name].dtype,
                fill_value=zarray["fill_value"] or 0,
                compressors=compressors or None,
                attributes=dict(f[name].attrs),
            )
            for key, value in v2.items():
                head, _, tail = key.rpartition("/")
                if head == name and not tail.startswith("."):
                    refs[f"{name}/c/{tail.replace('.', '/')}"] = value
    for key in metadata.store.list():
        refs[key] = metadata.store.get(key).decode()
    return {"version": 1, "refs": refs}


def test_zarr_v3_references_read_like_the_file(hdf5_file):
    refs = _v3_references(hdf5_file)
    assert json.loads(refs["refs"]["temperature/zarr.json"])["zarr_format"] == 3
    group = zf.open_group(
        "reference://",
        mode="r",
        zarr_format=3,
        storage_options={"fo": refs, "remote_protocol": "file", "reference_targets": [str(hdf5_file.parent)]},
    )
    assert_matches_the_file(group, hdf5_file)


def test_a_byte_range_reference_past_the_end_of_its_file_is_a_store_error(hdf5_file):
    refs = references(hdf5_file, inline_threshold=0)
    url, _offset, length = refs["refs"]["temperature/0.0"]
    refs["refs"]["temperature/0.0"] = [url, 10**9, length]
    array = zf.open_array(
        "reference://",
        "temperature",
        storage_options={"fo": refs, "remote_protocol": "file", "reference_targets": "any"},
    )
    with pytest.raises(zf.errors.ZarrforgeError):
        array[0, 0]


# --- what a reference set may make zarrforge read --------------------------------------------


def _hostile_set(tmp_path, target: str):
    """A reference set (a JSON file) whose one array's chunk points at ``target``."""
    zarray = {
        "zarr_format": 2,
        "shape": [4],
        "chunks": [4],
        "dtype": "|u1",
        "compressor": None,
        "fill_value": 0,
        "order": "C",
        "filters": None,
    }
    refs = {
        "version": 1,
        "refs": {
            ".zgroup": json.dumps({"zarr_format": 2}),
            "a/.zarray": json.dumps(zarray),
            "a/0": [target, 0, 4],
        },
    }
    home = tmp_path / "refs"
    home.mkdir(exist_ok=True)
    path = home / "refs.json"
    path.write_text(json.dumps(refs))
    return str(path)


@pytest.fixture
def opened(monkeypatch):
    """The real paths of the files this process opens while the test runs."""
    import builtins
    import io

    paths: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def recording_open(file, *args, **kwargs):
        if isinstance(file, (str, bytes, os.PathLike)):
            paths.append(os.path.realpath(file))
        return real_open(file, *args, **kwargs)

    def recording_os_open(path, *args, **kwargs):
        paths.append(os.path.realpath(path))
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", recording_open)
    monkeypatch.setattr(io, "open", recording_open)
    monkeypatch.setattr(os, "open", recording_os_open)
    return paths


@pytest.mark.parametrize("target", ["/etc/hostname", "/proc/self/environ", "{tmp}/refs/../secret"])
def test_a_reference_to_a_local_file_outside_the_sets_directory_is_refused(tmp_path, target, opened):
    (tmp_path / "secret").write_bytes(b"SECRET")
    target = target.format(tmp=tmp_path)
    fo = _hostile_set(tmp_path, target)
    opened.clear()  # what the test itself wrote
    array = zf.open_array("reference://", "a", storage_options={"fo": fo, "remote_protocol": "file"})
    with pytest.raises(zf.errors.StoreError, match="may not read") as info:
        array[...]
    assert info.value.key == "a/0" and target in str(info.value)
    assert os.path.realpath(fo) in opened  # the recording sees what is read
    assert os.path.realpath(target) not in opened  # refused before the target is opened


def test_the_allowed_targets_can_be_named_or_every_target_trusted(tmp_path, opened):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "blob").write_bytes(b"\x01\x02\x03\x04")
    fo = _hostile_set(tmp_path, str(tmp_path / "data" / "blob"))
    options = {"fo": fo, "remote_protocol": "file"}
    opened.clear()  # what the test itself wrote
    with pytest.raises(zf.errors.StoreError, match="may not read"):
        zf.open_array("reference://", "a", storage_options=options)[...]
    blob = os.path.realpath(tmp_path / "data" / "blob")
    assert blob not in opened
    named = {**options, "reference_targets": [str(tmp_path / "data")]}
    np.testing.assert_array_equal(
        zf.open_array("reference://", "a", storage_options=named)[...], [1, 2, 3, 4]
    )
    other = {**options, "reference_targets": [str(tmp_path / "elsewhere")]}
    with pytest.raises(zf.errors.StoreError, match="may not read"):
        zf.open_array("reference://", "a", storage_options=other)[...]
    trusted = {**options, "reference_targets": "any"}
    np.testing.assert_array_equal(
        zf.open_array("reference://", "a", storage_options=trusted)[...], [1, 2, 3, 4]
    )
    assert blob in opened  # a target read is seen by the recording


def test_the_default_policy_reads_remote_objects_and_files_beside_the_set(tmp_path):
    from zarrforge_fsspec.references import TargetPolicy

    policy = TargetPolicy(None, str(tmp_path / "refs.json"), "file")
    assert policy.allows("s3://bucket/file.h5") and policy.allows("https://host/f.nc")
    assert policy.allows(str(tmp_path / "sub" / "file.h5"))
    assert not policy.allows("/etc/passwd") and not policy.allows("memory://x")
    assert not policy.allows(str(tmp_path / ".." / "other.h5"))
    in_memory = TargetPolicy(None, {"refs": {}}, "file")
    assert not in_memory.allows(str(tmp_path / "file.h5"))
    with pytest.raises(ValueError, match="reference_targets"):
        TargetPolicy(["ok", 3], None, None)


# --- targets are checked where the filesystem layer reads them -------------------------------


@pytest.fixture
def beside_the_set(tmp_path, monkeypatch):
    """A secret outside the set's directory ``refs/``; the working directory is the set's
    directory (where a relative path would be below it), and ``~`` is ``tmp_path``."""
    (tmp_path / "secret").write_bytes(b"SECRET")
    (tmp_path / "refs").mkdir()
    monkeypatch.chdir(tmp_path / "refs")
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def _refused_and_never_opened(
    tmp_path, target: str, opened, read_path: str, refused: str = "may not read", **options
) -> None:
    fo = _hostile_set(tmp_path, target)
    opened.clear()
    array = zf.open_array(
        "reference://", "a", storage_options={"fo": fo, "remote_protocol": "file", **options}
    )
    with pytest.raises(zf.errors.StoreError, match=refused) as info:
        array[...]
    assert info.value.key == "a/0" and target in str(info.value)
    assert os.path.realpath(fo) in opened  # the recording sees what is read
    assert os.path.realpath(read_path) not in opened  # refused before it is opened


@pytest.mark.parametrize(
    "spelling", ["file:{path}", "file://{path}", "file://localhost{path}", "local:{path}", "local://{path}"]
)
def test_a_file_url_of_any_spelling_is_checked_where_it_is_read(beside_the_set, opened, spelling):
    # before: "file:/abs" (one slash) was taken for the relative path "file:/abs" below the
    # working directory, and fsspec, stripping "file:", read /abs. fsspec reads
    # "file://localhost/abs" as the relative path "localhost/abs" (below the set's
    # directory here: allowed, and missing), never /abs
    tmp_path = beside_the_set
    secret = str(tmp_path / "secret")
    refused = "may not read" if "localhost" not in spelling else "may not read|cannot read"
    _refused_and_never_opened(tmp_path, spelling.format(path=secret), opened, secret, refused)


def test_a_home_relative_target_is_checked_where_it_is_read(beside_the_set, opened):
    # before: "~/secret" was taken for the relative path "./~/secret"; fsspec expands "~"
    tmp_path = beside_the_set
    _refused_and_never_opened(tmp_path, "~/secret", opened, str(tmp_path / "secret"))
    user = getpass.getuser()
    target = f"~{user}/.zarrforge-no-such-file"
    _refused_and_never_opened(tmp_path, target, opened, os.path.expanduser(target))


def test_a_file_url_through_a_link_is_checked_where_the_link_points(beside_the_set, opened):
    tmp_path = beside_the_set
    os.symlink(tmp_path, tmp_path / "refs" / "up")  # below the set's directory, leading out
    for target in (
        f"file:{tmp_path}/refs/up/secret",
        "up/secret",
        "./up/secret",
        f"file://{tmp_path}/refs/up/secret",
    ):
        _refused_and_never_opened(tmp_path, target, opened, str(tmp_path / "secret"))


def test_a_relative_target_is_checked_where_fsspec_reads_it(tmp_path, monkeypatch, opened):
    # fsspec reads a relative target below the working directory (not the set's), when
    # it reads it: that is where it is checked, at every read. Before: the answer for
    # the target was remembered, so after a chdir the same store read the other file
    (tmp_path / "refs").mkdir()
    (tmp_path / "refs" / "blob").write_bytes(b"\x01\x02\x03\x04")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "blob").write_bytes(b"SECRET..")
    fo = _hostile_set(tmp_path, "blob")
    monkeypatch.chdir(tmp_path / "refs")
    array = zf.open_array("reference://", "a", storage_options={"fo": fo, "remote_protocol": "file"})
    np.testing.assert_array_equal(array[...], [1, 2, 3, 4])
    monkeypatch.chdir(tmp_path / "elsewhere")
    opened.clear()
    with pytest.raises(zf.errors.StoreError, match="may not read") as info:
        array[...]
    assert f"read as 'file://{tmp_path}/elsewhere/blob'" in str(info.value)
    assert os.path.realpath(tmp_path / "elsewhere" / "blob") not in opened
    _refused_and_never_opened(tmp_path, "blob", opened, str(tmp_path / "elsewhere" / "blob"))


def test_a_prefix_matches_whole_path_components(tmp_path, opened):
    # before: reference_targets=["/data/allowed/"] admitted "/data/allowed2/secret": the
    # prefix lost its "/" to realpath and was then compared as a string
    for name, data in (("allowed", b"\x01\x02\x03\x04"), ("allowed2", b"SECRET..")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "blob").write_bytes(data)
    os.symlink(tmp_path / "allowed2", tmp_path / "allowed" / "link")
    inside, outside = tmp_path / "allowed" / "blob", tmp_path / "allowed2" / "blob"
    for prefix in (f"{tmp_path}/allowed/", f"{tmp_path}/allowed", f"file://{tmp_path}/allowed/"):
        for target in (str(outside), f"{tmp_path}/allowed/link/blob"):
            _refused_and_never_opened(tmp_path, target, opened, str(outside), reference_targets=[prefix])
        fo = _hostile_set(tmp_path, str(inside))
        np.testing.assert_array_equal(
            zf.open_array(
                "reference://",
                "a",
                storage_options={"fo": fo, "remote_protocol": "file", "reference_targets": [prefix]},
            )[...],
            [1, 2, 3, 4],
        )


def test_remote_prefixes_match_whole_path_components():
    from zarrforge_fsspec.references import TargetPolicy

    policy = TargetPolicy(["s3://bucket", "https://host/data/"], None, "s3")
    assert policy.allows("s3://bucket/x.h5") and policy.allows("bucket/x.h5")  # remote_protocol
    assert not policy.allows("s3://bucket2/x.h5") and not policy.allows("bucket-other/x")
    assert policy.allows("https://host/data/x.nc") and not policy.allows("https://host/data2/x")
    # a dot segment a server would resolve matches no prefix
    assert not policy.allows("https://host/data/../secret")
    assert not policy.allows("https://host/data/./x")
