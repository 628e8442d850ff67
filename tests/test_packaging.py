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
  ``zarrforge plugins`` lists each built-in plugin;
* ``pip install --find-links <dist> zarrforge pytest hypothesis``: the conformance kit's
  suites pass with the core alone (tests/_kit_alone_suites.py).

And the documentation's blocks marked ``<!-- run by: tests/test_packaging.py ... -->``
(tests/_doc_examples.py): in the ``[standard]`` environment the first block of the pages
it covers runs, and ``s3://`` without s3fs names the extra that adds it; in the ``[all]``
environment the first block of every page runs, and so does ``examples/demo.py`` (what
``make demo`` runs); the quickstart's codec list is what core, zarrforge-std and
zarrforge-numcodecs register; each ``pip install -e <directories>`` of the docs resolves
as in a fresh environment (pip's dry run, ignoring what is installed here).

The environment's third-party dependencies come from the machine's package index as for
any user; nothing is installed from the checkout.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import zarrforge

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = [
    ROOT / "core",
    *sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").is_file()),
]
# distributions with an optional C extension: a wheel for this platform where it builds
COMPILED = {"batch-io"}
STANDARD = {
    "zarrforge",
    "zarrforge-std",
    "zarrforge-batch-io",
    "zarrforge-numcodecs",
    "zarrforge-sharding",
    "zarrforge-dtypes",
    "zarrforge-v2",
    "zarrforge-draft2022",
    "zarrforge-fsspec",
}
VERSION = zarrforge.__version__
RUNNER = Path(__file__).with_name("_doc_examples.py")
# README, the user guide's pages, and the plugin guide's overview (its other pages' blocks use
# the example plugins, which no extra installs; tests/test_doc_examples.py runs them all)
# the pages a user of zarrforge[all] runs (docs/zep-playground.md asks for the playground's
# own packages first, examples/zep-playground: its blocks run in tests/test_doc_examples.py,
# where make test has installed them)
DOCS = [
    "README.md",
    *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md") if p.name != "zep-playground.md"),
    "docs/plugin-guide/index.md",
]
# the pages [standard] alone is enough for (the rest use the command line, xarray, dask,
# s3fs or another plugin of [all])
STANDARD_DOCS = ["README.md", "docs/quickstart.md", "docs/formats.md"]


def _doc_runner():
    spec = importlib.util.spec_from_file_location("_doc_examples", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _first_block_of_each(venv: Path, documents: list[str], env: dict[str, str]) -> dict:
    """Run the first runnable block of each document with the environment's Python;
    ``{document: report}`` of those that have one."""
    env = {**env, "PATH": f"{venv}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)
    # one interpreter for every document (each in its own directory and namespace)
    out = _run(venv / "python", RUNNER, *(ROOT / d for d in documents), "--one", "--several", env=env)
    found = json.loads(out.splitlines()[-1])
    reports = {}
    for document in documents:
        report = found[str(ROOT / document)]
        if report["ran"] or report["failures"]:
            reports[document] = report
    return reports


def _run(*args: str | Path, timeout: float = 600, **kwargs) -> str:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kwargs)
    assert done.returncode == 0, (
        f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def _project_name(directory: Path) -> str:
    import tomllib

    return tomllib.loads((directory / "pyproject.toml").read_text())["project"]["name"]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:  # one process each
        list(
            pool.map(
                lambda d: _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, d),
                DISTRIBUTIONS,
            )
        )
    return out


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("fresh") / "venv"
    # no pip of its own: this environment's pip installs into it (pip --python)
    _run(sys.executable, "-m", "venv", "--without-pip", where)
    return where / "bin"


def _pip_install(venv: Path, dist: Path, *requirements: str) -> None:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        venv / "python",
        "install",
        "--quiet",
        "--no-compile",
        "--find-links",
        dist,
        *requirements,
        env=env,
    )


def _installed(venv: Path) -> dict[str, dict]:
    """The zarrforge distributions in ``venv``: name -> {version, editable location}."""
    listing = json.loads(
        _run(sys.executable, "-m", "pip", "--python", venv / "python", "list", "--format", "json", "-v")
    )
    return {d["name"].lower(): d for d in listing if d["name"].lower().startswith("zarrforge")}


def test_every_distribution_builds_a_wheel_and_an_sdist_at_the_one_version(dist: Path) -> None:
    for directory in DISTRIBUTIONS:
        stem = _project_name(directory).replace("-", "_")
        wheels = list(dist.glob(f"{stem}-*.whl"))
        sdists = list(dist.glob(f"{stem}-*.tar.gz"))
        if directory.name in COMPILED:  # built here (a C compiler is part of the test setup)
            assert len(wheels) == 1, directory
            assert re.fullmatch(rf"{stem}-{re.escape(VERSION)}-cp\d+-cp\d+-.+\.whl", wheels[0].name), wheels
        else:
            assert [w.name for w in wheels] == [f"{stem}-{VERSION}-py3-none-any.whl"], directory
        assert [s.name for s in sdists] == [f"{stem}-{VERSION}.tar.gz"], directory
        with zipfile.ZipFile(wheels[0]) as wheel:
            metadata = wheel.read(f"{stem}-{VERSION}.dist-info/METADATA").decode()
            if directory.name in COMPILED:
                assert any(name.endswith(".so") for name in wheel.namelist()), wheel.namelist()
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


def test_standard_installs_from_dist_and_reads_and_writes(dist: Path, venv: Path, tmp_path: Path) -> None:
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
    reports = _first_block_of_each(venv, STANDARD_DOCS, dict(os.environ))
    assert set(reports) == set(STANDARD_DOCS)
    assert not [(d, r["failures"]) for d, r in reports.items() if r["failures"]]


S3_SCRIPT = """
import zarrforge as zf
try:
    zf.open_array("s3://bucket/data.zarr")
except ImportError as exc:
    print(type(exc).__name__, exc)
"""


def test_standard_without_s3fs_names_the_extra_for_s3(dist: Path, venv: Path) -> None:
    _pip_install(venv, dist, "zarrforge[standard]")
    said = _run(venv / "python", "-c", S3_SCRIPT)
    assert said.startswith("PluginLoadError")
    assert "pip install 'zarrforge-fsspec[s3]'" in said and "'zarrforge[all]'" in said


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
    # included (entry points like any plugin's); not the core, zarrforge-xarray (an
    # xarray backend: an entry point of xarray's, not zarrforge's) or zarrforge-batch-io (a
    # helper the local store imports: no entry point)
    assert {entry["distribution"] for entry in listed} == set(installed) - {
        "zarrforge",
        "zarrforge-xarray",
        "zarrforge-batch-io",
    }
    assert {entry["version"] for entry in listed} == {VERSION}


def test_all_runs_the_first_block_of_every_page_and_the_demo(
    dist: Path, venv: Path, doc_servers: dict, tmp_path: Path
) -> None:
    _pip_install(venv, dist, "zarrforge[all]")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | doc_servers
    reports = _first_block_of_each(venv, DOCS, env)
    # every page with a block to run: all but these, which hold none
    no_blocks = {
        "docs/architecture.md",
        "docs/index.md",
        "docs/interop.md",
        "docs/performance.md",
    }
    assert sorted(set(DOCS) - set(reports)) == sorted(no_blocks)
    assert not [(d, r["failures"]) for d, r in reports.items() if r["failures"]]
    assert "created" in _run(venv / "python", ROOT / "examples" / "demo.py", cwd=tmp_path)


CORE_ONLY_SCRIPT = """
import zarrforge as zf
try:
    zf.create_array("data.zarr", shape=(2,), dtype="int32")
except zf.errors.UnknownExtensionError as exc:
    print(exc)
"""


CODEC_DICT_SCRIPT = """
import importlib.util
import zarrforge as zf
print("numcodecs absent" if importlib.util.find_spec("numcodecs") is None else "numcodecs here")
try:
    zf.create_array(None, shape=(2,), dtype="int32", compressors=[{"name": "zfp"}])
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
    assert (
        "provided by the package 'zarrforge-std' (pip install zarrforge-std, or pip "
        "install 'zarrforge[standard]' for the standard plugins)"
    ) in said
    # with zarrforge-std, and no numcodecs: a codec dict names its package (issue #42: the
    # codec arguments imported numcodecs, a bare ModuleNotFoundError)
    _pip_install(core_only / "bin", dist, "zarrforge-std")
    said = _run(core_only / "bin" / "python", "-c", CODEC_DICT_SCRIPT, cwd=tmp_path)
    assert said.splitlines()[0] == "numcodecs absent", said
    assert "unknown codec 'zfp'" in said and "zarrforge-numcodecs" in said, said


def test_the_conformance_kit_runs_with_the_core_alone(dist: Path, tmp_path: Path) -> None:
    """A plugin author's test environment: the core's wheel with pytest and hypothesis
    from the package index, and no zarrforge-std. The kit's suites on a codec and a key
    encoding of their own, its stand-in data types and its store
    (tests/_kit_alone_suites.py) pass there: the kit brings its own scratch format."""
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    _pip_install(venv / "bin", dist, "zarrforge", "pytest", "hypothesis")
    assert set(_installed(venv / "bin")) == {"zarrforge"}
    tests = tmp_path / "plugin-tests"
    tests.mkdir()
    (tests / "test_kit_alone.py").write_text((ROOT / "tests" / "_kit_alone_suites.py").read_text())
    env = {**os.environ}
    env.pop("PYTHONPATH", None)
    out = _run(
        venv / "bin" / "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "test_kit_alone.py",
        cwd=tests,
        env=env,
    )
    passed = re.search(r"(\d+) passed", out)
    assert passed and int(passed.group(1)) >= 60, out[-2000:]
    assert not re.search(r"\d+ (failed|errors?|skipped)", out), out[-2000:]


def _marked_blocks(marker: str) -> list[tuple[str, int, str]]:
    """``(document, line, code)`` of the blocks whose ``run by:`` note starts with
    ``tests/test_packaging.py <marker>``."""
    runner = _doc_runner()
    found = []
    for document in DOCS:
        text = (ROOT / document).read_text(encoding="utf-8")
        for match in runner.BLOCK.finditer(text):
            if match.group("mark") == "run by" and match.group("note").startswith(
                f"tests/test_packaging.py {marker}"
            ):
                found.append((document, text.count("\n", 0, match.start("code")) + 1, match.group("code")))
    return found


def test_the_quickstart_codec_list_is_what_its_three_packages_register(dist: Path, tmp_path: Path) -> None:
    [(_, _, code)] = _marked_blocks("checks this output")
    runner = _doc_runner()
    [(command, expected)] = runner.console_commands(code)
    where = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", where)
    _pip_install(where / "bin", dist, "zarrforge-std")
    _pip_install(where / "bin", dist, "zarrforge-numcodecs")
    assert set(_installed(where / "bin")) == {"zarrforge", "zarrforge-std", "zarrforge-numcodecs"}
    env = {**os.environ, "PATH": f"{where / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)
    got = _run("bash", "-c", command, env=env, cwd=tmp_path).splitlines()
    assert runner.matches(expected, got), f"docs/quickstart.md says {expected}, got {got}"


def _install_commands() -> list[tuple[str, int, list[str]]]:
    commands = []
    for document, line, code in _marked_blocks("resolves this install"):
        for text in code.splitlines():
            words = shlex.split(text, comments=True)
            if words[:4] == ["python", "-m", "pip", "install"]:
                commands.append((document, line, words[4:]))
    return commands


@pytest.mark.parametrize(
    "document, line, arguments", _install_commands(), ids=[f"{d}:{n}" for d, n, _ in _install_commands()]
)
def test_every_install_command_of_the_docs_resolves_in_a_fresh_environment(
    document: str, line: int, arguments: list[str]
) -> None:
    """pip's dry run, ignoring what is installed here; the directories as plain
    requirements (``-e`` needs the build backend's editable support, not the point here).
    docs/cli.md's ``pip install -e plugins/cli`` alone failed so: no index has
    zarrforge-zom."""
    requirements = [f"./{word}" for word in arguments if word != "-e"]
    assert all((ROOT / re.sub(r"\[.*\]$", "", r)).is_dir() for r in requirements), requirements
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    _run(
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--ignore-installed",
        "--no-build-isolation",
        "--quiet",
        *requirements,
        cwd=ROOT,
        env=env,
    )
