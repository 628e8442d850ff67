"""``zarrforge.print_debug_info()``: what to paste into a bug report.

zarr-python's function of that name prints its version and its dependencies'; this one
prints zarrforge's version, the interpreter and platform, every installed distribution
that provides zarrforge entry points (the built-in plugins and third-party ones: they
decide what a document means), and the versions of the libraries zarrforge and its
plugins use, with the ones not installed listed apart.
"""

from __future__ import annotations

import platform
import sys

import importlib_metadata

from .._version import __version__

LIBRARIES = (
    "numpy",
    "numcodecs",
    "pluggy",
    "importlib-metadata",
    "fsspec",
    "ml_dtypes",
    "zarr",
    "tensorstore",
    "xarray",
    "dask",
    "obstore",
    "s3fs",
    "icechunk",
)


def plugin_distributions() -> list[tuple[str, str]]:
    """(name, version) of every installed distribution with a ``zarrforge.*`` entry point."""
    found = set()
    for distribution in importlib_metadata.distributions():
        if any(point.group.startswith("zarrforge.") for point in distribution.entry_points):
            found.add((distribution.metadata["Name"], distribution.version))
    return sorted(found)


def print_debug_info() -> None:
    """Print versions of zarrforge, its plugins and the libraries around it."""
    print(f"zarrforge: {__version__}")
    print(f"python: {sys.version.split()[0]} ({platform.python_implementation()})")
    print(f"platform: {platform.platform()}")
    print("\n**Plugins:**")
    for name, version in plugin_distributions():
        print(f"{name}: {version}")
    print("\n**Libraries:**")
    missing = []
    for name in LIBRARIES:
        try:
            print(f"{name}: {importlib_metadata.version(name)}")
        except importlib_metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        print("\n**Not Installed:**")
        print("\n".join(missing))
