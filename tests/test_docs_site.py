"""The documentation site (docs/conf.py, ``make docs``) builds strictly: ``sphinx -W -n``, every
warning and every unresolved reference an error; and its API reference documents every name
of ``zarrforge.__all__`` and ``zarrforge.plugin_api.__all__``, each as a documented object (its
entry in the site's ``objects.inv``) that is the very object the name gives."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import zarrforge
import zarrforge.plugin_api

ROOT = Path(__file__).resolve().parents[1]
_MISSING = object()


def _sphinx(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html", str(source), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for the module; or, under ``make check``, the site its strict
    ``make docs`` has just built from this checkout (ZARRFORGE_DOCS_SITE), not built twice."""
    built = os.environ.get("ZARRFORGE_DOCS_SITE")
    if built:
        assert (Path(built) / "objects.inv").is_file(), f"ZARRFORGE_DOCS_SITE={built} holds no built site"
        return Path(built)
    out = tmp_path_factory.mktemp("site")
    result = _sphinx(ROOT / "docs", out)
    assert result.returncode == 0, result.stderr[-5000:]
    return out


def _import(name: str) -> Any:
    try:
        return pkgutil.resolve_name(name)
    except (ImportError, AttributeError):
        return _MISSING


@pytest.fixture(scope="module")
def documented(site: Path) -> dict[str, list[str]]:
    """Every documented Python object of the site: its name -> its full names."""
    from sphinx.util.inventory import InventoryFile

    with (site / "objects.inv").open("rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    names: dict[str, list[str]] = {}
    for kind, entries in inventory.data.items() if hasattr(inventory, "data") else inventory.items():
        if kind.startswith("py:"):
            for fullname in entries:
                names.setdefault(fullname.rsplit(".", 1)[-1], []).append(fullname)
    return names


def test_the_site_builds_strictly(site: Path) -> None:
    assert (site / "index.html").is_file()
    assert (site / "reference" / "cli.html").is_file()
    assert "zarrforge" in (site / "reference" / "cli.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("module", "name"),
    [(zarrforge, name) for name in zarrforge.__all__]
    + [(zarrforge.plugin_api, name) for name in zarrforge.plugin_api.__all__],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_every_public_name_is_documented(documented: dict[str, list[str]], module: Any, name: str) -> None:
    obj = getattr(module, name)
    candidates = documented.get(getattr(obj, "__name__", name).rsplit(".", 1)[-1], []) + documented.get(
        name, []
    )
    # a module is documented under its own name; anything else where its name resolves to it
    assert any(_import(fullname) is obj for fullname in candidates), (
        f"{module.__name__}.{name} is not in the reference (documented names: {candidates})"
    )


def test_a_broken_reference_fails_the_strict_build(tmp_path: Path) -> None:
    """The same extensions and strictness as docs/conf.py: a reference to nothing fails."""
    source = tmp_path / "docs"
    source.mkdir()
    (source / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx_click"]\n'
        "nitpicky = True\nmyst_heading_anchors = 3\n",
        encoding="utf-8",
    )
    page = "# Page\n\n```{eval-rst}\n.. autofunction:: zarrforge.config.reset\n```\n\nSee {func}`zarrforge.config.reset`"
    (source / "index.md").write_text(page + " and {func}`zarrforge.no_such_function`.\n", encoding="utf-8")
    result = _sphinx(source, tmp_path / "out")
    assert result.returncode != 0
    assert "zarrforge.no_such_function" in result.stderr
    # and without the broken reference, the same page builds
    (source / "index.md").write_text(page + ".\n", encoding="utf-8")
    assert _sphinx(source, tmp_path / "out2").returncode == 0, _sphinx(source, tmp_path / "out3").stderr
