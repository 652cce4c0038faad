"""``harness config-schema``: a JSON Schema (draft 2020-12) of configs, built from the
checker's own tables (issue 11, item 5). Shipped configs validate against it; configs
the checker refuses for a reason a schema can say are refused by it too.

jsonschema is not a dependency: :func:`validate` below checks the part of the draft the
schema uses (and fails on any keyword it does not know, so it cannot pass by ignoring).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from harness.cli import main
from harness.configs import shipped_configs
from harness.tourney import config as c
from harness.tourney.schema import config_schema

KNOWN = {
    "$schema", "$id", "$comment", "title", "description", "default", "deprecated",
    "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "minLength",
    "maxLength", "pattern", "properties", "required", "additionalProperties", "items",
    "minItems", "maxItems", "anyOf", "not", "if", "then", "else",
}  # fmt: skip
TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "null": type(None),
}


def errors(schema: dict[str, Any], value: Any, where: str = "$") -> list[str]:
    """What is wrong with ``value`` under ``schema`` (empty: valid)."""
    unknown = set(schema) - KNOWN
    assert not unknown, f"validator does not know {unknown}"
    out: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        ok = isinstance(value, TYPES[kind]) and not (
            kind in ("integer", "number") and isinstance(value, bool)
        )
        if not ok:
            return [f"{where}: not {kind}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} not in enum")
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: not {schema['const']!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{where}: below minimum")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{where}: above maximum")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            out.append(f"{where}: not above exclusiveMinimum")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", 1e9):
            out.append(f"{where}: length")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{where}: pattern")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        out += [f"{where}: {k} required" for k in schema.get("required", []) if k not in value]
        for key, item in value.items():
            if key in props:
                out += errors(props[key], item, f"{where}.{key}")
            elif schema.get("additionalProperties") is False:
                out.append(f"{where}: {key} not allowed")
            elif isinstance(schema.get("additionalProperties"), dict):
                out += errors(schema["additionalProperties"], item, f"{where}.{key}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 1e9):
            out.append(f"{where}: items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += errors(schema["items"], item, f"{where}[{i}]")
    if "anyOf" in schema and all(errors(s, value, where) for s in schema["anyOf"]):
        out.append(f"{where}: matches none of anyOf")
    if "not" in schema and not errors(schema["not"], value, where):
        out.append(f"{where}: matches not")
    if "if" in schema:
        branch = "then" if not errors(schema["if"], value, where) else "else"
        if branch in schema:
            out += errors(schema[branch], value, where)
    return out


SCHEMA = config_schema()


def test_the_validator_can_fail():
    assert errors({"type": "integer", "maximum": 3}, 4)
    assert errors({"anyOf": [{"const": 1}, {"const": 2}]}, 3)
    assert not errors({"anyOf": [{"const": 1}, {"const": 2}]}, 2)
    with pytest.raises(AssertionError):
        errors({"oneOf": []}, 1)


def test_command_prints_the_schema_as_json():
    result = CliRunner().invoke(main, ["config-schema"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed == SCHEMA
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_key_of_the_checker_is_in_the_schema_with_its_bounds():
    props = SCHEMA["properties"]
    assert set(props) == set(c.KEYS) | set(c.RENAMED_KEYS)
    for key, (low, high, _) in c.BOUNDS.items():
        if key in props:
            assert (props[key]["minimum"], props[key]["maximum"]) == (low, high), key
    for key, words in c.CHOICES.items():
        yaml_bools = [True, False] if {"on", "off"} <= set(words) else []  # `luck: on`
        assert props[key]["enum"] == list(words) + yaml_bools
    assert props["games"]["deprecated"] is True


@pytest.mark.parametrize("name", sorted(shipped_configs()))
def test_shipped_configs_validate(name):
    data = yaml.safe_load(shipped_configs()[name].read_text())
    assert errors(SCHEMA, data) == []
    c.load_config(shipped_configs()[name])  # and the checker agrees


def test_there_are_shipped_configs():
    assert len(shipped_configs()) >= 3


@pytest.mark.parametrize(
    "data",
    [
        {"entrants": ["greedy", "random"], "deals": 0},
        {"entrants": ["greedy", "random"], "deals": 5, "games": 5},
        {"entrants": ["greedy", "random"], "gmaes": 5},
        {"entrants": ["greedy", "random"], "engine": "fast"},
        {"entrants": ["greedy", "random"], "move_time": 0},
        {"entrants": ["greedy", "random"], "players": 8},
        {"entrants": ["greedy", "random"], "rules": {"bust_flip": "sideways"}},
        {"entrants": ["greedy", "random"], "name": "a b"},
        {"entrants": [{"strategy": "greedy", "colour": "red"}, "random"]},
        {"entrants": ["greedy", "random"], "challenger": "simple"},
        {"format": "gauntlet", "entrants": ["greedy", "random"]},
        {"deals": 5},
    ],
)
def test_what_the_checker_refuses_the_schema_refuses(data):
    assert errors(SCHEMA, data), data
    with pytest.raises(c.ConfigError):
        c.load_config(data)


def test_valid_configs_of_every_form_validate():
    data = {
        "name": "x",
        "rules": {"preset": "french", "bust_flip": "none"},
        "players": 3,
        "format": "gauntlet",
        "challenger": {"strategy": "threshold", "params": {"target": 28}, "name": "t28"},
        "entrants": ["all-builtins", "greedy"],
        "deals": 2,
        "move_time": None,
        "game_time": 1.5,
        "seating": "cyclic",
    }
    assert errors(SCHEMA, data) == []
    assert errors(SCHEMA, {"entrants": "all-builtins"}) == []
