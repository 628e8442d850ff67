"""What the benchmark ran on: machine, Python, package versions, source revision.

Contract: :func:`describe` returns a JSON-ready dict and never fails (missing
facts are ``None``); it reads ``/proc/cpuinfo`` and ``/proc/meminfo`` and asks
``importlib.metadata`` and ``git``, importing none of the engines.
:func:`source_state` identifies the zarrforge code a child runs (HEAD plus a
digest of uncommitted changes to ``core/`` and ``plugins/``), so the driver
can tell when the working tree changed in the middle of a run.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = (
    "zarrforge",
    "zarrforge-std",
    "zarrforge-numcodecs",
    "zarrforge-sharding",
    "zarr",
    "tensorstore",
    "numpy",
    "numcodecs",
    "matplotlib",
)


def _proc_field(path: str, field: str) -> str | None:
    try:
        with open(path) as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == field:
                    return value.strip()
    except OSError:
        return None
    return None


def _memory_gib() -> float | None:
    total = _proc_field("/proc/meminfo", "MemTotal")
    return round(int(total.split()[0]) / 2**20, 1) if total else None


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _git(repo: Path, *args: str) -> str | None:
    try:
        return subprocess.run(
            ["git", *args], cwd=repo, capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def source_state(repo: Path) -> dict[str, Any]:
    """The code being measured: HEAD, and a digest of the uncommitted changes under
    ``core/`` and ``plugins/`` (tracked diffs and the names of untracked files)."""
    diff = _git(repo, "diff", "HEAD", "--", "core", "plugins") or ""
    untracked = _git(repo, "ls-files", "--others", "--exclude-standard", "--", "core", "plugins") or ""
    digest = hashlib.sha1((diff + "\0" + untracked).encode()).hexdigest()[:12]
    return {
        "commit": (_git(repo, "rev-parse", "HEAD") or "")[:12] or None,
        "uncommitted": digest if (diff or untracked) else None,
    }


def describe(repo: Path) -> dict[str, Any]:
    status = _git(repo, "status", "--porcelain")
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpu_model": _proc_field("/proc/cpuinfo", "model name") or platform.processor() or None,
            "cores": os.cpu_count(),
            "memory_gib": _memory_gib(),
            "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        },
        "python": {
            "version": sys.version.split()[0],
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "packages": _versions(),
        "source": {
            "commit": _git(repo, "rev-parse", "HEAD"),
            "local_changes": bool(status) if status is not None else None,
        },
    }
