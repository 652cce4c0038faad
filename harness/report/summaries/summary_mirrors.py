"""The summary's mirror matches: one strategy under two names, whose halves should agree.

Two entrants are one strategy when reference, class, parameters and code digest agree
(:func:`mirror_key`, :func:`mirror_pairs`). Their difference is paired by deal of the run
(one more pass over the games, :func:`_deal_totals`), with a cluster-robust interval
(:func:`diff_of_shares`). Part of :func:`harness.report.summaries.summary.summarise`.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from harness import stats
from harness.errors import plural
from harness.report.pages.formats import pct as _pct
from harness.report.pages.formats import points as _points
from harness.report.summaries.aggregate import Aggregates
from harness.runfolder.games import iter_batches, read_columns
from harness.runfolder.reader import RunInfo
from harness.runfolder.schema import STATUSES, TURN_CAP, seat_column
from harness.stats import NAN


# -- mirror matches: one strategy under two names ---------------------------------------------
def mirror_key(entrant: dict[str, Any]) -> str | None:
    """What makes two entrants the same strategy: reference, class, parameters, code digest.

    None for an entrant run.json does not identify (no reference): it mirrors nobody.
    """
    ref = entrant.get("ref")
    if not isinstance(ref, str) or not ref:
        return None
    params = entrant.get("params") or {}
    return json.dumps(
        [ref, entrant.get("class"), params, entrant.get("code")], sort_keys=True, default=str
    )


def mirror_pairs(entrants: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Every pair of entrants with the same strategy identity and different display names."""
    groups: dict[str, list[str]] = {}
    for e in entrants:
        key, name = mirror_key(e), e.get("name")
        if key is not None and isinstance(name, str) and name not in groups.get(key, []):
            groups.setdefault(key, []).append(name)
    return [
        (names[i], names[j])
        for names in groups.values()
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]


def diff_of_shares(
    ya: np.ndarray, ma: np.ndarray, yb: np.ndarray, mb: np.ndarray, confidence: float = 0.95
) -> dict[str, float]:
    """The difference of two shares ``sum(ya)/sum(ma) - sum(yb)/sum(mb)`` over paired units.

    Unit d (a deal of the run) holds both halves' totals, so their covariance counts: the
    variance is the cluster-robust (linearised ratio) one of the difference, with a t
    quantile on units - 1 degrees of freedom, as for every share of the report.
    """
    used = (ma + mb) > 0
    ya, ma, yb, mb = ya[used], ma[used], yb[used], mb[used]
    k = int(used.sum())
    out = {"diff": NAN, "se": NAN, "low": NAN, "high": NAN, "units": float(k)}
    if ma.sum() <= 0 or mb.sum() <= 0:
        return out
    ra, rb = ya.sum() / ma.sum(), yb.sum() / mb.sum()
    out["diff"] = float(ra - rb)
    if k < 2:
        return out
    e = (ya - ra * ma) / ma.sum() - (yb - rb * mb) / mb.sum()
    se = math.sqrt(float((e * e).sum()) * k / (k - 1))
    t = stats.t_quantile(confidence, k - 1)
    out.update(se=se, low=out["diff"] - t * se, high=out["diff"] + t * se)
    return out


def _deal_totals(info: RunInfo, names: set[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per deal of the run: each named strategy's win points and games (turn caps left out).

    One more pass over the games, made only for a run with a mirror: a deal of the run is
    the unit (every table's games of deal d share its dice), so the halves' totals are
    summed per deal number. Memory grows with the number of deals, not games.
    """
    n = info.players
    ys = {name: np.zeros(0) for name in names}
    ms = {name: np.zeros(0) for name in names}
    for games in iter_batches(info, read_columns(n, "ratings")):
        games = games.select(~games.matches("status", STATUSES[TURN_CAP]))
        if not len(games):
            continue
        deal = games.number("deal").astype(np.int64)
        size = int(deal.max()) + 1
        ranks = games.numbers([seat_column(i, "rank") for i in range(n)], np.int64)
        firsts = (ranks == 1).sum(axis=1)
        points = np.where(ranks == 1, 1.0 / np.maximum(firsts, 1)[:, None], 0.0)
        for i in range(n):
            codes, seated = games.labels(seat_column(i, "strategy"))
            for name in names:
                mine = codes == seated.index(name) if name in seated else codes < 0
                if not mine.any():
                    continue
                y = np.bincount(deal[mine], weights=points[mine, i], minlength=size)
                m = np.bincount(deal[mine], minlength=size).astype(float)
                ys[name], ms[name] = _add_grown(ys[name], y), _add_grown(ms[name], m)
    return {name: (ys[name], ms[name]) for name in names}


def _add_grown(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    size = max(len(a), len(b))
    out = np.zeros(size)
    out[: len(a)] += a
    out[: len(b)] += b
    return out


def _symmetric(tables: dict[str, list[str]], a: str, b: str) -> bool:
    """Whether swapping a and b maps the run's tables onto themselves (a round robin).

    Only then do the two halves meet the same opponents as often, so that their win
    shares estimate the same number; in a gauntlet they do not.
    """
    found = {frozenset(t) for t in tables.values()}
    swap = {a: b, b: a}
    return {frozenset(swap.get(x, x) for x in t) for t in found} == found


def mirror_section(agg: Aggregates, h2h: dict[str, Any]) -> list[dict[str, Any]]:
    """For each mirror pair: the difference of the halves' win shares and their head to head."""
    pairs = [(a, b) for a, b in mirror_pairs(agg.info.entrants) if a in agg.strategies]
    pairs = [(a, b) for a, b in pairs if b in agg.strategies]
    if not pairs:
        return []
    info = agg.info
    seating = info.config.get("seating")
    ordered = info.players >= 3 and seating not in ("balanced", "permutations")
    cells = {(c["a"], c["b"]): c for c in h2h["pairs"]}
    comparable = [(a, b) for a, b in pairs if _symmetric(agg.tables, a, b)]
    totals = _deal_totals(info, {x for pair in comparable for x in pair}) if comparable else {}
    out = []
    for a, b in pairs:
        entry: dict[str, Any] = {"a": a, "b": b, "seating": seating or "cyclic"}
        if (a, b) in comparable:
            d = diff_of_shares(*totals[a], *totals[b])
            entry["share"] = {**d, "holds_zero": _holds(d["low"], d["high"], 0.0)}
            entry["share_note"] = ""
        else:
            entry["share"] = None
            entry["share_note"] = (
                "their tables differ (one meets opponents the other does not), so their "
                "win shares measure different things: only their head to head compares them"
            )
        c = cells.get((a, b))
        entry["head_to_head"] = (
            {
                "games": c["games"],
                "share": c["share"],
                "low": c["low"],
                "high": c["high"],
                "holds_half": _holds(c["low"], c["high"], 0.5),
            }
            if c
            else None
        )
        entry["seat_order_note"] = (
            f"{seating or 'cyclic'} seating at {info.players} players keeps the halves' "
            "relative turn order at each table they share, so the comparison carries that "
            "order's advantage; balanced seating removes it"
            if ordered and c
            else ""
        )
        checks = [x for x in (entry["share"], entry["head_to_head"]) if x]
        held = [x.get("holds_zero", x.get("holds_half")) for x in checks]
        entry["agree"] = None if not held or None in held else all(held)
        # Identical: every deal gave both halves exactly the same (a strategy whose play
        # depends only on the dice and the game does, with balanced seating).
        entry["identical"] = (
            bool(checks) and all(x["low"] == x["high"] for x in checks) and all(held)
        )
        out.append(entry)
    return out


def _holds(low: float, high: float, value: float) -> bool | None:
    if math.isnan(low) or math.isnan(high):
        return None
    return bool(low <= value <= high)


def mirror_message(m: dict[str, Any]) -> str:
    """One sentence on a mirror pair: do the two halves of one strategy agree?"""
    said = []
    share = m["share"]
    if share and not math.isnan(share["diff"]):
        said.append(
            f"win shares differ by {_points(share['diff'])} (95% CI {_points(share['low'])} "
            f"to {_points(share['high'])})"
        )
    h2h = m["head_to_head"]
    if h2h:
        said.append(
            f"{m['a']} finished ahead of {m['b']} in {_pct(h2h['share'])} of their "
            f"{plural(h2h['games'], 'game')} together (95% CI {_pct(h2h['low'])} to "
            f"{_pct(h2h['high'])})"
        )
    head = f"Mirror match {m['a']} / {m['b']} (one strategy under two names)"
    if m["agree"] is None:
        return f"{head}: too few games to check that the halves agree."
    if m["identical"]:
        games = f" of their {plural(h2h['games'], 'game')} together" if h2h else ""
        return (
            f"{head}: the halves agree exactly: identical results on every deal{games} "
            "(the same strategy on the same dice, in every seat order)."
        )
    text = f"{head}: " + "; ".join(said)
    if m["agree"]:
        return text + ": the halves agree (every interval holds no difference)."
    return text + (
        ": the halves DISAGREE. By chance alone a 95% interval misses in 1 check of 20; "
        "otherwise look for a seat-order advantage, or for play that depends on the "
        "entrant's name or on state kept between games."
    )
