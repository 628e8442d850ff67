"""Every ``getattr``/``hasattr`` probe in core and the plugins is listed, with why, in
docs/architecture.md ("Attribute probes and why each is there"): a new probe of an
attribute no contract declares fails here until it is declared or justified there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(list((ROOT / "core" / "src").rglob("*.py")) + list(ROOT.glob("plugins/*/src/**/*.py")))
TABLE = re.compile(r"<!-- probes: begin -->(.*?)<!-- probes: end -->", re.S)
ROW = re.compile(r"^\| `([^`]+)` \| `([^`]+)` \| (.+) \|$", re.M)


def probes_in(path: Path, root: Path = ROOT) -> set[tuple[str, str]]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
        ):
            name = node.args[1]
            attribute = (
                name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else "<dynamic>"
            )
            found.add((str(path.relative_to(root)), attribute))
    return found


def allowed() -> dict[tuple[str, str], str]:
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = TABLE.search(text)
    assert table, "docs/architecture.md has no probes table"
    return {(f, a): why for f, a, why in ROW.findall(table.group(1))}


def test_every_attribute_probe_is_declared_with_a_reason():
    found = set().union(*(probes_in(path) for path in SOURCES))
    listed = allowed()
    assert sorted(found - set(listed)) == [], "declare the attribute in a contract, or list it"
    assert sorted(set(listed) - found) == [], "rows no probe needs any more"
    assert all(why.strip() for why in listed.values())


def test_the_checker_sees_a_probe(tmp_path):
    module = tmp_path / "plugin.py"
    module.write_text(
        "def f(store, name):\n    return getattr(store, 'root', None) or hasattr(store, name)\n"
    )
    assert probes_in(module, tmp_path) == {("plugin.py", "root"), ("plugin.py", "<dynamic>")}
