"""One colour per strategy in every chart of every run (issue 10, item 8; contract 8).

``harness.report.plots.strategy_colour(name)``: built-ins fixed, other names by a stable
hash of the display name onto a palette readable on white and apart from the built-ins.
The charts are checked by the colours their artists actually carry.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import matplotlib.colors as mcolors
import pytest
from matplotlib.markers import MarkerStyle
from test_report_support import row, write_run

from harness.plugins import builtin_strategies
from harness.report import plots, summarise_run
from harness.report.plots import BUILTIN_COLOURS, FAIR, PALETTE, strategy_colour

HEX = re.compile(r"^#[0-9a-f]{6}$")


# -- colour science for the checks (WCAG contrast, CIELAB distance) ------------------------
def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def contrast_on_white(colour: str) -> float:
    r, g, b = (_linear(c) for c in mcolors.to_rgb(colour))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def lab(colour: str) -> tuple[float, float, float]:
    r, g, b = (_linear(c) for c in mcolors.to_rgb(colour))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str) -> float:
    return math.dist(lab(a), lab(b))


# -- the function ---------------------------------------------------------------------------
def test_every_built_in_has_its_fixed_colour():
    # A new built-in without a colour of its own fails here, not silently in a chart.
    assert set(BUILTIN_COLOURS) == set(builtin_strategies())
    for name, colour in BUILTIN_COLOURS.items():
        assert strategy_colour(name) == colour
    assert len(set(BUILTIN_COLOURS.values())) == len(BUILTIN_COLOURS)


def test_other_names_never_take_a_built_in_colour():
    names = [f"bot{i}" for i in range(3000)] + ["Greedy", "greedy ", "greedy-b", "", "ü", "\ud800"]
    for name in names:
        colour = strategy_colour(name)
        assert HEX.match(colour), (name, colour)
        assert colour in PALETTE
        assert colour not in BUILTIN_COLOURS.values()


def test_the_hash_spreads_names_over_the_whole_palette():
    counts = dict.fromkeys(PALETTE, 0)
    for i in range(7000):
        counts[strategy_colour(f"mybot-v{i}")] += 1
    expected = 7000 / len(PALETTE)
    assert all(0.8 * expected < c < 1.2 * expected for c in counts.values()), counts


def test_colours_are_stable_across_processes_and_hash_seeds():
    # Python's str hash is salted per process: a colour built on it would change between
    # two runs of the same report. Two interpreters with different seeds must agree.
    names = ["mybot", "threshold(target=26)", "careful2", "greedy", "x"]
    code = (
        "import json, sys; from harness.report.plots import strategy_colour; "
        "print(json.dumps([strategy_colour(n) for n in json.loads(sys.argv[1])]))"
    )
    got = []
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code, json.dumps(names)],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        )
        got.append(json.loads(out.stdout))
    assert got[0] == got[1] == [strategy_colour(n) for n in names]


def test_colours_are_pinned():
    # The hash is part of the promise (charts of old and new runs compared by eye): a
    # change of hash or palette order must be deliberate, and shows here.
    assert strategy_colour("mybot") == "#9400d3"
    assert strategy_colour("threshold(target=26)") == "#8e82fe"
    assert strategy_colour("ü") == "#6f7c00"


def test_every_colour_is_readable_on_white_and_apart_from_the_others():
    for colour in (*BUILTIN_COLOURS.values(), *PALETTE):
        assert contrast_on_white(colour) >= 3.0, colour  # WCAG 1.4.11, graphics
    builtins = list(BUILTIN_COLOURS.values())
    for i, a in enumerate(builtins):
        for b in builtins[i + 1 :]:
            assert delta_e(a, b) >= 20, (a, b)
    for i, a in enumerate(PALETTE):
        assert min(delta_e(a, b) for b in builtins) >= 20, a
        for b in PALETTE[i + 1 :]:
            assert delta_e(a, b) >= 20, (a, b)


# -- the charts -----------------------------------------------------------------------------
NEUTRAL = {"#000000", "#ffffff", FAIR, "#5b7fa6", "#bbbbbb", "#555555"}


def _hex(c) -> str:
    return mcolors.to_hex(c, keep_alpha=False)


def _drawn_colours(fig) -> set[str]:
    """Every colour a figure's data artists carry (bars, lines, fills, markers)."""
    found: set[str] = set()
    for ax in fig.axes:
        for p in ax.patches:
            found.add(_hex(p.get_facecolor()))
        for line in ax.lines:
            if line.get_linestyle() not in ("None", ""):
                found.add(_hex(line.get_color()))
            if line.get_marker() not in (None, "None", ""):  # caps: only their edge shows
                found.add(_hex(line.get_markeredgecolor()))
                if MarkerStyle(line.get_marker()).is_filled():
                    found.add(_hex(line.get_markerfacecolor()))
        for coll in ax.collections:
            for c in list(coll.get_facecolors()) + list(coll.get_edgecolors()):
                found.add(_hex(c))
    return found


@pytest.fixture
def captured(monkeypatch):
    figs: dict[str, object] = {}

    def keep(fig, path):
        figs[path.stem] = fig
        return path

    monkeypatch.setattr(plots, "_save", keep)
    return figs


def _run(tmp_path, entrants: list[str]):
    rows = []
    for t, (a, b) in enumerate([(x, y) for i, x in enumerate(entrants) for y in entrants[i + 1 :]]):
        for deal in range(12):
            rows.append(row(f"t{t}", deal, 0, [a, b], [deal % 5, (deal * 7) % 6]))
            rows.append(row(f"t{t}", deal, 1, [b, a], [(deal * 7) % 6, deal % 5 + 1]))
    return summarise_run(write_run(tmp_path, rows, entrants=entrants))


def test_every_report_chart_colours_strategies_by_name_not_position(tmp_path, captured):
    # Two runs that list their entrants in different orders: each strategy's colour is the
    # same in both, and no chart draws a strategy colour that is not one of its strategies'.
    first = ["greedy", "mybot", "random"]
    second = ["zed", "random", "mybot"]
    for k, entrants in enumerate((first, second)):
        captured.clear()
        summary = _run(tmp_path / f"r{k}", entrants)
        plots.plot_all(summary, tmp_path / f"r{k}" / "plots")
        expected = {strategy_colour(n) for n in entrants}
        for name in ("standings", "worms", "convergence", "seats", "ratings"):
            assert name in captured, name
            drawn = _drawn_colours(captured[name]) - NEUTRAL
            assert drawn == expected, (name, drawn, expected)


def test_compare_charts_use_the_strategy_colours(tmp_path, captured):
    def cell(v):
        return {"diff": v, "low": v - 0.1, "high": v + 0.1, "significant": v > 0}

    def vals(v):
        return {
            "win_share": v,
            "win_low": v - 0.05,
            "win_high": v + 0.05,
            "worms": 5 * v,
            "worms_low": 5 * v - 0.5,
            "worms_high": 5 * v + 0.5,
        }

    names = ["threshold", "mybot", "other-bot"]
    comparison = {
        "runs": [{"label": lab, "name": "n", "run_id": lab} for lab in ("A", "B", "C")],
        "strategies": [
            {
                "strategy": n,
                "runs": [vals(0.3), vals(0.4), vals(0.5)],
                "diffs": [{"win_share": cell(0.05), "worms": cell(-0.2)}] * 2,
            }
            for n in names
        ],
    }
    plots.plot_compare(comparison, tmp_path / "compare.png")
    plots.plot_compare_diffs(comparison, tmp_path / "compare_diffs.png")
    expected = {strategy_colour(n) for n in names}
    for name in ("compare", "compare_diffs"):
        assert _drawn_colours(captured[name]) - NEUTRAL == expected, name
