"""The report's and the terminal's small things that a first hour trips over (issue 30,
item 5): one rating for a gauntlet's challenger, no negative zeros, intervals signed as
their estimates, a word when a mean decision time is above its 99th percentile, a zoomed
win-share panel, a luck chart whose decisions never wear a strategy's colour, plurals.

Hand-made run folders (tests/run_builders.py) and summaries for exact cases; one played
run (Python engine, luck on, a second) for the luck table.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from run_builders import row, write_run
from test_report_gauntlet import GAUNTLET, gauntlet_rows

from harness.cli import main
from harness.errors import plural
from harness.report import summarise_run, write_report
from harness.report.charts import plots
from harness.report.charts.colours import BUILTIN_COLOURS, MIN_DISTANCE, PALETTE, delta_e
from harness.report.pages import formats
from harness.report.pages.formats import num, pct, points, signed_span, span
from harness.report.pages.render import standings_lines
from harness.tourney import run_tournament


# -- a gauntlet's challenger has one rating ----------------------------------------------------
def test_the_challenger_has_one_rating_in_the_table_and_the_sentence(tmp_path):
    run = write_run(tmp_path / "r", gauntlet_rows(), entrants=["c", "a", "b"], extra=GAUNTLET)
    summary = summarise_run(run)
    by = {r["strategy"]: r for r in summary["standings"]}
    rating = summary["gauntlet"]["rating"]
    assert rating["elo"] == pytest.approx(by["c"]["elo"])
    assert (rating["low"], rating["high"]) == pytest.approx(
        (by["c"]["elo_low"], by["c"]["elo_high"])
    )
    # the ratings are centred on the field (the challenger's opponents), and say so
    assert (by["a"]["elo"] + by["b"]["elo"]) / 2 == pytest.approx(0.0, abs=1e-9)
    assert "0 = the field's average" in summary["ratings"]["note"]
    lines = standings_lines(summary, 100)
    shown = num(by["c"]["elo"], 0, sign=True)
    assert f"rating {shown} Elo against the field's average" in " ".join(lines)
    row_c = next(x for x in lines if x.split() and x.split()[0] == "c")
    assert shown in row_c.split()


# -- numbers ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value, shown",
    [
        (num(-0.0004, 3), "0.000"),
        (num(-0.004, 2, sign=True), "0.00"),
        (pct(-0.0001), "0.0%"),
        (points(-0.0004), "0.0 pts"),
        (span(-0.001, 0.2, "num"), "0.00 to 0.20"),
        (signed_span(-0.0001, 0.0001, 100, 1), "0.0 to 0.0"),
        ((-0.001, -0.21, 0.2, "num", None, True), "0.00 (-0.21 to +0.20)"),
        ((3.78, 3.34, 4.22, "num", None, True), "+3.78 (+3.34 to +4.22)"),
        ((0.808, 0.791, 0.825, "pct"), "80.8% (79.1 to 82.5%)"),
        (num(-1.5, 1, sign=True), "-1.5"),
    ],
)
def test_no_negative_zero_and_intervals_signed_as_their_estimate(value, shown):
    if isinstance(value, tuple):  # an estimate with its interval, one style for both
        value = formats.estimate(*value)
    assert value == shown


def test_the_luck_table_signs_the_intervals_of_signed_figures(tmp_path):
    mine = {"strategy": "threshold", "name": "mine", "params": {"target": 26}}
    config = {"name": "signs", "entrants": [mine, "greedy"], "deals": 20, "seed": 4}
    run = run_tournament({**config, "luck": "on", "engine": "python", "workers": 0}, out=tmp_path)
    md = write_report(run.run_dir, plots=False).markdown.read_text(encoding="utf-8")
    section = md.split("## Luck and skill", 1)[1].split("\n## ")[0]
    margins = re.findall(r"([+-]?\d+\.\d\d) \(([^)]*)\)", section)
    assert margins, section
    for value, interval in margins:
        ends = interval.split(" to ")
        assert all(e[0] in "+-" or float(e) == 0 for e in ends), (value, interval)
    assert "-0.00" not in md and "-0.0%" not in md and "-0.0 " not in md


# -- decision times ----------------------------------------------------------------------------
def _timed(mean: float, p99: float) -> dict:
    return {
        "timing": [
            {
                "strategy": "slowbot",
                "decisions": 1000,
                "games_timed": 10,
                "mean": mean,
                "p99": p99,
                "per_game": mean * 100,
                "cpu_per_game": 0.01,
                "games": 160,
            },
            {
                "strategy": "greedy",
                "decisions": 0,
                "games_timed": 0,
                "mean": None,
                "p99": None,
                "per_game": None,
                "cpu_per_game": 0.001,
                "games": 160,
            },
        ]  # fmt: skip
    }


def test_a_mean_above_the_99th_percentile_is_explained_where_it_happens(capsys):
    from harness.commands.tourney import _print_costs
    from harness.report.pages.render import timing_notes

    assert timing_notes(_timed(2e-4, 5e-4)) == []
    notes = timing_notes(_timed(3e-3, 5e-4))
    assert len(notes) == 1 and notes[0].startswith("slowbot: the mean decision (3 ms)")
    assert "a few very slow decisions" in notes[0]
    _print_costs(_timed(3e-3, 5e-4))
    printed = " ".join(capsys.readouterr().out.split())
    assert "slowbot: the mean decision (3 ms) is above the 99th percentile (500 µs)" in printed


# -- charts ----------------------------------------------------------------------------------
def _close_field(tmp_path):
    """Three strategies whose win shares lie within a few points of the fair share."""
    rows = []
    for d in range(60):
        for r, seats in enumerate((["a", "b"], ["b", "a"])):
            winner = (
                ("a", "b", "a", "b", "b")[d % 5] if r == 0 else ("b", "a", "a", "b", "a")[d % 5]
            )
            rows.append(row("t1", d, r, seats, [5 if s == winner else 1 for s in seats]))
    return summarise_run(write_run(tmp_path / "close", rows, players=2))


def test_a_close_field_gets_a_zoomed_panel_whose_scale_is_said(tmp_path):
    from harness.report.charts.chart_style import ZOOM_STEPS

    summary = _close_field(tmp_path)
    fig = plots.figure_standings(summary)
    labels = [ax.get_xlabel() for ax in fig.axes]
    zoomed = [x for x in labels if "zoomed" in x]
    assert len(zoomed) == 1, labels
    half = re.search(r"50% ± (\d+) points", zoomed[0])
    assert half and int(half.group(1)) / 100 in ZOOM_STEPS
    ax = fig.axes[labels.index(zoomed[0])]
    low, high = ax.get_xlim()
    assert (low, high) == pytest.approx(
        (0.5 - int(half.group(1)) / 100, 0.5 + int(half.group(1)) / 100)
    )
    assert "win share (shared wins split)" in labels[0]  # the 0-1 panel stays
    assert ax.get_xlim() != fig.axes[0].get_xlim()


def test_the_luck_chart_reads_at_a_glance(tmp_path):
    mine = {"strategy": "threshold", "name": "mine", "params": {"target": 26}}
    config = {"name": "glance", "entrants": [mine, "greedy", "simple"], "deals": 20, "seed": 4}
    run = run_tournament({**config, "luck": "on", "engine": "python", "workers": 0}, out=tmp_path)
    summary = write_report(run.run_dir, plots=False).summary
    fig = plots.figure_luck(summary)
    what, regret, spread = fig.axes
    assert "minus raw win share (points)" in what.get_xlabel()  # no overlapping dots on 0-1
    strategy_colours = list(BUILTIN_COLOURS.values()) + list(PALETTE)
    fills = {tuple(p.get_facecolor()) for p in regret.patches}
    for fill in fills:
        hexed = "#" + "".join(f"{round(c * 255):02x}" for c in fill[:3])
        assert min(delta_e(hexed, c) for c in strategy_colours) >= MIN_DISTANCE, hexed
    # one spread per strategy (a thin and a thick bar and a median), not a line per bin
    lines = [x for x in spread.lines if x.get_linestyle() != "--"]
    assert len(lines) == 3 * len(summary["luck"]["standings"])
    assert all(len(x.get_xdata()) <= 2 for x in lines)


# -- plurals -----------------------------------------------------------------------------------
def test_one_of_a_thing_is_written_in_the_singular(tmp_path):
    rows = [
        row("t1", d, r, s, [5, 1]) for d in range(3) for r, s in enumerate((["a", "b"], ["b", "a"]))
    ]
    run = write_run(tmp_path / "one", rows, players=2)
    write_report(run, plots=False)
    md = (run / "report.md").read_text(encoding="utf-8")
    assert "1 table," in md and "table(s)" not in md and "(0 forfeits" in md
    result = CliRunner().invoke(main, ["play", "greedy"])
    assert "1 strategy given" in result.output
    assert plural(1, "strategy", "strategies") == "1 strategy"
    for text in (md, CliRunner().invoke(main, ["report", str(run), "--no-plots"]).output):
        assert not re.search(r"\b1 (games|forfeits|tables|chunks|deals|strategies|worms)\b", text)
