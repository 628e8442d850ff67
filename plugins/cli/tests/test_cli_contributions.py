"""Subcommands contributed through the zarrforge.cli entry-point group (the one way to add a
command, zarrforge-cli's own included), by distributions that exist only for this test
(.dist-info directories put on PYTHONPATH): working, broken, clashing and shadowing ones,
and one still using the deprecated zarrforge_cli_commands hook."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

SCRIPT = pathlib.Path(sys.executable).with_name("zarrforge")
assert SCRIPT.exists(), f"the zarrforge command is not installed at {SCRIPT}"

MODULE = '''
import click

@click.command()
@click.argument("who", default="world")
def hello(who):
    """Say hello (a contributed command)."""
    click.echo(f"hello, {who}")

def make_group():
    group = click.Group("tools", help="A contributed command group.")

    @group.command()
    def ping():
        click.echo("pong")

    return group

not_a_command = 42
'''

HOOK_MODULE = '''
import click
import zarrforge

@click.command()
def greet():
    """Greet (contributed through the deprecated zarrforge_cli_commands hook)."""
    click.echo("greetings from a hook")

@zarrforge.hookimpl
def zarrforge_cli_commands():
    return [greet]
'''

ENTRY_POINTS = """
[zarrforge.plugins]
fakehooks = fakeplug_hooks

[zarrforge.cli]
hello = fakeplug_cli:hello
tools = fakeplug_cli:make_group
broken = fakeplug_missing_module:command
odd = fakeplug_cli:not_a_command
info = fakeplug_cli:hello
dup = fakeplug_cli:hello
"""

OTHER_MODULE = """
import click

@click.command()
def dup():
    click.echo("the other dup")
"""

# a second distribution, providing a name fakeplug provides too
OTHER_ENTRY_POINTS = """
[zarrforge.cli]
dup = otherplug_cli:dup
"""


def _distribution(site, name: str, version: str, entry_points: str) -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(entry_points)


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory) -> str:
    site = tmp_path_factory.mktemp("site")
    (site / "fakeplug_cli.py").write_text(textwrap.dedent(MODULE))
    (site / "fakeplug_hooks.py").write_text(textwrap.dedent(HOOK_MODULE))
    (site / "otherplug_cli.py").write_text(textwrap.dedent(OTHER_MODULE))
    _distribution(site, "fakeplug", "0.3", ENTRY_POINTS)
    _distribution(site, "otherplug", "1.0", OTHER_ENTRY_POINTS)
    return str(site)


def run(plugin_path: str, *args: str, warnings: str = "") -> subprocess.CompletedProcess:
    # the fake distributions first; the sources under test stay on the path behind them
    path = os.pathsep.join(p for p in (plugin_path, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "200", "PYTHONWARNINGS": warnings}
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=120)


def test_contributed_commands_are_listed_and_run(plugin_path):
    helped = run(plugin_path, "--help")
    assert helped.returncode == 0
    for name in ("hello", "tools", "broken", "odd", "dup", "zom", "greet", "info"):
        assert f"  {name} " in helped.stdout, name
    hello = run(plugin_path, "hello", "zarr")
    assert hello.returncode == 0 and hello.stdout == "hello, zarr\n"
    assert run(plugin_path, "tools", "ping").stdout == "pong\n"
    assert run(plugin_path, "hello", "--bogus").returncode == 2


def test_the_deprecated_hook_still_adds_commands_with_a_warning(plugin_path):
    """The zarrforge_cli_commands hook works for one more release, and says what replaces it."""
    result = run(plugin_path, "greet", warnings="always::DeprecationWarning")
    assert result.returncode == 0 and result.stdout == "greetings from a hook\n"
    assert "DeprecationWarning: fakeplug adds the command 'greet'" in result.stderr
    assert '[project.entry-points."zarrforge.cli"] greet = ' in result.stderr
    quiet = run(plugin_path, "greet")  # deprecation warnings are off by default
    assert quiet.returncode == 0 and "DeprecationWarning" not in quiet.stderr


def test_a_builtin_command_does_not_ask_the_hook_plugins(plugin_path, tmp_path):
    result = run(plugin_path, "info", str(tmp_path / "absent.zarr"), warnings="always::DeprecationWarning")
    assert result.returncode == 1 and "no array or group" in result.stderr
    assert "zarrforge_cli_commands hook is deprecated" not in result.stderr


def test_broken_contributions_fail_alone(plugin_path, tmp_path):
    broken = run(plugin_path, "broken", "anything", "--at-all")
    assert broken.returncode == 1
    assert "the command 'broken' cannot run: fakeplug failed to load it" in broken.stderr
    assert "PluginLoadError" in broken.stderr and "distribution 'fakeplug' 0.3" in broken.stderr
    assert "No module named 'fakeplug_missing_module'" in broken.stderr
    odd = run(plugin_path, "odd")
    assert odd.returncode == 1 and "not a click command" in odd.stderr
    # the rest still work, contributed and built-in
    assert run(plugin_path, "hello").stdout == "hello, world\n"
    assert run(plugin_path, "tree", str(tmp_path / "absent.zarr")).returncode == 1
    assert run(plugin_path, "zom", "--help").returncode == 0


def test_a_name_two_distributions_provide_refuses_to_run(plugin_path):
    clash = run(plugin_path, "dup")
    assert clash.returncode == 1 and clash.stdout == ""
    assert "the command 'dup' cannot run: several plugins provide it (fakeplug, otherplug)" in clash.stderr


def test_builtin_names_cannot_be_replaced(plugin_path, tmp_path):
    result = run(plugin_path, "info", str(tmp_path / "absent.zarr"))
    assert result.returncode == 1 and "no array or group" in result.stderr  # the real info


def test_plugins_reports_contributions(plugin_path):
    result = run(plugin_path, "plugins", "--json")
    assert result.returncode == 1  # contributions fail to load, clash, or are shadowed
    cli_rows = [r for r in json.loads(result.stdout) if r["point"] == "cli"]
    by_provider = {(r["name"], r["distribution"]): r for r in cli_rows}
    rows = {r["name"]: r for r in cli_rows if r["distribution"] != "zarrforge-cli"}
    assert rows["hello"]["status"] == "ok" and rows["hello"]["distribution"] == "fakeplug"
    assert rows["hello"]["version"] == "0.3" and rows["hello"]["value"] == "fakeplug_cli:hello"
    assert rows["tools"]["status"] == "ok"
    assert rows["broken"]["status"].startswith("error: PluginLoadError")
    assert "No module named 'fakeplug_missing_module'" in rows["broken"]["status"]
    assert rows["odd"]["status"].startswith("error: TypeError")
    assert rows["info"]["status"].startswith("shadowed: zarrforge-cli's own command")
    assert by_provider["info", "zarrforge-cli"]["status"] == "ok"
    for dist in ("fakeplug", "otherplug"):
        assert by_provider["dup", dist]["status"] == (
            "conflict: several plugins provide this name (fakeplug, otherplug)"
        ), dist
    assert rows["zom"]["status"] == "ok"
    assert rows["greet"]["status"].startswith("ok (deprecated: the zarrforge_cli_commands hook")
    assert rows["greet"]["value"] == "fakehooks (hook)"
    assert rows["greet"]["distribution"] == "fakeplug"
