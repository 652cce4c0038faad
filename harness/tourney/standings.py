"""Standings: the terminal's table and ``summary.csv``, from per-entrant counts of stored games.

The counts (:class:`harness.ranking.Counts`: games, win points, worms, rank sum, forfeits,
capped games) are counted by :func:`harness.ranking.count_games` from a chunk's rows as
they are stored in its Parquet part, after the part has been checked against its manifest
line (:mod:`harness.tourney.storage`). Nothing is taken from counters written in the
manifest. The rows are in the one ranking's order (:func:`harness.ranking.order`), the
order the report uses too, so the terminal standings, ``summary.csv`` and the report list
tied entrants alike. Win share splits ties: a first place shared by k players counts 1/k
to each. Turn-capped games are never scored.

The uncertainty comes from the report (:func:`with_report`): the 95% interval of the win
share and the rating with its interval are copied from the report's summary of the same
rows (clustered by deal, :mod:`harness.stats`), never computed a second way here,
so the terminal, ``--json`` and the report show the same figures.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from typing import Any

from harness.ranking import Counts, order

__all__ = [
    "COLUMNS",
    "format_table",
    "standings",
    "to_csv",
    "with_report",
]

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


def standings(totals: Mapping[str, Counts | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rows in the one ranking's order (:func:`harness.ranking.order`), with ranks 1..n."""
    counts = {name: Counts.of(c) for name, c in totals.items()}
    rows = []
    for place, name in enumerate(order(counts), 1):
        c = counts[name]
        rows.append(
            {
                "rank": place,
                "strategy": name,
                "games": c.games,
                "wins": round(c.wins, 6),
                "win_share": c.win_share,
                "mean_worms": c.mean_worms,
                "mean_rank": c.mean_rank,
                "forfeits": c.forfeits,
                "capped": c.capped,
            }
        )
    return rows


# The report's figures the standings carry (None where the report has none).
REPORT_FIGURES = (
    "win_low",
    "win_high",
    "elo",
    "elo_low",
    "elo_high",
    # luck-adjusted (docs/luck.md): where the games kept the account
    "win_adj",
    "win_adj_low",
    "win_adj_high",
)
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


def _adjusted(row: dict[str, Any]) -> str:
    """The luck-adjusted win share and its interval (docs/luck.md), or a dash."""
    share = row.get("win_adj")
    if share is None:
        return DASH
    return (
        f"{share * 100:.1f}% ({_interval(row.get('win_adj_low'), row.get('win_adj_high'), 'pct')})"
    )


def format_table(rows: list[dict[str, Any]]) -> list[str]:
    """The standings as aligned text lines.

    Rows from :func:`with_report` also show the win share's 95% interval and the rating
    (Elo) with its 95% interval, as the report does; without them those columns are left
    out. Only the rating columns are left out when the report has no rating at all. Where
    the games kept the luck account, the luck-adjusted win share with its interval follows
    the raw one's.
    """
    width = max([len("strategy")] + [len(r["strategy"]) for r in rows])
    show_forfeits = any(r["forfeits"] for r in rows)
    show_capped = any(r["capped"] for r in rows)
    show_ci = any("win_low" in r for r in rows)
    show_elo = any(r.get("elo") is not None for r in rows)
    show_adj = any(r.get("win_adj") is not None for r in rows)
    cis = [_interval(r.get("win_low"), r.get("win_high"), "pct") for r in rows]
    adjs = [_adjusted(r) for r in rows]
    adj_w = max([len("luck-adjusted")] + [len(a) for a in adjs])
    elo_cis = [_interval(r.get("elo_low"), r.get("elo_high"), "num") for r in rows]
    ci_w = max([len("95% CI")] + [len(c) for c in cis])
    elo_w = max([len("95% CI")] + [len(c) for c in elo_cis])
    head = f" #  {'strategy':<{width}}  {'games':>10}  {'win share':>9}  "
    head += f"{'95% CI':<{ci_w}}  " * show_ci
    head += f"{'luck-adjusted':<{adj_w}}  " * show_adj
    head += f"{'mean worms':>10}  {'mean rank':>9}"
    head += f"  {'Elo':>5}  {'95% CI':<{elo_w}}" * show_elo
    head += "  forfeits" * show_forfeits + "  capped" * show_capped
    lines = [head.rstrip()]
    for r, ci, elo_ci, adj in zip(rows, cis, elo_cis, adjs, strict=True):
        line = (
            f"{r['rank']:>2}  {r['strategy']:<{width}}  {r['games']:>10,}  {r['win_share']:>9.1%}  "
        )
        if show_ci:
            line += f"{ci:<{ci_w}}  "
        if show_adj:
            line += f"{adj:<{adj_w}}  "
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
