"""The standings as the terminal shows them, and the luck columns every output shares.

One table for ``harness tourney``, ``harness report`` and a notebook's :class:`~harness.
results.Run` (:func:`standings_text`), fitted to the terminal's width
(:func:`~harness.report.pages.page.fit_table`): in 100 columns by default, the columns that say
least give way first (mean rank, then the rating's interval) and a wider terminal shows
them. Its rows are the runner's counts with the report's figures
(:func:`with_report`), or a report's standings
(:func:`rows_of_summary`): the same keys either way.

The luck-adjusted win share is shown with the games it rests on wherever it is shown
(:func:`luck_cells`, :func:`luck_note`): it is the strategy's win share over all its
games, the dice's luck taken out of those that kept the luck account; under ``luck:
auto`` that is only the games at tables with a plugin or ``optimal`` (docs/luck.md), so
"adj. on" says which share of its games were adjusted.
"""

from __future__ import annotations

import math
from typing import Any

from harness.report.pages.formats import DASH, num, pct, signed_span, span
from harness.report.pages.page import fit_table, terminal_width, wrap

__all__ = [
    "REPORT_FIGURES",
    "adjusted_on",
    "luck_cells",
    "luck_note",
    "rows_of_summary",
    "standings_text",
    "with_report",
]

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
    """The standings rows with the report's figures added (:data:`REPORT_FIGURES`: the
    95% win-share interval, the luck-adjusted share and the games it adjusts, the rating).

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


def adjusted_on(row: dict[str, Any]) -> str:
    """The share of a strategy's games its luck-adjusted figures adjust (the games that
    kept the luck account): ``100%``, ``14%``; a dash without the account."""
    kept, games = row.get("luck_games"), row.get("games")
    if kept is None or not games:
        return DASH
    return pct(kept / games, 0)


def luck_cells(row: dict[str, Any]) -> list[str]:
    """The luck-adjusted win share, its 95% interval and the share of the games it adjusts."""
    return [
        pct(row.get("win_adj")),
        span(row.get("win_adj_low"), row.get("win_adj_high")),
        adjusted_on(row),
    ]


def luck_note(rows: list[dict[str, Any]], label: str = "luck-adjusted") -> str | None:
    """What the luck-adjusted column is and on which games it rests, or None without one."""
    lucky = [r for r in rows if r.get("win_adj") is not None]
    if not lucky:
        return None
    text = f"{label}: the win share with the dice's luck taken out (docs/luck.md) "
    if all(r.get("luck_games") == r.get("games") for r in lucky):
        return text + "of every game (every game kept the luck account)."
    return text + (
        "of the games that kept the luck account, the others counted as played (adj. on: "
        "their share; luck: auto keeps it at the tables with a plugin or optimal)."
    )


def rows_of_summary(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """A report's standings as the terminal table's rows (the runner's keys: ``rank``,
    ``mean_worms``, ``forfeits``, ``capped``)."""
    lost = (summary.get("forfeit_kinds") or {}).get("by_strategy") or {}
    return [
        {
            **r,
            "rank": r["place"],
            "mean_worms": r["worms"],
            "forfeits": sum((lost.get(r["strategy"]) or {}).values()),
            "capped": r.get("turn_capped") or 0,
        }
        for r in summary["standings"]
    ]


def standings_text(
    rows: list[dict[str, Any]],
    width: int | None = None,
    *,
    ranked: bool = True,
    said: int | None = None,
) -> list[str]:
    """The standings as aligned text lines in ``width`` columns (default: the
    terminal's, :func:`~harness.report.pages.page.terminal_width`), in the one table style of
    every command (a rule under the header, intervals as ``low to high``).

    Rows with the report's figures also show the win share's 95% interval, the
    luck-adjusted win share where the games kept the account (with "adj. on" when not
    every game did) and the rating (Elo) with its 95% interval; without them those
    columns are left out. ``ranked`` False: no place column (a gauntlet's field,
    ordered by rating). A line under the table says what the luck columns are. ``said``:
    the terminal's width, when the table is indented within it.
    """
    width = terminal_width() if width is None else width
    show_ci = any("win_low" in r for r in rows)
    show_adj = any(r.get("win_adj") is not None for r in rows)
    show_on = show_adj and any(r.get("luck_games") != r.get("games") for r in rows)
    show_elo = any(r.get("elo") is not None for r in rows)
    show_forfeits = any(r.get("forfeits") for r in rows)
    show_capped = any(r.get("capped") for r in rows)
    header = (["#"] if ranked else []) + ["strategy", "games", "win share"]
    header += ["95% CI"] * show_ci + ["luck-adj.", "95% CI"] * show_adj + ["adj. on"] * show_on
    header += ["worms", "mean rank"] + ["Elo", "95% CI"] * show_elo
    header += ["forfeits"] * show_forfeits + ["capped"] * show_capped
    table = []
    for r in rows:
        line = ([str(r["rank"])] if ranked else []) + [r["strategy"], f"{r['games']:,}"]
        line += [pct(r["win_share"])] + [span(r.get("win_low"), r.get("win_high"))] * show_ci
        if show_adj:
            line += luck_cells(r)[: 2 + show_on]
        line += [num(r["mean_worms"]), num(r["mean_rank"], 3)]
        if show_elo:
            elo = r.get("elo")
            line += [DASH if elo is None else num(elo, 0, sign=True)]
            line += [signed_span(r.get("elo_low"), r.get("elo_high"), 1, 0)]
        line += [f"{r['forfeits']:,}"] * show_forfeits + [f"{r['capped']:,}"] * show_capped
        table.append(line)
    at = {name: i for i, name in reversed(list(enumerate(header)))}  # first of each name
    pairs = [[i, i + 1] for i, h in enumerate(header[:-1]) if header[i + 1] == "95% CI"]
    elo_ci = len(header) - 1 - show_forfeits - show_capped
    give_way = [("mean rank", [at["mean rank"]])]
    luck_ci = [at["luck-adj."] + 1] if show_adj else []
    if ranked:  # ranked by win share: the rating's interval says least
        give_way += [("the rating's 95% CI", [elo_ci])] if show_elo else []
        give_way += [("the luck-adjusted 95% CI", luck_ci)]
    else:  # ordered by rating (a gauntlet's field): its win shares' intervals say least
        luck_ci = [at["luck-adj."] + 1] if show_adj else []
        give_way += [
            ("the luck-adjusted 95% CI", luck_ci),
            ("the win share's 95% CI", [at["win share"] + 1] if show_ci else []),
        ]
    key = 2 if ranked else 1
    lines = fit_table(
        header, table, width, key=key, left=key, groups=pairs, give_way=give_way, said=said
    )
    note = luck_note(rows, "luck-adj.") if show_adj else None
    return lines + (wrap(note, width) if note else [])
