"""The tune's chart: each parameter's path over the games, its running average (the
answer) and the paired difference each iteration measured (what moved it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def path_chart(summary: dict[str, Any], path: Path) -> None:
    """``path.png``: a panel per parameter (the iterates, their running second-half
    average, the starting value) and a panel of each iteration's paired difference."""
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state

    params = summary["params"]
    each = summary["games"] / max(1, summary["iterations"])
    fig = Figure(figsize=(8, 2.2 * (len(params) + 1)), layout="constrained")
    axes = fig.subplots(len(params) + 1, 1, sharex=True, squeeze=False)[:, 0]
    for ax, p in zip(axes, params, strict=False):
        values = np.array(p["path"], dtype=float)
        games = np.arange(len(values)) * each
        running = [values[len(values[: i + 1]) // 2 : i + 1].mean() for i in range(len(values))]
        ax.plot(games, values, lw=0.8, color="0.6", label="iterate")
        ax.plot(games, running, lw=1.6, color="C0", label="average of the second half")
        ax.axhline(p["start"], ls=":", color="C3", lw=1, label="start")
        ax.set_ylabel(p["name"])
        ax.legend(loc="best", fontsize="small")
    diffs = [line_diff * 100 for line_diff in summary.get("diffs", [])]
    ax = axes[-1]
    ax.plot(np.arange(1, len(diffs) + 1) * each, diffs, lw=0.6, color="C2")
    ax.axhline(0, color="0.3", lw=0.6)
    ax.set_ylabel("paired difference\n(points of win share)")
    ax.set_xlabel("games")
    fig.suptitle(f"harness tune {summary['setup']['bot']}: each parameter's path")
    fig.savefig(path, dpi=90)
