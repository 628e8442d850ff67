"""A protocol whose filesystem package is missing names the extra that installs it, and
the table behind that message agrees with the pyproject files."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import pytest

from zarrforge.errors import PluginLoadError
from zarrforge_fsspec import FsspecStore
from zarrforge_fsspec.extras import EXTRA_OF_PROTOCOL, IN_ALL

ROOT = Path(__file__).resolve().parents[3]


def _project(path: str) -> dict:
    return tomllib.loads((ROOT / path).read_text(encoding="utf-8"))["project"]


def test_every_extra_named_is_an_extra_of_the_distribution():
    extras = _project("plugins/fsspec/pyproject.toml")["optional-dependencies"]
    assert set(EXTRA_OF_PROTOCOL.values()) <= set(extras)
    stores = _project("plugins/fsspec/pyproject.toml")["entry-points"]["zarrforge.stores"]
    # every store scheme that needs a package of its own has its extra
    assert set(stores) - {"zip", "reference"} <= set(EXTRA_OF_PROTOCOL)


def test_the_extras_said_to_be_in_all_are_the_ones_all_has():
    all_ = _project("core/pyproject.toml")["optional-dependencies"]["all"]
    [fsspec_line] = [r for r in all_ if r.startswith("zarrforge-fsspec[")]
    assert set(re.search(r"\[(.*)\]", fsspec_line).group(1).split(",")) == IN_ALL


def _without_s3fs(monkeypatch):
    module = importlib.import_module("fsspec.registry")  # fsspec.registry is its mapping
    monkeypatch.delitem(module._registry, "s3", raising=False)
    monkeypatch.setitem(
        module.known_implementations,
        "s3",
        {"class": "zarrforge_no_such_module.S3FileSystem", "err": "Install s3fs to access S3"},
    )


def test_s3_without_s3fs_names_the_extra_and_all(monkeypatch):
    _without_s3fs(monkeypatch)
    with pytest.raises(PluginLoadError) as caught:
        FsspecStore.from_url("s3://bucket/data.zarr")
    message = str(caught.value)
    assert "'s3://bucket/data.zarr'" in message
    assert "pip install 'zarrforge-fsspec[s3]'" in message
    assert "'zarrforge[all]'" in message and "Install s3fs to access S3" in message
    assert isinstance(caught.value, ImportError)  # what fsspec raised, still


def test_a_chained_url_names_the_extra_of_the_missing_protocol(monkeypatch):
    _without_s3fs(monkeypatch)
    with pytest.raises(PluginLoadError, match=r"zarrforge-fsspec\[s3\]"):
        FsspecStore.from_url("simplecache::s3://bucket/data.zarr")
