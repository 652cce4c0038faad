"""Tournament configs: reading the YAML, checking every key, resolving the entrants.

A config is checked whole before any game is played. Every mistake is one
:class:`~harness.errors.ConfigError` line, ``FILE:LINE: KEY: what is wrong``, with the
line where YAML gives it. The result is a :class:`TourneyConfig`: rules, entrants
resolved to their classes (with code identity) and every default filled in.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from harness.engine import DEFAULT_MAX_TURNS
from harness.errors import ConfigError, HarnessError
from harness.plugins import StrategySpec, builtin_strategies, resolve
from harness.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

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
    "games",
    "seed",
    "dice",
    "workers",
    "max_turns",
    "chunk",
)
ENTRANT_KEYS = ("strategy", "name", "params")
# A chunk holds whole deals (every rotation of a deal shares its duplicate dice). About
# 1,200 games a chunk is ~0.3-0.6 s of work at today's engine speed: far above the
# per-task cost of a process pool (<1 ms), small enough to balance two workers and to
# lose little work to a Ctrl-C.
CHUNK_GAMES = 1200
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


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
    pass


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    data = _Map()
    data.line = node.start_mark.line + 1
    data.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            raise _YamlProblem(line, f"a key must be a plain word, got {key!r}")
        if key in data:
            raise _YamlProblem(line, f"{key}: duplicate key (first on line {data.lines[key]})")
        data[key] = loader.construct_object(value_node, deep=True)
        data.lines[key] = line
    return data


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> _Seq:
    data = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    data.line = node.start_mark.line + 1
    data.lines = [child.start_mark.line + 1 for child in node.value]
    return data


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)


class _YamlProblem(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


# -- the resolved config ----------------------------------------------------------------
@dataclass(frozen=True)
class Entrant:
    """One entrant: a display name and a resolved strategy.

    ``key`` is its seeding identity: the reference as written plus its parameters, so a
    table's dice do not depend on list positions, display names or file locations.
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
        self, *, games: int | None = None, seed: int | None = None, workers: int | None = None
    ) -> TourneyConfig:
        """This config with command-line values in place of its own."""
        changes: dict[str, Any] = {}
        if games is not None:
            if games < 1:
                raise ConfigError(f"--games: {games}; play at least one deal per table")
            changes["games"] = games
        if seed is not None:
            changes["seed"] = seed
        if workers is not None:
            if workers < 0:
                raise ConfigError(f"--workers: {workers}; give 1 or more (0 plays in-process)")
            changes["workers"] = workers
        return replace(self, **changes)


# -- loading ----------------------------------------------------------------------------
def load_config(source: str | os.PathLike[str] | dict[str, Any]) -> TourneyConfig:
    """Read and check a config file (or a mapping); ConfigError (one line) if anything is off."""
    if isinstance(source, dict):
        return _Checker("config", None, base=Path.cwd()).check(source, default_name="tourney")
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    try:
        data = yaml.load(text, Loader=_Loader)  # a SafeLoader subclass: no arbitrary objects
    except _YamlProblem as exc:
        raise ConfigError(f"{path}:{exc.line}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{where}: not valid YAML: {problem}") from None
    if data is None:
        raise ConfigError(f"{path}: the config is empty; it needs at least entrants")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-") or "tourney"
    return _Checker(str(path), data, base=path.resolve().parent).check(data, default_name=stem)


class _Checker:
    """Checks one config mapping, naming the file and line of each mistake."""

    def __init__(self, where: str, data: Any, base: Path) -> None:
        self.where = where
        self.base = base

    def fail(self, container: Any, key: Any, message: str) -> ConfigError:
        line = None
        if isinstance(container, _Map):
            line = container.lines.get(key, container.line)
        elif isinstance(container, _Seq) and isinstance(key, int) and key < len(container.lines):
            line = container.lines[key]
        elif isinstance(container, (_Map, _Seq)):
            line = container.line
        where = f"{self.where}:{line}" if line else self.where
        return ConfigError(f"{where}: {message}")

    def check(self, data: Any, default_name: str) -> TourneyConfig:
        if not isinstance(data, dict):
            raise self.fail(data, None, "a config is a mapping of keys (name, players, ...)")
        for key in data:
            if key not in KEYS:
                close = difflib.get_close_matches(str(key), KEYS, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise self.fail(
                    data, key, f"unknown key {key!r}; {hint}keys are: {', '.join(KEYS)}"
                )
        name = data.get("name", default_name)
        if not isinstance(name, str) or not _NAME.match(name):
            raise self.fail(
                data,
                "name",
                f"name: {name!r}; use letters, digits, '.', '_' or '-' (a folder name)",
            )
        players = self.integer(data, "players", 2, low=None)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise self.fail(
                data,
                "players",
                f"players: {players}; a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players (R3)",
            )
        rules = self.rules(data, players)
        fmt = self.choice(data, "format", FORMATS, "round_robin")
        dice = self.choice(data, "dice", DICE_MODES, "duplicate")
        games = self.integer(data, "games", 1000, low=1)
        seed = self.integer(data, "seed", 0, low=None)
        workers = data.get("workers")
        if workers is not None:
            workers = self.integer(data, "workers", 0, low=0)
        max_turns = self.integer(data, "max_turns", DEFAULT_MAX_TURNS, low=1)
        chunk = self.integer(data, "chunk", 0, low=1) if "chunk" in data else 0

        if "entrants" not in data:
            raise self.fail(data, None, "entrants: missing; list the strategies to play")
        entrants = self.entrants(data)
        challenger = None
        if fmt == "gauntlet":
            if "challenger" not in data:
                raise self.fail(
                    data, "format", "challenger: missing; a gauntlet needs one challenger"
                )
            challenger = self.entrant(data, "challenger", data["challenger"], "challenger")
            entrants = tuple(e for e in entrants if e.key != challenger.key)
            needed, what = players - 1, "the field (besides the challenger)"
        else:
            if "challenger" in data:
                raise self.fail(
                    data, "challenger", "challenger: only a gauntlet has one (format: gauntlet)"
                )
            needed, what = players, "entrants"
        if len(entrants) < needed:
            raise self.fail(
                data,
                "entrants",
                f"entrants: {len(entrants)} in {what}; a {fmt} of {players}-player tables "
                f"needs at least {needed}",
            )
        self.unique(data, ((challenger,) if challenger else ()) + entrants)
        return TourneyConfig(
            name=name,
            rules=rules,
            format=fmt,
            entrants=entrants,
            games=games,
            seed=seed,
            dice=dice,
            workers=workers,
            max_turns=max_turns,
            chunk=chunk,
            challenger=challenger,
            source=self.where,
        )

    # -- single keys ---------------------------------------------------------------------
    def integer(self, data: dict, key: str, default: int, low: int | None) -> int:
        value = data.get(key, default)
        if type(value) is not int:
            raise self.fail(data, key, f"{key}: expected a whole number, got {value!r}")
        if low is not None and value < low:
            raise self.fail(data, key, f"{key}: {value}; must be at least {low}")
        return value

    def choice(self, data: dict, key: str, allowed: tuple[str, ...], default: str) -> str:
        value = data.get(key, default)
        if value not in allowed:
            raise self.fail(data, key, f"{key}: {value!r} is not one of {', '.join(allowed)}")
        return value

    def rules(self, data: dict, players: int) -> Rules:
        value = data.get("rules", "official")
        try:
            if isinstance(value, str):
                return Rules.preset(value, players)
            if isinstance(value, dict):
                if "players" in value and value["players"] != players:
                    raise self.fail(
                        value,
                        "players",
                        f"rules.players: {value['players']!r} differs from players: {players}; "
                        "give the player count once, as players:",
                    )
                return Rules.from_dict({**dict(value), "players": players}, where="rules")
        except HarnessError as exc:
            key = _key_named(exc, value)
            raise self.fail(value if key is not None else data, key or "rules", str(exc)) from None
        raise self.fail(data, "rules", f"rules: expected a preset name or a mapping, got {value!r}")

    def entrants(self, data: dict) -> tuple[Entrant, ...]:
        items = data["entrants"]
        if isinstance(items, str):  # entrants: all-builtins
            items = _Seq([items])
            items.line = data.lines.get("entrants", 0) if isinstance(data, _Map) else 0
            items.lines = [items.line]
        if not isinstance(items, list) or not items:
            raise self.fail(data, "entrants", "entrants: expected a list of strategies")
        found: list[Entrant] = []
        explicit: set[str] = set()
        wants_all = False
        for i, item in enumerate(items):
            if item == ALL_BUILTINS:
                wants_all = True
                continue
            entrant = self.entrant(items, i, item, f"entrants[{i}]")
            found.append(entrant)
            explicit.add(entrant.key)
        if wants_all:
            # Every built-in with default parameters, after the listed ones, unless listed.
            for ref in builtin_strategies():
                if ref not in explicit:
                    found.append(self.entrant(items, 0, ref, f"{ALL_BUILTINS} ({ref})"))
        return tuple(found)

    def entrant(self, container: Any, index: Any, item: Any, what: str) -> Entrant:
        name = None
        params: Any = None
        if isinstance(item, dict):
            for key in item:
                if key not in ENTRANT_KEYS:
                    raise self.fail(
                        item,
                        key,
                        f"{what}: unknown key {key!r}; an entrant has {', '.join(ENTRANT_KEYS)}",
                    )
            ref = item.get("strategy")
            if not isinstance(ref, str) or not ref.strip():
                raise self.fail(item, "strategy", f"{what}.strategy: expected a strategy reference")
            name = item.get("name")
            if name is not None and (not isinstance(name, str) or not name.strip()):
                raise self.fail(item, "name", f"{what}.name: expected a display name")
            params = item.get("params")
            if params is not None and not isinstance(params, dict):
                raise self.fail(
                    item, "params", f"{what}.params: expected a mapping, got {params!r}"
                )
            where = (item, "strategy")
        elif isinstance(item, str):
            ref = item
            where = (container, index)
        else:
            raise self.fail(
                container,
                index,
                f"{what}: expected a strategy reference or a mapping with strategy:, got {item!r}",
            )
        load = self.locate(ref)
        try:
            spec = resolve(load, dict(params) if params else None)
            spec.create()  # a constructor that rejects its parameters fails here, not mid-run
        except HarnessError as exc:
            raise self.fail(*where, f"{what}: {exc}") from None
        written = ref.split("(", 1)[0].strip()
        spec = replace(spec, ref=written)
        key = written + (json.dumps(dict(spec.params), sort_keys=True) if spec.params else "")
        return Entrant(
            name=(name or spec.label).strip(),
            spec=spec,
            key=key,
            load=load,
            code=spec.identity()["code"],
        )

    def locate(self, ref: str) -> str:
        """A file plugin's path is taken relative to the config's folder (then the cwd)."""
        head, sep, tail = ref.partition(":")
        if not sep or not (head.endswith(".py") or "/" in head or "\\" in head):
            return ref
        path = Path(head).expanduser()
        if not path.is_absolute():
            beside = self.base / path
            path = beside if beside.exists() else Path.cwd() / path
        return f"{path.resolve()}:{tail}"

    def unique(self, data: dict, entrants: tuple[Entrant, ...]) -> None:
        keys: dict[str, str] = {}
        names: set[str] = set()
        for e in entrants:
            if e.key in keys:
                raise self.fail(
                    data,
                    "entrants",
                    f"entrants: {e.name} is listed twice (same strategy and parameters as "
                    f"{keys[e.key]})",
                )
            if e.name in names:
                raise self.fail(
                    data, "entrants", f"entrants: two entrants are named {e.name!r}; rename one"
                )
            keys[e.key] = e.name
            names.add(e.name)


def _key_named(exc: Exception, mapping: Any) -> str | None:
    """The rules key a RulesError names (``rules.bust_flip: ...``), for its line number."""
    match = re.match(r"rules\.(\w+)", str(exc))
    if match and isinstance(mapping, dict) and match.group(1) in mapping:
        return match.group(1)
    match = re.search(r"unknown key '(\w+)'", str(exc))
    if match and isinstance(mapping, dict) and match.group(1) in mapping:
        return match.group(1)
    return None
