"""A strategy's code identity: the digest of the code that decides its moves.

:func:`code_digest` is in run.json and in every chunk key, so stored games are resumed or
reused only for the same code: a class in a module with source is hashed from its module
and every project module it reaches; a class of ``__main__`` from the code objects that
run (:class:`_Walk`); code that cannot be read gets a ``volatile:...`` digest, never
reused (:func:`volatile_note`). :func:`files_digest` sums a listed set of files the same
way (the engine's digest). Re-exported by :mod:`harness.plugins`.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import secrets
import sys
import sysconfig
import types
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harness.errors import safe_text, type_name


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
        for key, value in list(vars(current).items()):
            try:  # a plugin's global may answer getattr() with anything, or raise
                if inspect.ismodule(value):
                    if _bound_by_another_import(current, key, value):
                        continue
                    ref = value
                else:
                    ref = sys.modules.get(getattr(value, "__module__", None) or "")
            except Exception:
                continue
            if ref is not None and getattr(ref, "__name__", None) not in found:
                todo.append(ref)
    return found


def _bound_by_another_import(package: Any, key: str, value: Any) -> bool:
    """Whether ``package.key`` is its submodule ``value`` bound there only because some
    code somewhere imported that submodule (Python sets the attribute on the parent as a
    side effect of ``import package.key``), not by the package's own module-level code.

    Such an attribute depends on what else this process happened to import (``harness.cli``
    imports every command, a worker does not), so following it would make a code identity
    differ between processes. A submodule the package itself imports at module level is
    followed: every process that imports the package binds it.
    """
    if getattr(value, "__name__", None) != f"{package.__name__}.{key}":
        return False  # an ordinary module global (``import numpy as np``, ``from . import x as y``)
    return key not in _module_level_imports(package)


_IMPORTS_CACHE: dict[tuple[str, str], frozenset[str]] = {}


def _module_level_imports(module: Any) -> frozenset[str]:
    """The names a module's own module-level code binds by import statements (functions'
    bodies left out: they run, if ever, when called). Read from its source file; a module
    without a readable one binds nothing this way."""
    path = getattr(module, "__file__", None)
    try:
        source = Path(path).read_bytes()
    except (OSError, TypeError):
        return frozenset()
    key = (str(path), hashlib.sha256(source).hexdigest())
    if key not in _IMPORTS_CACHE:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        _IMPORTS_CACHE[key] = frozenset(_imported_names(tree))
    return _IMPORTS_CACHE[key]


def _imported_names(node: ast.AST) -> Iterator[str]:
    """Names bound by the import statements under ``node`` that run with it: every
    statement (if, try, with and class bodies included) but a function's or lambda's."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import):
            for alias in child.names:
                yield alias.asname or alias.name.split(".")[0]
        elif isinstance(child, ast.ImportFrom):
            for alias in child.names:
                yield alias.asname or alias.name
        elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _imported_names(child)


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
