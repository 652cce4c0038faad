"""What every report chart shares: the style, the PNG bytes and the common axes.

:data:`STYLE` (every text drawn literally: ``text.parse_math`` off, names are the user's,
not TeX), :class:`Chart` (a Figure that shows itself as a PNG in Jupyter),
:func:`png_bytes` (the same chart, the same bytes: no metadata), the run's title on every
chart (:func:`run_title`) and the win-share axis on its fixed 0-1 scale
(:func:`share_axis`), so that two runs' charts can be laid side by side.
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
