"""The distributions install as a user installs them, from the wheels ``make dist`` builds.

Builds a wheel and an sdist of core and of every plugin under plugins/ (the
``DISTRIBUTIONS`` of the Makefile, with the ``build`` front end, without build
isolation so no build backend is downloaded), then in a fresh virtual environment:

* ``pip install --find-links <dist> 'zarrforge[standard]'``: every distribution of the
  extra comes from those wheels at the single-sourced version, a v3 array with a
  compressor, a v2 array and a zip archive are written and read back, and the
  command line is not there (it is in ``[all]`` only);
* ``pip install --find-links <dist> 'zarrforge[all]'``: every distribution of the
  repository is installed at that version, ``zarrforge --help`` works, and
  ``zarrforge plugins`` lists each built-in plugin.

The environment's third-party dependencies come from the machine's package index as for
any user; nothing is installed from the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import zarrforge

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = [ROOT / "core", *sorted(p for p in (ROOT / "plugins").iterdir()
                                        if (p / "pyproject.toml").is_file())]
STANDARD = {"zarrforge", "zarrforge-std", "zarrforge-numcodecs", "zarrforge-sharding",
            "zarrforge-dtypes", "zarrforge-v2", "zarrforge-draft2022", "zarrforge-fsspec"}
VERSION = zarrforge.__version__


def _run(*args: str | Path, timeout: float = 600, **kwargs) -> str:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, **kwargs)
    assert done.returncode == 0, (f"{' '.join(map(str, args))} exited {done.returncode}:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def _project_name(directory: Path) -> str:
    import tomllib
    return tomllib.loads((directory / "pyproject.toml").read_text())["project"]["name"]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:  # one process each
        list(pool.map(lambda d: _run(sys.executable, "-m", "build", "--no-isolation",
                                     "--outdir", out, d), DISTRIBUTIONS))
    return out


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("fresh") / "venv"
    # no pip of its own: this environment's pip installs into it (pip --python)
    _run(sys.executable, "-m", "venv", "--without-pip", where)
    return where / "bin"


def _pip_install(venv: Path, dist: Path, requirement: str) -> None:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    _run(sys.executable, "-m", "pip", "--python", venv / "python", "install", "--quiet",
         "--no-compile", "--find-links", dist, requirement, env=env)


def _installed(venv: Path) -> dict[str, dict]:
    """The zarrforge distributions in ``venv``: name -> {version, editable location}."""
    listing = json.loads(_run(sys.executable, "-m", "pip", "--python", venv / "python", "list",
                              "--format", "json", "-v"))
    return {d["name"].lower(): d for d in listing if d["name"].lower().startswith("zarrforge")}


def test_every_distribution_builds_a_wheel_and_an_sdist_at_the_one_version(dist: Path) -> None:
    for directory in DISTRIBUTIONS:
        stem = _project_name(directory).replace("-", "_")
        wheels = list(dist.glob(f"{stem}-*.whl"))
        sdists = list(dist.glob(f"{stem}-*.tar.gz"))
        assert [w.name for w in wheels] == [f"{stem}-{VERSION}-py3-none-any.whl"], directory
        assert [s.name for s in sdists] == [f"{stem}-{VERSION}.tar.gz"], directory
        with zipfile.ZipFile(wheels[0]) as wheel:
            metadata = wheel.read(f"{stem}-{VERSION}.dist-info/METADATA").decode()
        assert f"\nVersion: {VERSION}\n" in metadata
        with tarfile.open(sdists[0]) as sdist:
            names = sdist.getnames()
        assert f"{stem}-{VERSION}/pyproject.toml" in names and f"{stem}-{VERSION}/PKG-INFO" in names


STANDARD_SCRIPT = """
import numpy as np, zarrforge as zf, sys
root = sys.argv[1]
a = zf.create_array(root + "/v3", shape=(6, 4), chunks=(3, 2), dtype="float32",
                    compressors=[{"name": "zstd", "configuration": {"level": 3}}],
                    shards=(6, 4))
a[...] = np.arange(24, dtype="float32").reshape(6, 4)
b = zf.create_array(root + "/v2", shape=(5,), chunks=(2,), dtype="int16", zarr_format=2)
b[:] = [1, 2, 3, 4, 5]
z = zf.create_array("file:" + root + "/x.zip|zip:|zarr3:s", shape=(3,), dtype="string")
z[:] = ["a", "bb", "ccc"]
print(zf.open_array(root + "/v3")[...].sum(), zf.open_array(root + "/v2")[...].tolist(),
      zf.open_array("file:" + root + "/x.zip|zip:|zarr3:s", mode="r")[...].tolist(),
      zf.__version__)
"""


def test_standard_installs_from_dist_and_reads_and_writes(dist: Path, venv: Path,
                                                          tmp_path: Path) -> None:
    _pip_install(venv, dist, "zarrforge[standard]")
    installed = _installed(venv)
    assert set(installed) == STANDARD
    for name, info in installed.items():
        assert info["version"] == VERSION, name
        assert "editable_project_location" not in info, f"{name} came from the checkout"
        assert Path(info["location"]).is_relative_to(venv.parent), name
    out = _run(venv / "python", "-c", STANDARD_SCRIPT, tmp_path, cwd=tmp_path).split()
    assert out[0] == "276.0" and out[-1] == VERSION
    assert not (venv / "zarrforge").exists()  # the command line comes with [all]


def test_all_installs_from_dist_with_a_working_command_line(dist: Path, venv: Path) -> None:
    _pip_install(venv, dist, "zarrforge[all]")
    installed = _installed(venv)
    assert set(installed) == {_project_name(d) for d in DISTRIBUTIONS}
    assert {info["version"] for info in installed.values()} == {VERSION}
    assert "Usage: zarrforge" in _run(venv / "zarrforge", "--help")
    assert VERSION in _run(venv / "zarrforge", "--version")
    listed = json.loads(_run(venv / "zarrforge", "plugins", "--json"))
    assert all(entry["status"].startswith("ok") for entry in listed), listed  # ok, or ok (overrides ...)
    # every plugin distribution, each at the version, the command line's own commands
    # included (entry points like any plugin's); not the core, or zarrforge-xarray (an
    # xarray backend: an entry point of xarray's, not zarrforge's)
    assert {entry["distribution"] for entry in listed} == set(installed) - {
        "zarrforge", "zarrforge-xarray"}
    assert {entry["version"] for entry in listed} == {VERSION}


CORE_ONLY_SCRIPT = """
import zarrforge as zf
try:
    zf.create_array("data.zarr", shape=(2,), dtype="int32")
except zf.errors.UnknownExtensionError as exc:
    print(exc)
"""


def test_a_core_only_install_says_which_extra_to_install(dist: Path, tmp_path: Path) -> None:
    """``pip install zarrforge`` alone failed every call naming zarrforge-std but not the
    extra that installs the standard plugins."""
    core_only = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", core_only)
    _pip_install(core_only / "bin", dist, "zarrforge")
    assert set(_installed(core_only / "bin")) == {"zarrforge"}
    said = _run(core_only / "bin" / "python", "-c", CORE_ONLY_SCRIPT, cwd=tmp_path)
    assert "unknown store 'file'" in said
    assert ("provided by the package 'zarrforge-std' (pip install zarrforge-std, or pip "
            "install 'zarrforge[standard]' for the standard plugins)") in said
