"""The report's numbers: from a run's aggregates to one JSON-ready summary.

Everything a report shows (tables, plots, ``--json``) and ``harness compare`` reads
comes from this one dict, so the three never disagree. Undefined numbers are ``None``
in it (nan while computing), shown as a dash.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from harness.errors import HarnessError
from harness.report import stats
from harness.report.aggregate import MAX_WORMS, Aggregates, moments_of, nan_to_none
from harness.rules import Rules

SUMMARY_VERSION = 2  # 2: forfeits by kind (time forfeits apart), verified parts only
# What each error_kind means, for people; time forfeits depend on the machine.
FORFEIT_KINDS = {
    "rule": "an illegal decision (a rule broken)",
    "raised": "the strategy raised an exception",
    "time": "over a time limit (move_time/game_time)",
    "crash": "the strategy's process died",
    "unknown": "not recorded (stored before harness recorded the kind)",
}
MACHINE_DEPENDENT = ("time",)  # kinds whose count depends on the machine's speed and load
NAN = float("nan")


def _interval_method(blocks: bool) -> str:
    if blocks:
        return (
            "95% intervals by deal blocks: the seat rotations of a deal share their dice, "
            "so a deal is one unit (cluster-robust, t on deals - 1 degrees of freedom)"
        )
    return "95% intervals over independent games (Wilson for shares, t for means)"


def _rules_text(rules: dict[str, Any], players: int) -> str:
    try:
        return Rules.from_dict({**rules, "players": players}, where="run.json").describe()
    except (HarnessError, TypeError, ValueError):
        return ", ".join(f"{k}={v}" for k, v in rules.items()) or "unknown"


def summarise(agg: Aggregates) -> dict[str, Any]:
    """The summary of a run: see the module docstring. JSON-safe (no nan)."""
    info = agg.info
    blocks = info.blocks
    names = agg.strategies
    p, n = len(names), info.players
    scored = agg.status["over"] + agg.status["forfeit"]
    out: dict[str, Any] = {
        "summary_version": SUMMARY_VERSION,
        "run": {
            "path": str(info.path),
            "name": info.name,
            "run_id": info.run_id,
            "players": n,
            "dice": info.dice,
            "format": info.config.get("format"),
            "rules": info.rules,
            "rules_text": _rules_text(info.rules, n),
            "seed": info.config.get("seed"),
            "games_per_table": info.config.get("games"),
            "version": info.config.get("version"),
            "entrants": info.entrants,
            "status": info.config.get("status"),
            "notes": info.notes,
        },
        "games": {
            "stored": agg.rows,
            "scored": scored,
            "over": agg.status["over"],
            "forfeit": agg.status["forfeit"],
            "turn_cap": agg.status["turn-cap"],
            "shared_first": agg.shared,
            "mean_turns": agg.turns / scored if scored else NAN,
            "tables": len(agg.tables),
        },
        "intervals": _interval_method(blocks),
    }
    standings = []
    for s in range(p):
        win, worms, rank = (moments_of(a[s]) for a in (agg.win, agg.worms, agg.rank))
        busts, seat_turns, steals, stolen, games = agg.totals[s]
        wlo, whi = stats.share_interval(win, blocks)
        mlo, mhi = _clip(worms.interval(), 0, MAX_WORMS)  # no score lies outside 0..40
        standings.append(
            {
                "strategy": names[s],
                "games": int(games),
                "win_share": win.estimate,
                "win_low": wlo,
                "win_high": whi,
                "win_se": stats.share_se(win, blocks),
                "worms": worms.estimate,
                "worms_low": mlo,
                "worms_high": mhi,
                "worms_se": worms.se,
                "mean_rank": rank.estimate,
                "bust_rate": busts / seat_turns if seat_turns else NAN,
                "steals": steals / games if games else NAN,
                "stolen": stolen / games if games else NAN,
                "turn_capped": int(agg.capped[s]),
                "units": win.units,
            }
        )
    _add_ratings(agg, standings, out)
    standings.sort(
        key=lambda r: (
            r["games"] == 0,
            -_num(r["win_share"]),
            -_num(r["worms"]),
            r["strategy"],
        )
    )
    for place, row in enumerate(standings, 1):
        row["place"] = place
    out["standings"] = standings
    order = [r["strategy"] for r in standings if r["games"] > 0]
    out["head_to_head"] = _head_to_head(agg, order, blocks)
    out["convergence"] = _convergence(standings, out["head_to_head"], scored)
    out["seats"] = _seats(agg, blocks)
    out["worm_histogram"] = {names[s]: agg.worm_hist[s].astype(int).tolist() for s in range(p)}
    out["curve"] = _curve(agg, blocks)
    out["forfeits"] = sorted(agg.forfeits.values(), key=lambda g: (-g["count"], g["strategy"]))
    out["forfeit_groups_dropped"] = agg.forfeit_groups_dropped
    out["forfeit_kinds"] = _forfeit_kinds(agg)
    out["turn_capped"] = {
        "total": agg.status["turn-cap"],
        "by_strategy": {names[s]: int(agg.capped[s]) for s in range(p) if agg.capped[s]},
        "by_table": {
            t: {"games": c, "entrants": agg.tables.get(t, [])}
            for t, c in sorted(agg.capped_tables.items())
        },
    }
    out["tables"] = agg.tables
    out["messages"] = _messages(out, p)
    return nan_to_none(out)


def _forfeit_kinds(agg: Aggregates) -> dict[str, Any]:
    """Forfeits counted by kind, time forfeits apart: they depend on the machine."""
    kinds = [k for k in FORFEIT_KINDS if agg.forfeit_kinds.get(k)]
    return {
        "total": sum(agg.forfeit_kinds.values()),
        "machine_dependent": sum(agg.forfeit_kinds.get(k, 0) for k in MACHINE_DEPENDENT),
        "by_kind": [
            {
                "kind": k,
                "games": agg.forfeit_kinds[k],
                "meaning": FORFEIT_KINDS[k],
                "machine_dependent": k in MACHINE_DEPENDENT,
            }
            for k in kinds
        ],
        "by_strategy": {
            name: {k: kinds_of[k] for k in FORFEIT_KINDS if kinds_of.get(k)}
            for name, kinds_of in sorted(agg.forfeit_kinds_by_strategy.items())
        },
    }


def _clip(interval: tuple[float, float], low: float, high: float) -> tuple[float, float]:
    lo, hi = interval
    if math.isnan(lo):
        return lo, hi
    return max(low, lo), min(high, hi)


def _num(value: float | None) -> float:
    return -math.inf if value is None or math.isnan(value) else value


def _add_ratings(agg: Aggregates, standings: list[dict[str, Any]], out: dict[str, Any]) -> None:
    r = agg.ratings
    n = agg.info.players
    if r is None:
        reason = (
            "fewer than two strategies with scored games"
            if sum(1 for row in standings if row["games"]) < 2
            else "no decided games"
            if not agg.choices.weights
            else "the strategies never all meet (their games form separate groups)"
        )
        out["ratings"] = {"model": None, "note": f"No ratings: {reason}."}
        for row in standings:
            row.update(elo=NAN, elo_low=NAN, elo_high=NAN)
        return
    model = (
        "Bradley-Terry on 2-player results"
        if n == 2
        else f"Plackett-Luce on the full finishing orders of {n}-player games"
    )
    unit = "deal" if agg.info.blocks else "game"
    out["ratings"] = {
        "model": model,
        "scale": "Elo",
        "note": (
            f"{model}, on the Elo scale (0 = the entrants' average; 100 points = finishing "
            f"ahead in 64% of head-to-head comparisons). Maximum likelihood with one virtual "
            f"draw per pair (as BayesElo); 95% intervals are cluster-robust by {unit}."
        ),
        "converged": r.converged,
    }
    elo, se = r.elo, r.elo_se
    for s, row in enumerate(standings):
        if row["games"] == 0 or math.isnan(elo[s]):
            row.update(elo=NAN, elo_low=NAN, elo_high=NAN)
            continue
        half = stats.Z95 * se[s]
        row.update(elo=float(elo[s]), elo_low=float(elo[s] - half), elo_high=float(elo[s] + half))


def _pair(agg: Aggregates, a: int, b: int) -> tuple[stats.Moments, bool]:
    """Moments of "a ahead of b" (flipped from the stored lower-index orientation)."""
    lo, hi = (a, b) if a < b else (b, a)
    m = moments_of(agg.pairs[lo, hi])
    if a > b:  # a's share is 1 - (b's share): y -> m - y per unit
        m = stats.Moments(
            m.units,
            m.sm - m.sy,
            m.sm,
            m.smm - 2 * m.sym + m.syy,
            m.smm,
            m.smm - m.sym,
        )
    return m, a != b


def _head_to_head(agg: Aggregates, order: list[str], blocks: bool) -> dict[str, Any]:
    idx = {name: i for i, name in enumerate(agg.strategies)}
    cells = []
    for a_name in order:
        for b_name in order:
            if a_name == b_name:
                continue
            m, _ = _pair(agg, idx[a_name], idx[b_name])
            if m.sm == 0:
                continue
            lo, hi = stats.share_interval(m, blocks)
            cells.append(
                {
                    "a": a_name,
                    "b": b_name,
                    "games": int(m.sm),
                    "share": m.estimate,
                    "low": lo,
                    "high": hi,
                    "se": stats.share_se(m, blocks),
                }
            )
    return {"order": order, "pairs": cells}


def _convergence(
    standings: list[dict[str, Any]], h2h: dict[str, Any], scored: int
) -> dict[str, Any]:
    cells = {(c["a"], c["b"]): c for c in h2h["pairs"]}
    ranked = [r for r in standings if r["games"] > 0]
    pairs = []
    for upper, lower in zip(ranked, ranked[1:], strict=False):
        cell = cells.get((upper["strategy"], lower["strategy"]))
        overlap = (
            None
            if math.isnan(upper["win_low"]) or math.isnan(lower["win_high"])
            else bool(upper["win_low"] <= lower["win_high"])
        )
        needed = stats.games_to_separate(
            upper["win_share"] - lower["win_share"], upper["win_se"], lower["win_se"], scored
        )
        pairs.append(
            {
                "upper": upper["strategy"],
                "lower": lower["strategy"],
                "places": [upper["place"], lower["place"]],
                "overlap": overlap,
                "head_to_head": cell["share"] if cell else NAN,
                "head_to_head_games": cell["games"] if cell else 0,
                "los": stats.los(cell["share"], cell["se"]) if cell else NAN,
                "games_needed": needed if overlap else NAN,
            }
        )
    settled = bool(pairs) and all(p["overlap"] is False for p in pairs)
    return {"settled": settled, "neighbours": pairs}


def _seats(agg: Aggregates, blocks: bool) -> dict[str, Any]:
    n = agg.info.players
    overall = []
    for seat in range(n):
        m = moments_of(agg.seat[seat])
        lo, hi = stats.share_interval(m, blocks)
        overall.append(
            {
                "seat": seat,
                "games": int(m.sm),
                "share": m.estimate,
                "low": lo,
                "high": hi,
                "edge": m.estimate - 1 / n,
            }
        )
    by_strategy = []
    for s, name in enumerate(agg.strategies):
        for seat in range(n):
            m = moments_of(agg.seat_strategy[s, seat])
            if m.sm == 0:
                continue
            lo, hi = stats.share_interval(m, blocks)
            by_strategy.append(
                {
                    "strategy": name,
                    "seat": seat,
                    "games": int(m.sm),
                    "share": m.estimate,
                    "low": lo,
                    "high": hi,
                }
            )
    return {"fair_share": 1 / n, "overall": overall, "by_strategy": by_strategy}


def _curve(agg: Aggregates, blocks: bool) -> dict[str, Any]:
    """Cumulative win share per strategy at each deal bucket, with its interval."""
    cum = np.cumsum(agg.conv, axis=0)
    used = np.flatnonzero(agg.conv[:, :, 2].sum(axis=1) > 0)
    last = int(used.max()) + 1 if len(used) else 0
    out: dict[str, Any] = {"deals_per_point": agg.conv_width, "series": {}}
    for s, name in enumerate(agg.strategies):
        points = []
        for b in range(last):
            m = moments_of(cum[b, s])
            if m.sm == 0 or agg.conv[b, s, 2] == 0:
                continue
            lo, hi = stats.share_interval(m, blocks)
            points.append([int(m.sm), m.estimate, lo, hi])
        out["series"][name] = points
    return out


def _messages(out: dict[str, Any], p: int) -> list[str]:
    """Plain sentences about what the numbers cannot say (empty, tiny, degenerate runs)."""
    g = out["games"]
    msgs = []
    status = out["run"].get("status")
    if status not in (None, "complete"):
        msgs.append(
            f"The run is not complete (status: {status}): this report covers the games "
            "finished so far."
        )
    msgs += [f"{note.capitalize()}." for note in out["run"].get("notes", [])]
    if g["stored"] == 0:
        msgs.append("This run has no games yet: nothing to report.")
        return msgs
    if g["scored"] == 0:
        msgs.append(f"None of the {g['stored']} games finished (all hit the turn cap): no results.")
        return msgs
    if g["turn_cap"]:
        msgs.append(
            f"{g['turn_cap']} game(s) hit the turn cap unfinished: excluded from every "
            "statistic and listed in the report."
        )
    if g["forfeit"]:
        msgs.append(
            f"{g['forfeit']} game(s) ended in a forfeit: scored as played, the forfeiting "
            "seat last; listed in the report."
        )
    timed = out["forfeit_kinds"]["machine_dependent"]
    if timed:
        msgs.append(
            f"{timed} of the forfeits were over a time limit (move_time/game_time): they "
            "depend on the machine's speed and load, not only on the strategies, and may "
            "not happen again on another machine; counted apart in the report."
        )
    playing = [r for r in out["standings"] if r["games"]]
    if len(playing) == 1:
        msgs.append(
            f"Only one strategy ({playing[0]['strategy']}) played: there is nothing to "
            "compare it with; win shares against itself are not a measure of strength."
        )
    if g["shared_first"] == g["scored"]:
        msgs.append("Every scored game ended in a shared first place (a draw).")
    units = min((r["units"] for r in playing), default=0)
    if units < 30:
        unit = "deals" if out["run"]["dice"] == "duplicate" else "games"
        msgs.append(
            f"Few {unit} ({int(units)} for the least-played strategy): intervals are wide "
            "and rough; play more games before drawing conclusions."
        )
    conv = out["convergence"]
    if len(playing) > 1:
        if conv["settled"]:
            msgs.append("The ranking is settled: no two neighbours' 95% intervals overlap.")
        else:
            over = [c for c in conv["neighbours"] if c["overlap"] is not False]
            text = "; ".join(f"{c['places'][0]} and {c['places'][1]}" for c in over)
            msgs.append(f"Not settled: the 95% intervals of places {text} overlap.")
    return msgs
