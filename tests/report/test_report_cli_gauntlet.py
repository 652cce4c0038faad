"""What ``harness report`` prints for a gauntlet: the challenger against each opponent,
then the entrants by rating marked as indirect, and never a rank of the field.

Hand-made gauntlets (test_report_gauntlet.gauntlet_rows) for exact numbers; one played
3-player gauntlet (harness.tourney.run_tournament, python engine) for the whole path.
"""

from __future__ import annotations

import re

from click.testing import CliRunner
from run_builders import write_run
from test_report_gauntlet import GAUNTLET, gauntlet_rows

from harness.cli import main
from harness.report import summarise_run
from harness.report.pages.render import los_text, pct, signed_span, span, standings_lines
from harness.tourney import run_tournament

# a rank column: a header starting "#", or an entrant's row starting with its place
RANK = re.compile(r"^\s*(#|\d+\s+[A-Za-z])")


def report_output(run) -> str:
    result = CliRunner().invoke(main, ["report", str(run), "--no-plots"])
    assert result.exit_code == 0, result.output
    return result.output


def gauntlet_run(tmp_path, **kw):
    return write_run(tmp_path / "r", gauntlet_rows(**kw), entrants=["c", "a", "b"], extra=GAUNTLET)


def row_of(lines: list[str], first: str) -> str:
    return next(x for x in lines if x.split() and x.split()[0] == first)


def test_the_challenger_table_per_opponent(tmp_path):
    run = gauntlet_run(tmp_path)
    out = report_output(run)
    lines = out.splitlines()
    g = summarise_run(run)["gauntlet"]
    assert "Gauntlet: c against each opponent:" in out
    for o in g["opponents"]:
        line = row_of(lines, o["opponent"])  # the challenger table comes first
        for text in (
            pct(o["share"]),
            span(o["low"], o["high"]),
            f"{o['elo']:+.0f}",
            signed_span(o["elo_low"], o["elo_high"], 1, 0),
            los_text(o["los"]),
        ):
            assert text in line, (text, line)
    assert "c overall: rating" in out


def test_a_gauntlet_never_prints_a_rank_column(tmp_path):
    out = report_output(gauntlet_run(tmp_path))
    assert not [x for x in out.splitlines() if RANK.match(x)], out
    assert "All entrants, by rating (indirect):" in out
    assert "Standings" not in out and "would separate" not in out


def test_the_entrants_are_in_rating_order_even_against_win_share(tmp_path):
    # c beats a and loses to b; b's win share (75%) and a's (25%) are against c only.
    run = gauntlet_run(tmp_path)
    summary = summarise_run(run)
    lines = standings_lines(summary)
    start = lines.index("All entrants, by rating (indirect):")
    names = [x.split()[0] for x in lines[start + 3 :]]  # after the header and rule
    by_elo = sorted(summary["standings"], key=lambda r: -r["elo"])
    assert names == [r["strategy"] for r in by_elo]


def test_the_terminal_table_is_the_report_table(tmp_path):
    run = gauntlet_run(tmp_path)
    out = report_output(run)
    md = (run / "report.md").read_text()
    section = md.split("## Gauntlet: c against each opponent")[1].split("\n## ")[0]
    table = [x for x in section.splitlines() if x.startswith(("| a |", "| b |"))]
    assert len(table) == 2
    for line in table:
        cells = [c.strip() for c in line.strip("|").split("|")]
        printed = row_of(out.splitlines(), cells[0])
        for cell in cells[1:]:
            assert cell in printed, (cell, printed)


def test_an_opponent_never_met_is_said_so_without_numbers(tmp_path):
    run = gauntlet_run(tmp_path, field=("a",), beats=(0.5,))
    out = report_output(run)
    line = row_of(out.splitlines(), "b")
    assert "never met" in line and "%" not in line


def test_a_round_robin_keeps_its_ranking(tmp_path):
    # The other branch: a round robin ranks by win share, with places.
    run = write_run(tmp_path / "r", gauntlet_rows(), entrants=["c", "a", "b"])
    out = report_output(run)
    lines = out.splitlines()
    header = next(x for x in lines if x.strip().startswith("#"))
    assert "strategy" in header and "win share" in header
    assert "indirect" not in out and "Gauntlet" not in out
    places = [x.split()[:2] for x in lines if re.match(r"^\s*\d+\s+[a-c]\b", x)]
    assert [p[0] for p in places] == ["1", "2", "3"]


def test_indirect_ranking_without_a_gauntlet_section_still_has_no_rank(tmp_path):
    # Attack: a summary whose ranking is indirect though its gauntlet is missing.
    summary = summarise_run(write_run(tmp_path / "r", gauntlet_rows(), entrants=["c", "a", "b"]))
    summary["ranking"] = {"by": "rating", "indirect": True, "note": ""}
    lines = standings_lines(summary)
    assert lines[0] == "All entrants, by rating (indirect):"
    assert not [x for x in lines if RANK.match(x)]


def test_a_played_three_player_gauntlet(tmp_path):
    config = {
        "name": "g3",
        "players": 3,
        "format": "gauntlet",
        "challenger": "greedy",
        "entrants": ["random", "threshold", "worm-first"],
        "deals": 8,
        "seed": 3,
        "engine": "python",
    }
    run = run_tournament(config, out=tmp_path, workers=1, progress=False, echo=lambda t: None)
    out = report_output(run.run_dir)
    assert "Gauntlet: greedy against each opponent:" in out
    for name in ("random", "threshold", "worm-first"):
        assert "%" in row_of(out.splitlines(), name)
    assert "All entrants, by rating (indirect):" in out
    assert not [x for x in out.splitlines() if RANK.match(x)], out


def test_tourney_no_report_on_a_gauntlet_sums_the_run_up_once(tmp_path, monkeypatch):
    """The table and its intervals come from one summary: --no-report computes it (no
    report.json to read), and the gauntlet's table reuses it instead of computing again."""
    import json

    from harness.report import api

    config = tmp_path / "g.json"
    config.write_text(
        json.dumps(
            {
                "name": "g2",
                "format": "gauntlet",
                "challenger": "greedy",
                "entrants": ["random", "threshold"],
                "deals": 6,
                "engine": "python",
            }
        )
    )
    calls = []
    real = api.summarise_run
    monkeypatch.setattr(api, "summarise_run", lambda *a, **k: calls.append(1) or real(*a, **k))
    args = ["tourney", str(config), "--out", str(tmp_path / "out"), "--no-report", "-q"]
    result = CliRunner().invoke(main, [*args, "--workers", "0"])
    assert result.exit_code == 0, result.output
    assert "Gauntlet: greedy against each opponent:" in result.output
    assert len(calls) == 1
