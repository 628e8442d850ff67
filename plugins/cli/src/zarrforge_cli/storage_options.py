"""Storage options from the command line: ``--storage-option KEY=VALUE`` and ``--anon``.

Every command that opens a URL takes them and passes them, as one dict, to the store
resolution (``storage_options=`` of ``zarrforge.open`` and friends), the way the
Python API takes them:

* ``--storage-option KEY=VALUE`` (repeatable): VALUE is read as JSON where it parses
  (``true``, ``3``, ``{"endpoint_url": "..."}``), else taken as a string
  (``endpoint_url=http://host:9000``). A key given twice is a usage error.
* ``--anon``: ``anon=true``, the anonymous access of s3fs and the fsspec filesystems
  that take ``anon``.

A local path (or ``file://`` URL) takes the local store's own options only
(:data:`LOCAL_OPTIONS`: ``links=refuse``, say, to refuse every symbolic link in a tree
somebody else made): any other is a usage error naming the URL. ``copy`` has two URLs:
its shared options go to each URL that is not local, and ``--src-storage-option`` /
``--dst-storage-option`` (``--src-anon`` / ``--dst-anon``) to one side (see :func:`flags`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import click

ANON_KEY = "anon"
# the options of zarrforge-std's local store (docs/stores.md, "Local directories and links")
LOCAL_OPTIONS = frozenset({"links"})


def parse(items: tuple[str, ...], anon: bool, option: str) -> dict[str, Any]:
    """``KEY=VALUE`` strings (and the ``--anon`` flag) as a storage-options dict;
    a malformed item or a key given twice is a :class:`click.BadParameter` naming it."""
    options: dict[str, Any] = {}
    for item in items:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise click.BadParameter(
                f"{item!r} is not KEY=VALUE (e.g. endpoint_url=http://127.0.0.1:9000 or anon=true)",
                param_hint=option,
            )
        if key in options:
            raise click.BadParameter(
                f"the key {key!r} is given twice ({options[key]!r} and {text!r}); give each key once",
                param_hint=option,
            )
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text
    if anon:
        if options.get(ANON_KEY, True) is not True:
            raise click.BadParameter(
                f"--anon contradicts {ANON_KEY}={options[ANON_KEY]!r}; give one of them", param_hint=option
            )
        options[ANON_KEY] = True
    return options


def is_local(url: str) -> bool:
    """Whether ``url`` is a local path or a ``file://`` URL (neither takes options)."""
    return ("://" not in url and "::" not in url and "|" not in url) or url.lower().startswith("file://")


def for_url(url: str, options: dict[str, Any], option: str) -> dict[str, Any] | None:
    """``options`` for opening ``url``: ``None`` when there are none; a usage error when
    ``url`` is local and an option is none of the local store's (:data:`LOCAL_OPTIONS`)."""
    if not options:
        return None
    if is_local(url) and set(options) - LOCAL_OPTIONS:
        raise click.BadParameter(
            f"{url!r} is a local path, which takes no storage options "
            f"but {', '.join(sorted(LOCAL_OPTIONS))} (got "
            f"{sorted(options)}); the others are for remote stores such "
            "as s3:// or https://",
            param_hint=option,
        )
    return options


def flags(prefix: str = "", side: str = "the URL") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The ``--<prefix>storage-option`` and ``--<prefix>anon`` options of a command; the
    command receives them parsed, as the keyword ``<prefix>storage_options`` (a dict,
    empty when none were given)."""
    name = f"{prefix.replace('-', '_')}storage_options"
    option = f"--{prefix}storage-option"
    items, anon = f"{name}_items", f"{name}_anon"  # click's names, one pair per prefix

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @click.option(
            option,
            items,
            multiple=True,
            metavar="KEY=VALUE",
            help=f"A storage option for {side} (repeatable); VALUE is JSON where it "
            "parses, else a string: endpoint_url=http://host:9000, "
            'client_kwargs=\'{"region_name": "eu-west-1"}\'.',
        )
        @click.option(
            f"--{prefix}anon",
            anon,
            is_flag=True,
            help=f"Anonymous access to {side} (the storage option anon=true).",
        )
        @functools.wraps(function)
        def command(*args: Any, **kwargs: Any) -> Any:
            kwargs[name] = parse(kwargs.pop(items), kwargs.pop(anon), option)
            return function(*args, **kwargs)

        return command

    return decorate
