"""The bounds of every number a config or a command line gives (:data:`BOUNDS`,
:func:`check_bounds`), and the size of the plan they make.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from harness.errors import ConfigError
from harness.game import seating as seating_design
from harness.plugins import (
    shown,
)
from harness.seats.settings import SECONDS_KEYS, SettingsError, checked_seconds

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

    Keys are those of :data:`BOUNDS` plus ``move_time`` and ``game_time`` (checked as
    every seat setting is: :mod:`harness.seats.settings`); a value of None (not given)
    is skipped. Messages name the option (``--max-turns: 40000; ...``).
    Commands call it before anything is planned or played.
    """
    for key, value in values.items():
        if value is None:
            continue
        option = "--" + key.replace("_", "-")
        if key in SECONDS_KEYS:
            try:
                checked_seconds(key, value)
            except SettingsError as exc:
                raise exc.for_option() from None
            continue
        if key in BOUNDS:
            problem = integer_problem(value, *BOUNDS[key])
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


def integer_problem(value: Any, low: int | float, high: int | float, why: str) -> str | None:
    """What is wrong with ``value`` as a whole number from ``low`` to ``high`` (``why``: the
    reason for the highest), in the one wording of every bound; None if nothing."""
    if type(value) is not int:
        return f"expected a whole number, got {shown(value)}"
    if value < low:
        return f"{shown(value)}; must be at least {low:,}"
    if value > high:
        return f"{shown(value)}; at most {high:,} ({why})"
    return None


def checked_integer(
    key: str,
    value: Any,
    low: int,
    high: int,
    why: str,
    error: type[SettingsError] = SettingsError,
) -> int:
    """``value`` as a plain int within bounds (numpy's ints are whole numbers, a bool is not;
    a subclass's comparisons never run), or ``error(key, problem)`` in
    :func:`integer_problem`'s words: what a value's own check (the coach's setup, the
    environments') says of a whole number."""
    try:
        plain = value if isinstance(value, bool) else operator.index(value)
    except TypeError:
        plain = value
    problem = integer_problem(plain, low, high, why)
    if problem:
        raise error(key, problem)
    return plain


def seating_orders(players: int, seating: str) -> int:
    """Seat orders a deal is played in under ``seating`` (0 for a mode that is refused)."""
    if seating_design.seating_problem(seating, players) is not None:
        return 0
    return len(seating_design.design(players, seating))


def table_count(fmt: str, players: int, entrants: int) -> int:
    """The tables of a tournament (a gauntlet's ``entrants`` is its field), counted."""
    seats = players if fmt == "round_robin" else players - 1
    return math.comb(entrants, seats) if entrants >= seats >= 0 else 0


def plan_size(
    fmt: str, players: int, entrants: int, games: int, chunk: int, per_chunk: int = 1
) -> tuple[int, int]:
    """(tables, chunks) of a tournament, counted without building it (``per_chunk``:
    tables a chunk holds; a grouped plan has a few more, one per kind of table)."""
    tables = table_count(fmt, players, entrants)
    return tables, -(-tables // per_chunk) * -(-games // chunk)


def plan_problem(config: Any) -> str | None:
    """Why a tournament is too big to plan, or None (checked before it is planned)."""
    tables, chunks = plan_size(
        config.format,
        config.players,
        len(config.entrants),
        config.games,
        config.deals_per_chunk,
        config.tables_per_chunk,
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
