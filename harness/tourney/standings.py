"""Standings: the terminal's table and ``summary.csv``, from per-entrant counts of stored games.

The counts (:class:`harness.game.ranking.Counts`: games, win points, worms, rank sum, forfeits,
capped games) are counted by :func:`harness.game.ranking.count_games` from a chunk's rows as
they are stored in its Parquet part, after the part has been checked against its manifest
line (:mod:`harness.tourney.storage`). Nothing is taken from counters written in the
manifest. The rows are in the one ranking's order (:func:`harness.game.ranking.order`), the
order the report uses too, so the terminal standings, ``summary.csv`` and the report list
tied entrants alike. Win share splits ties: a first place shared by k players counts 1/k
to each. Turn-capped games are never scored.

The uncertainty comes from the report (:func:`with_report`, the report room's): the 95%
interval of the win share, the luck-adjusted win share (with the games it adjusts) and the
rating with its interval are copied from the report's summary of the same rows (clustered by deal,
:mod:`harness.stats`), never computed a second way here, so the terminal, ``--json`` and
the report show the same figures.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from harness.game.ranking import Counts, order
from harness.report.pages.standings_text import REPORT_FIGURES, with_report

__all__ = [
    "COLUMNS",
    "REPORT_FIGURES",
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


def format_table(rows: list[dict[str, Any]], width: int | None = None) -> list[str]:
    """The standings as aligned text lines in ``width`` columns (default: the terminal's):
    :func:`harness.report.pages.standings_text.standings_text`, the one terminal table of the
    standings (``harness tourney``, ``harness report``, a notebook's Run).

    Rows from :func:`with_report` also show the win share's 95% interval, the
    luck-adjusted win share where the games kept the account (with the share of the games
    it adjusts) and the rating (Elo) with its 95% interval, as the report does; without
    them those columns are left out.
    """
    from harness.report.pages.standings_text import standings_text

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
