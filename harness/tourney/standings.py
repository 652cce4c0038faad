"""Standings: the terminal's table and ``summary.csv``, from per-entrant counts of stored games.

The counts (:class:`harness.game.ranking.Counts`: games, win points, worms, rank sum, forfeits,
capped games) are counted by :func:`harness.game.ranking.count_games` from a chunk's rows as
they are stored in its Parquet part, after the part has been checked against its manifest
line (:mod:`harness.tourney.storage`). Nothing is taken from counters written in the
manifest. The rows are in the one ranking's order (:func:`harness.game.ranking.order`), the
order the report uses too, so the terminal standings, ``summary.csv`` and the report list
tied entrants alike. Win share splits ties: a first place shared by k players counts 1/k
to each. Turn-capped games are never scored.

The uncertainty comes from the report (:func:`with_report`): the 95% interval of the win
share, the luck-adjusted win share (with the games it adjusts) and the rating with its
interval are copied from the report's summary of the same rows (clustered by deal,
:mod:`harness.stats`), never computed a second way here, so the terminal, ``--json`` and
the report show the same figures.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from typing import Any

from harness.game.ranking import Counts, order

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
    """Rows in the one ranking's order (:func:`harness.game.ranking.order`), with ranks 1..n."""
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
    "luck_games",  # the strategy's games that kept the account: the ones adjusted
)


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
        figures = {k: _finite(theirs.get(k)) for k in REPORT_FIGURES}
        if figures["luck_games"] is not None:
            figures["luck_games"] = int(figures["luck_games"])
        out.append({**row, **figures})
    return out


def _finite(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def format_table(rows: list[dict[str, Any]], width: int | None = None) -> list[str]:
    """The standings as aligned text lines in ``width`` columns (default: the terminal's):
    :func:`harness.report.standings_text.standings_text`, the one terminal table of the
    standings (``harness tourney``, ``harness report``, a notebook's Run).

    Rows from :func:`with_report` also show the win share's 95% interval, the
    luck-adjusted win share where the games kept the account (with the share of the games
    it adjusts) and the rating (Elo) with its 95% interval, as the report does; without
    them those columns are left out.
    """
    from harness.report.standings_text import standings_text

    return standings_text(rows, width)


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
