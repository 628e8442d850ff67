"""What a member listing keeps in memory (issue "Performance, round two", W6L).

A listing of 10,000 members used to keep each member's parsed ``zarr.json``: a tree of
dicts and lists per member that every full garbage collection walked, so the cost per
member grew with the size of the group (23 us a member at 300, 41 us at 10,000). A listed
array now keeps its document's bytes and the members the listing needs
(:class:`~zarrforge.metadata.document.ListedContent`); the rest is parsed on first use.
"""

from __future__ import annotations

import gc

import pytest

import zarrforge as zf
from zarrforge.errors import MetadataError
from zarrforge.metadata.document import ListedContent


def test_kept_members_are_answered_without_parsing_the_stored_bytes():
    # The bytes are not JSON: any member that needs them fails, so the kept ones provably
    # did not parse them.
    content = ListedContent(
        b"{not json",
        {"node_type": "array", "attributes": {"a": 1}},
        key="x/zarr.json",
        kept=("node_type", "attributes", "zarr_format"),
    )
    assert content["node_type"] == "array"
    assert content.get("attributes") == {"a": 1}
    assert content.get("zarr_format", "absent") == "absent"  # kept, and absent from the document
    with pytest.raises(KeyError):
        content["zarr_format"]
    with pytest.raises(MetadataError, match="x/zarr.json.*not valid JSON|not valid JSON"):
        content["shape"]


def test_the_other_members_are_parsed_once_from_the_stored_bytes():
    data = b'{"node_type": "array", "shape": [4], "attributes": {}}'
    content = ListedContent(data, {"node_type": "array"}, key="k", kept=("node_type",))
    assert content["shape"] == [4]
    assert dict(content) == {"node_type": "array", "shape": [4], "attributes": {}}
    assert len(content) == 3 and "shape" in content and "codecs" not in content


def _tracked_objects() -> int:
    gc.collect()
    return len(gc.get_objects())


def test_a_listing_keeps_a_few_objects_per_member_not_its_parsed_document(tmp_path):
    group = zf.create_group(str(tmp_path / "g"))
    count = 200
    for i in range(count):
        group.create_array(
            f"m{i:03d}",
            shape=(10,),
            dtype="int32",
            attributes={"index": i, "label": f"member {i}", "scale": [0.25]},
        )
    opened = zf.open_group(str(tmp_path / "g"), mode="r")
    before = _tracked_objects()
    members = opened.members()
    per_member = (_tracked_objects() - before) / count
    # Objects the collector tracks, per member: the node, its (name, node) pair, its
    # document, the document's content and kept members, and the attributes (a dict and
    # a list): 7. Keeping the parsed zarr.json made it 16.
    assert per_member <= 7.5, per_member
    assert [m.attrs["index"] for _, m in members] == list(range(count))
    first = members[0][1]
    assert first.shape == (10,) and first.chunks == (10,) and first[...].tolist() == [0] * 10
    assert first.attrs.asdict() == {"index": 0, "label": "member 0", "scale": [0.25]}
