"""zarrforge-zom: ZEP 6 Zarr Object Models for zarrforge.

A Zarr Object Model (ZOM) describes the *structure* of a hierarchy: every
node's metadata and the tree of members, without the data::

    import zarrforge_zom as zom

    spec = zom.GroupSpec.from_zarr("data.zarr")      # model an existing hierarchy
    print(spec.to_json_string())                      # the ZEP 6 JSON
    spec.to_zarr("memory://copy")                     # create the same structure elsewhere
    for difference in spec.validate("other.zarr"):    # compare a hierarchy to the model
        print(difference)

See ``docs/zom.md`` in the zarrforge repository for the full guide.
"""

from .diff import Difference, diff
from .errors import SchemaValidationError, SpecError, UnsupportedFormatError, ZomError
from .hierarchy import plan, to_zarr
from .models import (
    ArraySpec,
    ArraySpecV2,
    ArraySpecV3,
    GroupSpec,
    GroupSpecV2,
    GroupSpecV3,
    Node,
    from_json,
    from_zarr,
    from_zom_properties,
    to_zom_properties,
)
from .schema import ERRATA, SchemaIssue, json_schema, schema_issues, validate_json

__all__ = [
    "ArraySpec",
    "ArraySpecV2",
    "ArraySpecV3",
    "Difference",
    "ERRATA",
    "GroupSpec",
    "GroupSpecV2",
    "GroupSpecV3",
    "Node",
    "SchemaIssue",
    "SchemaValidationError",
    "SpecError",
    "UnsupportedFormatError",
    "ZomError",
    "diff",
    "from_json",
    "from_zarr",
    "from_zom_properties",
    "json_schema",
    "plan",
    "schema_issues",
    "to_zarr",
    "to_zom_properties",
    "validate_json",
]

from zarrforge import __version__ as __version__  # released together, one version
