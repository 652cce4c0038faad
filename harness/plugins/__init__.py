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
import secrets
import sys
import sysconfig
import types
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, distributions, entry_points
from pathlib import Path
from typing import Any

from harness.errors import PluginError, safe_text, type_name
from harness.game.strategy import Strategy, check_bounds
from harness.interrupts import reraise_if_user

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


def code_digest(cls: type) -> str:
    """A short digest of the code that decides ``cls``'s moves (its code identity).

    For a class in a module with source (a built-in, a plugin file, an installed module)
    that is the class's own name and the source of its module and of every project module
    it uses, transitively (e.g. ``harness.analysis`` for ``optimal``,
    ``harness.strategies._common``): two classes in one file have different digests, and editing
    the file changes the digest of every class in it (a class may use anything its file
    defines). The strategy API modules and third-party packages are left out (the package
    version covers the former).

    A class defined in ``__main__`` (a notebook cell, a script, ``python -c``, stdin) has
    no module file that describes it: it is hashed from the code objects that run (see
    :class:`_Walk`). Where that code cannot be read, the digest is
    ``"volatile:..."``, random per process and per class: its games are never resumed or
    reused (:func:`volatile_note` says so in one line).
    """
    module = sys.modules.get(cls.__module__)
    if module is None or _anonymous(module):
        return _main_digest(cls)
    digest = hashlib.sha256(b"class\0" + f"{cls.__module__}:{cls.__qualname__}".encode())
    reached = _project_module_map(module)
    # Its own module always, even an installed package's (the modules it uses from there
    # are left out, like every third-party one).
    reached.setdefault(module.__name__, module)
    for name in sorted(reached):
        digest.update(name.encode() + b"\0" + _module_source_digest(reached[name]).encode())
    return digest.hexdigest()[:16]


VOLATILE = "volatile:"  # the prefix of a digest that stands for no readable code


def volatile_note(cls: type) -> str | None:
    """One line (no "Note:" prefix) for the runner when ``cls``'s games can never be resumed
    or reused, else None."""
    if not code_digest(cls).startswith(VOLATILE):
        return None
    why = _UNREADABLE.get(cls, "its code could not be read")
    return (
        f"{safe_text(cls.__qualname__, 80)} (defined in {safe_text(cls.__module__, 80)}) "
        f"has no readable code identity ({why}): its games are played afresh every run, "
        "never resumed or reused"
    )


def _anonymous(module: Any) -> bool:
    """A module no file describes: ``__main__`` (a script's file may have changed since it
    ran, a notebook's cells and stdin have none), or one without a file or plugin digest."""
    if module.__name__ == "__main__":
        return True
    if module.__name__ in sys.builtin_module_names:  # compiled into Python: its version names it
        return False
    return not getattr(module, "__harness_code__", None) and not getattr(module, "__file__", None)


# Volatile digests by class: random per process, stable for one class object while it lives.
_VOLATILE: weakref.WeakKeyDictionary[type, str] = weakref.WeakKeyDictionary()
_UNREADABLE: weakref.WeakKeyDictionary[type, str] = weakref.WeakKeyDictionary()


def _main_digest(cls: type) -> str:
    if cls in _VOLATILE:
        return _VOLATILE[cls]
    try:
        parts = _Walk().digest(cls)
    except _Unreadable as exc:
        why = str(exc)
    except Exception as exc:  # noqa: BLE001 - a hostile attribute, nesting too deep: volatile
        why = f"reading its code raised {type_name(exc)}"
    else:
        return "main:" + parts[:11]  # 16 characters, marked as hashed from code objects
    _UNREADABLE[cls] = why
    _VOLATILE[cls] = VOLATILE + secrets.token_hex(8)
    return _VOLATILE[cls]


class _Unreadable(Exception):
    """Something a ``__main__`` class's code depends on that has no stable digest."""


# Values hashed by their repr: deterministic across processes (sets are sorted below).
_PLAIN = (type(None), bool, int, float, complex, str, bytes)
# Class attributes that do not decide moves (bookkeeping Python fills in).
_SKIPPED_ATTRS = {"__dict__", "__weakref__", "__module__", "__doc__", "__qualname__"}
_SKIPPED_ATTRS |= {"__annotations__", "__firstlineno__", "__static_attributes__"}
_BUILTIN_CALLABLES = (
    types.BuiltinFunctionType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
)
MAX_WALK = 20_000  # objects one walk visits: a bound on what a hostile global can cost


class _Walk:
    """A digest of a ``__main__`` class from the objects that run, deterministic across
    processes: its name, bases, attributes; of every function, the code object (bytecode,
    constants, names, argument shape; recursively), defaults and closure cells; and the
    globals its code names, transitively. Line numbers and file names are left out, so
    moving code does not change the digest; anything else (an object with no stable
    form, e.g. a ``random.Random()`` global) raises :class:`_Unreadable`."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.seen: dict[int, int] = {}
        self.keep: list[Any] = []  # holds visited objects so their ids stay unique
        self.budget = [MAX_WALK]  # shared with the walks of set members

    def digest(self, cls: type) -> str:
        self.visit(cls)
        return self.hash.hexdigest()

    def put(self, *items: str | bytes) -> None:
        for item in items:
            data = item if isinstance(item, bytes) else item.encode("utf-8", "surrogatepass")
            self.hash.update(len(data).to_bytes(8, "little") + data)

    def visit(self, obj: Any) -> None:
        if isinstance(obj, _PLAIN):
            self.put(type(obj).__name__, repr(obj))
            return
        if id(obj) in self.seen:  # a cycle or a shared object: its first-visit number
            self.put("ref", str(self.seen[id(obj)]))
            return
        self.budget[0] -= 1
        if self.budget[0] < 0:
            raise _Unreadable(f"its code reaches more than {MAX_WALK:,} objects")
        self.seen[id(obj)] = len(self.seen)
        self.keep.append(obj)
        if isinstance(obj, (tuple, list)):
            self.put(type(obj).__name__, str(len(obj)))
            for item in obj:
                self.visit(item)
        elif isinstance(obj, (set, frozenset)):  # order varies with hash seeds: sort
            self.put(type(obj).__name__, *sorted(self.sub_digest(item) for item in obj))
        elif isinstance(obj, dict):  # insertion order: the code's own
            self.put("dict", str(len(obj)))
            for key, value in obj.items():
                self.visit(key)
                self.visit(value)
        elif isinstance(obj, types.CodeType):
            self.code(obj, None)
        elif isinstance(obj, types.FunctionType):
            self.function(obj)
        elif isinstance(obj, (staticmethod, classmethod)):
            self.put(type(obj).__name__)
            self.visit(obj.__func__)
        elif isinstance(obj, property):
            self.put("property")
            for part in (obj.fget, obj.fset, obj.fdel):
                self.visit(part)
        elif inspect.isclass(obj):
            self.cls(obj)
        elif inspect.ismodule(obj):
            self.module(obj)
        elif isinstance(obj, _BUILTIN_CALLABLES):
            owner = getattr(obj, "__self__", None)
            where = getattr(owner, "__name__", None) or type(owner).__name__
            self.put("builtin", str(where), obj.__qualname__)
        else:
            raise _Unreadable(f"it uses a {type_name(obj)} object, which has no stable digest")

    def sub_digest(self, obj: Any) -> str:
        """The digest of one member of a set, walked on its own (its own back-references:
        the members' order, and so what was seen first, varies between processes)."""
        walk = _Walk()
        walk.keep = self.keep
        walk.budget = self.budget
        walk.visit(obj)
        return walk.hash.hexdigest()

    def function(self, func: types.FunctionType) -> None:
        module = sys.modules.get(func.__module__ or "")
        if module is not None and not _anonymous(module):  # from a real module: as its class
            self.put("function", module.__name__, func.__qualname__)
            self.module(module)
            return
        self.put("function", func.__qualname__)
        self.visit(func.__defaults__)
        self.visit(func.__kwdefaults__)
        cells = []
        for cell in func.__closure__ or ():
            try:
                cells.append(cell.cell_contents)
            except ValueError:  # an empty cell (a name not yet bound)
                cells.append(None)
        self.visit(tuple(cells))
        self.code(func.__code__, func.__globals__)

    def code(self, code: types.CodeType, scope: dict[str, Any] | None) -> None:
        self.put(
            "code",
            code.co_name,
            code.co_code,
            repr(
                (
                    code.co_argcount,
                    code.co_posonlyargcount,
                    code.co_kwonlyargcount,
                    code.co_flags,
                    code.co_names,
                    code.co_varnames,
                    code.co_freevars,
                    code.co_cellvars,
                )
            ),
        )
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                self.code(const, scope)  # a nested function, lambda or comprehension
            else:
                self.visit(const)
        if scope is None:
            return
        # The globals it names (co_names also holds attribute names: a global of the same
        # name is hashed too, which can only make the digest stricter).
        for name in code.co_names:
            if name in scope and not name.startswith("__"):
                self.put("global", name)
                self.visit(scope[name])

    def cls(self, cls: type) -> None:
        module = sys.modules.get(cls.__module__)
        if module is not None and not _anonymous(module):
            # A class from a real module: its own identity (the API or a library: its name).
            stable = module.__name__ in _API_MODULES or not _is_project(module)
            self.put("class", cls.__module__, cls.__qualname__)
            if not stable:
                self.put(code_digest(cls))
            return
        self.put("class", cls.__qualname__)
        self.visit(cls.__bases__)
        for name in sorted(vars(cls)):
            if name in _SKIPPED_ATTRS:
                continue
            self.put("attr", name)
            self.visit(vars(cls)[name])

    def module(self, module: Any) -> None:
        self.put("module", module.__name__)
        if not _anonymous(module) and _is_project(module):
            for name, found in sorted(_project_module_map(module).items()):
                self.put(name, _module_source_digest(found))


# The public strategy API: every strategy uses it; its behaviour is versioned with the
# package rather than hashed into each strategy's identity.
_API_MODULES = {
    "harness",
    "harness.game.strategy",
    "harness.game.rules",
    "harness.game.view",
    "harness.errors",
}
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
    return set(_project_module_map(module))


def _project_module_map(module: Any) -> dict[str, Any]:
    """The modules of :func:`_project_modules` by name: the objects themselves, since a
    module a global refers to may have left ``sys.modules`` (a test loader's, say)."""
    found: dict[str, Any] = {}
    todo = [module]
    while todo:
        current = todo.pop()
        name = getattr(current, "__name__", None)
        if name is None or name in found or not _is_project(current):
            continue
        found[name] = current
        for value in list(vars(current).values()):
            try:  # a plugin's global may answer getattr() with anything, or raise
                ref = (
                    value
                    if inspect.ismodule(value)
                    else sys.modules.get(getattr(value, "__module__", None) or "")
                )
            except Exception:
                continue
            if ref is not None and getattr(ref, "__name__", None) not in found:
                todo.append(ref)
    return found


# Our own package is project code wherever it is installed (site-packages or an
# editable checkout): a regular install must not give every built-in an empty identity.
# (The built-ins are harness.strategies: a user's own top-level `strategies` is user code.)
_OWN_PACKAGES = ("harness",)


def is_own_module(name: str) -> bool:
    """Whether a module name is harness's own (a built-in strategy, or what they use), not
    user code: the one test of it."""
    return name.split(".")[0] in _OWN_PACKAGES


def _is_project(module: Any) -> bool:
    name = module.__name__
    if name in _API_MODULES or name == "builtins" or name.startswith("__"):
        return False
    if getattr(module, "__harness_code__", None):
        return True  # a plugin file
    if is_own_module(name):
        return True
    path = getattr(module, "__file__", None)
    return bool(path) and not str(path).startswith(_THIRD_PARTY)


def _module_source_digest(module: Any) -> str:
    loaded = getattr(module, "__harness_code__", None)
    if loaded:  # a plugin file: the digest of the source that was executed
        return loaded
    try:
        return file_digest(Path(module.__file__))
    except (OSError, TypeError, AttributeError):
        return module.__name__


def file_digest(path: Path) -> str:
    """The digest of one source file's bytes (16 hex digits); OSError if it cannot be read."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def files_digest(files: Iterable[Path]) -> str:
    """One digest of a listed set of source files (each file's name and :func:`file_digest`),
    as :func:`code_digest` sums a class's modules. A listed file that is missing is an error
    (FileNotFoundError, one line): a digest that silently skipped it would not change when
    the file came back."""
    digest = hashlib.sha256()
    for path in files:
        try:
            part = file_digest(path)
        except OSError as exc:
            raise FileNotFoundError(f"cannot read {path} for a code digest: {exc}") from None
        digest.update(path.name.encode() + b"\0" + part.encode())
    return digest.hexdigest()[:16]


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
            spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


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
