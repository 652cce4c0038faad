"""The charts of one run, each drawn from its summary (:mod:`harness.report.summaries.summary`).

``figure_X(summary)`` is one titled, labelled :class:`~.chart_style.Chart`, or None when
the run has nothing to draw for it. Strategies keep the config's order
(:func:`in_config_order`, never a rank order, which would move bars between runs) and
their colours (:mod:`harness.report.charts.colours`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from harness.errors import plural
from harness.report.charts.chart_style import (
    BAND_ALPHA,
    FAIR,
    LINE_STYLES,
    STYLE,
    Chart,
    as_float,
    error_bars,
    run_title,
    share_axis,
    zoom_points,
    zoom_window,
)
from harness.report.charts.colours import colours_for
from harness.report.order import config_order
from harness.report.summaries.summary import FEW_UNITS


def _end(row: dict[str, Any], key: str, high: str) -> float:
    """Where a bar's label goes: past its error bar, or past the bar without one."""
    return as_float(row[high]) if row[high] is not None else as_float(row[key])


def _played(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The strategies with scored games, in the config's order (:func:`in_config_order`)."""
    rows = {r["strategy"]: r for r in summary["standings"] if r["games"]}
    rows = {k: r for k, r in rows.items() if r["win_share"] is not None}
    return [rows[n] for n in in_config_order(summary, rows)]


def in_config_order(summary: dict[str, Any], names: Iterable[str]) -> list[str]:
    """``names`` in the config's order: the one order of every chart of a run, so that
    two runs' charts put each strategy in the same place (a rank order would not)."""
    return config_order(summary["run"].get("entrants"), names)


def _colours(summary: dict[str, Any]) -> dict[str, str]:
    """The run's colours: every entrant of the run apart from every other."""
    names = {r["strategy"] for r in summary["standings"]}
    names |= {e["name"] for e in summary["run"].get("entrants") or [] if isinstance(e, dict)}
    return colours_for(n for n in names if isinstance(n, str))


def _subtitle(summary: dict[str, Any]) -> str:
    run, games = summary["run"], summary["games"]
    scored = plural(games["scored"], "game")
    return f"{run_title(run)}\n{run['rules_text']} · {scored} · {run['dice']} dice"


def _bars_with_ci(
    ax: Any,
    y: np.ndarray,
    rows: list[dict[str, Any]],
    colors: list[str],
    key: str,
    low: str,
    high: str,
    label: str,
    texts: list[str] | None = None,
) -> None:
    """Horizontal bars of ``key`` with their 95% interval and a value label past each.

    The label is ``label`` formatted with the value, or the row's own text from ``texts``.
    """
    values = [as_float(r[key]) for r in rows]
    ax.barh(y, values, color=colors, alpha=0.85, height=0.6)
    ax.errorbar(
        values,
        y,
        xerr=error_bars(rows, key, low, high),
        fmt="none",
        ecolor="black",
        capsize=4,
        lw=1.2,
    )
    for i, (yi, r) in enumerate(zip(y, rows, strict=True)):
        text = texts[i] if texts is not None else label.format(as_float(r[key]))
        ax.text(_end(r, key, high), yi, "  " + text, va="center", fontsize=9)


def figure_standings(summary: dict[str, Any]) -> Figure | None:
    """Win share and mean worms per strategy with 95% intervals, in the config's order;
    where the field is close, a third panel zooms on the win shares around the fair
    share (its scale from a fixed ladder, said on its axis: :func:`zoom_window`).

    Not for a gauntlet: its field's win shares are against different opponents, and the
    challenger's own chart (:func:`plot_gauntlet`) says what the run measured.
    """
    rows = _played(summary)
    if not rows or summary.get("gauntlet"):
        return None
    names = [r["strategy"] for r in rows]
    colour = _colours(summary)
    y = np.arange(len(rows))[::-1]
    fair = summary["seats"]["fair_share"]
    half = zoom_window([as_float(r["win_share"]) for r in rows], fair)
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(11 if half is None else 15, 1.5 + 0.5 * len(rows)))
        axes = fig.subplots(1, 2 if half is None else 3, sharey=True, squeeze=True)
        ax1, ax2 = axes[0], axes[-1]
        cols = [colour[n] for n in names]
        _bars_with_ci(ax1, y, rows, cols, "win_share", "win_low", "win_high", "{:.1%}")
        ax1.axvline(fair, color=FAIR, ls="--", lw=1)
        ax1.text(
            fair,
            -0.75,
            f" fair share 1/{summary['run']['players']}",
            color=FAIR,
            fontsize=8,
            va="bottom",
        )
        ax1.set_ylim(-0.8, len(rows) - 0.4)
        share_axis(ax1, "win share (shared wins split), 95% CI")
        ax1.set_yticks(y, names)
        ax1.set_title("Win share")
        if half is not None:
            keys = ("win_share", "win_low", "win_high")
            zoom_points(axes[1], y, rows, cols, keys, fair, half)
            axes[1].set_title(f"Win share, zoomed (± {half * 100:.0f} points)")
        _bars_with_ci(ax2, y, rows, cols, "worms", "worms_low", "worms_high", "{:.2f}")
        ax2.set_xlim(0, max(1.0, *(_end(r, "worms", "worms_high") for r in rows)) * 1.18)
        ax2.set_xlabel("worms at the end of a game (mean), 95% CI")
        ax2.set_title("Mean worms")
        fig.suptitle(f"Standings\n{_subtitle(summary)}", fontsize=11)
        fig.tight_layout()
        return fig


def figure_head_to_head(summary: dict[str, Any]) -> Figure | None:
    """Heatmap: the share of games in which the row strategy finished ahead of the column."""
    h2h = summary["head_to_head"]
    order = in_config_order(summary, h2h["order"])
    if len(order) < 2 or not h2h["pairs"]:
        return None
    k = len(order)
    idx = {name: i for i, name in enumerate(order)}
    grid = np.full((k, k), np.nan)
    text = {}
    for c in h2h["pairs"]:
        i, j = idx[c["a"]], idx[c["b"]]
        grid[i, j] = c["share"]
        ci = f"\n{c['low'] * 100:.0f}–{c['high'] * 100:.0f}" if c["low"] is not None else ""
        text[i, j] = f"{c['share'] * 100:.0f}%{ci if k <= 8 else ''}"
    with matplotlib.rc_context({**STYLE, "axes.grid": False}):
        size = 2.2 + 0.85 * k
        fig = Chart(figsize=(size + 1.6, size))
        ax = fig.subplots()
        cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#eeeeee")
        im = ax.imshow(grid, cmap=cmap, vmin=0, vmax=1)
        for (i, j), label in text.items():
            dark = abs(grid[i, j] - 0.5) > 0.3
            ax.text(
                j,
                i,
                label,
                ha="center",
                va="center",
                fontsize=9 if k <= 8 else 7,
                color="white" if dark else "black",
            )
        for i in range(k):
            ax.text(i, i, "—", ha="center", va="center", color="#999999")
        ax.set_xticks(range(k), order, rotation=35, ha="right")
        ax.set_yticks(range(k), order)
        ax.set_xlabel("opponent")
        ax.set_ylabel("strategy")
        cbar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        cbar.set_label("share of games finished ahead of the opponent")
        ax.set_title(
            f"Head to head: share of games the row finished ahead of the column\n"
            f"(second line: 95% CI, %)\n{_subtitle(summary)}",
            fontsize=10,
        )
        fig.tight_layout()
        return fig


def figure_worms(summary: dict[str, Any]) -> Figure | None:
    """Violins of the worms each strategy ended its games with, mean and median marked."""
    rows = _played(summary)
    hist = summary["worm_histogram"]
    rows = [r for r in rows if sum(hist.get(r["strategy"], [])) > 0]
    if not rows:
        return None
    colour = _colours(summary)
    values = np.arange(len(next(iter(hist.values()))))
    stats_list = []
    top = 0
    for r in rows:
        counts = np.asarray(hist[r["strategy"]], dtype=float)
        pmf = counts / counts.sum()
        nz = np.flatnonzero(counts)
        top = max(top, int(nz.max()))
        bw = 0.9  # worms are whole numbers: a light smoothing shows the shape, not spikes
        coords = np.linspace(0, nz.max() + 3 * bw, 400)
        dens = (pmf[None, :] * np.exp(-0.5 * ((coords[:, None] - values) / bw) ** 2)).sum(1)
        cdf = np.cumsum(pmf)
        stats_list.append(
            {
                "coords": coords,
                "vals": dens,
                "mean": float((pmf * values).sum()),
                "median": float(values[np.searchsorted(cdf, 0.5)]),
                "min": float(nz.min()),
                "max": float(nz.max()),
            }
        )
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(max(7.0, 1.4 * len(rows) + 2), 5))
        ax = fig.subplots()
        parts = ax.violin(
            stats_list,
            positions=range(len(rows)),
            widths=0.85,
            showmeans=True,
            showmedians=True,
            showextrema=False,
        )
        for body, r in zip(parts["bodies"], rows, strict=True):
            body.set_facecolor(colour[r["strategy"]])
            body.set_edgecolor("black")
            body.set_alpha(0.75)
        for key in ("cmeans", "cmedians", "cmins", "cmaxes", "cbars"):
            if key in parts:
                parts[key].set_color("black")
                parts[key].set_linewidth(0.8)
        parts["cmeans"].set_linestyle("--")
        ax.set_xticks(range(len(rows)), [r["strategy"] for r in rows], rotation=20, ha="right")
        ax.set_ylim(-0.5, top + 3.5)
        ax.set_ylabel("worms at the end of a game")
        ax.set_title(
            f"Worm-score distribution per strategy (solid: median, dashed: mean)\n"
            f"{_subtitle(summary)}",
            fontsize=10,
        )
        fig.tight_layout()
        return fig


def _games_tick(value: float, _pos: Any = None) -> str:
    """A tick of a games axis, written out: ``1,000`` (never mathtext's 10^3)."""
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def _readable(points: list[list[Any]]) -> list[list[Any]]:
    """The points of a convergence series worth drawing: from where the strategy has
    :data:`~harness.report.summaries.summary.FEW_UNITS` units on (before, a band spans most of
    the axis and says nothing); all of them when it never gets there."""
    units = [p[4] if len(p) > 4 else None for p in points]
    if any(u is None for u in units) or units[-1] < FEW_UNITS:
        return points
    return [p for p, u in zip(points, units, strict=True) if u >= FEW_UNITS]


def figure_convergence(summary: dict[str, Any]) -> Figure | None:
    """Cumulative win share against games played, with the 95% band narrowing.

    Drawn from each strategy's 30th unit (deal) on, where the intervals start to mean
    something; the bands are light so that overlapping ones stay readable.
    """
    series = {k: _readable(v) for k, v in summary["curve"]["series"].items() if len(v) >= 2}
    series = {k: v for k, v in series.items() if len(v) >= 2}
    if not series:
        return None
    colour = _colours(summary)
    what = "deals" if summary["run"].get("dice") == "duplicate" else "games"
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(10.5, 5))
        ax = fig.subplots()
        most, least = 1, None
        for k, name in enumerate(in_config_order(summary, series)):
            arr = np.array([[as_float(x) for x in p[:4]] for p in series[name]])
            games, share, lo, hi = arr.T
            most = max(most, int(games.max()))
            least = int(games.min()) if least is None else min(least, int(games.min()))
            # Thin lines tell colours apart less well than bars: a dash pattern each too.
            style = LINE_STYLES[k % len(LINE_STYLES)]
            ax.plot(games, share, color=colour[name], lw=1.8, ls=style, label=name)
            ax.fill_between(games, lo, hi, color=colour[name], alpha=BAND_ALPHA, lw=0)
            ax.plot(games, lo, color=colour[name], lw=0.5, alpha=0.5)
            ax.plot(games, hi, color=colour[name], lw=0.5, alpha=0.5)
        ax.axhline(summary["seats"]["fair_share"], color=FAIR, ls="--", lw=1)
        if least and most > 50 * least:
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.xaxis.set_major_formatter(FuncFormatter(_games_tick))
        ax.set_xlabel(
            f"games played by the strategy (from its {FEW_UNITS}th {what[:-1]} on: "
            "before, the intervals are too wide to read)"
        )
        share_axis(ax, "win share so far (95% CI band)", vertical=True)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
        ax.set_title(f"Win share vs games played\n{_subtitle(summary)}", fontsize=10)
        fig.tight_layout(rect=(0, 0, 0.8, 1))  # room on the right for the legend
        return fig


def figure_seats(summary: dict[str, Any]) -> Figure | None:
    """Win share by seat: overall (the first player's edge) and per strategy."""
    seats = summary["seats"]
    overall = [s for s in seats["overall"] if s["games"]]
    if not overall:
        return None
    n = len(seats["overall"])
    fair = seats["fair_share"]
    colour = _colours(summary)
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(12, 4.8))
        ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 2.2]})
        x = [s["seat"] for s in overall]
        share = [as_float(s["share"]) for s in overall]
        ax1.bar(x, share, color="#5b7fa6", width=0.6)
        ax1.errorbar(
            x,
            share,
            yerr=error_bars(overall, "share", "low", "high"),
            fmt="none",
            ecolor="black",
            capsize=4,
        )
        for xi, v in zip(x, share, strict=True):
            ax1.text(xi, v / 2, f"{v:.1%}", ha="center", color="white", fontsize=9)
        ax1.axhline(fair, color=FAIR, ls="--", lw=1)
        ax1.set_xticks(range(n), [f"seat {i}" + (" (starts)" if i == 0 else "") for i in range(n)])
        share_axis(ax1, "win share, 95% CI", vertical=True)
        ax1.set_title("All strategies")
        played = [r["strategy"] for r in summary["standings"] if r["games"]]
        names = in_config_order(summary, played)
        width = 0.8 / max(len(names), 1)
        cells = {(c["strategy"], c["seat"]): c for c in seats["by_strategy"]}
        for k, name in enumerate(names):
            rows = [cells.get((name, i)) for i in range(n)]
            xs = [i - 0.4 + width * (k + 0.5) for i in range(n) if rows[i]]
            got = [r for r in rows if r]
            ax2.bar(
                xs,
                [as_float(r["share"]) for r in got],
                width=width * 0.95,
                color=colour[name],
                label=name,
            )
            ax2.errorbar(
                xs,
                [as_float(r["share"]) for r in got],
                yerr=error_bars(got, "share", "low", "high"),
                fmt="none",
                ecolor="black",
                capsize=2,
                lw=0.8,
            )
        ax2.axhline(fair, color=FAIR, ls="--", lw=1)
        ax2.set_xticks(range(n), [f"seat {i}" for i in range(n)])
        share_axis(ax2, "win share, 95% CI", vertical=True)
        ax2.set_title("Per strategy")
        ax2.legend(fontsize=8, frameon=False, ncols=min(4, len(names)), loc="upper right")
        fig.suptitle(
            f"Seat advantage (dashed: fair share 1/{n})\n{_subtitle(summary)}", fontsize=11
        )
        fig.tight_layout()
        return fig


def figure_ratings(summary: dict[str, Any]) -> Figure | None:
    """Ratings on the Elo scale with 95% intervals, in the config's order."""
    rows = [r for r in _played(summary) if r.get("elo") is not None]
    if len(rows) < 2:
        return None
    colour = _colours(summary)
    y = np.arange(len(rows))[::-1]
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(8, 1.6 + 0.45 * len(rows)))
        ax = fig.subplots()
        for yi, r in zip(y, rows, strict=True):
            err = error_bars([r], "elo", "elo_low", "elo_high")
            ax.errorbar(
                r["elo"],
                yi,
                xerr=err,
                fmt="o",
                color=colour[r["strategy"]],
                ecolor=colour[r["strategy"]],
                capsize=4,
                ms=7,
                lw=2,
            )
            ax.annotate(
                f"{r['elo']:+.0f}",
                (r["elo"], yi),
                xytext=(0, 7),
                textcoords="offset points",
                ha="center",
                fontsize=8,
            )
        ax.axvline(0, color=FAIR, ls="--", lw=1)
        ax.set_yticks(y, [r["strategy"] for r in rows])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        field = summary["ratings"].get("centre") == "field"  # a gauntlet: on its field
        zero = "0 = the field's average" if field else "0 = average entrant"
        ax.set_xlabel(f"rating (Elo scale, {zero}), 95% CI")
        model = summary["ratings"].get("model") or ""
        indirect = (summary.get("ranking") or {}).get("indirect")
        tag = " (gauntlet: the field's order is indirect)" if indirect else ""
        ax.set_title(f"Ratings: {model}{tag}\n{_subtitle(summary)}", fontsize=10)
        fig.tight_layout()
        return fig


def figure_gauntlet(summary: dict[str, Any]) -> Figure | None:
    """A gauntlet: the challenger's head-to-head share against each opponent, 95% CI."""
    g = summary.get("gauntlet")
    rows = [o for o in (g or {}).get("opponents", []) if o["games"] and o["share"] is not None]
    if not g or not rows:
        return None
    who = g["challenger"]
    order = in_config_order(summary, [o["opponent"] for o in rows])
    rows.sort(key=lambda o: order.index(o["opponent"]))
    colour = _colours(summary)
    y = np.arange(len(rows))[::-1]
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(9, 1.7 + 0.5 * len(rows)))
        ax = fig.subplots()
        colours = [colour[o["opponent"]] for o in rows]
        texts = [
            f"{o['share']:.1%}" + (f" ({o['elo']:+.0f} Elo)" if o["elo"] is not None else "")
            for o in rows
        ]
        _bars_with_ci(ax, y, rows, colours, "share", "low", "high", "", texts)
        ax.axvline(0.5, color=FAIR, ls="--", lw=1)
        share_axis(ax, f"share of games {who} finished ahead of the opponent, 95% CI")
        ax.set_xlim(0, 1.3)  # room for "(+123 Elo)" past a share near 1
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.set_yticks(y, [o["opponent"] for o in rows])
        ax.set_title(
            f"Gauntlet: {who} against each opponent (dashed: even)\n{_subtitle(summary)}",
            fontsize=10,
        )
        fig.tight_layout()
        return fig
