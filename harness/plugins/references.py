"""Resolving a strategy reference: a name, ``path/to/file.py:ClassName`` or
``package.module:ClassName``, with parameters in parentheses (``threshold(target=28)``) or
as a mapping; every failure one line naming what was wrong and what is available.
Re-exported by :mod:`harness.plugins`.
"""

from __future__ import annotations

import ast
import difflib
import inspect
from collections.abc import Sequence
from typing import Any

from harness.errors import PluginError, safe_text
from harness.game.strategy import Strategy, check_bounds
from harness.plugins.bounds import MAX_REFERENCE_CHARS, SHOWN_LIMIT, check_params, shown
from harness.plugins.catalogue import (
    available,
    broken_builtins,
    builtin_strategies,
    entry_point_strategies,
)
from harness.plugins.loading import (
    _all_strategy_classes,
    _check_class,
    _load_file,
    _load_module,
    _plugin_code,
)
from harness.plugins.spec import StrategySpec


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
