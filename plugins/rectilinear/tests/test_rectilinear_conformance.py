"""The rectilinear grid against zarrforge.testing's chunk grid suite, as a third party runs it."""

from __future__ import annotations

from zarrforge.testing import ChunkGridConformance


def rectilinear(*chunk_shapes):
    return {"name": "rectilinear", "configuration": {"kind": "inline", "chunk_shapes": list(chunk_shapes)}}


class TestRectilinearChunkGrid(ChunkGridConformance):
    chunk_grid_cases = [
        # the specification's example: steps, explicit edges, runs, runs mixed with edges,
        # and edges overflowing the array by more than one chunk
        (rectilinear(4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]), (6, 6, 6, 6, 6)),
        (rectilinear([16, 10], [24, 14]), (26, 38)),
        (rectilinear([1, 1, 5, 2], 3), (9, 10)),  # a step that leaves an edge chunk
        (rectilinear([[2, 3], 7]), (10,)),  # the last edge holds 4 of its 7
        (rectilinear([5, 5]), (0,)),  # empty, with declared edges
        (rectilinear(3, [2, 2]), (7, 0)),
        (rectilinear(), ()),  # 0-d
        (rectilinear([[1, 10**9]]), (10**9,)),  # runs are never expanded
        (rectilinear([[3, 2], [1, 10**12]]), (10**12,)),
    ]
    invalid_chunk_grid_cases = [
        (rectilinear([1, 2]), (10,), "configuration.chunk_shapes[0]"),  # edges too short
        (rectilinear(0), (10,), "configuration.chunk_shapes[0]"),
        (rectilinear([1, 0]), (1,), "configuration.chunk_shapes[0][1]"),
        (rectilinear([[2, 0]]), (1,), "configuration.chunk_shapes[0][0]"),
        (rectilinear(2.5), (10,), "configuration.chunk_shapes[0]"),
        (rectilinear(3), (10, 8), "configuration.chunk_shapes"),  # too few entries
        (
            {"name": "rectilinear", "configuration": {"kind": "file", "chunk_shapes": [3]}},
            (4,),
            "configuration.kind",
        ),
        ({"name": "rectilinear", "configuration": {"chunk_shapes": [3]}}, (4,), "configuration.kind"),
        ({"name": "rectilinear", "configuration": {"kind": "inline"}}, (4,), "configuration.chunk_shapes"),
        ({"name": "rectilinear"}, (4,), "configuration"),
    ]
