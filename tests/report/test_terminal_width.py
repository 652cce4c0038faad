"""The terminal's tables fit 100 columns by default, and a wider terminal gets more (issue
30, item 5); the luck-adjusted share says on which games it rests wherever it is shown.

Where the width comes from: ``COLUMNS`` when set, else the terminal stdout writes to,
else 100 (:func:`harness.report.pages.page.terminal_width`). Too wide, a table folds a column
whose cells are all the same into a line, leaves out the columns that say least (and
says which), then cuts itself into blocks that keep their key columns
(:func:`harness.report.pages.page.fit_table`). Real runs on the Python engine, a second each.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import harness
from harness.cli import main
from harness.report import write_report
from harness.report.pages.render import pct
from harness.tourney import run_tournament

README = Path(__file__).resolve().parents[2] / "README.md"
NARROW = {"COLUMNS": None}  # the default: no COLUMNS, no terminal (a pipe): 100 columns
LONG = "a-strategy-with-a-long-name(target=27)"
DEFAULT_WIDTH = 100  # harness.report.pages.page.DEFAULT_WIDTH


def _config(name: str, target: int = 26, **extra) -> dict:
    mine = {"strategy": "threshold", "name": LONG, "params": {"target": target}}
    return {
        "name": name,
        "entrants": [mine, "greedy", "optimal", "simple"],
        "deals": 8,
        "seed": 3,
        "luck": "auto",  # the account at optimal's tables only
        "engine": "python",
        "workers": 0,
        **extra,
    }


def _width(text: str, *paths: Path) -> int:
    """The widest line, leaving out those that name a path (a folder's name is not cut)."""
    lines = [x for x in text.splitlines() if not any(str(p) in x for p in paths)]
    return max((len(line) for line in lines), default=0)


@pytest.fixture(scope="module")
def league(tmp_path_factory) -> Path:
    """A config played three times, its long-named bot edited each time."""
    out = tmp_path_factory.mktemp("wide")
    for target in (25, 28, 26):
        run_tournament(_config("wide", target), out=out)
        time.sleep(0.01)
    return out / "wide"


def test_every_line_of_the_default_standings_fits_100_columns(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        "name: c\nentrants: [greedy, optimal, simple, 'threshold(target=28)', "
        "{strategy: threshold, name: " + LONG + ", params: {target: 27}}]\n"
        "deals: 6\nseed: 2\nluck: auto\nengine: python\nworkers: 0\n",
        encoding="utf-8",
    )
    args = ["tourney", str(config), "--out", str(tmp_path / "r"), "--no-report"]
    result = CliRunner().invoke(main, args, env=NARROW)
    assert result.exit_code == 0, result.output
    assert _width(result.output, tmp_path) <= DEFAULT_WIDTH, result.output
    # what gave way is said, and the luck columns say on which games they rest
    assert "(left out to fit 100 columns: mean rank" in result.output
    assert "adj. on" in result.output and "luck-adj.: " in result.output
    wide = CliRunner().invoke(main, [*args, "--fresh"], env={"COLUMNS": "200"})
    header = next(x for x in wide.output.splitlines() if x.startswith("#  strategy"))
    assert "mean rank" in header and "left out" not in wide.output


def test_harness_report_and_compare_fit_100_columns(league, tmp_path):
    report = CliRunner().invoke(main, ["report", str(league), "--no-plots"], env=NARROW)
    assert report.exit_code == 0, report.output
    assert _width(report.output, league) <= DEFAULT_WIDTH, report.output
    args = [str(league), "--last", "3", "--focus", LONG, "--out", str(tmp_path / "c")]
    result = CliRunner().invoke(main, ["compare", *args], env=NARROW)  # 215 columns before
    assert result.exit_code == 0, result.output
    assert _width(result.output, tmp_path, league) <= DEFAULT_WIDTH, result.output
    assert "luck-adjusted" in result.output  # the columns are there, not cut away
    assert f"{LONG}'s head to head" in result.output


def test_the_width_comes_from_columns_then_the_terminal_then_100(monkeypatch):
    from harness.report.pages.page import terminal_width

    monkeypatch.delenv("COLUMNS", raising=False)
    assert terminal_width(io.StringIO()) == DEFAULT_WIDTH  # not a terminal
    monkeypatch.setenv("COLUMNS", "160")
    assert terminal_width(io.StringIO()) == 160
    monkeypatch.setenv("COLUMNS", "12")
    assert terminal_width(io.StringIO()) == 40  # never below 40
    monkeypatch.setenv("COLUMNS", "wide")
    assert terminal_width(io.StringIO()) == DEFAULT_WIDTH


def test_a_table_folds_gives_way_then_cuts_keeping_its_key_columns():
    from harness.report.pages.page import fit_table

    header = ["strategy", "run", "difference", "95% CI", "more", "95% CI", "compared"]
    rows = [[f"s{i}", "B − A", "+1.0 pts *", "+0.1 to +1.9", "x" * 25, "y" * 20, "same"]
            for i in range(3)]  # fmt: skip
    lines = fit_table(header, rows, 60, key=1, groups=[[2, 3], [4, 5]], fold=[1, 6])
    assert lines[0] == "run: B − A; compared: same (every row)"
    assert all(len(line) <= 60 for line in lines)
    blocks = [i for i, line in enumerate(lines) if line.startswith("strategy")]
    assert len(blocks) == 2  # cut once, the strategy repeated in each block
    assert lines[blocks[0]].split()[1:] == ["difference", "95%", "CI"]  # a group stays whole
    assert lines[blocks[1]].split()[1:] == ["more", "95%", "CI"]
    given = fit_table(header, rows, 60, key=1, give_way=[("more", [4, 5])])
    assert "(left out to fit 60 columns: more;" in " ".join(given)


def _table(md: str, start: str) -> list[list[str]]:
    """The header and rows of the markdown table whose header line starts with ``start``."""
    lines = md.splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith(start))
    out = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        out.append([c.strip().replace("\\", "") for c in line.strip().strip("|").split("|")])
    return [out[0]] + out[2:]


def test_the_report_shows_the_terminals_luck_adjusted_share_and_its_games(tmp_path):
    from harness.report.pages.standings_text import standings_text

    played = run_tournament(_config("lucky"), out=tmp_path)
    write_report(played.run_dir, plots=False)
    run = harness.load_run(played.run_dir)  # its counts with the report's figures
    md = (run.run_dir / "report.md").read_text(encoding="utf-8")
    standings = _table(md, "| \\# |")
    header, rows = standings[0], standings[1:]
    assert header[5:8] == ["luck-adjusted", "95% CI", "adj. on"]
    lines = standings_text(run.counts, 250)[2 : 2 + len(run.counts)]
    terminal = {cells[1]: cells for cells in (re.split(r"\s{2,}", x.strip()) for x in lines)}
    counts = {r["strategy"]: r for r in run.counts}
    for row in rows:
        mine = counts[row[1]]
        assert row[5] == pct(mine["win_adj"]) == terminal[row[1]][5]
        assert row[7] == pct(mine["luck_games"] / mine["games"], 0) == terminal[row[1]][7]
    # optimal kept the account in every game, the others only against it
    assert {r[1]: r[7] for r in rows}["optimal"] == "100%"
    assert {r[7] for r in rows if r[1] != "optimal"} == {"33%"}
    # the luck table: a strategy's games are all its games, beside the share adjusted
    luck = _table(md, "| strategy | games | adj. on |")
    for row in luck[1:]:
        assert row[1] == f"{counts[row[0]]['games']:,}"
        assert row[2] == pct(counts[row[0]]["luck_games"] / counts[row[0]]["games"], 0)


def test_a_notebooks_run_shows_the_luck_adjusted_share(tmp_path):
    from harness.tourney.runner import report_run

    run = run_tournament(_config("note"), out=tmp_path)
    report_run(run, write=False)  # what report=True puts into the counts (no files here)
    assert "luck-adj." in repr(run)  # the Run the call returns
    write_report(run.run_dir, plots=False)
    shown = repr(harness.load_run(run.run_dir))  # and the one a notebook loads
    assert "luck-adj." in shown and "adj. on" in shown and "95% CI" in shown
    assert _width(shown, tmp_path) <= DEFAULT_WIDTH


def test_the_readme_shows_what_its_first_command_prints(tmp_path):
    text = README.read_text(encoding="utf-8")
    command = "harness tourney configs/round_robin.yaml"
    assert command in text
    sample = text.split("The first prints standings", 1)[1].split("```\n", 2)[1]
    assert _width(sample) <= DEFAULT_WIDTH
    config = Path(__file__).resolve().parents[2] / "configs" / "round_robin.yaml"
    args = ["tourney", str(config), "--deals", "2", "--engine", "python", "--workers", "0"]
    args += ["--out", str(tmp_path), "--no-report", "-q"]
    result = CliRunner().invoke(main, args, env=NARROW)
    assert result.exit_code == 0, result.output
    real = result.output.splitlines()
    shown = sample.splitlines()
    assert shown[0].split() == real[0].split()  # the same columns, in the same order
    first_note = next(x for x in real if x.startswith("("))
    assert first_note in shown
