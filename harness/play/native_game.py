"""One game on the native engine, where it can play it (:func:`native_problem` says why
not): the same game as the Python engine's, a plugin seat called back from C through the
Python engine's own view and checks. Used by :func:`harness.play.play_game`.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.game.dice import DiceSource, DuplicateDice
from harness.game.engine import GameObserver, GameResult
from harness.game.rules import Rules
from harness.game.strategy import Strategy
from harness.play.building import build_strategies
from harness.seats.settings import SeatSettings


def native_problem(
    strategies: Sequence[str | Strategy],
    seed: int | str | None,
    *,
    record: bool = False,
    observer: GameObserver | None = None,
    dice: DiceSource | None = None,
    settings: SeatSettings | None = None,
) -> str | None:
    """Why the native engine cannot play this game under ``settings`` (None: no limits)
    (None: it can), in a few words."""
    from harness import native

    refused = native.refusal(settings)
    if refused is not None:
        return refused
    if record:
        return "a game record is written by the Python engine"
    if observer is not None:
        return "an observer (narration) needs the Python engine"
    if type(seed) is not int or not -(2**63) <= seed < 2**63:
        return "the native engine needs an integer (int64) seed"
    if dice is not None and not (
        type(dice) is DuplicateDice and type(dice.key) is int and dice.key == seed
    ):
        return "dice other than the seeded ones run on the Python engine"
    return None


FORFEITED = object()  # _play_native: a seat forfeited; the Python engine gives the error


def _play_native(
    strategies: Sequence[str | Strategy],
    game_rules: Rules,
    seed: int,
    dice: DiceSource | None,
    max_turns: int,
    names: Sequence[str] | None,
) -> GameResult | object | None:
    """The game on the native engine, as a GameResult; None if it cannot play it,
    FORFEITED if a seat forfeited (the same game played again on the Python engine gives
    the error object, with its traceback)."""
    from harness import native

    mode = "independent" if dice is None else "duplicate"
    n = game_rules.players
    # Built once, as the Python engine builds them: a plugin seat plays through the host.
    instances, labels = build_strategies(strategies)
    names = list(names) if names is not None else labels
    host = native.seat_host(
        game_rules,
        instances,
        names,
        [tuple(range(n))],
        lambda instance: lambda: instance,
        max_turns=max_turns,
        first=None,  # play_games' rows are the row numbers
    )
    try:
        res = native.play_games(
            game_rules,
            instances,
            [seed],
            dice=mode,
            max_turns=max_turns,
            detail=True,
            host=host,
        )
    except native.NotNative:
        return None
    g = res.games
    if g["status"][0] == 2:
        return FORFEITED
    board = res.board(0)
    seat = {k: [res.seats[i][k][0] for i in range(n)] for k in native.SEAT_COLUMNS}
    capped = g["status"][0] == 1
    return GameResult(
        players=n,
        names=list(names),
        scores=seat["worms"],
        ranks=seat["rank"],
        winner=None if g["winner"][0] < 0 else g["winner"][0],
        over=not capped,
        turns=g["turns"][0],
        stacks=board["stacks"],
        grill=board["grill"],
        flipped=board["flipped"],
        busts=seat["busts"],
        steals=seat["steals"],
        stolen=seat["stolen"],
        capped=capped,
    )
