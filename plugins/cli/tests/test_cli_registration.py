"""The one way to add a subcommand: zarrforge-cli's own commands are ``zarrforge.cli`` entry
points declared in its pyproject.toml, like any plugin's, and only the command run is
imported. The deprecated ``zarrforge_cli_commands`` hook still works, with a warning."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import tomllib
import warnings

import click
import pytest

import zarrforge as zf

SCRIPT = pathlib.Path(sys.executable).with_name("zarrforge")
PROJECT = pathlib.Path(__file__).resolve().parent.parent
COMMANDS = PROJECT / "src" / "zarrforge_cli" / "commands"


def declared() -> dict[str, str]:
    metadata = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    return metadata["entry-points"]["zarrforge.cli"]


def run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=120)


def test_every_builtin_command_is_an_entry_point_of_zarrforge_cli():
    listed = set(re.findall(r"^  (\S+)\s", run("--help").stdout.split("Commands:")[1], re.M))
    rows = [r for r in json.loads(run("plugins", "--json").stdout) if r["point"] == "cli"]
    others = {r["name"] for r in rows if r["distribution"] != "zarrforge-cli"}
    ours = {r["name"]: r for r in rows if r["distribution"] == "zarrforge-cli"}
    assert set(declared()) == listed - others
    # the installed metadata is this pyproject.toml's (else reinstall zarrforge-cli)
    assert {name: row["value"] for name, row in ours.items()} == declared()
    assert all(row["status"] == "ok" for row in ours.values())


def test_every_command_module_is_declared():
    modules = {p.stem for p in COMMANDS.glob("*.py") if not p.stem.startswith("_")}
    assert {value.split(":")[0].rsplit(".", 1)[1] for value in declared().values()} == modules


@pytest.mark.parametrize("name", sorted(declared()))
def test_each_declared_builtin_is_a_click_command_of_its_name(name):
    from zarrforge_cli import registration

    command = registration.command(name)
    assert isinstance(command, click.Command) and command.name == name
    assert not (command.help or "").startswith("(unavailable)")


def test_a_command_imports_only_its_own_module():
    code = (
        "import sys\n"
        "from zarrforge_cli.main import cli\n"
        "cli.main(['tree', '--help'], prog_name='zarrforge', standalone_mode=False)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('zarrforge_cli.commands.', "
        "'zarrforge_cli.legacy', 'zarrforge_zom'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "['zarrforge_cli.commands._common', 'zarrforge_cli.commands.tree']"
    )


class _GreetingPlugin:
    @zf.hookimpl
    def zarrforge_cli_commands(self):
        @click.command()
        def greet():
            click.echo("hi")

        return [greet]


@pytest.fixture
def hook_plugin():
    from zarrforge_cli import legacy_hook

    legacy_hook._manager()  # the specification is declared before an implementation registers
    plugin = _GreetingPlugin()
    zf.hooks.register(plugin, name="greeting")
    try:
        yield plugin
    finally:
        zf.hooks.unregister(plugin)


def test_the_deprecated_hook_warns_and_names_the_entry_point_replacement(hook_plugin):
    from zarrforge_cli import legacy_hook

    with pytest.warns(
        DeprecationWarning,
        match=re.escape('[project.entry-points."zarrforge.cli"] greet = "<module>:<command>"'),
    ) as caught:
        found = legacy_hook.contributions()
    assert caught[0].filename == __file__  # attributed to the implementation
    (greet,) = [item for item in found if item.name == "greet"]
    assert greet.load().name == "greet" and greet.source == "hook"
    assert greet.deprecated.startswith("the zarrforge_cli_commands hook is deprecated")


def test_a_hook_warning_turned_error_fails_that_command_alone(hook_plugin):
    from zarrforge_cli import legacy_hook

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        found = legacy_hook.contributions()
    (greet,) = [item for item in found if item.name == "greet"]
    assert greet.load() is None and greet.error.startswith("DeprecationWarning: ")
