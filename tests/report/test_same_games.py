"""Entrants that played the same games are named (issue 30, item 5): a swept parameter the
strategy ignores looked like a measured tie.

A real sweep of an ignored parameter is flagged in the terminal's standings, the report
and its summary; a sweep whose values matter, a mirror match and independent dice are
not. Then hand-made runs attack the comparison (harness/report/summaries/same_games.py):
one differing figure of one game, a game missing, results moved to another deal or seat
order, and the games of the two together, each must break the match.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from run_builders import row, write_run

from harness.cli import main
from harness.report.api import cached_summary
from harness.report.summaries.aggregate import aggregate
from harness.report.summaries.summary import summarise

pytestmark = pytest.mark.engine

IGNORES = '''
from harness.strategy import Strategy


class Ign(Strategy):
    """Keeps the highest face, stops at 25; its knob is never read."""

    name = "ign"

    def __init__(self, knob: int = 1):
        self.knob = knob

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= 25
'''


def tourney(tmp_path: Path, entrants: str, *extra: str) -> tuple[str, dict, Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "ign.py").write_text(IGNORES)
    config = tmp_path / "sweep.yaml"
    config.write_text(f"name: sweep\nentrants:\n{entrants}deals: 30\nseed: 3\n")
    out = tmp_path / "out"
    args = ["tourney", str(config), "--out", str(out), "--workers", "0", *extra]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    run = next(out.glob("sweep/*/run.json")).parent
    return result.output, cached_summary(run), run


def test_a_sweep_of_an_ignored_parameter_is_named_in_standings_and_report(tmp_path):
    entrants = "  - greedy\n  - strategy: ign.py:Ign\n    sweep: {knob: [1, 2, 3]}\n"
    output, summary, run = tourney(tmp_path, entrants, "--no-report")
    (group,) = summary["same_games"]
    assert group["entrants"] == ["ign(knob=1)", "ign(knob=2)", "ign(knob=3)"]
    assert group["games"] == 30 * 2 * 3  # vs greedy, and vs each other (2 players)
    said = "ign(knob=1), ign(knob=2) and ign(knob=3) played the same games"
    assert summary["headlines"][0].startswith(said)
    terminal = " ".join(output.split())  # the NOTE is wrapped at 100 columns
    assert f"NOTE: {said}" in terminal
    assert all(len(line) <= 100 for line in output.splitlines() if "same games" in line)
    report = CliRunner().invoke(main, ["report", str(run), "--no-plots"])
    assert report.exit_code == 0, report.output
    assert f"- {said}" in report.output
    assert said in (run / "report.md").read_text().replace("\\", "")


def test_a_sweep_that_matters_a_mirror_and_independent_dice_are_not_named(tmp_path):
    entrants = (
        "  - greedy\n  - {strategy: greedy, name: greedy-again}\n"
        "  - strategy: threshold\n    sweep: {target: [24, 27]}\n"
    )
    _, summary, _ = tourney(tmp_path, entrants, "--no-report")
    assert summary["same_games"] == [] and summary["headlines"] == []
    entrants = "  - greedy\n  - strategy: ign.py:Ign\n    sweep: {knob: [1, 2]}\n"
    _, summary, _ = tourney(tmp_path / "i", entrants + "dice: independent\n", "--no-report")
    assert summary["same_games"] == []


# -- hand-made runs: the comparison attacked ---------------------------------------------------
def twin_rows() -> list[dict]:
    """A, B and C at 2 players, 4 deals in both seat orders: B plays exactly A's games
    against C, and A v B is the same game in either order (seat for seat)."""
    rows = []
    for deal in range(4):
        w0, w1 = 3 + deal, 2 * deal % 5
        for me in ("A", "B"):
            rows.append(row(f"{me}C", deal, 0, [me, "C"], [w0, w1], busts=[1, deal]))
            rows.append(row(f"{me}C", deal, 1, ["C", me], [w1 + 1, w0], busts=[deal, 2]))
        rows.append(row("AB", deal, 0, ["A", "B"], [deal, 4], steals=[1, 0]))
        rows.append(row("AB", deal, 1, ["B", "A"], [deal, 4], steals=[1, 0]))
    return rows


def same_games(tmp_path: Path, rows: list[dict], **run: object) -> list[dict]:
    folder = write_run(tmp_path / "run", rows, entrants=["A", "B", "C"], **run)
    return summarise(aggregate(folder))["same_games"]


def test_entrants_that_played_the_same_games_are_found_with_their_games_counted(tmp_path):
    assert same_games(tmp_path, twin_rows()) == [{"entrants": ["A", "B"], "games": 16}]


def _change(rows: list[dict], table: str, deal: int, seating: int, **values: object) -> None:
    for r in rows:
        if (r["table"], r["deal"], r["seating"]) == (table, deal, seating):
            r.update(values)
            return
    raise AssertionError("no such game")


@pytest.mark.parametrize(
    "edit",
    [
        {"turns": 41},
        {"seat0_busts": 5},
        {"seat1_worms": 9, "seat1_rank": 1, "seat0_rank": 2},
        {"seat1_steals": 1},
        {"seat0_stolen": 1},
        {"status": "turn-cap"},
        {"status": "forfeit", "error_seat": 1, "error": "turn 1, seat 1 (C) raised"},
    ],
)
def test_one_figure_of_one_game_breaks_the_match(tmp_path, edit):
    rows = twin_rows()
    _change(rows, "BC", 2, 1, **edit)
    assert same_games(tmp_path, rows) == []


def test_a_game_of_the_two_together_breaks_it_too(tmp_path):
    rows = twin_rows()
    _change(rows, "AB", 3, 1, seat0_busts=2)
    assert same_games(tmp_path, rows) == []


def test_a_missing_game_breaks_it(tmp_path):
    rows = [r for r in twin_rows() if (r["table"], r["deal"], r["seating"]) != ("BC", 0, 0)]
    assert same_games(tmp_path, rows) == []


def test_results_moved_to_another_deal_or_seat_order_break_it(tmp_path):
    rows = twin_rows()
    b = [r for r in rows if r["table"] == "BC"]
    for r in b:  # the same results, one deal later (the multiset of outcomes is unchanged)
        r["deal"] = (r["deal"] + 1) % 4
    assert same_games(tmp_path, rows) == []
    rows = twin_rows()
    for r in rows:  # B's results in the other seat order: C's seat and B's swapped
        if r["table"] == "BC":
            r["seating"] = 1 - r["seating"]
            r["seat0_strategy"], r["seat1_strategy"] = r["seat1_strategy"], r["seat0_strategy"]
    assert same_games(tmp_path, rows) == []


def test_independent_dice_and_a_mirror_are_left_alone(tmp_path):
    assert same_games(tmp_path / "i", twin_rows(), dice="independent") == []
    folder = write_run(tmp_path / "m", twin_rows(), entrants=["A", "B", "C"])
    run_json = folder / "run.json"
    config = json.loads(run_json.read_text())
    for e in config["entrants"]:
        if e["name"] in ("A", "B"):
            e["ref"] = "same"  # one strategy under two names: expected to be equal
    run_json.write_text(json.dumps(config))
    assert summarise(aggregate(folder))["same_games"] == []


def test_without_every_order_the_games_together_are_left_out(tmp_path):
    """3 players, cyclic design: A v B games have no twin order; the games against the
    others still decide, and a difference in them still counts."""
    design = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    rows = []
    for deal in range(3):
        for k, order in enumerate(design):
            for me in ("A", "B"):
                names = [me, "C", "D"]
                seats = [names[e] for e in order]
                worms = [deal + i for i in range(3)]
                rows.append(row(f"{me}CD", deal, k, seats, worms))
            names = ["A", "B", "C"]  # the games of the two together: anything
            rows.append(row("ABC", deal, k, [names[e] for e in order], [k, deal, 1]))
    extra = {"seating": "cyclic", "design": design}
    found = same_games(tmp_path / "x", rows, players=3, extra=extra)
    assert found == [{"entrants": ["A", "B"], "games": 9}]
    _change(rows, "BCD", 1, 2, seat2_busts=3)
    assert same_games(tmp_path / "y", rows, players=3, extra=extra) == []
