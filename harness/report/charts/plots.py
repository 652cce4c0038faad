"""The report's charts, drawn with matplotlib from a run summary.

Each chart is two steps. ``figure_X(summary)`` draws one titled, labelled
:class:`Chart` (a matplotlib Figure) from the summary dict (see
:mod:`harness.report.summaries.summary`), or returns None when the run has nothing to draw for it;
``plot_X(summary, path)`` writes that figure as PNG atomically and returns the path
(None: nothing written). Figures are built without pyplot and no backend is chosen
here: the CLI needs none to write PNGs, and a notebook keeps its own (a Chart shows
itself there as an image, :meth:`Chart._repr_png_`).

Charts of two runs are made to be laid side by side: every title names the run (config
name, run id, date), win shares are drawn on a fixed 0-1 scale, and strategies keep the
config's order (never a rank order, which would move bars between runs). Colours come
from :mod:`harness.report.charts.colours`: apart from each other within a chart's set of
names, and the same for a name from run to run where possible. Every text is drawn
literally (``text.parse_math`` off in :data:`STYLE`): names are the user's, not TeX;
numbers on a log axis are written out (``1,000``), never as mathtext.

This module is the charts' face: the ``plot_X`` writers, :data:`FIGURES` and
:data:`PLOTS` by name, and :func:`plot_all`. The charts are drawn in
:mod:`~.run_charts` (one run's) and :mod:`~.compare_charts` (several runs', side by
side), in the shared style of :mod:`~.chart_style`; every name is importable from here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from harness.report.charts.chart_style import (
    BAND_ALPHA,
    DPI,
    FAIR,
    LINE_STYLES,
    SHARE_TICKS,
    STYLE,
    Chart,
    png_bytes,
    run_title,
)
from harness.report.charts.colours import BUILTIN_COLOURS, PALETTE, colours_for, strategy_colour
from harness.report.charts.compare_charts import (
    IDENTICAL_MARKER,
    RUN_HATCHES,
    RUN_MARKERS,
    figure_compare,
    figure_compare_diffs,
)
from harness.report.charts.luck_charts import figure_luck
from harness.report.charts.run_charts import (
    figure_convergence,
    figure_gauntlet,
    figure_head_to_head,
    figure_ratings,
    figure_seats,
    figure_standings,
    figure_worms,
    in_config_order,
)
from harness.report.files import write_atomic

__all__ = [
    "BAND_ALPHA",
    "BUILTIN_COLOURS",
    "Chart",
    "DPI",
    "FAIR",
    "FIGURES",
    "IDENTICAL_MARKER",
    "LINE_STYLES",
    "PALETTE",
    "PLOTS",
    "RUN_HATCHES",
    "RUN_MARKERS",
    "SHARE_TICKS",
    "STYLE",
    "colours_for",
    "in_config_order",
    "plot_all",
    "png_bytes",
    "run_title",
    "strategy_colour",
]


def _save(fig: Figure, path: Path) -> Path:
    """Write ``fig`` as PNG, atomically (:func:`png_bytes`)."""
    data = png_bytes(fig)
    return write_atomic(path, lambda fh: fh.write(data))


def _write(fig: Figure | None, path: Path) -> Path | None:
    """The save step of every ``plot_X``: ``path`` written, or None (nothing to draw)."""
    return None if fig is None else _save(fig, path)


# -- the save step: each figure_X written as PNG (the report's and compare's files) -------
def plot_standings(summary: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_standings` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_standings(summary), path)


def plot_head_to_head(summary: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_head_to_head` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_head_to_head(summary), path)


def plot_worms(summary: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_worms` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_worms(summary), path)


def plot_convergence(summary: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_convergence` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_convergence(summary), path)


def plot_seats(summary: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_seats` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_seats(summary), path)


def plot_ratings(summary: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_ratings` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_ratings(summary), path)


def plot_gauntlet(summary: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_gauntlet` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_gauntlet(summary), path)


def plot_compare(comparison: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_compare` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_compare(comparison), path)


def plot_compare_diffs(comparison: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_compare_diffs` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_compare_diffs(comparison), path)


def plot_luck(summary: dict[str, Any], path: Path) -> Path | None:
    """:func:`figure_luck` written to ``path`` as PNG; None (nothing written): no data."""
    return _write(figure_luck(summary), path)


FIGURES = {
    "gauntlet": figure_gauntlet,
    "standings": figure_standings,
    "ratings": figure_ratings,
    "head_to_head": figure_head_to_head,
    "worms": figure_worms,
    "convergence": figure_convergence,
    "seats": figure_seats,
    "luck": figure_luck,
}
"""Every chart of a run report as a Figure, by file stem, in report order (:data:`PLOTS`)."""

PLOTS = {
    "gauntlet": plot_gauntlet,
    "standings": plot_standings,
    "ratings": plot_ratings,
    "head_to_head": plot_head_to_head,
    "worms": plot_worms,
    "convergence": plot_convergence,
    "seats": plot_seats,
    "luck": plot_luck,
}
"""Every plot of a run report, by file stem, in report order."""


def plot_all(summary: dict[str, Any], folder: Path) -> dict[str, Path]:
    """Draw every plot that has data into ``folder``; the paths written, by name."""
    out = {}
    for name, draw in PLOTS.items():
        made = draw(summary, folder / f"{name}.png")
        if made is not None:
            out[name] = made
    return out
