"""``benchmarks/ab.py``: the before side's worktree gets this tree's compiled helpers.

A git worktree holds no build products, so without them the before side of an A/B would
run without zarrforge-batch-io's C helper while the after side runs with it. The driver
copies each built extension module into the worktree where the C source it was built
from is the same there, and says so where it is not. Nothing here times anything.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
try:
    from benchmarks import ab
finally:
    sys.path.remove(str(REPO))

BUILT = "plugins/batch-io/src/zarrforge_batch_io/_native.cpython-312-x86_64-linux-gnu.so"


def _tree(root: Path, source: bytes, built: bytes | None = None) -> Path:
    package = root / BUILT.rsplit("/", 1)[0]
    package.mkdir(parents=True)
    (package / "_native.c").write_bytes(source)
    if built is not None:
        (root / BUILT).write_bytes(built)
    return root


def test_a_helper_built_from_the_same_source_is_shared(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(ab, "REPO", _tree(tmp_path / "here", b"int f;", b"\x7fELF built"))
    before = _tree(tmp_path / "before", b"int f;")
    ab._share_compiled(before)
    assert (before / BUILT).read_bytes() == b"\x7fELF built"
    assert capsys.readouterr().err == ""


def test_a_helper_whose_source_changed_is_not_shared(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(ab, "REPO", _tree(tmp_path / "here", b"int f;", b"\x7fELF built"))
    before = _tree(tmp_path / "before", b"int g;")
    ab._share_compiled(before)
    assert not (before / BUILT).exists()
    assert "is not shared with the other side (its C source differs)" in capsys.readouterr().err


@pytest.mark.skipif(not list(REPO.glob("plugins/*/src/**/*.so")), reason="no extension module built here")
def test_this_trees_helpers_are_found() -> None:
    assert any(path.name.startswith("_native.") for path in REPO.glob("plugins/*/src/**/*.so"))
