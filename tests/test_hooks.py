"""The pluggy hooks: node opened, and store resolution."""

from __future__ import annotations

import pytest

import zarrforge as zf
from zarrforge_std.stores.memory import MemoryStore


class Recorder:
    def __init__(self):
        self.opened = []
        self.store = MemoryStore()

    @zf.hookimpl
    def zarrforge_node_opened(self, node):
        self.opened.append((type(node).__name__, node.path))

    @zf.hookimpl
    def zarrforge_resolve_store(self, url, options, read_only):
        return self.store if url.startswith("test-scheme://") else None


def test_node_opened_is_called_for_created_and_opened_nodes():
    recorder = Recorder()
    zf.hooks.register(recorder)
    try:
        g = zf.create_group(None)
        g.create_array("a", shape=(1,), dtype="int8")
        g["a"]
        zf.open_group(g.store, mode="r")
    finally:
        zf.hooks.unregister(recorder)
    assert recorder.opened == [("Group", ""), ("Array", "a"), ("Array", "a"), ("Group", "")]


def test_store_resolver_hook_claims_urls_before_the_scheme_registry():
    recorder = Recorder()
    zf.hooks.register(recorder)
    try:
        zf.create_array("test-scheme://anything", shape=(2,), dtype="int8", compressors=None)[:] = 9
    finally:
        zf.hooks.unregister(recorder)
    assert zf.open_array(recorder.store)[:].tolist() == [9, 9]


def test_hook_plugins_install_through_the_entry_point_group(fake_distribution):
    from zarrforge import hooks
    fake_distribution("zf-hookplug", {"zarrforge.plugins": {"hookplug": "hookplug_mod"}},
                      {"hookplug_mod": """
import zarrforge
seen = []
@zarrforge.hookimpl
def zarrforge_node_opened(node):
    seen.append(node.path)
"""})
    saved = hooks._manager
    hooks._manager = None  # a fresh manager reads the entry points again
    try:
        zf.create_group(None, "x")
        import hookplug_mod
        assert hookplug_mod.seen == ["x"]
    finally:
        hooks._manager = saved


def test_a_broken_hook_plugin_is_left_out_with_a_warning_and_an_error_row(fake_distribution):
    from zarrforge import hooks
    fake_distribution("zf-brokenhook", {"zarrforge.plugins": {
        "brokenhook": "brokenhook_missing_module", "goodhook": "goodhook_mod"}},
        {"goodhook_mod": """
import zarrforge
seen = []
@zarrforge.hookimpl
def zarrforge_node_opened(node):
    seen.append(node.path)
"""})
    saved = hooks._manager
    hooks._manager = None
    try:
        with pytest.warns(zf.errors.PluginLoadWarning, match="zf-brokenhook.*brokenhook_missing_module"):
            zf.create_group(None, "y")  # works: only the broken plugin is left out
        import goodhook_mod
        assert goodhook_mod.seen == ["y"]
        rows = {r.name: r for r in zf.plugins() if r.point == "hooks"}
        assert rows["goodhook"].status == "ok" and rows["goodhook"].distribution == "zf-brokenhook"
        assert rows["brokenhook"].status.startswith("error: hook plugin 'brokenhook'")
        assert "No module named 'brokenhook_missing_module'" in rows["brokenhook"].status
    finally:
        hooks._manager = saved
