"""The ``icechunk:`` URL adapter: repositories opened by URL pipeline, read-only, at a
branch, a tag or a snapshot; on the local filesystem and on S3 served by moto on
127.0.0.1; writes through a URL refused (they could never be committed)."""

from __future__ import annotations

import icechunk
import numpy as np
import pytest

import zarrforge as zf
from zarrforge.abc.url_adapter import Segment
from zarrforge.errors import URLPipelineError
from zarrforge_zarr_python.icechunk_adapter import version_and_path


@pytest.fixture
def repository(tmp_path):
    """A local repository: main has two commits (tagged v1 after the first), dev a third."""
    path = tmp_path / "repo"
    repo = icechunk.Repository.create(icechunk.local_filesystem_storage(str(path)))
    session = repo.writable_session("main")
    group = zf.open_group(session.store, mode="a")
    group.attrs["title"] = "first"
    group.create_array("g/a", shape=(6,), chunks=(4,), dtype="int16")[...] = np.arange(6)
    first = session.commit("first")
    repo.create_tag("v1", snapshot_id=first)
    session = repo.writable_session("main")
    zf.open_array(session.store, "g/a", mode="r+")[...] = np.arange(6) * 10
    session.commit("second")
    repo.create_branch("dev", snapshot_id=first)
    session = repo.writable_session("dev")
    zf.open_array(session.store, "g/a", mode="r+")[:2] = -1
    session.commit("on dev")
    return path, first


def test_branch_tag_and_snapshot_by_url(repository):
    path, first = repository
    url = f"file:{path}|icechunk:"
    assert zf.open_group(url, mode="r").attrs["title"] == "first"
    assert zf.open_array(f"{url}g/a", mode="r")[...].tolist() == [0, 10, 20, 30, 40, 50]
    assert zf.open_array(f"file:{path}|icechunk:@branch.main/g/a", mode="r")[...].tolist() == [
        0,
        10,
        20,
        30,
        40,
        50,
    ]
    assert zf.open_array(f"file:{path}|icechunk:@branch.dev/g/a", mode="r")[...].tolist() == [
        -1,
        -1,
        2,
        3,
        4,
        5,
    ]
    assert zf.open_array(f"file:{path}|icechunk:@tag.v1/g/a", mode="r")[...].tolist() == list(range(6))
    assert zf.open_array(f"file:{path}|icechunk:@{first}/g/a", mode="r")[...].tolist() == list(range(6))
    # the pipeline's path comes first, path= joins below it; the format is v3
    assert zf.open_array(f"file:{path}|icechunk:g", "a", mode="r").shape == (6,)
    assert zf.open_array(f"{path}|icechunk:|zarr3:g/a", mode="r")[5] == 50
    with pytest.raises(URLPipelineError, match="zarr_format"):
        zf.open_array(f"{url}g/a", mode="r", zarr_format=2)


def test_a_write_through_a_url_is_refused_before_anything_is_opened(repository):
    path, _ = repository
    for call in (
        lambda: zf.open_group(f"file:{path}|icechunk:", mode="a"),
        lambda: zf.create_array(f"file:{path}|icechunk:new", shape=(2,), dtype="i1"),
    ):
        with pytest.raises(URLPipelineError, match=r"segment 2 'icechunk:.*session\.commit"):
            call()
    reader = zf.open_array(f"file:{path}|icechunk:g/a", mode="r")
    with pytest.raises(zf.errors.ReadOnlyError):
        reader[0] = 1


@pytest.mark.parametrize(
    "body, error",
    [
        ("@", "is not a version"),
        ("@branch./g", "needs a branch name"),
        ("@tag.", "needs a tag name"),
        ("@no-such.thing/g", "is not a version"),
    ],
)
def test_malformed_versions_are_refused_naming_the_segment(body, error):
    segment = Segment("icechunk", body, f"icechunk:{body}", 1, url=f"file:/r|icechunk:{body}")
    with pytest.raises(URLPipelineError, match=f"segment 2 .*{error}"):
        version_and_path(segment)


def test_missing_branches_repositories_and_unusable_bases_are_named(repository, tmp_path):
    path, _ = repository
    with pytest.raises(URLPipelineError, match=r"branch 'nope'"):
        zf.open_group(f"file:{path}|icechunk:@branch.nope", mode="r")
    (tmp_path / "empty").mkdir()
    with pytest.raises(URLPipelineError, match="cannot open the Icechunk repository"):
        zf.open_group(f"file:{tmp_path / 'empty'}|icechunk:", mode="r")
    with pytest.raises(URLPipelineError, match="local directory .* or an S3 prefix"):
        zf.open_group("memory:|icechunk:", mode="r")
    with pytest.raises(URLPipelineError, match="cannot start a pipeline"):
        zf.open_group("icechunk:|zarr3:", mode="r")


def test_a_repository_on_s3_served_by_moto_on_loopback(moto_s3):
    endpoint, bucket = moto_s3
    storage = icechunk.s3_storage(
        bucket=bucket,
        prefix="data/repo",
        endpoint_url=endpoint,
        allow_http=True,
        force_path_style=True,
        region="us-east-1",
        access_key_id="testing",
        secret_access_key="testing",
    )
    session = icechunk.Repository.create(storage).writable_session("main")
    values = np.arange(35, dtype="float32").reshape(5, 7)
    zf.create_array(session.store, "t", shape=values.shape, chunks=(2, 3), dtype="float32")[...] = values
    session.commit("zarrforge on s3")
    options = {
        "key": "testing",
        "secret": "testing",
        "client_kwargs": {"endpoint_url": endpoint, "region_name": "us-east-1"},
    }
    opened = zf.open_array(f"s3://{bucket}/data/repo|icechunk:t", mode="r", storage_options=options)
    np.testing.assert_array_equal(opened[...], values)
    np.testing.assert_array_equal(
        zf.open_array(
            f"s3://{bucket}/data/repo|icechunk:@branch.main",
            "t",
            mode="r",
            storage_options={"endpoint_url": endpoint, "key": "testing", "secret": "testing"},
        )[1:3, 4],
        values[1:3, 4],
    )


# --- the icechunk: adapter against the URL adapter conformance suite -----------------------

from zarrforge.testing import PipelineCase, URLAdapterConformance  # noqa: E402


class TestIcechunkAdapter(URLAdapterConformance):
    scheme = "icechunk"
    writable = False
    base = "memory:"  # generated bodies: no repository there, so each must be a clear error
    invalid_bodies = ["@branch.", "@tag./g", "@nonsense.x/g", "@0123/g"]
    keeps_base_path = False  # it opens the repository at the base's path
    max_examples = 25

    def pipelines(self, tmp_path):
        path = tmp_path / "repo"
        repo = icechunk.Repository.create(icechunk.local_filesystem_storage(str(path)))
        session = repo.writable_session("main")
        values = np.arange(12, dtype="int32").reshape(3, 4)
        zf.create_array(session.store, "g/a", shape=values.shape, chunks=(2, 2), dtype="int32")[...] = values
        session.commit("for the conformance suite")
        return [
            PipelineCase(f"file:{path}|icechunk:", arrays={"g/a": values}),
            PipelineCase(f"file:{path}|icechunk:@branch.main/g", arrays={"a": values}),
        ]
