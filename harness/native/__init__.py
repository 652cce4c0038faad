"""The native engine tier: built-in tables played in C, bit-identical to the Python engine.

The C extension ``harness._native_core`` (harness/native/c/core.c, built by setup.py when
a C compiler is there) plays whole batches of games: the engine (R1-R11 and every
variant), the dice (the same draws as :mod:`harness.game.dice`: same seed, same dice) and
the built-in strategies that have a native version (:data:`NATIVE_STRATEGIES`). This
module is its only door: it decides which seats can play natively, turns rules and
seats into the plain values the C code takes, and hands back the columns a chunk
stores (the same arrays and typecodes as :func:`harness.tourney.chunks.play_chunk`).
It is a peer of the Python engine (:mod:`harness.game.engine`) and imports nothing of the
tourney room: playing a ChunkSpec natively is the tourney's
(:func:`harness.tourney.chunks.play_native`).

A table is played in the seat orders of a seating design
(:mod:`harness.game.seating`): order k puts table entrant ``orders[k][i]`` in seat i,
and the stored ``seating`` column holds k. The C code takes the design as bytes and
checks it again (every order a permutation, 1 to 127 orders): a bad design is a
ValueError, never a seat read out of bounds.

The Python engine stays the reference. A seat plays natively only when its class is
exactly the built-in class and the built-in's source is the source the C code was
transcribed from (:data:`_SOURCES`); anything else (a plugin, a subclass, an edited
built-in, a parameter that is not a plain number) is :class:`NotNative` on its own. Such
a seat can still sit at a native table as a *Python seat*: given a
:class:`~harness.native.seats.SeatHost` (``host=``), the C code plays the game and the
built-ins and calls back into the host for that seat's decisions, with the Python
engine's containment (:mod:`harness.native.seats`). Without the extension,
:func:`available` is False and nothing here plays.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from harness.game.dice import DICE_MODES
from harness.game.engine import DEFAULT_MAX_TURNS
from harness.game.ranking import Counts
from harness.game.rules import Rules
from harness.game.seating import design
from harness.game.strategy import ParameterError, check_instance
from harness.native.seats import SeatHost
from harness.runfolder.schema import ACCOUNT_ARRAYS, GAME_ARRAYS, SEAT_ARRAYS

try:  # the optional extension; absent on a machine that had no C compiler
    import harness._native_core as _core
except ImportError:  # pragma: no cover - exercised by the HARNESS_NO_NATIVE CI step
    _core = None

# The columns a chunk fills (harness.runfolder.schema), in the order the C code takes its buffers.
GAME_COLUMNS: dict[str, str] = GAME_ARRAYS
SEAT_COLUMNS: dict[str, str] = SEAT_ARRAYS
# The game columns in the order core.c's get_out takes them (not the dict's order, which
# is the schema's to change); the seat order's index is the schema's seating column.
SEATING = "seating"
_C_GAME_COLUMNS = (
    "deal", SEATING, "seed", "game_seed", "turns", "status", "winner", "error_seat", "error_kind"
)  # fmt: skip
_C_SEAT_COLUMNS = ("worms", "rank", "busts", "steals", "stolen")
# The luck account's columns per seat (harness.analysis.account, kept by account.inc.c), in the
# order core.c's get_account takes them: its float64 sums, then its int16 counts.
ACCOUNT_COLUMNS: dict[str, str] = ACCOUNT_ARRAYS
_C_ACCOUNT_COLUMNS = (
    "par", "luck", "wluck", "regret_pick", "regret_stop", "regret_claim",
    "rolls", "picks", "stops", "claims",
)  # fmt: skip
MAX_ORDERS = 127  # the seating column is an int8 (core.c's MAX_ORDERS; a test ties them)
_INT64 = 1 << 63
_EXACT = 1 << 53  # ints a double holds exactly: parameters compare as doubles in C

# name -> (C kind, module, class, the parameters the C code reads, as attributes)
_KINDS: dict[str, tuple[int, str, str, tuple[str, ...]]] = {
    "greedy": (0, "harness.strategies.greedy", "Greedy", ()),
    "threshold": (1, "harness.strategies.threshold", "Threshold", ("target",)),
    "worm-first": (2, "harness.strategies.worm_first", "WormFirst", ("target", "min_dice")),
    "simple": (3, "harness.strategies.simple", "Simple", ()),
    "env-heuristic": (4, "harness.strategies.env_heuristic", "EnvHeuristic", ()),
    "tactician": (5, "harness.strategies.tactician", "Tactician", ("caution", "worm_by")),
    "random": (6, "harness.strategies.random_play", "RandomPlay", ("p_stop",)),
    "optimal": (7, "harness.strategies.optimal", "Optimal", ("endgame", "spread", "flip")),
}
# Modules a native strategy mirrors besides its own and harness.strategies._common.
_ALSO: dict[str, tuple[str, ...]] = {"optimal": ("harness.analysis.turn",)}
NATIVE_STRATEGIES: tuple[str, ...] = tuple(_KINDS)
"""The built-in strategies that have a native version."""

# SHA-256 of the source files each native strategy was transcribed from. A built-in
# whose source differs (someone improved it) is not played natively until the C code
# and this table are brought along: silently playing the old decisions would break
# "bit-identical". tests/native/test_native.py fails when a digest is stale.
_PKG = "harness.strategies"  # the built-ins' package (the repository's strategies/)
_COMMON = f"{_PKG}._common"
_SOURCES: dict[str, str] = {
    f"{_PKG}._common": "01f8cc85d6f8bdf3a54057b2af4a3b0b56827afd2bd2366e65ce891525fc7ae6",
    f"{_PKG}.greedy": "fa222f77607cecf48bf78ac9577e1c62f612f57dfe933d37e8cc7b6dce809572",
    f"{_PKG}.threshold": "180e513e15a1afe47500ac89049c60e49135df1093e0b29128be9700ffd6bc42",
    f"{_PKG}.worm_first": "4b8c0bb074b3227b916c7760a8c2841b67e9fbf66bae823ac51f5f9f93128d60",
    f"{_PKG}.simple": "1963c39bf79679795ab28a5353aadbe4cc8e9023035fa801839b0a07d6a561f9",
    f"{_PKG}.env_heuristic": "f237983b9959688c64423e3c67d70a716bb88cd5c6c2bc9ef46dd39c8798a83c",
    f"{_PKG}.tactician": "e8b84ccb82db7cceb2aeecd60cbfae51e81de33f6fc65fbd3958fde8c74725b0",
    f"{_PKG}.random_play": "1c2580a9204a26141886347495d8934849ea2814cc2529d659b8f368f9cf461a",
    f"{_PKG}.optimal": "05a4b7034fc3430f0ab7bfd53a18cfeb7f22cfa1d40c8561f6c5e4d49ed98b5c",
    "harness.analysis.turn": "f2eb5b4c4d47e23328ccfc0f5d670466cf3140be397a181e33be2d9a2b9349e7",
    # the luck account's reference: account.inc.c mirrors its Accountant, float for float
    "harness.analysis.account": "810e0711074d4d430b0c49c88535dd5cb78613cac39a5d9f4f6cccbd018a5959",
}
_ACCOUNT_SOURCES = ("harness.analysis.account", "harness.analysis.turn")


class NotNative(ValueError):
    """A seat, rule set or seed the native engine does not play (use the Python engine)."""


def available() -> bool:
    """True when the extension is built and importable in this process."""
    return _core is not None


class Limits(Protocol):
    """What :func:`refusal` reads of the seat settings: a
    :class:`harness.seats.settings.SeatSettings` or its ``limits`` (this tier imports
    nothing above it, so it names the fields, not the class)."""

    @property
    def move_time(self) -> float | None: ...
    @property
    def game_time(self) -> float | None: ...
    @property
    def isolation(self) -> str: ...


def refusal(settings: Limits | None = None) -> str | None:
    """Why the native engine may not play under these seat settings (None: no limits),
    whatever the seats (None: it may): the one answer to "may the native engine play
    this?" that a tournament's table, a single game, a chunk, the coach and an RL
    environment all start from (each then asks what only it knows: the seats, the seed,
    a record). Limits stay on the Python engine: their verdicts are replayed turn by turn
    there."""
    if not available():
        return "the native engine is not built in this installation (no C compiler at install)"
    if settings is None:
        return None
    if settings.move_time is not None or settings.game_time is not None:
        return "seat limits (the time limits move_time, game_time) run on the Python engine"
    if settings.isolation != "none":
        return "process isolation runs on the Python engine"
    return None


@dataclass(frozen=True)
class NativeSeat:
    """A seat's native strategy: the C kind and its parameters (as doubles)."""

    name: str
    kind: int
    params: tuple[float, ...] = ()

    def as_c(self) -> tuple:
        return (self.kind, *self.params)


def source_digest(module_name: str) -> str | None:
    """SHA-256 of a module's source file (None if it cannot be read)."""
    module = sys.modules.get(module_name)
    if module is None:
        try:
            module = __import__(module_name, fromlist=["_"])
        except Exception:  # noqa: BLE001 - a broken built-in is simply not native
            return None
    try:
        return hashlib.sha256(inspect.getsource(module).encode()).hexdigest()
    except (OSError, TypeError):
        return None


_STALE: dict[str, bool] = {}


def _stale(name: str) -> bool:
    """Whether a native strategy's sources are not the ones the C code mirrors (cached)."""
    found = _STALE.get(name)
    if found is None:
        modules = (_KINDS[name][1], _COMMON, *_ALSO.get(name, ()))
        found = _STALE[name] = any(source_digest(m) != _SOURCES[m] for m in modules)
    return found


def _refuse_stale(name: str) -> None:
    if _stale(name):
        raise NotNative(f"{name}: its source differs from the one the native engine mirrors")


def _account_stale() -> bool:
    """Whether the luck account's reference is not the source account.inc.c mirrors (cached)."""
    found = _STALE.get(" account")  # not a strategy's name
    if found is None:
        found = _STALE[" account"] = any(source_digest(m) != _SOURCES[m] for m in _ACCOUNT_SOURCES)
    return found


_CLASSES: dict[str, type | None] = {}


def _builtin_class(name: str) -> type | None:
    """The built-in class a native kind mirrors (None if its module cannot be imported)."""
    if name not in _CLASSES:
        _, module_name, class_name, _ = _KINDS[name]
        try:
            module = __import__(module_name, fromlist=[class_name])
            _CLASSES[name] = getattr(module, class_name)
        except Exception:  # noqa: BLE001 - a broken built-in is simply not native
            _CLASSES[name] = None
    return _CLASSES[name]


def _number(value: Any, where: str) -> float:
    if type(value) is float:
        return value
    if type(value) in (int, bool) and -_EXACT <= value <= _EXACT:
        return float(value)
    raise NotNative(f"{where}: {value!r} is not a plain number the native engine can use")


def native_seat(strategy: Any) -> NativeSeat:
    """The native version of a strategy, or NotNative saying why there is none.

    ``strategy`` is a reference (``"threshold(target=28)"``), a resolved
    :class:`~harness.plugins.StrategySpec`, an instance of a built-in class, or a
    :class:`NativeSeat`. The class is recognised by identity alone (nothing of a
    plugin's runs here: not its ``name``, not its metaclass). The parameters it plays
    with are held to the built-in's declared bounds first
    (:func:`harness.strategy.check_instance`): one out of them is a
    :class:`~harness.strategy.ParameterError`, as on the Python engine, never a seat
    played with it (the C code refuses it too). A constructor that raises otherwise is
    NotNative (its forfeit is the Python engine's to report).
    """
    from harness.plugins import StrategySpec, resolve

    if type(strategy) is NativeSeat:
        return strategy
    if type(strategy) is str:
        try:
            strategy = resolve(strategy)
        except ParameterError:
            raise  # the one refusal either engine gives
        except Exception as exc:  # noqa: BLE001 - a bad reference: not ours to report
            raise NotNative(f"{strategy}: {exc}") from None
    key = None
    if type(strategy) is StrategySpec:
        cls, instance, make = strategy.cls, None, strategy.create
        key = _spec_key(strategy)
        if key is not None and key in _SEATS:
            _refuse_stale(_SEATS[key].name)  # a kept seat is no license: asked every time
            return _SEATS[key]
    else:
        cls, instance, make = type(strategy), strategy, None
    seat = _native_of(cls, instance, make)
    if key is not None:
        if len(_SEATS) >= _SEATS_KEPT:
            _SEATS.clear()
        _SEATS[key] = seat
    return seat


# The native seats of resolved specs: a plan asks for every entrant of every table (635,376
# tables of 4 seats for a 64-value sweep), and a built-in's class and parameters decide its
# seat, so each is worked out once (an instance built and checked), then looked up.
_SEATS: dict[tuple[Any, ...], NativeSeat] = {}
_SEATS_KEPT = 4096


def _spec_key(spec: Any) -> tuple[Any, ...] | None:
    """What decides a spec's native seat (its class and parameters), or None when its
    parameters cannot be a dict key (then it is worked out every time)."""
    try:  # the types too: 28 and 28.0 are one dict key but not one parameter
        key = (spec.cls, tuple((name, type(value), value) for name, value in spec.params))
        hash(key)
    except (TypeError, ValueError):
        return None
    return key


def _native_of(cls: type, instance: Any, make: Any) -> NativeSeat:
    """:func:`native_seat` of a class and its instance (or its maker)."""
    name = next((n for n in _KINDS if _builtin_class(n) is cls), None)
    if name is None:
        raise NotNative(f"{type.__repr__(cls)}: no native version (not a built-in)")
    kind, _, _, attributes = _KINDS[name]
    _refuse_stale(name)
    if make is not None:
        try:
            instance = make()
        except ParameterError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise NotNative(f"{name}: {exc}") from None
    check_instance(instance, label=name)
    params = tuple(_number(getattr(instance, a), f"{name}.{a}") for a in attributes)
    return NativeSeat(name, kind, params)


def supports(strategies: Iterable[Any]) -> bool:
    """True when the extension is here and every seat has a native version."""
    if not available():
        return False
    try:
        for s in strategies:
            native_seat(s)
    except NotNative:
        return False
    return True


def rules_c(rules: Rules) -> tuple[int, int, int, int, int]:
    """(players, lower_any, flip mode, flip_without_tile, keep_returned) for the C code."""
    flip = {"none": 0, "highest": 1, "lowest": 2}[rules.bust_flip]
    return (
        rules.players,
        int(rules.lower_tile == "any"),
        flip,
        int(rules.flip_without_tile),
        int(rules.returned_tile == "keep"),
    )


@dataclass
class NativeResult:
    """Columns of the games played, as a chunk stores them, plus the final boards.

    ``games`` and ``seats`` have the keys and typecodes of a
    :class:`~harness.tourney.chunks.ChunkResult`'s; played with ``account=True``, each
    ``seats[i]`` also holds the luck account's columns (:data:`ACCOUNT_COLUMNS`: the
    sums and counts of :class:`harness.analysis.account.Ledger`, bit for bit the
    Accountant's). ``detail`` (when asked for) holds each game's final grill, face-down
    tiles and stacks, read with :meth:`board`.
    """

    games: dict[str, array]
    seats: list[dict[str, array]]
    detail: bytearray | None = None

    @property
    def rows(self) -> int:
        return len(self.games["deal"])

    def board(self, row: int) -> dict[str, list]:
        """The final {"grill", "flipped", "stacks"} of a row (needs ``detail=True``)."""
        if self.detail is None:
            raise ValueError("no boards kept: play with detail=True")
        size = _core.DETAIL_BYTES
        d = self.detail[row * size : (row + 1) * size]
        grill = d[0] | d[1] << 8
        flipped = d[2] | d[3] << 8
        stacks = []
        for s in range(len(self.seats)):
            at = 4 + 17 * s
            stacks.append(list(d[at + 1 : at + 1 + d[at]]))
        return {
            "grill": [21 + i for i in range(16) if grill >> i & 1],
            "flipped": [21 + i for i in range(16) if flipped >> i & 1],
            "stacks": stacks,
        }


def _zeros(columns: dict[str, str], rows: int) -> dict[str, array]:
    return {k: array(code, bytes(rows * array(code).itemsize)) for k, code in columns.items()}


def _columns(
    players: int, rows: int, account: bool = False
) -> tuple[dict[str, array], list[dict[str, array]]]:
    games = _zeros(GAME_COLUMNS, rows)
    seat = {**SEAT_COLUMNS, **ACCOUNT_COLUMNS} if account else SEAT_COLUMNS
    return games, [_zeros(seat, rows) for _ in range(players)]


def _account_c(seats: list[dict[str, array]], account: bool) -> tuple | None:
    """The account's buffers as core.c takes them (None: no account kept)."""
    if not account:
        return None
    return tuple(s[k] for s in seats for k in _C_ACCOUNT_COLUMNS)


def _flat(games: dict[str, array], seats: list[dict[str, array]]) -> tuple:
    return (
        *(games[k] for k in _C_GAME_COLUMNS),
        *(s[k] for s in seats for k in _C_SEAT_COLUMNS),
    )


def orders_c(orders: Any, players: int) -> bytes:
    """A seating design as core.c takes it: ``players`` bytes per order, order by order.

    ValueError (one line) unless ``orders`` is 1 to 127 seat orders, each a permutation of
    the table's entrants 0..players-1 given as plain ints. The sequence is read once
    (a sequence that answers differently each time is judged on what it gave); the C
    code checks the bytes again.
    """
    try:
        rows = [tuple(order) for order in orders]
    except TypeError:
        raise ValueError("orders: expected a sequence of seat orders (sequences of ints)") from None
    if not 1 <= len(rows) <= MAX_ORDERS:
        raise ValueError(f"orders: {len(rows)} seat orders; a design has 1 to {MAX_ORDERS}")
    flat = bytearray()
    for k, order in enumerate(rows):
        if not all(type(e) is int for e in order) or sorted(order) != list(range(players)):
            raise ValueError(
                f"orders: order {k} is not a permutation of 0..{players - 1}: {order!r:.60}"
            )
        flat.extend(order)
    return bytes(flat)


def _prepare(
    rules: Rules | str | dict | None,
    strategies: Sequence[Any],
    dice: str,
    max_turns: int,
    python: Sequence[bool] = (),
    account: bool = False,
) -> tuple[Rules, tuple, int]:
    if _core is None:
        raise NotNative("the native engine is not built in this installation")
    if account and _account_stale():
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
        (_core.PYTHON_SEAT,) if e < len(python) and python[e] else native_seat(s).as_c()
        for e, s in enumerate(strategies)
    )
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
    account: bool = False,
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
    games, seat_cols = _columns(game_rules.players, rows, account)
    games["seed"] = seed_col
    games["game_seed"] = array("q", gseed_col)
    games["deal"] = array("i", range(rows))
    design_c = _design(orders, game_rules.players)
    if seatings is not None:
        try:
            seating_col = array("b", seatings)
        except (TypeError, OverflowError):
            raise ValueError("seatings: order indices 0..126, one per seed") from None
        if len(seating_col) != rows:
            raise ValueError(f"{len(seating_col)} seatings for {rows} seeds")
        games[SEATING] = seating_col
    boards = bytearray(rows * _core.DETAIL_BYTES) if detail else None
    _core.play_games(
        rules_c(game_rules),
        seats,
        max_turns,
        duplicate,
        rows,
        design_c,
        _flat(games, seat_cols),
        boards,
        None if host is None else host.callbacks,
        _account_c(seat_cols, account),
    )
    return NativeResult(games, seat_cols, boards)


def _design(orders: Any, players: int) -> bytes:
    """The design as bytes for the C code; None is the cyclic design."""
    return orders_c(design(players, "cyclic") if orders is None else orders, players)


def _prefix(seed: int) -> bytes:
    """What the deal seeds hash before the deal: ``derive_seed(seed, "deal", deal)``
    (harness.tourney.plan.deal_seed) is BLAKE2b of ``f"{seed}\x1fdeal\x1f{deal}"``."""
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
    account: bool = False,
) -> None:
    """NotNative unless :func:`play_deals` can play this table (nothing is played):
    what a planner asks before it hands a table to the native engine. ``python``: a
    seat with no native version may play as a Python seat (a mixed table); ``account``:
    with the luck account kept."""
    flags = [python and not supports([s]) for s in strategies] if python else ()
    _prepare(rules, strategies, dice, max_turns, flags, account)
    _prefix(seed)


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
    account: bool = False,
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
    prefix = _prefix(seed)
    n = game_rules.players
    design_c = orders_c(orders, n)
    total = (stop - first) * (len(design_c) // n)
    if type(start) is not int or not 0 <= start <= total:
        raise ValueError(f"start {start!r} is outside the chunk's {total} rows")
    rows = total - start
    games, seat_cols = _columns(n, rows, account)
    boards = bytearray(rows * _core.DETAIL_BYTES) if detail else None
    _core.play_deals(
        rules_c(game_rules),
        seats,
        max_turns,
        duplicate,
        prefix,
        first,
        stop,
        start,
        design_c,
        _flat(games, seat_cols),
        boards,
        None if host is None else host.callbacks,
        _account_c(seat_cols, account),
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
    if _core is None:
        raise NotNative("the native engine is not built in this installation")
    rows = len(games[SEATING])
    flat = _core.chunk_stats(
        players,
        rows,
        _design(orders, players),
        games[SEATING],
        games["status"],
        games["error_seat"],
        tuple(s["worms"] for s in seats),
        tuple(s["rank"] for s in seats),
    )
    per = 6 + players + 1
    stats = []
    for e in range(players):
        v = flat[e * per : (e + 1) * per]
        stats.append(Counts.from_firsts(v[0], v[1], v[6:], v[2], v[3], v[4], v[5]))
    return stats


__all__ = [
    "ACCOUNT_COLUMNS",
    "NATIVE_STRATEGIES",
    "NativeResult",
    "NativeSeat",
    "NotNative",
    "available",
    "check_table",
    "column_counts",
    "native_seat",
    "play_deals",
    "play_games",
    "seat_host",
    "supports",
]
