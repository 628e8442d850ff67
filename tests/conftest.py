"""Shared fixtures: fake installed distributions for registry tests."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Callable

import pytest

import zarrforge.registry as registry

pytest_plugins = ["pytester"]


@pytest.fixture
def fake_distribution(tmp_path: Path) -> Callable[..., Path]:
    """Install a fake distribution (a ``*.dist-info`` with entry points) on sys.path.

    ``fake_distribution(name, entry_points={"zarrforge.codecs": {"x": "mod:Cls"}},
    modules={"mod": "source"})`` writes the dist-info and modules into a fresh
    directory, puts it on ``sys.path`` and refreshes the registries; everything
    is undone after the test.
    """
    added: list[str] = []
    modules: list[str] = []

    def install(name: str, entry_points: dict[str, dict[str, str]],
                modules_src: dict[str, str] | None = None, version: str = "1.0") -> Path:
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
