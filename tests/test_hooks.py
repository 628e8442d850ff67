"""The pluggy hooks: node opened, and store resolution."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

import zarrforge as zf
from zarrforge import hookspecs
from zarrforge.errors import MetadataError, PluginFailureWarning
from zarrforge_std.stores.memory import MemoryStore

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "plugin-guide" / "hooks.md"


class Recorder:
    def __init__(self):
        self.opened = []
        self.offered = []
        self.store = MemoryStore()

    @zf.hookimpl
    def zarrforge_node_opened(self, node):
        self.opened.append((type(node).__name__, node.path))

    @zf.hookimpl
    def zarrforge_resolve_store(self, url, options, read_only):
        self.offered.append(url)
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


def test_a_plain_local_path_goes_to_the_file_store_without_asking_the_hook(tmp_path, monkeypatch):
    recorder = Recorder()
    monkeypatch.chdir(tmp_path)
    zf.hooks.register(recorder)
    try:
        zf.create_group(str(tmp_path / "abs.zarr"))
        zf.create_group("relative.zarr")
        zf.create_group("memory://offered")
    finally:
        zf.hooks.unregister(recorder)
    assert recorder.offered == ["memory://offered"]
    assert (tmp_path / "abs.zarr" / "zarr.json").is_file()
    assert (tmp_path / "relative.zarr" / "zarr.json").is_file()


def test_hook_plugins_install_through_the_entry_point_group(fake_distribution):
    from zarrforge import hooks

    fake_distribution(
        "zf-hookplug",
        {"zarrforge.plugins": {"hookplug": "hookplug_mod"}},
        {
            "hookplug_mod": """
import zarrforge
seen = []
@zarrforge.hookimpl
def zarrforge_node_opened(node):
    seen.append(node.path)
"""
        },
    )
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

    fake_distribution(
        "zf-brokenhook",
        {"zarrforge.plugins": {"brokenhook": "brokenhook_missing_module", "goodhook": "goodhook_mod"}},
        {
            "goodhook_mod": """
import zarrforge
seen = []
@zarrforge.hookimpl
def zarrforge_node_opened(node):
    seen.append(node.path)
"""
        },
    )
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


def test_a_misspelled_hook_implementation_is_left_out_naming_the_distribution(fake_distribution):
    """Before: the plugin registered silently and its hook was never called."""
    from zarrforge import hooks

    fake_distribution(
        "zf-typohook",
        {"zarrforge.plugins": {"typohook": "typohook_mod"}},
        {
            "typohook_mod": """
import zarrforge
@zarrforge.hookimpl
def zarrforge_node_opend(node):
    pass
"""
        },
    )
    saved = hooks._manager
    hooks._manager = None
    try:
        with pytest.warns(
            zf.errors.PluginLoadWarning,
            match="zf-typohook.*'zarrforge_node_opend' \\(did you mean 'zarrforge_node_opened'\\?\\)",
        ):
            zf.create_group(None, "z")
        rows = {r.name: r for r in zf.plugins() if r.point == "hooks"}
        assert rows["typohook"].status.startswith("error: hook plugin 'typohook'")
        assert "no hook specification declares" in rows["typohook"].status
        assert hooks.plugin_manager().get_plugin("typohook") is None
    finally:
        hooks._manager = saved


def test_registering_a_misspelled_hook_in_process_is_an_error():
    class Typo:
        @zf.hookimpl
        def zarrforge_resolve_stor(self, url, options, read_only):
            return None

    plugin = Typo()
    with pytest.raises(zf.errors.PluginLoadError, match="did you mean 'zarrforge_resolve_store'"):
        zf.hooks.register(plugin)
    assert not zf.hooks.plugin_manager().is_registered(plugin)


def test_an_optional_hook_may_name_a_hook_nobody_declares():
    class Optional:
        @zf.hookimpl(optionalhook=True)
        def zarrforge_some_future_hook(self):
            return None

    plugin = Optional()
    zf.hooks.register(plugin)
    try:
        assert zf.hooks.plugin_manager().is_registered(plugin)
    finally:
        zf.hooks.unregister(plugin)


def test_hook_specifications_from_entry_points_are_added_before_the_plugins(fake_distribution):
    """A plugin may implement a hook another distribution declares (as the command line
    declares its deprecated zarrforge_cli_commands) whichever is loaded first."""
    from zarrforge import hooks

    fake_distribution(
        "zf-hosthooks",
        {
            "zarrforge.hookspecs": {"host": "hosthooks_specs"},
            "zarrforge.plugins": {"guest": "hosthooks_guest"},
        },
        {
            "hosthooks_specs": """
import pluggy
hookspec = pluggy.HookspecMarker("zarrforge")
@hookspec
def zarrforge_host_event(value):
    '''Called by the host.'''
""",
            "hosthooks_guest": """
import zarrforge
@zarrforge.hookimpl
def zarrforge_host_event(value):
    return value * 2
""",
        },
    )
    saved = hooks._manager
    hooks._manager = None
    try:
        assert hooks.hook().zarrforge_host_event(value=21) == [42]
        rows = {r.name: r for r in zf.plugins() if r.point == "hooks"}
        assert rows["guest"].status == "ok"
    finally:
        hooks._manager = saved


class RaisesOnOpen:
    def __init__(self, error):
        self.error = error

    @zf.hookimpl
    def zarrforge_node_opened(self, node):
        raise self.error


def test_a_zarrforge_error_raised_in_node_opened_reaches_the_caller_who_gets_no_node():
    store = zf.create_group(None).store
    plugin = RaisesOnOpen(MetadataError("this node is refused by policy", field="attributes"))
    zf.hooks.register(plugin, name=f"refuses-{uuid.uuid4().hex[:8]}")
    try:
        with pytest.raises(MetadataError, match="refused by policy"):
            zf.open_group(store, mode="r")
    finally:
        zf.hooks.unregister(plugin)


def test_another_exception_in_node_opened_is_a_warning_and_the_node_is_returned():
    store = zf.create_group(None, attributes={"k": 1}).store
    name = f"buggy-{uuid.uuid4().hex[:8]}"  # one warning per plugin per process
    plugin, recorder = RaisesOnOpen(RuntimeError("a bug in the hook")), Recorder()
    zf.hooks.register(plugin, name=name)
    zf.hooks.register(recorder)
    try:
        with pytest.warns(PluginFailureWarning, match=f"{name}.*a bug in the hook"):
            group = zf.open_group(store, mode="r")
    finally:
        zf.hooks.unregister(plugin)
        zf.hooks.unregister(recorder)
    assert group.attrs["k"] == 1
    assert recorder.opened == [("Group", "")]  # the other implementations still ran


def test_the_texts_on_node_opened_state_the_isolation_rule():
    section = GUIDE.read_text(encoding="utf-8").split("* **`zarrforge_node_opened(node)`**", 1)[1]
    bullet = section.split("\n\n", 1)[0].split("\n* ", 1)[0]
    for text in (" ".join(bullet.split()), " ".join(hookspecs.zarrforge_node_opened.__doc__.split())):
        # both halves: a zarrforge error propagates, anything else warns and the node is
        # returned (the texts once said every exception reached the caller)
        assert "zarrforge error" in text and "PluginFailureWarning" in text, text
        assert "the node is returned" in text, text
