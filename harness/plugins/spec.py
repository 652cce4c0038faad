"""A resolved strategy (:class:`StrategySpec`): its class and parameters, its names and
its code identity; ``create()`` builds an instance. Re-exported by :mod:`harness.plugins`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from harness.errors import PluginError, safe_text
from harness.game.strategy import Strategy
from harness.interrupts import reraise_if_user
from harness.plugins.bounds import SHOWN_LIMIT
from harness.plugins.catalogue import builtin_strategies
from harness.plugins.digests import code_digest
from harness.plugins.loading import _describe


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
