"""The report's luck and skill: luck-adjusted estimates and each strategy's account.

From the :class:`~harness.report.summaries.aggregate.Aggregates` of a run whose games kept the
account (docs/luck.md): beside each raw estimate its luck-adjusted twin (the same
quantity, the dice's share taken out by a control of mean zero whose coefficient is
cross-fitted on the other half of the deals: unbiased by construction, see
:mod:`harness.stats.luck`) with its interval, clustered by deal as every interval is;
and each strategy's account: par, luck and regret per turn and per decision kind, how
often it errs, and the distribution of its luck per game. Pure: numbers in, a JSON-ready
dict out (:func:`luck_summary`); the summary, the terminal and the report read it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from harness import stats
from harness.report.summaries.aggregate import ACCOUNT_SUMS, LUCK_BINS, Aggregates

NAN = float("nan")
_SUM = {name: i for i, name in enumerate(ACCOUNT_SUMS)}


def _share(m: stats.Moments, by_deal: bool) -> tuple[float, float, float, float]:
    """(estimate, low, high, se) of a share: Wilson on the effective games, as the raw."""
    low, high = stats.share_interval(m, by_deal)
    return m.estimate, low, high, stats.share_se(m, by_deal)


def _mean(m: stats.Moments) -> tuple[float, float, float, float]:
    low, high = m.interval()
    return m.estimate, low, high, m.se


def _pair_rows(agg: Aggregates, a: int, b: int) -> stats.ControlMoments:
    """a's head-to-head point against b (stored for the lower index: flipped if needed)."""
    lo, hi = (a, b) if a < b else (b, a)
    cm = stats.ControlMoments(agg.luck_pairs[lo, hi])
    return cm if a < b else cm.flipped()


def accounted(agg: Aggregates) -> bool:
    """Whether any game of the run kept the account."""
    return bool(agg.account.size and agg.account[:, _SUM["games"]].sum() > 0)


def _keyed(key: str, estimate: tuple[float, ...]) -> dict[str, float]:
    """An estimate, its interval and standard error as the standings' keys: ``key``,
    ``key_low``, ``key_high``, ``key_se``."""
    return dict(zip((key, f"{key}_low", f"{key}_high", f"{key}_se"), estimate, strict=True))


def luck_summary(agg: Aggregates, standings: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``luck`` section of the summary, and the adjusted figures added to each
    standings row (``win_adj``, ``margin``, ``margin_adj`` with their intervals, and
    ``luck_games``: the strategy's games that kept the account, the ones adjusted; the
    others enter as played); None when no game kept the account (the rows then get
    nothing)."""
    if not accounted(agg):
        return None
    by_deal = agg.info.by_deal
    idx = {name: s for s, name in enumerate(agg.strategies)}
    rows = []
    for row in standings:
        s = idx[row["strategy"]]
        win = stats.ControlMoments(agg.luck_win[s])
        margin = stats.ControlMoments(agg.luck_margin[s])
        adj = _share(win.adjusted(), by_deal)
        raw_margin, adj_margin = _mean(margin.raw), _mean(margin.adjusted())
        row.update(_keyed("win_adj", adj))
        row.update(_keyed("margin", raw_margin))
        row.update(_keyed("margin_adj", adj_margin))
        account = _account(agg, s)
        row["luck_games"] = account["games_accounted"]  # the games the adjustment covers
        rows.append(
            {
                "strategy": row["strategy"],
                "accounted": win.accounted,
                "win": row["win_share"],
                "win_adj": adj[0],
                "win_gain": win.gain(),
                "win_coef": win.coef,
                "win_correction_z": _z(win.correction()),
                "margin": raw_margin[0],
                "margin_adj": adj_margin[0],
                "margin_gain": margin.gain(),
                "margin_coef": margin.coef,
                "margin_correction_z": _z(margin.correction()),
                **account,
            }
        )
    order = [r["strategy"] for r in standings if r["games"] > 0]
    return {
        "note": (
            "Luck-adjusted estimates: each game's outcome minus b x its seat's luck against "
            "the others' (for shares the win luck's vector where stored, else win-weighted "
            "luck; luck in worms for margins), b fitted "
            "on the other half of the deals (cross-fitting): the same expectation as the raw "
            "estimate, less noise. Gain: how many times the games the raw estimate needs for "
            "the adjusted one's precision. Regret: worms of swing lost against the exact "
            "turn-optimal play (docs/luck.md)."
        ),
        "accounted": _accounted_share(agg),
        "standings": rows,
        "head_to_head": _head_to_head(agg, order, by_deal),
        "histogram": {
            "edges": list(LUCK_BINS),
            "counts": {
                name: agg.luck_hist[idx[name]].astype(int).tolist()
                for name in order
                if agg.account[idx[name], _SUM["games"]] > 0
            },
        },
    }


def _z(correction: stats.Moments) -> float:
    """The adjustment's estimate over its standard error: near 0 (|z| < 3) when the
    adjustment is what it should be, an estimate of zero."""
    se = correction.se
    if math.isnan(se) or se == 0:
        return NAN
    return correction.estimate / se


def _accounted_share(agg: Aggregates) -> float:
    games = agg.account[:, _SUM["games"]].sum()
    total = agg.totals[:, 4].sum()  # TOTALS' "games": seats of scored games
    return float(games / total) if total else NAN


def _account(agg: Aggregates, s: int) -> dict[str, Any]:
    """A strategy's account: means per game, per turn and per decision (nan where none)."""
    a = agg.account[s]
    games, turns = a[_SUM["games"]], a[_SUM["seat_turns"]]

    def per(value: float, count: float) -> float:
        return float(value / count) if count else NAN

    regret = a[_SUM["regret_pick"]] + a[_SUM["regret_stop"]] + a[_SUM["regret_claim"]]
    decisions = a[_SUM["picks"]] + a[_SUM["stops"]] + a[_SUM["claims"]]
    return {
        "games_accounted": int(games),
        "par_per_turn": per(a[_SUM["par"]], turns),
        "luck_per_game": per(a[_SUM["luck"]], games),
        "luck_per_roll": per(a[_SUM["luck"]], a[_SUM["rolls"]]),
        "regret_per_game": per(regret, games),
        "regret_per_turn": per(regret, turns),
        "regret_per_decision": per(regret, decisions),
        "by_kind": {
            kind: {
                "decisions_per_game": per(a[_SUM[count]], games),
                "regret_per_game": per(a[_SUM[f"regret_{kind}"]], games),
                "regret_per_decision": per(a[_SUM[f"regret_{kind}"]], a[_SUM[count]]),
            }
            for kind, count in (("pick", "picks"), ("stop", "stops"), ("claim", "claims"))
        },
    }


def _head_to_head(agg: Aggregates, order: list[str], by_deal: bool) -> list[dict[str, Any]]:
    idx = {name: s for s, name in enumerate(agg.strategies)}
    cells = []
    for a_name in order:
        for b_name in order:
            if a_name == b_name:
                continue
            cm = _pair_rows(agg, idx[a_name], idx[b_name])
            if cm.raw.sm == 0 or cm.accounted == 0 or np.isnan(cm.accounted):
                continue
            share, low, high, se = _share(cm.adjusted(), by_deal)
            cells.append(
                {
                    "a": a_name,
                    "b": b_name,
                    "share": cm.raw.estimate,
                    "share_adj": share,
                    "low": low,
                    "high": high,
                    "se": se,
                    "gain": cm.gain(),
                }
            )
    return cells


__all__ = ["accounted", "luck_summary"]
