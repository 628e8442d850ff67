"""``zarrforge consolidate URL``: gather a hierarchy's metadata into a group, or take it out.

* ``zarrforge consolidate URL [--path P]`` writes the consolidated view of the group
  (``zarrforge.consolidate_metadata``); a view too large for readers is refused, and
  the message names the sub-groups to consolidate instead.
* ``--remove`` rewrites the group without its view
  (``zarrforge.remove_consolidated_metadata``), also when the view made the group's
  document too large to open: the repair for such a store.
"""

from __future__ import annotations

from typing import Any

import click

from .. import storage_options as storage
from ._common import path_option


@click.command()
@click.argument("url")
@path_option
@click.option(
    "--remove",
    is_flag=True,
    help="Take the group's consolidated view out instead (repairs a group whose view made it unreadable).",
)
@storage.flags()
def consolidate(url: str, path: str, remove: bool, storage_options: dict[str, Any]) -> None:
    """Write the consolidated metadata of the group at URL (or remove it with --remove)."""
    import zarrforge

    options = storage.for_url(url, storage_options, "--storage-option")
    if remove:
        group = zarrforge.remove_consolidated_metadata(url, path, storage_options=options)
        click.echo(f"removed the consolidated view of {'/' + group.path}")
        return
    group = zarrforge.consolidate_metadata(url, path, storage_options=options)
    count = len(group.metadata_model.consolidated or {})
    click.echo(f"consolidated {count} nodes into {'/' + group.path}")
