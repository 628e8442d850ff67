"""The hook plugin suite (issue #42) passes the real hook plugins and catches broken ones.

A hook that raised, returned the wrong type or was slow passed every check before: the
engine leaves such a hook out with a warning, so the plugin simply did nothing in users'
hands. Each broken plugin below is run through ``HookConformance`` in a subprocess
(pytester); the suite must fail it where it is broken, and only there."""

from __future__ import annotations

import pytest

from zarrforge.testing import HookConformance


class TestFsspecResolveHook(HookConformance):
    from zarrforge_fsspec import resolve as plugin

    claimed_urls = ("fsspec+memory://kit/data.zarr", "simplecache::memory://kit/data.zarr")

    def adapted_objects(self):
        import fsspec

        return [fsspec.get_mapper("memory://kit-adapted")]


class TestStdMappingHook(HookConformance):
    from zarrforge_std import hooks as plugin

    def adapted_objects(self):
        import collections

        return [{}, collections.UserDict()]


class TestZarrPythonAdaptHook(HookConformance):
    from zarrforge_zarr_python import hooks as plugin

    def adapted_objects(self):
        import zarr.storage

        return [zarr.storage.MemoryStore()]


class TestExampleNodeOpenedHook(HookConformance):
    from zf_example import hooks as plugin


MODULE = """
import time
from zarrforge.plugin_api import hookimpl
from zarrforge.testing import HookConformance
from zarrforge_std.stores.memory import MemoryStore


class Plugin:
{definition}


class TestBroken(HookConformance):
    plugin = Plugin()
    claimed_urls = ("kitmine://x",)
"""

BROKEN = {
    "raises on a foreign URL": (
        """
    @hookimpl
    def zarrforge_resolve_store(self, url, options, read_only):
        if url.startswith("kitmine://"):
            return MemoryStore()
        raise KeyError(url)
""",
        {"test_store_hooks_decline_what_is_not_theirs_quickly_and_cleanly"},
        "raised KeyError",
    ),
    "answers with a string": (
        """
    @hookimpl
    def zarrforge_resolve_store(self, url, options, read_only):
        return "memory://" if url.startswith("kitmine://") else None
""",
        {"test_store_hooks_answer_what_is_theirs_with_a_store"},
        "answered 'kitmine://x' with str",
    ),
    "claims every URL": (
        """
    @hookimpl
    def zarrforge_resolve_store(self, url, options, read_only):
        return MemoryStore()
""",
        {"test_store_hooks_decline_what_is_not_theirs_quickly_and_cleanly"},
        "claimed",
    ),
    "slow": (
        """
    @hookimpl
    def zarrforge_resolve_store(self, url, options, read_only):
        time.sleep(0.7)
        return MemoryStore() if url.startswith("kitmine://") else None
""",
        {
            "test_store_hooks_decline_what_is_not_theirs_quickly_and_cleanly",
            "test_store_hooks_answer_what_is_theirs_with_a_store",
        },
        "more than max_call_seconds",
    ),
    "writes when a node opens": (
        """
    @hookimpl
    def zarrforge_node_opened(self, node):
        node.attrs["seen"] = True
""",
        {"test_node_opened_returns_nothing_writes_nothing_and_is_quick"},
        "wrote to the store",
    ),
    "returns a value when a node opens": (
        """
    @hookimpl
    def zarrforge_node_opened(self, node):
        return node.path
""",
        {"test_node_opened_returns_nothing_writes_nothing_and_is_quick"},
        "returned ''",
    ),
    "a misspelled hook": (
        """
    @hookimpl(optionalhook=True)
    def zarrforge_node_openned(self, node):
        return None
""",
        {"test_every_hook_implemented_is_declared"},
        "which no hook specification declares",
    ),
}


def _failed(result) -> set[str]:
    return {
        line.split("::", 2)[2].split(" - ")[0]
        for line in result.stdout.str().splitlines()
        if line.startswith("FAILED")
    }


@pytest.mark.parametrize("defect", sorted(BROKEN))
def test_the_hook_suite_catches_each_broken_hook(pytester, defect):
    definition, expected, message = BROKEN[defect]
    pytester.makepyfile(MODULE.format(definition=definition))
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", "-rf")
    assert _failed(result) == expected, (
        f"{defect}: failed {sorted(_failed(result))}, expected {sorted(expected)}\n"
        + result.stdout.str()[-3000:]
    )
    assert message in result.stdout.str(), result.stdout.str()[-3000:]
