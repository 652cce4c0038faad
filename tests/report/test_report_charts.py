"""Charts a person can lay side by side (issue 19, items 1 and 3).

Every chart the report, ``harness compare`` and the results API draw is drawn here from
real runs and read back as text: no tick label or title may show TeX markup (a log axis
in a style with ``text.parse_math`` off used to print ``$\\mathdefault{10^{2}}$``), every
title names its run (config name, run id, date), win shares are on the fixed 0-1 scale,
and strategies keep the config's order in two runs whose ranking differs.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import matplotlib.text
import numpy as np
import pytest

from harness.report import summarise_run
from harness.report.charts import plots
from harness.report.comparisons.compare import compare
from harness.results import load_run
from harness.tourney import run_tournament

TEX = re.compile(r"\$|\\mathdefault|\^\{|\\frac|\\mathrm")
FIELD = ["greedy", "simple", "random", "threshold(target=27)"]


def _config(name: str, target: int, **more) -> dict:
    # "mybot" ranks first in one run and last in the other: a rank order would swap it.
    return {
        "name": name,
        "entrants": [
            *FIELD[:2],
            {"strategy": "threshold", "name": "mybot", "params": {"target": target}},
            *FIELD[2:],
        ],
        "deals": 2000,
        "seed": 3,
        "workers": 0,
        "luck": "on",  # the luck chart too (the native account: cheap at this size)
        **more,
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("charts")
    first = run_tournament(_config("league", 22), out=out)
    second = run_tournament(_config("league", 36), out=out, fresh=True)
    challenger = {"strategy": "threshold", "name": "mybot", "params": {"target": 25}}
    gauntlet = run_tournament(
        {
            **_config("gaunt", 25, deals=300),  # no chart of it needs the long run's log axis
            "format": "gauntlet",
            "challenger": challenger,
            "entrants": FIELD,
        },
        out=out,
    )
    four = run_tournament({**_config("four", 25), "players": 4, "deals": 60}, out=out)
    return [summarise_run(r.run_dir) for r in (first, second, gauntlet, four)], out


def _texts(fig) -> list[str]:
    """Every visible text of a figure once drawn (ticks are formatted at draw time; a low
    resolution draws the same texts for a fraction of the rasterising)."""
    fig.savefig(io.BytesIO(), format="png", dpi=20)
    return [
        t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text()
    ]


def _run_figures(summary):
    return {name: draw(summary) for name, draw in plots.FIGURES.items()}


@pytest.fixture(scope="module")
def figures(runs):
    """Every run chart of the four runs, drawn once for the tests that read them all."""
    return [_run_figures(summary) for summary in runs[0]]


def test_no_chart_shows_tex_markup(runs, figures):
    summaries, out = runs
    drawn = 0
    for summary, drawn_figures in zip(summaries, figures, strict=True):
        for name, fig in drawn_figures.items():
            if fig is None:
                continue
            drawn += 1
            bad = [t for t in _texts(fig) if TEX.search(t)]
            assert not bad, (summary["run"]["name"], name, bad)
    comparison = compare(summaries[:2])
    for fig in (plots.figure_compare(comparison), plots.figure_compare_diffs(comparison)):
        drawn += 1
        assert not [t for t in _texts(fig) if TEX.search(t)]
    run = load_run(summaries[0]["run"]["path"])
    for fig in (run.plot_standings(), run.plot_head_to_head(), run.plot_worms()):
        drawn += 1
        assert not [t for t in _texts(fig) if TEX.search(t)]
    assert drawn >= 20


def test_the_long_run_has_a_log_axis_with_written_out_ticks(runs):
    summary = runs[0][0]
    fig = plots.figure_convergence(summary)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"  # the case that printed mathtext
    fig.savefig(io.BytesIO(), format="png")
    ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert ticks and all(re.fullmatch(r"[0-9][0-9,]*", t) for t in ticks), ticks


def test_convergence_starts_where_the_intervals_mean_something(runs):
    summary = runs[0][0]
    fig = plots.figure_convergence(summary)
    ax = fig.axes[0]
    first = min(line.get_xdata()[0] for line in ax.get_lines() if len(line.get_xdata()) > 2)
    # The summary has points from the first deal; the chart starts at the 30th.
    series = summary["curve"]["series"]
    earliest = min(points[0][0] for points in series.values())
    assert earliest < first
    for name, points in series.items():
        shown = [p for p in points if p[0] >= first]
        assert all(p[4] >= 30 for p in shown), name
    # Light bands: overlapping ones stay readable.
    alphas = {c.get_alpha() for c in ax.collections}
    assert alphas and max(alphas) <= 0.15


def test_every_title_names_its_run(runs, figures):
    summaries, _ = runs
    for summary, drawn in zip(summaries, figures, strict=True):
        run = summary["run"]
        date = run["created"][:10]
        for name, fig in drawn.items():
            if fig is None:
                continue
            titles = " ".join(
                [fig._suptitle.get_text() if fig._suptitle else ""]
                + [ax.get_title() for ax in fig.axes]
            )
            for part in (run["name"], run["run_id"], date):
                assert part in titles, (name, part, titles)
    comparison = compare(summaries[:2])
    for fig in (plots.figure_compare(comparison), plots.figure_compare_diffs(comparison)):
        title = fig._suptitle.get_text()
        assert all(s["run"]["run_id"] in title for s in summaries[:2]), title


def _share_limits(fig, axis: str) -> list[tuple[float, float]]:
    """The ticks' ends of every axis that draws win shares as they are (a zoomed or a
    relative axis says its own scale: "zoomed", "minus")."""
    out = []
    for ax in fig.axes:
        label = ax.get_xlabel() if axis == "x" else ax.get_ylabel()
        if "zoomed" in label or "minus" in label:
            continue
        if "win share" in label or "finished ahead" in label:
            ticks = ax.get_xticks() if axis == "x" else ax.get_yticks()
            out.append((round(min(ticks), 6), round(max(ticks), 6)))
    return out


def test_win_share_axes_are_fixed_from_0_to_1(runs):
    summaries, _ = runs
    first, second, gauntlet, _four = summaries
    for summary in (first, second):
        assert _share_limits(plots.figure_standings(summary), "x") == [(0.0, 1.0)]
        assert set(_share_limits(plots.figure_seats(summary), "y")) == {(0.0, 1.0)}
        assert _share_limits(plots.figure_convergence(summary), "y") == [(0.0, 1.0)]
        assert _share_limits(plots.figure_luck(summary), "x") == []  # shares relative to raw
    assert _share_limits(plots.figure_gauntlet(gauntlet), "x") == [(0.0, 1.0)]
    fig = plots.figure_compare(compare([first, second]))
    assert _share_limits(fig, "x") == [(0.0, 1.0)]


def _labels(ax, axis: str = "y") -> list[str]:
    """Tick labels in reading order: top to bottom (y), left to right (x)."""
    if axis == "y":
        down = 1 if ax.yaxis_inverted() else -1  # an image's rows go down
        pairs = sorted(
            zip(ax.get_yticks(), ax.get_yticklabels(), strict=True), key=lambda p: down * p[0]
        )
    else:
        pairs = sorted(zip(ax.get_xticks(), ax.get_xticklabels(), strict=True), key=lambda p: p[0])
    return [t.get_text() for _, t in pairs]


def test_strategies_keep_the_configs_order_whatever_the_ranking(runs):
    summaries, _ = runs
    first, second = summaries[:2]
    rank = [[r["strategy"] for r in s["standings"]] for s in (first, second)]
    assert rank[0] != rank[1]  # the case: mybot moved in the ranking
    config = ["greedy", "simple", "mybot", "random", "threshold(target=27)"]
    for summary in (first, second):
        standings = plots.figure_standings(summary)
        assert _labels(standings.axes[0]) == config  # drawn top to bottom
        ratings = plots.figure_ratings(summary)
        assert _labels(ratings.axes[0]) == config
        worms = plots.figure_worms(summary)
        assert _labels(worms.axes[0], "x") == config
        h2h = plots.figure_head_to_head(summary)
        assert _labels(h2h.axes[0]) == config
        luck = plots.figure_luck(summary)
        assert _labels(luck.axes[0]) == config  # its three panels share the rows
        assert all(ax.get_shared_y_axes().joined(luck.axes[0], ax) for ax in luck.axes)
        legend = [
            t.get_text() for t in plots.figure_convergence(summary).axes[0].get_legend().texts
        ]
        assert legend == config


def test_compare_charts_share_one_order_and_scale(runs):
    summaries, _ = runs
    comparison = compare(summaries[:2])
    fig = plots.figure_compare(comparison)
    names = _labels(fig.axes[0])
    assert names == ["greedy", "simple", "mybot", "random", "threshold(target=27)"]
    assert np.allclose(fig.axes[0].get_xticks(), np.linspace(0, 1, 6))


def test_a_chart_is_an_image_in_a_notebook(runs):
    # IPython shows any object with _repr_png_ as an image, whatever the backend.
    fig = plots.figure_standings(runs[0][0])
    png = fig._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    path = plots.plot_standings(runs[0][0], Path(runs[1]) / "s.png")
    assert path.read_bytes() == png  # the same picture as the report's file
