"""Playing a chunk: a pure function from a :class:`ChunkSpec` to a compact result.

:func:`play_chunk` is the whole of a worker's job and depends on nothing but its spec
(strategies are built from references and parameters, dice and ``view.rng`` from the
spec's seeds), so any backend can run it and the same spec always gives the same rows.
Every game starts from fresh strategy instances built from the same parameters, so a
strategy that keeps state cannot carry it from one game to the next: a game is the same
whatever chunk, worker or position in a chunk plays it (and a forfeit's reproduce
command replays it). The result is columnar (``array`` per column, a few strings): no
per-game Python objects cross between processes. :func:`replay_game` plays one game of
a chunk again, with a record or a narration, for debugging a forfeit.

Both engines play chunks from here: :func:`play_chunk` hands a spec that may go native
to :func:`play_native`, the one place a ChunkSpec meets :mod:`harness.native` (the native
engine sits below this room and knows nothing of specs or results). The result and its
standings counters live in :mod:`.chunk_result`, the wrappers that trace and time a
seat's decisions in :mod:`.decisions` (both re-exported here).

What a backend needs to contain a plugin is here too, at no cost to a chunk that does
not use it: ``start`` and ``decided`` resume a chunk whose worker died (the game it died
in is given as a forfeit, played up to the start of that turn), ``watch`` is told the
row of every game (and, for traced rows, every decision), ``sink`` gets the rows played
so far now and then, and ``now`` (a :class:`Playing`, the caller's) is kept up to date
with the game being played (the backend labels plugin output from it).
``ChunkResult.loaded`` tells which user code the process had loaded.
"""

from __future__ import annotations

import copy
import logging
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from harness.analysis.account import Accountant
from harness.analysis.units import WinAccountant
from harness.errors import (
    GameError,
    PluginError,
    safe_text,
    type_name,
)
from harness.game.dice import DuplicateDice, SeededDice
from harness.game.engine import Absent, Game, GameObserver, GameResult, build_instances, observing
from harness.game.rules import Rules
from harness.game.seating import deal_seed, game_seed, seats_of
from harness.game.strategy import Strategy
from harness.plugins import StrategySpec, code_digest, is_own_module, resolve
from harness.runfolder.schema import (  # GAME_ARRAYS, SEAT_ARRAYS: the columns a chunk fills
    ACCOUNT_FIELDS,
    FORFEIT,
    GAME_ARRAYS,
    NO_KIND,
    OVER,
    SEAT_ARRAYS,
    TURN_CAP,
    WIN,
    WIN_ACCOUNT_FIELDS,
)
from harness.runfolder.timing import ChunkTimes
from harness.seats import Traced
from harness.seats.output import Playing  # re-exported: the game in play, for output labels
from harness.tourney.chunk_result import (  # re-exported: the chunk room's face
    ChunkResult,
    chunk_stats,
    empty_result,
    extend,
    finish,
    kind_code,
    rows_of,
)
from harness.tourney.decisions import Timed
from harness.tourney.plan import ChunkSpec, EntrantRef

__all__ = [
    "FLUSH_EVERY",
    "GAME_ARRAYS",
    "METHODS",
    "SEAT_ARRAYS",
    "TRACEBACK_LIMIT",
    "WORKER_LOGGER",
    "ChunkResult",
    "Playing",
    "bounded_traceback",
    "build",
    "chunk_stats",
    "dice_for",
    "empty_result",
    "extend",
    "finish",
    "is_builtin",
    "kind_code",
    "loaded_code",
    "play_chunk",
    "play_native",
    "replay_game",
    "rows_of",
    "timed_entrants",
    "user_classes",
]

# The columns a chunk fills, their array typecodes (the seat columns are per seat) and the
# status and error-kind codes are the run folder schema's (GAME_ARRAYS, SEAT_ARRAYS, ...).
# What a traced seat was doing (Watch.trace): the method's code is its index here.
METHODS = ("__init__", "new_game", "pick", "stop", "claim")
FLUSH_EVERY = 0.2  # seconds between the rows handed to ``sink``
TRACEBACK_LIMIT = 8000  # characters of a forfeit's traceback in run.log
WORKER_LOGGER = "harness.tourney.worker"
log = logging.getLogger(WORKER_LOGGER)


# -- building strategies in a worker ------------------------------------------------------
_SPECS: dict[tuple[str, tuple, str], StrategySpec] = {}


def _spec(ref: EntrantRef) -> StrategySpec:
    """Resolve once per process, and check the code is what the parent planned with.

    Cached by the planned code too: a plugin file edited between two runs in one
    process (a notebook) is resolved again, never played with its old code.
    """
    cache_key = (ref.load, ref.params, ref.code)
    spec = _SPECS.get(cache_key)
    if spec is None:
        spec = resolve(ref.load, dict(ref.params) or None)
        code = spec.identity()["code"]
        if code != ref.code:
            raise PluginError(
                f"strategy {ref.name}: its code changed since the run was planned "
                f"({ref.code} -> {code}); run again to plan with the new code"
            )
        _SPECS[cache_key] = spec
    return spec


def build(entrants: tuple[EntrantRef, ...]) -> list[Strategy]:
    """Fresh strategy instances for a table, one per entrant, from references only."""
    return [_spec(ref).create() for ref in entrants]


def _factory(spec: StrategySpec) -> Callable[[], Strategy]:
    """What makes a fresh instance per game: the class and the parameters (copied per
    game when one is mutable, so that no instance can change the next one's)."""
    cls, params = spec.cls, dict(spec.params)
    if not params:
        return cls
    if all(isinstance(v, (int, float, str, bool, type(None))) for v in params.values()):
        return lambda: cls(**params)
    return lambda: cls(**copy.deepcopy(params))


def dice_for(spec: ChunkSpec, seed: int, order: int) -> DuplicateDice | SeededDice:
    """The dice of game (deal with ``seed``, seat order index ``order``), as play_chunk
    gives them."""
    if spec.dice == "duplicate":
        return DuplicateDice(seed)
    return SeededDice(game_seed(seed, order, spec.dice))


# -- user code: what a process has loaded -----------------------------------------------
_DIGESTS: dict[type, str] = {}


def is_builtin(cls: type) -> bool:
    """A strategy of harness's own (a built-in or a base of them), not user code."""
    return is_own_module(cls.__module__)


def user_classes() -> list[type[Strategy]]:
    """Every user strategy class alive in this process (subclasses of subclasses too)."""
    found: list[type[Strategy]] = []
    todo = list(Strategy.__subclasses__())
    seen: set[type] = set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        todo.extend(cls.__subclasses__())
        if not is_builtin(cls) and cls is not Absent:
            found.append(cls)
    return found


def loaded_code(entrants: tuple[EntrantRef, ...] = ()) -> list[str]:
    """The code digests of the user strategy code loaded in this process, sorted.

    A class that is part of an entrant's code (its module is among the modules the
    entrant's digest covers) counts as that entrant's digest: a plugin's helper classes
    are its own code. Any other user class counts as its own digest. So the list is a
    subset of the entrants' digests exactly when nothing else was loaded.
    """
    from harness.plugins import _project_modules  # the modules a code digest covers

    covered: dict[str, str] = {}
    for ref in entrants:
        spec = _SPECS.get((ref.load, ref.params, ref.code))
        module = sys.modules.get(spec.cls.__module__) if spec is not None else None
        if module is not None and not is_builtin(spec.cls):
            for name in _project_modules(module):
                covered.setdefault(name, ref.code)
    digests: set[str] = set()
    for cls in user_classes():
        if cls.__module__ in covered:
            digests.add(covered[cls.__module__])
            continue
        if cls not in _DIGESTS:
            _DIGESTS[cls] = code_digest(cls)
        digests.add(_DIGESTS[cls])
    return sorted(digests)


def timed_entrants(spec: ChunkSpec) -> tuple[bool, ...]:
    """Which of a chunk's table entrants are timed: every one that is not a built-in."""
    return tuple(not is_builtin(_spec(ref).cls) for ref in spec.entrants)


# -- tracebacks in run.log ---------------------------------------------------------------
_SHOWN: set[str] = set()  # strategies whose first forfeit's traceback this process logged


def bounded_traceback(exc: BaseException, limit: int = TRACEBACK_LIMIT) -> str:
    """A traceback for people, bounded: frames, then the exception's one bounded line."""
    frames = "".join(traceback.format_tb(exc.__traceback__))
    if len(frames) > limit:
        frames = "  ...\n" + frames[-limit:]
    return f"Traceback (most recent call last):\n{frames}{type_name(exc)}: {safe_text(exc)}"


def _log_first(exc: GameError, spec: ChunkSpec, deal: int, order: int) -> None:
    """The full traceback of each strategy's first forfeit (in this process) to run.log."""
    cause = exc.__cause__
    if exc.strategy in _SHOWN or cause is None or cause.__traceback__ is None:
        return
    _SHOWN.add(exc.strategy)
    log.warning(
        "first forfeit of %s (table %s deal %d seating %d): %s\n%s",
        exc.strategy,
        spec.table,
        deal,
        order,
        safe_text(exc),
        bounded_traceback(cause),
    )


# -- the pure function ---------------------------------------------------------------------
def play_chunk(
    spec: ChunkSpec,
    *,
    start: int = 0,
    decided: dict[int, GameError] | None = None,
    watch: Any = None,
    trace_from: int | None = None,
    sink: Callable[[ChunkResult, int], None] | None = None,
    times: ChunkTimes | None = None,
    now: Playing | None = None,
) -> ChunkResult:
    """Play every seat order of deals ``spec.first``..``spec.stop - 1`` of the table
    (rows: deal, then the order's index in ``spec.orders``).

    The rest is for backends that contain plugins (all off by default): rows before
    ``start`` are left out (a resumed chunk: the result's first row is row ``start``,
    its ``errors`` keyed by chunk row); a row in ``decided`` is stored as that forfeit,
    played up to the start of its turn; ``watch.game(row)`` is told each game's row,
    ``watch.trace(seat, turn, method)`` each decision of the rows from ``trace_from`` on,
    and with seat limits on, ``watch`` is the seats' :class:`~harness.seats.Beacon`;
    ``sink(result, stop)`` gets the result so far (rows up to chunk row ``stop``) every
    :data:`FLUSH_EVERY` seconds. ``loaded`` and ``times`` are filled (the decisions of
    user strategies in one game of 16, into ``times`` when given: a backend that shows
    them while the chunk plays); ``stats`` only for a whole chunk played without a sink
    (with one, the rows are counted where they are assembled). ``now`` is kept up to
    date with the game in play (cleared at the end), for the backend's output labels.

    A spec whose ``engine`` is not "python" is played by the native engine when nothing
    of the above asks for game-by-game control (``decided``, ``trace_from``, limits):
    same rows, ``result.engine == "native"``. Under "auto", a table it cannot play after
    all goes on the Python engine; under "native", that is a PluginError.
    """
    if times is None:
        times = ChunkTimes(len(spec.entrants))
    now = Playing() if now is None else now
    if spec.settings.engine != "python" and not decided and trace_from is None and not spec.limited:
        native_result = _play_native(spec, start, watch, times, now, sink)
        if native_result is not None:
            return native_result
    started = time.process_time()
    orders = spec.orders
    k_orders = len(orders)
    decided = decided or {}
    names = [e.name for e in spec.entrants]
    now.spec = spec
    factories, timing = _builders(spec, times, now)
    seat_names = [seats_of(names, order) for order in orders]
    result = empty_result(spec)
    columns = _Columns(result, spec.account)
    dice_mode = spec.dice
    duplicate = dice_mode == "duplicate"
    seats_for = _Seats(spec, watch) if spec.limited else None
    mark = getattr(watch, "game", None)
    tracer = watch if trace_from is not None and hasattr(watch, "trace") else None
    flush_at = time.monotonic() + FLUSH_EVERY if sink is not None else None
    first_deal = spec.first + start // k_orders
    row = (first_deal - spec.first) * k_orders
    try:
        for deal in range(first_deal, spec.stop):
            dseed = deal_seed(spec.seed, deal)
            shared = dice_for(spec, dseed, 0) if duplicate else None  # one per deal
            for r in range(k_orders):
                if row < start:
                    row += 1
                    continue
                if mark is not None:
                    mark(row)
                gseed = dseed if duplicate else game_seed(dseed, r, dice_mode)
                dice = shared if duplicate else dice_for(spec, dseed, r)
                accountant = columns.accounts(spec.rules)
                played, error = _play_one(
                    spec,
                    factories,
                    seat_names[r],
                    r,
                    orders[r],
                    dice,
                    gseed,
                    decided.get(row),
                    seats_for,
                    tracer if tracer is not None and row >= trace_from else None,  # type: ignore[operator]
                    deal,
                    row,
                    now,
                    accountant.observer if accountant is not None else None,
                    timing,
                )
                if error is not None and row not in decided:
                    _log_first(error, spec, deal, r)
                columns.add(row, deal, r, dseed, gseed, played, error, accountant)
                row += 1
                if flush_at is not None and time.monotonic() >= flush_at:
                    sink(result, row)  # type: ignore[misc]
                    flush_at = time.monotonic() + FLUSH_EVERY
    finally:
        now.clear()
        if seats_for is not None:
            seats_for.close()
    # A sink's backend counts the rows it was sent.
    return _completed(spec, result, times, started, count=start == 0 and sink is None)


def _completed(
    spec: ChunkSpec, result: ChunkResult, times: ChunkTimes, started: float, *, count: bool
) -> ChunkResult:
    """A played chunk's result with what it tells beside its rows: the user code loaded,
    the decision times, its standings counters (``count``: a whole chunk, counted here),
    the CPU it took since ``started``."""
    result.loaded = loaded_code(spec.entrants)
    result.times = times.to_json([e.name for e in spec.entrants])
    if count:
        finish(spec, result)
    result.cpu = time.process_time() - started
    return result


def _builders(
    spec: ChunkSpec, times: ChunkTimes, now: Playing
) -> tuple[list[Callable[[], Strategy]], _Timing | None]:
    """The factories of a chunk's entrants and which seats to time (none when its seats
    are isolated: their processes build the strategies). A failure clears ``now``."""
    try:
        factories = (
            [] if spec.settings.isolation != "none" else [_factory(_spec(r)) for r in spec.entrants]
        )
        return factories, _Timing(spec, times) if factories else None
    except BaseException:
        now.clear()
        raise


# A seat's stored account columns in the order _Columns appends them: the worm account's,
# then the win account's luck (schema.WIN_ACCOUNT_FIELDS).
_STORED = (*ACCOUNT_FIELDS, *WIN_ACCOUNT_FIELDS)


class Accounts:
    """The accounts the Python engine keeps of a game (the native engine keeps both too,
    account.inc.c, bit for bit): the worm one (the stored ``par`` .. ``claims``) and, with
    ``win``, the win-unit one (its luck stored as ``winluck``, its vector as ``winvec``),
    heard through one observer."""

    __slots__ = ("worms", "win", "observer")

    def __init__(self, rules: Rules, win: bool = True) -> None:
        self.worms = Accountant(rules)
        self.win = WinAccountant(rules, vector=True) if win else None
        self.observer = observing(self.worms, self.win)


class _Columns:
    """A chunk result's columns as bound ``append`` methods, looked up once (a chunk
    appends one row per game), and the writing of one game's row."""

    __slots__ = ("games", "seats", "account", "errors", "win")

    def __init__(self, result: ChunkResult, luck: Any) -> None:
        g = result.games
        names = ("deal", "seating", "seed", "game_seed", "turns", "status", "winner")
        self.games = [g[name].append for name in (*names, "error_seat", "error_kind")]
        fields = ("worms", "rank", "busts", "steals", "stolen")
        self.seats = [[s[name].append for name in fields] for s in result.seats]
        # The account's columns, per seat in ACCOUNT_FIELDS order (None without the account).
        self.win = luck == WIN
        stored = _STORED if self.win else ACCOUNT_FIELDS
        self.account = [[s[name].append for name in stored] for s in result.seats] if luck else None
        self.errors = result.errors

    def accounts(self, rules: Rules) -> Accounts | None:
        """A game's accounts, as the chunk keeps them (None: no account)."""
        return Accounts(rules, self.win) if self.account is not None else None

    def add(
        self,
        row: int,
        deal: int,
        k: int,
        dseed: int,
        gseed: int,
        game: GameResult,
        error: GameError | None,
        accountant: Accounts | None,
    ) -> None:
        """Append game (``deal``, seat order ``k``)'s row: its forfeit, if any, as one."""
        if error is None:
            status = TURN_CAP if game.capped else OVER
            error_seat, kind = -1, NO_KIND
        else:
            status, error_seat, kind = FORFEIT, error.seat, kind_code(error)
            self.errors[row] = safe_text(error)
        a_deal, a_order, a_seed, a_gseed, a_turns, a_status, a_winner, a_eseat, a_ekind = self.games
        a_deal(deal)
        a_order(k)
        a_seed(dseed)
        a_gseed(gseed)
        a_turns(game.turns)
        a_status(status)
        a_winner(-1 if game.winner is None else game.winner)
        a_eseat(error_seat)
        a_ekind(kind)
        scores, ranks, busts, steals, stolen = (
            game.scores,
            game.ranks,
            game.busts,
            game.steals,
            game.stolen,
        )
        for i, (a_worms, a_rank, a_busts, a_steals, a_stolen) in enumerate(self.seats):
            a_worms(scores[i])
            a_rank(ranks[i])
            a_busts(busts[i])
            a_steals(steals[i])
            a_stolen(stolen[i])
        if accountant is not None:
            worms, win = accountant.worms, accountant.win
            worms.finish()  # a forfeit's turn counts for nothing
            for ledger, appends in zip(worms.ledgers, self.account, strict=True):  # type: ignore[arg-type]
                for append, name in zip(appends, ACCOUNT_FIELDS, strict=False):
                    append(getattr(ledger, name))
            if win is not None:
                win.finish()
                for won, vec, appends in zip(win.ledgers, win.vector, self.account, strict=True):  # type: ignore[arg-type]
                    appends[-2](won.luck)  # winluck: the win-unit account's luck
                    appends[-1](vec)  # winvec: the seat's part of every roll's win luck


class _Timing:
    """Which seats of a game to time: the user entrants' seats, in a timed row."""

    def __init__(self, spec: ChunkSpec, times: ChunkTimes) -> None:
        self.times = times
        self.user = timed_entrants(spec)
        self.orders = spec.orders
        self.any = any(self.user)

    def wrap(self, instances: list[Strategy], k: int, row: int) -> list[Strategy]:
        """The game's seats, the timed ones wrapped (as they are when not timed)."""
        if not self.any or not self.times.timed(row):
            return instances
        out = []
        for seat, instance in enumerate(instances):
            e = self.orders[k][seat]
            if self.user[e]:
                self.times.games[e] += 1
                instance = Timed(instance, self.times, e)
            out.append(instance)
        return out


def _play_native(
    spec: ChunkSpec,
    start: int,
    watch: Any,
    times: ChunkTimes | None,
    now: Playing,
    sink: Callable[[ChunkResult, int], None] | None = None,
) -> ChunkResult | None:
    """The chunk played by the native engine, or None (auto: the Python engine plays it);
    ``sink`` gets the whole result at once.

    The watch is told each game's row where a plugin plays (a Python seat), the first
    row only at a table of built-ins (no game of theirs can crash or stall). Should the
    process die, the backend retries from that row with ``trace_from`` set, which plays
    on the Python engine.
    """
    from harness import native

    try:
        result = play_native(spec, start=start, watch=watch, times=times, now=now)
    except native.NotNative as exc:
        if spec.settings.engine == "native":
            raise PluginError(
                f"{spec.describe()}: the native engine cannot play it: {exc}"
            ) from None
        return None
    if sink is not None:
        sink(result, start + result.rows)
    return result


def play_native(
    spec: ChunkSpec,
    *,
    start: int = 0,
    watch: Any = None,
    times: ChunkTimes | None = None,
    now: Playing | None = None,
) -> ChunkResult:
    """The chunk played by the native engine (:mod:`harness.native`): the ChunkResult
    ``play_chunk(spec, start=start)`` returns on the Python engine, row for row, with
    ``engine == "native"``.

    A seat with no native version plays as a Python seat (:mod:`harness.native.seats`):
    fresh instances per game, as :func:`play_chunk` builds them, its output labelled and
    its forfeits logged as there, ``watch.game(row)`` told every game's row, its
    decisions timed as there (``times``). The native engine writes the row of each game
    into ``watch.progress`` (a double in shared memory) when the watch has one.
    :class:`~harness.native.NotNative` when the spec asks for seat limits (a limit is the
    Python engine's to enforce, so that a run's rows never depend on the engine) or a
    seat cannot play there. Entrants are resolved as play_chunk resolves them (their
    code digest checked against the plan). This is the tourney room's side of the
    native engine: ``harness.native`` knows nothing of chunks.
    """
    from harness import native

    started = time.process_time()
    refused = native.refusal(spec.settings)
    if refused is not None:
        raise native.NotNative(refused)

    now = Playing() if now is None else now

    def playing(deal: int, k: int, row: int, names: list, instances: list) -> None:
        now.deal, now.order, now.row, now.names, now.seats = deal, k, row, names, instances

    def forfeited(error: Any, deal: int, k: int) -> None:
        _log_first(error, spec, deal, k)

    mark = getattr(watch, "game", None)
    if times is None:
        times = ChunkTimes(len(spec.entrants))
    now.spec = spec
    try:
        specs = [_spec(ref) for ref in spec.entrants]
        orders = spec.orders
        host = native.seat_host(
            spec.rules,
            specs,
            [e.name for e in spec.entrants],
            orders,
            _factory,
            max_turns=spec.max_turns,
            first=spec.first,
            mark=mark,
            playing=playing,
            forfeited=forfeited,
            times=times,
            timed=timed_entrants(spec),
        )
        if host is None and mark is not None:
            mark(start)  # built-ins only: no game can stall or crash the process
        played = native.play_deals(
            spec.rules,
            specs,
            spec.seed,
            spec.first,
            spec.stop,
            orders=orders,
            dice=spec.dice,
            max_turns=spec.max_turns,
            start=start,
            host=host,
            account=spec.account,
            progress=getattr(watch, "progress", None),
        )
    finally:
        now.clear()
    result = ChunkResult(spec.key, played.games, played.seats, engine="native")
    if host is not None:
        result.errors = host.errors
    return _completed(spec, result, times, started, count=start == 0)


def _play_one(
    spec: ChunkSpec,
    factories: list[Callable[[], Strategy]],
    names: list[str],
    k: int,
    order: tuple[int, ...],
    dice: Any,
    gseed: int,
    decided: GameError | None,
    seats_for: _Seats | None,
    tracer: Any,
    deal: int,
    row: int,
    now: Playing,
    observer: GameObserver | None = None,
    timing: _Timing | None = None,
) -> tuple[GameResult, GameError | None]:
    """One game (seat order ``order``, index ``k`` of the design) from fresh instances:
    its result and its forfeit (None if none); ``observer`` hears it (the account)."""
    n = spec.rules.players
    if decided is not None and decided.turn == 0:
        # Decided before the first turn (a constructor or new_game): nobody is asked.
        game = Game([Absent() for _ in range(n)], spec.rules, dice, names=names, seed=gseed)
        return game.result(error=decided), decided
    if not factories:  # isolated seats: their processes build the instances
        now.deal, now.order, now.row, now.names = deal, k, row, names
        assert seats_for is not None
        playing = seats_for.guard(None, names, k)
    else:
        instances, failed = build_instances(seats_of(factories, order), names, watch=tracer)
        now.deal, now.order, now.row, now.names = deal, k, row, names
        now.seats = instances
        if failed is not None:
            game = Game([Absent() for _ in range(n)], spec.rules, dice, names=names, seed=gseed)
            return game.result(error=failed), failed
        playing = instances if timing is None else timing.wrap(instances, k, row)
        if tracer is not None:
            playing = [Traced(s, tracer) for s in playing]
        if seats_for is not None:
            playing = seats_for.guard(playing, names, k)
    game = Game(
        playing,
        spec.rules,
        dice,
        names=names,
        max_turns=spec.max_turns,
        seed=gseed,
        observer=observer,
    )
    if decided is not None:
        return _play_until(game, decided)
    try:
        return game.play(), None
    except GameError as exc:
        return game.result(error=exc), exc


def _play_until(game: Game, error: GameError) -> tuple[GameResult, GameError]:
    """A game decided by the parent (its worker died or ran out of time at ``error.turn``):
    the turns before that one, then the forfeit, in the state at the start of the turn."""
    try:
        game.start()
        while game.turn < error.turn - 1 and not game.over:
            game.play_turn()
    except GameError as exc:  # it forfeited earlier this time (a machine's timing)
        return game.result(error=exc), exc
    result = game.result(error=error)
    # As a forfeit raised in turn T is stored: T turns begun (nothing of turn T counts).
    result.turns = max(result.turns, error.turn)
    return result, error


class _Seats:
    """Seats under limits (:func:`harness.seats.guard`), kept for the whole chunk.

    In-process, one set of timed wrappers per seat order, each given the game's fresh
    instance (a wrapper's ``new_game`` starts the game's clock); with process
    isolation, one set of seat processes per seat order (each builds a fresh instance per
    game, in its own process): no plugin code runs in the playing process at all.
    """

    def __init__(self, spec: ChunkSpec, watch: Any) -> None:
        self.limits = spec.settings.limits
        self.isolated = self.limits.isolation != "none"
        self.spec = spec
        self.watch = watch
        self.by_order: dict[int, list[Strategy]] = {}

    def guard(self, instances: list[Strategy] | None, names: list[str], k: int) -> list[Strategy]:
        """The guarded seats of order index ``k`` (built at its first game)."""
        from harness.seats import guard

        seats = self.by_order.get(k)
        if seats is None:
            n = len(names)
            refs = seats_of(
                [(ref.load, ref.params) for ref in self.spec.entrants], self.spec.orders[k]
            )
            given: list[Any] = list(instances) if instances is not None else [None] * n
            seats = guard(given, names, self.limits, refs=refs, beacon=self.watch)
            self.by_order[k] = seats
        elif instances is not None:
            for wrapper, instance in zip(seats, instances, strict=True):
                wrapper.renew(instance)  # type: ignore[attr-defined]
        return seats

    def close(self) -> None:
        if self.by_order:
            from harness.seats import close_all

            for seats in self.by_order.values():
                close_all(seats)
            self.by_order.clear()


# -- one game again, for people -------------------------------------------------------------
def replay_game(
    spec: ChunkSpec,
    deal: int,
    k: int,
    *,
    observer: GameObserver | None = None,
    record: bool = False,
) -> GameResult:
    """Play game (deal, seat order index ``k``) of the spec's table again, exactly as the
    chunk did.

    ``record=True`` attaches the game record (``result.record``); a forfeit is returned
    as the result (``result.error``), not raised (its ``__cause__`` is the plugin's
    exception, with its traceback).
    """
    from harness.play import play_observed  # the records and narration room: people only

    order = spec.orders[k]
    dseed = deal_seed(spec.seed, deal)
    gseed = game_seed(dseed, k, spec.dice)
    names = seats_of([e.name for e in spec.entrants], order)
    dice = dice_for(spec, dseed, k)
    seats_for = _Seats(spec, None) if spec.limited else None
    error: GameError | None = None
    if seats_for is not None and seats_for.isolated:
        playing = seats_for.guard(None, names, k)
    else:
        factories = seats_of([_factory(_spec(ref)) for ref in spec.entrants], order)
        instances, error = build_instances(factories, names)
        playing = instances if seats_for is None else seats_for.guard(instances, names, k)
    try:
        result = play_observed(
            playing,
            spec.rules,
            dice,
            names=names,
            seed=gseed,
            max_turns=spec.max_turns,
            record=record,
            observer=observer,
            decided=error,
        )
    finally:
        if seats_for is not None:
            seats_for.close()
    if result.record is not None:
        result.record["tourney"] = {"table": spec.table, "deal": deal, "seating": k}
    return result
