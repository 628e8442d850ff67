"""The Python examples of the documentation run, and print what the documents say they
print (tests/_doc_examples.py has the rules). For the plugin guide, the worked example
package ``zarrforge-delta`` is built from the guide's own listings (its pyproject's
entry point, its ``__init__.py`` and ``codec.py``) and put on the path as an installed
distribution, so the guide's examples of using it run too; so is the Z-order layout
example ``examples/morton-layout`` (its source and its pyproject's entry points), which
the guide's memory layout section uses."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNNER = Path(__file__).with_name("_doc_examples.py")
DOCUMENTS = ["docs/plugin-guide.md", "docs/quickstart.md", "docs/extensions.md", "docs/xarray.md",
             "docs/reliability.md", "docs/coming-from-zarr-python.md", "README.md"]


def _listing(text: str, heading: str, language: str) -> str:
    """The first ``language`` block after the heading ``heading``."""
    start = text.index(heading)
    match = re.compile(rf"```{language}\n(.*?)```", re.S).search(text, start)
    assert match, f"no {language} block after {heading!r}"
    return match.group(1)


def _install_delta_package(site: Path) -> None:
    guide = (ROOT / "docs/plugin-guide.md").read_text(encoding="utf-8")
    project = tomllib.loads(_listing(guide, "### `pyproject.toml`", "toml"))["project"]
    package = site / "zarrforge_delta"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        _listing(guide, "### `src/zarrforge_delta/__init__.py`", "python"))
    (package / "codec.py").write_text(
        _listing(guide, "### `src/zarrforge_delta/codec.py`", "python"))
    info = site / f"zarrforge_delta-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = []
    for group, entries in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")


def _install_morton_example(site: Path) -> Path:
    """The example's dist-info in ``site``; returns its source directory for the path."""
    example = ROOT / "examples" / "morton-layout"
    project = tomllib.loads((example / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"zarrforge_example_morton-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = []
    for group, entries in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return example / "src"


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_examples_of_the_document_run_and_print_what_it_says(document, tmp_path):
    env = dict(os.environ)
    if document == "docs/plugin-guide.md":
        _install_delta_package(tmp_path / "site")
        morton = _install_morton_example(tmp_path / "site")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path / "site"), str(morton),
                                                          env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, str(RUNNER), str(ROOT / document)],
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    failures = json.loads(result.stdout.splitlines()[-1])
    assert not failures, "\n\n".join(
        f"{document} block {f['block']} (line {f['line']}):\n{f['error']}" for f in failures)
