"""``zarrforge.versions.one_version``: the decision every store that reads ranges with a
request each (S3, HTTP, obstore) makes about the versions its answers name."""

from __future__ import annotations

import pytest

from zarrforge.abc.store import ABSENT
from zarrforge.errors import ConflictError
from zarrforge.versions import one_version, still_changing


def test_answers_of_one_version_are_kept_with_it() -> None:
    assert one_version([(b"ab", "v1"), (b"cd", "v1")], None, key="k") == ([b"ab", b"cd"], "v1")


def test_an_answer_naming_no_version_agrees_with_any() -> None:
    # a range past the end names none
    assert one_version([(b"ab", "v1"), (b"", None)], None, key="k") == ([b"ab", b""], "v1")
    assert one_version([(b"ab", None)], None, key="k") == ([b"ab"], None)


def test_mixed_versions_or_presence_are_read_again() -> None:
    assert one_version([(b"ab", "v1"), (b"cd", "v2")], None, key="k") is None
    assert one_version([(b"ab", "v1"), (None, ABSENT)], None, key="k") is None


def test_a_missing_value_is_absent_unless_a_version_was_asked_for() -> None:
    assert one_version([(None, ABSENT), (None, ABSENT)], None, key="k") == (None, ABSENT)
    with pytest.raises(ConflictError, match="deleted") as info:
        one_version([(None, ABSENT)], "v1", key="k", url="s3://b/k")
    assert info.value.key == "k" and info.value.url == "s3://b/k"


def test_a_version_asked_for_must_be_the_one_answered() -> None:
    assert one_version([(b"ab", "v1")], "v1", key="k") == ([b"ab"], "v1")
    with pytest.raises(ConflictError, match="changed"):
        one_version([(b"ab", "v2")], "v1", key="k")
    with pytest.raises(ConflictError, match="exists"):
        one_version([(b"ab", "v2")], ABSENT, key="k")
    assert one_version([(None, ABSENT)], ABSENT, key="k") == (None, ABSENT)


def test_the_error_after_the_last_try_names_the_key() -> None:
    error = still_changing("a/c/0", 3, "s3://b/a/c/0")
    assert isinstance(error, ConflictError) and error.key == "a/c/0"
    assert "kept changing while 3 ranges" in str(error)
