"""The report's numbers: from a run's aggregates to one JSON-ready summary.

Everything a report shows (tables, plots, ``--json``) and ``harness compare`` reads
comes from this one dict, so the three never disagree. Undefined numbers are ``None``
in it (nan while computing), shown as a dash. The standings are in the one ranking's
order (:func:`harness.game.ranking.order`, on the same integer counts the terminal's table
ranks), so the report and ``harness tourney`` list tied entrants alike.

Two kinds of run get more than standings: a gauntlet (``gauntlet``: the challenger
against each opponent and its rating; the field is ordered by rating and marked as
indirect, never ranked by win share), and a run with a mirror match (``mirrors``: one
strategy under two names, whose halves should agree). Mirrors take one more pass over
the games (:func:`_deal_totals`): the halves' difference is paired by deal of the run.

The gauntlet's section (and the ranking by rating) is :mod:`~.summary_gauntlet`, the
mirror matches' :mod:`~.summary_mirrors`; their public names are importable from here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from harness import stats
from harness.errors import HarnessError, plural
from harness.game import ranking
from harness.game.rules import Rules
from harness.jsonsafe import json_safe
from harness.report.pages.adaptive import adaptive_section
from harness.report.summaries.aggregate import MAX_WORMS, Aggregates, moments_of
from harness.report.summaries.luck import luck_summary
from harness.report.summaries.same_games import same_game_groups, same_games_line
from harness.report.summaries.summary_gauntlet import (
    challenger_of,
    elo_span,
    gauntlet_convergence,
    gauntlet_message,
    gauntlet_section,
    ranking_section,
    verdict,
)
from harness.report.summaries.summary_mirrors import (
    diff_of_shares,
    mirror_key,
    mirror_message,
    mirror_pairs,
    mirror_section,
)
from harness.runfolder.manifest import OUTPUT_KEPT, OUTPUT_KEY
from harness.runfolder.reader import RunInfo
from harness.runfolder.tables import TablesDamaged, table_rows
from harness.runfolder.timing import strategy_times
from harness.stats import NAN

__all__ = [
    "FEW_UNITS",
    "FORFEIT_KINDS",
    "MACHINE_DEPENDENT",
    "SUMMARY_VERSION",
    "diff_of_shares",
    "elo_span",
    "gauntlet_message",
    "mirror_key",
    "mirror_message",
    "mirror_pairs",
    "summarise",
    "verdict",
]


# 2: forfeits by kind (time forfeits apart), verified parts only; 3: mirror matches,
# a gauntlet centred on its challenger, the ranking's basis (``ranking``); 4: the run's
# date (``run.created``) and each convergence point's units (its fifth value), decision
# times (``timing``), plugin output (``output``), forfeits grouped by cause, headlines;
# 5: the luck-adjusted figures (``luck``, the standings' ``win_adj``... keys); 6: the
# standings' ``luck_games`` (the games adjusted), a gauntlet's ratings on the field's average;
# 7: entrants that played the same games (``same_games``, and a headline).
SUMMARY_VERSION = 7
# Fewer units (deals, or games with independent dice) than this: intervals are rough.
FEW_UNITS = 30
# What each error_kind means, for people; time forfeits depend on the machine.
FORFEIT_KINDS = {
    "rule": "an illegal decision (a rule broken)",
    "raised": "the strategy raised an exception",
    "time": "over a time limit (move_time/game_time)",
    "crash": "the strategy's process died",
    "unknown": "not recorded (stored before harness recorded the kind)",
}
MACHINE_DEPENDENT = ("time",)  # kinds whose count depends on the machine's speed and load


def _interval_method(by_deal: bool) -> str:
    if by_deal:
        return (
            "95% intervals by deals: every game of a deal (each seat order, at every "
            "table) is played on the same dice, so a deal of the run is one unit "
            "(cluster-robust, t on deals - 1 degrees of freedom)"
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
    by_deal = info.by_deal
    names = agg.strategies
    p = len(names)
    scored = agg.status["over"] + agg.status["forfeit"]
    out = _run_and_games(agg)
    counts = agg.entrant_counts()  # what the one ranking orders, as the terminal counts it
    standings = [_standing(agg, s) for s in range(p)]
    challenger = challenger_of(agg)
    _add_ratings(agg, standings, out, challenger)
    out["ranking"] = ranking_section(challenger)
    ratings = {r["strategy"]: r["elo"] for r in standings} if challenger else None
    place_of = {name: i for i, name in enumerate(ranking.order(counts, ratings))}
    standings.sort(key=lambda r: place_of[r["strategy"]])
    for place, row in enumerate(standings, 1):
        row["place"] = place
    out["standings"] = standings
    order = [r["strategy"] for r in standings if r["games"] > 0]
    out["head_to_head"] = _head_to_head(agg, order, by_deal)
    out["gauntlet"] = (
        gauntlet_section(agg, challenger, standings, out["head_to_head"]) if challenger else None
    )
    out["convergence"] = (
        gauntlet_convergence(out["gauntlet"])
        if challenger
        else _convergence(standings, out["head_to_head"], scored, mirror_pairs(info.entrants))
    )
    out["luck"] = luck_summary(agg, standings)  # adds the adjusted figures to the rows
    out["mirrors"] = mirror_section(agg, out["head_to_head"])
    out["same_games"] = _same_games(agg)
    out["seats"] = _seats(agg, by_deal)
    out["worm_histogram"] = {names[s]: agg.worm_hist[s].astype(int).tolist() for s in range(p)}
    out["curve"] = _curve(agg, by_deal)
    out["forfeits"] = sorted(agg.forfeits.values(), key=lambda g: (-g["count"], g["strategy"]))
    out["forfeit_groups_dropped"] = agg.forfeit_groups_dropped
    out["forfeit_kinds"] = _forfeit_kinds(agg)
    out["turn_capped"] = _turn_capped(agg)
    out["tables"] = agg.tables
    out["timing"] = _timing(info, [r["strategy"] for r in standings])
    out["output"] = _output(info)
    out["run"]["config_file"] = info.config.get("config_file")
    out["adaptive"] = adaptive_section(info.config)  # schedule: adaptive's comparisons
    out["headlines"] = _headlines(out)
    out["messages"] = out["headlines"] + _messages(out, p)
    return json_safe(out)


def _run_and_games(agg: Aggregates) -> dict[str, Any]:
    """The summary's head: its version, the run (run.json's facts) and its games' counts."""
    info = agg.info
    n = info.players
    scored = agg.status["over"] + agg.status["forfeit"]
    return {
        "summary_version": SUMMARY_VERSION,
        "run": {
            "path": str(info.path),
            "name": info.name,
            "run_id": info.run_id,
            "created": info.config.get("created"),
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
        "intervals": _interval_method(info.by_deal),
    }


def _standing(agg: Aggregates, s: int) -> dict[str, Any]:
    """Strategy ``s``'s standings row (before its rating, place and luck-adjusted figures)."""
    by_deal = agg.info.by_deal
    win, worms, rank = (moments_of(a[s]) for a in (agg.win, agg.worms, agg.rank))
    busts, seat_turns, steals, stolen, games = agg.totals[s]
    wlo, whi = stats.share_interval(win, by_deal)
    mlo, mhi = _clip(worms.interval(), 0, MAX_WORMS)  # no score lies outside 0..40
    return {
        "strategy": agg.strategies[s],
        "games": int(games),
        "win_share": win.estimate,
        "win_low": wlo,
        "win_high": whi,
        "win_se": stats.share_se(win, by_deal),
        "worms": worms.estimate,
        "worms_low": mlo,
        "worms_high": mhi,
        "worms_se": worms.se,
        "mean_rank": rank.estimate,
        "bust_rate": busts / seat_turns if seat_turns else NAN,
        "steals": steals / games if games else NAN,
        "stolen": stolen / games if games else NAN,
        "turn_capped": int(agg.capped[s]),
        "units": win.deals,  # summary.json's key, kept as it was
    }


def _turn_capped(agg: Aggregates) -> dict[str, Any]:
    """The games ended by the turn cap: in all, by strategy and by table."""
    names = agg.strategies
    return {
        "total": agg.status["turn-cap"],
        "by_strategy": {names[s]: int(agg.capped[s]) for s in range(len(names)) if agg.capped[s]},
        "by_table": {
            t: {"games": c, "entrants": agg.tables.get(t, [])}
            for t, c in sorted(agg.capped_tables.items())
        },
    }


def _timing(info: RunInfo, names: list[str]) -> list[dict[str, Any]]:
    """Each strategy's decision times and its tables' CPU per game, from the verified
    chunks' manifest lines (:mod:`harness.runfolder.timing`)."""
    try:
        tables = {table: entrants for table, entrants, _ in table_rows(info.path, info.config)}
    except TablesDamaged:  # opening the run said so already
        tables = {}
    return [t.as_dict() for t in strategy_times(info.entries, tables, names)]


def _output(info: RunInfo) -> dict[str, Any]:
    """The characters of output each strategy wrote (to run.log, which keeps at most
    OUTPUT_KEPT of each chunk), and how many chunks' output was cut there."""
    written: dict[str, int] = {}
    cut = 0
    for entry in info.entries:
        chunk = entry.get(OUTPUT_KEY)
        if not isinstance(chunk, dict):
            continue
        counts = {k: v for k, v in chunk.items() if isinstance(k, str) and type(v) is int}
        counts = {k: v for k, v in counts.items() if v > 0}
        for name, chars in counts.items():
            written[name] = written.get(name, 0) + chars
        cut += sum(counts.values()) > OUTPUT_KEPT
    ordered = sorted(written.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"by_strategy": dict(ordered), "cut_chunks": cut, "kept_per_chunk": OUTPUT_KEPT}


def _same_games(agg: Aggregates) -> list[dict[str, Any]]:
    """Entrants that played the same games (harness.report.summaries.same_games); none with
    independent dice. Games of two of them together compare only where the design holds
    every order."""
    if agg.same is None:
        return []
    info = agg.info
    every_order = len({tuple(o) for o in info.design}) == math.factorial(info.players)
    mirrors = mirror_pairs(info.entrants)
    return same_game_groups(agg.same, agg.strategies, mirrors, every_order)


def _headlines(out: dict[str, Any]) -> list[str]:
    """What must not be missed: entrants that played the same games (a parameter that
    changed nothing), a strategy that forfeited every game it played."""
    by = out["forfeit_kinds"]["by_strategy"]
    lines = [same_games_line(group) for group in out["same_games"]]
    for row in out["standings"]:
        name, games = row["strategy"], row["games"]
        lost = sum((by.get(name) or {}).values())
        if games and lost >= games:
            first = next((g for g in out["forfeits"] if g["strategy"] == name), None)
            why = f": {first['detail']}" if first else ""
            lines.append(
                f"{name} forfeited {_every(games)}{why} (the forfeits "
                "below say how to play one again)"
            )
    return lines


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


def _add_ratings(
    agg: Aggregates,
    standings: list[dict[str, Any]],
    out: dict[str, Any],
    challenger: str | None = None,
) -> None:
    """Each row's rating (Elo) with its 95% interval, and the ratings' note.

    0 is the entrants' average; in a gauntlet the field's average (the challenger's
    opponents), so that the challenger's rating in the table is its one rating against
    the field (:func:`~.summary_gauntlet.gauntlet_section` reads it from its row): a
    centre that includes the challenger would pull it towards 0 and give it a second,
    smaller figure (by field/(field + 1)).
    """
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
    cluster = "deal" if agg.info.by_deal else "game"
    rated = [i for i in range(len(standings)) if not math.isnan(r.theta[i])]
    centre = [i for i in rated if agg.strategies[i] != challenger] or rated
    zero = (
        f"0 = the field's average: {challenger}'s opponents, so that its rating is its "
        "distance from them"
        if challenger is not None and len(centre) < len(rated)
        else "0 = the entrants' average"
    )
    out["ratings"] = {
        "model": model,
        "scale": "Elo",
        "centre": "field" if len(centre) < len(rated) else "entrants",
        "note": (
            f"{model}, on the Elo scale ({zero}; 100 points = finishing ahead in 64% of "
            "head-to-head comparisons). Maximum likelihood with one virtual draw per pair "
            f"(as BayesElo); 95% intervals are cluster-robust by {cluster}."
        ),
        "converged": r.converged,
    }
    for s, row in enumerate(standings):
        if row["games"] == 0 or s not in rated:
            row.update(elo=NAN, elo_low=NAN, elo_high=NAN)
            continue
        row.update(zip(("elo", "elo_low", "elo_high"), rating_against(r, s, centre), strict=True))


def rating_against(r: stats.Ratings, s: int, centre: Sequence[int]) -> tuple[float, ...]:
    """Strategy ``s``'s rating (Elo) against the average of ``centre`` and its 95%
    interval: a contrast of the fitted log-strengths, its variance from their
    cluster-robust covariance."""
    w = np.zeros(len(r.theta))
    w[list(centre)] -= 1.0 / len(centre)
    w[s] += 1.0
    used = np.flatnonzero(w)
    elo = float(w[used] @ r.theta[used]) * stats.ELO_PER_NAT
    var = float(w[used] @ r.cov[np.ix_(used, used)] @ w[used])
    half = stats.Z95 * math.sqrt(max(var, 0.0)) * stats.ELO_PER_NAT if var == var else NAN
    return elo, elo - half, elo + half


def _pair(agg: Aggregates, a: int, b: int) -> tuple[stats.Moments, bool]:
    """Moments of "a ahead of b" (flipped from the stored lower-index orientation)."""
    lo, hi = (a, b) if a < b else (b, a)
    m = moments_of(agg.pairs[lo, hi])
    if a > b:  # a's share is 1 - (b's share): y -> m - y per unit
        m = stats.Moments(
            m.deals,
            m.sm - m.sy,
            m.sm,
            m.smm - 2 * m.sym + m.syy,
            m.smm,
            m.smm - m.sym,
        )
    return m, a != b


def _head_to_head(agg: Aggregates, order: list[str], by_deal: bool) -> dict[str, Any]:
    idx = {name: i for i, name in enumerate(agg.strategies)}
    cells = []
    for a_name in order:
        for b_name in order:
            if a_name == b_name:
                continue
            m, _ = _pair(agg, idx[a_name], idx[b_name])
            if m.sm == 0:
                continue
            lo, hi = stats.share_interval(m, by_deal)
            cells.append(
                {
                    "a": a_name,
                    "b": b_name,
                    "games": int(m.sm),
                    "share": m.estimate,
                    "low": lo,
                    "high": hi,
                    "se": stats.share_se(m, by_deal),
                }
            )
    return {"order": order, "pairs": cells}


def _convergence(
    standings: list[dict[str, Any]],
    h2h: dict[str, Any],
    scored: int,
    mirrors: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """Neighbours in the ranking: separated or not. A mirror pair (one strategy under
    two names) is expected to overlap: it is marked and does not unsettle the ranking."""
    cells = {(c["a"], c["b"]): c for c in h2h["pairs"]}
    same = {frozenset(pair) for pair in mirrors}
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
        mirror = frozenset((upper["strategy"], lower["strategy"])) in same
        pairs.append(
            {
                "upper": upper["strategy"],
                "lower": lower["strategy"],
                "places": [upper["place"], lower["place"]],
                "overlap": overlap,
                "mirror": mirror,
                "head_to_head": cell["share"] if cell else NAN,
                "head_to_head_games": cell["games"] if cell else 0,
                "los": stats.los(cell["share"], cell["se"]) if cell else NAN,
                # Only for two entrants that meet: more games of a gauntlet never bring
                # two field entrants that never play each other closer to an answer.
                # Nor for a mirror pair: no number of games separates a strategy from itself.
                "games_needed": needed if overlap and cell and not mirror else NAN,
            }
        )
    ranked_pairs = [p for p in pairs if not p["mirror"]]
    settled = bool(ranked_pairs) and all(p["overlap"] is False for p in ranked_pairs)
    return {"settled": settled, "neighbours": pairs}


def _seats(agg: Aggregates, by_deal: bool) -> dict[str, Any]:
    n = agg.info.players
    overall = []
    for seat in range(n):
        m = moments_of(agg.seat[seat])
        lo, hi = stats.share_interval(m, by_deal)
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
            lo, hi = stats.share_interval(m, by_deal)
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


def _curve(agg: Aggregates, by_deal: bool) -> dict[str, Any]:
    """Cumulative win share per strategy at each deal bucket, with its interval: points
    ``[games, share, low, high, units]`` (units: deals, or games with independent dice)."""
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
            lo, hi = stats.share_interval(m, by_deal)
            points.append([int(m.sm), m.estimate, lo, hi, int(m.deals)])
        out["series"][name] = points
    return out


def _every(games: int) -> str:
    """``its one game`` or ``every one of its 1,200 games``."""
    return "its one game" if games == 1 else f"every one of its {games:,} games"


def _none_of(games: int) -> str:
    """That no stored game finished: the one, or none of the N."""
    if games == 1:
        return "The one game stored did not finish (it hit the turn cap)"
    return f"None of the {games:,} games finished (all hit the turn cap)"


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
        msgs.append(f"{_none_of(g['stored'])}: no results.")
        return msgs
    if g["turn_cap"]:
        msgs.append(
            f"{plural(g['turn_cap'], 'game')} hit the turn cap unfinished: excluded from every "
            "statistic and listed in the report."
        )
    if g["forfeit"]:
        msgs.append(
            f"{plural(g['forfeit'], 'game')} ended in a forfeit: scored as played, the forfeiting "
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
    deals = min((r["units"] for r in playing), default=0)  # "units": the JSON key stays
    if deals < FEW_UNITS:
        what = "deals" if out["run"]["dice"] == "duplicate" else "games"
        msgs.append(
            f"Few {what} ({int(deals)} for the least-played strategy): intervals are wide "
            "and rough; play more games before drawing conclusions."
        )
    conv = out["convergence"]
    if out["gauntlet"] is not None:
        msgs.append(gauntlet_message(out["gauntlet"]))
    elif len(playing) > 1:
        mirrored = [c for c in conv["neighbours"] if c["mirror"]]
        over = [c for c in conv["neighbours"] if c["overlap"] is not False and not c["mirror"]]
        if conv["settled"]:
            apart = ", mirror pairs apart" if mirrored else ""
            msgs.append(f"The ranking is settled: no two neighbours' 95% intervals overlap{apart}.")
        elif over:
            text = "; ".join(f"{c['places'][0]} and {c['places'][1]}" for c in over)
            msgs.append(f"Not settled: the 95% intervals of places {text} overlap.")
        if mirrored:
            text = "; ".join(f"{c['places'][0]} and {c['places'][1]}" for c in mirrored)
            msgs.append(
                f"Places {text} are a mirror match (one strategy under two names): they are "
                "not ranked against each other (see the mirror matches)."
            )
    msgs += [mirror_message(m) for m in out["mirrors"]]
    return msgs
