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

A strategy declares the values its numeric parameters may take, once, in ``bounds``::

    class WormHunter(Strategy):
        bounds = {"target": Bound(21, 40, integer=True)}

Every path that hands a strategy its parameters holds them to the declaration before
any engine sees them (:func:`check_bounds`): a config, the command line, ``play_game``,
the native engine's entry points, and the constructor itself (``WormHunter(target=99)``
raises :class:`ParameterError`). A parameter out of its bounds is one line naming it,
never a game played with it.
"""

from __future__ import annotations

import inspect
import math
import sys
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from harness.errors import PluginError
from harness.game.rules import FACE_POINTS, FACES, TILES, WORM, Rules, face_name, worms

# Claim and claim_key are defined with the board's encoding (harness.game.board), which the
# engine and the view share, and exported by harness.view; plugins import them here.
from harness.game.view import Claim, View, _old_name, claim_key

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "Bound",
    "ParameterError",
    "Strategy",
    "check_bounds",
    "check_instance",
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
    "claim_key",
]


def __getattr__(name: str) -> Any:
    """A public name renamed (``swing``: :func:`claim_key`), still imported, deprecated."""
    return _old_name("harness.strategy", name)


class ParameterError(PluginError, ValueError):
    """A strategy parameter outside the bounds its strategy declares (one line)."""


@dataclass(frozen=True)
class Bound:
    """The values one numeric parameter may take: ``low`` to ``high`` (None: no end).

    ``integer``: whole numbers only; ``low_open``: ``low`` itself is excluded ("above
    0"). A bool is never a number here, nor is NaN or an infinity.
    """

    low: float | None = None
    high: float | None = None
    integer: bool = False
    low_open: bool = False

    def describe(self) -> str:
        """In words: "a whole number from 21 to 40", "a number above 0 and at most 100"."""
        what = "a whole number" if self.integer else "a number"
        low, high = _shown_number(self.low), _shown_number(self.high)
        if self.low is not None and self.high is not None and not self.low_open:
            return f"{what} from {low} to {high}"
        parts = []
        if self.low is not None:
            parts.append(f"above {low}" if self.low_open else f"at least {low}")
        if self.high is not None:
            parts.append(f"at most {high}")
        return f"{what} {' and '.join(parts)}" if parts else what

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` (None: it is within bounds)."""
        plain = _plain_number(value)
        if plain is None or (type(plain) is float and not math.isfinite(plain)):
            return f"{_shown_value(value)} is not {self.describe()}"
        if self.integer and type(plain) is float and not plain.is_integer():
            return f"{_shown_value(value)} is not {self.describe()}"
        value = plain
        low, high = self.low, self.high
        if (low is not None and (value < low or (self.low_open and value == low))) or (
            high is not None and value > high
        ):
            return f"{_shown_value(value)} is out of bounds: give {self.describe()}"
        return None


def _plain_number(value: Any) -> int | float | None:
    """A parameter as the plain int or float it stands for (None: not a number), read by
    the base types' own methods: a subclass's overrides never run."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        return float.__float__(value)
    numpy = sys.modules.get("numpy")  # loaded if a value can be one of its scalars
    if numpy is not None and isinstance(value, (numpy.integer, numpy.floating)):
        plain = value.item()
        return plain if type(plain) in (int, float) else None
    return None


def _shown_number(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:g}" if isinstance(value, float) and not value.is_integer() else f"{value:,.0f}"


def _shown_value(value: Any) -> str:
    """A short repr of a value for a message, without running a plugin's __repr__."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return float.__repr__(value)
    if isinstance(value, int):
        return int.__repr__(value) if int.bit_length(value) < 100 else "a number of 30+ digits"
    return f"a {type(value).__name__}"


def check_bounds(cls: type, values: Mapping[str, Any], *, label: str | None = None) -> None:
    """The one check of strategy parameters: each of ``values`` that ``cls`` declares in
    ``bounds`` must be within them; :class:`ParameterError` (one line) otherwise.

    ``label`` names the strategy in the message (default: its ``name``).
    """
    bounds = getattr(cls, "bounds", None)
    if not bounds:
        return
    for key, bound in bounds.items():
        if key in values:
            problem = bound.problem(values[key])
            if problem is not None:
                who = label or getattr(cls, "name", "") or cls.__name__
                raise ParameterError(f"strategy {who}: parameter {key}: {problem}")


def instance_parameters(strategy: Any) -> dict[str, Any]:
    """The declared parameters an instance holds (as ``self.<name>``, or ``self._<name>``),
    read from its ``__dict__`` without running any of its code."""
    cls = type(strategy)
    bounds = getattr(cls, "bounds", None)
    if not bounds:
        return {}
    try:
        state = object.__getattribute__(strategy, "__dict__")
    except AttributeError:
        return {}
    if type(state) is not dict:
        return {}
    found = {}
    for key in bounds:
        if key in state:
            found[key] = state[key]
        elif f"_{key}" in state:
            found[key] = state[f"_{key}"]
    return found


def check_instance(strategy: Any, label: str | None = None) -> None:
    """:func:`check_bounds` of the parameters an instance holds: what an engine would
    play with, whatever was done to it since it was built."""
    values = instance_parameters(strategy)
    if values:
        check_bounds(type(strategy), values, label=label)


# A class's positional parameter names, read once (weakly held: a notebook redefines classes).
_POSITIONAL: weakref.WeakKeyDictionary[type, tuple[str, ...]] = weakref.WeakKeyDictionary()


def _positional_names(cls: type) -> tuple[str, ...]:
    names = _POSITIONAL.get(cls)
    if names is None:
        try:
            params = list(inspect.signature(cls.__init__).parameters.values())[1:]
        except (TypeError, ValueError):
            params = []
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        names = _POSITIONAL[cls] = tuple(p.name for p in params if p.kind in kinds)
    return names


class Strategy:
    """Base class of every strategy plugin.

    Subclasses set ``name`` (how configs and the CLI refer to it) and implement
    :meth:`pick` and :meth:`stop`. Keyword parameters of ``__init__`` are the
    strategy's parameters (``threshold(target=28)`` on the CLI, ``params:`` in configs);
    ``bounds`` declares the numbers each may be (see :class:`Bound`), and keeping each
    as ``self.<name>`` lets harness check an instance too. The first paragraph of the
    class docstring is its one-line description.
    """

    name: ClassVar[str] = ""
    bounds: ClassVar[Mapping[str, Bound]] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # The constructor's arguments, held to the declared bounds before __init__ runs:
        # however a strategy is built, it is never built with a parameter out of bounds.
        if cls.bounds and (args or kwargs):
            values = dict(kwargs)
            values.update(zip(_positional_names(cls), args, strict=False))
            check_bounds(cls, values)
        return super().__new__(cls)

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

        The default takes the greatest :func:`claim_key`: worms gained, plus the worms the
        victim loses for a steal; ties go to the higher tile.
        """
        return max(choices, key=claim_key)

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
