"""zarrforge-rectilinear: the ``rectilinear`` chunk grid (variable chunk edges per dimension).

* :mod:`zarrforge_rectilinear.grid`: :class:`RectilinearChunkGrid`, the grid
  (metadata validation, round trip, resize rules);
* :mod:`zarrforge_rectilinear.partition`: :class:`RunPartition`, one
  dimension's chunking (vectorised position -> chunk lookup);
* :mod:`zarrforge_rectilinear.edges`: parsing and compact encoding of one
  dimension's edge lengths (integers and run-length pairs).

The grid is installed under the entry point ``rectilinear`` of the
``zarrforge.chunk_grids`` group; importing this package is only needed to
use the helpers directly.
"""

from .edges import DimensionEdges, compact, parse_edges
from .grid import RectilinearChunkGrid
from .partition import RunPartition

__all__ = ["DimensionEdges", "RectilinearChunkGrid", "RunPartition", "compact", "parse_edges"]
