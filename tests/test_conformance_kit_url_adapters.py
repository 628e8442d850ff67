"""The URL adapter suite catches broken adapters, naming the pipeline and the property
(issue #21), and passes the built-ins (plugins/std/tests/test_conformance.py, and the
zip: adapter in plugins/fsspec/tests/test_conformance.py).

Each broken adapter is registered in-process in a test module with one suite subclass
per adapter; the module runs in a subprocess (pytester), and the suite must fail each
adapter where it is broken, and only there."""

from __future__ import annotations

BROKEN_ADAPTERS = '''
import dataclasses

from zarrforge import register
from zarrforge.abc.url_adapter import FormatSegment, PipelineState, URLAdapter, join_path
from zarrforge.testing import PipelineCase, URLAdapterConformance
from zarrforge_std.stores.memory import MemoryStore


class Misnamed(FormatSegment):
    """Registered as "misnamed", but calls itself "zarr3"."""
    name = "zarr3"
    format_name = "3"


class CountsLevels(URLAdapter):
    """levels:N - lets int() fail with a bare ValueError on any other body."""
    name = "levels"

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        segment.not_first("memory:|levels:2")
        depth = int(segment.body)
        return dataclasses.replace(base, path=join_path(base.path, "/".join(["l"] * depth)))


class RootAnywhere(URLAdapter):
    """scratch:NAME - a root store that never checks it is the first segment."""
    name = "scratch"

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        return PipelineState(MemoryStore.from_url(f"memory://scratch-{segment.body}",
                                                  read_only=read_only))


class IgnoresReadOnly(URLAdapter):
    """copy: - hands back a writable store even when asked for a read-only one."""
    name = "copy"
    stores = {}

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        segment.not_first("memory:|copy:")
        store = cls.stores.setdefault(id(base.store), MemoryStore())
        return dataclasses.replace(base, store=store)


class DropsBasePath(FormatSegment):
    """here:path - forgets the path the segments before it chose."""
    name = "here"

    @classmethod
    def resolve(cls, base, segment, *, read_only, storage_options):
        segment.not_first("memory:|here:a")
        return dataclasses.replace(base, path=segment.path())


for name, cls in [("misnamed", Misnamed), ("levels", CountsLevels), ("scratch", RootAnywhere),
                  ("copy", IgnoresReadOnly), ("here", DropsBasePath)]:
    register("url_adapters", name, cls)


class Quick:
    max_examples = 30
    shrink = False


class TestMisnamed(Quick, URLAdapterConformance):
    scheme = "misnamed"
    invalid_bodies = ["a//b"]

    def pipelines(self, tmp_path):
        return [PipelineCase(f"memory:misnamed-{tmp_path.name}|misnamed:g")]


class TestCountsLevels(Quick, URLAdapterConformance):
    scheme = "levels"
    invalid_bodies = ["two"]

    def pipelines(self, tmp_path):
        return [PipelineCase(f"memory:levels-{tmp_path.name}|levels:2")]


class TestRootAnywhere(Quick, URLAdapterConformance):
    scheme = "scratch"
    place = "root"
    invalid_bodies = []

    def pipelines(self, tmp_path):
        return [PipelineCase(f"scratch:{tmp_path.name}|zarr:")]

    def _pipeline(self, body):  # generated bodies: names it can take
        return super()._pipeline(body.replace("/", "_"))


class TestIgnoresReadOnly(Quick, URLAdapterConformance):
    scheme = "copy"
    invalid_bodies = []

    def pipelines(self, tmp_path):
        return [PipelineCase(f"memory:copy-{tmp_path.name}|copy:")]


class TestDropsBasePath(Quick, URLAdapterConformance):
    scheme = "here"
    invalid_bodies = ["a//b"]

    def pipelines(self, tmp_path):
        return [PipelineCase(f"memory:here-{tmp_path.name}|here:g")]
'''

EXPECTED = {
    "TestMisnamed::test_scheme_resolves_to_the_registered_adapter",
    "TestCountsLevels::test_invalid_bodies_are_refused_naming_the_segment",
    "TestCountsLevels::test_generated_bodies_resolve_or_raise_a_zarrforge_error",
    "TestRootAnywhere::test_out_of_place_it_is_refused_naming_the_segment",
    "TestIgnoresReadOnly::test_cases_resolve_to_a_state_read_only_when_asked",
    "TestIgnoresReadOnly::test_a_real_array_round_trips_through_each_case",
    "TestDropsBasePath::test_an_after_adapter_keeps_the_base_path",
}
# the two adapters without invalid bodies are told to list some: that is a failure of
# the subclass, reported as such, not of the adapter
TOLD_TO_LIST = {
    "TestRootAnywhere::test_invalid_bodies_are_refused_naming_the_segment",
    "TestIgnoresReadOnly::test_invalid_bodies_are_refused_naming_the_segment",
}


def _failed(result) -> set[str]:
    return {
        line.split("::", 1)[1].split(" - ")[0]
        for line in result.stdout.str().splitlines()
        if line.startswith("FAILED")
    }


def test_the_url_adapter_suite_catches_each_broken_adapter(pytester):
    pytester.makepyfile(BROKEN_ADAPTERS)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    failed = _failed(result)
    assert EXPECTED <= failed, f"not caught: {sorted(EXPECTED - failed)}"
    assert failed - EXPECTED == TOLD_TO_LIST, f"failed where not broken: {sorted(failed - EXPECTED)}"
    text = result.stdout.str()
    assert "the adapter's name is 'zarr3'; it must be the scheme it is registered under" in text
    assert "'memory:|levels:two'" in text and "raised ValueError" in text
    assert "'scratch:' after another segment was accepted" in text
    assert (
        "resolved with read_only=True, its store is writable" in text
        or "an adapter ignored read_only=True" in text
    )
    assert "which lost 'outer'" in text
    assert "set invalid_bodies" in text
