"""What every report chart shares: the style, the PNG bytes and the common axes.

:data:`STYLE` (every text drawn literally: ``text.parse_math`` off, names are the user's,
not TeX), :class:`Chart` (a Figure that shows itself as a PNG in Jupyter),
:func:`png_bytes` (the same chart, the same bytes: no metadata), the run's title on every
chart (:func:`run_title`) and the win-share axis on its fixed 0-1 scale
(:func:`share_axis`), so that two runs' charts can be laid side by side; beside it, where
the field is close, a zoomed axis around the fair share on a fixed ladder of scales, said
on the axis (:func:`zoom_window`, :func:`zoom_points`), so that differences of a few
points show and two runs' zoomed panels still compare.
"""

from __future__ import annotations

import io
import math
from typing import Any

import matplotlib
import numpy as np
from matplotlib.figure import Figure

DPI = 110
FAIR = "#888888"
STYLE = {
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.titleweight": "bold",
    "font.size": 10,
    # Strategy and run names are the user's text, drawn as written: with mathtext on, a
    # name such as "$\frac{cash$" is parsed as TeX and fails the whole report.
    "text.parse_math": False,
}
BAND_ALPHA = 0.12  # the convergence chart's 95% bands: light enough to overlap
LINE_STYLES = ("-", "--", "-.", (0, (1, 1.5)))  # the convergence chart's lines, in turn
SHARE_TICKS = np.linspace(0, 1, 6)
# The zoomed win-share axis: half-widths (in shares) it may take, around the fair share.
# A fixed ladder, said on the axis, so that two runs' zoomed panels are laid side by side
# at the same scale whenever their fields are alike.
ZOOM_STEPS = (0.02, 0.05, 0.10, 0.20)


class Chart(Figure):
    """A report chart: a matplotlib Figure that shows itself as a PNG in Jupyter.

    IPython draws an object with ``_repr_png_`` as an image by itself: no
    ``%matplotlib inline`` and no backend of anyone's changed (the figure is never
    pyplot's, so it is shown once, as the value of the cell).
    """

    def _repr_png_(self) -> bytes:
        return png_bytes(self)


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG, without metadata (the same chart, the same bytes)."""
    buf = io.BytesIO()
    # In the charts' style, as they were drawn: what is laid out again while saving (the
    # tight box) is laid out as it was drawn.
    with matplotlib.rc_context(STYLE):
        fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def as_float(value: float | None) -> float:
    """None (an undefined number) as nan, anything else as a float."""
    return math.nan if value is None else float(value)


def error_bars(rows: list[dict[str, Any]], key: str, low: str, high: str) -> np.ndarray:
    """Asymmetric error bars (2, n) from estimates and interval ends; nan drawn as none."""
    est = np.array([as_float(r[key]) for r in rows])
    lo = np.array([as_float(r[low]) for r in rows])
    hi = np.array([as_float(r[high]) for r in rows])
    return np.nan_to_num(np.vstack([est - lo, hi - est]), nan=0.0).clip(min=0)


def run_title(run: dict[str, Any]) -> str:
    """How every chart names its run: config name, run id and date (from run.json)."""
    created = run.get("created")
    when = ""
    if isinstance(created, str) and len(created) >= 16:
        when = f" ({created[:10]} {created[11:16]})"
    return f"{run['name']} / {run['run_id']}{when}"


def zoom_window(values: list[float], centre: float) -> float | None:
    """The zoomed axis' half-width: the smallest of :data:`ZOOM_STEPS` that holds at least
    half of ``values`` around ``centre``; None when none does (the 0-1 axis shows them as
    well) or there is nothing to draw."""
    off = [abs(v - centre) for v in values if v == v]
    if len(off) < 2:
        return None
    need = (len(off) + 1) // 2
    for half in ZOOM_STEPS:
        if sum(d <= half * 0.92 for d in off) >= need:
            return half
    return None


def zoom_points(
    ax: Any,
    y: Any,
    rows: list[dict[str, Any]],
    colours: list[str],
    keys: tuple[str, str, str],
    centre: float,
    half: float,
    marker: str = "o",
) -> None:
    """Estimates with their 95% intervals on a zoomed share axis (``centre`` ± ``half``,
    said in its label): a point and its bar where it falls inside; a triangle at the edge
    with its value written where it falls outside (its bar is cut at the edge)."""
    key, low, high = keys
    lo_edge, hi_edge = centre - half, centre + half
    for yi, r, colour in zip(y, rows, colours, strict=True):
        value = as_float(r[key])
        if value != value:
            continue
        lo, hi = as_float(r[low]), as_float(r[high])
        if lo_edge <= value <= hi_edge:
            err = [[max(value - lo, 0)], [max(hi - value, 0)]] if lo == lo and hi == hi else None
            ax.errorbar(value, yi, xerr=err, fmt=marker, color=colour, ecolor=colour, capsize=3)
            continue
        edge, arrow, align = (lo_edge, "<", "left") if value < lo_edge else (hi_edge, ">", "right")
        ax.plot(edge, yi, arrow, color=colour, ms=9, clip_on=False)
        shift = half * 0.06 * (1 if align == "left" else -1)
        ax.text(edge + shift, yi, f"{value:.1%}", va="center", ha=align, fontsize=8, color="#444")
    ax.axvline(centre, color=FAIR, ls="--", lw=1)
    ax.set_xlim(lo_edge, hi_edge)
    step = half / 2
    ticks = centre + step * np.arange(-2, 3)
    ax.set_xticks(ticks, [f"{t:.0%}" if half >= 0.05 else f"{t:.1%}" for t in ticks])
    ax.set_xlabel(f"win share, zoomed: {centre:.0%} ± {half * 100:.0f} points, 95% CI")


def share_axis(ax: Any, label: str, vertical: bool = False) -> None:
    """A win-share axis on the fixed 0-1 scale (room past 1 for the bars' labels)."""
    if vertical:
        ax.set_ylim(0, 1)
        ax.set_yticks(SHARE_TICKS)
        ax.set_ylabel(label)
        return
    ax.set_xlim(0, 1.16)
    ax.set_xticks(SHARE_TICKS)
    ax.spines["bottom"].set_bounds(0, 1)
    ax.set_xlabel(label)
