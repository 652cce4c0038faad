"""The batches: games played natively, row by row, into the columns a chunk stores.

:func:`play_deals` is the chunk path (deal seeds derived in C, every deal in every seat
order of the design), :func:`play_games` plays explicit rows, :func:`column_counts` counts
a chunk's standings in C; :func:`check_table` says whether a table can play natively
before anything is played, and :func:`seat_host` makes the host of a table's Python
seats. Each turns its rules, seats and design into the plain values the C code takes
(:mod:`harness.native.columns`) and hands back a :class:`NativeResult`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from harness.game.dice import DICE_MODES
from harness.game.engine import DEFAULT_MAX_TURNS
from harness.game.ranking import Counts
from harness.game.rules import Rules
from harness.native.columns import (
    DETAIL_BYTES,
    SEATING,
    STAT_FIELDS,
    NativeResult,
    account_c,
    design_c,
    flat,
    new_columns,
    orders_c,
    rules_c,
)
from harness.native.evaluators import install as install_evaluator
from harness.native.evaluators import prepare as prepare_evaluators
from harness.native.extension import NotNative, loaded
from harness.native.kinds import native_seat, supports
from harness.native.seats import SeatHost
from harness.native.sources import account_stale
from harness.runfolder.schema import WIN

_INT64 = 1 << 63


def _prepare(
    rules: Rules | str | dict | None,
    strategies: Sequence[Any],
    dice: str,
    max_turns: int,
    python: Sequence[bool] = (),
    account: bool | str = False,
) -> tuple[Rules, tuple, int]:
    core = loaded()
    if account and account_stale(account == WIN):
        raise NotNative(
            "the luck account (harness.analysis.account) differs from the one the native "
            "engine mirrors"
        )
    game_rules = Rules.coerce(rules, players=len(strategies))
    if dice not in DICE_MODES:
        raise NotNative(f"dice {dice!r}: the native engine plays {', '.join(DICE_MODES)}")
    if type(max_turns) is not int or max_turns > 32767:
        raise NotNative(f"max_turns {max_turns!r}: the native engine takes ints up to 32767")
    # python[e]: entrant e is a Python seat (its host decides); the rest must be native.
    seats = tuple(
        (core.PYTHON_SEAT,) if e < len(python) and python[e] else native_seat(s).as_c()
        for e, s in enumerate(strategies)
    )
    prepare_evaluators(game_rules, seats)  # win-optimal's, in this process
    if account == WIN:  # the win account's (winluck): the evaluator of the rules
        install_evaluator(game_rules)
    return game_rules, seats, int(dice == "duplicate")


def _python_of(host: SeatHost | None, players: int) -> tuple[bool, ...]:
    """Which entrants are Python seats: those the host has a factory for."""
    if host is None:
        return ()
    if len(host.factories) != players:
        raise ValueError(f"host: {len(host.factories)} entrants for {players} strategies")
    return tuple(f is not None for f in host.factories)


def seat_host(
    rules: Rules,
    strategies: Sequence[Any],
    names: Sequence[str],
    orders: Sequence[Sequence[int]],
    factory: Any,
    **hooks: Any,
) -> SeatHost | None:
    """The host of a table's Python seats (None: every seat is native).

    An entrant with no native version (:func:`native_seat` says NotNative) is a Python
    seat, built per game by ``factory(strategy)``; ``hooks`` are
    :class:`~harness.native.seats.SeatHost`'s keywords (``max_turns``, ``first``, ``mark``,
    ``playing``, ``forfeited``, ``times``, ``timed``).
    """
    factories: list[Any] = []
    for s in strategies:
        try:
            native_seat(s)
            factories.append(None)
        except NotNative:
            factories.append(factory(s))
    if all(f is None for f in factories):
        return None
    return SeatHost(rules, factories, names, orders, **hooks)


def _seed_column(values: Iterable[int], what: str) -> array:
    column = array("q")
    for v in values:
        if type(v) is not int or not -_INT64 <= v < _INT64:
            raise NotNative(f"{what}: {v!r} is not an int64 seed (the native engine needs one)")
        column.append(v)
    return column


def play_games(
    rules: Rules | str | dict | None,
    strategies: Sequence[Any],
    seeds: Iterable[int],
    game_seeds: Iterable[int] | None = None,
    seatings: Iterable[int] | None = None,
    *,
    orders: Sequence[Sequence[int]] | None = None,
    dice: str = "independent",
    max_turns: int = DEFAULT_MAX_TURNS,
    detail: bool = False,
    host: SeatHost | None = None,
    account: bool | str = False,
) -> NativeResult:
    """Play one game per seed natively; the columns a chunk stores, row by row.

    ``strategies`` are the table's entrants; seat i of a row with seating k holds entrant
    ``orders[k][i]`` (``orders`` defaults to the cyclic design: k = 0 is the entrants in
    the order given). With ``dice="independent"`` a row is ``Game(...,
    SeededDice(game_seed), seed=game_seed)``; with ``"duplicate"`` it is ``Game(...,
    DuplicateDice(seed), seed=game_seed)``. ``game_seeds`` default to ``seeds`` (so row k
    is ``play_game(..., seed=seeds[k])``), seatings to 0; the ``deal`` column is the row
    number. NotNative when something cannot play natively; ValueError for a bad design
    or a seating that is not an index into it. With ``host``, its Python seats play
    through it (built with ``first=None``: its rows are the row numbers). With
    ``account``, every seat's luck account is kept too (see :class:`NativeResult`).
    """
    python = _python_of(host, len(strategies))
    game_rules, seats, duplicate = _prepare(rules, strategies, dice, max_turns, python, account)
    seed_col = _seed_column(seeds, "seed")
    rows = len(seed_col)
    gseed_col = seed_col if game_seeds is None else _seed_column(game_seeds, "game_seed")
    if len(gseed_col) != rows:
        raise ValueError(f"{len(gseed_col)} game seeds for {rows} seeds")
    games, seat_cols = new_columns(game_rules.players, rows, account)
    games["seed"] = seed_col
    games["game_seed"] = array("q", gseed_col)
    games["deal"] = array("i", range(rows))
    design = design_c(orders, game_rules.players)
    if seatings is not None:
        try:
            seating_col = array("b", seatings)
        except (TypeError, OverflowError):
            raise ValueError("seatings: order indices 0..126, one per seed") from None
        if len(seating_col) != rows:
            raise ValueError(f"{len(seating_col)} seatings for {rows} seeds")
        games[SEATING] = seating_col
    boards = bytearray(rows * DETAIL_BYTES) if detail else None
    loaded().play_games(
        rules_c(game_rules),
        seats,
        max_turns,
        duplicate,
        rows,
        design,
        flat(games, seat_cols),
        boards,
        None if host is None else host.callbacks,
        account_c(seat_cols, account),
    )
    return NativeResult(games, seat_cols, boards)


def prefix_c(seed: int) -> bytes:
    """What the deal seeds hash before the deal: ``derive_seed(seed, "deal", deal)``
    (harness.game.seating.deal_seed) is BLAKE2b of ``f"{seed}\x1fdeal\x1f{deal}"``."""
    prefix = "\x1f".join((str(seed), "deal", "")).encode()
    if len(prefix) > 512:
        raise NotNative("the run's seed is too long for the native engine")
    return prefix


def check_table(
    rules: Rules | str | dict | None,
    strategies: Sequence[Any],
    seed: int,
    *,
    dice: str = "independent",
    max_turns: int = DEFAULT_MAX_TURNS,
    python: bool = False,
    account: bool | str = False,
) -> None:
    """NotNative unless :func:`play_deals` can play this table (nothing is played):
    what a planner asks before it hands a table to the native engine. ``python``: a
    seat with no native version may play as a Python seat (a mixed table); ``account``:
    with the luck account kept."""
    flags = [python and not supports([s]) for s in strategies] if python else ()
    _prepare(rules, strategies, dice, max_turns, flags, account)
    prefix_c(seed)


def play_deals(
    rules: Rules | str | dict | None,
    strategies: Sequence[Any],
    seed: int,
    first: int,
    stop: int,
    *,
    orders: Sequence[Sequence[int]],
    dice: str = "independent",
    max_turns: int = DEFAULT_MAX_TURNS,
    start: int = 0,
    detail: bool = False,
    host: SeatHost | None = None,
    account: bool | str = False,
    progress: Any = None,
) -> NativeResult:
    """Deals ``first``..``stop - 1``, each in every seat order: what ``play_chunk`` plays.

    Row order, seeds and values are play_chunk's: rows by deal, then order index k;
    seat i of order k holds ``strategies[orders[k][i]]``; deal seed ``deal_seed(seed,
    deal)``, game seed ``game_seed(deal seed, k, dice)``, dice from
    :func:`harness.tourney.chunks.dice_for`. Rows before ``start`` (a resumed chunk)
    are left out. The seeds are derived in C (BLAKE2b, as
    :func:`harness.game.dice.derive_seed`). With ``host``, its Python seats play through it
    (built with ``first`` the same first deal). With ``account``, every seat's luck
    account is kept too (see :class:`NativeResult`). ``progress``: a writable buffer of a
    double (a slot of shared memory) that gets the chunk row of each game as it starts,
    so that another process can show progress game by game.
    """
    python = _python_of(host, len(strategies))
    game_rules, seats, duplicate = _prepare(rules, strategies, dice, max_turns, python, account)
    if type(first) is not int or type(stop) is not int or not 0 <= first <= stop < 2**31:
        raise NotNative(f"deals {first!r}..{stop!r}: the native engine takes 0 <= first <= stop")
    prefix = prefix_c(seed)
    n = game_rules.players
    design = orders_c(orders, n)
    total = (stop - first) * (len(design) // n)
    if type(start) is not int or not 0 <= start <= total:
        raise ValueError(f"start {start!r} is outside the chunk's {total} rows")
    rows = total - start
    games, seat_cols = new_columns(n, rows, account)
    boards = bytearray(rows * DETAIL_BYTES) if detail else None
    loaded().play_deals(
        rules_c(game_rules),
        seats,
        max_turns,
        duplicate,
        prefix,
        first,
        stop,
        start,
        design,
        flat(games, seat_cols),
        boards,
        None if host is None else host.callbacks,
        account_c(seat_cols, account),
        progress,
    )
    return NativeResult(games, seat_cols, boards)


def column_counts(
    games: dict[str, array],
    seats: list[dict[str, array]],
    players: int,
    orders: Sequence[Sequence[int]] | None = None,
) -> list[Counts]:
    """:func:`harness.tourney.chunk_result.chunk_stats` of these columns, counted in C: one
    :class:`~harness.game.ranking.Counts` per table entrant.

    Per table entrant: seat i of a row with seating k holds entrant ``orders[k][i]``
    (None: the cyclic design). ValueError for a bad design or a seating outside it.
    """
    core = loaded()
    rows = len(games[SEATING])
    counters = core.chunk_stats(
        players,
        rows,
        design_c(orders, players),
        games[SEATING],
        games["status"],
        games["error_seat"],
        tuple(s["worms"] for s in seats),
        tuple(s["rank"] for s in seats),
    )
    per = len(STAT_FIELDS) + players + 1  # the counters, then shared[0..players]
    stats = []
    for e in range(players):
        v = dict(zip(STAT_FIELDS, counters[e * per : (e + 1) * per], strict=False))
        shared = counters[e * per + len(STAT_FIELDS) : (e + 1) * per]
        stats.append(
            Counts.from_firsts(
                v["games"], v["wins"], shared, v["worms"], v["rank"], v["forfeits"], v["capped"]
            )
        )
    return stats
