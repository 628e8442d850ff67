"""The install hints (``registry.KNOWN_PROVIDERS``: "install zarrforge-numcodecs for codec
'zstd'") name every entry point the built-in plugins declare, with the distribution that
declares it: read from every ``plugins/*/pyproject.toml``, so a plugin that adds an entry
point the hints do not know fails here."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from zarrforge import registry

ROOT = Path(__file__).resolve().parent.parent
PROJECTS = sorted(ROOT.glob("plugins/*/pyproject.toml"))
POINT_OF_GROUP = {reg.group: reg.point for reg in registry.REGISTRIES.values()}


def declared() -> list[tuple[str, str, str]]:
    """``(point, entry-point name, distribution)`` for every registry entry point."""
    found = []
    for project in PROJECTS:
        metadata = tomllib.loads(project.read_text())["project"]
        for group, entries in metadata.get("entry-points", {}).items():
            if group in POINT_OF_GROUP:
                found += [(POINT_OF_GROUP[group], name, metadata["name"]) for name in entries]
    return found


def test_the_plugins_declare_entry_points_for_every_extension_point():
    points = {point for point, _, _ in declared()}
    assert points == set(POINT_OF_GROUP.values())


@pytest.mark.parametrize("point, name, distribution", declared(), ids=[f"{p}:{n}" for p, n, _ in declared()])
def test_every_declared_entry_point_has_its_install_hint(point, name, distribution):
    assert registry.KNOWN_PROVIDERS.get(point, {}).get(name) == distribution, (
        f"add {name!r}: {distribution!r} to registry.KNOWN_PROVIDERS[{point!r}]"
    )


def test_every_install_hint_names_a_declared_entry_point():
    declared_names = {(point, name): distribution for point, name, distribution in declared()}
    stale = [
        (point, name, distribution)
        for point, table in registry.KNOWN_PROVIDERS.items()
        for name, distribution in table.items()
        if (point, name) not in declared_names
    ]
    assert stale == []


def test_the_standard_extra_is_named_for_its_plugins():
    """``pip install zarrforge`` alone failed every call naming zarrforge-std but not the
    extra that installs the standard set."""
    import tomllib

    from zarrforge.errors import STANDARD_DISTRIBUTIONS, UnknownExtensionError

    core = tomllib.loads((ROOT / "core" / "pyproject.toml").read_text())
    assert set(core["project"]["optional-dependencies"]["standard"]) == STANDARD_DISTRIBUTIONS
    message = str(UnknownExtensionError("store", "file", [], "zarrforge-std"))
    assert (
        "store 'file' is provided by the package 'zarrforge-std' (pip install "
        "zarrforge-std, or pip install 'zarrforge[standard]' for the standard plugins)"
    ) in message
    assert "zarrforge[standard]" not in str(UnknownExtensionError("codec", "x", [], "zarrforge-zom"))
