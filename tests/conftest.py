"""Shared fixtures: fake installed distributions for registry tests; and the count of the
documentation's blocks (tests/test_doc_examples.py) at the end of the run."""

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


def pytest_terminal_summary(terminalreporter) -> None:  # noqa: ANN001 - pytest's hook
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
            f"{totals.get('run_by', 0)} run by other tests, {totals.get('failed', 0)} failing")
