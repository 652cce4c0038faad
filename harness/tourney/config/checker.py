"""The config checker: every key of one config mapping checked, each mistake named with
its file and line, every independent mistake reported in one go.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import json
import math
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from harness.errors import GAMES_RENAMED, ConfigError, HarnessError, deprecated, safe_text
from harness.game import seating as seating_design
from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS, VARIANTS, Rules
from harness.plugins import (
    MAX_REFERENCE_CHARS,
    builtin_strategies,
    names_a_file,
    resolve,
    shown,
)
from harness.seats.settings import SETTING_KEYS, SeatSettings, SettingsError, check_setting
from harness.tourney.config.adaptive import check_schedule
from harness.tourney.config.bounds import (
    BOUNDS,
    MAX_ENTRANTS,
    MAX_NAME_CHARS,
    MAX_RULE_CHARS,
    ConfigProblems,
    plan_problem,
)
from harness.tourney.config.model import (
    ALL_BUILTINS,
    CHOICES,
    DEFAULTS,
    ENTRANT_KEYS,
    KEYS,
    NAME_PATTERN,
    RACE,
    RENAMED_KEYS,
    SWEEP,
    Entrant,
    TourneyConfig,
    adaptive_problem,
)
from harness.tourney.config.python_entrants import python_entrant
from harness.tourney.config.yaml_safe import LineMap, LineSeq

_T = TypeVar("_T")


def resolve_entrant(ref: str, what: str, base: Path | None = None) -> Entrant:
    """One strategy reference resolved and checked as a config's entrant is.

    ``ref`` is named as everywhere (``greedy``, ``threshold(target=28)``, ``f.py:Class``;
    a file is taken relative to ``base``, then the cwd). The public face of the config
    checker for other commands (``harness sprt``): the same resolution, parameter check
    and seating key, with a mistake as one ConfigError line named after ``what`` alone,
    ``A: unknown strategy 'x' ...``, since there is no file or line to point at.
    """
    return Checker("", base=base or Path.cwd()).entrant(None, None, ref, what)


class Checker:
    """Checks one config mapping, naming the file and line of each mistake.

    ``where`` names the source in every message (a file, or "config" for a mapping);
    empty: messages carry no source (:func:`resolve_entrant`).
    """

    def __init__(self, where: str, base: Path) -> None:
        self.where = where
        self.base = base
        self.problems: list[str] = []  # every mistake found so far, one line each
        self.deals_key = "deals"  # as the config spells it (games: is the old name)
        self.races: list[tuple[str, ...]] = []  # the racing sweeps' values (race: on)
        self.race_at: tuple[Any, Any] = (None, None)  # the first race: key, for its line

    def fail(self, container: Any, key: Any, message: str) -> ConfigError:
        line = None
        if isinstance(container, LineMap):
            line = container.lines.get(key, container.line)
        elif isinstance(container, LineSeq) and isinstance(key, int) and key < len(container.lines):
            line = container.lines[key]
        elif isinstance(container, (LineMap, LineSeq)):
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
        settings = {
            key: self.collect(lambda key=key: self.setting(data, key), None) for key in SETTING_KEYS
        }
        adaptive = self.collect(lambda: check_schedule(data, self.fail), None)

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
        self.collect(lambda: self.race_problem(fmt, adaptive), None)
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
            settings=SeatSettings(**settings),
            seating=seating,
            adaptive=adaptive,
            races=tuple(self.races),
        )
        problem = plan_problem(config)
        if problem:
            raise self.fail(data, self.deals_key, f"{self.deals_key}: {problem}")
        problem = adaptive_problem(config)
        if problem:
            raise self.fail(data, problem.split(":", 1)[0], problem)
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
        if not isinstance(name, str) or not NAME_PATTERN.match(name) or len(name) > MAX_NAME_CHARS:
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

    def setting(self, data: dict, key: str) -> Any:
        """A seat setting (:mod:`harness.seats.settings`: its one check and wording)."""
        try:
            return check_setting(key, data.get(key, DEFAULTS.get(key)))
        except SettingsError as exc:
            raise self.fail(data, key, str(exc)) from None

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
            items = LineSeq([items])
            items.line = data.lines.get("entrants", 0) if isinstance(data, LineMap) else 0
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
        race = self.race_flag(item, what)
        made = []
        for combo in itertools.product(*(values for _, values in axes)):
            swept = dict(zip((key for key, _ in axes), combo, strict=True))
            label = ", ".join(f"{k}={v!r}" for k, v in swept.items())
            one = LineMap({k: v for k, v in item.items() if k not in (SWEEP, RACE)})
            one.line = getattr(item, "line", 0)
            one.lines = {**getattr(item, "lines", {}), "params": _line(item, SWEEP)}
            one["params"] = {**params, **swept}
            if isinstance(name, str):
                one["name"] = f"{name.strip()}({label})"
            made.append(self.entrant(container, index, one, f"{what} ({label})"))
        if race:
            if len(made) < 2:
                raise self.fail(
                    item, RACE, f"{what}.race: a sweep of one value has nothing to race"
                )
            self.races.append(tuple(e.name for e in made))
            if len(self.races) == 1:
                self.race_at = (item, RACE)
        return made

    def race_flag(self, item: dict, what: str) -> bool:
        """A sweep's ``race:`` (on/off, true/false; off when left out)."""
        value = item.get(RACE, False)
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("on", "off"):
            return value.strip().lower() == "on"
        raise self.fail(item, RACE, f"{what}.race: expected on or off, got {shown(value)}")

    def race_problem(self, fmt: str | None, adaptive: Any) -> None:
        """A racing sweep plays in an adaptive run's batches, its values meeting each
        other (a round robin): one line otherwise."""
        if not self.races:
            return
        if adaptive is None:
            raise self.fail(
                *self.race_at, "race: a racing sweep plays in batches; add schedule: adaptive"
            )
        if fmt == "gauntlet":
            raise self.fail(
                *self.race_at,
                "race: a sweep races in a round robin, where its values meet; a gauntlet's "
                "field meets only the challenger",
            )

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
            if RACE in item:
                raise self.fail(item, RACE, f"{what}.race: only a sweep races (add sweep:)")
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
