"""Finding strategies: built-in names, installed entry points and code references.

A strategy is named three ways wherever one is named (CLI and configs):

* a built-in name from the ``strategies`` package, e.g. ``greedy``;
* a name an installed package registers under the entry-point group
  ``harness.strategies``;
* a reference ``path/to/file.py:ClassName`` or ``package.module:ClassName``.

Parameters follow in parentheses on the command line, ``threshold(target=28)``, or
come as a ``params`` mapping from configs. Every failure is a one-line
:class:`~harness.errors.PluginError` that says what was wrong and what is available.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import importlib
import importlib.util
import inspect
import pkgutil
import sys
import sysconfig
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from harness.errors import PluginError
from harness.strategy import Strategy

ENTRY_POINT_GROUP = "harness.strategies"


@dataclass(frozen=True)
class StrategySpec:
    """A resolved strategy: its class and parameters. ``create()`` builds an instance."""

    ref: str  # the reference as given, without parameters
    cls: type[Strategy]
    params: tuple[tuple[str, Any], ...] = ()
    origin: str = "builtin"  # builtin | entry-point | file | module

    @property
    def name(self) -> str:
        return self.cls.name or self.ref

    @property
    def label(self) -> str:
        """How people and stored results name it: ``threshold(target=28)``."""
        if not self.params:
            return self.ref
        return f"{self.ref}({', '.join(f'{k}={v!r}' for k, v in self.params)})"

    def create(self) -> Strategy:
        try:
            return self.cls(**dict(self.params))
        except Exception as exc:
            raise PluginError(
                f"strategy {self.label}: building it raised {type(exc).__name__}: {exc}"
            ) from exc

    def identity(self) -> dict[str, Any]:
        """What makes its games what they are: the code and the parameters."""
        return {
            "ref": self.ref,
            "class": f"{self.cls.__module__}:{self.cls.__qualname__}",
            "params": {k: v for k, v in self.params},
            "code": code_digest(self.cls),
        }


def code_digest(cls: type) -> str:
    """A short digest of the code that decides ``cls``'s moves (its code identity).

    That is the source of the module defining it and of every project module it uses,
    transitively (e.g. ``harness.analysis`` for ``optimal``, ``strategies._common``):
    editing any of them changes the identity, so stored results are not reused. The
    strategy API modules and third-party packages are left out (the package version
    covers the former).
    """
    module = sys.modules.get(cls.__module__)
    digest = hashlib.sha256()
    for name in sorted(_project_modules(module)) if module else []:
        digest.update(name.encode() + b"\0" + _module_source_digest(sys.modules[name]).encode())
    if module is None:
        digest.update(_class_source(cls))
    return digest.hexdigest()[:16]


# The public strategy API: every strategy uses it; its behaviour is versioned with the
# package rather than hashed into each strategy's identity.
_API_MODULES = {"harness", "harness.strategy", "harness.rules", "harness.view", "harness.errors"}
_THIRD_PARTY = tuple(
    {
        p
        for p in (
            sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")
        )
        if p
    }
)


def _project_modules(module: Any) -> set[str]:
    """``module`` and the project modules its globals reach, transitively."""
    found: set[str] = set()
    todo = [module]
    while todo:
        current = todo.pop()
        name = getattr(current, "__name__", None)
        if name is None or name in found or not _is_project(current):
            continue
        found.add(name)
        for value in vars(current).values():
            ref = (
                value
                if inspect.ismodule(value)
                else sys.modules.get(getattr(value, "__module__", None) or "")
            )
            if ref is not None and getattr(ref, "__name__", None) not in found:
                todo.append(ref)
    return found


# Our own packages are project code wherever they are installed (site-packages or an
# editable checkout): a regular install must not give every built-in an empty identity.
_OWN_PACKAGES = ("harness", "strategies")


def _is_project(module: Any) -> bool:
    name = module.__name__
    if name in _API_MODULES or name == "builtins" or name.startswith("__"):
        return False
    if getattr(module, "__harness_code__", None):
        return True  # a plugin file
    if name.split(".")[0] in _OWN_PACKAGES:
        return True
    path = getattr(module, "__file__", None)
    return bool(path) and not str(path).startswith(_THIRD_PARTY)


def _module_source_digest(module: Any) -> str:
    loaded = getattr(module, "__harness_code__", None)
    if loaded:  # a plugin file: the digest of the source that was executed
        return loaded
    try:
        return hashlib.sha256(Path(module.__file__).read_bytes()).hexdigest()[:16]
    except (OSError, TypeError, AttributeError):
        return module.__name__


def _class_source(cls: type) -> bytes:
    try:
        return inspect.getsource(cls).encode()
    except (OSError, TypeError):
        return cls.__qualname__.encode()


# -- the catalogue ------------------------------------------------------------------
def _strategies_in(module: Any) -> list[type[Strategy]]:
    return [
        obj
        for obj in vars(module).values()
        if inspect.isclass(obj)
        and issubclass(obj, Strategy)
        and obj is not Strategy
        and obj.__module__ == module.__name__
        and obj.name
    ]


@cache
def builtin_strategies() -> dict[str, type[Strategy]]:
    """The strategies of the ``strategies`` package, by name.

    A module that fails to import (say, a missing optional dependency) is left out and
    remembered in :func:`broken_builtins`: one broken built-in must not take the others
    down with it.
    """
    import strategies

    found: dict[str, type[Strategy]] = {}
    for info in sorted(pkgutil.iter_modules(strategies.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"strategies.{info.name}")
        except Exception as exc:
            _BROKEN[f"strategies.{info.name}"] = _describe(exc)
            continue
        for cls in _strategies_in(module):
            found[cls.name] = cls
    return dict(sorted(found.items()))


_BROKEN: dict[str, str] = {}


def broken_builtins() -> dict[str, str]:
    """Built-in strategy modules that could not be imported, with why."""
    builtin_strategies()
    return dict(_BROKEN)


def entry_point_strategies() -> dict[str, Any]:
    """Entry points of installed packages in the ``harness.strategies`` group, by name."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available() -> list[str]:
    return sorted(set(builtin_strategies()) | set(entry_point_strategies()))


# -- parsing references -------------------------------------------------------------
def parse_reference(text: str) -> tuple[str, dict[str, Any]]:
    """Split ``ref(k=v, ...)`` into the reference and its parameters (Python literals)."""
    text = text.strip()
    if not text:
        raise PluginError("empty strategy reference")
    if not text.endswith(")"):
        return text, {}
    open_at = text.find("(")
    if open_at <= 0:
        raise PluginError(f"strategy {text!r}: unbalanced parentheses; write name(key=value)")
    ref, args = text[:open_at].strip(), text[open_at + 1 : -1]
    try:
        call = ast.parse(f"f({args})", mode="eval").body
    except SyntaxError:
        raise PluginError(
            f"strategy {text!r}: cannot read the parameters; write name(key=value, ...)"
        ) from None
    assert isinstance(call, ast.Call)
    if call.args:
        raise PluginError(f"strategy {text!r}: parameters must be named, e.g. {ref}(target=28)")
    params: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise PluginError(f"strategy {text!r}: write each parameter as key=value")
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            if isinstance(kw.value, ast.Name) and kw.value.id in ("true", "false", "null"):
                params[kw.arg] = {"true": True, "false": False, "null": None}[kw.value.id]
            else:
                raise PluginError(
                    f"strategy {text!r}: parameter {kw.arg} must be a literal "
                    f"(number, string, true/false, list)"
                ) from None
    return ref, params


def resolve(text: str, params: dict[str, Any] | None = None) -> StrategySpec:
    """Resolve a reference (with optional ``(k=v)`` parameters) and extra ``params``."""
    ref, inline = parse_reference(text)
    if params:
        if not isinstance(params, dict):
            raise PluginError(f"strategy {ref}: params must be a mapping, got {params!r}")
        inline.update(params)
    cls, origin = _find_class(ref)
    return StrategySpec(ref, cls, _check_params(ref, cls, inline), origin)


def create(text: str | Strategy, params: dict[str, Any] | None = None) -> Strategy:
    """An instance from a reference, or the instance itself when given one."""
    if isinstance(text, Strategy):
        return text
    return resolve(text, params).create()


def _find_class(ref: str) -> tuple[type[Strategy], str]:
    if ":" in ref:
        where, _, cls_name = ref.rpartition(":")
        if not where or not cls_name.isidentifier():
            raise PluginError(f"strategy {ref!r}: write path/to/file.py:ClassName or module:Class")
        if where.endswith(".py") or "/" in where or "\\" in where:
            module, origin = _load_file(ref, where), "file"
        else:
            module, origin = _load_module(ref, where), "module"
        obj = getattr(module, cls_name, None)
        if obj is None:
            found = ", ".join(c.__name__ for c in _all_strategy_classes(module)) or "none"
            raise PluginError(
                f"strategy {ref!r}: {where} has no class {cls_name!r}; strategies there: {found}"
            )
        return _check_class(ref, obj), origin
    builtins = builtin_strategies()
    if ref in builtins:
        return builtins[ref], "builtin"
    eps = entry_point_strategies()
    if ref in eps:
        try:
            obj = eps[ref].load()
        except Exception as exc:
            raise PluginError(
                f"strategy {ref!r}: loading entry point {eps[ref].value} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return _check_class(ref, obj), "entry-point"
    names = available()
    close = difflib.get_close_matches(ref, names, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    broken = "".join(f"; {m} could not be loaded: {why}" for m, why in broken_builtins().items())
    raise PluginError(
        f"unknown strategy {ref!r}; {hint}available: {', '.join(names)} "
        f"(or path/to/file.py:ClassName, package.module:ClassName){broken}"
    )


def _all_strategy_classes(module: Any) -> list[type]:
    return [
        o
        for o in vars(module).values()
        if inspect.isclass(o) and issubclass(o, Strategy) and o is not Strategy
    ]


def _check_class(ref: str, obj: Any) -> type[Strategy]:
    if not (inspect.isclass(obj) and issubclass(obj, Strategy)):
        what = f"class {obj.__name__}" if inspect.isclass(obj) else f"a {type(obj).__name__}"
        raise PluginError(
            f"strategy {ref!r} is {what}, not a subclass of harness.strategy.Strategy"
        )
    missing = [m for m in ("pick", "stop") if getattr(obj, m) is getattr(Strategy, m)]
    if missing:
        raise PluginError(f"strategy {ref!r} does not implement {' and '.join(missing)}()")
    return obj


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
    module_name = "harness_plugin_" + key
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"strategy {ref!r}: {where} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    module.__harness_code__ = hashlib.sha256(source).hexdigest()[:16]  # type: ignore[attr-defined]
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise PluginError(f"strategy {ref!r}: loading {where} failed: {_describe(exc)}") from exc
    return module


def _load_module(ref: str, where: str) -> Any:
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name and where.startswith(exc.name):
            raise PluginError(f"strategy {ref!r}: no module named {where!r}") from exc
        raise PluginError(f"strategy {ref!r}: importing {where} failed: {_describe(exc)}") from exc
    except Exception as exc:
        raise PluginError(f"strategy {ref!r}: importing {where} failed: {_describe(exc)}") from exc


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    return f"{type(exc).__name__}: {exc}"


def _check_params(ref: str, cls: type[Strategy], params: dict[str, Any]) -> tuple:
    accepted = cls.parameters()
    open_ended = (
        any(p.kind == p.VAR_KEYWORD for p in inspect.signature(cls.__init__).parameters.values())
        if cls.__init__ is not object.__init__
        else False
    )
    shown = ", ".join(f"{k}" if v is ... else f"{k}={v!r}" for k, v in accepted.items()) or "none"
    for key, value in params.items():
        if key not in accepted:
            if open_ended:
                continue
            close = difflib.get_close_matches(key, list(accepted), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise PluginError(
                f"strategy {ref}: unknown parameter {key!r}; {hint}parameters: {shown}"
            )
        default = accepted[key]
        if default is not ... and default is not None and not _same_kind(default, value):
            raise PluginError(
                f"strategy {ref}: parameter {key} expects {type(default).__name__} "
                f"(default {default!r}), got {value!r}"
            )
    missing = [k for k, v in accepted.items() if v is ... and k not in params]
    if missing:
        raise PluginError(f"strategy {ref}: missing parameter {', '.join(missing)}")
    return tuple(sorted(params.items()))


def _same_kind(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))
