"""The command line names the real cause of a remote failure (issue #41): ``info`` on a
bucket that does not exist says so, naming the bucket and the URL, where it said
``no array or group at path '/'``."""

from __future__ import annotations


def test_info_on_a_missing_bucket_names_the_bucket(cli, s3_endpoint) -> None:
    url = "s3://zf-cli-no-such-bucket/x"
    result = cli(
        "info",
        url,
        "--storage-option",
        f"endpoint_url={s3_endpoint}",
        "--storage-option",
        "key=testing",
        "--storage-option",
        "secret=testing",
    )
    assert result.returncode != 0
    assert "the bucket 'zf-cli-no-such-bucket' does not exist" in result.stderr, result.stderr
    assert url in result.stderr and "no array or group" not in result.stderr
