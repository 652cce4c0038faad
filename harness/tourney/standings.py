"""Standings: per-entrant counters counted from stored games, turned into a table.

The counters (games, sole wins, shared firsts by how many shared, worms, rank sum,
forfeits, capped games) are counted by :func:`count_games` from a chunk's rows as they
are stored in its Parquet part, after the part has been checked against its manifest
line (:mod:`harness.tourney.storage`). Nothing is taken from counters written in the
manifest: the terminal standings, ``summary.csv`` and the report (which reads the same
rows) come from one source, so they agree by construction. Counters are integers, so
sums are exact in any order. Win share splits ties: a first place shared by k players
counts 1/k to each. Turn-capped games are never scored.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

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


def _zero(players: int = 0) -> dict[str, Any]:
    shared = [0] * (players + 1) if players else []
    return {
        "games": 0,
        "wins": 0,
        "shared": shared,
        "worms": 0,
        "rank": 0,
        "forfeits": 0,
        "capped": 0,
    }


def count_games(
    capped: np.ndarray,
    error_seat: np.ndarray,
    strategies: Sequence[np.ndarray],
    worms: Sequence[np.ndarray],
    ranks: Sequence[np.ndarray],
) -> dict[str, dict[str, Any]]:
    """Per-entrant counters of some stored games, one array per column (seat i: index i).

    ``capped`` marks turn-capped games (counted apart, never scored); ``error_seat`` is the
    forfeiting seat or -1. ``shared[k]`` counts first places shared by k players.
    """
    players = len(strategies)
    capped = np.asarray(capped, dtype=bool)
    scored = ~capped
    error_seat = np.asarray(error_seat)
    rank = [np.asarray(r, dtype=np.int64) for r in ranks]
    firsts = np.zeros(len(capped), dtype=np.int64)
    for r in rank:
        firsts += r == 1
    out: dict[str, dict[str, Any]] = {}
    for seat in range(players):
        names = np.asarray(strategies[seat], dtype=object)
        seat_worms = np.asarray(worms[seat], dtype=np.int64)
        first = scored & (rank[seat] == 1)
        for name in dict.fromkeys(names.tolist()):  # first-seen order, no sorting of objects
            mine = names == name
            played = mine & scored
            t = out.setdefault(str(name), _zero(players))
            t["capped"] += int((mine & capped).sum())
            t["games"] += int(played.sum())
            t["worms"] += int(seat_worms[played].sum())
            t["rank"] += int(rank[seat][played].sum())
            won = mine & first
            t["wins"] += int((won & (firsts == 1)).sum())
            for k in range(2, players + 1):
                t["shared"][k] += int((won & (firsts == k)).sum())
            t["forfeits"] += int((played & (error_seat == seat)).sum())
    return out


def add_counters(totals: dict[str, dict[str, Any]], counters: dict[str, dict[str, Any]]) -> None:
    """Add one chunk's per-entrant counters to ``totals`` (in place)."""
    for name, stats in counters.items():
        total = totals.setdefault(name, _zero())
        for key in ("games", "wins", "worms", "rank", "forfeits", "capped"):
            total[key] += stats[key]
        shared = stats["shared"]
        if len(total["shared"]) < len(shared):
            total["shared"] += [0] * (len(shared) - len(total["shared"]))
        for k, n in enumerate(shared):
            total["shared"][k] += n


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
