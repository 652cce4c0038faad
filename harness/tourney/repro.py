"""Playing one game of a tournament again: the command a forfeit report shows, and
finding a game by ``TABLE:DEAL:SEATING`` (``harness tourney CONFIG --game ...``; SEATING is
the index of the game's seat order in the run's design, the stored ``seating`` column).

Every game starts from fresh strategy instances (see :mod:`.chunks`), so ``harness
play`` with the game's seed, rules and seat limits plays the very game the tournament
stored, forfeit included (a time forfeit depends on the machine, though).
"""

from __future__ import annotations

import shlex
from typing import Any

from harness.errors import ConfigError
from harness.game.engine import DEFAULT_MAX_TURNS
from harness.game.rules import VARIANTS, Rules
from harness.seats.settings import SECONDS_KEYS
from harness.tourney import plan
from harness.tourney.config import TourneyConfig
from harness.tourney.plan import ChunkSpec, EntrantRef


def _reference(ref: EntrantRef) -> str:
    """The entrant as ``harness play`` takes it: ``threshold(target=28)``."""
    if not ref.params:
        return ref.load
    return f"{ref.load}({', '.join(f'{k}={v!r}' for k, v in ref.params)})"


def rules_arguments(rules: Rules) -> list[str]:
    """``harness play`` options that give these rules (a preset, else --set keys)."""
    preset = rules.preset_name
    if preset is not None:
        return [] if preset == "official" else ["--rules", preset]
    options = []
    for key, allowed in VARIANTS.items():
        value = getattr(rules, key)
        if value != allowed[0]:
            shown = str(value).lower() if isinstance(value, bool) else value
            options += ["--set", f"{key}={shown}"]
    return options


def reproduce_command(config: TourneyConfig, table: plan.Table, example: dict[str, Any]) -> str:
    """The ``harness play`` command that plays a stored game again, narrated (a forfeit).

    ``example`` has the game's ``deal``, ``seating`` (its order index) and ``game_seed``.
    """
    spec = plan.spec_for(config, table, 0, 0, plan.table_settings(config, table, "python"))
    k = example["seating"]
    seats = [_reference(spec.entrant_in(i, k)) for i in range(config.players)]
    args = ["harness", "play", *seats, *rules_arguments(config.rules)]
    # Independent dice: the game's own seed. Duplicate dice: the deal's seed, which
    # `harness play --dice duplicate` turns into the deal's shared dice.
    args += ["--seed", str(example["game_seed"])]
    if config.dice == "duplicate":
        args += ["--dice", "duplicate"]
    if config.max_turns != DEFAULT_MAX_TURNS:
        args += ["--max-turns", str(config.max_turns)]
    # The seat limits the game was played under (a time forfeit needs them to recur).
    limits = config.settings.limit_values()
    if limits["isolation"] != "none":
        args += ["--isolation", limits["isolation"]]
    for key in SECONDS_KEYS:
        if limits[key] is not None:
            args += ["--" + key.replace("_", "-"), f"{limits[key]:g}"]
    return shlex.join(args)


def find_game(config: TourneyConfig, game: str) -> tuple[ChunkSpec, int, int]:
    """``TABLE:DEAL:SEATING`` (a table id or its prefix) -> (spec, deal, order index)."""
    parts = game.split(":")
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        raise ConfigError(f"--game {game[:80]!r}: write TABLE:DEAL:SEATING, e.g. 3f2a91c07b1e:17:1")
    table_id, deal, k = parts[0], int(parts[1]), int(parts[2])
    tables = plan.tables(config)
    matches = [t for t in tables if t.id.startswith(table_id)]
    if len(matches) != 1:
        known = ", ".join(f"{t.id} ({' v '.join(t.names)})" for t in tables[:8])
        more = f" and {len(tables) - 8} more" if len(tables) > 8 else ""
        raise ConfigError(f"--game: no table {table_id!r} in this config; tables: {known}{more}")
    orders = len(plan.design_of(config))
    if k >= orders:  # any deal index is a deal; order indices are 0..orders-1
        raise ConfigError(
            f"--game: seating {k}; {config.seating} seating has orders 0..{orders - 1}"
        )
    # Replayed on the Python engine (replay_game): no need to ask the native one.
    python = plan.table_settings(config, matches[0], "python")
    return plan.spec_for(config, matches[0], deal, deal + 1, python), deal, k
