"""One game from Python: :func:`play_game` (on either engine, under the seat settings)
and :func:`play_observed` (on the Python engine with its observers: every game a person
looks at). Re-exported by :mod:`harness.play`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.errors import GameError, HarnessError
from harness.game.dice import DiceSource, SeededDice
from harness.game.engine import DEFAULT_MAX_TURNS, Game, GameObserver, GameResult, observing
from harness.game.record import RecordBuilder
from harness.game.rules import Rules
from harness.game.strategy import Strategy, check_instance
from harness.play.building import open_seats
from harness.play.native_game import FORFEITED, _play_native, native_problem
from harness.seats.settings import SeatSettings, settings_from

GAME_SETTINGS = SeatSettings(engine="python")
"""A single game's seat settings unless told: no limits, the Python engine."""


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
    move_time: float | None = None,
    game_time: float | None = None,
    isolation: str | None = None,
    engine: str | None = None,
    settings: SeatSettings | None = None,
) -> GameResult:
    """Play one game and return its :class:`~harness.game.engine.GameResult`.

    ``strategies`` gives one seat each (seat 0 starts): references such as
    ``"greedy"``, ``"threshold(target=28)"``, ``"bots.py:MyBot"``, or instances.
    ``seed`` fixes the dice (and the strategies' ``view.rng``); ``dice`` replaces the
    seeded dice altogether. ``record=True`` attaches the game record
    (``result.record``, see :mod:`harness.game.record`). With ``forfeit=True`` a strategy
    that raises or breaks a rule forfeits (``result.error`` says why) instead of the
    error being raised. ``names`` overrides the seats' display names (in the result,
    the record and error messages).

    ``move_time`` (seconds per decision) and ``game_time`` (seconds of one seat's
    decisions in this game) make a slow seat forfeit with TimeForfeit; ``isolation=
    "process"`` (default "none") runs each seat's strategy in a process of its own (see
    :mod:`harness.seats`): same games for honest strategies, a dead process is that
    seat's SeatCrashed. ``settings`` (a :class:`~harness.seats.settings.SeatSettings`)
    gives these and ``engine`` as one value instead (not with them; its ``luck`` is a
    tournament's: a single game keeps no account unless observed).

    ``engine="auto"`` plays on the native engine when it can: an int64 seed, no
    record, observer, limits or dice other than ``DuplicateDice(seed)`` (the same game
    either way; a seat without a native version, a plugin, is called back from C through
    the Python engine's own view and checks); ``"native"`` raises a one-line HarnessError
    when it cannot; ``"python"`` (the default) never uses it. A game in which a seat
    forfeits is played again on the Python engine, whose error object it returns.
    """
    settings = settings_from(
        settings,
        GAME_SETTINGS,
        move_time=move_time,
        game_time=game_time,
        isolation=isolation,
        engine=engine,
    )
    game_rules = Rules.coerce(rules, players=len(strategies))  # bad rules: before any process
    engine = settings.engine
    if names is not None and len(names) != len(strategies):  # before either engine
        raise HarnessError(f"{len(names)} names for {len(strategies)} seats")
    for item in strategies:  # references are checked as they are resolved
        if isinstance(item, Strategy):
            check_instance(item)  # before either engine: the same refusal from both
    if engine != "python":
        why = native_problem(
            strategies, seed, record=record, observer=observer, dice=dice, settings=settings
        )
        played = None
        if why is None:
            played = _play_native(strategies, game_rules, seed, dice, max_turns, names)  # type: ignore[arg-type]
            if isinstance(played, GameResult):
                return played
            why = "the native engine could not play this game"
        if engine == "native" and played is not FORFEITED:
            raise HarnessError(f"--engine native: {why}; use --engine auto or python")
    seats = open_seats(strategies, settings.limits, names)
    try:
        return play_observed(
            seats.strategies,
            game_rules,
            dice if dice is not None else SeededDice(seed),
            names=seats.names,
            seed=seed,
            max_turns=max_turns,
            record=record,
            observer=observer,
            forfeit=forfeit,
        )
    finally:
        seats.close()


def play_observed(
    strategies: Sequence[Strategy],
    rules: Rules,
    dice: DiceSource,
    *,
    names: Sequence[str],
    seed: int | str | None,
    max_turns: int = DEFAULT_MAX_TURNS,
    record: bool = False,
    observer: GameObserver | None = None,
    forfeit: bool = True,
    decided: GameError | None = None,
) -> GameResult:
    """One game on the Python engine with its observers: every game a person looks at
    (``play_game``, a tournament game replayed) is played here.

    ``record=True`` attaches the game record (``result.record``); ``observer`` (a
    :class:`harness.play.narrate.Narrator`, say) hears every event too. A forfeit is the
    result (``result.error``, its ``__cause__`` the plugin's exception) unless
    ``forfeit`` is False: then its GameError is raised. ``decided``: the game was
    decided before its first turn (a strategy could not be built): nothing is asked.
    """
    builder = RecordBuilder(rules, list(names), seed) if record else None
    accountant = _record_account(builder, rules) if builder is not None else None
    game = Game(
        strategies,
        rules,
        dice,
        names=names,
        observer=observing(builder, accountant, observer),
        max_turns=max_turns,
        seed=seed,
    )
    if decided is not None:
        result = game.result(error=decided)
    else:
        try:
            result = game.play()
        except GameError as exc:
            if not forfeit:
                raise
            result = game.result(error=exc)
    if builder is not None:
        if accountant is not None:
            accountant.finish()
        result.record = builder.finish(result)
    return result


def _record_account(builder: RecordBuilder, rules: Rules) -> GameObserver:
    """An accountant that writes each turn's account into the record's turn (``"account"``:
    par, luck, regret, swing; docs/luck.md), as the turn ends."""
    from harness.analysis.account import Accountant
    from harness.analysis.game import turn_summary

    def write(turn: Any) -> None:
        if turn.swing is not None and 0 < turn.turn <= len(builder.turns):
            builder.turns[turn.turn - 1]["account"] = turn_summary(turn)

    return Accountant(rules, listener=write)
