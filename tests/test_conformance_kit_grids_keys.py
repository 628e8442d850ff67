"""The chunk grid and chunk key encoding suites catch broken implementations, naming the
case and the property, and pass the plugin guide's examples (issue #21); the built-ins run
the suites in their own packages' tests (plugins/std, plugins/rectilinear).

Each broken implementation is registered in-process in a test module that subclasses a
suite; the module runs in a subprocess (pytester), and the suite must fail it where it is
broken, and only there."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import zarrforge as zf

ROOT = Path(__file__).resolve().parents[1]


def _failed(result) -> set[str]:
    """``Class::test[id]`` of every failed test in a ``-rf`` report."""
    return {
        line.split("::", 1)[1].split(" - ")[0]
        for line in result.stdout.str().splitlines()
        if line.startswith("FAILED")
    }


BROKEN_GRIDS = '''
import numpy as np
from zarrforge import register
from zarrforge.errors import MetadataError
from zarrforge.testing import ChunkGridConformance
from zarrforge_std.chunk_grids import RegularChunkGrid, RegularDimension


class ShortEdge(RegularDimension):
    """The edge chunk stops one element before the array's end."""
    def size(self, index):
        if index == self.nchunks - 1 and self.length - self.start(index) > 1:
            return self.length - self.start(index) - 1
        return self.chunk


class OffByOne(RegularDimension):
    """The last element of each chunk is mapped to the next chunk."""
    def index_of(self, positions):
        out = (np.asarray(positions, dtype=np.int64) + 1) // self.chunk
        return np.minimum(out, max(self.nchunks - 1, 0))


def grid_class(name, dimension):
    class Grid(RegularChunkGrid):
        def __init__(self, chunk_shape, shape):
            super().__init__(chunk_shape, shape)
            self._dims = tuple(dimension(n, c) for n, c in zip(self._shape, self._chunk_shape))
        def with_shape(self, shape):
            return type(self)(self._chunk_shape, shape)
    Grid.name = name
    register("chunk_grids", name, Grid)
    return Grid


grid_class("test.short-edge", ShortEdge)
grid_class("test.off-by-one", OffByOne)


class Unchecked(RegularChunkGrid):
    """Validates nothing: int() of whatever it is given."""
    name = "test.unchecked"
    @classmethod
    def from_json(cls, name, configuration, shape):
        return cls([int(c) for c in configuration["chunk_shape"]], shape)
    def with_shape(self, shape):
        return Unchecked(self._chunk_shape, shape)


register("chunk_grids", "test.unchecked", Unchecked)


def doc(name, *chunks):
    return {"name": name, "configuration": {"chunk_shape": list(chunks)}}


class TestShortEdge(ChunkGridConformance):
    shrink = False  # failures are expected here: report the first example
    chunk_grid_cases = [(doc("test.short-edge", 4), (10,))]
    invalid_chunk_grid_cases = [(doc("test.short-edge", 0), (10,), "configuration.chunk_shape")]


class TestOffByOne(ChunkGridConformance):
    shrink = False  # failures are expected here: report the first example
    chunk_grid_cases = [(doc("test.off-by-one", 4, 3), (10, 9))]
    invalid_chunk_grid_cases = [(doc("test.off-by-one", 0, 1), (10, 9),
                                 "configuration.chunk_shape")]


class TestUnchecked(ChunkGridConformance):
    shrink = False  # failures are expected here: report the first example
    chunk_grid_cases = [(doc("test.unchecked", 4), (10,))]
    invalid_chunk_grid_cases = [
        (doc("test.unchecked", 0), (10,), "configuration.chunk_shape"),
        (doc("test.unchecked", "four"), (10,), "configuration.chunk_shape"),
    ]
'''


def test_the_grid_suite_catches_each_broken_grid(pytester):
    pytester.makepyfile(BROKEN_GRIDS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    text = result.stdout.str()
    failed = _failed(result)
    short = '0:test.short-edge{"chunk_shape":[4]}@(10,)'
    off = '0:test.off-by-one{"chunk_shape":[4,3]}@(10, 9)'
    assert {
        f"TestShortEdge::test_chunks_tile_the_array_exactly[{short}]",
        f"TestShortEdge::test_edge_chunks_report_their_extent[{short}]",
        f"TestShortEdge::test_generated_indexes_map_to_the_chunk_containing_them[{short}]",
        f"TestShortEdge::test_arrays_with_the_grid_round_trip_through_a_store[{short}]",
        f"TestOffByOne::test_chunks_tile_the_array_exactly[{off}]",
        f"TestOffByOne::test_generated_indexes_map_to_the_chunk_containing_them[{off}]",
        "TestUnchecked::test_invalid_configurations_are_refused_naming_the_field"
        '[0:test.unchecked{"chunk_shape":[0]}@(10,)]',
        "TestUnchecked::test_invalid_configurations_are_refused_naming_the_field"
        '[1:test.unchecked{"chunk_shape":["four"]}@(10,)]',
        "TestUnchecked::test_unknown_configuration_keys_are_refused[0:test.unchecked"
        '{"chunk_shape":[4]}@(10,)]',
    } <= failed, text[-8000:]
    # the messages name the case and the property, in a sentence
    assert (
        'test.short-edge{"chunk_shape":[4]}@(10,): the last chunk (2) along dimension 0 '
        "covers 8..8; elements 9..9 belong to no chunk"
    ) in text
    assert (
        'test.off-by-one{"chunk_shape":[4,3]}@(10, 9): element 3 of dimension 0 lies in '
        "chunk 0 (0..3) but index_of says chunk 1"
    ) in text
    # the generated cases find the bug through index_of or through chunk_range, whichever
    # example hypothesis reaches first (it is not derandomized here)
    assert re.search(
        r"test\.off-by-one.*: (index_of maps element \d+ of dimension \d to chunk "
        r"\d+, which covers \d+\.\.\d+|chunk_range\(\d+, \d+\) along dimension \d "
        r"is range\(\d+, \d+\); elements \d+\.\.\d+ lie in chunks \d+\.\.\d+)",
        text,
    )
    assert 'test.unchecked{"chunk_shape":[0]}@(10,): accepted (built' in text
    assert ("the MetadataError names field 'chunk_grid', not 'chunk_grid.configuration.chunk_shape'") in text
    assert 'test.unchecked{"chunk_shape":[4]}@(10,): accepted an unknown configuration key' in text
    # what is not broken passes
    for fine in (
        f"TestShortEdge::test_to_json_is_json_and_rebuilds_an_equal_grid[{short}]",
        f"TestShortEdge::test_name_resolves_to_the_registered_grid_class[{short}]",
        f"TestOffByOne::test_to_json_is_json_and_rebuilds_an_equal_grid[{off}]",
        'TestUnchecked::test_chunks_tile_the_array_exactly[0:test.unchecked{"chunk_shape":[4]}@(10,)]',
    ):
        assert fine not in failed, fine


BROKEN_ENCODINGS = '''
from zarrforge import register
from zarrforge.testing import ChunkKeyEncodingConformance
from zarrforge_std.chunk_key_encodings import DefaultEncoding


class Glued(DefaultEncoding):
    """Joins the coordinates without a separator: (1, 11) and (11, 1) collide."""
    name = "test.glued"
    def encode_key(self, coords):
        return "c/" + "".join(str(int(c)) for c in coords)


class Backwards(DefaultEncoding):
    """decode_key is not the inverse: it gives the coordinates reversed."""
    name = "test.backwards"
    def decode_key(self, key, ndim):
        coords = super().decode_key(key, ndim)
        return None if coords is None else coords[::-1]


class Fragile(DefaultEncoding):
    """decode_key trusts its input: int() of every part after 'c/'."""
    name = "test.fragile"
    def decode_key(self, key, ndim):
        if ndim == 0:
            return () if key == "c" else None
        parts = key[2:].split(self.separator)
        return tuple(int(p) for p in parts) if len(parts) == ndim else None


for cls in (Glued, Backwards, Fragile):
    register("chunk_key_encodings", cls.name, cls)


class TestGlued(ChunkKeyEncodingConformance):
    shrink = False  # failures are expected here: report the first example
    key_encoding_documents = [{"name": "test.glued"}]
    invalid_key_encoding_documents = [({"name": "test.glued", "configuration": {"separator": "-"}},
                                       "configuration.separator")]


class TestBackwards(ChunkKeyEncodingConformance):
    shrink = False  # failures are expected here: report the first example
    key_encoding_documents = [{"name": "test.backwards"}]
    invalid_key_encoding_documents = TestGlued.invalid_key_encoding_documents


class TestFragile(ChunkKeyEncodingConformance):
    shrink = False  # failures are expected here: report the first example
    key_encoding_documents = [{"name": "test.fragile", "configuration": {"separator": "."}}]
    invalid_key_encoding_documents = TestGlued.invalid_key_encoding_documents
'''


def test_the_key_encoding_suite_catches_each_broken_encoding(pytester):
    pytester.makepyfile(BROKEN_ENCODINGS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    text = result.stdout.str()
    failed = _failed(result)
    fragile = '0:test.fragile{"separator":"."}'
    assert {
        "TestGlued::test_distinct_coordinates_give_distinct_keys[0:test.glued]",
        "TestGlued::test_generated_coordinates_round_trip_through_valid_keys[0:test.glued]",
        "TestGlued::test_arrays_store_chunks_under_the_encoded_keys[0:test.glued]",
        "TestBackwards::test_generated_coordinates_round_trip_through_valid_keys[0:test.backwards]",
        "TestBackwards::test_arrays_store_chunks_under_the_encoded_keys[0:test.backwards]",
        "TestGlued::test_the_0d_chunk_has_a_valid_key[0:test.glued]",
        f"TestFragile::test_malformed_keys_are_refused[{fragile}]",
        # listing the array's chunks decodes 'zarr.json' too
        f"TestFragile::test_arrays_store_chunks_under_the_encoded_keys[{fragile}]",
    } <= failed, text[-8000:]
    assert "test.glued: chunks (1, 10) and (11, 0) both get the key 'c/110'" in text
    assert (
        "test.glued: the key of chunk (), 'c/', is not a valid store key: invalid store key "
        "'c/': segment '' is not allowed"
    ) in text
    # (failures are not shrunk here, so the example can have any number of dimensions)
    assert re.search(
        r"test\.backwards: decode_key\('c(/\d+)+'\) gives \((\d+, )+\d+\), not "
        r"the chunk \((\d+, )+\d+\) it is the key of",
        text,
    )
    assert re.search(
        r"test\.backwards \(written\): the array lists its stored chunks as "
        r"\[\(\d+(, \d+)*\)(, \(\d+(, \d+)*\))*\]; \[.*\] were written",
        text,
    )
    assert (
        """test.fragile{"separator":"."}: decode_key('', 1) raised ValueError""" in text
        or """test.fragile{"separator":"."}: decode_key('c', 1) raised ValueError""" in text
    ), text[-8000:]
    # the faultless parts of each pass
    for fine in (
        "TestGlued::test_to_json_is_json_and_rebuilds_an_equal_encoding[0:test.glued]",
        "TestBackwards::test_distinct_coordinates_give_distinct_keys[0:test.backwards]",
        f"TestFragile::test_generated_coordinates_round_trip_through_valid_keys[{fragile}]",
        f"TestFragile::test_the_configured_separator_stands_between_coordinates[{fragile}]",
    ):
        assert fine not in failed, fine


def _whole_guide() -> str:
    """The plugin guide's pages (docs/plugin-guide/), joined."""
    return "\n".join(
        page.read_text(encoding="utf-8") for page in sorted((ROOT / "docs/plugin-guide").glob("*.md"))
    )


def _guide_block(start: str) -> str:
    """The guide's Python block that begins with ``start``, up to its ``zf.register`` line
    (the plugin's code without the usage that follows)."""
    guide = _whole_guide()
    # after the imports a guide page's first block starts with (``import zarrforge as zf``...)
    match = re.search(
        r"```python\n(?:import \w+ as \w+\n)*(" + re.escape(start) + r".*?)\nzf\.register\(", guide, re.S
    )
    assert match, f"no guide block starting with {start!r}"
    return match.group(1)


def test_the_plugin_guides_grid_and_encoding_examples_pass_the_suites(pytester):
    """The guide's EvenSplitGrid and ZOrderEncoding are complete plugins: the test classes
    its Testing section shows for them pass."""
    grid = _guide_block("from zarrforge.abc.chunk_grid import")
    encoding = _guide_block("from zarrforge.abc.chunk_key_encoding import")
    guide = _whole_guide()
    tests = re.search(
        r"```python\n(from zarrforge\.testing import ChunkGridConformance, "
        r"ChunkKeyEncodingConformance\n.*?)```",
        guide,
        re.S,
    )
    assert tests, "the guide's Testing section shows no grid and key encoding test classes"
    pytester.makepyfile(
        "import numpy as np\nimport zarrforge as zf\n"
        + grid
        + "\n"
        + encoding
        + "\n\nzf.register('chunk_grids', 'example.even-split', EvenSplitGrid)\n"
        "zf.register('chunk_key_encodings', 'example.zorder', ZOrderEncoding)\n\n" + tests.group(1)
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=8 * 4 + 2 + 9 + 1)


def test_grids_and_encodings_read_back_compare_equal():
    """ChunkGrid and ChunkKeyEncoding compare by value (type, to_json, dimension lengths), so
    the model of an array read back equals the one it was created with."""
    array = zf.create_array(
        None,
        shape=(10, 8),
        chunks=(3, 4),
        dtype="int32",
        chunk_key_encoding={"name": "v2", "configuration": {"separator": "/"}},
    )
    again = zf.open_array(array.store)
    assert again.metadata_model.chunk_grid == array.metadata_model.chunk_grid
    assert again.metadata_model.chunk_key_encoding == array.metadata_model.chunk_key_encoding
    assert again.metadata_model == array.metadata_model
    grid = array.metadata_model.chunk_grid
    assert grid.with_shape((11, 8)) != grid and grid.with_shape((10, 8)) == grid
    assert len({grid, grid.with_shape((10, 8))}) == 1
    other = zf.create_array(None, shape=(10, 8), chunks=(3, 4), dtype="int32")
    assert other.metadata_model.chunk_key_encoding != array.metadata_model.chunk_key_encoding
    assert np.asarray(again[...]).shape == (10, 8)


def test_an_irregular_grid_with_an_empty_dimension_makes_an_array():
    """Found by the grid suite on the guide's EvenSplitGrid: creating a v3 array asked a
    dimension without chunks for the size of its chunk 0 (an IndexError from the grid)."""
    from zarrforge.abc.chunk_grid import ChunkGrid, DimensionChunking

    class Halves(DimensionChunking):
        def __init__(self, length):
            self.length = length
            self.cuts = [0, (length + 1) // 2, length] if length else [0]

        @property
        def nchunks(self):
            return len(self.cuts) - 1

        def start(self, index):
            return self.cuts[index]

        def size(self, index):
            return self.cuts[index + 1] - self.cuts[index]  # IndexError without chunks

        def index_of(self, positions):
            return (np.asarray(positions, dtype=np.int64) >= self.cuts[1]).astype(np.int64)

    class HalvesGrid(ChunkGrid):
        name = "test.halves"

        def __init__(self, shape):
            self._dimensions = tuple(Halves(n) for n in shape)

        @classmethod
        def from_json(cls, name, configuration, shape):
            return cls(shape)

        def to_json(self):
            return {"name": self.name}

        @property
        def dimensions(self):
            return self._dimensions

        def with_shape(self, shape):
            return HalvesGrid(shape)

    zf.register("chunk_grids", "test.halves", HalvesGrid)
    try:
        array = zf.create_array(None, shape=(0, 5), dtype="int32", chunks={"name": "test.halves"})
        assert array.cdata_shape == (0, 2) and np.asarray(array[...]).shape == (0, 5)
        assert zf.open_array(array.store).shape == (0, 5)
    finally:
        zf.registry.chunk_grids.unregister("test.halves")
