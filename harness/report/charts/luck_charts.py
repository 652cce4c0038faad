"""The luck-and-skill chart of one run (docs/luck.md), drawn from its summary.

Three panels that share the strategies' rows (the config's order, as every chart of a
run), each readable at a glance:

* **what luck did to the win share**: each strategy's luck-adjusted win share in points
  from its raw one, with its 95% interval, over the raw interval drawn as a grey band
  around 0; a dot off 0 is the luck the dice gave, a bar narrower than its band is what
  the adjustment gains. The raw and adjusted shares are written beside it, and the share
  of its games the adjustment rests on where not all of them kept the account;
* **regret by decision**: the worms of swing a strategy's picks, stops and claims lost
  against the exact turn optimum per game, stacked in greys and hatching (colour says the
  strategy in every chart, never a decision);
* **luck per game**: the spread of a strategy's luck over its games (the middle half as
  a thick bar, 90% as a thin one, the median as a dot), around the 0 every strategy's
  luck has on average.
"""

from __future__ import annotations

from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from harness.report.charts.chart_style import FAIR, STYLE, Chart, as_float
from harness.report.charts.run_charts import _colours, _subtitle, in_config_order
from harness.report.pages.formats import DASH
from harness.report.pages.standings_text import adjusted_on

# The decisions' fills: near-black, hatched white and near-white, where no strategy's
# colour lies (every strategy colour keeps its distance from black and from white).
DECISION_STYLE = {
    "pick": {"facecolor": "#333333"},
    "stop": {"facecolor": "white", "hatch": "////"},
    "claim": {"facecolor": "#cfcfcf"},
}
RAW_BAND = "#d9d9d9"  # the raw 95% interval behind the adjusted one


def luck_quantiles(counts: list[float], edges: list[float], qs: tuple[float, ...]) -> list[float]:
    """Quantiles of a luck histogram (one bin per worm of luck between ``edges``, one
    below the first and one past the last edge), interpolated within a bin."""
    counts_ = np.asarray(counts, dtype=float)
    total = counts_.sum()
    if total <= 0:
        return [float("nan")] * len(qs)
    edge = np.asarray(edges, dtype=float)
    step = float(edge[1] - edge[0]) if len(edge) > 1 else 1.0
    bounds = np.concatenate([[edge[0] - step], edge, [edge[-1] + step]])
    cum = np.concatenate([[0.0], np.cumsum(counts_)]) / total
    out = []
    for q in qs:
        i = int(np.searchsorted(cum, q, side="left"))
        i = min(max(i, 1), len(counts_))
        inside = counts_[i - 1] / total
        frac = (q - cum[i - 1]) / inside if inside > 0 else 0.5
        out.append(float(bounds[i - 1] + frac * (bounds[i] - bounds[i - 1])))
    return out


def _what_luck_did(ax: Any, y: np.ndarray, rows: list[dict[str, Any]], colours: dict) -> None:
    """Adjusted minus raw, in points, over the raw interval as a band around 0."""
    reach = 1.0
    for yi, row in zip(y, rows, strict=True):
        raw = as_float(row["win_share"])
        lo, hi = as_float(row["win_low"]) - raw, as_float(row["win_high"]) - raw
        adj = as_float(row.get("win_adj")) - raw
        alo, ahi = as_float(row.get("win_adj_low")) - raw, as_float(row.get("win_adj_high")) - raw
        ax.barh(yi, (hi - lo) * 100, left=lo * 100, height=0.5, color=RAW_BAND, lw=0)
        colour = colours[row["strategy"]]
        err = [[max(adj - alo, 0) * 100], [max(ahi - adj, 0) * 100]]
        ax.errorbar(adj * 100, yi, xerr=err, fmt="o", color=colour, ecolor=colour, capsize=3)
        reach = max(reach, *(abs(x) * 100 for x in (lo, hi, alo, ahi) if x == x))
    ax.axvline(0, color=FAIR, ls="--", lw=1)
    ax.set_xlim(-reach * 1.15, reach * 1.15)
    for yi, row in zip(y, rows, strict=True):
        on = adjusted_on(row)
        ax.annotate(
            f"{as_float(row.get('win_adj')):.1%} (raw {as_float(row['win_share']):.1%})"
            + ("" if on in ("100%", DASH) else f"\nadjusted on {on} of its games"),
            (1.0, yi),
            xycoords=("axes fraction", "data"),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_xlabel("luck-adjusted minus raw win share (points), 95% CI;\ngrey: the raw 95% CI")
    ax.set_title("What luck did to the win share")


def _regret(ax: Any, y: np.ndarray, rows: list[dict[str, Any]]) -> None:
    left = np.zeros(len(rows))
    for kind, style in DECISION_STYLE.items():
        values = np.array([as_float(r["by_kind"][kind]["regret_per_game"]) for r in rows])
        values = np.nan_to_num(values)
        ax.barh(y, values, left=left, height=0.6, lw=0.6, **{"edgecolor": "#333333", **style})
        left += values
    for yi, total in zip(y, left, strict=True):
        ax.text(total, yi, f"  {total:.2f}", va="center", fontsize=9)
    ax.set_xlim(0, max(1.0, float(left.max())) * 1.25)
    ax.set_xlabel("worms of swing lost per game against the turn optimum")
    ax.set_title("Regret by decision")
    handles = [Patch(label=k, **{"edgecolor": "#333333", **v}) for k, v in DECISION_STYLE.items()]
    ax.legend(handles=handles, fontsize=8, loc="lower right", frameon=True, framealpha=0.9)


def _luck_spread(
    ax: Any, y: np.ndarray, names: list[str], luck: dict[str, Any], colours: dict
) -> None:
    edges = luck["histogram"]["edges"]
    for yi, name in zip(y, names, strict=True):
        counts = luck["histogram"]["counts"].get(name)
        if not counts or sum(counts) <= 0:
            continue
        p5, p25, p50, p75, p95 = luck_quantiles(counts, edges, (0.05, 0.25, 0.5, 0.75, 0.95))
        colour = colours[name]
        ax.plot([p5, p95], [yi, yi], color=colour, lw=1.2, solid_capstyle="butt")
        ax.plot([p25, p75], [yi, yi], color=colour, lw=7, solid_capstyle="butt", alpha=0.8)
        ax.plot(p50, yi, "o", color="white", mec=colour, ms=6)
    ax.axvline(0, color=FAIR, ls="--", lw=1)
    ax.set_xlabel("luck in a game (worms of swing): middle half, 90%, median")
    ax.set_title("Luck per game")


def figure_luck(summary: dict[str, Any]) -> Figure | None:
    """Luck and skill (docs/luck.md): what luck did to each strategy's win share, its
    regret by decision kind, and the spread of its luck per game (the module's panels).
    None when no game kept the account."""
    luck = summary.get("luck")
    if not luck:
        return None
    by_name = {r["strategy"]: r for r in summary["standings"]}
    accounted = {r["strategy"]: r for r in luck["standings"] if r["games_accounted"]}
    accounted = {n: r for n, r in accounted.items() if n in by_name}
    if not accounted:
        return None
    names = in_config_order(summary, accounted)  # the one order of every chart of a run
    rows = [accounted[n] for n in names]
    colours = _colours(summary)
    y = np.arange(len(rows))[::-1]
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(15, 2.3 + 0.5 * len(rows)))
        ax1, ax2, ax3 = fig.subplots(1, 3, sharey=True)
        _what_luck_did(ax1, y, [by_name[n] for n in names], colours)
        ax1.set_yticks(y, names)
        ax1.set_ylim(-0.7, len(rows) - 0.3)
        _regret(ax2, y, rows)
        _luck_spread(ax3, y, names, luck, colours)
        share = as_float(luck.get("accounted"))
        kept = (
            ""
            if share != share or share >= 1
            else f"\nregret and luck per game: over the games that kept the luck account "
            f"({share:.0%} of the games)"
        )
        fig.suptitle(f"Luck and skill\n{_subtitle(summary)}{kept}", fontsize=11)
        fig.tight_layout(w_pad=9)  # room for the shares written past the first panel
        return fig
