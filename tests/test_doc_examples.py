"""Every fenced Python, sh and console block of README.md and docs/**/*.md (but the API
reference, docs/reference/) runs and prints what
the document says it prints, or is marked as a fragment or as run elsewhere
(tests/_doc_examples.py has the rules); the counts go to ``make test``'s summary
(tests/conftest.py). The S3 examples (``s3://bucket/...``) run against the S3 test server
and ``https://example.org`` stands for an HTTP server on 127.0.0.1; both serve
``data.zarr`` (a group with a ``temperature`` array) and ``weather.zarr``, S3 also
``data.zip`` (with ``group/array``): the ``doc_servers`` fixture of tests/conftest.py. For the plugin guide's pages, the worked example
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
# every page of the site but the API reference, whose pages hold no runnable block
DOCUMENTS = [
    "README.md",
    *sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "docs").glob("**/*.md")
        if not p.relative_to(ROOT / "docs").parts[0] == "reference"
    ),
]
#: the plugin guide, a page per extension point (docs/plugin-guide/index.md)
GUIDE = ROOT / "docs" / "plugin-guide"


def _listing(text: str, heading: str, language: str) -> str:
    """The first ``language`` block after the heading ``heading``."""
    start = text.index(heading)
    match = re.compile(rf"```{language}\n(.*?)```", re.S).search(text, start)
    assert match, f"no {language} block after {heading!r}"
    return match.group(1)


def _install_delta_package(site: Path) -> None:
    guide = (GUIDE / "worked-example.md").read_text(encoding="utf-8")
    project = tomllib.loads(_listing(guide, "## `pyproject.toml`", "toml"))["project"]
    package = site / "zarrforge_delta"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(_listing(guide, "## `src/zarrforge_delta/__init__.py`", "python"))
    (package / "codec.py").write_text(_listing(guide, "## `src/zarrforge_delta/codec.py`", "python"))
    info = site / f"zarrforge_delta-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
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
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    lines = []
    for group, entries in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return example / "src"


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_block_of_the_document_runs_and_prints_what_it_says(
    document, tmp_path, doc_servers, record_property
):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(doc_servers)
    if Path(document).parent == GUIDE.relative_to(ROOT):
        _install_delta_package(tmp_path / "site")
        morton = _install_morton_example(tmp_path / "site")
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(tmp_path / "site"), str(morton), env.get("PYTHONPATH")])
        )
    result = subprocess.run(
        [sys.executable, str(RUNNER), str(ROOT / document)],
        capture_output=True,
        text=True,
        env=env,
        timeout=480,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    record_property(
        "doc_blocks",
        {key: len(report[key]) for key in ("ran", "fragment", "run_by")}
        | {"failed": len(report["failures"])},
    )
    assert not report["failures"], "\n\n".join(
        f"{document} line {f['line']}:\n{f['error']}" for f in report["failures"]
    )
