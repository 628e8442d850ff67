"""Shared fixtures: fake installed distributions for registry tests; the local store's
two ways of making batches (``local_batches``); and the count of the
documentation's blocks (tests/test_doc_examples.py) at the end of the run, and the servers
those blocks use (``doc_servers``)."""

from __future__ import annotations

import http.server
import json
import os
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import zarrforge.registries.registry as registry

pytest_plugins = ["pytester"]


@pytest.fixture(params=["python", "c-helper"])
def local_batches(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The local store's batches made in Python, then by zarrforge-batch-io's C helper
    (a test of the helper is skipped, saying so, where it was not built)."""
    import dataclasses

    from zarrforge_std.stores import local

    if request.param == "python":
        monkeypatch.setattr(local, "_native", None)
        capabilities = dataclasses.replace(local.LocalStore.capabilities, io_without_gil=False)
        monkeypatch.setattr(local.LocalStore, "capabilities", capabilities)
    elif local._native is None:
        pytest.skip("zarrforge-batch-io's C helper is not built here")
    return str(request.param)


@pytest.fixture
def fake_distribution(tmp_path: Path) -> Iterator[Callable[..., Path]]:
    """Install a fake distribution (a ``*.dist-info`` with entry points) on sys.path.

    ``fake_distribution(name, entry_points={"zarrforge.codecs": {"x": "mod:Cls"}},
    modules={"mod": "source"})`` writes the dist-info and modules into a fresh
    directory, puts it on ``sys.path`` and refreshes the registries; everything
    is undone after the test.
    """
    added: list[str] = []
    modules: list[str] = []

    def install(
        name: str,
        entry_points: dict[str, dict[str, str]],
        modules_src: dict[str, str] | None = None,
        version: str = "1.0",
    ) -> Path:
        site = tmp_path / f"site-{name}"
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        lines = []
        for group, eps in entry_points.items():
            lines.append(f"[{group}]")
            lines.extend(f"{ep} = {target}" for ep, target in eps.items())
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        for module, source in (modules_src or {}).items():
            (site / f"{module}.py").write_text(textwrap.dedent(source))
            modules.append(module)
        sys.path.insert(0, str(site))
        added.append(str(site))
        registry.refresh()
        return site

    yield install
    for site in added:
        sys.path.remove(site)
    for module in modules:
        sys.modules.pop(module, None)
    registry.refresh()


def _example_data(directory: Path) -> None:
    """``data.zarr`` (a group, ``temperature`` (1000, 64) float32) and ``weather.zarr``
    (``temperature`` as the quickstart makes it, one chunk written) below ``directory``."""
    import zarrforge as zf

    data = zf.create_group(str(directory / "data.zarr"))
    data.create_array(
        "temperature",
        shape=(1000, 64),
        chunks=(100, 64),
        dtype="float32",
        fill_value=float("nan"),
        dimension_names=["time", "x"],
    )[:100] = 1.5
    weather = zf.create_array(
        str(directory / "weather.zarr"),
        "temperature",
        shape=(365, 180, 360),
        chunks=(30, 90, 90),
        dtype="float32",
        fill_value=float("nan"),
        dimension_names=["day", "lat", "lon"],
    )
    weather[0, 0, 0] = 20.0


class _StaticFiles(http.server.SimpleHTTPRequestHandler):
    """Files only: a static host lists no directories."""

    def log_message(self, *args: object) -> None:
        pass

    def list_directory(self, path):  # untyped: http.server's signature
        self.send_error(404)


@pytest.fixture(scope="module")
def doc_servers(tmp_path_factory: pytest.TempPathFactory):
    """The environment the examples run with: the S3 test server with the bucket
    ``bucket`` (open to anonymous requests, as a public bucket is) and a static HTTP server."""
    import zipfile

    import boto3

    from zarrforge.testing.s3_server import loopback_s3_server

    site = tmp_path_factory.mktemp("site")
    _example_data(site)
    archive = site / "data.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zarr.json", json.dumps({"zarr_format": 3, "node_type": "group"}))
        for path in sorted((site / "data.zarr" / "temperature").rglob("*")):
            if path.is_file():
                zipped.write(path, "group/array/" + str(path.relative_to(site / "data.zarr" / "temperature")))
        zipped.writestr("group/zarr.json", json.dumps({"zarr_format": 3, "node_type": "group"}))
    handler = lambda *a, **k: _StaticFiles(*a, directory=str(site), **k)  # noqa: E731
    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    web.daemon_threads = True
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    credentials = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_ALLOW_HTTP": "true",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    try:
        with loopback_s3_server() as endpoint:
            s3 = boto3.client(
                "s3",
                endpoint_url=endpoint,
                aws_access_key_id="testing",
                aws_secret_access_key="testing",
                region_name="us-east-1",
            )
            s3.create_bucket(Bucket="bucket")
            s3.put_bucket_policy(
                Bucket="bucket",
                Policy=json.dumps(
                    {
                        "Version": "2012-10-17",
                        "Statement": [
                            {
                                "Effect": "Allow",
                                "Principal": "*",
                                "Action": "s3:*",
                                "Resource": ["arn:aws:s3:::bucket", "arn:aws:s3:::bucket/*"],
                            }
                        ],
                    }
                ),
            )
            for path in sorted(site.rglob("*")):
                if path.is_file():
                    s3.upload_file(str(path), "bucket", str(path.relative_to(site)))
            yield {
                **credentials,
                "AWS_ENDPOINT_URL": endpoint,
                "ZARRFORGE_DOC_HTTP": f"http://127.0.0.1:{web.server_address[1]}",
            }
    finally:
        web.shutdown()
        web.server_close()
        thread.join()


def pytest_terminal_summary(terminalreporter) -> None:  # untyped: pytest's hook
    """One line: how many documentation blocks ran, were fragments on purpose, are run by
    another test, and failed (from the ``doc_blocks`` property each document's test
    records; the reports carry it from xdist workers too)."""
    totals: dict[str, int] = {}
    documents = 0
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for name, counts in getattr(report, "user_properties", ()):
                if name == "doc_blocks":
                    documents += 1
                    for key, value in counts.items():
                        totals[key] = totals.get(key, 0) + value
    if documents:
        terminalreporter.write_line(
            f"documentation blocks in {documents} documents: {totals.get('ran', 0)} run, "
            f"{totals.get('fragment', 0)} fragments (skipped on purpose), "
            f"{totals.get('run_by', 0)} run by other tests, {totals.get('failed', 0)} failing"
        )
