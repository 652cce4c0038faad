"""The public strategy API: what a plugin subclasses and what it is given.

A plugin is a subclass of :class:`Strategy` that sets ``name`` and implements
``pick`` and ``stop`` (``claim`` and ``new_game`` are optional)::

    from harness.strategy import Strategy, WORM

    class WormHunter(Strategy):
        '''Keeps worms whenever it can, then the most points; stops at 25.'''
        name = "worm-hunter"

        def __init__(self, target: int = 25):
            self.target = target

        def pick(self, view):
            if WORM in view.choices:
                return WORM
            return max(view.choices, key=lambda f: view.counts[f] * f)

        def stop(self, view):
            return view.total >= self.target

Everything a strategy sees is a read-only :class:`~harness.view.View`; every decision
it returns is checked against the rules before the engine applies it. (``View.show_turn``
and ``harness.view.TURN_SLOTS`` are how engines feed a view: not for strategies.)
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, ClassVar

from harness.rules import FACE_POINTS, FACES, TILES, WORM, Rules, face_name, worms

# Claim and swing are defined with the board's encoding (harness._board), which the
# engine and the view share, and exported by harness.view; plugins import them here.
from harness.view import Claim, View, swing

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "Strategy",
    "Claim",
    "View",
    "Rules",
    "WORM",
    "FACES",
    "FACE_POINTS",
    "TILES",
    "worms",
    "face_name",
    "points",
    "swing",
]


class Strategy:
    """Base class of every strategy plugin.

    Subclasses set ``name`` (how configs and the CLI refer to it) and implement
    :meth:`pick` and :meth:`stop`. Keyword parameters of ``__init__`` are the
    strategy's parameters (``threshold(target=28)`` on the CLI, ``params:`` in configs).
    The first paragraph of the class docstring is its one-line description.
    """

    name: ClassVar[str] = ""

    def new_game(self, seat: int, rules: Rules) -> None:  # noqa: B027 - optional hook
        """Called before each game with this strategy's seat and the rules."""

    def pick(self, view: View) -> int:
        """Which face (1-6, 6 = worm) to set aside; one of ``view.choices`` (R5)."""
        raise NotImplementedError

    def stop(self, view: View) -> bool:
        """True to stop now and claim a tile (only asked when a stop would claim, R7)."""
        raise NotImplementedError

    def claim(self, view: View, choices: Sequence[Claim]) -> Claim:
        """Which claim to take when more than one is legal (R7).

        The default takes the greatest worm swing: worms gained, plus the worms the
        victim loses for a steal; ties go to the higher tile.
        """
        return max(choices, key=swing)

    # -- metadata ------------------------------------------------------------------
    @classmethod
    def description(cls) -> str:
        """The first paragraph of the class docstring, as one line."""
        doc = inspect.getdoc(cls) or ""
        return " ".join(doc.strip().split("\n\n")[0].split())

    @classmethod
    def parameters(cls) -> dict[str, Any]:
        """The keyword parameters of ``__init__`` with their defaults (``...`` = required)."""
        if cls.__init__ is object.__init__:
            return {}
        params = {}
        for p in inspect.signature(cls.__init__).parameters.values():
            if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            params[p.name] = ... if p.default is p.empty else p.default
        return params

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def points(face: int) -> int:
    """Points a die showing ``face`` counts (R2: the worm counts 5)."""
    return FACE_POINTS[face]
