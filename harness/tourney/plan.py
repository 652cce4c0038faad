"""The plan of a tournament: its tables, their seeds and the chunks of work.

Everything here is a pure function of the config (and of the code that will play it):

* A table is a set of entrants. Its seats in rotation 0 follow the entrants' seeding
  keys in sorted order, never their positions in the config, so reordering the list or
  adding an entrant leaves every existing table (and its games) as it was.
* A deal's seed derives from (config seed, the table's key, deal index) only; each deal
  is played once per cyclic seat rotation.
* A chunk is a run of whole deals of one table (every rotation of a deal shares its
  duplicate dice). Its content key covers all that decides its rows: rules, dice mode,
  turn cap, seeds, the entrants with their code identity, parameters and display names,
  the deal range, the time limits and isolation (a slow or cheating plugin's games
  differ with them), the engine's code and the stored schema. Equal keys, equal rows:
  that is what lets a later run reuse a chunk instead of playing it again.
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
from harness.rules import Rules
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
    """One table: its id, seeding key and entrants in rotation-0 seat order."""

    id: str
    key: str
    entrants: tuple[Entrant, ...]

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entrants]


@dataclass(frozen=True)
class ChunkSpec:
    """One unit of work: deals ``first``..``stop - 1`` of one table, every rotation.

    Picklable and self-contained, so any backend (processes, Dask) can play it with
    :func:`harness.tourney.chunks.play_chunk`.
    """

    key: str
    table: str
    table_key: str
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

    @property
    def limited(self) -> bool:
        """True when a seat has a time limit or runs in a process of its own."""
        return self.move_time is not None or self.game_time is not None or self.isolation != "none"

    @property
    def deals(self) -> int:
        return self.stop - self.first

    @property
    def games(self) -> int:
        return self.deals * self.rules.players

    @property
    def file(self) -> str:
        """The part file's name: sorting names sorts rows by table, then deal."""
        return f"{self.table}-{self.first:09d}.parquet"

    def describe(self) -> str:
        names = " v ".join(e.name for e in self.entrants)
        return f"table {self.table} ({names}), deals {self.first}-{self.stop - 1}"


def deal_seed(seed: int, table_key: str, deal: int) -> int:
    """The seed of a deal: its duplicate dice key, shared by every rotation."""
    return derive_seed(seed, "deal", table_key, deal) & SEED_MASK


def game_seed(deal: int, rotation: int, dice: str) -> int:
    """The seed a game is played with (``harness play --seed``): dice and ``view.rng``.

    With duplicate dice it is the deal's seed itself (the dice are keyed by it); with
    independent dice each rotation gets its own.
    """
    if dice == "duplicate":
        return deal
    return derive_seed(deal, "rotation", rotation) & SEED_MASK


def table_of(entrants: tuple[Entrant, ...] | list[Entrant]) -> Table:
    ordered = tuple(sorted(entrants, key=lambda e: e.key))
    key = json.dumps([e.key for e in ordered])
    return Table(hashlib.sha256(key.encode()).hexdigest()[:12], key, ordered)


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
    import strategies

    roots = Path(harness.__file__).parent, Path(strategies.__file__).parent
    files = [
        roots[0] / name
        for name in ("engine.py", "dice.py", "rules.py", "view.py", "turnstate.py", "strategy.py")
    ]
    # The seat wrappers (time limits, process isolation) decide games that use them.
    files += [roots[0] / "seats.py", roots[0] / "isolation.py"]
    # How a chunk seeds and plays its games, and the helpers built-in strategies share.
    files += [roots[0] / "tourney" / "chunks.py", roots[0] / "tourney" / "plan.py"]
    files += [roots[1] / "_common.py"]
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


def chunk_key(config: TourneyConfig, table: Table, first: int, stop: int) -> str:
    content = {
        "schema": schema.SCHEMA_VERSION,
        "engine": engine_digest(),
        "rules": config.rules.to_dict(),
        "dice": config.dice,
        "max_turns": config.max_turns,
        "seed": config.seed,
        "table": table.key,
        "entrants": [[e.name, e.key, e.code, e.class_name] for e in table.entrants],
        "deals": [first, stop],
        **limits_of(config),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:32]


def spec_for(config: TourneyConfig, table: Table, first: int, stop: int) -> ChunkSpec:
    """The chunk of deals ``first``..``stop - 1`` of a table."""
    return ChunkSpec(
        key=chunk_key(config, table, first, stop),
        table=table.id,
        table_key=table.key,
        entrants=tuple(EntrantRef(e.name, e.load, e.spec.params, e.code) for e in table.entrants),
        rules=config.rules,
        dice=config.dice,
        seed=config.seed,
        first=first,
        stop=stop,
        max_turns=config.max_turns,
        **limits_of(config),
    )


def chunks(config: TourneyConfig, table_list: list[Table] | None = None) -> Iterator[ChunkSpec]:
    """Every chunk of the tournament, table by table (lazily: memory stays flat)."""
    size = config.deals_per_chunk
    for table in table_list if table_list is not None else tables(config):
        for first in range(0, config.games, size):
            yield spec_for(config, table, first, min(first + size, config.games))


def run_key(config: TourneyConfig) -> str:
    """What makes two runs the same run (resume): everything but worker count and paths."""
    content = {
        "engine": engine_digest(),
        "rules": config.rules.to_dict(),
        "format": config.format,
        "dice": config.dice,
        "games": config.games,
        "seed": config.seed,
        "max_turns": config.max_turns,
        "chunk": config.deals_per_chunk,
        "challenger": config.challenger.identity() if config.challenger else None,
        "entrants": [e.identity() for e in config.entrants],
        **limits_of(config),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]
