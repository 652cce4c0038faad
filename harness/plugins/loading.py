"""Loading a plugin: its code run contained, its class checked.

A plugin is user code and may misbehave while it is loaded: whatever its import, class
checks or constructor raise (``SystemExit`` and a plugin's own ``KeyboardInterrupt``
included) is a one-line :class:`~harness.errors.PluginError` naming it
(:func:`_plugin_code`), and what it prints meanwhile goes to stderr, never into a
command's ``--json`` output. A plugin file runs the bytes its digest is taken from
(:func:`run_plugin_source`), here and on Dask workers. Re-exported by
:mod:`harness.plugins`.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.errors import PluginError, safe_text, type_name
from harness.game.strategy import Strategy
from harness.interrupts import reraise_if_user
from harness.plugins.bounds import SHOWN_LIMIT, shown


@contextlib.contextmanager
def _plugin_code(ref: str, doing: str) -> Iterator[None]:
    """Run plugin code (an import, a class check, a constructor) contained.

    Its prints go to stderr (a command's stdout may be JSON); anything it raises but a
    PluginError or the user's Ctrl-C becomes a one-line PluginError naming it.
    """
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    except PluginError:
        raise
    except BaseException as exc:
        reraise_if_user(exc)
        raise PluginError(f"strategy {shown(ref)}: {doing} failed: {_describe(exc)}") from exc


def _all_strategy_classes(module: Any) -> list[type]:
    return [
        o
        for o in vars(module).values()
        if inspect.isclass(o) and issubclass(o, Strategy) and o is not Strategy
    ]


def _check_class(ref: str, obj: Any) -> type[Strategy]:
    if not (inspect.isclass(obj) and issubclass(obj, Strategy)):
        what = f"class {obj.__name__}" if inspect.isclass(obj) else f"a {type(obj).__name__}"
        what = safe_text(what, SHOWN_LIMIT)
        raise PluginError(
            f"strategy {ref!r} is {what}, not a subclass of harness.strategy.Strategy"
        )
    missing = [m for m in ("pick", "stop") if getattr(obj, m) is getattr(Strategy, m)]
    if missing:
        raise PluginError(f"strategy {ref!r} does not implement {' and '.join(missing)}()")
    return obj


FILE_MODULE = "harness_plugin_"
"""The start of the module name a file plugin is loaded under (then a hash of its path
and content): an implementation detail, never shown to people as the plugin's name."""


def _load_file(ref: str, where: str) -> Any:
    path = Path(where).expanduser()
    if not path.is_file():
        raise PluginError(f"strategy {ref!r}: file {where} not found")
    path = path.resolve()
    try:
        source = path.read_bytes()
    except OSError as exc:
        raise PluginError(f"strategy {ref!r}: cannot read {where}: {exc.strerror}") from None
    # Keyed by path and content: an edited file (a notebook session) is loaded afresh,
    # so the code that runs is always the code its digest (identity()) describes.
    key = hashlib.sha1(str(path).encode() + b"\0" + source).hexdigest()[:12]
    module_name = FILE_MODULE + key
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"strategy {ref!r}: {where} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    module.__harness_code__ = hashlib.sha256(source).hexdigest()[:16]  # type: ignore[attr-defined]
    sys.modules[module_name] = module
    try:
        with _plugin_code(ref, f"loading {where}"):  # SystemExit at import included
            run_plugin_source(module, source, str(path))
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def run_plugin_source(module: types.ModuleType, source: bytes, path: str) -> None:
    """Execute a plugin file's ``source`` in ``module``: exactly the bytes its digest
    describes, compiled as a file of its own, wherever it runs (here, a seat's process,
    a Dask worker that was shipped the file).

    Compiled here, never by the import system: that would trust a .pyc kept beside the
    file whenever the file's size and modification second match it, so a same-length
    edit within a second, or a copy that keeps the time (``cp -p``), would run the old
    code under the new code's digest. ``dont_inherit``: compile() otherwise passes on
    its caller's ``__future__`` flags, and a plugin's annotations would be strings on
    one backend and types on another.
    """
    exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)


def _load_module(ref: str, where: str) -> Any:
    with _plugin_code(ref, f"importing {where}"):
        try:
            return importlib.import_module(where)
        except ModuleNotFoundError as exc:
            if exc.name and where.startswith(exc.name):
                raise PluginError(f"strategy {ref!r}: no module named {where!r}") from None
            raise


def _describe(exc: BaseException) -> str:
    """``TypeName: first line of the message``, bounded; never raises (str() may)."""
    name = type_name(exc)
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {safe_text(exc.msg, 500)} (line {safe_text(exc.lineno, 20)})"
    text = safe_text(exc)
    return f"{name}: {text}" if text else name
