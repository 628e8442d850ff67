"""Group.tree as zarr-python draws it (zarrforge.user_api.tree_view): levels, truncation, bold names
in a terminal and in Jupyter, escaping."""

from __future__ import annotations

import sys

import pytest

import zarrforge as zf


@pytest.fixture
def root():
    group = zf.group()
    a = group.create_group("a")
    a.create_array("x", shape=(2,), dtype="f8")
    a.create_group("deeper").create_array("y", shape=(0,), dtype="i1")
    group.create_group("b")
    return group


def test_the_repr_is_the_drawing_and_str_ends_with_it(root):
    drawn = root.tree(plain=True)
    expected = "/\n├── a\n│   ├── deeper\n│   │   └── y (0,) int8\n│   └── x (2,) float64\n└── b\n"
    assert repr(drawn) == expected and str(drawn) == expected[:-1]


def test_level_zero_is_the_direct_members(root):
    assert repr(root.tree(level=0, plain=True)) == "/\n├── a\n└── b\n"
    assert repr(root.tree(level=1, plain=True)).count("\n") == 5


def test_max_nodes_truncates_and_says_so(root):
    drawn = repr(root.tree(max_nodes=2, plain=True))
    assert drawn.startswith("Truncated at max_nodes=2")
    assert sum("──" in line for line in drawn.splitlines()) == 2
    assert "Truncated" not in repr(root.tree(plain=True))


def test_names_are_bold_in_a_terminal_unless_plain(root, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert "\x1b[1ma\x1b[0m" in repr(root.tree())
    assert "\x1b[" not in repr(root.tree(plain=True))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert "\x1b[" not in repr(root.tree())


def test_jupyter_gets_escaped_html_with_bold_names():
    group = zf.group()
    group.create_group("<img src=x>")
    bundle = group.tree()._repr_mimebundle_()
    assert "<pre" in bundle["text/html"] and "<b>&lt;img src=x&gt;</b>" in bundle["text/html"]
    assert "<img src=x>" in bundle["text/plain"]


def test_bad_arguments_are_refused(root):
    with pytest.raises(NotImplementedError, match="expand"):
        root.tree(expand=True)
    with pytest.raises(ValueError, match="level must be None or an int >= 0"):
        root.tree(level=-1)


def _broken(root):
    """Below ``root``: an array whose codec no plugin provides (opened deferred, it fails
    when its data type is resolved), a group whose document is not JSON, and a healthy
    array after them."""
    import json

    root.create_array("bad_codec", shape=(3,), dtype="i2", compressors=None)
    document = json.loads(root.store.get("bad_codec/zarr.json"))
    document["data_type"] = "no_such_type"
    root.store.set("bad_codec/zarr.json", json.dumps(document).encode())
    root.create_group("c_damaged")
    root.store.set("c_damaged/zarr.json", b"{not json")
    root.create_array("d_fine", shape=(1,), dtype="u1")
    return root


def test_a_member_that_cannot_be_opened_is_listed_with_a_one_line_reason():
    root = _broken(zf.group())
    lines = repr(root.tree(plain=True)).splitlines()
    assert lines[0] == "/"
    assert lines[1].startswith("├── bad_codec (cannot be opened: UnknownExtensionError: ")
    assert "unknown data type 'no_such_type'" in lines[1]
    assert lines[2].startswith("├── c_damaged (cannot be opened: MetadataError: ")
    assert lines[3] == "└── d_fine (1,) uint8"
    assert all(len(line) < 200 for line in lines)


def test_the_html_repr_lists_a_member_that_cannot_be_opened():
    root = _broken(zf.group())
    html_text = root._repr_html_()
    assert "<li>bad_codec <i>(cannot be opened: UnknownExtensionError: " in html_text
    assert "<li>c_damaged <i>(cannot be opened: MetadataError: " in html_text
    assert "<li>d_fine <code>(1,) uint8, 1 B</code></li>" in html_text
    with pytest.raises(zf.errors.UnknownExtensionError):  # opening it still says why, in full
        root["bad_codec"].dtype
