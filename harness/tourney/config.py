"""Tournament configs: reading the YAML, checking every key, resolving the entrants.

A config is checked whole before any game is played. Every mistake is one
:class:`~harness.errors.ConfigError` line, ``FILE:LINE: KEY: what is wrong``, with the
line where YAML gives it. The result is a :class:`TourneyConfig`: rules, entrants
resolved to their classes (with code identity) and every default filled in.

Every input is bounded, before anything is planned or played: the document (its size,
and the values YAML aliases expand to: a 1 kB "billion laughs" is one line at once),
each number (the ``MAX_*`` constants below fit the stored schema: ``deal`` int32,
``turns`` int16, seeds int64) and each name. :func:`check_bounds` applies the same
bounds to command-line values (``--deals``, ``--seed``, ``--max-turns``, ...). A value
shown in a message goes through :func:`harness.plugins.shown`, bounded whatever it is.

Every independent mistake of a config is reported in one go (:class:`ConfigProblems`,
one line each), so a config with five mistakes takes one run to see them all. A few
mistakes make later checks meaningless, and those checks are then skipped: a document
that is not a mapping (nothing else is checked); a bad ``players:`` (``rules:``,
``seating:`` and the entrant count depend on it); a bad ``format:`` (the challenger and
the entrant count); a bad entrant (the entrant count and the unique names); and any
mistake at all skips the size of the plan (it needs every number).

:func:`resolve_entrant` resolves one strategy reference as a config's entrant is (for
other commands: ``harness sprt``), with the mistake named after the argument.

``deals:`` (``--deals``) counts deals per table; ``games:`` (``--games``), its old name,
still works and says once that it is deprecated (:func:`deprecated`).
"""

from __future__ import annotations

import difflib
import functools
import itertools
import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import yaml

from harness.errors import GAMES_RENAMED, ConfigError, HarnessError, deprecated, safe_text
from harness.game import seating as seating_design
from harness.game.engine import DEFAULT_MAX_TURNS
from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS, VARIANTS, Rules
from harness.plugins import (
    MAX_REFERENCE_CHARS,
    StrategySpec,
    builtin_strategies,
    names_a_file,
    resolve,
    shown,
)

FORMATS = ("round_robin", "gauntlet")
DICE_MODES = ("duplicate", "independent")
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
)
# Old spellings that still work: old key -> its new name (a deprecation line, once).
RENAMED_KEYS = {"games": "deals"}
ISOLATIONS = ("none", "process")
# auto: the native engine (issue 12) for every table it can play, else the Python engine;
# native: refuse, before anything is played, a table it cannot play; python: never native.
ENGINES = ("auto", "python", "native")
# The luck and skill account (harness.analysis.account, docs/luck.md): on, off, or auto:
# on at the tables where it costs little next to the games (a table with a plugin or
# `optimal`), off at tables of the cheap built-ins alone (plan.table_luck says why).
LUCK_MODES = ("auto", "on", "off")
ENTRANT_KEYS = ("strategy", "name", "params", "sweep")
SWEEP = "sweep"  # an entrant's parameter sweep: one entrant per value (per combination)
# The keys that take one word of a list, and every default: the checker reads them here,
# and so does the JSON Schema of the config (harness/config_schema.py).
CHOICES: dict[str, tuple[str, ...]] = {
    "format": FORMATS,
    "dice": DICE_MODES,
    "isolation": ISOLATIONS,
    "engine": ENGINES,
    "seating": seating_design.SEATINGS,
    "luck": LUCK_MODES,
}
DEFAULTS: dict[str, Any] = {
    "rules": "official",
    "players": 2,
    "format": "round_robin",
    "deals": 1000,
    "seed": 0,
    "dice": "duplicate",
    "max_turns": DEFAULT_MAX_TURNS,
    "isolation": "none",
    "engine": "auto",
    "seating": seating_design.DEFAULT_SEATING,
    "luck": "auto",
}
SECONDS_KEYS = ("move_time", "game_time")  # seconds above 0, at most MAX_SECONDS, or null
# A chunk holds whole deals (every seat order of a deal shares its duplicate dice). About
# 12,000 games a chunk: the parent's cost per chunk (a Parquet part, its fsync, a
# manifest line, a chunk key: about 5 ms) is a small share at the native engine's
# 250,000 games per CPU-second (at 1,200 it was the largest part of the run's CPU), and
# the work a Ctrl-C can lose stays small: a chunk is about 3.5 s on the Python engine
# (3,500 games/s), 60 s for `optimal` there (200 games/s), well under a second natively.
# Chunk keys cover their deals, so folders written with another size (1,200 before) are
# neither resumed nor reused from.
CHUNK_GAMES = 12000
_T = TypeVar("_T")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

# -- bounds -------------------------------------------------------------------------------
# Every number a config or a command line gives, checked before anything is planned.
# The stored schema (harness/runfolder/schema.py) decides most of them: a value outside could
# never be stored, so the run could never complete.
MAX_GAMES = 100_000_000  # deals per table (``deal`` is int32); 10^8 2-player deals: ~16 h
MAX_CHUNK = 100_000  # deals per chunk (a chunk's rows are held in memory while it plays)
MAX_PLANNED_GAMES = 1_000_000_000  # games of one tournament: tables x deals x seat orders
MAX_CHUNKS = 1_000_000  # chunks of one tournament (one manifest line each)
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1  # int64, as the stored seeds and records hold them
MAX_TURNS = 32_767  # the turn cap: ``turns`` and the per-seat counters are int16
MAX_ENTRANTS = 64  # listed entrants (all-builtins adds the built-ins to these)
MAX_WORKERS = 1024  # worker processes
MAX_SECONDS = 3600.0  # move_time and game_time (seconds, > 0)
MAX_NAME_CHARS = 200  # a display name (entrant) and the config's name
MAX_CONFIG_BYTES = 1_000_000  # the YAML document
MAX_YAML_VALUES = 20_000  # values in the document once aliases are expanded
MAX_YAML_DEPTH = 32  # nesting of mappings and lists
MAX_RULE_CHARS = 40  # a variant key or value under rules:

BOUNDS: dict[str, tuple[int | float, int | float, str]] = {
    # key: (lowest, highest, why the highest)
    "deals": (1, MAX_GAMES, "deals per table"),
    "games": (1, MAX_GAMES, "deals per table"),  # the old name of deals (--games)
    "seed": (SEED_MIN, SEED_MAX, "seeds are stored as int64"),
    "max_turns": (1, MAX_TURNS, "the stored turn count is int16"),
    "chunk": (1, MAX_CHUNK, "deals per chunk"),
    "workers": (0, MAX_WORKERS, "worker processes; 0 plays in-process"),
    "max_games": (1, MAX_PLANNED_GAMES, "games of one run"),
}
"""The documented bounds of the numeric keys and of the options of the same names."""


def check_bounds(**values: Any) -> None:
    """ConfigError (one line) unless every given command-line value is within its bounds.

    Keys are those of :data:`BOUNDS` plus ``move_time`` and ``game_time``; a value of
    None (not given) is skipped. Messages name the option (``--max-turns: 40000; ...``).
    Commands call it before anything is planned or played.
    """
    for key, value in values.items():
        if value is None:
            continue
        option = "--" + key.replace("_", "-")
        if key in ("move_time", "game_time"):
            problem = _seconds_problem(value)
        elif key in BOUNDS:
            problem = _integer_problem(value, *BOUNDS[key])
        else:
            raise TypeError(f"check_bounds: no bounds for {key!r}")
        if problem:
            raise ConfigError(f"{option}: {problem}")


class ConfigProblems(ConfigError):
    """Several mistakes of one config: ``problems`` holds one line each (``str()`` is
    them all, a line each; the command prints each as an ``Error:`` line)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = list(problems)


def _integer_problem(value: Any, low: int | float, high: int | float, why: str) -> str | None:
    if type(value) is not int:
        return f"expected a whole number, got {shown(value)}"
    if value < low:
        return f"{shown(value)}; must be at least {low:,}"
    if value > high:
        return f"{shown(value)}; at most {high:,} ({why})"
    return None


def _seconds_problem(value: Any) -> str | None:
    if type(value) not in (int, float):
        return f"expected seconds (a number, or null for no limit), got {shown(value)}"
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        return f"{shown(value)}; give seconds above 0 and at most {MAX_SECONDS:g}"
    return None


def seating_orders(players: int, seating: str) -> int:
    """Seat orders a deal is played in under ``seating`` (0 for a mode that is refused)."""
    if seating_design.seating_problem(seating, players) is not None:
        return 0
    return len(seating_design.design(players, seating))


def plan_size(fmt: str, players: int, entrants: int, games: int, chunk: int) -> tuple[int, int]:
    """(tables, chunks) of a tournament, counted without building it."""
    field_size, seats = (entrants, players) if fmt == "round_robin" else (entrants, players - 1)
    tables = math.comb(field_size, seats) if field_size >= seats else 0
    return tables, tables * -(-games // chunk)


def _plan_problem(config: TourneyConfig) -> str | None:
    """Why a tournament is too big to plan, or None (checked before it is planned)."""
    tables, chunks = plan_size(
        config.format, config.players, len(config.entrants), config.games, config.deals_per_chunk
    )
    orders = seating_orders(config.players, config.seating)
    games = tables * config.games * orders
    if games > MAX_PLANNED_GAMES:
        fewer = "fewer games or entrants" + (
            "" if orders == config.players else ", or seating: cyclic (n orders a deal)"
        )
        return (
            f"{tables:,} tables x {config.games:,} deals x {orders} seat orders = "
            f"{games:,} games; at most {MAX_PLANNED_GAMES:,} in one run ({fewer})"
        )
    if chunks > MAX_CHUNKS:
        return (
            f"{chunks:,} chunks of {config.deals_per_chunk:,} deals; at most {MAX_CHUNKS:,} "
            "in one run (a larger chunk:, fewer games or entrants)"
        )
    return None


# -- YAML with line numbers ------------------------------------------------------------
class _Map(dict):
    """A YAML mapping that remembers the line of each key (1-based)."""

    line: int = 0
    lines: dict[Any, int]


class _Seq(list):
    """A YAML sequence that remembers the line of each item (1-based)."""

    line: int = 0
    lines: list[int]


class _Loader(yaml.SafeLoader):
    """SafeLoader (no arbitrary objects) that refuses documents that expand too far."""

    _depth = 0

    def compose_document(self) -> Any:
        node = super().compose_document()
        _check_expansion(node)  # before anything is constructed from it
        return node

    def compose_node(self, parent: Any, index: Any) -> Any:
        # Refuse deep nesting as soon as it is read: the composer recurses per level.
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise _YamlProblem(mark.line + 1, f"values nested more than {MAX_YAML_DEPTH} deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _check_expansion(root: yaml.Node | None) -> None:
    """Refuse a document of more than MAX_YAML_VALUES values once aliases are expanded,
    nested deeper than MAX_YAML_DEPTH, or with an alias inside itself.

    An alias is the node it names (the composer shares it), so each node's expanded size
    is computed once: a 1 kB alias bomb of 9^9 values costs a few dozen steps here.
    """
    if root is None:
        return
    problem = _expansion_problem(root, _node_children)
    if problem:
        node, message = problem
        raise _YamlProblem(node.start_mark.line + 1, message)


def _node_children(node: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _value_children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [v for pair in dict.items(value) for v in pair]
    if isinstance(value, (list, tuple)):
        return list(value)
    return []


def _expansion_problem(root: Any, children: Any) -> tuple[Any, str] | None:
    """(where, why) if ``root`` expands to too many values, too deep or into itself.

    Shared parts (aliases; the same list twice in a mapping given from Python) are
    counted as often as they appear but walked once, so the cost is the number of
    distinct parts, however far they expand.
    """
    size: dict[int, int] = {}  # id(part) -> values it expands to (capped)
    depth: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    open_parts: set[int] = set()  # the parts on the path from the root: a cycle's test
    keep = []  # every part walked stays alive, so no id() is reused meanwhile
    while stack:
        part, done = stack.pop()
        key = id(part)
        if done:
            open_parts.discard(key)
            kids = children(part)
            size[key] = min(1 + sum(size[id(k)] for k in kids), MAX_YAML_VALUES + 1)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            if size[key] > MAX_YAML_VALUES:
                return part, (
                    f"the document expands to more than {MAX_YAML_VALUES:,} values "
                    "(aliases repeat what they name); a config needs a few dozen"
                )
            if depth[key] > MAX_YAML_DEPTH:
                return part, f"values nested more than {MAX_YAML_DEPTH} deep"
            continue
        if key in size:
            continue
        if key in open_parts:
            return part, "a value that contains itself (an alias inside what it names)"
        open_parts.add(key)
        keep.append(part)
        stack.append((part, True))
        stack.extend((k, False) for k in children(part) if id(k) not in size)
    return None


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    data = _Map()
    data.line = node.start_mark.line + 1
    data.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            raise _YamlProblem(line, f"a key must be a plain word, got {shown(key)}")
        if key in data:
            raise _YamlProblem(
                line, f"{shown(key)}: duplicate key (first on line {data.lines[key]})"
            )
        data[key] = loader.construct_object(value_node, deep=True)
        data.lines[key] = line
    return data


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> _Seq:
    data = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    data.line = node.start_mark.line + 1
    data.lines = [child.start_mark.line + 1 for child in node.value]
    return data


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int:
    # No bound here is above 20 digits; reading a longer one can cost a lot (Python refuses
    # decimal ones past 4,300 digits; "1:1:1:..." base 60 is quadratic), so it is not read.
    if len(node.value) > 100:
        line = node.start_mark.line + 1
        raise _YamlProblem(line, f"a number of {len(node.value):,} characters; far too large")
    return yaml.SafeLoader.construct_yaml_int(loader, node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


class _YamlProblem(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


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
class TourneyConfig:
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
    move_time: float | None = None  # seconds per decision of a seat; None = no limit
    game_time: float | None = None  # seconds of one seat's decisions in one game
    isolation: str = "none"  # "process": each seat's strategy in a process of its own
    engine: str = "auto"  # auto | python | native (the rows are the same with each)
    # How a deal's seat orders are chosen (harness.game.seating): balanced | cyclic |
    # permutations. Every deal is played once in each order of the design.
    seating: str = seating_design.DEFAULT_SEATING
    # The luck and skill account: auto | on | off (LUCK_MODES).
    luck: str = "auto"

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def deals_per_chunk(self) -> int:
        return self.chunk or max(1, -(-CHUNK_GAMES // self.players))

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
    ) -> TourneyConfig:
        """This config with command-line values in place of its own (None: keep its own).

        Each value is checked against the same bounds as the config key (ConfigError
        naming the option), and so is the size of the plan they make. ``games`` is the old
        name of ``deals`` (the caller says it is deprecated); not both.
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
            "move_time": move_time,
            "game_time": game_time,
        }
        check_bounds(**{k: v for k, v in given.items() if k != "games"})
        changes = {k: v for k, v in given.items() if v is not None}
        for key in ("move_time", "game_time"):
            if key in changes:
                changes[key] = float(changes[key])
        if isolation is not None:
            if isolation not in ISOLATIONS:
                raise ConfigError(
                    f"--isolation: {shown(isolation)} is not one of {', '.join(ISOLATIONS)}"
                )
            changes["isolation"] = isolation
        if engine is not None:
            if engine not in ENGINES:
                raise ConfigError(f"--engine: {shown(engine)} is not one of {', '.join(ENGINES)}")
            changes["engine"] = engine
        if seating is not None:
            problem = seating_design.seating_problem(seating, self.players)
            if problem:
                raise ConfigError(f"--{problem}")
            changes["seating"] = seating
        if luck is not None:
            if luck not in LUCK_MODES:
                raise ConfigError(f"--luck: {shown(luck)} is not one of {', '.join(LUCK_MODES)}")
            changes["luck"] = luck
        if not changes:
            return self
        changed = replace(self, **changes)
        problem = _plan_problem(changed)
        if problem:
            given_deals = deals is not None or games is not None
            raise ConfigError(f"--{option}: {problem}" if given_deals else problem)
        return changed


# -- loading ----------------------------------------------------------------------------
def _nearby(path: Path) -> str:
    """``; did you mean 'configs/round_robin.yaml'?`` for a config file of a close name in
    the same folder (a typo), else nothing."""
    try:
        near = [p.name for p in path.parent.iterdir() if p.suffix in (".yaml", ".yml")]
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, near, n=1)
    return f"; did you mean {str(path.parent / close[0])!r}?" if close else ""


def load_config(source: str | os.PathLike[str] | dict[str, Any]) -> TourneyConfig:
    """Read and check a config file (or a mapping); ConfigError (one line) if anything is off."""
    if isinstance(source, dict):
        problem = _expansion_problem(source, _value_children)
        if problem:
            raise ConfigError(f"config: {problem[1]}")
        return _Checker("config", base=Path.cwd()).check(source, default_name="tourney")
    path = Path(source)
    try:
        with path.open("rb") as fh:  # at most the bound (and one byte to tell it is more)
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file{_nearby(path)}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:  # before decoding: the cut may split a character
        raise ConfigError(
            f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes; a config is a few lines of YAML"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read: not UTF-8 text (byte {exc.start:,})") from None
    try:
        data = yaml.load(text, Loader=_Loader)  # a SafeLoader subclass: no arbitrary objects
    except _YamlProblem as exc:
        raise ConfigError(f"{path}:{exc.line}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{where}: not valid YAML: {safe_text(problem, 200)}") from None
    except RecursionError:  # the composer recurses per level of nesting
        raise ConfigError(f"{path}: values nested more than {MAX_YAML_DEPTH} deep") from None
    if data is None:
        raise ConfigError(f"{path}: the config is empty; it needs at least entrants")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-") or "tourney"
    return _Checker(str(path), base=path.resolve().parent).check(data, default_name=stem)


def resolve_entrant(ref: str, what: str, base: Path | None = None) -> Entrant:
    """One strategy reference resolved and checked as a config's entrant is.

    ``ref`` is named as everywhere (``greedy``, ``threshold(target=28)``, ``f.py:Class``;
    a file is taken relative to ``base``, then the cwd). The public face of the config
    checker for other commands (``harness sprt``): the same resolution, parameter check
    and seating key, with a mistake as one ConfigError line named after ``what`` alone,
    ``A: unknown strategy 'x' ...``, since there is no file or line to point at.
    """
    return _Checker("", base=base or Path.cwd()).entrant(None, None, ref, what)


class _Checker:
    """Checks one config mapping, naming the file and line of each mistake.

    ``where`` names the source in every message (a file, or "config" for a mapping);
    empty: messages carry no source (:func:`resolve_entrant`).
    """

    def __init__(self, where: str, base: Path) -> None:
        self.where = where
        self.base = base
        self.problems: list[str] = []  # every mistake found so far, one line each
        self.deals_key = "deals"  # as the config spells it (games: is the old name)

    def fail(self, container: Any, key: Any, message: str) -> ConfigError:
        line = None
        if isinstance(container, _Map):
            line = container.lines.get(key, container.line)
        elif isinstance(container, _Seq) and isinstance(key, int) and key < len(container.lines):
            line = container.lines[key]
        elif isinstance(container, (_Map, _Seq)):
            line = container.line
        if not self.where:
            return ConfigError(message)
        where = f"{self.where}:{line}" if line else self.where
        return ConfigError(f"{where}: {message}")

    def check(self, data: Any, default_name: str) -> TourneyConfig:
        """The checked config; ConfigError (one line) or :class:`ConfigProblems` (every
        independent mistake, a line each) otherwise. What a mistake makes meaningless is
        skipped (the module docstring lists it)."""
        if not isinstance(data, dict):
            raise self.fail(data, None, "a config is a mapping of keys (name, players, ...)")
        for key in data:
            if key not in KEYS and key not in RENAMED_KEYS:
                self.problems.append(str(self.unknown_key(data, key)))
        name = self.collect(lambda: self.name(data, default_name), default_name)
        players = self.collect(lambda: self.players(data), None)
        rules = seating = None
        if players is not None:
            rules = self.collect(lambda: self.rules(data, players), None)
            seating = self.collect(lambda: self.seating(data, players), None)
        fmt = self.collect(lambda: self.choice(data, "format"), None)
        dice = self.collect(lambda: self.choice(data, "dice"), "")
        deals = self.collect(lambda: self.deals(data), 0)
        seed = self.collect(lambda: self.number(data, "seed"), 0)
        workers = None
        if data.get("workers") is not None:
            workers = self.collect(lambda: self.number(data, "workers"), 0)
        max_turns = self.collect(lambda: self.number(data, "max_turns"), 0)
        chunk = 0
        if "chunk" in data:
            chunk = self.collect(lambda: self.number(data, "chunk"), 0)
        move_time = self.collect(lambda: self.seconds(data, "move_time"), None)
        game_time = self.collect(lambda: self.seconds(data, "game_time"), None)
        isolation = self.collect(lambda: self.choice(data, "isolation"), "")
        engine = self.collect(lambda: self.choice(data, "engine"), "")
        luck = self.collect(lambda: self.choice(data, "luck"), "")

        entrants: tuple[Entrant, ...] | None = None
        if "entrants" not in data:
            self.problems.append(
                str(self.fail(data, None, "entrants: missing; list the strategies to play"))
            )
        else:
            entrants = self.collect(lambda: self.entrants(data), None)
        challenger = None
        if fmt == "gauntlet":
            if "challenger" not in data:
                self.problems.append(
                    str(
                        self.fail(
                            data, "format", "challenger: missing; a gauntlet needs one challenger"
                        )
                    )
                )
            else:
                challenger = self.collect(
                    lambda: self.entrant(data, "challenger", data["challenger"], "challenger"),
                    None,
                )
        elif fmt is not None and "challenger" in data:
            self.problems.append(
                str(
                    self.fail(
                        data, "challenger", "challenger: only a gauntlet has one (format: gauntlet)"
                    )
                )
            )
        if entrants is not None and players is not None and fmt is not None:
            if challenger is not None:
                # The challenger listed in the field too (same strategy and name) plays
                # once; under another name it is a mirror match, an entrant of its own.
                entrants = tuple(
                    e for e in entrants if (e.key, e.name) != (challenger.key, challenger.name)
                )
            self.collect(lambda: self.enough(data, entrants, challenger, fmt, players), None)
        self.raise_problems()
        assert rules is not None and seating is not None and entrants is not None
        assert fmt is not None
        config = TourneyConfig(
            name=name,
            rules=rules,
            format=fmt,
            entrants=entrants,
            games=deals,
            seed=seed,
            dice=dice,
            workers=workers,
            max_turns=max_turns,
            chunk=chunk,
            challenger=challenger,
            source=self.where,
            move_time=move_time,
            game_time=game_time,
            isolation=isolation,
            engine=engine,
            seating=seating,
            luck=luck,
        )
        problem = _plan_problem(config)
        if problem:
            raise self.fail(data, self.deals_key, f"{self.deals_key}: {problem}")
        if self.deals_key != "deals":  # not beside error lines: those come first
            deprecated(GAMES_RENAMED.format(old="games:", new="deals:"))
        return config

    # -- collecting mistakes -------------------------------------------------------------
    def collect(self, check: Callable[[], _T], fallback: _T) -> _T:
        """``check()``; a ConfigError it raises is noted (one line each) and ``fallback``
        stands in for the value, so that the independent checks after it still run."""
        try:
            return check()
        except ConfigProblems as exc:
            self.problems.extend(exc.problems)
        except ConfigError as exc:
            self.problems.append(str(exc))
        return fallback

    def raise_problems(self) -> None:
        """Every mistake noted so far, at once: one ConfigError, or ConfigProblems (in
        the order of their lines, as an editor lists them)."""
        at = re.compile(re.escape(self.where) + r":(\d+): ")

        def line_of(problem: str) -> int:
            found = at.match(problem)
            return int(found.group(1)) if found else 0

        self.problems.sort(key=line_of)  # stable: one line's mistakes keep their order
        if len(self.problems) == 1:
            raise ConfigError(self.problems[0])
        if self.problems:
            raise ConfigProblems(self.problems)

    # -- the top-level keys ----------------------------------------------------------------
    def unknown_key(self, data: dict, key: Any) -> ConfigError:
        text = key if isinstance(key, str) else ""
        # difflib is quadratic: only a key of plausible length gets a suggestion
        known = (*KEYS, *RENAMED_KEYS)
        close = difflib.get_close_matches(text, known, n=1) if len(text) <= 40 else []
        hint = f"did you mean {RENAMED_KEYS.get(close[0], close[0])!r}? " if close else ""
        return self.fail(data, key, f"unknown key {shown(key)}; {hint}keys are: {', '.join(KEYS)}")

    def name(self, data: dict, default_name: str) -> str:
        name = data.get("name", default_name)
        if not isinstance(name, str) or not _NAME.match(name) or len(name) > MAX_NAME_CHARS:
            raise self.fail(
                data,
                "name",
                f"name: {shown(name)}; use up to {MAX_NAME_CHARS} letters, digits, '.', '_' "
                "or '-' (a folder name)",
            )
        return name

    def players(self, data: dict) -> int:
        players = self.integer(data, "players", DEFAULTS["players"], low=None)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise self.fail(
                data,
                "players",
                f"players: {players}; a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players (R3)",
            )
        return players

    def deals(self, data: dict) -> int:
        """``deals:``, or its old name ``games:`` (deprecated, said once), not both."""
        if "deals" in data and "games" in data:
            raise self.fail(
                data, "games", "games: the old name of deals:; give deals: only, not both"
            )
        if "games" in data:
            self.deals_key = "games"  # said deprecated once the config is right (check())
        return self.integer(data, self.deals_key, DEFAULTS["deals"], *BOUNDS["deals"])

    def seating(self, data: dict, players: int) -> str:
        seating = data.get("seating", DEFAULTS["seating"])
        problem = seating_design.seating_problem(seating, players)
        if problem:
            # seating_problem shows the value with repr: bound it the way shown() does
            if not isinstance(seating, str) or len(seating) > MAX_RULE_CHARS:
                problem = f"seating: {shown(seating, 60)} is not one of " + ", ".join(
                    seating_design.SEATINGS
                )
            raise self.fail(data, "seating", problem)
        return seating

    def enough(
        self,
        data: dict,
        entrants: tuple[Entrant, ...],
        challenger: Entrant | None,
        fmt: str,
        players: int,
    ) -> None:
        """Enough entrants for a table, each name once."""
        if fmt == "gauntlet":
            needed, what = players - 1, "the field (besides the challenger)"
        else:
            needed, what = players, "entrants"
        if len(entrants) < needed:
            raise self.fail(
                data,
                "entrants",
                f"entrants: {len(entrants)} in {what}; a {fmt} of {players}-player tables "
                f"needs at least {needed}",
            )
        self.unique(data, ((challenger,) if challenger else ()) + entrants)

    # -- single keys ---------------------------------------------------------------------
    def number(self, data: dict, key: str) -> int:
        """A whole number within :data:`BOUNDS` (default from :data:`DEFAULTS`)."""
        return self.integer(data, key, DEFAULTS.get(key, 0), *BOUNDS[key])

    def integer(
        self,
        data: dict,
        key: str,
        default: int,
        low: int | float | None,
        high: int | float | None = None,
        why: str = "",
    ) -> int:
        value = data.get(key, default)
        if type(value) is not int:
            raise self.fail(data, key, f"{key}: expected a whole number, got {shown(value)}")
        if low is not None and value < low:
            raise self.fail(data, key, f"{key}: {shown(value)}; must be at least {low:,}")
        if high is not None and value > high:
            raise self.fail(data, key, f"{key}: {shown(value)}; at most {high:,} ({why})")
        return value

    def seconds(self, data: dict, key: str) -> float | None:
        value = data.get(key)
        if value is None:
            return None
        problem = _seconds_problem(value)
        if problem:
            raise self.fail(data, key, f"{key}: {problem}")
        return float(value)

    def choice(self, data: dict, key: str) -> str:
        allowed = CHOICES[key]
        value = data.get(key, DEFAULTS[key])
        if not isinstance(value, str) or value not in allowed:
            raise self.fail(data, key, f"{key}: {shown(value)} is not one of {', '.join(allowed)}")
        return value

    def rules(self, data: dict, players: int) -> Rules:
        value = data.get("rules", DEFAULTS["rules"])
        try:
            if isinstance(value, str):
                if len(value) > MAX_RULE_CHARS:
                    raise self.fail(data, "rules", f"rules: {shown(value, 60)} is not a preset")
                return Rules.preset(value, players)
            if isinstance(value, dict):
                self.plain_rules(value)
                if "players" in value and value["players"] != players:
                    raise self.fail(
                        value,
                        "players",
                        f"rules.players: {shown(value['players'])} differs from players: "
                        f"{players}; give the player count once, as players:",
                    )
                return Rules.from_dict({**dict(value), "players": players}, where="rules")
        except HarnessError as exc:
            if isinstance(exc, ConfigError):
                raise
            key = _key_named(exc, value)
            raise self.fail(value if key is not None else data, key or "rules", str(exc)) from None
        raise self.fail(
            data, "rules", f"rules: expected a preset name or a mapping, got {shown(value)}"
        )

    def plain_rules(self, value: dict) -> None:
        """Every rules key a short word, every value a short word, number or true/false:
        what Rules then says about them (with repr) stays short."""
        for key, item in value.items():
            if not isinstance(key, str) or len(key) > MAX_RULE_CHARS:
                known = ", ".join(["preset", "players", *VARIANTS])
                raise self.fail(
                    value, key, f"rules: unknown key {shown(key, 60)}; keys are {known}"
                )
            plain = item is None or type(item) in (bool, int, float)
            if not plain and not (isinstance(item, str) and len(item) <= MAX_RULE_CHARS):
                raise self.fail(
                    value,
                    key,
                    f"rules.{key}: {shown(item, 60)}; expected a word, a number or true/false",
                )

    def entrants(self, data: dict) -> tuple[Entrant, ...]:
        items = data["entrants"]
        if isinstance(items, str):  # entrants: all-builtins
            items = _Seq([items])
            items.line = data.lines.get("entrants", 0) if isinstance(data, _Map) else 0
            items.lines = [items.line]
        if not isinstance(items, list) or not items:
            raise self.fail(data, "entrants", "entrants: expected a list of strategies")
        if len(items) > MAX_ENTRANTS:
            raise self.fail(
                data,
                "entrants",
                f"entrants: {len(items):,} listed; at most {MAX_ENTRANTS} (all-builtins counts "
                "as one)",
            )
        found: list[Entrant] = []
        explicit: set[str] = set()
        wants_all = False
        before = len(self.problems)
        for i, item in enumerate(items):
            if isinstance(item, str) and item == ALL_BUILTINS:
                wants_all = True
                continue
            # Each entrant on its own: every bad one is said, in one run.
            if isinstance(item, dict) and SWEEP in item:
                swept = functools.partial(self.sweep, items, i, item, f"entrants[{i}]")
                made = self.collect(swept, [])
            else:
                one = functools.partial(self.entrant, items, i, item, f"entrants[{i}]")
                made = [e for e in [self.collect(one, None)] if e is not None]
            for entrant in made:
                found.append(entrant)
                explicit.add(entrant.key)
        if len(self.problems) > before:  # the count and the names mean nothing yet
            problems, self.problems = self.problems[before:], self.problems[:before]
            raise ConfigProblems(problems)
        if len(found) > MAX_ENTRANTS:
            raise self.fail(
                data,
                "entrants",
                f"entrants: {len(found):,} once the sweeps are expanded; at most {MAX_ENTRANTS}",
            )
        if wants_all:
            # Every built-in with default parameters, after the listed ones, unless listed.
            for ref in builtin_strategies():
                if ref not in explicit:
                    found.append(self.entrant(items, 0, ref, f"{ALL_BUILTINS} ({ref})"))
        return tuple(found)

    def sweep(self, container: Any, index: Any, item: dict, what: str) -> list[Entrant]:
        """A swept entrant: one entrant per value of ``sweep: {key: [values]}`` (per
        combination, for several keys, in the order written), each checked as any
        entrant with that value among its parameters, and named by it: ``threshold(target
        =24)``, or ``NAME(target=24)`` when the entrant has a ``name:``."""
        sweep = item[SWEEP]

        def expected(container: Any, key: Any, where: str, what_kind: str, got: Any) -> Any:
            return self.fail(
                container,
                key,
                f"{where}: expected {what_kind}, e.g. {{target: [24, 26, 28]}}, got {shown(got)}",
            )

        if not isinstance(sweep, dict) or not sweep:
            kind = "a mapping of a parameter to its values"
            raise expected(item, SWEEP, f"{what}.sweep", kind, sweep)
        params = item.get("params")
        params = params if isinstance(params, dict) else {}
        axes: list[tuple[str, list[Any]]] = []
        for key, values in sweep.items():
            if not isinstance(key, str):
                raise self.fail(sweep, key, f"{what}.sweep: {shown(key)} is not a parameter name")
            if key in params:
                raise self.fail(
                    sweep, key, f"{what}.sweep.{key}: also under params:; give it in one of them"
                )
            if not isinstance(values, list) or not values:
                raise expected(sweep, key, f"{what}.sweep.{key}", "a list of values", values)
            seen: set[str] = set()
            for value in values:
                tag = json.dumps(value, sort_keys=True, default=repr)
                if tag in seen:
                    twice = f"{what}.sweep.{key}: {shown(value)} is listed twice"
                    raise self.fail(sweep, key, twice)
                seen.add(tag)
            axes.append((key, values))
        count = math.prod(len(values) for _, values in axes)
        if count > MAX_ENTRANTS:
            raise self.fail(
                item, SWEEP, f"{what}.sweep: {count:,} entrants; at most {MAX_ENTRANTS} in a run"
            )
        name = item.get("name")
        made = []
        for combo in itertools.product(*(values for _, values in axes)):
            swept = dict(zip((key for key, _ in axes), combo, strict=True))
            label = ", ".join(f"{k}={v!r}" for k, v in swept.items())
            one = _Map({k: v for k, v in item.items() if k != SWEEP})
            one.line = getattr(item, "line", 0)
            one.lines = {**getattr(item, "lines", {}), "params": _line(item, SWEEP)}
            one["params"] = {**params, **swept}
            if isinstance(name, str):
                one["name"] = f"{name.strip()}({label})"
            made.append(self.entrant(container, index, one, f"{what} ({label})"))
        return made

    def entrant(self, container: Any, index: Any, item: Any, what: str) -> Entrant:
        try:  # a strategy class or instance (Python callers): its reference and params
            item = python_entrant(item)
        except HarnessError as exc:
            raise self.fail(container, index, f"{what}: {safe_text(exc)}") from None
        name = None
        params: Any = None
        if isinstance(item, dict):
            for key in item:
                if key not in ENTRANT_KEYS:
                    raise self.fail(
                        item,
                        key,
                        f"{what}: unknown key {shown(key)}; an entrant has "
                        f"{', '.join(ENTRANT_KEYS)}",
                    )
            if SWEEP in item:  # only a listed entrant expands (Checker.sweep)
                raise self.fail(
                    item, SWEEP, f"{what}.sweep: {what} is one strategy; sweep an entrant"
                )
            ref = item.get("strategy")
            if not isinstance(ref, str) or not ref.strip():
                raise self.fail(item, "strategy", f"{what}.strategy: expected a strategy reference")
            name = item.get("name")
            if name is not None:
                problem = name_problem(name)
                if problem:
                    raise self.fail(item, "name", f"{what}.name: {problem}")
            params = item.get("params")
            if params is not None and not isinstance(params, dict):
                raise self.fail(
                    item, "params", f"{what}.params: expected a mapping, got {shown(params)}"
                )
            where = (item, "strategy")
        elif isinstance(item, str):
            ref = item
            where = (container, index)
        else:
            raise self.fail(
                container,
                index,
                f"{what}: expected a strategy reference or a mapping with strategy:, "
                f"got {shown(item)}",
            )
        try:
            load = self.locate(ref)
            spec = resolve(load, dict(params) if params else None)
            spec.create()  # a constructor that rejects its parameters fails here, not mid-run
            code = spec.identity()["code"]
        except HarnessError as exc:
            raise self.fail(*where, f"{what}: {safe_text(exc)}") from None
        written = ref.split("(", 1)[0].strip()
        spec = replace(spec, ref=written)
        key = written + (json.dumps(dict(spec.params), sort_keys=True) if spec.params else "")
        shown_name = (name or spec.display_label).strip()
        problem = name_problem(shown_name)
        if problem:  # a long label from long parameters: the entrant needs a name:
            raise self.fail(*where, f"{what}: its label {problem}; give it a shorter name:")
        return Entrant(name=shown_name, spec=spec, key=key, load=load, code=code)

    def locate(self, ref: str) -> str:
        """A file plugin's path is taken relative to the config's folder (then the cwd)."""
        head, sep, tail = ref.partition(":")
        if not sep or not names_a_file(head):
            return ref
        if len(ref) > MAX_REFERENCE_CHARS:  # resolve() says so, in one line
            return ref
        path = Path(head).expanduser()
        try:
            if not path.is_absolute():
                beside = self.base / path
                path = beside if beside.exists() else Path.cwd() / path
            return f"{path.resolve()}:{tail}"
        except (OSError, ValueError, RuntimeError):  # a NUL byte, a loop of symlinks
            return ref  # resolve() then says the file is not found

    def unique(self, data: dict, entrants: tuple[Entrant, ...]) -> None:
        """Display names are unique (they are the entrants' identity in tables and rows).

        The same strategy and parameters under two names is allowed: a mirror match.
        """
        names: set[str] = set()
        for e in entrants:
            if e.name in names:
                raise self.fail(
                    data,
                    "entrants",
                    f"entrants: two entrants are named {shown(e.name)}; give one of them "
                    "another name:",
                )
            names.add(e.name)


def _line(mapping: Any, key: str) -> int:
    """The line of ``key`` in a YAML mapping (0: unknown)."""
    lines = getattr(mapping, "lines", None)
    return lines.get(key, getattr(mapping, "line", 0)) if isinstance(lines, dict) else 0


def name_problem(name: Any) -> str | None:
    """What is wrong with a display name, or None: one printable line, at most
    MAX_NAME_CHARS characters (it is stored in every game row, drawn in every plot)."""
    if not isinstance(name, str) or not name.strip():
        return f"expected a display name, got {shown(name)}"
    if len(name) > MAX_NAME_CHARS:
        return f"{shown(name, 60)} has {len(name):,} characters; at most {MAX_NAME_CHARS}"
    bad = next((c for c in name if not c.isprintable()), None)
    if bad is not None:
        return f"{shown(name, 60)} holds a control character ({bad!r}); a name is one line"
    return None


def _key_named(exc: Exception, mapping: Any) -> str | None:
    """The rules key a RulesError names (``rules.bust_flip: ...``), for its line number."""
    match = re.match(r"rules\.(\w+)", str(exc))
    if match and isinstance(mapping, dict) and match.group(1) in mapping:
        return match.group(1)
    match = re.search(r"unknown key '(\w+)'", str(exc))
    if match and isinstance(mapping, dict) and match.group(1) in mapping:
        return match.group(1)
    return None


# -- entrants given as Python objects (run_tournament from a notebook) ----------------------
def python_entrant(item: Any) -> Any:
    """A strategy class or instance (alone, or as a mapping's ``strategy:``) as the
    reference a config holds; any other item unchanged.

    Workers build every seat from a reference and parameters, never from the object: a
    class becomes ``module:Class`` (``__main__:Class`` for a notebook's or a script's own
    class, a file plugin's path, a built-in's name); an instance becomes its class with
    its constructor parameters, read from the attributes of the same name (``self.target
    = target``) and kept where they differ from the defaults. An instance that class and
    parameters do not rebuild exactly (a parameter not kept, state changed since) is
    refused in one line (HarnessError) saying why.
    """
    from harness.game.strategy import Strategy

    if isinstance(item, dict) and isinstance(item.get("strategy"), (type, Strategy)):
        ref, params = _object_reference(item["strategy"])
        out = {**item, "strategy": ref}
        given = item.get("params")
        if params or given:
            out["params"] = {**params, **(given if isinstance(given, dict) else {})}
        return out
    if isinstance(item, (type, Strategy)):
        ref, params = _object_reference(item)
        return {"strategy": ref, "params": params} if params else ref
    return item


def _object_reference(obj: Any) -> tuple[str, dict[str, Any]]:
    """(reference, parameters) of a strategy class or instance; HarnessError if none."""
    from harness.game.strategy import Strategy

    if isinstance(obj, Strategy):
        cls = type(obj)
        return _class_reference(cls), _instance_params(obj)
    if not issubclass(obj, Strategy):
        raise HarnessError(f"{shown(obj)} is not a subclass of harness.strategy.Strategy")
    return _class_reference(obj), {}


def _class_reference(cls: type) -> str:
    """How a worker finds ``cls``: a built-in's name, a file plugin's path, module:Class."""
    import sys

    for name, builtin in builtin_strategies().items():
        if builtin is cls:
            return name
    qualname, module_name = cls.__qualname__, cls.__module__
    if "." in qualname:  # inside a function (<locals>) or another class
        raise HarnessError(
            f"strategy class {shown(qualname)} is defined inside a function or class; "
            "workers find a class by its module and name: define it at the top level"
        )
    module = sys.modules.get(module_name)
    if module is None or getattr(module, cls.__name__, None) is not cls:
        raise HarnessError(
            f"strategy class {shown(qualname)}: {shown(module_name)}.{cls.__name__} is not "
            "this class (a notebook cell run again since?); pass the class as defined now"
        )
    path = getattr(module, "__file__", None)
    if getattr(module, "__harness_code__", None) and path:  # a file plugin harness loaded
        return f"{path}:{cls.__name__}"
    return f"{module_name}:{cls.__name__}"


def _instance_params(obj: Any) -> dict[str, Any]:
    """An instance's constructor parameters, if its class and them rebuild it exactly."""
    cls = type(obj)
    state = vars(obj) if hasattr(obj, "__dict__") else {}
    params: dict[str, Any] = {}
    for key, default in cls.parameters().items():
        if key in state:
            value = state[key]
        elif f"_{key}" in state:
            value = state[f"_{key}"]
        else:
            raise HarnessError(
                f"{cls.__name__} instance: its parameter {key!r} is not kept as self.{key}, "
                "so workers cannot rebuild it; pass the class with params: "
                f"{{'strategy': {cls.__name__}, 'params': {{...}}}}"
            )
        if default is ... or not _equal(value, default):
            params[key] = value
    try:
        rebuilt = cls(**params)
    except Exception as exc:  # noqa: BLE001 - the plugin's constructor: any error is one line
        raise HarnessError(
            f"{cls.__name__} instance: {cls.__name__}(**{shown(params)}) raised "
            f"{type(exc).__name__}, so workers cannot rebuild it"
        ) from None
    again = vars(rebuilt) if hasattr(rebuilt, "__dict__") else {}
    differs = sorted(k for k in set(state) | set(again) if not _equal(state.get(k), again.get(k)))
    if differs:
        raise HarnessError(
            f"{cls.__name__} instance: its attribute {differs[0]!r} differs from "
            f"{cls.__name__}(**{shown(params)})'s, so workers (which build each seat from "
            "its class and parameters) cannot rebuild it; pass the class with params"
        )
    return params


def _equal(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - an __eq__ that raises (numpy arrays): not equal
        return False
