"""What a tune is asked: the bot, its parameters' ranges, the field, the budget; checked
before a game is played, every mistake one line (a :class:`TuneError`, exit 2).

A parameter is tuned only within the bounds its strategy declares (``bounds = {name:
Bound(...)}``, the public strategy API): a parameter without them is refused, since the
tuner would otherwise hand the bot values it was never meant to take. The range given,
``NAME=LO..HI``, must lie within them. A parameter is an integer when its Bound says so
or its default is an int (threshold's ``target: int = 27``): it then plays whole values.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.errors import ConfigError
from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS
from harness.tourney.config import resolve_entrant
from harness.tune.spsa import Gains

MAX_BUDGET = 10_000_000  # games of the tuning
DEFAULT_BUDGET = 20_000
DEFAULT_BATCH = 50  # deals an iteration: at 2 players and one opponent, 200 games
DEFAULT_CONFIRM = 2_000  # deals of the confirmation
MAX_PARAMS = 16


class TuneError(ConfigError):
    """A mistake in what the tuner was asked (one line, exit 2)."""


@dataclass(frozen=True)
class Param:
    """One tuned parameter: its range, whether it is whole, where it starts."""

    name: str
    low: float
    high: float
    integer: bool
    start: float

    def value(self, u: float) -> float | int:
        """The parameter's value at ``u`` in [0, 1] (an integer rounded)."""
        x = self.low + float(u) * (self.high - self.low)
        return int(round(x)) if self.integer else x

    def unit(self, x: float) -> float:
        return (x - self.low) / (self.high - self.low)

    @property
    def step(self) -> float:
        """The cube's width of one whole step (0 for a real parameter)."""
        return 1.0 / (self.high - self.low) if self.integer else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "low": self.low,
            "high": self.high,
            "integer": self.integer,
            "start": self.start,
        }


@dataclass(frozen=True)
class TuneSetup:
    """A checked tune (:func:`make_setup`)."""

    bot: str  # as given
    load: str  # the reference a worker resolves
    fixed: dict[str, Any]  # the bot's parameters given with it, not tuned
    params: tuple[Param, ...]
    field: tuple[str, ...]
    players: int = 2
    seed: int = 1
    budget: int = DEFAULT_BUDGET
    batch: int = DEFAULT_BATCH
    confirm: int = DEFAULT_CONFIRM
    engine: str = "auto"
    gains: Gains = field(default_factory=Gains)

    @property
    def start(self) -> np.ndarray:
        return np.array([p.unit(p.start) for p in self.params])

    @property
    def steps(self) -> np.ndarray:
        return np.array([p.step for p in self.params])

    def values(self, u: np.ndarray) -> dict[str, Any]:
        """The bot's parameters at point ``u`` (the fixed ones too)."""
        return {**self.fixed, **{p.name: p.value(x) for p, x in zip(self.params, u, strict=True)}}

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "load": self.load,
            "fixed": self.fixed,
            "params": [p.to_dict() for p in self.params],
            "field": list(self.field),
            "players": self.players,
            "seed": self.seed,
            "budget": self.budget,
            "batch": self.batch,
            "confirm": self.confirm,
            "engine": self.engine,
            "gains": self.gains.to_dict(),
        }

    @property
    def key(self) -> str:
        """The tune's identity: the same key, the same run folder (resumed)."""
        text = json.dumps(self.to_dict(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


_RANGE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^.]+(?:\.\d+)?)\s*\.\.\s*(.+?)\s*$")


def parse_param(text: str) -> tuple[str, float, float]:
    """``NAME=LO..HI`` as (name, low, high); TuneError (one line) otherwise."""
    match = _RANGE.match(text)
    if not match:
        raise TuneError(f"--param {text!r}: expected NAME=LO..HI, e.g. target=21..40")
    name, lo, hi = match.groups()
    try:
        low, high = float(lo), float(hi)
    except ValueError:
        raise TuneError(f"--param {text!r}: LO and HI must be numbers") from None
    if not (math.isfinite(low) and math.isfinite(high)):
        raise TuneError(f"--param {text!r}: LO and HI must be finite numbers")
    if not low < high:
        raise TuneError(f"--param {name}: the range {lo}..{hi} is empty; give LO below HI")
    return name, low, high


def _param(cls: type, name: str, low: float, high: float, given: dict[str, Any]) -> Param:
    """One parameter checked against the strategy's declared bounds."""
    label = getattr(cls, "name", None) or cls.__name__
    signature = inspect.signature(cls.__init__)
    plain = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    known = [n for n, q in signature.parameters.items() if n != "self" and q.kind in plain]
    if name not in known:
        raise TuneError(
            f"--param {name}: {label} has no parameter {name!r} (it has: "
            f"{', '.join(known) or 'none'})"
        )
    bounds = getattr(cls, "bounds", None) or {}
    bound = bounds.get(name)
    if bound is None:
        raise TuneError(
            f"--param {name}: {label} declares no bounds for {name!r}; the tuner searches only "
            "within a strategy's declared Bound"
        )
    for end in (low, high):
        problem = bound.problem(int(end) if float(end).is_integer() else end)
        if problem:
            raise TuneError(f"--param {name}={low:g}..{high:g}: {problem}")
    default = signature.parameters[name].default
    integer = bool(bound.integer) or (type(default) is int)
    if integer and not (float(low).is_integer() and float(high).is_integer()):
        raise TuneError(f"--param {name}: {name} is a whole number; give whole LO and HI")
    if integer and high - low < 1:
        raise TuneError(f"--param {name}: the range {low:g}..{high:g} holds one value")
    start = given.get(name, default)
    if isinstance(start, bool) or not isinstance(start, (int, float)) or not low <= start <= high:
        start = (low + high) / 2  # the default lies outside the range: start in the middle
        start = round(start) if integer else start
    return Param(name, float(low), float(high), integer, float(start))


def _without_params(load: str) -> str:
    """A worker's reference without its ``(params)`` (given to each point instead)."""
    if load.endswith(")") and "(" in load[load.rfind(":") + 1 :]:
        return load[: load.index("(", load.rfind(":") + 1)].strip()
    return load


def make_setup(
    bot: str,
    params: Sequence[str],
    field: Sequence[str],
    *,
    players: int = 2,
    seed: int = 1,
    budget: int = DEFAULT_BUDGET,
    batch: int = DEFAULT_BATCH,
    confirm: int = DEFAULT_CONFIRM,
    engine: str = "auto",
    gains: Gains | None = None,
) -> TuneSetup:
    """The checked tune; TuneError (one line) for a mistake. ``params`` are
    ``NAME=LO..HI``; the bot's own parameters (``tactician(worm_by=2)``) stay fixed,
    except a tuned one, which starts there."""
    if not params:
        raise TuneError("give at least one --param NAME=LO..HI")
    if len(params) > MAX_PARAMS:
        raise TuneError(f"--param: {len(params)} given; at most {MAX_PARAMS}")
    if not field:
        raise TuneError("--against: give the field, e.g. --against greedy,tactician")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise TuneError(f"--players: {players}; give {MIN_PLAYERS} to {MAX_PLAYERS}")
    if len(field) < players - 1:
        raise TuneError(
            f"--against: {len(field)} strategies; a {players}-player table needs "
            f"{players - 1} opponents"
        )
    entrant = resolve_entrant(bot, "BOT")
    for i, ref in enumerate(field):
        resolve_entrant(ref, f"--against {ref}" if i == 0 else f"--against ({ref})")
    given = entrant.params
    parsed = [parse_param(text) for text in params]
    names = [n for n, _, _ in parsed]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise TuneError(f"--param {twice[0]}: given twice")
    tuned = tuple(_param(entrant.spec.cls, n, lo, hi, given) for n, lo, hi in parsed)
    fixed = {k: v for k, v in given.items() if k not in names}
    if not 1 <= batch <= 100_000:
        raise TuneError(f"--batch: {batch}; give 1 to 100,000 deals an iteration")
    gains = gains or Gains()
    if not (0 < gains.a <= 100 and 0 < gains.c <= 0.5):
        raise TuneError(
            f"--gain {gains.a:g} / --perturb {gains.c:g}: give a gain above 0 (at most 100) "
            "and a perturbation above 0 and at most 0.5 of the range"
        )
    if not 0 <= confirm <= 1_000_000:
        raise TuneError(f"--confirm: {confirm}; give 0 to 1,000,000 deals")
    setup = TuneSetup(
        bot=bot,
        load=_without_params(entrant.load),
        fixed=fixed,
        params=tuned,
        field=tuple(field),
        players=players,
        seed=seed,
        budget=budget,
        batch=batch,
        confirm=confirm,
        engine=engine,
        gains=gains,
    )
    if not 1 <= budget <= MAX_BUDGET:
        raise TuneError(f"--budget: {budget:,}; give 1 to {MAX_BUDGET:,} games")
    return setup


__all__ = ["Param", "TuneError", "TuneSetup", "make_setup", "parse_param"]
