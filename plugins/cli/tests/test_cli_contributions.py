"""Subcommands contributed through the zarrforge.cli entry-point group, by a distribution
that exists only for this test (a .dist-info directory put on PYTHONPATH)."""

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
    """Greet (contributed through the zarrforge_cli_commands hook)."""
    click.echo("greetings from a hook")

@zarrforge.hookimpl
def zarrforge_cli_commands():
    return [greet]
'''

ENTRY_POINTS = '''
[zarrforge.plugins]
fakehooks = fakeplug_hooks

[zarrforge.cli]
hello = fakeplug_cli:hello
tools = fakeplug_cli:make_group
broken = fakeplug_missing_module:command
odd = fakeplug_cli:not_a_command
info = fakeplug_cli:hello
'''


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory) -> str:
    site = tmp_path_factory.mktemp("site")
    (site / "fakeplug_cli.py").write_text(textwrap.dedent(MODULE))
    (site / "fakeplug_hooks.py").write_text(textwrap.dedent(HOOK_MODULE))
    info = site / "fakeplug-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    return str(site)


def run(plugin_path: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": plugin_path, "COLUMNS": "200"}
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_contributed_commands_are_listed_and_run(plugin_path):
    helped = run(plugin_path, "--help")
    assert helped.returncode == 0
    for name in ("hello", "tools", "broken", "odd", "zom", "greet"):
        assert f"  {name} " in helped.stdout, name
    hello = run(plugin_path, "hello", "zarr")
    assert hello.returncode == 0 and hello.stdout == "hello, zarr\n"
    assert run(plugin_path, "tools", "ping").stdout == "pong\n"
    assert run(plugin_path, "hello", "--bogus").returncode == 2


def test_hook_plugins_contribute_commands(plugin_path):
    """The zarrforge_cli_commands hook (declared by the CLI plugin, not by core)."""
    result = run(plugin_path, "greet")
    assert result.returncode == 0 and result.stdout == "greetings from a hook\n"


def test_broken_contributions_fail_alone(plugin_path):
    broken = run(plugin_path, "broken", "anything", "--at-all")
    assert broken.returncode == 1
    assert "the command 'broken' cannot run: fakeplug failed to load it" in broken.stderr
    assert "PluginLoadError" in broken.stderr and "distribution 'fakeplug' 0.3" in broken.stderr
    assert "No module named 'fakeplug_missing_module'" in broken.stderr
    odd = run(plugin_path, "odd")
    assert odd.returncode == 1 and "not a click command" in odd.stderr


def test_builtin_names_cannot_be_replaced(plugin_path, tmp_path):
    result = run(plugin_path, "info", str(tmp_path / "absent.zarr"))
    assert result.returncode == 1 and "no array or group" in result.stderr  # the real info


def test_plugins_reports_contributions(plugin_path):
    result = run(plugin_path, "plugins", "--json")
    assert result.returncode == 1  # two contributions fail to load
    rows = {r["name"]: r for r in json.loads(result.stdout) if r["point"] == "cli"}
    assert rows["hello"]["status"] == "ok" and rows["hello"]["distribution"] == "fakeplug"
    assert rows["hello"]["version"] == "0.3" and rows["hello"]["value"] == "fakeplug_cli:hello"
    assert rows["tools"]["status"] == "ok"
    assert rows["broken"]["status"].startswith("error: PluginLoadError")
    assert "No module named 'fakeplug_missing_module'" in rows["broken"]["status"]
    assert rows["odd"]["status"].startswith("error: TypeError")
    assert rows["info"]["status"].startswith("shadowed")
    assert rows["zom"]["status"] == "ok"
    assert rows["greet"]["status"] == "ok" and rows["greet"]["value"] == "fakehooks (hook)"
    assert rows["greet"]["distribution"] == "fakeplug"
