"""docs/schema.md lists exactly the stored schema's columns, types and version."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.runfolder import schema

DOC = Path(__file__).resolve().parents[2] / "docs" / "schema.md"
ROW = re.compile(r"^\| `([^`]+)` \| (\w+) \|", re.M)
VERSION = re.compile(r"^Schema version: \*\*(\d+)\*\*", re.M)


def documented(text: str) -> tuple[list[tuple[str, str]], list[int]]:
    """(column, type) rows of the doc's table, and every version it states at a line start."""
    return ROW.findall(text), [int(v) for v in VERSION.findall(text)]


def expected() -> list[tuple[str, str]]:
    """The schema's columns as the doc writes them (seat columns once, as seat{i}_...)."""
    game = [(c, schema.column_type(c)) for c in schema.GAME_COLUMNS]
    seat = [(f"seat{{i}}_{f}", schema.column_type(f"seat0_{f}")) for f in schema.SEAT_FIELDS]
    return game + seat


def problems(text: str) -> list[str]:
    rows, versions = documented(text)
    found = []
    if rows != expected():
        found.append(f"columns {rows} != {expected()}")
    if versions != [schema.SCHEMA_VERSION]:
        found.append(f"versions {versions} != [{schema.SCHEMA_VERSION}]")
    return found


def test_the_doc_lists_exactly_the_schemas_columns_types_and_version():
    assert problems(DOC.read_text(encoding="utf-8")) == []


def test_every_stored_column_is_in_the_doc():
    # The doc's seat{i}_ rows, expanded, are exactly the columns a run writes (any size).
    names = [name for name, _ in documented(DOC.read_text(encoding="utf-8"))[0]]
    for players in (2, 4, 7):
        expanded = [n for n in names if "{i}" not in n] + [
            n.replace("{i}", str(i)) for i in range(players) for n in names if "{i}" in n
        ]
        assert expanded == schema.columns(players)


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace("| `error_kind` | string |", "| `error_kinds` | string |"),
        lambda t: t.replace("| `seat{i}_stolen` | int16 |", "| `seat{i}_stolen` | int8 |"),
        lambda t: re.sub(r"^\| `turns` .*\n", "", t, flags=re.M),
        lambda t: t.replace("| `seed` | int64 |", "| `seed` | int64 |\n| `extra` | int8 |"),
        lambda t: t.replace("Schema version: **6**", "Schema version: **7**"),
        lambda t: t.replace("Schema version: **6**", "Schema version 6"),
        lambda t: t + "\nSchema version: **6**\n",  # two statements: one must go
        lambda t: t.replace("| `seat{i}_wluck` | float64 |", "| `seat{i}_wluck` | int16 |"),
        lambda t: re.sub(r"^\| `seat\{i\}_winluck` .*\n", "", t, flags=re.M),
        lambda t: re.sub(r"^\| `seat\{i\}_winvec` .*\n", "", t, flags=re.M),
    ],
)
def test_a_doc_out_of_step_with_the_schema_is_caught(edit):
    text = DOC.read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text
    assert problems(changed)
