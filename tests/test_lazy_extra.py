"""``Array.lazy`` without zarr-indexing (Python 3.11, or the extra not installed): an
``ImportError`` naming the ``zarrforge[lazy]`` extra, on first use, never at import."""

from __future__ import annotations

import sys

import pytest

import zarrforge as zf


def test_array_lazy_names_the_extra_when_zarr_indexing_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "zarr_indexing", None)  # as if not installed
    array = zf.create_array(None, shape=(4,), dtype="i4")
    array[...] = 7  # the array works without it
    with pytest.raises(
        ImportError, match=r"pip install 'zarrforge\[lazy\]'.*Python 3\.12|Python 3\.12.*zarrforge\[lazy\]"
    ):
        array.lazy
