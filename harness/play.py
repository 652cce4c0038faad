"""Playing single games from Python: ``play_game`` and what it builds on.

from harness import play_game
result = play_game(["greedy", "threshold(target=28)"], rules="official", seed=7)
result.scores, result.ranks, result.winner, result.turns
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.dice import DiceSource, SeededDice
from harness.engine import DEFAULT_MAX_TURNS, Fanout, Game, GameObserver, GameResult
from harness.errors import GameError, HarnessError
from harness.plugins import create, resolve
from harness.record import RecordBuilder
from harness.rules import Rules
from harness.strategy import Strategy


def build_strategies(
    strategies: Sequence[str | Strategy],
) -> tuple[list[Strategy], list[str]]:
    """Instances and display names for a seat list of references or instances."""
    instances: list[Strategy] = []
    names: list[str] = []
    for item in strategies:
        if isinstance(item, Strategy):
            if any(item is other for other in instances):
                raise HarnessError(
                    f"seat {len(instances)}: the same {item.name} instance as another seat; "
                    "give each seat its own instance"
                )
            instances.append(item)
            names.append(item.name or type(item).__name__)
        else:
            spec = resolve(item)
            instances.append(spec.create())
            names.append(spec.label)
    return instances, names


def play_game(
    strategies: Sequence[str | Strategy],
    rules: Rules | str | dict | None = "official",
    seed: int | str | None = None,
    *,
    record: bool = False,
    observer: GameObserver | None = None,
    dice: DiceSource | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    forfeit: bool = False,
    names: Sequence[str] | None = None,
) -> GameResult:
    """Play one game and return its :class:`~harness.engine.GameResult`.

    ``strategies`` gives one seat each (seat 0 starts): references such as
    ``"greedy"``, ``"threshold(target=28)"``, ``"bots.py:MyBot"``, or instances.
    ``seed`` fixes the dice (and the strategies' ``view.rng``); ``dice`` replaces the
    seeded dice altogether. ``record=True`` attaches the game record
    (``result.record``, see :mod:`harness.record`). With ``forfeit=True`` a strategy
    that raises or breaks a rule forfeits (``result.error`` says why) instead of the
    error being raised. ``names`` overrides the seats' display names (in the result,
    the record and error messages).
    """
    instances, labels = build_strategies(strategies)
    if names is None:
        names = labels
    elif len(names) != len(instances):
        raise HarnessError(f"{len(names)} names for {len(instances)} seats")
    names = list(names)
    game_rules = Rules.coerce(rules, players=len(instances))
    builder = RecordBuilder(game_rules, names, seed) if record else None
    observers = [o for o in (builder, observer) if o is not None]
    fan = observers[0] if len(observers) == 1 else (Fanout(observers) if observers else None)
    game = Game(
        instances,
        game_rules,
        dice if dice is not None else SeededDice(seed),
        names=names,
        observer=fan,
        max_turns=max_turns,
        seed=seed,
    )
    try:
        result = game.play()
    except GameError as exc:
        if not forfeit:
            raise
        result = game.result(error=exc)
    if builder is not None:
        result.record = builder.finish(result)
    return result


__all__ = ["play_game", "build_strategies", "create"]
