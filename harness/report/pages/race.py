"""A racing sweep's values in an adaptive run's report: each value's estimate, how far
it got (the deals and games it played), who beat it, and its comparison with the leader.

The runner keeps each race in run.json (``adaptive.races``: harness.tourney.adaptive.race
writes it); this module reads it back checked (run.json is input like any other: a value
of the wrong type is left out, never a traceback) and turns it into the report's table
and the terminal's lines.
"""

from __future__ import annotations

import math
from typing import Any

from harness.report.pages.formats import count, pct
from harness.report.pages.page import Block, para, table, text_table, wrap

STATUS_TEXT = {"best": "best", "tied best": "tied best", "in": "in", "out": "out"}
HEADER = ["value", "status", "estimate", "v leader", "its interval", "deals", "games", "beaten by"]


def _number(value: Any) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok else math.nan


def _count(value: Any) -> int | None:
    """A count of run.json (deals, games), None for anything else."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def race_section(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The races of run.json's ``adaptive`` record, checked (none: an empty list)."""
    races = []
    for item in record.get("races") or []:
        if not isinstance(item, dict) or not isinstance(item.get("values"), list):
            continue
        values = []
        for v in item["values"]:
            if not isinstance(v, dict) or v.get("status") not in STATUS_TEXT:
                continue
            vs = v.get("vs_leader") if isinstance(v.get("vs_leader"), dict) else {}
            values.append(
                {
                    "name": str(v.get("name", "")),
                    "status": v["status"],
                    "estimate": _number(v.get("estimate")),
                    "deals": _count(v.get("deals")),
                    "games": _count(v.get("games")),
                    "beaten_by": str(v["beaten_by"]) if v.get("beaten_by") else "",
                    "vs_leader": {k: _number(vs.get(k)) for k in ("share", "low", "high")},
                }
            )
        races.append(
            {
                "leader": str(item.get("leader", "")),
                "done": item.get("done") is True,
                "survivors": [str(s) for s in item.get("survivors") or []],
                "values": values,
            }
        )
    return races


def _rows(race: dict[str, Any]) -> list[list[str]]:
    rows = []
    for v in race["values"]:
        vs = v["vs_leader"]
        leader = v["name"] == race["leader"]
        rows.append(
            [
                v["name"],
                STATUS_TEXT[v["status"]],
                pct(v["estimate"]),
                "-" if leader else pct(vs["share"]),
                "-" if leader else f"{pct(vs['low'])} to {pct(vs['high'])}",
                count(v["deals"]),
                count(v["games"]),
                _beaten_by(v["beaten_by"], race["leader"]),
            ]
        )
    return rows


def _beaten_by(name: str, leader: str) -> str:
    """Who put a value out: "leader" for the leader (the common case, and short)."""
    return "-" if not name else "leader" if name == leader else name


def _headline(race: dict[str, Any]) -> str:
    n, left = len(race["values"]), len(race["survivors"])
    if left == 1:
        state = f"{race['leader']} is the best of {n} values"
    elif race["done"]:
        state = f"{left} of {n} values tied for best ({', '.join(race['survivors'])})"
    else:
        state = f"{left} of {n} values still in, the race not settled; leader {race['leader']}"
    return f"Racing sweep: {state}; {n - left} out."


NOTE = (
    "A value is out once a comparison with another value of its sweep is settled against "
    "it; it plays no more. Estimate: its mean head-to-head share against the sweep's other "
    "values (luck-adjusted where kept); v leader: its share against the "
    "leader and that comparison's anytime interval. Deals and games: how far it got."
)


def race_blocks(races: list[dict[str, Any]]) -> list[Block]:
    """The report's blocks for the races (nothing without one)."""
    out: list[Block] = []
    for race in races:
        out += [para(_headline(race)), table(HEADER, _rows(race))]
    if races:
        out.append(para(NOTE))
    return out


def race_lines(races: list[dict[str, Any]]) -> list[str]:
    """The terminal's lines for the races."""
    lines: list[str] = []
    for race in races:
        lines += wrap(_headline(race), 100, "")
        lines += ["  " + line for line in text_table(HEADER, _rows(race), left=2)]
    if races:
        lines += wrap(NOTE, 100, "")
    return lines
