"""Types as third parties see them: zarrforge and every plugin ship a ``py.typed`` marker
(PEP 561), the example third-party plugin passes ``mypy --strict`` against the installed
zarrforge, and the strict part of the mypy configuration (the root pyproject.toml) is the
plugin-facing surface plus the bottom layer of tests/test_layers.py's ``LAYERS``.

mypy runs from a temporary directory, so the root configuration is not read: what it sees of
zarrforge is what an installed copy offers (the editable install's sources and their
``py.typed``), as a plugin author's checker would.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "third-party-plugin" / "src" / "zf_example"
UNTYPED = "missing library stubs or py.typed marker"

# What `strict = true` turns on, spelled out (an override may say either: mypy applies a
# per-module `strict` to every module, so the configuration may list the flags instead).
STRICT_FLAGS = (
    "disallow_any_generics",
    "disallow_subclassing_any",
    "disallow_untyped_calls",
    "disallow_untyped_defs",
    "disallow_incomplete_defs",
    "check_untyped_defs",
    "disallow_untyped_decorators",
    "warn_unused_ignores",
    "warn_return_any",
    "strict_equality",
    "extra_checks",
)


def _mypy_strict(target: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``mypy --strict target`` run from ``tmp_path`` (no configuration file there)."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            str(target),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_example_plugin_passes_mypy_strict_against_the_installed_zarrforge(tmp_path: Path) -> None:
    result = _mypy_strict(EXAMPLE, tmp_path)
    output = result.stdout + result.stderr
    # zarrforge is read as a typed installed package, not skipped as an untyped one (which
    # would make every zarrforge name Any and the check hollow)
    assert UNTYPED not in output, output
    assert result.returncode == 0, output


def test_mypy_strict_refuses_a_plugin_that_breaks_a_zarrforge_contract(tmp_path: Path) -> None:
    """The check above can fail: a codec whose ``encode`` does not take what the
    ``BytesBytesCodec`` contract passes it, and a ``ByteRange`` built with a string offset."""
    plugin = tmp_path / "bad_plugin.py"
    plugin.write_text(
        textwrap.dedent(
            """\
            from zarrforge.abc.codec import BytesBytesCodec
            from zarrforge.abc.store import ByteRange


            class Reversed(BytesBytesCodec):
                name = "reversed"

                def encode(self, data: int) -> bytes:
                    return bytes(data)

                def decode(self, data: bytes | memoryview) -> bytes:
                    return bytes(data)[::-1]


            RANGE = ByteRange(offset="0", length=4)
            """
        )
    )
    result = _mypy_strict(plugin, tmp_path)
    output = result.stdout + result.stderr
    assert UNTYPED not in output, output
    assert result.returncode != 0, output
    assert 'Argument 1 of "encode" is incompatible with supertype' in output, output
    assert "[override]" in output, output
    assert 'Argument "offset" to "ByteRange" has incompatible type "str"' in output, output


def _packages() -> list[Path]:
    """The import packages of every distribution: core's, each plugin's, the examples'."""
    source_roots = [ROOT / "core" / "src", *sorted((ROOT / "plugins").glob("*/src"))]
    source_roots += sorted((ROOT / "examples").glob("*/src"))
    return [
        path for root in source_roots for path in sorted(root.iterdir()) if (path / "__init__.py").is_file()
    ]


def test_every_distribution_ships_a_py_typed_marker() -> None:
    packages = _packages()
    names = {path.name for path in packages}
    assert {"zarrforge", "zarrforge_std", "zf_example", "zf_morton"} <= names, names
    assert [str(path.relative_to(ROOT)) for path in packages if not (path / "py.typed").is_file()] == []


def _layers() -> Any:
    """tests/test_layers.py's ``LAYERS``, loaded by file (the tests are no package)."""
    spec = importlib.util.spec_from_file_location(
        "_layers_for_type_checks", ROOT / "tests" / "test_layers.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LAYERS


def _is_strict(override: dict[str, Any]) -> bool:
    if override.get("strict") is True:
        return True
    return (
        all(override.get(flag) is True for flag in STRICT_FLAGS)
        and override.get("implicit_reexport") is False
    )


def test_the_strict_modules_are_the_plugin_surface_and_the_bottom_layer() -> None:
    configuration = tomllib.loads((ROOT / "pyproject.toml").read_text())
    overrides = configuration["tool"]["mypy"]["overrides"]
    strict = [override for override in overrides if _is_strict(override)]
    assert len(strict) == 1, strict
    modules = strict[0]["module"]
    listed = sorted([modules] if isinstance(modules, str) else modules)

    _, bottom = _layers()[0]
    expected = {"zarrforge.abc", "zarrforge.abc.*", "zarrforge.plugin_api", "zarrforge.plugin_api.*"}
    expected.add("zarrforge.errors")
    for module in bottom:
        expected.add(module)
        if (ROOT / "core" / "src" / Path(*module.split("."))).is_dir():  # a package: its modules too
            expected.add(module + ".*")
    assert listed == sorted(expected)
