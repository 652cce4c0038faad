"""The written comparison (compare.md / compare.html) and its forest plot say what the
terminal says: how each difference was compared (paired on N deals, unpaired, identical),
the rows' notes, "x fair" across player counts, refused tests, and why runs are unpaired.

Real runs (harness.tourney.run_tournament, python engine, a few hundred games) for what a
user sees; hand-made run folders for player counts that differ; hand-made comparison
dicts for malformed cells an attacker would try (an identical row that carries an
interval, a refused test that carries numbers).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from matplotlib.container import ErrorbarContainer
from run_builders import row, write_run
from test_compare_paired import duel

from harness.cli import main
from harness.report import cached_summary, summarise_run
from harness.report.charts import plots
from harness.report.comparisons.compare import compare
from harness.report.pages.render import (
    DASH,
    compare_blocks,
    compare_notes,
    compared_how,
    diff_cells,
    to_html,
    to_markdown,
)
from harness.tourney import run_tournament

DEALS = 20
INTERVAL = re.compile(r"[+-]\d+(\.\d+)? to [+-]\d+(\.\d+)?")


def config(target: int, *, seed: int = 5) -> dict:
    thr = {"strategy": "threshold", "params": {"target": target}, "name": "thr"}
    return {
        "name": f"render{target}s{seed}",
        "entrants": ["greedy", "random", thr],
        "deals": DEALS,
        "seed": seed,
        "workers": 0,
        "engine": "python",
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("res")
    made = {
        "26": run_tournament(config(26), out=out / "a").run_dir,
        "26-again": run_tournament(config(26), out=out / "b", fresh=True).run_dir,
        "27": run_tournament(config(27), out=out / "a").run_dir,
        "27-seed": run_tournament(config(27, seed=6), out=out / "a").run_dir,
    }
    return made


def summaries(runs: dict[str, Path], *keys: str) -> list[dict]:
    return [cached_summary(runs[k]) for k in keys]


def markdown(comparison: dict, tmp_path: Path) -> str:
    return to_markdown(compare_blocks(comparison, {}), tmp_path)


def diff_row(md: str, strategy: str, run: str = "B", measure: str = "Win share") -> list[str]:
    """The cells of ``measure``'s difference table's row for ``strategy`` in ``run``:
    strategy, run, difference, 95% CI, [luck-adjusted, 95% CI, adj. on,] compared."""
    section = md.split(f"## {measure}: ")[1].split("\n## ")[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:2] == [strategy, f"{run} − A"]:
            return cells
    raise AssertionError(f"no difference row for {strategy} / {run}")


def two_and_four(tmp_path: Path) -> dict:
    """A comparison across player counts: shares relative to the fair share, no worms test."""
    two = duel(tmp_path / "two", lambda d, r: d % 2 == 0 or r == 0, deals=30)
    rows = []
    for d in range(30):
        for r in range(4):
            seats = ["a", "b", "c", "d"][r:] + ["a", "b", "c", "d"][:r]
            winner = "a" if d % 4 < 2 else "bcd"[d % 3]
            rows.append(row("t", d, r, seats, [6 if s == winner else 1 for s in seats]))
    four = write_run(tmp_path / "four", rows, players=4)
    return compare([summarise_run(two), summarise_run(four)])


# -- identical: the word, never an interval --------------------------------------------------
def test_identical_rows_say_identical_and_show_no_interval(runs, tmp_path):
    comparison = compare(summaries(runs, "26", "26-again"))
    md = markdown(comparison, tmp_path)
    for s in comparison["strategies"]:
        for measure in ("Win share", "Mean worms"):
            cells = diff_row(md, s["strategy"], measure=measure)
            assert cells[-1].startswith("identical, ") and cells[-1].endswith(" games")
            assert cells[2:-1] == ["identical", DASH]
            assert not INTERVAL.search(" ".join(cells)), cells
    html = to_html(compare_blocks(comparison, {}), "Runs compared")
    # (head-to-head pairs are always compared unpaired: only the strategies' part here)
    strategies = html.split("Shared head-to-head")[0]
    assert "identical" in strategies and not INTERVAL.search(strategies) and "pts" not in strategies


def test_an_identical_row_hides_any_interval_it_carries(runs):
    # Attack: a diff marked identical that still carries an interval and a p-value.
    comparison = compare(summaries(runs, "26", "26-again"))
    d = copy.deepcopy(comparison["strategies"][0]["diffs"][0])
    for key in ("win_share", "worms"):
        d[key].update(diff=0.02, low=-0.1, high=0.1, p=0.5, p_holm=0.5)
    assert diff_cells(d, "win_share") == ("identical", DASH)
    assert diff_cells(d, "worms") == ("identical", DASH)
    assert compared_how(d).startswith("identical")


def test_the_terminal_and_the_files_describe_each_row_alike(runs, tmp_path):
    out = tmp_path / "cmp"
    args = ["compare", str(runs["26"]), str(runs["27"]), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    comparison = compare(summaries(runs, "26", "27"))
    md = (out / "compare.md").read_text()
    html = (out / "compare.html").read_text()
    for s in comparison["strategies"]:
        d = s["diffs"][0]
        how = compared_how(d)
        assert how == f"paired, {DEALS} deals"
        assert diff_row(md, s["strategy"])[-1] == how
        text, interval = diff_cells(d, "win_share")
        win = result.output.split("Win share: ")[1]
        line = next(x for x in win.splitlines() if x.strip().startswith(s["strategy"]))
        assert text.strip() in line and interval in line
        assert how in line or f"compared: {how} (every row)" in win
        assert interval in html
    for line in compare_notes(comparison):
        assert line in result.output and line in md


def test_an_unpaired_run_says_why_once(runs, tmp_path):
    comparison = compare(summaries(runs, "27", "27-seed"))
    md = markdown(comparison, tmp_path)
    reason = "run B is compared unpaired with A: different seeds (5 and 6)"
    assert comparison["pairing"] == [reason]
    assert md.count(reason) == 1
    # each row's note only repeats its run's reason: not said again per strategy
    assert md.count("unpaired: different seeds") == 0
    for s in comparison["strategies"]:
        cells = diff_row(md, s["strategy"])
        assert cells[-1] == "unpaired" and INTERVAL.search(cells[3])


def test_a_partly_paired_note_names_its_strategies(runs, tmp_path):
    comparison = copy.deepcopy(compare(summaries(runs, "26", "27")))
    d = comparison["strategies"][0]["diffs"][0]
    d["note"] = "paired on 10 games (A has 20, B 20): the others have no twin"
    lines = compare_notes(comparison)
    name = comparison["strategies"][0]["strategy"]
    assert lines == [f"B − A, {name}: {d['note']}"]
    assert f"B − A, {name}: {d['note']}" in markdown(comparison, tmp_path)


# -- different player counts ---------------------------------------------------------------
def test_player_counts_say_x_fair_and_the_refused_worms_test(tmp_path):
    comparison = two_and_four(tmp_path)
    md = markdown(comparison, tmp_path)
    cells = diff_row(md, "a")
    assert cells[-1] == "unpaired"
    assert cells[2].rstrip(" *°").endswith(" x fair") and "pts" not in cells[2]
    assert re.fullmatch(r"[+-]\d+\.\d\d to [+-]\d+\.\d\d", cells[3])
    assert diff_row(md, "a", measure="Mean worms")[2:4] == ["not compared", DASH]
    assert "- x fair: win shares relative to the fair share 1/players (1.0 = fair)." in md
    refusal = (
        "B − A: mean worms not compared (mean worms are not comparable between 2 and 4 players)"
    )
    assert md.count(refusal) == 1  # once per run, not once per strategy
    assert "run B is compared unpaired with A: different player counts (2 and 4)" in md
    # the rows' note adds only what its run's line does not say
    assert "- B − A, a, b: win shares relative to the fair share (1/2 and 1/4): 1.0 is fair" in md
    assert md.count("different player counts") == 1
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "two"), str(tmp_path / "four")])
    assert result.exit_code == 0, result.output
    assert " x fair" in result.output and refusal in result.output


def test_the_matched_names_are_listed(runs, tmp_path):
    comparison = copy.deepcopy(compare(summaries(runs, "26", "27")))
    comparison["match"] = {"thr": "thr2"}
    assert "thr = thr2" in markdown(comparison, tmp_path)


# -- the forest plot ---------------------------------------------------------------------------
@pytest.fixture
def captured(monkeypatch):
    figs: dict[str, object] = {}

    def keep(fig, path):
        figs[path.stem] = fig
        return path

    monkeypatch.setattr(plots, "_save", keep)
    return figs


def data_lines(ax) -> list:
    """Lines that draw data (not the dashed zero line, not empty legend stand-ins)."""
    return [
        line
        for line in ax.lines
        if line.get_linestyle() != "--" and len(line.get_xdata()) and line.get_marker() != "|"
    ]


def test_a_refused_worms_test_draws_nothing(tmp_path, captured):
    comparison = two_and_four(tmp_path)
    plots.plot_compare_diffs(comparison, tmp_path / "compare_diffs.png")
    win, worms = captured["compare_diffs"].axes
    assert not [c for c in worms.containers if isinstance(c, ErrorbarContainer)]
    assert data_lines(worms) == [] and not worms.collections
    (text,) = worms.texts
    assert (
        text.get_text() == "not compared\n(mean worms are not comparable between 2 and 4 players)"
    )
    assert len([c for c in win.containers if isinstance(c, ErrorbarContainer)]) == 2
    assert "fair share" in win.get_xlabel()


def test_a_refused_cell_with_numbers_still_draws_nothing(tmp_path, captured):
    # Attack: a refusal that also carries a difference and an interval.
    comparison = two_and_four(tmp_path)
    for s in comparison["strategies"]:
        s["diffs"][0]["worms"].update(diff=0.5, low=0.1, high=0.9)
    plots.plot_compare_diffs(comparison, tmp_path / "compare_diffs.png")
    worms = captured["compare_diffs"].axes[1]
    assert not worms.containers and data_lines(worms) == []


def test_identical_cells_are_marked_and_have_no_interval(runs, tmp_path, captured):
    comparison = compare(summaries(runs, "26", "26-again"))
    # Attack: an identical cell that carries an interval must not draw it.
    comparison["strategies"][0]["diffs"][0]["win_share"].update(low=-0.2, high=0.2)
    plots.plot_compare_diffs(comparison, tmp_path / "compare_diffs.png")
    fig = captured["compare_diffs"]
    for ax in fig.axes:
        assert not [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        stars = [line for line in data_lines(ax) if line.get_marker() == plots.IDENTICAL_MARKER]
        assert len(stars) == len(comparison["strategies"])
        assert {float(line.get_xdata()[0]) for line in stars} == {0.0}
        colours = {line.get_color() for line in stars}
        assert colours == {plots.strategy_colour(s["strategy"]) for s in comparison["strategies"]}
        assert [t.get_text() for t in ax.texts].count("identical") == len(stars)
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert "identical games (exactly 0)" in labels


def test_paired_cells_keep_their_interval_and_colour(runs, tmp_path, captured):
    comparison = compare(summaries(runs, "26", "27"))
    plots.plot_compare_diffs(comparison, tmp_path / "compare_diffs.png")
    win = captured["compare_diffs"].axes[0]
    bars = [c for c in win.containers if isinstance(c, ErrorbarContainer)]
    changed = [s for s in comparison["strategies"] if not s["diffs"][0]["identical"]]
    assert changed and len(bars) == len(changed)
    assert {c.lines[0].get_color() for c in bars} == {
        plots.strategy_colour(s["strategy"]) for s in changed
    }
    assert all(c.has_xerr for c in bars)
