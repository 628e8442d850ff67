"""Request paths: a node's zarr.json, a chunk's candidate keys, nothing, or refused."""

from __future__ import annotations

import pytest

from zarrforge_serve.request_paths import (
    MAX_PATH_CHARS,
    BadPath,
    ChunkCandidate,
    ChunkRequest,
    DocumentRequest,
    parse,
)


def test_documents_name_their_node():
    assert parse("/zarr.json") == DocumentRequest("")
    assert parse("/a/b/zarr.json") == DocumentRequest("a/b")


def test_a_chunk_key_names_its_array_and_coordinates():
    assert parse("/a/c/0/12") == ChunkRequest((ChunkCandidate("a", (0, 12)),))
    assert parse("/c/3") == ChunkRequest((ChunkCandidate("", (3,)),))
    assert parse("/scalar/c") == ChunkRequest((ChunkCandidate("scalar", ()),))


def test_a_node_named_c_gives_every_reading_shortest_first():
    # "/c/c/1": the root array's chunk (c, 1)? no, "c" is not a number: only the array "c"
    assert parse("/c/c/1").candidates == (ChunkCandidate("c", (1,)),)
    # "/g/c/c/2": array "g/c" with chunk (2,), or array "g" with coordinates ("c", 2): not numbers
    assert parse("/g/c/c/2").candidates == (ChunkCandidate("g/c", (2,)),)
    assert parse("/c/1/c/2").candidates == (ChunkCandidate("c/1", (2,)),)
    assert parse("/x/c").candidates == (ChunkCandidate("x", ()),)


def test_other_formats_documents_and_odd_names_are_nothing_here():
    for path in ("/.zgroup", "/a/.zarray", "/", "/a/b", "/a/c/x", "/a/c/-1", "/a/c/1.5", "/a/c/٣"):
        assert parse(path) is None, path


@pytest.mark.parametrize(
    "path",
    [
        "/../etc/passwd",
        "/a/../../zarr.json",
        "/a/./zarr.json",
        "//zarr.json",
        "/a//c/0",
        "/a\\..\\zarr.json",
        "/a/\x00/zarr.json",
        "/a/\n/c/0",
        "relative/zarr.json",
        "/" + "a" * MAX_PATH_CHARS,
    ],
)
def test_paths_that_could_leave_the_tree_are_refused(path):
    with pytest.raises(BadPath):
        parse(path)


def test_absurd_coordinates_are_not_chunks():
    assert parse("/a/c/" + "9" * 31) is None
