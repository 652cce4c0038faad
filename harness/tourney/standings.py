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
        out.append({**row, **{k: _finite(theirs.get(k)) for k in REPORT_FIGURES}})
    return out


def _finite(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def format_table(rows: list[dict[str, Any]]) -> list[str]:
    """The standings as aligned text lines, in the one table style of every command
    (:func:`harness.report.render.text_table`: a rule under the header, intervals as
    ``low to high``).

    Rows from :func:`with_report` also show the win share's 95% interval and the rating
    (Elo) with its 95% interval, as the report does; without them those columns are left
    out. Only the rating columns are left out when the report has no rating at all. Where
    the games kept the luck account, the luck-adjusted win share with its interval follows
    the raw one's.
    """
    from harness.report.render import DASH, num, pct, signed_span, span, text_table

    show_forfeits = any(r["forfeits"] for r in rows)
    show_capped = any(r["capped"] for r in rows)
    show_ci = any("win_low" in r for r in rows)
    show_elo = any(r.get("elo") is not None for r in rows)
    show_adj = any(r.get("win_adj") is not None for r in rows)
    header = ["#", "strategy", "games", "win share"] + ["95% CI"] * show_ci
    header += ["luck-adjusted", "95% CI"] * show_adj
    header += ["mean worms", "mean rank"] + ["Elo", "95% CI"] * show_elo
    header += ["forfeits"] * show_forfeits + ["capped"] * show_capped
    lines = []
    for r in rows:
        line = [str(r["rank"]), r["strategy"], f"{r['games']:,}", pct(r["win_share"])]
        if show_ci:
            line.append(span(r.get("win_low"), r.get("win_high")))
        if show_adj:
            line += [pct(r.get("win_adj")), span(r.get("win_adj_low"), r.get("win_adj_high"))]
        line += [num(r["mean_worms"]), num(r["mean_rank"], 3)]
        if show_elo:
            elo = r.get("elo")
            line += [DASH if elo is None else num(elo, 0, sign=True)]
            line += [signed_span(r.get("elo_low"), r.get("elo_high"), 1, 0)]
        line += [f"{r['forfeits']:,}"] * show_forfeits + [f"{r['capped']:,}"] * show_capped
        lines.append(line)
    return text_table(header, lines, left=2)


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
