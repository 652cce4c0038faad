"""Colours that tell strategies apart (issue 10, item 8; issue 19, item 2).

``harness.report.charts.colours``: built-ins fixed; other names by a stable hash of the display
name onto a palette, and within one chart's set of names (:func:`colours_for`) never two
alike. The distance is CIEDE2000, checked here against the published test data, and
every bound the module states is checked on every colour. The charts are checked by the
colours their artists actually carry.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import matplotlib.colors as mcolors
import pytest
from matplotlib.markers import MarkerStyle
from run_builders import row, write_run

from harness.plugins import builtin_strategies
from harness.report import summarise_run
from harness.report.charts import plots
from harness.report.charts.colours import (
    BUILTIN_COLOURS,
    FROM_BLACK,
    FROM_WHITE,
    MIN_DISTANCE,
    MORE_COLOURS,
    MORE_DISTANCE,
    PALETTE,
    ciede2000,
    colours_for,
    delta_e,
    strategy_colour,
)
from harness.report.charts.plots import FAIR

HEX = re.compile(r"^#[0-9a-f]{6}$")


def contrast_on_white(colour: str) -> float:
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in mcolors.to_rgb(colour))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


# -- the distance ---------------------------------------------------------------------------
# Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula", Table 1: pairs
# 1, 2, 7, 17-20, 25, 31 and 34, with their published differences to 4 decimals.
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
    ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize(("one", "two", "expected"), SHARMA)
def test_ciede2000_is_the_published_formula(one, two, expected):
    assert ciede2000(one, two) == pytest.approx(expected, abs=5e-5)
    assert ciede2000(two, one) == pytest.approx(expected, abs=5e-5)


def test_the_distance_of_black_and_white_is_lightness():
    assert delta_e("#000000", "#ffffff") == pytest.approx(100.0, abs=0.01)
    assert delta_e("#1f6fb4", "#1f6fb4") == 0


# -- the palettes ---------------------------------------------------------------------------
FIRST = [*BUILTIN_COLOURS.values(), *PALETTE]


def test_every_built_in_has_its_fixed_colour():
    # A new built-in without a colour of its own fails here, not silently in a chart.
    assert set(BUILTIN_COLOURS) == set(builtin_strategies())
    for name, colour in BUILTIN_COLOURS.items():
        assert strategy_colour(name) == colour
        assert colours_for([name, "mybot"])[name] == colour


def test_the_palettes_keep_their_stated_distances():
    for colour in (*FIRST, *MORE_COLOURS):
        assert HEX.match(colour), colour
        assert contrast_on_white(colour) >= 3.0, colour  # WCAG 1.4.11, graphics
        assert delta_e(colour, "#000000") >= FROM_BLACK, colour  # the error bars
        assert delta_e(colour, "#ffffff") >= FROM_WHITE, colour  # the background
    for i, a in enumerate(FIRST):
        for b in FIRST[i + 1 :]:
            if a in BUILTIN_COLOURS.values() and b in BUILTIN_COLOURS.values():
                continue  # the built-ins' own colours predate the bound: 16.7 at least
            assert delta_e(a, b) >= MIN_DISTANCE, (a, b, delta_e(a, b))
    for i, colour in enumerate(MORE_COLOURS):
        before = [*FIRST, *MORE_COLOURS[:i]]
        assert min(delta_e(colour, b) for b in before) >= MORE_DISTANCE, colour
    builtins = list(BUILTIN_COLOURS.values())
    assert min(delta_e(a, b) for i, a in enumerate(builtins) for b in builtins[i + 1 :]) > 16.5
    assert len(set(FIRST + list(MORE_COLOURS))) == len(FIRST) + len(MORE_COLOURS)


def test_other_names_never_take_a_built_in_colour():
    names = [f"bot{i}" for i in range(3000)] + ["Greedy", "greedy ", "greedy-b", "", "ü", "\ud800"]
    for name in names:
        colour = strategy_colour(name)
        assert colour in PALETTE
        assert colour not in BUILTIN_COLOURS.values()


def test_the_hash_spreads_names_over_the_whole_palette():
    counts = dict.fromkeys(PALETTE, 0)
    for i in range(8000):
        counts[strategy_colour(f"mybot-v{i}")] += 1
    expected = 8000 / len(PALETTE)
    assert all(0.8 * expected < c < 1.2 * expected for c in counts.values()), counts


# -- a set of names -------------------------------------------------------------------------
def _min_distance(colours: dict[str, str]) -> float:
    values = list(colours.values())
    return min(delta_e(a, b) for i, a in enumerate(values) for b in values[i + 1 :])


def test_the_users_clashes_are_gone():
    # The issue measured these on main: mybot-v1 and mybot-v4 one colour, "careful" a
    # purple beside simple's, near-black names beside the black error bars.
    names = ["mybot-v1", "mybot-v2", "mybot-v3", "mybot-v4", "careful", *BUILTIN_COLOURS]
    got = colours_for(names)
    assert len(set(got.values())) == len(names)
    assert _min_distance(got) >= MIN_DISTANCE
    assert delta_e(got["careful"], got["simple"]) >= MIN_DISTANCE
    assert all(delta_e(c, "#000000") >= FROM_BLACK for c in got.values())


def test_any_set_of_up_to_15_other_names_is_apart():
    rng = random.Random(19)
    builtins = list(BUILTIN_COLOURS)
    for trial in range(1500):
        others = [f"{rng.choice(['bot', 'mybot', 'x', 'careful'])}-v{rng.randrange(10**6)}"]
        others += [f"n{trial}-{k}" for k in range(rng.randrange(15))]
        names = others + rng.sample(builtins, rng.randrange(len(builtins) + 1))
        got = colours_for(names)
        assert len(got) == len(set(names))
        if len(got) > 1:
            assert _min_distance(got) >= MIN_DISTANCE - 1e-9, (names, got)


def test_up_to_64_entrants_are_distinct_and_apart():
    names = [f"entrant-{k}" for k in range(64 - len(BUILTIN_COLOURS))] + list(BUILTIN_COLOURS)
    got = colours_for(names)
    assert len(set(got.values())) == 64
    assert _min_distance(got) >= MORE_DISTANCE


def test_four_user_bots_never_clash():
    # main: "with four user bots the chance of a clash is about 37%"; now none.
    rng = random.Random(4)
    for _ in range(3000):
        names = [f"bot{rng.randrange(10**9)}" for _ in range(4)]
        got = colours_for([*names, *BUILTIN_COLOURS])
        assert len(set(got.values())) == len(set(names)) + len(BUILTIN_COLOURS)


def test_a_name_keeps_its_colour_across_runs_when_nobody_claims_it():
    # Its own colour in any set where no name before it (in name order) wants that colour.
    mine = strategy_colour("mybot")
    for others in (["greedy"], ["zed", "random"], ["tactician", "mybot-v2"], []):
        rivals = [n for n in others if n < "mybot" and strategy_colour(n) == mine]
        if not rivals:
            assert colours_for(["mybot", *others])["mybot"] == mine
    # Order in which a run lists its entrants does not matter.
    assert colours_for(["b", "a", "c"]) == colours_for(["c", "b", "a"])


def test_colours_are_stable_across_processes_and_hash_seeds():
    # Python's str hash is salted per process: a colour built on it would change between
    # two runs of the same report. Two interpreters with different seeds must agree.
    names = ["mybot", "threshold(target=26)", "careful2", "greedy", "x"]
    code = (
        "import json, sys; from harness.report.charts.colours import colours_for; "
        "print(json.dumps(colours_for(json.loads(sys.argv[1]))))"
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
    assert got[0] == got[1] == colours_for(names)


def test_colours_are_pinned():
    # The hash is part of the promise (charts of old and new runs compared by eye): a
    # change of hash or palette order must be deliberate, and shows here.
    # (changed once, deliberately: win-optimal took a palette colour, issue 32)
    assert strategy_colour("mybot") == "#e80028"
    assert strategy_colour("threshold(target=26)") == "#d040f8"
    assert strategy_colour("ü") == "#e80028"
    # Two names that want one colour: the first in name order keeps it.
    assert colours_for(["ü", "threshold(target=26)", "mybot"]) == {
        "mybot": "#e80028",
        "threshold(target=26)": "#d040f8",
        "ü": "#2000a8",
    }


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
        expected = set(colours_for(entrants).values())
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
    expected = set(colours_for(names).values())
    for name in ("compare", "compare_diffs"):
        assert _drawn_colours(captured[name]) - NEUTRAL == expected, name
