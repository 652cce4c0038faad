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
cannot be read (:func:`volatile_note`). That code identity is :mod:`.digests`' (its names
are re-exported here).
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import hashlib
import importlib
import importlib.util
import inspect
import math
import re
import sys
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, distributions, entry_points
from pathlib import Path
from typing import Any

from harness.errors import PluginError, safe_text, type_name
from harness.game.strategy import Strategy, check_bounds
from harness.interrupts import reraise_if_user
from harness.plugins.digests import (  # re-exported: code identity is the plugins' face
    _OWN_PACKAGES as _OWN_PACKAGES,
)
from harness.plugins.digests import (
    MAX_WALK as MAX_WALK,
)
from harness.plugins.digests import (
    VOLATILE as VOLATILE,
)
from harness.plugins.digests import (
    _project_modules as _project_modules,
)
from harness.plugins.digests import (
    code_digest,
)
from harness.plugins.digests import (
    file_digest as file_digest,
)
from harness.plugins.digests import (
    files_digest as files_digest,
)
from harness.plugins.digests import (
    is_own_module as is_own_module,
)
from harness.plugins.digests import (
    volatile_note as volatile_note,
)

ENTRY_POINT_GROUP = "harness.strategies"

# -- bounds -----------------------------------------------------------------------------
MAX_REFERENCE_CHARS = 1000  # a strategy reference with its inline parameters
MAX_PARAMS = 50  # parameters of one strategy
MAX_PARAM_INT = 2**53  # |int| parameters: exact in JSON (run.json) and as a float
MAX_PARAM_FLOAT = 1e15  # |float| parameters, and finite
MAX_PARAM_CHARS = 200  # a string parameter (or a parameter's name)
MAX_PARAM_ITEMS = 1000  # values in one parameter, counting every nested list or mapping item
MAX_PARAM_DEPTH = 4  # nesting of lists and mappings in one parameter
SHOWN_LIMIT = 200  # characters of a value shown in a message


# -- bounded text for messages ---------------------------------------------------------------
def shown(value: Any, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)`` for a message, at most ``limit`` characters, at bounded cost.

    Builds the text itself and stops once it has enough, so a value that expands to
    gigabytes (a YAML alias bomb, a 5,000-digit number, a list of a million items) costs
    no more than a short one. Lists, tuples and mappings of any subclass are walked; other
    objects are named by type, never asked for their repr (that would run plugin code).
    """
    parts: list[str] = []
    budget = [limit + 1]
    for piece in _pieces(value, 0):
        parts.append(piece)
        budget[0] -= len(piece)
        if budget[0] <= 0:
            break
    text = "".join(parts)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _pieces(value: Any, depth: int) -> Iterator[str]:
    # The base types' own methods throughout: a subclass's overrides (plugin code) never run.
    if value is None or isinstance(value, bool):
        yield "None" if value is None else ("True" if value else "False")
    elif isinstance(value, float):
        yield float.__repr__(value)
    elif isinstance(value, int):
        bits = int.bit_length(value)
        yield int.__repr__(value) if bits <= 256 else f"<a number of {bits * 0.30103:.0f} digits>"
    elif isinstance(value, str):
        head = str.__getitem__(value, slice(0, SHOWN_LIMIT + 2))
        yield repr(head) if len(value) <= len(head) else repr(head)[:-1] + "..."
    elif isinstance(value, (bytes, bytearray)):
        yield repr(bytes(value[: SHOWN_LIMIT + 2]))
    elif isinstance(value, (list, tuple, dict)):
        opening, closing = (
            "{}" if isinstance(value, dict) else "()" if isinstance(value, tuple) else "[]"
        )
        if depth >= 4:
            yield opening + "..." + closing
            return
        yield opening
        if isinstance(value, dict):
            items: Any = dict.items(value)
        else:
            items = list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value)
        for i, item in enumerate(items):
            if i:
                yield ", "
            if isinstance(value, dict):
                yield from _pieces(item[0], depth + 1)
                yield ": "
                yield from _pieces(item[1], depth + 1)
            else:
                yield from _pieces(item, depth + 1)
        if isinstance(value, tuple) and len(value) == 1:
            yield ","
        yield closing
    else:
        yield f"<{type(value).__name__}>"


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
        return self._with_params(self.ref)

    @property
    def display_label(self) -> str:
        """A tourney entrant's default display name: :attr:`label`, but a file or module
        strategy by its class's own ``name`` attribute when it sets one (``careful``, not
        ``../bots/mybot.py:Careful``), unless that is a built-in's name: an inherited name,
        or a file copied from a built-in, must not pass for the built-in."""
        own = self.cls.__dict__.get("name") if self.origin in ("file", "module") else None
        if isinstance(own, str) and own.strip() and own.strip() not in builtin_strategies():
            return self._with_params(own.strip())
        return self.label

    def _with_params(self, base: str) -> str:
        if not self.params:
            return base
        return f"{base}({', '.join(f'{k}={v!r}' for k, v in self.params)})"

    def create(self) -> Strategy:
        # What the constructor prints goes to stderr: stdout may be a command's JSON. (A
        # plain swap, not contextlib.redirect_stdout: this runs for every game's seats.)
        saved, sys.stdout = sys.stdout, sys.stderr
        try:
            return self.cls(**dict(self.params))
        except BaseException as exc:  # SystemExit, a plugin's KeyboardInterrupt: its fault
            reraise_if_user(exc)
            label = safe_text(self.label, SHOWN_LIMIT)
            raise PluginError(f"strategy {label}: building it raised {_describe(exc)}") from exc
        finally:
            sys.stdout = saved

    def identity(self) -> dict[str, Any]:
        """What makes its games what they are: the code and the parameters."""
        return {
            "ref": self.ref,
            "class": f"{self.cls.__module__}:{self.cls.__qualname__}",
            "params": {k: v for k, v in self.params},
            "code": code_digest(self.cls),
        }


# -- the catalogue ------------------------------------------------------------------
DISTRIBUTION = "pickomino-harness"
"""The project's distribution: its own ``harness.strategies`` entry points are the built-ins."""


def _dist_name(dist: Any) -> str:
    try:
        name = dist.metadata["Name"]
    except Exception:  # noqa: BLE001 - unreadable metadata: a distribution of no name
        return ""
    return re.sub(r"[-_.]+", "-", name).lower() if isinstance(name, str) else ""


def _is_own(ep: EntryPoint) -> bool:
    dist = getattr(ep, "dist", None)
    return dist is not None and _dist_name(dist) == DISTRIBUTION


def _registered() -> list[EntryPoint]:
    """Every entry point of the group, of every installed distribution (each once, the
    first on sys.path, as importlib.metadata.entry_points() takes them).

    Except that the project's own are taken from its first metadata that registers any:
    a checkout may hold an old ``pickomino_harness.egg-info`` (left by a setup.py
    command) that sys.path's first entry, the cwd, finds before the installed metadata;
    taking it would leave no built-in at all. (Looked for only then: reading every
    distribution's metadata costs ten times what entry_points() does.)
    """
    found = list(entry_points(group=ENTRY_POINT_GROUP))
    if any(_is_own(ep) for ep in found):
        return found
    for dist in distributions():
        points = [ep for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP]
        if points and _dist_name(dist) == DISTRIBUTION:
            return found + points
    return found


@cache
def builtin_strategies() -> dict[str, type[Strategy]]:
    """The built-in strategies by name: the project's own entry points (pyproject.toml).

    One that fails to load (say, a missing optional dependency) is left out and
    remembered in :func:`broken_builtins`: one broken built-in must not take the others
    down with it. Without the project's metadata (harness imported from a folder that was
    never installed) there are none, and :func:`broken_builtins` says why.
    """
    own = sorted((ep for ep in _registered() if _is_own(ep)), key=lambda ep: ep.name)
    if not own:
        _BROKEN[ENTRY_POINT_GROUP] = (
            f"the {DISTRIBUTION} distribution registers no strategies here: its metadata "
            "is missing or stale (install it: pip install -e .)"
        )
    found: dict[str, type[Strategy]] = {}
    for ep in own:
        try:
            with contextlib.redirect_stdout(sys.stderr):
                found[ep.name] = _check_class(ep.name, ep.load())
        except Exception as exc:
            _BROKEN[ep.module] = _describe(exc)
    return found


_BROKEN: dict[str, str] = {}


def broken_builtins() -> dict[str, str]:
    """Built-in strategy modules that could not be imported, with why."""
    builtin_strategies()
    return dict(_BROKEN)


def entry_point_strategies() -> dict[str, Any]:
    """Entry points of other installed packages in the ``harness.strategies`` group, by
    name (the project's own are :func:`builtin_strategies`)."""
    return {ep.name: ep for ep in _registered() if not _is_own(ep)}


def available() -> list[str]:
    return sorted(set(builtin_strategies()) | set(entry_point_strategies()))


# -- parsing references -------------------------------------------------------------
def parse_reference(text: str) -> tuple[str, dict[str, Any]]:
    """Split ``ref(k=v, ...)`` into the reference and its parameters (Python literals)."""
    if not isinstance(text, str):
        raise PluginError(f"strategy reference: expected text, got {shown(text)}")
    if len(text) > MAX_REFERENCE_CHARS:
        raise PluginError(
            f"strategy {shown(text, 60)}: a reference of {len(text):,} characters; "
            f"at most {MAX_REFERENCE_CHARS:,}"
        )
    text = text.strip()
    if not text:
        raise PluginError("empty strategy reference")
    if any(not c.isprintable() for c in text):
        raise PluginError(f"strategy {shown(text)}: a control character in the reference")
    if not text.endswith(")"):
        return text, {}
    open_at = text.find("(")
    if open_at <= 0:
        raise PluginError(f"strategy {shown(text)}: unbalanced parentheses; write name(key=value)")
    ref, args = text[:open_at].strip(), text[open_at + 1 : -1]
    try:
        call = ast.parse(f"f({args})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise PluginError(
            f"strategy {shown(text)}: cannot read the parameters; write name(key=value, ...)"
        ) from None
    assert isinstance(call, ast.Call)
    if call.args:
        raise PluginError(
            f"strategy {shown(text)}: parameters must be named, e.g. {ref}(target=28)"
        )
    params: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise PluginError(f"strategy {shown(text)}: write each parameter as key=value")
        try:
            params[kw.arg] = ast.literal_eval(kw.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            if isinstance(kw.value, ast.Name) and kw.value.id in ("true", "false", "null"):
                params[kw.arg] = {"true": True, "false": False, "null": None}[kw.value.id]
            else:
                raise PluginError(
                    f"strategy {shown(text)}: parameter {kw.arg} must be a literal "
                    f"(number, string, true/false, list)"
                ) from None
    return ref, params


def resolve(text: str, params: dict[str, Any] | None = None) -> StrategySpec:
    """Resolve a reference (with optional ``(k=v)`` parameters) and extra ``params``."""
    ref, inline = parse_reference(text)
    if params:
        if not isinstance(params, dict):
            raise PluginError(f"strategy {ref}: params must be a mapping, got {shown(params)}")
        inline.update(params)
    check_params(ref, inline)  # plain, bounded values before any plugin code sees them
    with _plugin_code(ref, "checking it"):  # class checks run plugin code (metaclasses)
        cls, origin = _find_class(ref)
        checked = _check_params(ref, cls, inline)
    return StrategySpec(ref, cls, checked, origin)


def create(text: str | Strategy, params: dict[str, Any] | None = None) -> Strategy:
    """An instance from a reference, or the instance itself when given one."""
    if isinstance(text, Strategy):
        return text
    return resolve(text, params).create()


def names_a_file(where: str) -> bool:
    """Whether the part of a reference before its last ``:`` names a file (``bot.py``,
    ``dir/bot``, ``dir\\bot``) rather than a module (``package.module``): the one test of it."""
    return where.endswith(".py") or "/" in where or "\\" in where


def _find_class(ref: str) -> tuple[type[Strategy], str]:
    if ":" in ref:
        where, _, cls_name = ref.rpartition(":")
        if not where or not cls_name.isidentifier():
            raise PluginError(f"strategy {ref!r}: write path/to/file.py:ClassName or module:Class")
        if names_a_file(where):
            module, origin = _load_file(ref, where), "file"
        else:
            module, origin = _load_module(ref, where), "module"
        obj = getattr(module, cls_name, None)
        if obj is None:
            found = ", ".join(c.__name__ for c in _all_strategy_classes(module)) or "none"
            found = safe_text(found, SHOWN_LIMIT)
            raise PluginError(
                f"strategy {ref!r}: {where} has no class {cls_name!r}; strategies there: {found}"
            )
        return _check_class(ref, obj), origin
    builtins = builtin_strategies()
    if ref in builtins:
        return builtins[ref], "builtin"
    eps = entry_point_strategies()
    if ref in eps:
        with _plugin_code(ref, f"loading entry point {safe_text(eps[ref].value, SHOWN_LIMIT)}"):
            obj = eps[ref].load()
        return _check_class(ref, obj), "entry-point"
    raise PluginError(_unknown([ref]))


def check_names(references: Sequence[str]) -> None:
    """Every strategy name among ``references`` known (a built-in's or an installed
    plugin's; a file or module reference is found when it is loaded), or one PluginError
    naming each unknown name with its did-you-mean: a command given several seats says
    every slip at once, not the first alone. A reference that cannot be read is left to
    :func:`resolve`, which says why."""
    unknown: list[str] = []
    for text in references:
        try:
            ref, _ = parse_reference(text)
        except PluginError:
            continue
        known = ref in builtin_strategies() or ref in entry_point_strategies()
        if ":" not in ref and not known and ref not in unknown:
            unknown.append(ref)
    if unknown:
        raise PluginError(_unknown(unknown))


def _unknown(refs: Sequence[str]) -> str:
    """The one line for unknown strategy names: each with its did-you-mean, then what is
    available (and any built-in that could not be loaded)."""
    names = available()

    hints = {}
    for ref in refs:
        close = difflib.get_close_matches(ref, names, n=1)
        hints[ref] = f"did you mean {close[0]!r}?" if close else ""
    if len(refs) == 1:
        said = f"unknown strategy {refs[0]!r}; " + (f"{hints[refs[0]]} " if hints[refs[0]] else "")
    else:
        each = [f"{ref!r}" + (f" ({hints[ref]})" if hints[ref] else "") for ref in refs]
        said = f"unknown strategies {', '.join(each)}; "
    broken = "".join(f"; {m} could not be loaded: {why}" for m, why in broken_builtins().items())
    return (
        f"{said}available: {', '.join(names)} "
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


def check_params(ref: str, params: dict[str, Any]) -> None:
    """Every parameter a plain, bounded value; PluginError (one line) otherwise.

    Plain: None, true/false, a number, a string, a list or a mapping of them (what YAML
    and ``name(key=value)`` give). Bounded: see the ``MAX_PARAM_*`` constants; they keep
    every parameter storable as JSON in run.json and every label short.
    """
    if len(params) > MAX_PARAMS:
        raise PluginError(f"strategy {ref}: {len(params):,} parameters; at most {MAX_PARAMS}")
    for key, value in params.items():
        if not isinstance(key, str) or not key.isidentifier() or len(key) > MAX_PARAM_CHARS:
            raise PluginError(f"strategy {ref}: {shown(key)} is not a parameter name")
        problem = check_param_value(value)
        if problem:
            raise PluginError(f"strategy {ref}: parameter {key}: {problem}")


def check_param_value(value: Any) -> str | None:
    """What is wrong with one parameter value (see :func:`check_params`), or None."""
    budget = [MAX_PARAM_ITEMS]

    def problem(item: Any, depth: int) -> str | None:
        budget[0] -= 1
        if budget[0] < 0:
            return f"more than {MAX_PARAM_ITEMS:,} values in one parameter"
        if item is None or type(item) is bool:
            return None
        if type(item) is int:
            if abs(item) > MAX_PARAM_INT:
                return f"{shown(item, 40)} is out of range (at most 2**53 = {MAX_PARAM_INT:,})"
            return None
        if type(item) is float:
            if not math.isfinite(item) or abs(item) > MAX_PARAM_FLOAT:
                return f"{shown(item)} is out of range (a finite number up to {MAX_PARAM_FLOAT:g})"
            return None
        if type(item) is str:
            if len(item) > MAX_PARAM_CHARS:
                return f"a string of {len(item):,} characters; at most {MAX_PARAM_CHARS}"
            return None
        if isinstance(item, (list, tuple, dict)):
            if depth >= MAX_PARAM_DEPTH:
                return f"nested more than {MAX_PARAM_DEPTH} deep"
            if isinstance(item, dict):
                for k, v in dict.items(item):
                    if type(k) is not str:
                        return f"a mapping key {shown(k, 40)}; keys are strings"
                    found = problem(k, depth + 1) or problem(v, depth + 1)
                    if found:
                        return found
                return None
            for v in list.__iter__(item) if isinstance(item, list) else tuple.__iter__(item):
                found = problem(v, depth + 1)
                if found:
                    return found
            return None
        return (
            f"a {type_name(item)} is not a plain value "
            "(number, string, true/false, null, list, mapping)"
        )

    return problem(value, 0)


def _check_params(ref: str, cls: type[Strategy], params: dict[str, Any]) -> tuple:
    accepted = cls.parameters()
    open_ended = (
        any(p.kind == p.VAR_KEYWORD for p in inspect.signature(cls.__init__).parameters.values())
        if cls.__init__ is not object.__init__
        else False
    )
    listed = ", ".join(f"{k}" if v is ... else f"{k}={shown(v, 40)}" for k, v in accepted.items())
    listed = safe_text(listed or "none", SHOWN_LIMIT * 2)
    for key, value in params.items():
        if key not in accepted:
            if open_ended:
                continue
            close = difflib.get_close_matches(key, list(accepted), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise PluginError(
                f"strategy {ref}: unknown parameter {key!r}; {hint}parameters: {listed}"
            )
        default = accepted[key]
        if default is not ... and default is not None and not _same_kind(default, value):
            raise PluginError(
                f"strategy {ref}: parameter {key} expects {type(default).__name__} "
                f"(default {shown(default, 60)}), got {shown(value)}"
            )
    missing = [k for k, v in accepted.items() if v is ... and k not in params]
    if missing:
        raise PluginError(f"strategy {ref}: missing parameter {', '.join(missing)}")
    check_bounds(cls, params, label=ref)  # the strategy's own declared bounds
    return tuple(sorted(params.items()))


def _same_kind(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))
