"""Virtual environments of their own for peers that cannot share the project's environment.

Used by ``test_zarr2_draft.py`` (zarr-python 2.18) and ``test_zarr34_registry.py``
(zarr-python 3.4, which needs Python >= 3.12 while the project's environment is 3.11); both
environments are defined here (:func:`ensure_zarr2_venv`, :func:`ensure_zarr34_venv`).

A side environment lives at a path chosen by an environment variable (relative paths are
taken relative to the repository), else at a git-ignored default under the repository. It is
built on first use with ``<base python> -m venv`` and ``pip install <requirements>``, then
reused: a marker file records what was installed (requirements and base interpreter), and a
lock file keeps parallel sessions from building it twice. A build that fails raises
:class:`RuntimeError` with pip's output; the tests turn that into a failure, never a skip.

The module needs only the standard library, so ``make test`` builds both environments with
``python tests/interop/_side_venv.py zarr2 zarr34`` while the project's own environment is
being installed (each prints its python).
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MARKER = ".zarrforge-ready"


def venv_location(variable: str, default: str) -> Path:
    """``$variable`` if set (relative to the repository when relative), else ``REPO/default``."""
    return REPO / (os.environ.get(variable) or default)


def python_of(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no lock, builds are idempotent anyway
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run(args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), capture_output=True, text=True, **kwargs)


def _version_of(python: str) -> tuple[int, int] | None:
    try:
        done = run([python, "-c", "import sys; print(*sys.version_info[:2])"], timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        major, minor = (int(v) for v in done.stdout.split())
    except ValueError:
        return None
    return major, minor


def find_python(minimum: tuple[int, int], variable: str) -> str:
    """An interpreter of at least ``minimum``: ``$variable`` if set (and then only that one),
    else this interpreter, ``python3.<n>`` on PATH, or a pyenv installation."""
    chosen = os.environ.get(variable)
    if chosen:
        found = _version_of(chosen)
        if found is None or found < minimum:
            raise RuntimeError(
                f"${variable}={chosen} is not a Python >= {'.'.join(map(str, minimum))} (it reports {found})"
            )
        return chosen
    candidates = [sys.executable]
    for minor in range(minimum[1], minimum[1] + 6):
        on_path = shutil.which(f"python{minimum[0]}.{minor}")
        if on_path:
            candidates.append(on_path)
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates += sorted(glob.glob(os.path.join(pyenv, "versions", f"{minimum[0]}.*", "bin", "python")))
    for candidate in candidates:
        found = _version_of(candidate)
        if found is not None and found >= minimum:
            return candidate
    raise RuntimeError(
        f"no Python >= {'.'.join(map(str, minimum))} found (tried "
        f"{', '.join(candidates)}); set ${variable} to one"
    )


def ensure_side_venv(
    venv: Path,
    requirements: Sequence[str],
    *,
    label: str,
    check: str,
    expect_prefix: str,
    base_python: str | None = None,
    fingerprint: str = "",
) -> Path:
    """The python of ``venv`` holding ``requirements``, built if missing or stale.

    ``check`` is Python code run in the environment that must print a line starting with
    ``expect_prefix`` (the peer's version, say); ``base_python`` builds the environment
    (default: this interpreter). ``fingerprint`` is anything else whose change must
    rebuild it (the packaging files of editable installs, whose entry points are read at
    install time).
    """
    base = base_python or sys.executable
    wanted = json.dumps(
        {"requirements": list(requirements), "base": os.path.realpath(base), "fingerprint": fingerprint}
    )
    marker = venv / MARKER
    with locked(venv.with_name(venv.name + ".lock")):
        if marker.exists() and marker.read_text() == wanted and python_of(venv).exists():
            return python_of(venv)
        steps = [
            [base, "-m", "venv", "--clear", str(venv)],
            [
                str(python_of(venv)),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                *requirements,
            ],
        ]
        for step in steps:
            done = run(step, timeout=900)
            if done.returncode != 0:
                raise RuntimeError(
                    f"building the {label} environment at {venv} failed:\n"
                    f"$ {' '.join(step)}\n{done.stdout}\n{done.stderr}"
                )
        # cwd: the environment, never a directory that shadows the peer's modules
        done = run([str(python_of(venv)), "-c", check], timeout=120, cwd=venv)
        if done.returncode != 0 or not done.stdout.startswith(expect_prefix):
            raise RuntimeError(
                f"the environment at {venv} does not provide {label}: {done.stdout}{done.stderr}"
            )
        marker.write_text(wanted)
        return python_of(venv)


def run_script(
    python: Path,
    source: str,
    args: Sequence[str],
    *,
    label: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> str:
    """Run ``source`` with the side environment's python; its stdout, or an AssertionError
    with everything it printed."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("PYTHONPATH", None)
    done = run([str(python), "-c", source, *args], env=full_env, cwd=cwd, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"{label} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


# --------------------------------------------------------------------------------------------
# the two side environments

ZARR2_VENV = venv_location("ZARRFORGE_ZARR2_VENV", ".venv-zarr2")
ZARR2_REQUIREMENTS = ["zarr>=2.18,<2.19", "numcodecs", "pytest"]
ZARR2_LABEL = "zarr-python 2.18"

ZARR34_VENV = venv_location("ZARRFORGE_ZARR34_VENV", ".venv-zarr34")
# zarrs: the Rust codec pipeline benchmarks/ measures as a peer; tests/test_benchmarks.py runs
# it from this environment (it changes nothing unless zarr's codec pipeline is set to it)
# fsspec and aiohttp: its HTTP store, for reading what `zarrforge serve` serves
# (tests/interop/test_served_readers.py)
ZARR34_REQUIREMENTS = ["zarr[cast-value-rs]==3.4.2", "zarrs==0.2.3", "fsspec[http]==2026.9.0"]
ZARR34_MINIMUM_PYTHON = (3, 12)
ZARR34_LABEL = "zarr-python 3.4.2"


def ensure_zarr2_venv(venv: Path = ZARR2_VENV) -> Path:
    """The python of a virtual environment holding zarr-python 2.18, built if missing."""
    return ensure_side_venv(
        venv,
        ZARR2_REQUIREMENTS,
        label=ZARR2_LABEL,
        check="import zarr; print(zarr.__version__)",
        expect_prefix="2.18.",
    )


def ensure_zarr34_venv(venv: Path = ZARR34_VENV) -> Path:
    """The python of a virtual environment holding zarr-python 3.4.2 (and zarrs-python),
    built if missing, on a Python >= 3.12 (``$ZARRFORGE_ZARR34_PYTHON`` or one found)."""
    base = find_python(ZARR34_MINIMUM_PYTHON, "ZARRFORGE_ZARR34_PYTHON")
    return ensure_side_venv(
        venv,
        ZARR34_REQUIREMENTS,
        label=ZARR34_LABEL,
        base_python=base,
        expect_prefix="3.4.2 ",
        check="import zarr, cast_value_rs, zarrs; print(zarr.__version__, 'cast-value-rs zarrs')",
    )


# zarr-python 3.4.2's own test suite run on zarrforge (tests/peers/zarr_python_suite.py):
# zarr-python with the test tools its suite pins, and zarrforge as `zarrforge[standard]` plus
# the zarr-python bridge, installed editable from this checkout
ZARRSUITE_VENV = venv_location("ZARRFORGE_ZARRSUITE_VENV", ".venv-zarrsuite")
ZARRFORGE_EDITABLE = [
    "core",
    "plugins/std",
    "plugins/numcodecs",
    "plugins/sharding",
    "plugins/dtypes",
    "plugins/v2",
    "plugins/draft2022",
    "plugins/fsspec",
    "plugins/zarr-python",
    "plugins/rectilinear",
    "plugins/obstore",
]
ZARRSUITE_REQUIREMENTS = [
    "zarr==3.4.2",
    "pytest==9.1.1",
    "pytest-asyncio==1.4.0",
    "hypothesis==6.168.3",
    "pytest-reportlog==1.0.0",
    "pytest-xdist==3.8.0",
    "numpydoc==1.11.0",
    "tomlkit==0.15.1",
    "packaging",
    "pytest-timeout==2.4.0",
    # zarr-python's user guide (tests/peers/zarr_python_user_guide.py) uses obstore's stores
    "obstore==0.12.1",
    *[f"--editable={REPO / path}" for path in ZARRFORGE_EDITABLE],
]


def _packaging_fingerprint(paths: Sequence[str]) -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in paths:
        digest.update((REPO / path / "pyproject.toml").read_bytes())
    return digest.hexdigest()


def ensure_zarrsuite_venv(venv: Path = ZARRSUITE_VENV) -> Path:
    """The python of a Python >= 3.12 environment holding zarr-python 3.4.2, its suite's
    test tools and zarrforge (editable), built if missing or if a packaging file changed."""
    base = find_python(ZARR34_MINIMUM_PYTHON, "ZARRFORGE_ZARR34_PYTHON")
    return ensure_side_venv(
        venv,
        ZARRSUITE_REQUIREMENTS,
        label="zarr-python 3.4.2 and zarrforge",
        base_python=base,
        expect_prefix="3.4.2 ",
        fingerprint=_packaging_fingerprint(ZARRFORGE_EDITABLE),
        check="import zarr, zarrforge, zarrforge_std; print(zarr.__version__, 'zarrforge')",
    )


ENVIRONMENTS = {"zarr2": ensure_zarr2_venv, "zarr34": ensure_zarr34_venv, "zarrsuite": ensure_zarrsuite_venv}

if __name__ == "__main__":
    if sys.argv[1:2] == ["find-python"]:  # the Makefile's PYTHON: a 3.12, else this one
        try:
            print(find_python((3, 12), "ZARRFORGE_TEST_PYTHON"))
        except RuntimeError as exc:
            print(f"warning: {exc}; using {sys.executable}: Array.lazy's tests will not run", file=sys.stderr)
            print(sys.executable)
        sys.exit(0)
    names = sys.argv[1:]
    if not names or not set(names) <= set(ENVIRONMENTS):
        sys.exit(
            f"usage: _side_venv.py {{{','.join(ENVIRONMENTS)}}}...: build (or confirm) "
            f"those environments and print their pythons"
        )
    for name in names:
        try:
            print(ENVIRONMENTS[name]())
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
            sys.exit(f"{name}: {exc}")
