"""Fixtures of this package's tests: an S3 server (moto) on 127.0.0.1 with one fresh bucket."""

from __future__ import annotations

import uuid

import pytest


@pytest.fixture
def moto_s3(monkeypatch):
    import boto3

    from zarrforge.testing.s3_server import loopback_s3_server

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
        "NO_PROXY": "127.0.0.1",
        "no_proxy": "127.0.0.1",
    }.items():
        monkeypatch.setenv(name, value)
    with loopback_s3_server() as endpoint:
        bucket = f"ice-{uuid.uuid4().hex[:12]}"
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
        yield endpoint, bucket
