"""A JSON Schema (draft 2020-12) of tournament configs, for editors (``harness
config-schema``).

Built from the checker's own tables in :mod:`harness.tourney.config` (its keys, the
bounds of every number, the words each choice takes, the defaults) and from
:mod:`harness.rules` (presets, variant keys and their values), so it cannot drift from
what ``harness tourney`` accepts. The checker stays the judge: the schema cannot say
that a strategy reference resolves, that names are unique or that a plan fits its
bounds; it says what an editor can check as one types.
"""

from __future__ import annotations

from typing import Any

from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, VARIANTS
from harness.plugins import MAX_REFERENCE_CHARS
from harness.tourney import config as c
from harness.tourney.config import adaptive

SCHEMA_ID = "urn:pickomino-harness:tourney-config"  # a name, not an address to fetch

# What each key is for, as an editor shows it on hover (one line each).
DESCRIPTIONS: dict[str, str] = {
    "name": "The run's name: its folder under --out (letters, digits, '.', '_', '-').",
    "rules": "A rules preset, or a mapping of variant keys (R1-R11 in RULES.md).",
    "players": "Seats at every table.",
    "format": "round_robin: every group of entrants meets; gauntlet: the challenger "
    "against every group of the field.",
    "entrants": "The strategies: references (greedy, path/to/file.py:Class, "
    "package.module:Class), mappings with strategy:, name:, params:, or all-builtins.",
    "challenger": "The gauntlet's challenger (format: gauntlet only).",
    "deals": "Deals per table; each is played in every seat order of the seating.",
    "games": "Deprecated: the old name of deals.",
    "seed": "The tournament seed: the same seed, the same games.",
    "dice": "duplicate: every seat order of a deal rolls the same dice; independent: not.",
    "workers": "Worker processes (default: one per CPU; 0 plays in-process).",
    "max_turns": "The turn cap of one game.",
    "chunk": "Deals per chunk (the unit of work, storage and resume).",
    "move_time": "Seconds per decision; a seat over it forfeits (null: no limit).",
    "game_time": "Seconds of one seat's decisions in one game (null: no limit).",
    "isolation": "process: each seat's strategy in a process of its own.",
    "engine": "auto: the native engine where it can play; python: never; native: refuse "
    "what it cannot play.",
    "seating": "Seat orders of every deal.",
    "luck": "The luck and skill account (docs/luck.md): on, off, or auto: on at tables "
    "with a plugin or optimal; win: on, with the win account's luck (winluck, the control "
    "of luck-adjusted win shares) at every table (on and auto keep it at a plugin's).",
    "schedule": "fixed: every table plays deals:; adaptive: batches to the comparisons "
    "still open, until each is settled (deals: then caps a table).",
    "target": "schedule: adaptive only: the tie zone (zone: points of head-to-head share, "
    "or zone_elo:), confidence: for the whole run, batch: deals a batch.",
    "budget": "schedule: adaptive only: the most games of the run.",
}


def _bounded(key: str) -> dict[str, Any]:
    low, high, why = c.BOUNDS[key]
    return {"type": "integer", "minimum": low, "maximum": high, "$comment": why}


def _reference() -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": MAX_REFERENCE_CHARS}


def _entrant() -> dict[str, Any]:
    mapping = {
        "type": "object",
        "properties": {
            "strategy": _reference(),
            "name": {"type": "string", "minLength": 1, "maxLength": c.MAX_NAME_CHARS},
            "params": {"type": "object"},
            # One entrant per value (per combination): {target: [24, 26, 28]}.
            "sweep": {
                "type": "object",
                "additionalProperties": {"type": "array", "minItems": 1},
            },
            # A sweep that races (schedule: adaptive): its beaten values stop playing.
            "race": {"anyOf": [{"type": "boolean"}, {"enum": ["on", "off"]}]},
        },
        "required": ["strategy"],
        "additionalProperties": False,
    }
    assert set(mapping["properties"]) == set(c.ENTRANT_KEYS)  # the checker's own keys
    return {"anyOf": [_reference(), mapping]}


def _rules() -> dict[str, Any]:
    variants = {key: {"enum": list(values)} for key, values in VARIANTS.items()}
    return {
        "anyOf": [
            {"enum": list(PRESETS)},
            {
                "type": "object",
                "properties": {
                    "preset": {"enum": list(PRESETS)},
                    "players": {"type": "integer", "minimum": MIN_PLAYERS, "maximum": MAX_PLAYERS},
                    **variants,
                },
                "additionalProperties": False,
            },
        ]
    }


def _target() -> dict[str, Any]:
    """An adaptive run's target (harness.tourney.config.adaptive checks it, and refuses
    the ends: a zone of 50 points, a confidence of 1)."""
    return {
        "type": "object",
        "properties": {
            "zone": {"type": "number", "exclusiveMinimum": 0, "maximum": 50},
            "zone_elo": {"type": "number", "exclusiveMinimum": 0, "maximum": 800},
            "confidence": {"type": "number", "minimum": 0.5, "maximum": 1},
            "batch": {"type": "integer", "minimum": 1, "maximum": adaptive.MAX_BATCH},
        },
        "additionalProperties": False,
        "not": {"required": ["zone", "zone_elo"]},
    }


def _property(key: str) -> dict[str, Any]:
    if key in c.CHOICES:
        schema: dict[str, Any] = {"enum": list(c.CHOICES[key])}
        if {"on", "off"} <= set(c.CHOICES[key]):  # YAML 1.1 reads a bare on/off as a bool
            schema["enum"] += [True, False]
    elif key in c.BOUNDS:
        schema = _bounded(key)
    elif key in c.SECONDS_KEYS:
        positive = {"type": "number", "exclusiveMinimum": 0, "maximum": c.MAX_SECONDS}
        schema = {"anyOf": [positive, {"type": "null"}]}
    elif key == "name":
        schema = {
            "type": "string",
            "pattern": c.NAME_PATTERN.pattern,
            "maxLength": c.MAX_NAME_CHARS,
        }
    elif key == "players":
        schema = {"type": "integer", "minimum": MIN_PLAYERS, "maximum": MAX_PLAYERS}
    elif key == "rules":
        schema = _rules()
    elif key == "entrants":
        listed = {"anyOf": [{"const": c.ALL_BUILTINS}, _entrant()]}
        items = {"type": "array", "items": listed, "minItems": 1, "maxItems": c.MAX_ENTRANTS}
        schema = {"anyOf": [{"const": c.ALL_BUILTINS}, items]}
    elif key == "challenger":
        schema = _entrant()
    elif key == "target":
        schema = _target()
    elif key == "budget":
        schema = {"type": "integer", "minimum": 1, "maximum": adaptive.MAX_BUDGET}
    else:  # a key the checker knows and this module does not: fail loudly, in tests
        raise KeyError(f"config_schema: no schema for config key {key!r}")
    schema["description"] = DESCRIPTIONS[key]
    if key in c.DEFAULTS:
        schema["default"] = c.DEFAULTS[key]
    return schema


def config_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a tournament config."""
    keys = (*c.KEYS, *c.RENAMED_KEYS)
    properties = {key: _property(key) for key in keys}
    for old, new in c.RENAMED_KEYS.items():
        properties[old] = {**properties[new], "deprecated": True}
        properties[old]["description"] = DESCRIPTIONS[old]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "harness tournament config",
        "description": "A config of `harness tourney` (docs/tourney.md).",
        "type": "object",
        "properties": properties,
        "required": ["entrants"],
        "additionalProperties": False,
        # deals: or its old name games:, not both; a challenger only in a gauntlet
        "not": {"required": list(c.RENAMED_KEYS) + list(c.RENAMED_KEYS.values())},
        "if": {"properties": {"format": {"const": "gauntlet"}}, "required": ["format"]},
        "then": {"required": ["challenger"]},
        "else": {"not": {"required": ["challenger"]}},
        # target: and budget: only with schedule: adaptive
        "anyOf": [
            {"properties": {"schedule": {"const": "adaptive"}}, "required": ["schedule"]},
            {"not": {"anyOf": [{"required": ["target"]}, {"required": ["budget"]}]}},
        ],
    }
