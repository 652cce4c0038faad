"""The strategies' catalogue: the built-ins and the installed plugins, by name.

The built-ins are the project's own entry points in the ``harness.strategies`` group
(pyproject.toml registers every class of the ``harness.strategies`` package); any
installed package registers its own the same way, and the built-ins win a name both
claim. A built-in that fails to load is left out and said (:func:`broken_builtins`).
Re-exported by :mod:`harness.plugins`.
"""

from __future__ import annotations

import contextlib
import re
import sys
from functools import cache
from importlib.metadata import EntryPoint, distributions, entry_points
from typing import Any

from harness.game.strategy import Strategy
from harness.plugins.loading import _check_class, _describe

ENTRY_POINT_GROUP = "harness.strategies"


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
