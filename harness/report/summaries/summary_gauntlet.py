"""The summary's gauntlet: the challenger against each opponent, and the ranking by rating.

In a gauntlet only the challenger meets everyone, so the field is never ranked by win
share: it is ordered by rating, marked as indirect (:func:`ranking_section`), and the
challenger's head-to-head share against each opponent is told on the Elo scale
(:func:`elo_span`) with a verdict (:func:`verdict`: ahead, behind or open). Part of
:func:`harness.report.summaries.summary.summarise`.
"""

from __future__ import annotations

import math
from typing import Any

from harness import stats
from harness.report.summaries.aggregate import Aggregates
from harness.stats import NAN


# -- the ranking: by win share (everyone meets), or by rating (a gauntlet) -------------------
# The order itself is harness.game.ranking.order, the terminal standings' order too.
def challenger_of(agg: Aggregates) -> str | None:
    """A gauntlet's challenger (run.json's ``challenger``) if it played, else None."""
    if agg.info.config.get("format") != "gauntlet":
        return None
    name = agg.info.config.get("challenger")
    return name if isinstance(name, str) and name in agg.strategies else None


def ranking_section(challenger: str | None) -> dict[str, Any]:
    if challenger is None:
        return {"by": "win_share", "indirect": False, "note": ""}
    return {
        "by": "rating",
        "indirect": True,
        "note": (
            f"A gauntlet: only {challenger} meets everyone, so the field's win shares are "
            "taken against different opponents and are not ranked. The order here is by "
            f"rating, and it is indirect: the field's ratings are measured through their "
            f"games with {challenger}."
        ),
    }


# -- a gauntlet: the challenger against each opponent ---------------------------------------
def elo_span(share: float, low: float, high: float) -> tuple[float, float, float]:
    """A head-to-head share and its interval on the Elo scale (the logistic curve).

    The map is monotone, so the interval's ends map to the Elo interval's ends; a share
    of 0 or 1 has no finite Elo (nan, shown as a dash).
    """

    def elo(x: float) -> float:
        value = stats.score_to_elo(x)
        return value + 0.0 if math.isfinite(value) else NAN  # + 0.0: no "-0" at 50%

    return elo(share), elo(low), elo(high)


def verdict(low: float, high: float, centre: float) -> str | None:
    """Which side of ``centre`` a 95% interval lies: ahead, behind, open; None if undefined."""
    if math.isnan(low) or math.isnan(high):
        return None
    return "ahead" if low > centre else "behind" if high < centre else "open"


def gauntlet_section(
    agg: Aggregates, challenger: str, standings: list[dict[str, Any]], h2h: dict[str, Any]
) -> dict[str, Any]:
    """The challenger against each opponent (field order, not a ranking) and its rating."""
    cells = {(c["a"], c["b"]): c for c in h2h["pairs"]}
    row = next(r for r in standings if r["strategy"] == challenger)
    met = {name for t in agg.tables.values() if challenger in t for name in t}
    field = [n for n in agg.strategies if n != challenger]
    opponents = []
    for name in field:
        c = cells.get((challenger, name))
        share, low, high, se = (c["share"], c["low"], c["high"], c["se"]) if c else (NAN,) * 4
        elo, elo_low, elo_high = elo_span(share, low, high)
        opponents.append(
            {
                "opponent": name,
                "games": c["games"] if c else 0,
                "tables": sum(1 for t in agg.tables.values() if challenger in t and name in t),
                "share": share,
                "low": low,
                "high": high,
                "elo": elo,
                "elo_low": elo_low,
                "elo_high": elo_high,
                "los": stats.los(share, se),
                "verdict": verdict(low, high, 0.5),
                "met": name in met,
            }
        )
    return {
        "challenger": challenger,
        "games": row["games"],
        "win_share": row["win_share"],
        "win_low": row["win_low"],
        "win_high": row["win_high"],
        "fair_share": 1 / agg.info.players,
        "rating": _challenger_rating(standings, challenger),
        "opponents": opponents,
        "note": (
            f"{challenger}'s share of the games it played with each opponent in which it "
            "finished ahead of that opponent (a tie counts half), with its 95% interval; "
            "Elo difference from that share (logistic); LOS, the probability that "
            f"{challenger} is really ahead of that opponent more often than not."
        ),
    }


def _challenger_rating(standings: list[dict[str, Any]], challenger: str) -> dict[str, Any]:
    """The challenger's rating against the field's average, with its interval: its row's
    (the gauntlet's ratings are centred on the field, so the table and this sentence give
    one figure)."""
    row = next(r for r in standings if r["strategy"] == challenger)
    return {"elo": row["elo"], "low": row["elo_low"], "high": row["elo_high"]}


def gauntlet_convergence(gauntlet: dict[str, Any]) -> dict[str, Any]:
    """A gauntlet is settled when the challenger is separated from every opponent."""
    verdicts = [o["verdict"] for o in gauntlet["opponents"] if o["games"]]
    settled = bool(verdicts) and all(v in ("ahead", "behind") for v in verdicts)
    return {"settled": settled, "neighbours": []}


def gauntlet_message(gauntlet: dict[str, Any]) -> str:
    """One sentence: whom the challenger is ahead of, behind, and not yet separated from."""
    groups: dict[str | None, list[str]] = {}
    for o in gauntlet["opponents"]:
        if o["games"]:
            groups.setdefault(o["verdict"], []).append(o["opponent"])
    parts = [
        f"{label} {', '.join(groups[key])}"
        for key, label in (
            ("ahead", "ahead of"),
            ("behind", "behind"),
            ("open", "not yet separated from"),
            (None, "undecided (too few games) against"),
        )
        if groups.get(key)
    ]
    if not parts:
        return f"Gauntlet: {gauntlet['challenger']} has met no opponent yet."
    return (
        f"Gauntlet: {gauntlet['challenger']} is " + "; ".join(parts) + " (95% head-to-head "
        "intervals). The field is not ranked: its entrants are measured against the "
        "challenger, not against each other."
    )
