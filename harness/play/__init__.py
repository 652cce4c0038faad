"""Playing single games from Python: ``play_game`` and what it builds on.

from harness import play_game
result = play_game(["greedy", "threshold(target=28)"], rules="official", seed=7)
result.scores, result.ranks, result.winner, result.turns

Time limits and process isolation (:mod:`harness.seats`) apply here too:
``play_game(..., move_time=1, isolation="process")``, or as one value,
``play_game(..., settings=SeatSettings(move_time=1, isolation="process"))``.
:func:`open_seats` builds the seats once (processes started, references checked) for
callers that play several games or must fail before telling anything (``harness play``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from harness.errors import GameError, HarnessError
from harness.game.dice import DiceSource, DuplicateDice, SeededDice
from harness.game.engine import DEFAULT_MAX_TURNS, Game, GameObserver, GameResult, observing
from harness.game.engines import ENGINES  # the engine choices (re-exported: play's face)
from harness.game.record import RecordBuilder
from harness.game.rules import Rules
from harness.game.strategy import Strategy, check_instance
from harness.plugins import (
    StrategySpec,
    check_params,
    create,
    entry_point_strategies,
    parse_reference,
    resolve,
)
from harness.seats import (
    SeatLimits,
    close_all,
    guard,
    moved_to_processes,
    sandbox_missing,
    unguarded,
)
from harness.seats.sandbox import missing_note
from harness.seats.settings import SeatSettings, settings_from

GAME_SETTINGS = SeatSettings(engine="python")
"""A single game's seat settings unless told: no limits, the Python engine."""


def _check_own_instance(item: Strategy, seated: Sequence[Strategy | None]) -> None:
    """One line unless ``item`` is a different object from every instance seated so far."""
    if any(item is other for other in seated):
        raise HarnessError(
            f"seat {len(seated)}: the same {item.name} instance as another seat; "
            "give each seat its own instance"
        )


def build_strategies(
    strategies: Sequence[str | Strategy], *, display: bool = False
) -> tuple[list[Strategy], list[str]]:
    """Instances and names for a seat list of references or instances: labels
    (``path/bot.py:MyBot(target=28)``), or with ``display`` a file or module bot by its
    class's own ``name``, as a tourney shows it (``my-bot(target=28)``)."""
    instances, names, _ = _built(strategies, display=display)
    return instances, names


def _built(
    strategies: Sequence[str | Strategy], *, display: bool = False
) -> tuple[list[Strategy], list[str], list[tuple[str, Any] | None]]:
    """:func:`build_strategies`, with each seat's (reference, parameters) (None for an
    instance given as such): how a process of its own would build it."""
    instances: list[Strategy] = []
    names: list[str] = []
    refs: list[tuple[str, Any] | None] = []
    for item in strategies:
        if isinstance(item, Strategy):
            _check_own_instance(item, instances)
            instances.append(item)
            names.append(_label(item))
            refs.append(None)
        else:
            spec = resolve(item)
            instances.append(spec.create())
            names.append(spec.display_label if display else spec.label)
            refs.append((spec.ref, spec.params))
    return instances, names, refs


def _references(
    strategies: Sequence[str | Strategy],
) -> tuple[list[Strategy | None], list[tuple[str, Any] | None], list[str]]:
    """Seats for process isolation: references are parsed and checked here but not
    loaded (a plugin's code, its import included, runs only in its own process)."""
    instances: list[Strategy | None] = []
    refs: list[tuple[str, Any] | None] = []
    names: list[str] = []
    for item in strategies:
        if isinstance(item, Strategy):
            _check_own_instance(item, instances)
            instances.append(item)
            refs.append(None)
            names.append(_label(item))
        else:
            ref, params = parse_reference(item)
            check_params(ref, params)  # plain, bounded values: no plugin code involved
            if ":" not in ref and ref not in entry_point_strategies():
                # A built-in (project code) or a typo: checked here, the same one line
                # as in-process, before any process is started.
                spec = resolve(item)
                ref, ordered, label = spec.ref, spec.params, spec.label
            else:
                ordered = tuple(sorted(params.items()))
                label = StrategySpec(ref, Strategy, ordered).label  # as in-process
            instances.append(None)
            refs.append((ref, ordered))
            names.append(label)
    return instances, refs, names


class Seats:
    """The seats of a game (or of several): strategies under their limits, and names.

    ``strategies`` are what the engine is given (wrappers when a limit is on); end any
    seat processes with :meth:`close` (or use it as a context manager). Only wrappers
    made by :func:`open_seats` itself are closed: seats passed in already guarded (from
    another ``open_seats``) stay open for their owner's next game.
    """

    def __init__(
        self,
        strategies: list[Strategy],
        names: list[str],
        owned: bool = True,
        limits: SeatLimits | None = None,
    ) -> None:
        self.strategies = strategies
        self.names = names
        self.owned = owned
        self.limits = limits if limits is not None else SeatLimits()

    def close(self) -> None:
        if self.owned:
            close_all(self.strategies)

    def notes(self) -> list[str]:
        """What a person should know before the game, one line each (no "Note:"): seats
        moved to processes of their own so that their time limits hold, seats whose limits
        hold only if they let themselves be interrupted, an incomplete sandbox."""
        lines = []
        moved = moved_to_processes(self.strategies)
        if moved and self.limits.timed:  # (moved only to contain them: nothing to say)
            lines.append(
                f"{', '.join(moved)} {'plays' if len(moved) == 1 else 'play'} in a process of "
                "its own so that the time limits hold (in harness's own process a plugin "
                "could catch or disarm the timer, or loop in C code, and never return)"
            )
        stuck = unguarded(self.strategies)
        if stuck:
            lines.append(
                f"{', '.join(stuck)} cannot be sent to a process of its own (defined in "
                "__main__, or its instance does not pickle): its time limits hold only while "
                "it lets harness's timer interrupt it; give it by reference to be sure"
            )
        note = missing_note(sandbox_missing(self.strategies))
        if note is not None:
            lines.append(note)
        return lines

    def __enter__(self) -> Seats:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_seats(
    strategies: Sequence[str | Strategy],
    limits: SeatLimits | None = None,
    names: Sequence[str] | None = None,
    *,
    display: bool = False,
    contain: bool = False,
    output: Callable[[str], None] | None = None,
) -> Seats:
    """Build the seats for ``strategies`` under ``limits``; one-line errors, nothing played.

    With ``isolation="process"``, every seat's process is started (in parallel) and has
    loaded its strategy when this returns; references are loaded only there (so a file
    bot is named by its reference there: its class is never loaded here). A new instance
    is built in the seat's process for every game. ``display``: in-process, a file or
    module bot is named by its class's own ``name`` (:func:`build_strategies`).
    ``contain``: a plugin seat plays in a process of its own even without limits (no
    sandbox), so that a plugin that ends its process forfeits instead of ending this one
    (``harness play``); ``output`` gets the lines the seats' processes write
    (:func:`harness.seats.guard`).
    """
    limits = limits if limits is not None else SeatLimits()
    if limits.isolation == "process":
        instances, refs, labels = _references(strategies)
    else:
        built, labels, refs = _built(strategies, display=display)
        instances = list(built)
    if names is None:
        names = labels
    elif len(names) != len(instances):
        raise HarnessError(f"{len(names)} names for {len(instances)} seats")
    names = list(names)
    seated = guard(instances, names, limits, refs=refs, contain=contain, output=output)
    owned = seated is not instances
    return Seats(list(seated), names, owned=owned, limits=limits)  # type: ignore[arg-type]


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


def _label(item: str | Strategy) -> str:
    if isinstance(item, Strategy):
        return item.name or type(item).__name__
    return item


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


__all__ = [
    "ENGINES",
    "GAME_SETTINGS",
    "SeatSettings",
    "Seats",
    "build_strategies",
    "create",
    "open_seats",
    "play_game",
    "play_observed",
]
