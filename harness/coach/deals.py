"""Playing a bot's deals for the coach and the diff: natively where the seats allow.

The bot under study (the *subject*) sits at one table per group of opponents
(:func:`tables_for`) and plays every deal of the run in every seat order of the balanced
design (:mod:`harness.game.seating`) on duplicate dice: deal d's dice are a tournament's deal
d with the same seed (:func:`harness.tourney.plan.deal_seed`), so the coach's games are
the games ``harness tourney`` plays for those entrants and that seed, and each one replays
with ``harness play ... --seed SEED --dice duplicate`` in its seat order.

The subject's seat is a wrapper that sees every question (:class:`~harness.coach.audit.
Audited` for the coach, :class:`~harness.coach.shadow.Shadowed` for the diff). On the
native engine (``engine: auto`` where it can, as everywhere) that seat is a Python seat
called back from C (:mod:`harness.native.seats`) and the opponents play natively; on the
Python engine every seat plays there. The games are the same either way.

Deals are cut into blocks of a fixed size, whatever the worker count; each block is
played into a fresh tally and the tallies are merged in block order, so the sums are the
same to the last bit for any number of workers. Workers are forked processes (the
subject and opponents are already loaded: nothing of a plugin runs twice at import);
where the platform cannot fork, the blocks are played in this process.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Protocol

from harness.errors import HarnessError, safe_text
from harness.game.dice import DuplicateDice
from harness.game.engine import DEFAULT_MAX_TURNS, GameError, GameResult, build_instances
from harness.game.rules import Rules
from harness.game.seating import Design, design, seats_of
from harness.game.strategy import Strategy
from harness.interrupts import plugin_interrupts_only
from harness.plugins import StrategySpec, resolve
from harness.runfolder.schema import FORFEIT, TURN_CAP
from harness.seats.settings import SeatSettings
from harness.tourney.plan import deal_seed

#: Games a block holds, about: blocks are the unit of work and of merging.
BLOCK_GAMES = 200


class Tally(Protocol):
    """What the subject's seat reports into: a game begins, a game ends; tallies of
    disjoint deals merge."""

    def begin(self, deal: int, table: int, order: int) -> None: ...

    def end(self, deal: int, *, forfeit: str | None, capped: bool) -> None: ...

    def merge(self, other: Any) -> None: ...


class Subject(Protocol):
    """The subject's seat: its display name, and a fresh wrapper per game that reports
    into ``tally`` (the wrapper's ``error`` is an error of the wrapper itself)."""

    name: str

    def make(self, tally: Any) -> Strategy: ...


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
    """Where the subject plays: rules, opponents, tables, deals, seed and engine."""

    rules: Rules
    opponents: tuple[StrategySpec, ...]
    seed: int
    deals: int
    engine: str = "auto"
    max_turns: int = DEFAULT_MAX_TURNS

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
        return [subject, *(self.opponents[j].label for j in self.tables[table])]

    def blocks(self) -> list[tuple[int, int]]:
        """The deal ranges of the work, of a size fixed by the field alone."""
        size = max(1, BLOCK_GAMES // self.games_per_deal)
        return [(a, min(a + size, self.deals)) for a in range(0, self.deals, size)]

    def seat_of_subject(self, order: int) -> int:
        return self.orders[order].index(0)

    def engine_for(self) -> str:
        """ "native" or "python", as ``engine`` asks: auto is native where it can play
        these tables (the subject as a Python seat); native refuses in one line."""
        if self.engine == "python":
            return "python"
        from harness import native

        why = native.refusal()
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


def make_field(
    opponents: Sequence[Any],
    rules: Rules | str | dict | None,
    players: int,
    deals: int,
    seed: int,
    settings: SeatSettings,
    max_turns: int,
) -> Field:
    """The field of a coach or a diff, checked (one line for a mistake) and resolved.

    Of the seat ``settings``, the engine is the field's; the coach and the diff time no
    seat and isolate none (their wrapped seats value every question in this process), so
    limits are one line here, and the luck mode is not theirs (they keep their own
    account)."""
    if settings.limited:
        raise HarnessError(
            "seat limits (move_time, game_time, isolation): the coach and the diff play "
            "without them; leave them out"
        )
    if not 1 <= deals <= 10_000_000:
        raise HarnessError(f"--deals: {deals:,}; give 1 to 10,000,000")
    if not opponents:
        raise HarnessError("--opponent: give at least one opponent")
    game_rules = Rules.coerce(rules, players=players)
    opponent_specs = resolve_all(opponents, "opponent")
    return Field(game_rules, opponent_specs, seed, deals, settings.engine, max_turns)


# -- one block ----------------------------------------------------------------------------
def play_block(
    field: Field, subject: Subject, tally: Tally, first: int, stop: int, engine: str
) -> None:
    """Deals ``first``..``stop - 1`` at every table of the field, into ``tally``."""
    for t in range(len(field.tables)):
        if engine == "native":
            _native_table(field, subject, tally, t, first, stop)
        else:
            for deal in range(first, stop):
                dice = DuplicateDice(deal_seed(field.seed, deal))
                for k in range(len(field.orders)):
                    _python_game(field, subject, tally, t, deal, k, dice)


def _python_game(
    field: Field,
    subject: Subject,
    tally: Tally,
    table: int,
    deal: int,
    k: int,
    dice: DuplicateDice,
    *,
    record: bool = False,
) -> tuple[GameResult, Strategy]:
    """One game on the Python engine (its record if asked); the subject's wrapper too."""
    from harness.play import play_observed

    order = field.orders[k]
    entrants = [None, *(field.opponents[j] for j in field.tables[table])]
    wrapper: list[Strategy] = []

    def subject_factory() -> Strategy:
        made = subject.make(tally)
        wrapper.append(made)
        return made

    factories = [subject_factory if e is None else e.create for e in entrants]
    names = seats_of(field.names(subject.name, table), order)
    tally.begin(deal, table, k)
    instances, failed = build_instances(seats_of(factories, order), names)
    result = play_observed(
        instances,
        field.rules,
        dice,
        names=names,
        seed=dice.key,
        max_turns=field.max_turns,
        record=record,
        forfeit=True,
        decided=failed,
    )
    _check(wrapper)
    mine = field.seat_of_subject(k)
    error: GameError | None = result.error
    forfeit = safe_text(error) if error is not None and error.seat == mine else None
    tally.end(deal, forfeit=forfeit, capped=result.capped)
    return result, wrapper[0] if wrapper else None  # type: ignore[return-value]


def _native_table(
    field: Field, subject: Subject, tally: Tally, table: int, first: int, stop: int
) -> None:
    from harness import native

    entrants = [_SUBJECT, *(field.opponents[j] for j in field.tables[table])]
    names = field.names(subject.name, table)
    made: list[Strategy] = []

    def factory(entrant: Any) -> Callable[[], Strategy]:
        if entrant is _SUBJECT:

            def fresh() -> Strategy:
                wrapper = subject.make(tally)
                made.append(wrapper)
                return wrapper

            return fresh
        return entrant.create

    def playing(deal: int, k: int, row: int, names: list, instances: list) -> None:
        tally.begin(deal, table, k)

    orders = field.orders
    host = native.seat_host(
        field.rules,
        entrants,
        names,
        orders,
        factory,
        max_turns=field.max_turns,
        first=first,
        playing=playing,
    )
    played = native.play_deals(
        field.rules,
        entrants,
        field.seed,
        first,
        stop,
        orders=orders,
        dice="duplicate",
        max_turns=field.max_turns,
        host=host,
    )
    _check(made)
    games = played.games
    errors = host.errors if host is not None else {}
    for row in range(len(games["deal"])):
        deal, k = games["deal"][row], games["seating"][row]
        status = games["status"][row]
        forfeit = None
        if status == FORFEIT and games["error_seat"][row] == field.seat_of_subject(k):
            forfeit = errors.get(row, "forfeit")
        tally.end(deal, forfeit=forfeit, capped=status == TURN_CAP)


def _check(wrappers: Sequence[Strategy]) -> None:
    """An error of a wrapper itself (a bug of the coach, never the bot's) is raised."""
    for w in wrappers:
        error = getattr(w, "error", None)
        if error is not None:
            raise RuntimeError(f"the coach's own valuation failed: {error!r}") from error


def replay_game(field: Field, subject: Subject, tally: Any, where: Any) -> tuple[GameResult, Any]:
    """The game at ``where`` (deal, table, seat order) played again on the Python engine,
    with its record (its seed is the deal's: ``harness play ... --seed SEED --dice
    duplicate``), and what ``tally`` (made to catch ``where.index``) caught in it."""
    dice = DuplicateDice(deal_seed(field.seed, where.deal))
    result, _ = _python_game(
        field, subject, tally, where.table, where.deal, where.order, dice, record=True
    )
    if tally.caught is None:  # pragma: no cover - a game replays as it was played
        raise RuntimeError(f"the example at {where} did not replay")
    return result, tally.caught


# -- all the blocks ------------------------------------------------------------------------
_JOB: tuple[Field, Subject, Callable[[], Any], str] | None = None  # for forked workers


def _play_one_block(bounds: tuple[int, int]) -> Any:
    assert _JOB is not None
    field, subject, new_tally, engine = _JOB
    started = time.process_time()
    tally = _play_block_here(field, subject, new_tally, engine, bounds)
    return bounds, tally, time.process_time() - started


def play_field(
    field: Field,
    subject: Subject,
    new_tally: Callable[[], Any],
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Any, str, float]:
    """Every deal of the field, merged into one tally (block order), the engine used and
    the CPU seconds of worker processes (0 when the blocks are played here).

    ``workers`` processes play the blocks (1: this process); ``progress(games done,
    games)`` is told after each block.
    """
    global _JOB
    engine = field.engine_for()
    blocks = field.blocks()
    total = field.games
    merged = new_tally()
    done: dict[int, Any] = {}
    games_done = 0
    forkable = "fork" in multiprocessing.get_all_start_methods()
    if workers <= 1 or len(blocks) == 1 or not forkable:
        results: Iterator[Any] = (
            (b, _play_block_here(field, subject, new_tally, engine, b), 0.0) for b in blocks
        )
        pool = None
    else:
        _JOB = (field, subject, new_tally, engine)
        pool = multiprocessing.get_context("fork").Pool(
            min(workers, len(blocks)), initializer=plugin_interrupts_only
        )
        results = pool.imap_unordered(_play_one_block, blocks)
    cpu = 0.0
    try:
        at = 0
        for bounds, tally, used in results:
            cpu += used
            done[bounds[0]] = tally
            games_done += (bounds[1] - bounds[0]) * field.games_per_deal
            while at < len(blocks) and blocks[at][0] in done:  # merge in block order
                merged.merge(done.pop(blocks[at][0]))
                at += 1
            if progress is not None:
                progress(games_done, total)
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        if pool is not None:
            pool.terminate()
        _JOB = None
    return merged, engine, cpu


def _play_block_here(
    field: Field, subject: Subject, new_tally: Callable[[], Any], engine: str, b: tuple[int, int]
) -> Any:
    tally = new_tally()
    play_block(field, subject, tally, b[0], b[1], engine)
    return tally


def default_workers() -> int:
    """The processes to use by default: the machine's cores (at most 8)."""
    return max(1, min(8, os.cpu_count() or 1))


__all__ = [
    "BLOCK_GAMES",
    "Field",
    "Subject",
    "Tally",
    "default_workers",
    "make_field",
    "play_block",
    "play_field",
    "replay_game",
    "resolve_all",
    "spec_of",
    "tables_for",
]
