"""Playing a bot's deals for the coach and the diff: natively where the seats allow.

The bot under study (the *subject*) sits at one table per group of opponents
(:func:`tables_for`) and plays every deal of the run in every seat order of the balanced
design (:mod:`harness.game.seating`) on duplicate dice: deal d's dice are a tournament's deal
d with the same seed (:func:`harness.game.seating.deal_seed`), so the coach's games are
the games ``harness tourney`` plays for those entrants and that seed, and each one replays
with ``harness play ... --seed SEED --dice duplicate`` in its seat order.

The subject's seat is a wrapper that sees every question (:class:`~harness.coach.audit.
Audited` for the coach, :class:`~harness.coach.shadow.Shadowed` for the diff) around the
bot (or bots) it runs. On the native engine (``engine: auto`` where it can, as
everywhere) that seat is a Python seat called back from C (:mod:`harness.native.seats`)
and the opponents play natively; on the Python engine every seat plays there. The games
are the same either way.

The seat settings hold as in a tournament (:class:`Seating`): under time limits or
process isolation every seat is guarded (:func:`harness.seats.guard`) and the games are
played on the Python engine; the watch of the process that plays (:mod:`.workers`) sees
every guarded call, so a call past its deadline is ended from outside.

Deals are cut into blocks of a fixed size, whatever the worker count
(:meth:`Field.blocks`); :mod:`.workers` plays them in worker processes (a bot that kills
its process costs one game, a forfeit) and merges their tallies in block order, so the
sums are the same to the last bit for any number of workers. This module plays a range
of deals in the process it runs in (:func:`play_part`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Protocol

from harness.coach.setup import Setup
from harness.coach.tally import Forfeit
from harness.errors import GameError, HarnessError, safe_text
from harness.game.dice import DuplicateDice
from harness.game.engine import DEFAULT_MAX_TURNS, GameResult, build_instances
from harness.game.rules import Rules
from harness.game.seating import Design, deal_seed, design, seats_of
from harness.game.strategy import Strategy
from harness.plugins import StrategySpec, resolve
from harness.runfolder.schema import ERROR_KINDS, FORFEIT, TURN_CAP
from harness.seats import Traced, close_all, guard
from harness.seats.settings import SeatSettings

#: Games a block holds, about: blocks are the unit of work and of merging.
BLOCK_GAMES = 200

#: A game (deal, table, seat order) decided before it is played again: its forfeit, or
#: (for the diff) the line of its shadow's failure, the game played without the shadow.
Decided = dict[tuple[int, int, int], "Forfeit | str"]


class Tally(Protocol):
    """What the subject's seat reports into: a game begins, a game ends; tallies of
    disjoint deals merge (:class:`harness.coach.tally.DealTally`)."""

    def begin(self, deal: int, table: int, order: int) -> None: ...

    def end(
        self,
        deal: int,
        *,
        forfeit: Forfeit | None,
        capped: bool,
        game: tuple[int, int] | None = None,
    ) -> None: ...

    def forfeit(self, deal: int, table: int, order: int, forfeit: Forfeit) -> None: ...

    def merge(self, other: Any) -> None: ...


class Subject(Protocol):
    """The subject's seat: its display name, the bots it runs (``bots``: the coach's bot;
    the diff's primary, then its shadow) and the seat around fresh instances of them
    (guarded as the seat settings say) that reports into ``tally``; ``failed`` (the
    diff) is a shadow's failure decided before the game (the wrapper's ``error`` is an
    error of the wrapper itself)."""

    name: str
    bots: tuple[StrategySpec, ...]

    def seat(self, bots: list[Strategy], tally: Any, failed: str | None = None) -> Strategy: ...


def tables_for(opponents: int, players: int) -> tuple[tuple[int, ...], ...]:
    """The subject's tables: the opponents (indices) in the other ``players - 1`` seats.

    Fewer opponents than seats: they fill the seats in turn, one table (``--players 4``
    with one opponent: three of it). As many: one table. More: one table per group of
    ``players - 1`` of them, as a gauntlet's challenger meets its field.
    """
    seats = players - 1
    if opponents <= seats:
        return (tuple(i % opponents for i in range(seats)),)
    return tuple(combinations(range(opponents), seats))


@dataclass(frozen=True)
class Field:
    """Where the subject plays: rules, opponents, tables, deals, seed, engine and the seat
    settings (their engine is ``engine``; their limits and isolation hold for every seat)."""

    rules: Rules
    opponents: tuple[StrategySpec, ...]
    seed: int
    deals: int
    engine: str = "auto"
    max_turns: int = DEFAULT_MAX_TURNS
    settings: SeatSettings = field(default_factory=SeatSettings)
    opponent_names: tuple[str, ...] = ()  # as shown (:func:`shown_names`); else their labels

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def tables(self) -> tuple[tuple[int, ...], ...]:
        return tables_for(len(self.opponents), self.players)

    @property
    def orders(self) -> Design:
        return design(self.players, "balanced")

    @property
    def games_per_deal(self) -> int:
        return len(self.tables) * len(self.orders)

    @property
    def games(self) -> int:
        return self.deals * self.games_per_deal

    def names(self, subject: str, table: int) -> list[str]:
        """The table's entrants' names: the subject (entrant 0), then its opponents."""
        shown = self.opponent_names or tuple(o.label for o in self.opponents)
        return [subject, *(shown[j] for j in self.tables[table])]

    def blocks(self, cuts: Sequence[int] = ()) -> list[tuple[int, int]]:
        """The deal ranges of the work, of a size fixed by the field alone, also cut at
        ``cuts`` (deal counts where a sequential rule looks)."""
        size = max(1, BLOCK_GAMES // self.games_per_deal)
        edges = sorted({*range(0, self.deals, size), *(c for c in cuts if 0 < c < self.deals)})
        return [(a, b) for a, b in zip(edges, [*edges[1:], self.deals], strict=True)]

    def seat_of_subject(self, order: int) -> int:
        return self.orders[order].index(0)

    def game_names(self, subject: str, table: int, order: int) -> list[str]:
        """The names of game (table, seat order)'s seats, seat by seat."""
        return seats_of(self.names(subject, table), self.orders[order])

    def engine_for(self) -> str:
        """ "native" or "python", as ``engine`` asks: auto is native where it can play
        these tables (the subject as a Python seat) under these seat settings; native
        refuses in one line."""
        if self.engine == "python":
            return "python"
        from harness import native

        why = native.refusal(self.settings)
        if why is None:
            try:
                for table in self.tables:
                    entrants = [_SUBJECT, *(self.opponents[j] for j in table)]
                    native.check_table(
                        self.rules,
                        entrants,
                        self.seed,
                        dice="duplicate",
                        max_turns=self.max_turns,
                        python=True,
                    )
            except native.NotNative as exc:
                why = str(exc)
        if why is None:
            return "native"
        if self.engine == "native":
            raise HarnessError(f"--engine native: {why}; use --engine auto or python")
        return "python"


class _Marker:
    """Stands for the subject in a native table's entrant list: not a built-in, so the
    native engine makes it a Python seat."""


_SUBJECT = _Marker()


def spec_of(item: Any) -> StrategySpec:
    """A strategy as a spec: a reference (resolved), a spec, or a class or instance (a
    notebook's own: rebuilt per game from its class and constructor parameters, as a
    tournament rebuilds it, :func:`harness.tourney.config.python_entrant`)."""
    if isinstance(item, StrategySpec):
        return item
    if isinstance(item, (type, Strategy)):
        from harness.tourney.config import python_entrant

        found = python_entrant(item)
        ref, params = (
            (found["strategy"], found["params"]) if isinstance(found, dict) else (found, {})
        )
        cls = item if isinstance(item, type) else type(item)
        return StrategySpec(ref, cls, tuple(sorted(params.items())), origin="module")
    return resolve(item)


def shown_names(specs: Sequence[StrategySpec]) -> list[str]:
    """The names to show for ``specs``, as a tourney shows its entrants: a file or module
    bot by its strategy's own name (:attr:`StrategySpec.display_label`), by its reference
    where two different bots would read the same."""
    display = [s.display_label for s in specs]
    return [
        spec.label
        if any(display[j] == display[i] and o.label != spec.label for j, o in enumerate(specs))
        else display[i]
        for i, spec in enumerate(specs)
    ]


def resolve_all(refs: Sequence[Any], what: str) -> tuple[StrategySpec, ...]:
    """Strategies as specs (:func:`spec_of`), each built once here: a bad one is one line
    naming ``what``."""
    found = []
    for ref in refs:
        spec = spec_of(ref)
        try:
            spec.create()
        except Exception as exc:
            raise HarnessError(f"{what} {spec.label}: cannot be built: {safe_text(exc)}") from None
        found.append(spec)
    return tuple(found)


def make_field(setup: Setup, deals: int) -> Field:
    """The field of a coach's or a diff's ``setup`` (checked already: one line for a
    mistake, :mod:`harness.coach.setup`), its opponents resolved, over ``deals`` deals.

    Of the seat settings, the engine, the time limits and the isolation are the field's
    (every seat plays under them, as in a tournament); the luck mode is not theirs (they
    keep their own account)."""
    opponent_specs = resolve_all(setup.opponents, "opponent")
    return Field(
        setup.rules,
        opponent_specs,
        setup.seed,
        deals,
        setup.engine,
        setup.max_turns,
        settings=setup.settings,
    )


# -- the seats of a game ---------------------------------------------------------------------
def _ref(spec: StrategySpec) -> tuple[str, Any]:
    return (spec.ref, spec.params)


class Seating:
    """The seats of a part's games on the Python engine: fresh instances per game, under
    the field's seat limits (:func:`harness.seats.guard`, kept for the part: one set per
    table and seat order, its wrappers given each game's instances), traced for
    ``watch`` when asked (``trace``: which seat, turn and method a process died in), the
    subject's seat around its bots. Close it (:meth:`close`) to end any seat processes."""

    def __init__(self, field_: Field, subject: Subject, watch: Any = None, trace: bool = False):
        self.field = field_
        self.subject = subject
        self.watch = watch
        self.trace = trace and watch is not None
        self.limits = field_.settings.limits
        self.isolated = self.limits.isolation != "none"
        self.guards: dict[tuple[int, int], list[Strategy]] = {}
        self.extras: dict[tuple[int, int], list[Strategy]] = {}  # the diff's shadow, guarded
        self.others: list[tuple[Any, str]] = []  # the last game's extras, named

    def _guarded(
        self, key: tuple[int, int], given: list[Any], names: list[str], specs: list[StrategySpec],
        beacon: Any, into: dict[tuple[int, int], list[Strategy]],
    ) -> list[Strategy]:  # fmt: skip
        seats = into.get(key)
        if seats is None:
            seats = into[key] = guard(
                given, names, self.limits, refs=[_ref(s) for s in specs], beacon=beacon
            )
        elif not self.isolated:
            for wrapper, instance in zip(seats, given, strict=True):
                wrapper.renew(instance)  # type: ignore[attr-defined]
        return list(seats)

    def game(
        self, table: int, k: int, tally: Any, failed: str | None = None
    ) -> tuple[list[Strategy], list[str], list[Any], GameError | None]:
        """Game (table, seat order k)'s seats (the subject's reporting into ``tally``),
        their names, the instances by seat (what labels their output) and a seat's
        constructor failure (the game is then decided before its first turn)."""
        f, subject = self.field, self.subject
        order = f.orders[k]
        specs = seats_of([subject.bots[0], *(f.opponents[j] for j in f.tables[table])], order)
        names = f.game_names(subject.name, table, k)
        mine = order.index(0)
        tracer = self.watch if self.trace else None
        if self.isolated:  # their processes build the instances: no plugin code runs here
            instances: list[Any] = [None] * len(specs)
            extra: list[Any] = [None] * (len(subject.bots) - 1)
            error = None
        else:
            instances, error = build_instances([s.create for s in specs], names, watch=tracer)
            extra, failed = _extras(subject, failed)
        self.others = _named(subject, extra)
        if error is not None:
            return instances, names, instances, error
        seats: list[Strategy] = instances
        others = extra
        if self.limits.active:
            beacon = self.watch
            seats = self._guarded((table, k), instances, names, specs, beacon, self.guards)
            if extra and failed is None:
                shadow = getattr(self.watch, "shadow", None)
                others = self._guarded((table, k), extra, [f"{subject.name} (shadow)"],
                                       list(subject.bots[1:]), shadow, self.extras)  # fmt: skip
        if self.trace:
            seats = [Traced(s, tracer) for s in seats]
            others = [Traced(s, self.watch.shadow) for s in others]
        seats[mine] = subject.seat([seats[mine], *others], tally, failed)
        return seats, names, instances, None

    def close(self) -> None:
        for held in (*self.guards.values(), *self.extras.values()):
            close_all(held)
        self.guards.clear()
        self.extras.clear()


# -- a part: some deals of every table ------------------------------------------------------------
def play_part(
    field_: Field,
    subject: Subject,
    tally: Tally,
    first: int,
    stop: int,
    engine: str,
    *,
    decided: Decided | None = None,
    watch: Any = None,
    trace: bool = False,
) -> None:
    """Deals ``first``..``stop - 1`` at every table of the field, into ``tally``.

    ``decided`` games are not played: a forfeit is counted as it is (a diff's shadow
    failure: the game is played without its shadow); ``watch`` (the playing process's
    :class:`~harness.coach.workers.Watch`) is told every game, and with ``trace`` every
    call into a seat. A decided game or a trace plays on the Python engine (the same
    games)."""
    decided = decided or {}
    here = [g for g in decided if first <= g[0] < stop]
    if here or trace or field_.settings.limited:
        engine = "python"
    seating = Seating(field_, subject, watch, trace) if engine == "python" else None
    try:
        for t in range(len(field_.tables)):
            if seating is None:
                _native_table(field_, subject, tally, t, first, stop, watch)
                continue
            for deal in range(first, stop):
                dice = DuplicateDice(deal_seed(field_.seed, deal))
                for k in range(len(field_.orders)):
                    verdict = decided.get((deal, t, k))
                    if isinstance(verdict, Forfeit):
                        tally.forfeit(deal, t, k, verdict)
                        if watch is not None:
                            watch.done(1)
                        continue
                    _python_game(field_, subject, tally, t, deal, k, dice, seating,
                                 watch=watch, failed=verdict)  # fmt: skip
    finally:
        if seating is not None:
            seating.close()


def forfeit_of(
    error: GameError, names: Sequence[str], mine: int, kind: str | None = None
) -> Forfeit:
    """A seat's forfeit as the tally keeps it: who (by name and role) and why."""
    seat = error.seat
    role = "bot" if seat == mine else "opponent"
    name = names[seat] if 0 <= seat < len(names) else error.strategy
    return Forfeit(name, role, kind or error.kind, safe_text(error))


def _python_game(
    field_: Field,
    subject: Subject,
    tally: Tally,
    table: int,
    deal: int,
    k: int,
    dice: DuplicateDice,
    seating: Seating,
    *,
    record: bool = False,
    watch: Any = None,
    failed: str | None = None,
) -> tuple[GameResult, Strategy | None]:
    """One game on the Python engine (its record if asked); the subject's seat too."""
    from harness.play import play_observed

    mine = field_.seat_of_subject(k)
    if watch is not None:
        watch.game(deal, table, k)
    tally.begin(deal, table, k)
    seats, names, instances, error = seating.game(table, k, tally, failed)
    if watch is not None:
        watch.playing(table, deal, k, names, instances, seating.others)
    try:
        result = play_observed(
            seats,
            field_.rules,
            dice,
            names=names,
            seed=dice.key,
            max_turns=field_.max_turns,
            record=record,
            forfeit=True,
            decided=error,
        )
    finally:
        if watch is not None:
            watch.idle()
    wrapper = seats[mine] if error is None else None
    _check([wrapper])
    forfeit = forfeit_of(result.error, names, mine) if result.error is not None else None
    tally.end(deal, forfeit=forfeit, capped=result.capped)
    if watch is not None:
        watch.done(1)
    return result, wrapper


def _native_table(
    field_: Field, subject: Subject, tally: Tally, table: int, first: int, stop: int, watch: Any
) -> None:
    from harness import native

    entrants = [_SUBJECT, *(field_.opponents[j] for j in field_.tables[table])]
    names = field_.names(subject.name, table)
    made: list[Strategy] = []
    bots: list[Strategy] = []
    others: list[tuple[Any, str]] = []

    def factory(entrant: Any) -> Callable[[], Strategy]:
        if entrant is _SUBJECT:

            def fresh() -> Strategy:
                primary = subject.bots[0].create()  # raises: the seat's forfeit, as ever
                extra, failed = _extras(subject, None)
                bots[:] = [primary]
                others[:] = _named(subject, extra)
                wrapper = subject.seat([primary, *extra], tally, failed)
                made.append(wrapper)
                return wrapper

            return fresh
        return entrant.create

    def playing(deal: int, k: int, row: int, names: list, instances: list) -> None:
        if watch is not None:
            watch.game(deal, table, k)
            shown = list(instances)
            shown[field_.seat_of_subject(k)] = bots[0] if bots else None
            watch.playing(table, deal, k, names, shown, others)
        tally.begin(deal, table, k)

    orders = field_.orders
    host = native.seat_host(
        field_.rules,
        entrants,
        names,
        orders,
        factory,
        max_turns=field_.max_turns,
        first=first,
        playing=playing,
    )
    try:
        played = native.play_deals(
            field_.rules,
            entrants,
            field_.seed,
            first,
            stop,
            orders=orders,
            dice="duplicate",
            max_turns=field_.max_turns,
            host=host,
        )
    finally:
        if watch is not None:
            watch.idle()
    _check(made)
    games = played.games
    errors = host.errors if host is not None else {}
    for row in range(len(games["deal"])):
        deal, k = games["deal"][row], games["seating"][row]
        status = games["status"][row]
        forfeit = None
        if status == FORFEIT:
            seat = games["error_seat"][row]
            seated = field_.game_names(subject.name, table, k)
            kind = games["error_kind"][row]
            forfeit = Forfeit(
                seated[seat] if 0 <= seat < len(seated) else "",
                "bot" if seat == field_.seat_of_subject(k) else "opponent",
                ERROR_KINDS[kind] if 0 <= kind < len(ERROR_KINDS) else "raised",
                errors.get(row, "forfeit"),
            )
        if watch is not None:
            watch.done(1)
        tally.end(deal, forfeit=forfeit, capped=status == TURN_CAP, game=(table, k))


def _extras(subject: Subject, failed: str | None) -> tuple[list[Strategy], str | None]:
    """Fresh instances of the subject's other bots (the diff's shadow) and the line of
    their failure: a shadow that cannot be built fails (the game goes on without it),
    never the seat's forfeit."""
    if failed is not None:
        return [], failed
    try:
        return [spec.create() for spec in subject.bots[1:]], None
    except Exception as exc:
        return [], f"turn 0, __init__(): it raised {type(exc).__name__}: {safe_text(exc, 200)}"


def _named(subject: Subject, extra: list[Strategy]) -> list[tuple[Any, str]]:
    """The subject's other bots (the diff's shadow) with the names their output gets."""
    names = getattr(subject, "extra_names", ())
    return [(bot, name) for bot, name in zip(extra, names, strict=False) if bot is not None]


def _check(wrappers: Sequence[Strategy | None]) -> None:
    """An error of a wrapper itself (a bug of the coach, never the bot's) is raised."""
    for w in wrappers:
        error = getattr(w, "error", None)
        if error is not None:
            raise RuntimeError(f"the coach's own valuation failed: {error!r}") from error


def replay_game(
    field_: Field, subject: Subject, tally: Any, where: Any, watch: Any = None
) -> tuple[GameResult, Any] | None:
    """The game at ``where`` (deal, table, seat order) played again on the Python engine,
    under the field's seat settings, with its record (its seed is the deal's: ``harness
    play ... --seed SEED --dice duplicate``), and what ``tally`` (made to catch
    ``where.index``) caught in it; None if it did not play the same way again (a bot
    that is not the same from one game to the next, or a time limit met this time)."""
    dice = DuplicateDice(deal_seed(field_.seed, where.deal))
    seating = Seating(field_, subject, watch)
    try:
        result, _ = _python_game(
            field_, subject, tally, where.table, where.deal, where.order, dice, seating,
            record=True, watch=watch,
        )  # fmt: skip
    finally:
        seating.close()
    if tally.caught is None or result.error is not None:
        return None
    return result, tally.caught


def default_workers() -> int:
    """The processes to use by default: the machine's cores (at most 8)."""
    return max(1, min(8, os.cpu_count() or 1))


__all__ = [
    "BLOCK_GAMES",
    "Decided",
    "Field",
    "Seating",
    "Subject",
    "Tally",
    "default_workers",
    "forfeit_of",
    "make_field",
    "play_part",
    "replay_game",
    "resolve_all",
    "shown_names",
    "spec_of",
    "tables_for",
]
