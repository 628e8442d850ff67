"""A chunk grid subclass cannot give one of ChunkGrid's helper names (``chunk_shape``,
``chunk_origin``, ... ``zarrforge.abc.chunk_grid.GRID_HELPERS``) another meaning: the
engine calls them on every grid, so shadowing one fails when the class is created or the
attribute is set, naming the helper; overriding one with the same kind is allowed."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from zarrforge.abc.chunk_grid import GRID_HELPERS, ChunkGrid
from zarrforge_std.chunk_grids import RegularChunkGrid


def test_the_helpers_are_the_derived_members_of_chunk_grid():
    assert set(GRID_HELPERS) == {
        "representative_chunk_shapes",
        "grid_shape",
        "chunk_shape",
        "chunk_origin",
        "chunk_extent",
        "nchunks",
    }
    for name, (kind, _) in GRID_HELPERS.items():
        member = ChunkGrid.__dict__[name]
        assert isinstance(member, property) if kind == "property" else callable(member), name


@pytest.mark.parametrize("name", sorted(GRID_HELPERS))
@pytest.mark.parametrize("shadow", [(4, 4), property(lambda self: (4, 4)), None])
def test_a_class_giving_a_helper_another_meaning_fails_at_creation(name, shadow):
    kind = GRID_HELPERS[name][0]
    if kind == "property" and isinstance(shadow, property):
        shadow = staticmethod(lambda: 3)  # a property is the helper's own kind here
    with pytest.raises(TypeError) as info:
        type("Shadowing", (RegularChunkGrid,), {name: shadow})
    message = str(info.value)
    assert f"'{name}' is ChunkGrid's helper" in message and "Shadowing" in message
    assert f"'_{name}'" in message


def test_setting_a_helper_on_an_instance_fails_naming_it():
    class Remembers(RegularChunkGrid):
        def __init__(self, chunk_shape, shape):
            super().__init__(chunk_shape, shape)
            self.chunk_shape = tuple(chunk_shape)

    with pytest.raises(
        TypeError,
        match="sets the attribute 'chunk_shape', but 'chunk_shape' "
        r"is ChunkGrid's helper chunk_shape\(coords\)",
    ):
        Remembers((2,), (4,))


def test_overriding_a_helper_with_the_same_kind_works():
    class Faster(RegularChunkGrid):
        def chunk_shape(self, coords):
            return self._chunk_shape

        @functools.cached_property
        def nchunks(self):
            return int(np.prod(self.grid_shape))

    grid = Faster((2, 3), (4, 9))
    assert grid.chunk_shape((1, 2)) == (2, 3)
    assert grid.nchunks == 6 and grid.nchunks == 6  # the cached value, set without __setattr__
    assert grid.chunk_origin((1, 2)) == (2, 6)
