"""Entrants given as Python objects (``run_tournament`` from a notebook): a strategy class
or instance as the reference and parameters a config would give.
"""

from __future__ import annotations

from typing import Any

from harness.errors import HarnessError
from harness.plugins import (
    builtin_strategies,
    shown,
)


# -- entrants given as Python objects (run_tournament from a notebook) ----------------------
def python_entrant(item: Any) -> Any:
    """A strategy class or instance (alone, or as a mapping's ``strategy:``) as the
    reference a config holds; any other item unchanged.

    Workers build every seat from a reference and parameters, never from the object: a
    class becomes ``module:Class`` (``__main__:Class`` for a notebook's or a script's own
    class, a file plugin's path, a built-in's name); an instance becomes its class with
    its constructor parameters, read from the attributes of the same name (``self.target
    = target``) and kept where they differ from the defaults. An instance that class and
    parameters do not rebuild exactly (a parameter not kept, state changed since) is
    refused in one line (HarnessError) saying why.
    """
    from harness.game.strategy import Strategy

    if isinstance(item, dict) and isinstance(item.get("strategy"), (type, Strategy)):
        ref, params = _object_reference(item["strategy"])
        out = {**item, "strategy": ref}
        given = item.get("params")
        if params or given:
            out["params"] = {**params, **(given if isinstance(given, dict) else {})}
        return out
    if isinstance(item, (type, Strategy)):
        ref, params = _object_reference(item)
        return {"strategy": ref, "params": params} if params else ref
    return item


def _object_reference(obj: Any) -> tuple[str, dict[str, Any]]:
    """(reference, parameters) of a strategy class or instance; HarnessError if none."""
    from harness.game.strategy import Strategy

    if isinstance(obj, Strategy):
        cls = type(obj)
        return _class_reference(cls), _instance_params(obj)
    if not issubclass(obj, Strategy):
        raise HarnessError(f"{shown(obj)} is not a subclass of harness.strategy.Strategy")
    return _class_reference(obj), {}


def _class_reference(cls: type) -> str:
    """How a worker finds ``cls``: a built-in's name, a file plugin's path, module:Class."""
    import sys

    for name, builtin in builtin_strategies().items():
        if builtin is cls:
            return name
    qualname, module_name = cls.__qualname__, cls.__module__
    if "." in qualname:  # inside a function (<locals>) or another class
        raise HarnessError(
            f"strategy class {shown(qualname)} is defined inside a function or class; "
            "workers find a class by its module and name: define it at the top level"
        )
    module = sys.modules.get(module_name)
    if module is None or getattr(module, cls.__name__, None) is not cls:
        raise HarnessError(
            f"strategy class {shown(qualname)}: {shown(module_name)}.{cls.__name__} is not "
            "this class (a notebook cell run again since?); pass the class as defined now"
        )
    path = getattr(module, "__file__", None)
    if getattr(module, "__harness_code__", None) and path:  # a file plugin harness loaded
        return f"{path}:{cls.__name__}"
    return f"{module_name}:{cls.__name__}"


def _instance_params(obj: Any) -> dict[str, Any]:
    """An instance's constructor parameters, if its class and them rebuild it exactly."""
    cls = type(obj)
    state = vars(obj) if hasattr(obj, "__dict__") else {}
    params: dict[str, Any] = {}
    for key, default in cls.parameters().items():
        if key in state:
            value = state[key]
        elif f"_{key}" in state:
            value = state[f"_{key}"]
        else:
            raise HarnessError(
                f"{cls.__name__} instance: its parameter {key!r} is not kept as self.{key}, "
                "so workers cannot rebuild it; pass the class with params: "
                f"{{'strategy': {cls.__name__}, 'params': {{...}}}}"
            )
        if default is ... or not _equal(value, default):
            params[key] = value
    try:
        rebuilt = cls(**params)
    except Exception as exc:  # noqa: BLE001 - the plugin's constructor: any error is one line
        raise HarnessError(
            f"{cls.__name__} instance: {cls.__name__}(**{shown(params)}) raised "
            f"{type(exc).__name__}, so workers cannot rebuild it"
        ) from None
    again = vars(rebuilt) if hasattr(rebuilt, "__dict__") else {}
    differs = sorted(k for k in set(state) | set(again) if not _equal(state.get(k), again.get(k)))
    if differs:
        raise HarnessError(
            f"{cls.__name__} instance: its attribute {differs[0]!r} differs from "
            f"{cls.__name__}(**{shown(params)})'s, so workers (which build each seat from "
            "its class and parameters) cannot rebuild it; pass the class with params"
        )
    return params


def _equal(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - an __eq__ that raises (numpy arrays): not equal
        return False


def main_entrants_here(config: Any, backend: str) -> tuple[Any, str | None]:
    """A config (a TourneyConfig) whose entrants workers can build, and the note for
    people when it changed: a class of ``__main__`` (a notebook's or a script's own, e.g.
    passed to run_tournament as a class) exists only in this process (workers never
    import the user's main), so its games are played here (workers: 0). On Dask, one
    line (HarnessError): its workers cannot play it at all."""
    mains = [e.name for e in config.all_entrants() if e.load.startswith("__main__:")]
    if not mains:
        return config, None
    where = "this notebook or script (__main__)"
    if backend == "dask":
        raise HarnessError(
            f"entrant {mains[0]} is defined in {where}: Dask workers cannot import it; "
            "put it in a file (path/to/file.py:Class) or a module"
        )
    if config.workers == 0:
        return config, None
    note = (
        f"Note: entrant {mains[0]} is defined in {where}, which worker processes cannot "
        "import: playing in this process (workers: 0); put it in a file to use workers."
    )
    return config.override(workers=0), note
