"""The user-guide runner of ``make peer-suites`` (tests/peers/_guide_blocks.py): which
blocks it runs, how it redirects ``zarr`` to zarrforge, and what it counts."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "peers"))
import _guide_blocks

PAGE = """Text.

```python exec="true" session="s" source="above"
import zarr
from zarr.errors import ContainsGroupError
from zarr import create_array
import zarr.errors
import zarr.errors as errors
import zarrlike
assert zarr.__name__ == "zarrforge" and errors.__name__ == "zarrforge.errors"
assert ContainsGroupError.__module__ == "zarrforge.errors"
assert create_array.__module__.startswith("zarrforge.")
```

```python
this block is shown, not run (no exec)
```

```python exec="true" session="s"
group = zarr.open_group(store="s3://bucket/path", mode="r")
```

```python exec="true" session="s"
raise ValueError("second line hidden\\nfrom the report")
```
"""


def test_imports_of_zarr_and_its_modules_name_zarrforge_and_nothing_else() -> None:
    source = _guide_blocks.BLOCK.findall(PAGE)[0]
    assert _guide_blocks.redirected(source).splitlines()[:6] == [
        "import zarrforge as zarr",
        "from zarrforge.errors import ContainsGroupError",
        "from zarrforge import create_array",
        "import zarrforge.errors; import zarrforge as zarr",
        "import zarrforge.errors as errors",
        "import zarrlike",
    ]


def test_only_executable_blocks_run_in_one_namespace_and_network_blocks_are_counted(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE.replace("import zarrlike\n", ""), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    results = _guide_blocks.run_page(str(page), "zarrforge")
    assert [(number, outcome) for number, outcome, _ in results] == [
        (1, "passed"),
        (2, "network"),
        (3, "failed"),
    ]
    assert results[2][2] == "ValueError: second line hidden"
