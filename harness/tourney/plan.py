"""The plan of a tournament: its tables, their seeds and the chunks of work.

Everything here is a pure function of the config (and of the code that will play it):

* A table is a set of entrants, numbered by display name (unique in a run), never by
  their positions in the config: reordering the list or adding an entrant leaves every
  existing table (and its games) as it was, and an edited bot that keeps its name keeps
  its place, so its games pair with an older run's.
* A deal's seed derives from (config seed, deal index) only: every table of a run, and
  every run with that seed, plays deal d on the same dice (duplicate bridge's boards).
  Each deal is played once in every seat order of the run's seating design
  (:mod:`harness.tourney.seating`).
* A chunk is a run of whole deals of one table (every order of a deal shares its
  duplicate dice). Its content key covers all that decides its rows: rules, dice mode,
  turn cap, seeds, the seating design, the entrants with their code identity,
  parameters and display names, the deal range, the time limits and isolation (a slow
  or cheating plugin's games differ with them), the engine's code and the stored
  schema. Equal keys, equal rows: that is what lets a later run reuse a chunk instead
  of playing it again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

from harness import schema
from harness.dice import derive_seed
from harness.errors import ConfigError
from harness.rules import Rules
from harness.tourney import seating as seating_design
from harness.tourney.config import Entrant, TourneyConfig

SEED_MASK = (1 << 63) - 1  # seeds are stored as int64


@dataclass(frozen=True)
class EntrantRef:
    """What a worker needs to build a strategy: no class objects, no instances."""

    name: str  # display name, as stored in seat{i}_strategy
    load: str  # the reference to resolve (absolute path for a file plugin)
    params: tuple[tuple[str, Any], ...]
    code: str  # code digest the parent saw; a worker checks it has the same code


@dataclass(frozen=True)
class Table:
    """One table: its id, key and entrants, numbered by display name.

    Table entrant e is ``entrants[e]``; seat order k of the design seats entrant
    ``orders[k][i]`` in seat i.
    """

    id: str
    key: str
    entrants: tuple[Entrant, ...]

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]


@dataclass(frozen=True)
class ChunkSpec:
    """One unit of work: deals ``first``..``stop - 1`` of one table, every seat order.

    Picklable and self-contained, so any backend (processes, Dask) can play it with
    :func:`harness.tourney.chunks.play_chunk`.
    """

    key: str
    table: str
    entrants: tuple[EntrantRef, ...]
    rules: Rules
    dice: str
    seed: int
    first: int
    stop: int
    max_turns: int
    # Per-seat limits (harness.seats.SeatLimits): off by default.
    move_time: float | None = None
    game_time: float | None = None
    isolation: str = "none"
    # Which engine plays it (not part of the key: the rows are the same either way):
    # "python"; "auto", the native engine, or Python where it cannot (planning found it
    # can); "native", the native engine or a failed chunk (the user asked for it).
    engine: str = "python"
    # The seating mode (harness.tourney.seating.SEATINGS); its design is ``orders``.
    seating: str = seating_design.DEFAULT_SEATING

    @property
    def orders(self) -> seating_design.Design:
        """The seat orders every deal is played in: seat i of order k holds table entrant
        ``orders[k][i]`` (rows: deal, then order index k)."""
        return seating_design.design(self.rules.players, self.seating)

    @property
    def limited(self) -> bool:
        """True when a seat has a time limit or runs in a process of its own."""
        return self.move_time is not None or self.game_time is not None or self.isolation != "none"

    def game_at(self, row: int) -> tuple[int, int]:
        """(deal, seat order index) of chunk row ``row`` (rows: deal, then order)."""
        per_deal = len(self.orders)
        return self.first + row // per_deal, row % per_deal

    def entrant_in(self, seat: int, k: int) -> EntrantRef:
        """The entrant in ``seat`` of seat order index ``k``: the one lookup for it."""
        return self.entrants[self.orders[k][seat]]

    @property
    def deals(self) -> int:
        return self.stop - self.first

    @property
    def games(self) -> int:
        return self.deals * len(self.orders)

    @property
    def file(self) -> str:
        """The part file's name: sorting names sorts rows by table, then deal."""
        return f"{self.table}-{self.first:09d}.parquet"

    def describe(self) -> str:
        names = " v ".join(e.name for e in self.entrants)
        return f"table {self.table} ({names}), deals {self.first}-{self.stop - 1}"


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal ``deal``: its duplicate dice key, shared by every seat order, every
    table and every run with this config seed (who plays never enters it)."""
    return derive_seed(seed, "deal", deal) & SEED_MASK


def game_seed(deal: int, order: int, dice: str) -> int:
    """The seed game (deal with seed ``deal``, seat order ``order``) is played with
    (``harness play --seed``): dice and ``view.rng``.

    With duplicate dice it is the deal's seed itself (the dice are keyed by it); with
    independent dice each order index gets its own stream (the same at every table).
    """
    if dice == "duplicate":
        return deal
    return derive_seed(deal, "rotation", order) & SEED_MASK  # "rotation": as schema 2 keyed it


def table_of(entrants: tuple[Entrant, ...] | list[Entrant]) -> Table:
    """The table of these entrants, numbered by display name; its key is the JSON list of
    [name, strategy key] in that order, its id the key's digest."""
    ordered = tuple(sorted(entrants, key=lambda e: e.name))
    key = json.dumps([[e.name, e.key] for e in ordered])
    return Table(hashlib.sha256(key.encode()).hexdigest()[:12], key, ordered)


def design_of(config: TourneyConfig) -> list[list[int]]:
    """The config's seating design as stored (run.json, chunk and run keys)."""
    return [list(o) for o in seating_design.design(config.players, config.seating)]


def tables(config: TourneyConfig) -> list[Table]:
    """Every table of the tournament, sorted by id (a stable order for any entrant list)."""
    n = config.players
    if config.format == "gauntlet":
        assert config.challenger is not None
        found = [
            table_of((config.challenger, *others))
            for others in combinations(config.entrants, n - 1)
        ]
    else:
        found = [table_of(group) for group in combinations(config.entrants, n)]
    return sorted(found, key=lambda t: t.id)


@cache
def engine_digest() -> str:
    """A digest of the code that plays the games: a change there changes every chunk key
    (and the run key), so no result of other code is ever reused or resumed.

    (Strategy files are covered by each entrant's own code digest.)
    """
    import harness
    import harness.strategies

    roots = Path(harness.__file__).parent, Path(harness.strategies.__file__).parent
    files = [
        roots[0] / name
        for name in ("engine.py", "dice.py", "rules.py", "view.py", "turnstate.py", "strategy.py")
    ]
    # The seat wrappers (time limits, process isolation) decide games that use them.
    files += [roots[0] / "seats.py", roots[0] / "isolation.py"]
    # How a chunk seeds and plays its games, and the helpers built-in strategies share.
    files += [roots[0] / "tourney" / "chunks.py", roots[0] / "tourney" / "plan.py"]
    files += [roots[1] / "_common.py"]
    # The native engine plays the same games: a change in its code must not reuse chunks
    # it played before the change (the source, whether or not it is built here).
    files += [roots[0] / "native.py"]
    files += sorted((roots[0] / "_native").glob("*.c"))  # core.c and the parts it #includes
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()[:16]


def limits_of(config: TourneyConfig) -> dict[str, Any]:
    """The config's seat limits: move_time, game_time (seconds or None), isolation.

    (Read with defaults, so that a config object without the keys plans as before.)
    """
    return {
        "move_time": getattr(config, "move_time", None),
        "game_time": getattr(config, "game_time", None),
        "isolation": getattr(config, "isolation", None) or "none",
    }


def native_problem(config: TourneyConfig, table: Table) -> str | None:
    """Why the native engine cannot play a table (None: it can), naming the seat."""
    from harness import native
    from harness.tourney.chunks import is_builtin  # chunks imports this module

    if not native.available():
        return "the native engine is not built in this installation (no C compiler at install)"
    limits = limits_of(config)
    if limits["move_time"] is not None or limits["game_time"] is not None:
        return "seat time limits (move_time, game_time) run on the Python engine"
    if limits["isolation"] != "none":
        return "process isolation runs on the Python engine"
    for entrant in table.entrants:
        try:
            native.native_seat(entrant.spec)
        except native.NotNative as exc:
            if not is_builtin(entrant.spec.cls):
                return f"entrant {entrant.name} is a plugin (only built-ins play natively)"
            return f"entrant {entrant.name} has no native version ({exc})"
    try:
        native.check_table(
            config.rules,
            [e.spec for e in table.entrants],
            config.seed,
            dice=config.dice,
            max_turns=config.max_turns,
        )
    except native.NotNative as exc:
        return str(exc)
    return None


def table_engine(config: TourneyConfig, table: Table) -> str:
    """The engine of a table's chunks (ChunkSpec.engine), from the config's ``engine``.

    ``native`` for a table the native engine cannot play is a ConfigError (one line,
    naming the table and why), raised while planning: before anything is played.
    """
    choice = getattr(config, "engine", "python")
    if choice == "python":
        return "python"
    problem = native_problem(config, table)
    if problem is None:
        return choice
    if choice == "native":
        raise ConfigError(
            f"engine: native, but table {table.id} ({' v '.join(table.names)}) cannot play "
            f"natively: {problem}; use engine: auto to play it on the Python engine"
        )
    return "python"


def chunk_key(config: TourneyConfig, table: Table, first: int, stop: int) -> str:
    content = {
        "schema": schema.SCHEMA_VERSION,
        "engine": engine_digest(),
        "rules": config.rules.to_dict(),
        "dice": config.dice,
        "max_turns": config.max_turns,
        "seed": config.seed,
        "table": table.key,
        # The design itself, not its name: at 2 players every mode is the same games.
        "seating": design_of(config),
        "entrants": [[e.name, e.key, e.code, e.class_name] for e in table.entrants],
        "deals": [first, stop],
        **limits_of(config),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:32]


def spec_for(
    config: TourneyConfig, table: Table, first: int, stop: int, engine: str | None = None
) -> ChunkSpec:
    """The chunk of deals ``first``..``stop - 1`` of a table (``engine``: its
    :func:`table_engine`, worked out here when not given)."""
    return ChunkSpec(
        key=chunk_key(config, table, first, stop),
        table=table.id,
        entrants=tuple(EntrantRef(e.name, e.load, e.spec.params, e.code) for e in table.entrants),
        rules=config.rules,
        dice=config.dice,
        seed=config.seed,
        first=first,
        stop=stop,
        max_turns=config.max_turns,
        **limits_of(config),
        engine=table_engine(config, table) if engine is None else engine,
        seating=config.seating,
    )


def chunks(config: TourneyConfig, table_list: list[Table] | None = None) -> Iterator[ChunkSpec]:
    """Every chunk of the tournament, table by table (lazily: memory stays flat)."""
    size = config.deals_per_chunk
    for table in table_list if table_list is not None else tables(config):
        engine = table_engine(config, table)  # once per table: it builds the seats
        for first in range(0, config.games, size):
            yield spec_for(config, table, first, min(first + size, config.games), engine)


def run_key(config: TourneyConfig) -> str:
    """What makes two runs the same run (resume): everything but worker count and paths."""
    content = {
        "engine": engine_digest(),
        "rules": config.rules.to_dict(),
        "format": config.format,
        "dice": config.dice,
        "games": config.games,
        "seed": config.seed,
        "seating": design_of(config),
        "schema": schema.SCHEMA_VERSION,
        "max_turns": config.max_turns,
        "chunk": config.deals_per_chunk,
        "challenger": config.challenger.identity() if config.challenger else None,
        "entrants": [e.identity() for e in config.entrants],
        **limits_of(config),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]
