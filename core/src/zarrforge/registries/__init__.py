"""The registries and the resolution of names: which implementation a name in a document
or a call stands for.

* :mod:`.registry`: one registry per extension point, filled from entry points
  (:mod:`.entry_points`), with the install hints of :mod:`.known_providers`; the package
  offers it as ``zarrforge.registry``;
* :mod:`.registry_facade`: the registries as plugins see them (``plugin_api.registry``);
* :mod:`.hooks`: the pluggy plugin manager and the isolation rule for hook plugins
  (``zarrforge.hooks``); :mod:`.plugin_failures` tells a plugin's bug from its
  environment failing;
* :mod:`.resolution`: metadata documents into contract objects.

Layer rule (tests/test_layers.py): modules here may import each other, the contracts
(:mod:`zarrforge.abc`, :mod:`zarrforge.hookspecs`), the documents
(:mod:`zarrforge.metadata`) and the leaves (errors, config); nothing that reaches a store,
runs chunks, opens nodes or builds user objects. This ``__init__`` imports nothing.
"""
