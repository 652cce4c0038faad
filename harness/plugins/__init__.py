"""Finding strategies: built-in names, installed entry points and code references.

A strategy is named three ways wherever one is named (CLI and configs):

* a name registered under the entry-point group ``harness.strategies``: the built-ins
  (``greedy``, ...) are the project's own entry points (pyproject.toml registers every
  class of the ``harness.strategies`` package, the repository's ``strategies/``), and any
  installed package registers its own the same way; the built-ins win a name both claim;
* a reference ``path/to/file.py:ClassName`` or ``package.module:ClassName``.

Parameters follow in parentheses on the command line, ``threshold(target=28)``, or
come as a ``params`` mapping from configs. Every failure is a one-line
:class:`~harness.errors.PluginError` that says what was wrong and what is available.

A plugin is user code and may misbehave while it is loaded: whatever its import, class
checks or constructor raise (``SystemExit`` and a plugin's own ``KeyboardInterrupt``
included) is such a PluginError, naming it, and what it prints meanwhile goes to stderr,
never into a command's ``--json`` output. References and parameters are bounded
(:data:`MAX_REFERENCE_CHARS`, :func:`check_param_value`), and every value put in a
message goes through :func:`shown`, a repr() that stays short whatever it is given.

Every resolved strategy has a code identity (:func:`code_digest`, in run.json and in
every chunk key): stored games are resumed or reused only for the same code. It tells
apart two classes of one file, follows edits of a class defined in ``__main__`` (a
notebook, a script, stdin), and is ``volatile:...`` (never reused) where the code
cannot be read (:func:`volatile_note`).

This package's face re-exports what its modules hold: :mod:`.catalogue` (the built-ins
and installed plugins by name), :mod:`.references` (resolving a reference and checking
its parameters against the class), :mod:`.spec` (:class:`StrategySpec`), :mod:`.loading`
(plugin code run contained, plugin files run from the bytes their digest describes),
:mod:`.bounds` (the bounds of references and parameters, :func:`shown`) and
:mod:`.digests` (code identity); ``harness strategies`` is :mod:`harness.commands.strategies`.
"""

from __future__ import annotations

from harness.plugins.bounds import (
    MAX_PARAM_CHARS,
    MAX_PARAM_DEPTH,
    MAX_PARAM_FLOAT,
    MAX_PARAM_INT,
    MAX_PARAM_ITEMS,
    MAX_PARAMS,
    MAX_REFERENCE_CHARS,
    SHOWN_LIMIT,
    check_param_value,
    check_params,
    shown,
)
from harness.plugins.catalogue import (
    _BROKEN as _BROKEN,
)
from harness.plugins.catalogue import (
    DISTRIBUTION,
    ENTRY_POINT_GROUP,
    available,
    broken_builtins,
    builtin_strategies,
    entry_point_strategies,
)
from harness.plugins.catalogue import (
    _is_own as _is_own,
)
from harness.plugins.catalogue import (
    _registered as _registered,
)
from harness.plugins.digests import (
    _OWN_PACKAGES as _OWN_PACKAGES,
)
from harness.plugins.digests import (
    MAX_WALK,
    VOLATILE,
    code_digest,
    file_digest,
    files_digest,
    is_own_module,
    volatile_note,
)
from harness.plugins.digests import (
    _project_modules as _project_modules,
)
from harness.plugins.loading import (
    FILE_MODULE,
    run_plugin_source,
)
from harness.plugins.loading import (
    _load_file as _load_file,
)
from harness.plugins.references import (
    check_names,
    create,
    names_a_file,
    parse_reference,
    resolve,
)
from harness.plugins.spec import StrategySpec

__all__ = [
    "DISTRIBUTION",
    "ENTRY_POINT_GROUP",
    "FILE_MODULE",
    "MAX_PARAMS",
    "MAX_PARAM_CHARS",
    "MAX_PARAM_DEPTH",
    "MAX_PARAM_FLOAT",
    "MAX_PARAM_INT",
    "MAX_PARAM_ITEMS",
    "MAX_REFERENCE_CHARS",
    "MAX_WALK",
    "SHOWN_LIMIT",
    "VOLATILE",
    "StrategySpec",
    "available",
    "broken_builtins",
    "builtin_strategies",
    "check_names",
    "check_param_value",
    "check_params",
    "code_digest",
    "create",
    "entry_point_strategies",
    "file_digest",
    "files_digest",
    "is_own_module",
    "names_a_file",
    "parse_reference",
    "resolve",
    "run_plugin_source",
    "shown",
    "volatile_note",
]
