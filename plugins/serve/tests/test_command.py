"""``zarrforge serve`` as a command: its banner, its refusals, its exit codes."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import numpy as np

import zarrforge as zf
from zarrforge_serve.server import banner, is_loopback

SCRIPT = Path(sys.executable).with_name("zarrforge")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_a_missing_source_is_a_one_line_error(tmp_path):
    done = run("serve", str(tmp_path / "nothing.zarr"), "--port", "0")
    assert done.returncode == 1
    assert "no array or group" in done.stderr and "Traceback" not in done.stderr


def test_a_port_in_use_is_a_one_line_error(tmp_path):
    zf.create_array(str(tmp_path / "a.zarr"), shape=(2,), dtype="uint8")[:] = [1, 2]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = run("serve", str(tmp_path / "a.zarr"), "--port", str(taken.getsockname()[1]))
    assert done.returncode == 1
    assert "address already in use" in done.stderr and "Traceback" not in done.stderr


def test_storage_options_a_local_path_cannot_take_are_refused(tmp_path):
    zf.create_array(str(tmp_path / "a.zarr"), shape=(2,), dtype="uint8")
    done = run("serve", str(tmp_path / "a.zarr"), "--storage-option", "anon=true")
    assert done.returncode == 2 and "local path" in done.stderr


def test_the_banner_names_the_url_and_warns_off_loopback(tmp_path):
    from zarrforge_serve import ServedHierarchy

    zf.create_array(str(tmp_path / "a.zarr"), shape=(2,), dtype="uint8")[:] = np.arange(2)
    hierarchy = ServedHierarchy(str(tmp_path / "a.zarr"))
    line = banner("http://127.0.0.1:8000/", hierarchy, "127.0.0.1", ())
    assert "the Zarr 3 array" in line and "http://127.0.0.1:8000/" in line and "no CORS origins" in line
    assert "reachable from other machines" not in line
    exposed = banner("http://0.0.0.0:8000/", hierarchy, "0.0.0.0", ["*"])
    assert "reachable from other machines" in exposed and "CORS origins *" in exposed
    group = zf.open_group(str(tmp_path / "g.zarr"), mode="w")
    group.create_group("inner")
    inner = ServedHierarchy(str(tmp_path / "g.zarr"), "inner")
    assert "(node /inner)" in banner("http://127.0.0.1:1/", inner, "127.0.0.1", ())
    assert [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "example.org")] == [
        True,
        True,
        True,
        False,
        False,
    ]
