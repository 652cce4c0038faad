"""Playing a chunk: a pure function from a :class:`ChunkSpec` to a compact result.

:func:`play_chunk` is the whole of a worker's job and depends on nothing but its spec
(strategies are built from references and parameters, dice and ``view.rng`` from the
spec's seeds), so any backend can run it and the same spec always gives the same rows.
The result is columnar (``array`` per column, a few strings): no per-game Python objects
cross between processes. :func:`replay_game` plays one game of a chunk again, with a
record or a narration, for debugging a forfeit.
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass, field
from typing import Any

from harness.dice import DuplicateDice, SeededDice
from harness.engine import Game, GameObserver, GameResult
from harness.errors import GameError, PluginError
from harness.plugins import StrategySpec, resolve
from harness.strategy import Strategy
from harness.tourney.plan import ChunkSpec, EntrantRef, deal_seed, game_seed

STATUS_CODES = {"over": 0, "turn-cap": 1, "forfeit": 2}
STATUS_NAMES = tuple(STATUS_CODES)
# Columns a chunk fills, with their array typecodes; the seat columns are per seat.
GAME_ARRAYS = {
    "deal": "i",
    "rotation": "b",
    "seed": "q",
    "game_seed": "q",
    "turns": "h",
    "status": "b",
    "winner": "b",
    "error_seat": "b",
}
SEAT_ARRAYS = {"worms": "b", "rank": "b", "busts": "h", "steals": "h", "stolen": "h"}


@dataclass
class ChunkResult:
    """The compact result of a chunk: rows ordered by deal, then rotation.

    ``games`` holds the game columns, ``seats[i]`` the columns of seat i; ``errors``
    maps a row to its forfeit message; ``stats[e]`` sums up table entrant e (rotation-0
    seat order) for the standings; ``cpu`` is the worker's CPU seconds.
    """

    key: str
    games: dict[str, array]
    seats: list[dict[str, array]]
    errors: dict[int, str] = field(default_factory=dict)
    stats: list[dict[str, Any]] = field(default_factory=list)
    cpu: float = 0.0

    @property
    def rows(self) -> int:
        return len(self.games["deal"])


# -- building strategies in a worker ------------------------------------------------------
_SPECS: dict[tuple[str, tuple], StrategySpec] = {}


def _spec(ref: EntrantRef) -> StrategySpec:
    """Resolve once per process, and check the code is what the parent planned with."""
    cache_key = (ref.load, ref.params)
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


def seats_of(items: list[Any], rotation: int) -> list[Any]:
    """Seat i holds table entrant (i + rotation) % n."""
    n = len(items)
    return [items[(i + rotation) % n] for i in range(n)]


def dice_for(spec: ChunkSpec, seed: int, rotation: int) -> DuplicateDice | SeededDice:
    """The dice of game (deal with ``seed``, ``rotation``), as play_chunk gives them."""
    if spec.dice == "duplicate":
        return DuplicateDice(seed)
    return SeededDice(game_seed(seed, rotation, spec.dice))


# -- the pure function ---------------------------------------------------------------------
def play_chunk(spec: ChunkSpec) -> ChunkResult:
    """Play every rotation of deals ``spec.first``..``spec.stop - 1`` of the table."""
    start = time.process_time()
    n = spec.rules.players
    instances = build(spec.entrants)
    names = [e.name for e in spec.entrants]
    rotations = [(r, seats_of(instances, r), seats_of(names, r)) for r in range(n)]
    games = {name: array(code) for name, code in GAME_ARRAYS.items()}
    seats = [{name: array(code) for name, code in SEAT_ARRAYS.items()} for _ in range(n)]
    errors: dict[int, str] = {}
    # Bound methods, looked up once: this loop runs once per game.
    g_deal, g_rot, g_seed, g_gseed = (
        games["deal"].append,
        games["rotation"].append,
        games["seed"].append,
        games["game_seed"].append,
    )
    g_turns, g_status, g_winner, g_eseat = (
        games["turns"].append,
        games["status"].append,
        games["winner"].append,
        games["error_seat"].append,
    )
    seat_appends = [
        [
            s["worms"].append,
            s["rank"].append,
            s["busts"].append,
            s["steals"].append,
            s["stolen"].append,
        ]
        for s in seats
    ]
    rules, dice_mode, max_turns = spec.rules, spec.dice, spec.max_turns
    duplicate = dice_mode == "duplicate"
    row = 0
    for deal in range(spec.first, spec.stop):
        dseed = deal_seed(spec.seed, spec.table_key, deal)
        shared = dice_for(spec, dseed, 0) if duplicate else None  # one per deal, all rotations
        for r, seat_strategies, seat_names in rotations:
            gseed = dseed if duplicate else game_seed(dseed, r, dice_mode)
            game = Game(
                seat_strategies,
                rules,
                shared if duplicate else dice_for(spec, dseed, r),
                names=seat_names,
                max_turns=max_turns,
                seed=gseed,
            )
            try:
                result = game.play()
                status = 1 if result.capped else 0
                error_seat = -1
            except GameError as exc:
                result = game.result(error=exc)
                status, error_seat = 2, exc.seat
                errors[row] = str(exc)
            g_deal(deal)
            g_rot(r)
            g_seed(dseed)
            g_gseed(gseed)
            g_turns(result.turns)
            g_status(status)
            g_winner(-1 if result.winner is None else result.winner)
            g_eseat(error_seat)
            scores, ranks, busts, steals, stolen = (
                result.scores,
                result.ranks,
                result.busts,
                result.steals,
                result.stolen,
            )
            for i, (a_worms, a_rank, a_busts, a_steals, a_stolen) in enumerate(seat_appends):
                a_worms(scores[i])
                a_rank(ranks[i])
                a_busts(busts[i])
                a_steals(steals[i])
                a_stolen(stolen[i])
            row += 1
    result = ChunkResult(spec.key, games, seats, errors)
    result.stats = chunk_stats(result, n)
    result.cpu = time.process_time() - start
    return result


def new_stats(players: int) -> dict[str, Any]:
    """The standings counters of one entrant (integers: sums are exact in any order).

    ``shared[k]`` counts games where the entrant shared first place with k - 1 others.
    """
    return {
        "games": 0,
        "wins": 0,
        "shared": [0] * (players + 1),
        "worms": 0,
        "rank": 0,
        "forfeits": 0,
        "capped": 0,
    }


def chunk_stats(result: ChunkResult, n: int) -> list[dict[str, Any]]:
    """Per table entrant (rotation-0 seat order): games, wins, ties, worms, ranks."""
    stats = [new_stats(n) for _ in range(n)]
    rotation, status, error_seat = (
        result.games["rotation"],
        result.games["status"],
        result.games["error_seat"],
    )
    worms = [s["worms"] for s in result.seats]
    ranks = [s["rank"] for s in result.seats]
    for row in range(result.rows):
        r = rotation[row]
        if status[row] == 1:  # turn cap: unfinished, never scored
            for i in range(n):
                stats[(i + r) % n]["capped"] += 1
            continue
        firsts = [i for i in range(n) if ranks[i][row] == 1]
        for i in range(n):
            st = stats[(i + r) % n]
            st["games"] += 1
            st["worms"] += worms[i][row]
            st["rank"] += ranks[i][row]
        if len(firsts) == 1:
            stats[(firsts[0] + r) % n]["wins"] += 1
        else:
            for i in firsts:
                stats[(i + r) % n]["shared"][len(firsts)] += 1
        if error_seat[row] >= 0:
            stats[(error_seat[row] + r) % n]["forfeits"] += 1
    return stats


# -- one game again, for people -------------------------------------------------------------
def replay_game(
    spec: ChunkSpec,
    deal: int,
    rotation: int,
    *,
    observer: GameObserver | None = None,
    record: bool = False,
) -> GameResult:
    """Play game (deal, rotation) of the spec's table again, exactly as the chunk did.

    ``record=True`` attaches the game record (``result.record``); a forfeit is returned
    as the result (``result.error``), not raised.
    """
    from harness.engine import Fanout
    from harness.record import RecordBuilder

    dseed = deal_seed(spec.seed, spec.table_key, deal)
    gseed = game_seed(dseed, rotation, spec.dice)
    instances = seats_of(build(spec.entrants), rotation)
    names = seats_of([e.name for e in spec.entrants], rotation)
    builder = RecordBuilder(spec.rules, names, gseed) if record else None
    observers = [o for o in (builder, observer) if o is not None]
    fan = observers[0] if len(observers) == 1 else (Fanout(observers) if observers else None)
    game = Game(
        instances,
        spec.rules,
        dice_for(spec, dseed, rotation),
        names=names,
        observer=fan,
        max_turns=spec.max_turns,
        seed=gseed,
    )
    try:
        result = game.play()
    except GameError as exc:
        result = game.result(error=exc)
    if builder is not None:
        result.record = builder.finish(result)
        result.record["tourney"] = {"table": spec.table, "deal": deal, "rotation": rotation}
    return result
