"""The command line on remote stores: storage options against the S3 test server, and
``info``/``tree`` on plain HTTP, which cannot list keys (issue #34)."""

from __future__ import annotations

import json
import re
import uuid

import numpy as np
import pytest

import zarrforge as zf

KEYS = ("key=testing", "secret=testing")


def _options(endpoint: str) -> list[str]:
    args = ["--storage-option", f"endpoint_url={endpoint}"]
    for item in KEYS:
        args += ["--storage-option", item]
    return args


def _fill(store, options=None) -> None:
    root = zf.create_group(store, attributes={"title": "remote"}, storage_options=options)
    t = root.create_array("temperature", shape=(40, 60), dtype="float32", chunks=(10, 20))
    t[:20] = np.ones((20, 60), dtype="float32")  # 6 of 12 chunks written
    root.create_group("obs").create_array("counts", shape=(64,), dtype="int16", chunks=(4,), shards=(16,))[
        :
    ] = np.arange(64)


@pytest.fixture
def bucket(s3_endpoint):
    import s3fs

    name = f"cli-{uuid.uuid4().hex[:12]}"
    fs = s3fs.S3FileSystem(key="testing", secret="testing", endpoint_url=s3_endpoint)
    fs.mkdir(name)
    return fs, name


# --- storage options -------------------------------------------------------------------


def test_storage_options_reach_the_s3_store(cli, s3_endpoint, bucket):
    """Before: no command took --storage-option; credentials and endpoint could only come
    from the environment (which the cli fixture keeps AWS settings out of)."""
    _, name = bucket
    url = f"s3://{name}/data.zarr"
    _fill(url, {"key": "testing", "secret": "testing", "endpoint_url": s3_endpoint})

    info = cli("info", url, "--path", "temperature", "--json", *_options(s3_endpoint))
    assert info.returncode == 0, info.stderr
    report = json.loads(info.stdout)
    assert report["shape"] == [40, 60] and report["chunks_written"] == 6

    # a JSON value: the endpoint inside client_kwargs
    client = json.dumps({"endpoint_url": s3_endpoint})
    tree = cli(
        "tree",
        url,
        "--storage-option",
        f"client_kwargs={client}",
        "--storage-option",
        KEYS[0],
        "--storage-option",
        KEYS[1],
    )
    assert tree.returncode == 0, tree.stderr
    assert re.search(r"temperature \(40, 60\) float32", tree.stdout)
    assert "counts (64,) int16" in tree.stdout

    check = cli("check", url, "--deep", *_options(s3_endpoint))
    assert check.returncode == 0 and "no problems" in check.stdout, check.stderr
    done = cli("consolidate", url, *_options(s3_endpoint))
    assert done.returncode == 0 and "consolidated 3 nodes" in done.stdout, done.stderr

    without = cli("info", url, "--path", "temperature", "--storage-option", f"endpoint_url={s3_endpoint}")
    assert without.returncode == 1 and "NoCredentialsError" in without.stderr


def test_copy_takes_options_for_each_side(cli, s3_endpoint, bucket, tmp_path):
    _, name = bucket
    local = tmp_path / "local.zarr"
    _fill(str(local))
    url = f"s3://{name}/copied.zarr"
    # the shared options go to the remote side only; the local path takes none
    up = cli("copy", str(local), url, "--progress", "none", *_options(s3_endpoint))
    assert up.returncode == 0, up.stderr
    remote = zf.open_array(
        url,
        "temperature",
        storage_options={"key": "testing", "secret": "testing", "endpoint_url": s3_endpoint},
    )
    np.testing.assert_array_equal(remote[:], zf.open_array(str(local), "temperature")[:])

    side = [arg.replace("--storage-option", "--src-storage-option") for arg in _options(s3_endpoint)]
    down = cli("copy", url, str(tmp_path / "back.zarr"), "--progress", "none", *side)
    assert down.returncode == 0, down.stderr
    np.testing.assert_array_equal(zf.open_array(str(tmp_path / "back.zarr"), "obs/counts")[:], np.arange(64))
    refused = cli("copy", url, str(tmp_path / "x.zarr"), "--dst-storage-option", "anon=true")
    assert refused.returncode == 2 and "is a local path, which takes no storage options" in refused.stderr


def test_anon_sends_unsigned_requests(cli, s3_endpoint, bucket):
    """--anon reads a public bucket with no credentials at all."""
    fs, name = bucket
    fs.call_s3(
        "put_bucket_policy",
        Bucket=name,
        Policy=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": "*",
                        "Action": ["s3:GetObject", "s3:HeadObject", "s3:ListBucket"],
                        "Resource": [f"arn:aws:s3:::{name}", f"arn:aws:s3:::{name}/*"],
                    }
                ],
            }
        ),
    )
    url = f"s3://{name}/public.zarr"
    _fill(url, {"key": "testing", "secret": "testing", "endpoint_url": s3_endpoint})
    endpoint = ["--storage-option", f"endpoint_url={s3_endpoint}"]
    public = cli("tree", url, "--anon", *endpoint)
    assert public.returncode == 0, public.stderr
    assert "temperature (40, 60) float32" in public.stdout
    signed = cli("tree", url, *endpoint)  # no credentials anywhere: botocore refuses
    assert signed.returncode == 1 and "NoCredentialsError" in signed.stderr


def test_malformed_storage_options_are_usage_errors(cli, tmp_path):
    local = tmp_path / "data.zarr"
    _fill(str(local))
    bad = cli("info", "s3://bucket/x.zarr", "--storage-option", "endpoint_url")
    assert bad.returncode == 2
    assert "'endpoint_url' is not KEY=VALUE" in bad.stderr
    twice = cli("info", "s3://bucket/x.zarr", "--storage-option", "a=1", "--storage-option", "a=2")
    assert twice.returncode == 2 and "the key 'a' is given twice" in twice.stderr
    contradicted = cli("info", "s3://bucket/x.zarr", "--anon", "--storage-option", "anon=false")
    assert contradicted.returncode == 2 and "--anon contradicts anon=False" in contradicted.stderr
    local_path = cli("info", str(local), "--anon")
    assert local_path.returncode == 2
    assert "is a local path, which takes no storage options but links (got ['anon'])" in local_path.stderr


def test_a_local_path_takes_the_local_stores_links_option(cli, tmp_path):
    """``--storage-option links=refuse`` reaches the local store (issue #41: the command
    line refused every storage option for a local path, so a service could not refuse
    the links of a tree somebody else made)."""
    local = tmp_path / "data.zarr"
    _fill(str(local))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    chunk = next(p for p in local.rglob("*") if p.is_file() and p.name != "zarr.json")
    (elsewhere / "chunk").write_bytes(chunk.read_bytes())
    chunk.unlink()
    chunk.symlink_to(elsewhere / "chunk")
    followed = cli("check", str(local), "--deep")
    assert followed.returncode == 0, followed.stdout + followed.stderr
    refused = cli("check", str(local), "--deep", "--storage-option", "links=refuse")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "symbolic link" in refused.stdout + refused.stderr


# --- plain HTTP: no listing ------------------------------------------------------------


@pytest.mark.parametrize("consolidated", [False, True])
def test_info_over_http_says_what_it_cannot_know(cli, http_site, consolidated):
    """Before: info on an http:// array failed with "cannot list keys: plain HTTP has no
    listing", consolidated metadata or not."""
    directory, url = http_site
    _fill(str(directory))
    if consolidated:
        zf.consolidate_metadata(str(directory))

    table = cli("info", url, "--path", "temperature")
    assert table.returncode == 0, table.stderr
    assert re.search(r"^Shape\s+\[40, 60\]", table.stdout, re.M)
    assert re.search(r"^Chunks written\s+unknown of 12: the store cannot list its keys", table.stdout, re.M)
    assert re.search(r"^Stored bytes\s+unknown", table.stdout, re.M)
    report = json.loads(cli("info", url, "--path", "temperature", "--json").stdout)
    assert report["chunks_written"] is None and report["stored_bytes"] is None
    assert set(report["unknown"]) == {"chunks_written", "stored_bytes", "raw_bytes", "compression_ratio"}

    group = cli("info", url, "--json")
    assert group.returncode == 0, group.stderr
    summary = json.loads(group.stdout)
    if consolidated:
        assert (summary["members"], summary["arrays"], summary["groups"]) == (2, 2, 1)
        assert summary["unknown"] == {}
    else:
        assert summary["members"] is None and "no consolidated metadata" in summary["unknown"]["members"]
        text = cli("info", url).stdout
        assert re.search(r"^Members\s+unknown: the store cannot list its keys", text, re.M)


@pytest.mark.parametrize("consolidated", [False, True])
def test_tree_over_http(cli, http_site, consolidated):
    directory, url = http_site
    _fill(str(directory))
    if consolidated:
        zf.consolidate_metadata(str(directory))
    result = cli("tree", url)
    assert result.returncode == 0, result.stderr
    if consolidated:
        assert "temperature (40, 60) float32" in result.stdout
        assert "counts (64,) int16" in result.stdout
    else:
        assert "members unknown: the store cannot list its keys" in result.stdout
        document = json.loads(cli("tree", url, "--json").stdout)
        assert document["members"] is None and "cannot list" in document["unknown"]
    # a group below the root, opened by its path, has no view of its own to list from
    below = cli("tree", url, "--path", "obs")
    assert below.returncode == 0, below.stderr
    assert "members unknown" in below.stdout
