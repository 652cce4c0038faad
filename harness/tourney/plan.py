"""The plan of a tournament: its tables, their seeds and the chunks of work.

Everything here is a pure function of the config (and of the code that will play it):

* A table is a set of entrants, numbered by display name (unique in a run), never by
  their positions in the config: reordering the list or adding an entrant leaves every
  existing table (and its games) as it was, and an edited bot that keeps its name keeps
  its place, so its games pair with an older run's.
* A deal's seed derives from (config seed, deal index) only: every table of a run, and
  every run with that seed, plays deal d on the same dice (duplicate bridge's boards).
  Each deal is played once in every seat order of the run's seating design
  (:mod:`harness.game.seating`, where "deal" is defined).
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.game import seating as seating_design
from harness.game.rules import Rules

# The seeds of deals and games are the game room's; imported from here by older code and notebooks.
from harness.game.seating import SEED_MASK as SEED_MASK
from harness.game.seating import deal_seed as deal_seed
from harness.game.seating import game_seed as game_seed
from harness.plugins import files_digest, is_own_module
from harness.runfolder import layout, schema
from harness.seats.settings import HoldsSeatSettings, SeatSettings
from harness.tourney.config import Entrant, TourneyConfig, table_count


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


_CHUNK_SETTINGS = SeatSettings(engine="python")  # a spec's own default: the Python engine


@dataclass(frozen=True, init=False)
class ChunkSpec(HoldsSeatSettings):
    """One chunk of work: deals ``first``..``stop - 1`` of one table, every seat order.

    Picklable and self-contained, so any backend (processes, Dask) can play it with
    :func:`harness.tourney.chunks.play_chunk`.

    ``settings`` are the table's seat settings: the config's limits, isolation and luck
    mode, with ``engine`` the table's (:func:`table_engine`: "python"; "auto", the native
    engine, or Python where it cannot after all; "native", the native engine or a failed
    chunk). The engine is not part of the key: the rows are the same either way.
    ``account`` is whether its games keep the luck and skill account
    (:func:`table_luck`, the table's answer to the luck mode: False, True or "win", with
    the win account's luck): part of the key, since the rows then hold it. Built with
    ``settings=``, or with a setting's own keyword (``move_time=``, ``engine=``, ...:
    ``dataclasses.replace(spec, engine="native")``), which then replaces that one setting.
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
    settings: SeatSettings = _CHUNK_SETTINGS
    # The seating mode (harness.game.seating.SEATINGS); its design is ``orders``.
    seating: str = seating_design.DEFAULT_SEATING
    account: bool | str = False

    def __init__(
        self,
        key: str,
        table: str,
        entrants: tuple[EntrantRef, ...],
        rules: Rules,
        dice: str,
        seed: int,
        first: int,
        stop: int,
        max_turns: int,
        settings: SeatSettings = _CHUNK_SETTINGS,
        seating: str = seating_design.DEFAULT_SEATING,
        account: bool | str = False,
        **one_setting: Any,
    ) -> None:
        values = locals()
        for name in _SPEC_FIELDS:
            object.__setattr__(self, name, values[name])
        if one_setting:  # converted once, here: the spec holds the one value
            object.__setattr__(self, "settings", settings.with_overrides(**one_setting))

    @property
    def orders(self) -> seating_design.Design:
        """The seat orders every deal is played in: seat i of order k holds table entrant
        ``orders[k][i]`` (rows: deal, then order index k)."""
        return seating_design.design(self.rules.players, self.seating)

    @property
    def limited(self) -> bool:
        """True when a seat has a time limit or runs in a process of its own."""
        return self.settings.limited

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
        return layout.part_name(self.table, self.first)

    def describe(self) -> str:
        names = " v ".join(e.name for e in self.entrants)
        return f"table {self.table} ({names}), deals {self.first}-{self.stop - 1}"


_SPEC_FIELDS = tuple(f.name for f in fields(ChunkSpec))


def table_of(entrants: tuple[Entrant, ...] | list[Entrant]) -> Table:
    """The table of these entrants, numbered by display name; its key is the JSON list of
    [name, strategy key] in that order, its id the key's digest."""
    ordered = tuple(sorted(entrants, key=lambda e: e.name))
    key = json.dumps([[e.name, e.key] for e in ordered])
    return Table(hashlib.sha256(key.encode()).hexdigest()[:12], key, ordered)


def design_of(config: TourneyConfig) -> list[list[int]]:
    """The config's seating design as stored (run.json, chunk and run keys)."""
    return [list(o) for o in seating_design.design(config.players, config.seating)]


def tables(
    config: TourneyConfig, progress: Callable[[int, int, str], None] | None = None
) -> list[Table]:
    """Every table of the tournament, sorted by id (a stable order for any entrant list);
    ``progress(done, total, "listed")`` is told every :data:`PROGRESS_EVERY` tables."""
    n = config.players
    if config.format == "gauntlet":
        assert config.challenger is not None
        groups: Iterator[tuple[Entrant, ...]] = (
            (config.challenger, *others) for others in combinations(config.entrants, n - 1)
        )
    else:
        groups = combinations(config.entrants, n)
    total = table_count(config.format, n, len(config.entrants))
    found = []
    for done, group in enumerate(groups):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, total, "listed")
        found.append(table_of(group))
    return sorted(found, key=lambda t: t.id)


def engine_files() -> list[Path]:
    """The source files that decide a game's rows, listed one by one: what
    :func:`engine_digest` covers. (Strategy files are covered by each entrant's own code
    digest.) A file named here that is missing makes the digest an error."""
    import harness
    import harness.strategies

    root, strategies = Path(harness.__file__).parent, Path(harness.strategies.__file__).parent
    game = root / "game"
    files = [
        game / name
        for name in ("engine.py", "dice.py", "rules.py", "view.py", "board.py", "strategy.py")
    ]
    # The seat wrappers (time limits, process isolation) decide games that use them.
    files += [
        root / "seats" / name
        for name in (
            "__init__.py",
            "guarding.py",
            "tracing.py",
            "clock.py",
            "timed.py",
            "process_seat.py",
            "isolation.py",
            "replies.py",
            "settings.py",
        )
    ]
    # How a chunk seeds and plays its games, and the helpers built-in strategies share.
    # (Not seating.py: the design itself, every order of it, is in each chunk's key.)
    files += [
        root / "tourney" / name
        for name in ("chunks.py", "chunk_result.py", "decisions.py", "plan.py")
    ]
    files += [strategies / "_common.py"]
    # The native engine plays the same games: a change in its code must not reuse chunks
    # it played before the change (the source, whether or not it is built here).
    files += sorted((root / "native").glob("*.py"))  # its door, its seats, its modules
    files += sorted((root / "native" / "c").glob("*.c"))  # core.c and the parts it #includes
    # The win-probability models decide win-optimal's games, the win account's values and
    # any plugin's that asks the evaluator; no source digest sees a model change. Their
    # SHA256SUMS names each one by its sha256 (a file that differs is refused at load), so
    # a new or retrained model changes every key, never reuses rows of the model before.
    sums = root / "winprob" / "models" / "SHA256SUMS"
    if sums.exists():  # without it no model loads: the normal approximation everywhere
        files.append(sums)
    return files


@cache
def engine_digest() -> str:
    """A digest of the code that plays the games (:func:`engine_files`, by
    :func:`harness.plugins.files_digest`): a change there changes every chunk key (and the
    run key), so no result of other code is ever reused or resumed. FileNotFoundError
    (one line) when a listed file is missing: never a digest of less code than plays."""
    return files_digest(engine_files())


def limits_of(config: TourneyConfig) -> dict[str, Any]:
    """The config's seat limits as keys hold them: move_time, game_time (seconds or
    None), isolation (:meth:`SeatSettings.limit_values`)."""
    return config.settings.limit_values()


def native_problem(config: TourneyConfig, table: Table) -> str | None:
    """Why the native engine cannot play a table (None: it can).

    A plugin (or any entrant with no native version) plays there as a Python seat
    (:mod:`harness.native.seats`): a mixed table, and a table of plugins only too (the
    C loop with callbacks played two file plugins 1.2x faster than the Python engine,
    the same rows: benchmarks/native_plugin_speed.py --plugins-only). Seat limits stay on
    the Python engine: their verdicts are replayed turn by turn there (``decided``).
    """
    from harness import native

    refused = native.refusal(config.settings)
    if refused is not None:
        return refused
    try:
        native.check_table(
            config.rules,
            [e.spec for e in table.entrants],
            config.seed,
            dice=config.dice,
            max_turns=config.max_turns,
            python=True,
        )
    except native.NotNative as exc:
        return str(exc)
    return None


def table_engine(config: TourneyConfig, table: Table) -> str:
    """The engine of a table's chunks (ChunkSpec.engine), from the config's ``engine``.

    ``native`` for a table the native engine cannot play is a ConfigError (one line,
    naming the table and why), raised while planning: before anything is played.
    """
    choice = config.settings.engine
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


# The strategy modules whose games cost less than their account (harness.analysis.account):
# the built-ins but optimal. Natively a greedy mirror plays a game in a few microseconds,
# its account costs tens (a turn solved per new board); an `optimal` game or a plugin's
# callbacks cost as much as the account or more (benchmarks/luck_cost.py measures both).
_OPTIMAL_MODULE = "harness.strategies.optimal"


def table_luck(config: TourneyConfig, table: Table) -> bool | str:
    """Whether the table's games keep the luck and skill account (config ``luck``): False,
    True (the worm account) or ``"win"`` (schema.WIN: the worm account and the win
    account's luck, ``winluck``, the control of luck-adjusted win shares).

    ``off``, ``on`` and ``win`` say it for every table, whoever plays: the columns a run
    stores are then a function of its settings alone, the same with a plugin copy of a
    built-in as with the built-in, on either engine. ``win`` is the only mode that keeps
    the win account: it solves a turn's programme for the win payoff at nearly every turn
    (its boards seldom repeat), about 1.3 ms of CPU a game natively, 6x an ``optimal``
    game's and hundreds of times a greedy one's (benchmarks/luck_cost.py), so it is asked
    for, never implied. ``auto`` keeps the worm account where it pays: at a table with a
    plugin (user code) or ``optimal``, where it costs little next to the games and saves
    more games than it costs (docs/luck.md), and not at a table of the cheap built-ins
    alone, where games are cheaper than their account.
    """
    mode = config.settings.luck
    if mode == schema.WIN:
        return schema.WIN
    if mode != "auto":
        return mode == "on"
    return any(_pays(e) for e in table.entrants)


def _pays(entrant: Entrant) -> bool:
    module = entrant.spec.cls.__module__
    return module == _OPTIMAL_MODULE or not is_own_module(module)


def key_base(config: TourneyConfig) -> dict[str, Any]:
    """What every chunk key of the config hashes alike: worked out once per plan (its
    ``rules.to_dict`` deep-copies; a table's keys only read it)."""
    return {
        "schema": schema.SCHEMA_VERSION,
        "engine": engine_digest(),
        "rules": config.rules.to_dict(),
        "dice": config.dice,
        "max_turns": config.max_turns,
        "seed": config.seed,
        # The design itself, not its name: at 2 players every mode is the same games.
        "seating": design_of(config),
        **limits_of(config),
    }


def key_content(
    config: TourneyConfig, table: Table, base: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What a table's chunk keys hash, but the deal range: the same for every chunk of the
    table, so a plan works it out once per table (``base``: its :func:`key_base`)."""
    return {
        **(key_base(config) if base is None else base),
        "table": table.key,
        "entrants": [[e.name, e.key, e.code, e.class_name] for e in table.entrants],
        "luck": table_luck(config, table),
    }


def chunk_key(
    config: TourneyConfig,
    table: Table,
    first: int,
    stop: int,
    content: dict[str, Any] | None = None,
) -> str:
    """The content key of deals ``first``..``stop - 1`` of a table (``content``: its
    :func:`key_content`, worked out here when not given)."""
    whole = {**(content or key_content(config, table)), "deals": [first, stop]}
    return hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()[:32]


class KeyText:
    """:func:`chunk_key` of many chunks, its JSON written once for what they share.

    ``json.dumps(whole, sort_keys=True)`` is ``{`` + the ``"key": value`` pairs in key
    order + ``}``, each value dumped with ``sort_keys`` too: so the base's values (the
    rules, the design, the engine digest...) are dumped once per plan and only a table's
    own (its key, entrants, luck) and a chunk's deals per chunk. The text, and so every
    key, is exactly :func:`chunk_key`'s (tests/tourney/test_plan_scale.py compares them)."""

    def __init__(self, base: dict[str, Any]) -> None:
        self.parts = {name: json.dumps(value, sort_keys=True) for name, value in base.items()}

    def keys(self, content: dict[str, Any], ranges: list[tuple[int, int]]) -> list[str]:
        parts = dict(self.parts)
        for name, value in content.items():
            if name not in parts:
                parts[name] = json.dumps(value, sort_keys=True)
        parts["deals"] = "\0"  # where each chunk's deal range goes
        text = "{" + ", ".join(f"{json.dumps(n)}: {parts[n]}" for n in sorted(parts)) + "}"
        before, after = text.split("\0")
        return [
            hashlib.sha256(f"{before}[{first}, {stop}]{after}".encode()).hexdigest()[:32]
            for first, stop in ranges
        ]


def entrant_refs(table: Table) -> tuple[EntrantRef, ...]:
    """The table's entrants as a worker builds them (one tuple, shared by its chunks)."""
    return tuple(EntrantRef(e.name, e.load, e.spec.params, e.code) for e in table.entrants)


def table_settings(config: TourneyConfig, table: Table, engine: str | None = None) -> SeatSettings:
    """The seat settings of a table's chunks: the config's, with the table's engine
    (``engine``: its :func:`table_engine`, worked out here when not given)."""
    return config.settings.with_overrides(
        engine=table_engine(config, table) if engine is None else engine
    )


def spec_for(
    config: TourneyConfig,
    table: Table,
    first: int,
    stop: int,
    settings: SeatSettings | None = None,
    *,
    key: str | None = None,
    refs: tuple[EntrantRef, ...] | None = None,
    account: bool | str | None = None,
) -> ChunkSpec:
    """The chunk of deals ``first``..``stop - 1`` of a table (``settings``: its
    :func:`table_settings`, ``key``: its :func:`chunk_key`, ``refs``: its
    :func:`entrant_refs`, ``account``: its :func:`table_luck`, each worked out here when
    not given)."""
    return ChunkSpec(
        key=chunk_key(config, table, first, stop) if key is None else key,
        table=table.id,
        entrants=entrant_refs(table) if refs is None else refs,
        rules=config.rules,
        dice=config.dice,
        seed=config.seed,
        first=first,
        stop=stop,
        max_turns=config.max_turns,
        settings=table_settings(config, table) if settings is None else settings,
        seating=config.seating,
        account=table_luck(config, table) if account is None else account,
    )


PROGRESS_EVERY = 4096  # tables planned between two calls of a plan's progress


def deal_ranges(config: TourneyConfig) -> list[tuple[int, int]]:
    """The (first, stop) deal ranges of a table's chunks, in order."""
    size = config.deals_per_chunk
    return [(first, min(first + size, config.games)) for first in range(0, config.games, size)]


def chunks(config: TourneyConfig, table_list: list[Table] | None = None) -> Iterator[ChunkSpec]:
    """Every chunk of the tournament, table by table (lazily: memory stays flat)."""
    for table in table_list if table_list is not None else tables(config):
        settings = table_settings(config, table)  # once per table: it builds the seats
        content, refs = key_content(config, table), entrant_refs(table)
        for first, stop in deal_ranges(config):
            key = chunk_key(config, table, first, stop, content)
            yield spec_for(
                config, table, first, stop, settings, key=key, refs=refs, account=content["luck"]
            )


class _EngineMemo:
    """:func:`table_engine` of many tables, each answer worked out once per kind of table.

    What decides it is the config (its engine choice, rules, dice, seed) and which of the
    table's entrants have a native version (the others play as Python seats): tables
    alike in that get the same answer, so a 635,376-table sweep asks the native engine a
    handful of times, not once per table (each entrant's own check is done once too)."""

    def __init__(self, config: TourneyConfig) -> None:
        self.config = config
        self.native: dict[str, bool] = {}  # entrant key -> it has a native version
        self.answers: dict[tuple[bool, ...], str] = {}

    def __call__(self, table: Table) -> str:
        if self.config.settings.engine == "python":
            return "python"
        from harness import native

        kinds = []
        for entrant in table.entrants:
            known = self.native.get(entrant.key)
            if known is None:
                known = self.native[entrant.key] = native.supports([entrant.spec])
            kinds.append(known)
        kind = tuple(sorted(kinds))
        if kind not in self.answers:
            self.answers[kind] = table_engine(self.config, table)
        return self.answers[kind]


class Plan:
    """A tournament's plan, worked out once: its tables, each table's engine, every
    chunk's key and games (``planned``, in plan order), and the chunks themselves.

    Keys (a hash of each chunk's content) are computed here once; :meth:`specs` builds the
    chunk specs from them lazily, so a run of a million chunks holds a key and a count
    per chunk, never a million specs. Raises ConfigError (from :func:`table_engine`)
    for a table the config's engine refuses, before anything is played.
    """

    def __init__(
        self, config: TourneyConfig, progress: Callable[[int, int, str], None] | None = None
    ) -> None:
        self.config = config
        self.tables = tables(config, progress)
        self.ranges = deal_ranges(config)
        self.engines: dict[str, str] = {}
        self.settings: dict[str, SeatSettings] = {}
        self.luck: dict[str, bool] = {}
        self.keys: dict[str, list[str]] = {}  # table id -> its chunks' keys, in deal order
        self.planned: dict[str, int] = {}  # chunk key -> games, in plan order
        per_deal = len(design_of(config))
        base = key_base(config)
        key_text = KeyText(base)
        by_engine: dict[str, SeatSettings] = {}  # a few engines: one SeatSettings each
        engine_of = _EngineMemo(config)
        for done, table in enumerate(self.tables):
            if progress is not None and done % PROGRESS_EVERY == 0:
                progress(done, len(self.tables), "keyed")
            engine = self.engines[table.id] = engine_of(table)
            if engine not in by_engine:
                by_engine[engine] = table_settings(config, table, engine)
            self.settings[table.id] = by_engine[engine]
            content = key_content(config, table, base)
            self.luck[table.id] = content["luck"]
            keys = key_text.keys(content, self.ranges)
            self.keys[table.id] = keys
            for key, (first, stop) in zip(keys, self.ranges, strict=True):
                self.planned[key] = (stop - first) * per_deal
        if progress is not None:
            progress(len(self.tables), len(self.tables), "keyed")
        self.games = sum(self.planned.values())
        self.run_key = run_key(config)
        self._index: dict[str, tuple[int, int]] | None = None

    def specs(self, where: Callable[[str], bool] | None = None) -> Iterator[ChunkSpec]:
        """The chunks in plan order (table by table), lazily; with ``where``, only those
        whose key it accepts (asked as each chunk comes up, so it may change meanwhile)."""
        config = self.config
        for table in self.tables:
            settings, refs = self.settings[table.id], entrant_refs(table)
            account = self.luck[table.id]
            for key, (first, stop) in zip(self.keys[table.id], self.ranges, strict=True):
                if where is None or where(key):
                    yield spec_for(
                        config, table, first, stop, settings, key=key, refs=refs, account=account
                    )

    def spec_of(self, key: str) -> ChunkSpec:
        """The chunk of a planned key (KeyError for another key). The first call indexes
        the plan: a few bytes a chunk, and only a run that reuses chunks asks."""
        if self._index is None:
            self._index = {
                k: (t, i)
                for t, table in enumerate(self.tables)
                for i, k in enumerate(self.keys[table.id])
            }
        t, i = self._index[key]
        table = self.tables[t]
        first, stop = self.ranges[i]
        settings, account = self.settings[table.id], self.luck[table.id]
        return spec_for(self.config, table, first, stop, settings, key=key, account=account)


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
        "luck": config.settings.luck,
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:16]
