"""Standings: per-entrant counters counted from stored games, turned into a table.

The counters (games, sole wins, shared firsts by how many shared, worms, rank sum,
forfeits, capped games) are counted by :func:`count_games` from a chunk's rows as they
are stored in its Parquet part, after the part has been checked against its manifest
line (:mod:`harness.tourney.storage`). Nothing is taken from counters written in the
manifest: the terminal standings, ``summary.csv`` and the report (which reads the same
rows) come from one source, so they agree by construction. Counters are integers, so
sums are exact in any order. Win share splits ties: a first place shared by k players
counts 1/k to each. Turn-capped games are never scored.

The uncertainty comes from the report (:func:`with_report`): the 95% interval of the win
share and the rating with its interval are copied from the report's summary of the same
rows (clustered by deal, :mod:`harness.report.stats`), never computed a second way here,
so the terminal, ``--json`` and the report show the same figures.
"""

from __future__ import annotations

import csv
import io
import math
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


# The report's figures the standings carry (None where the report has none).
REPORT_FIGURES = ("win_low", "win_high", "elo", "elo_low", "elo_high")
DASH = "-"


def with_report(rows: list[dict[str, Any]], summary: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The standings rows with the report's 95% win-share interval and rating added.

    ``summary`` is the report's summary of the same run (``report.json``, or
    :func:`harness.report.api.summarise_run`); its standings are matched by strategy
    name. A strategy the summary lacks (or no summary) gets None for each figure, as do
    undefined ones (nan). The rows are copies; their order is kept.
    """
    found = {}
    if isinstance(summary, dict):
        for r in summary.get("standings") or []:
            if isinstance(r, dict) and isinstance(r.get("strategy"), str):
                found[r["strategy"]] = r
    out = []
    for row in rows:
        theirs = found.get(row["strategy"], {})
        out.append({**row, **{k: _finite(theirs.get(k)) for k in REPORT_FIGURES}})
    return out


def _finite(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _interval(low: float | None, high: float | None, fmt: str) -> str:
    """``low-high`` in the figure's format (ASCII: any terminal prints it); a dash if unknown."""
    if low is None or high is None:
        return DASH
    if fmt == "pct":
        return f"{low * 100:.1f}-{high * 100:.1f}%"
    return f"{low:+.0f} to {high:+.0f}"


def format_table(rows: list[dict[str, Any]]) -> list[str]:
    """The standings as aligned text lines.

    Rows from :func:`with_report` also show the win share's 95% interval and the rating
    (Elo) with its 95% interval, as the report does; without them those columns are left
    out. Only the rating columns are left out when the report has no rating at all.
    """
    width = max([len("strategy")] + [len(r["strategy"]) for r in rows])
    show_forfeits = any(r["forfeits"] for r in rows)
    show_capped = any(r["capped"] for r in rows)
    show_ci = any("win_low" in r for r in rows)
    show_elo = any(r.get("elo") is not None for r in rows)
    cis = [_interval(r.get("win_low"), r.get("win_high"), "pct") for r in rows]
    elo_cis = [_interval(r.get("elo_low"), r.get("elo_high"), "num") for r in rows]
    ci_w = max([len("95% CI")] + [len(c) for c in cis])
    elo_w = max([len("95% CI")] + [len(c) for c in elo_cis])
    head = f" #  {'strategy':<{width}}  {'games':>10}  {'win share':>9}  "
    head += f"{'95% CI':<{ci_w}}  " * show_ci
    head += f"{'mean worms':>10}  {'mean rank':>9}"
    head += f"  {'Elo':>5}  {'95% CI':<{elo_w}}" * show_elo
    head += "  forfeits" * show_forfeits + "  capped" * show_capped
    lines = [head.rstrip()]
    for r, ci, elo_ci in zip(rows, cis, elo_cis, strict=True):
        line = (
            f"{r['rank']:>2}  {r['strategy']:<{width}}  {r['games']:>10,}  {r['win_share']:>9.1%}  "
        )
        if show_ci:
            line += f"{ci:<{ci_w}}  "
        line += f"{r['mean_worms']:>10.2f}  {r['mean_rank']:>9.3f}"
        if show_elo:
            elo = r.get("elo")
            line += f"  {DASH if elo is None else f'{elo:+.0f}':>5}  {elo_ci:<{elo_w}}"
        if show_forfeits:
            line += f"  {r['forfeits']:>8,}"
        if show_capped:
            line += f"  {r['capped']:>6,}"
        lines.append(line.rstrip())
    return lines


def to_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", extrasaction="ignore")
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
