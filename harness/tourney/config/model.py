"""What a config is once read: the keys, their choices and defaults, and the resolved
value (:class:`TourneyConfig`, its :class:`Entrant` list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from harness.errors import ConfigError
from harness.game import seating as seating_design
from harness.game.dice import DICE_MODES
from harness.game.engine import DEFAULT_MAX_TURNS
from harness.game.engines import ENGINES  # auto, python, native: what each means is there
from harness.game.rules import Rules
from harness.plugins import (
    StrategySpec,
)
from harness.seats.settings import (  # the seat settings' keys are checked there, once
    ISOLATION_MODES,
    LUCK_MODES,
    SETTING_KEYS,
    HoldsSeatSettings,
    SeatSettings,
    SettingsError,
    settings_from,
)
from harness.tourney.config.adaptive import SCHEDULES, AdaptiveTarget, schedule_problem
from harness.tourney.config.bounds import check_bounds, plan_problem, table_count

FORMATS = ("round_robin", "gauntlet")
ALL_BUILTINS = "all-builtins"
KEYS = (
    "name",
    "rules",
    "players",
    "format",
    "entrants",
    "challenger",
    "deals",
    "seed",
    "dice",
    "workers",
    "max_turns",
    "chunk",
    "move_time",
    "game_time",
    "isolation",
    "engine",
    "seating",
    "luck",
    "schedule",
    "target",
    "budget",
)
# Old spellings that still work: old key -> its new name (a deprecation line, once).
RENAMED_KEYS = {"games": "deals"}
ISOLATIONS = ISOLATION_MODES  # the seat settings' own lists (harness.seats.settings)
ENTRANT_KEYS = ("strategy", "name", "params", "sweep", "race")
SWEEP = "sweep"  # an entrant's parameter sweep: one entrant per value (per combination)
RACE = "race"  # a sweep that races (schedule: adaptive): its beaten values stop playing
# The keys that take one word of a list, and every default: the checker reads them here,
# and so does the JSON Schema of the config (harness/tourney/schema.py).
CHOICES: dict[str, tuple[str, ...]] = {
    "format": FORMATS,
    "dice": DICE_MODES,
    "isolation": ISOLATIONS,
    "engine": ENGINES,
    "seating": seating_design.SEATINGS,
    "luck": LUCK_MODES,
    "schedule": SCHEDULES,
}
DEFAULTS: dict[str, Any] = {
    "rules": "official",
    "players": 2,
    "format": "round_robin",
    "deals": 1000,
    "seed": 0,
    "dice": "duplicate",
    "max_turns": DEFAULT_MAX_TURNS,
    "isolation": SeatSettings().isolation,
    "engine": SeatSettings().engine,
    "seating": seating_design.DEFAULT_SEATING,
    "luck": SeatSettings().luck,
    "schedule": "fixed",
}
# A chunk holds whole deals (every seat order of a deal shares its duplicate dice). About
# 12,000 games a chunk: the parent's cost per chunk (a Parquet part, its fsync, a
# manifest line, a chunk key: about 5 ms) is a small share at the native engine's
# 250,000 games per CPU-second (at 1,200 it was the largest part of the run's CPU), and
# the work a Ctrl-C can lose stays small: a chunk is about 3.5 s on the Python engine
# (3,500 games/s), 60 s for `optimal` there (200 games/s), well under a second natively.
# Chunk keys cover their deals, so folders written with another size (1,200 before) are
# neither resumed nor reused from.
CHUNK_GAMES = 12000
# And at most CHUNK_CAP chunks in a run by default: where 12,000-game chunks would make
# more (many tables, many deals), the default chunk grows, so that the parent's few ms a
# chunk stay a small share (10,000 chunks: under a minute of it). A plan of more tables
# than that groups them (group_size): a chunk is then deals of several tables, so a
# 4-player sweep of 64 values (635,376 tables) is hundreds of chunks, not 635,376.
CHUNK_CAP = 10_000
# A small run is cut finer (default_chunk): at least MIN_CHUNKS chunks in all, so that a
# slow run of one table (optimal on the Python engine, a plugin) keeps every worker of a
# machine of up to 16 cores at work instead of being one chunk on one of them; never
# below MIN_CHUNK_GAMES games a chunk, where the parent's cost per chunk would show.
MIN_CHUNKS = 16
MIN_CHUNK_GAMES = 100
_T = TypeVar("_T")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def default_chunk(players: int, deals: int, tables: int) -> int:
    """Deals a chunk when the config gives no ``chunk``: about CHUNK_GAMES games, grown so
    that the run has at most CHUNK_CAP chunks where its ``tables`` allow (at least one a
    table), and cut finer in a small run, so that it has MIN_CHUNKS chunks or more, never
    under MIN_CHUNK_GAMES games (where that makes no more chunks, the default stands). A
    function of the config alone (never of the worker count: the same run resumes on
    any); chunking never changes a game."""
    size = max(1, -(-CHUNK_GAMES // players))
    size = max(size, -(-deals // max(1, CHUNK_CAP // max(tables, 1))))  # the cap
    wanted = -(-MIN_CHUNKS // max(1, tables))  # chunks a table needs for MIN_CHUNKS
    small = min(size, max(-(-MIN_CHUNK_GAMES // players), -(-deals // wanted)))
    return small if -(-deals // small) > -(-deals // size) else size


def group_size(tables: int, deals: int, chunk: int, orders: int) -> int:
    """Tables a chunk holds: one while a run has at most CHUNK_CAP tables (its chunks and
    keys are then what they always were). Beyond, as many as make about CHUNK_GAMES games
    a chunk, at least enough that the run has at most CHUNK_CAP chunks (beside one per
    kind of table and deal range: tables share a chunk only with tables of their kind),
    and few enough that each deal range has MIN_CHUNKS chunks or more for the workers.
    ``chunk``: deals a chunk; ``orders``: games a deal. A function of the config alone."""
    if tables <= CHUNK_CAP:
        return 1
    ranges = -(-deals // chunk)
    by_cap = -(-tables * ranges // CHUNK_CAP)
    by_games = max(1, CHUNK_GAMES // max(1, min(chunk, deals) * orders))
    return min(tables, max(by_cap, min(by_games, -(-tables // MIN_CHUNKS))))


def adaptive_problem(config: TourneyConfig) -> str | None:
    """What makes a config's adaptive schedule impossible (None: nothing, or a fixed
    schedule): :func:`~harness.tourney.config.adaptive.schedule_problem` of its plan."""
    if config.adaptive is None:
        return None
    tables = table_count(config.format, config.players, len(config.entrants))
    orders = len(seating_design.design(config.players, config.seating))
    return schedule_problem(config.adaptive, config.chunk, tables, orders, CHUNK_CAP)


# -- the resolved config ----------------------------------------------------------------
@dataclass(frozen=True)
class Entrant:
    """One entrant: a display name and a resolved strategy.

    ``key`` is its strategy identity: the reference as written plus its parameters (not
    the file's location). Two entrants may share a key (a mirror match), never a name: a
    table orders its entrants by name (:func:`harness.tourney.plan.table_of`).
    ``load`` is the reference a worker resolves (absolute for a file plugin).
    """

    name: str
    spec: StrategySpec
    key: str
    load: str
    code: str  # digest of the strategy's source (read once, when the config is checked)

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.spec.params)

    @property
    def class_name(self) -> str:
        return f"{self.spec.cls.__module__}:{self.spec.cls.__qualname__}"

    def identity(self) -> dict[str, Any]:
        """As run.json stores it: name, ref, params, code digest, class, seeding key."""
        return {
            "name": self.name,
            "ref": self.spec.ref,
            "params": self.params,
            "code": self.code,
            "class": self.class_name,
            "key": self.key,
        }


@dataclass(frozen=True)
class TourneyConfig(HoldsSeatSettings):
    """A checked config with every default filled in."""

    name: str
    rules: Rules
    format: str
    entrants: tuple[Entrant, ...]
    games: int
    seed: int
    dice: str = "duplicate"
    workers: int | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    chunk: int = 0  # deals per chunk; 0 = the default for the player count
    challenger: Entrant | None = None
    source: str = "<dict>"
    extra: dict[str, Any] = field(default_factory=dict)
    # move_time, game_time, isolation, engine and luck: one checked value (read them as
    # config.move_time and so on, too).
    settings: SeatSettings = SeatSettings()
    # How a deal's seat orders are chosen (harness.game.seating): balanced | cyclic |
    # permutations. Every deal is played once in each order of the design.
    seating: str = seating_design.DEFAULT_SEATING
    # schedule: adaptive (harness.tourney.config.adaptive); None: the fixed plan.
    adaptive: AdaptiveTarget | None = None
    # The racing sweeps (race: on): each the names of its values, in the sweep's order.
    races: tuple[tuple[str, ...], ...] = ()

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def deals_per_chunk(self) -> int:
        """``chunk:`` if given, else :func:`default_chunk` for this run's tables."""
        if self.chunk:
            return self.chunk
        if self.adaptive is not None:  # a batch is one chunk a table
            return min(self.adaptive.batch, self.games)
        tables = table_count(self.format, self.players, len(self.entrants))
        return default_chunk(self.players, self.games, tables)

    @property
    def tables_per_chunk(self) -> int:
        """Tables a chunk holds (:func:`group_size`): 1 unless the run has more tables than
        CHUNK_CAP."""
        tables = table_count(self.format, self.players, len(self.entrants))
        orders = len(seating_design.design(self.players, self.seating))
        return group_size(tables, self.games, self.deals_per_chunk, orders)

    def all_entrants(self) -> tuple[Entrant, ...]:
        """The challenger (gauntlet) first, then the field."""
        return ((self.challenger,) if self.challenger else ()) + self.entrants

    def override(
        self,
        *,
        deals: int | None = None,
        games: int | None = None,
        seed: int | None = None,
        workers: int | None = None,
        max_turns: int | None = None,
        chunk: int | None = None,
        move_time: float | None = None,
        game_time: float | None = None,
        isolation: str | None = None,
        engine: str | None = None,
        seating: str | None = None,
        luck: str | None = None,
        settings: SeatSettings | None = None,
    ) -> TourneyConfig:
        """This config with command-line values in place of its own (None: keep its own).

        Each value is checked against the same bounds as the config key (ConfigError
        naming the option), and so is the size of the plan they make. ``games`` is the old
        name of ``deals`` (the caller says it is deprecated); not both. ``settings``
        replaces the seat settings whole, instead of ``move_time``, ``game_time``,
        ``isolation``, ``engine`` and ``luck`` (not with them).
        """
        if deals is not None and games is not None:
            raise ConfigError("--deals and --games: give --deals only (--games is its old name)")
        option = "games" if games is not None else "deals"
        check_bounds(**{option: deals if games is None else games})
        given = {
            "games": deals if games is None else games,
            "seed": seed,
            "workers": workers,
            "max_turns": max_turns,
            "chunk": chunk,
        }
        check_bounds(**{k: v for k, v in given.items() if k != "games"})
        changes: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        try:
            settings = settings_from(
                settings,
                self.settings,
                move_time=move_time,
                game_time=game_time,
                isolation=isolation,
                engine=engine,
                luck=luck,
            )
        except SettingsError as exc:  # a value: named as the option it came from
            raise (exc.for_option() if exc.key in SETTING_KEYS else exc) from None
        if settings != self.settings:
            changes["settings"] = settings
        if seating is not None:
            problem = seating_design.seating_problem(seating, self.players)
            if problem:
                raise ConfigError(f"--{problem}")
            changes["seating"] = seating
        if not changes:
            return self
        changed = replace(self, **changes)
        problem = plan_problem(changed) or adaptive_problem(changed)
        if problem:
            given_deals = deals is not None or games is not None
            raise ConfigError(f"--{option}: {problem}" if given_deals else problem)
        return changed
