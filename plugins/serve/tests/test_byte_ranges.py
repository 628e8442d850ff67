"""One byte range per request, placed against the value's size."""

from __future__ import annotations

import pytest

from zarrforge_serve.byte_ranges import RangeRequest, Unsatisfiable, parse_range


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("bytes=0-99", RangeRequest(0, 99)),
        ("bytes=5-", RangeRequest(5, None)),
        ("bytes=-16", RangeRequest(None, 16)),
        (" bytes = 3 - 4 ", RangeRequest(3, 4)),
    ],
)
def test_one_range_is_read(header, expected):
    assert parse_range(header) == expected


@pytest.mark.parametrize(
    "header",
    [None, "", "bytes=0-1,4-5", "items=0-4", "bytes=-", "bytes=9-3", "bytes=a-b", "bytes=" + "9" * 21 + "-"],
)
def test_what_is_not_one_byte_range_is_the_whole_value(header):
    assert parse_range(header) is None


def test_ranges_resolve_against_the_size():
    assert RangeRequest(0, 99).resolve(10) == (0, 10)
    assert RangeRequest(3, 3).resolve(10) == (3, 4)
    assert RangeRequest(None, 16).resolve(10) == (0, 10)
    assert RangeRequest(None, 4).resolve(10) == (6, 10)


@pytest.mark.parametrize(
    ("wanted", "size"),
    [(RangeRequest(10, None), 10), (RangeRequest(None, 0), 10), (RangeRequest(None, 5), 0)],
)
def test_a_range_selecting_nothing_is_unsatisfiable(wanted, size):
    with pytest.raises(Unsatisfiable) as caught:
        wanted.resolve(size)
    assert caught.value.size == size
