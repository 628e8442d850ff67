"""``zarrforge.storing.versions.one_version``: the decision every store that reads ranges with a
request each (S3, HTTP, obstore) makes about the versions its answers name: answers of
one version are kept with it; two versions, a missing value beside a present one, an
answer naming no version beside one that does, and an empty answer for a range past the
end of a value where the named version has bytes are mixed, and read again."""

from __future__ import annotations

import pytest

from zarrforge.abc.store import ABSENT
from zarrforge.errors import ConflictError
from zarrforge.storing.versions import PastEnd, names_a_version, one_version, still_changing


def test_answers_of_one_version_are_kept_with_it() -> None:
    assert one_version([(b"ab", "v1"), (b"cd", "v1")], None, key="k") == ([b"ab", b"cd"], "v1")


def test_answers_naming_no_version_at_all_come_back_without_one() -> None:
    # the store decides what that means (HTTP: a server naming none is read whole)
    assert one_version([(b"ab", None)], None, key="k") == ([b"ab"], None)
    assert one_version([(b"ab", None), (b"cd", None)], None, key="k") == ([b"ab", b"cd"], None)


def test_an_answer_naming_no_version_beside_one_that_does_is_read_again() -> None:
    # it may be another version's: the spurious CorruptChunkError of issue #41 combined the
    # empty, unversioned answer of a newer, shorter shard with the older shard's index
    assert one_version([(b"ab", "v1"), (b"", None)], None, key="k") is None
    assert one_version([(b"", None), (b"ab", "v1")], None, key="k") is None


def test_a_range_past_the_end_agrees_only_with_a_version_that_ends_before_it() -> None:
    # bytes 300.. of a 256-byte version are empty: that answer is of it
    answers = [(b"ab", "v1"), (b"", PastEnd(300))]
    assert one_version(answers, None, key="k", sizes={"v1": 256}) == ([b"ab", b""], "v1")
    assert one_version(answers, None, key="k", sizes={"v1": 300}) == ([b"ab", b""], "v1")
    # but v1 has bytes there: the empty answer came from another (shorter) version
    assert one_version(answers, None, key="k", sizes={"v1": 644}) is None
    # and without v1's size nothing vouches for it
    assert one_version(answers, None, key="k") is None
    assert one_version(answers, "v1", key="k", sizes={"v1": 644}) is None


def test_answers_all_past_the_end_come_back_for_the_store_to_name_the_version() -> None:
    assert one_version([(b"", PastEnd(5)), (b"", PastEnd(9))], None, key="k") == ([b"", b""], None)
    # with the store's look-up added (an empty answer naming the version and its size)
    assert one_version([(b"", PastEnd(5)), (b"", "v1")], "v1", key="k", sizes={"v1": 4}) == ([b"", b""], "v1")
    assert one_version([(b"", PastEnd(5)), (b"", "v2")], None, key="k", sizes={"v2": 9}) is None
    assert names_a_version("v1") and not names_a_version(PastEnd(0))
    assert not names_a_version(None) and not names_a_version(ABSENT)


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
