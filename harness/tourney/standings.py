"""Standings: the per-entrant sums of the manifest turned into a table for people and CSV.

A chunk's manifest line carries integer counters per entrant (games, sole wins, shared
firsts by how many shared, worms, rank sum, forfeits, capped games), so standings never
re-read the games and add up exactly in any order. Win share splits ties: a first
place shared by k players counts 1/k to each. Turn-capped games are never scored.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

COLUMNS = (
    "rank",
    "strategy",
    "games",
    "wins",
    "win_share",
    "mean_worms",
    "mean_rank",
    "forfeits",
    "capped",
)


def new_totals(names: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Zeroed counters for every entrant (so each appears in the standings, even at 0)."""
    return {name: _zero() for name in names}


def _zero() -> dict[str, Any]:
    return {"games": 0, "wins": 0, "shared": [], "worms": 0, "rank": 0, "forfeits": 0, "capped": 0}


def add_entry(totals: dict[str, dict[str, Any]], entry: dict[str, Any]) -> None:
    """Add one manifest entry's per-entrant counters to ``totals`` (in place)."""
    for name, stats in entry.get("stats", {}).items():
        total = totals.setdefault(name, _zero())
        for key in ("games", "wins", "worms", "rank", "forfeits", "capped"):
            total[key] += stats[key]
        shared = stats["shared"]
        if len(total["shared"]) < len(shared):
            total["shared"] += [0] * (len(shared) - len(total["shared"]))
        for k, count in enumerate(shared):
            total["shared"][k] += count


def add_up(entries: Iterable[dict[str, Any]], names: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Sum the manifest entries' per-entrant counters (every name appears, even at 0)."""
    totals = new_totals(names)
    for entry in entries:
        add_entry(totals, entry)
    return totals


def standings(totals: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows sorted by win share (then mean rank, then name), with ranks 1..n."""
    rows = []
    for name, t in totals.items():
        games = t["games"]
        wins = t["wins"] + sum(count / k for k, count in enumerate(t["shared"]) if k)
        rows.append(
            {
                "strategy": name,
                "games": games,
                "wins": round(wins, 6),
                "win_share": wins / games if games else 0.0,
                "mean_worms": t["worms"] / games if games else 0.0,
                "mean_rank": t["rank"] / games if games else 0.0,
                "forfeits": t["forfeits"],
                "capped": t["capped"],
            }
        )
    rows.sort(key=lambda r: (-r["win_share"], r["mean_rank"] or 99, r["strategy"]))
    for i, row in enumerate(rows, 1):
        row["rank"] = i
    return [{c: row[c] for c in COLUMNS} for row in rows]


def format_table(rows: list[dict[str, Any]]) -> list[str]:
    """The standings as aligned text lines."""
    width = max([len("strategy")] + [len(r["strategy"]) for r in rows])
    show_forfeits = any(r["forfeits"] for r in rows)
    show_capped = any(r["capped"] for r in rows)
    head = f" #  {'strategy':<{width}}  {'games':>10}  {'win share':>9}  "
    head += f"{'mean worms':>10}  {'mean rank':>9}"
    head += "  forfeits" * show_forfeits + "  capped" * show_capped
    lines = [head]
    for r in rows:
        line = (
            f"{r['rank']:>2}  {r['strategy']:<{width}}  {r['games']:>10,}  "
            f"{r['win_share']:>8.1%}  {r['mean_worms']:>10.2f}  {r['mean_rank']:>9.3f}"
        )
        if show_forfeits:
            line += f"  {r['forfeits']:>8,}"
        if show_capped:
            line += f"  {r['capped']:>6,}"
        lines.append(line)
    return lines


def to_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                **row,
                "win_share": f"{row['win_share']:.6f}",
                "mean_worms": f"{row['mean_worms']:.6f}",
                "mean_rank": f"{row['mean_rank']:.6f}",
            }
        )
    return out.getvalue()
