"""Fixtures of this package's tests: an S3 server (moto) on 127.0.0.1 with one fresh bucket."""

from __future__ import annotations

import uuid

import pytest


@pytest.fixture
def moto_s3(monkeypatch):
    import boto3
    import moto.server as moto_server

    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true",
                        "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}.items():
        monkeypatch.setenv(name, value)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    _, port = server.get_host_and_port()
    endpoint = f"http://127.0.0.1:{port}"
    bucket = f"ice-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(
        Bucket=bucket)
    try:
        yield endpoint, bucket
    finally:
        server.stop()
