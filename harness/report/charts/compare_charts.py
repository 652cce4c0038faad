"""The charts of a comparison of several runs (:mod:`harness.report.comparisons.compare`).

:func:`figure_compare` draws each run's win shares and mean worms side by side;
:func:`figure_compare_diffs` each run's difference from the first run, with its 95%
interval (:data:`IDENTICAL_MARKER` where a difference is exactly 0). Colour says the
strategy, as in every run's report; the run is told by a bar's hatching and a point's
marker, with a legend naming each run.
"""

from __future__ import annotations

import math
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from harness.report.charts.chart_style import (
    FAIR,
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

# In compare charts colour says the strategy (as in every run's report) and the run is
# told by a bar's hatching and a point's marker, with a legend naming each run.
RUN_HATCHES = ("", "///", "...", "xxx", "---", "ooo", "+++")
RUN_MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def _run_label(run: dict[str, Any]) -> str:
    return f"{run['label']}: {run_title(run)}"


def _compare_colours(comparison: dict[str, Any]) -> dict[str, str]:
    """One colour per strategy for every chart of a comparison: every name it has apart."""
    names = [r["strategy"] for r in comparison["strategies"]]
    return colours_for(names + list(comparison.get("not_shared") or []))


def _compare_title(comparison: dict[str, Any], what: str) -> str:
    runs = comparison["runs"]
    shown = " vs ".join(_run_label(r) for r in runs[:3]) + (" ..." if len(runs) > 3 else "")
    return f"{what}\n{shown}"


def _runs_legend(fig: Figure, ax: Any, runs: int) -> None:
    """The runs' legend below the charts, where it hides no bar or interval."""
    fig.legend(
        *ax.get_legend_handles_labels(),
        loc="lower center",
        ncols=min(runs, 4),
        fontsize=8,
        frameon=False,
    )
    fig.tight_layout(rect=(0, 0.05 + 0.03 * ((runs - 1) // 4), 1, 1))


def _run_hatch(i: int) -> str:
    return RUN_HATCHES[i % len(RUN_HATCHES)]


def _run_marker(i: int) -> str:
    return RUN_MARKERS[i % len(RUN_MARKERS)]


def figure_compare(comparison: dict[str, Any]) -> Figure | None:
    """Side by side: win share and mean worms of the shared strategies, one bar per run;
    where the shares are close, a third panel zooms on them around the fair share (a
    scale from a fixed ladder, said on its axis: :func:`~.chart_style.zoom_window`)."""
    rows = comparison["strategies"]
    if not rows:
        return None
    runs = comparison["runs"]
    k = len(runs)
    y = np.arange(len(rows))[::-1]
    height = 0.8 / k
    colour = _compare_colours(comparison)
    fair = _fair_share(runs)
    values = [as_float(v["win_share"]) for r in rows for v in r["runs"]]
    half = zoom_window(values, fair) if fair is not None else None
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(12 if half is None else 16, 1.8 + 0.35 * k * len(rows)))
        axes = fig.subplots(1, 2 if half is None else 3, sharey=True)
        for ax, key, low, high, label in (
            (axes[0], "win_share", "win_low", "win_high", "win share (ties split), 95% CI"),
            (axes[-1], "worms", "worms_low", "worms_high", "mean worms, 95% CI"),
        ):
            for i, run in enumerate(runs):
                vals = [r["runs"][i] for r in rows]
                ys = y + 0.4 - height * (i + 0.5)
                ax.barh(
                    ys,
                    [as_float(v[key]) for v in vals],
                    height=height * 0.92,
                    color=[colour[r["strategy"]] for r in rows],
                    alpha=0.85 if i == 0 else 0.6,
                    hatch=_run_hatch(i),
                    edgecolor="white",
                    lw=0,
                )
                # A grey stand-in for the legend: the run, whatever the strategy's colour.
                ax.barh(
                    [math.nan],
                    [math.nan],
                    color="#bbbbbb",
                    hatch=_run_hatch(i),
                    edgecolor="white",
                    label=_run_label(run),
                )
                ax.errorbar(
                    [as_float(v[key]) for v in vals],
                    ys,
                    xerr=error_bars(vals, key, low, high),
                    fmt="none",
                    ecolor="black",
                    capsize=2,
                    lw=0.8,
                )
            ax.set_xlabel(label)
        share_axis(axes[0], "win share (ties split), 95% CI")
        axes[0].set_yticks(y, [r["strategy"] for r in rows])
        axes[0].set_title("Win share")
        if half is not None and fair is not None:
            for i in range(k):
                vals = [r["runs"][i] for r in rows]
                ys = y + 0.4 - height * (i + 0.5)
                cols = [colour[r["strategy"]] for r in rows]
                keys = ("win_share", "win_low", "win_high")
                zoom_points(axes[1], ys, vals, cols, keys, fair, half, _run_marker(i))
            axes[1].set_title(f"Win share, zoomed (± {half * 100:.0f} points; marker: run)")
        axes[-1].set_title("Mean worms")
        fig.suptitle(_compare_title(comparison, "Runs compared on the strategies they share"))
        _runs_legend(fig, axes[0], k)
        return fig


def _fair_share(runs: list[dict[str, Any]]) -> float | None:
    """The runs' one fair share (1/players), or None when their player counts differ."""
    players = {r.get("players") for r in runs}
    if len(players) != 1:
        return None
    (n,) = players
    return 1 / n if isinstance(n, int) and n > 0 else None


IDENTICAL_MARKER = "*"  # an identical difference: exactly 0, no interval


def _diff_scale(cells: list[dict[str, Any]]) -> tuple[float, str]:
    """The win-share axis: points, multiples of the fair share, or both (fair x 100)."""
    fair = [d.get("scale") == "fair_share" for d in cells]
    if fair and all(fair):
        return 1.0, "difference in win share relative to the fair share (1.0 = fair), 95% CI"
    if any(fair):
        return 100.0, "difference in win share (points; x fair ×100 at other player counts), 95% CI"
    return 100.0, "difference in win share (points), 95% CI"


def _draw_diff(
    ax: Any, y: float, diff: dict[str, Any], key: str, scale: float, colour: str, run: int
) -> bool:
    """One run's difference from the baseline at ``y``: a star at 0 if identical (True),
    else the difference with its interval, filled if significant (False)."""
    cell = diff[key]
    if diff.get("identical"):
        ax.plot(0.0, y, IDENTICAL_MARKER, color=colour, ms=10)
        ax.annotate(
            "identical",
            (0.0, y),
            xytext=(8, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
            color="#555555",
        )
        return True
    d = as_float(cell["diff"]) * scale
    lo, hi = as_float(cell["low"]) * scale, as_float(cell["high"]) * scale
    xerr = [[max(d - lo, 0)], [max(hi - d, 0)]] if lo == lo and hi == hi else None
    ax.errorbar(
        d,
        y,
        xerr=xerr,
        fmt=_run_marker(run),
        mfc=colour if cell.get("significant") else "white",
        color=colour,
        capsize=3,
        ms=6,
    )
    return False


def _not_compared(ax: Any, rows: list[dict[str, Any]], key: str) -> None:
    """A column whose every test was refused: the first reason, and no scale."""
    why = next(
        (d[key]["refused"] for r in rows for d in r["diffs"] if d[key].get("refused")),
        "",
    )
    ax.text(
        0.5,
        0.5,
        "not compared" + (f"\n({why})" if why else ""),
        transform=ax.transAxes,
        ha="center",
        va="center",
        color="#555555",
    )
    ax.set_xticks([])


def figure_compare_diffs(comparison: dict[str, Any]) -> Figure | None:
    """Forest plot: each run's difference from the baseline with its 95% interval.

    A refused test (mean worms across player counts) draws nothing; an identical
    difference (every paired game the same) is a star at 0, labelled, with no interval.
    """
    rows = comparison["strategies"]
    if not rows or len(comparison["runs"]) < 2:
        return None
    runs = comparison["runs"][1:]
    k = len(runs)
    y = np.arange(len(rows))[::-1]
    step = 0.7 / max(k, 1)
    win_scale, win_label = _diff_scale([d for r in rows for d in r["diffs"]])
    colours = _compare_colours(comparison)
    with matplotlib.rc_context(STYLE):
        fig = Chart(figsize=(12, 1.8 + 0.35 * k * len(rows)))
        axes = fig.subplots(1, 2, sharey=True)
        any_identical = False
        for ax, key, label, scale in (
            (axes[0], "win_share", win_label, win_scale),
            (axes[1], "worms", "difference in mean worms, 95% CI", 1.0),
        ):
            drawn = 0
            for i in range(k):
                ys = y + 0.35 - step * (i + 0.5)
                for yi, r in zip(ys, rows, strict=True):
                    diff = r["diffs"][i]
                    if diff[key].get("refused") or diff[key].get("diff") is None:  # no test
                        continue
                    drawn += 1
                    colour = colours[r["strategy"]]
                    any_identical |= _draw_diff(ax, yi, diff, key, scale, colour, i + 1)
            ax.set_xlabel(label)
            if not drawn:  # every test of this column refused: say so, draw no scale
                _not_compared(ax, rows, key)
                continue
            ax.axvline(0, color=FAIR, ls="--", lw=1)
        axes[0].set_yticks(y, [r["strategy"] for r in rows])
        bases = [d.get("base", "A") for d in rows[0]["diffs"]]
        for i, run in enumerate(runs):  # the legend names each run by its marker
            axes[0].plot(
                [],
                [],
                _run_marker(i + 1),
                color="#555555",
                mfc="white",
                label=f"{run['label']} − {bases[i]}",
            )
        if any_identical:
            axes[0].plot(
                [],
                [],
                IDENTICAL_MARKER,
                color="#555555",
                ms=10,
                label="identical games (exactly 0)",
            )
        axes[0].set_title("Win share")
        axes[1].set_title("Mean worms")
        fig.suptitle(
            _compare_title(
                comparison,
                "Each run minus the run it is compared with (filled: significant after Holm "
                "correction, marked * in the tables)",
            ),
            fontsize=11,
        )
        _runs_legend(fig, axes[0], k + any_identical)
        return fig
