"""`harness analyze turn`: boards, the analysis report, the CLI and the Monte Carlo check
through the real engine (issue 5)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.analysis.board import TurnBoard, parse_tiles, tile_ranges
from harness.analysis.report import analyze_turn, parse_kept
from harness.analysis.simulate import simulate, verdict
from harness.errors import HarnessError

ROOT = Path(__file__).resolve().parents[2]


# -- boards ----------------------------------------------------------------------------
def test_board_claims_follow_r7():
    board = TurnBoard(grill=(22, 25, 30), tops=(23, 33), held=21)
    assert board.claim(21) is None  # below the lowest grill tile, no top 21 to steal
    assert board.claim(22) == (22, False)
    assert board.claim(23) == (22, False)  # steal 23 (1 worm) = grill 22 (1 worm): grill
    assert board.claim(29) == (25, False)  # the highest grill tile <= 29
    assert board.claim(33) == (33, True)  # the steal of 33 (4 worms) beats 30 (3)
    assert board.claim(40) == (30, False)
    assert board.bust_gain == -1
    assert not board.stoppable(21)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"grill": (21, 21)}, "tile 21 is twice"),
        ({"grill": (21, 22), "tops": (22,)}, "tile 22 is on the grill and an opponent's top"),
        ({"grill": (21,), "held": 21}, "tile 21 is on the grill and your top"),
        ({"grill": (21,), "held": 40}, "40 is not a tile 21-36 \\(R1\\)"),
        ({"grill": ()}, "the grill is empty"),
    ],
)
def test_impossible_boards_are_one_line_errors(kwargs, message):
    with pytest.raises(HarnessError, match=message) as info:
        TurnBoard(**kwargs)
    assert "\n" not in str(info.value)


def test_tile_lists_parse_and_print():
    assert parse_tiles("21-24,27 30-31", "--grill") == (21, 22, 23, 24, 27, 30, 31)
    assert tile_ranges((21, 22, 23, 24, 27, 30, 31)) == "21-24,27,30-31"
    for text, message in [
        ("21-x", "not a number or a range"),
        ("25-21", "empty range"),
        ("20", "20 is not a tile"),
        ("21,21", "given twice"),
    ]:
        with pytest.raises(HarnessError, match=message):
            parse_tiles(text, "--grill")


def test_kept_faces_parse():
    assert parse_kept("W,w 5") == (6, 6, 5)
    with pytest.raises(HarnessError, match="not a face"):
        parse_kept("7")
    with pytest.raises(HarnessError, match="9 dice"):
        parse_kept("1 " * 9)


# -- the analysis ------------------------------------------------------------------------
def test_a_steal_below_the_grill_is_a_way_to_stop():
    """Grill 25-36: reaching 21 is reaching 25 (R7); an opponent's top 23 adds a stop."""
    plain = analyze_turn(TurnBoard(grill=tuple(range(25, 37))), targets=[21, 25])
    full = analyze_turn(TurnBoard(), targets=[25])
    assert plain.targets[0]["at_least"] == pytest.approx(full.targets[0]["at_least"], abs=1e-15)
    steal = analyze_turn(TurnBoard(grill=tuple(range(25, 37)), tops=(23,)), targets=[21, 23])
    assert steal.targets[0]["at_least"] > plain.targets[0]["at_least"]
    exactly_23 = analyze_turn(TurnBoard(), targets=[23]).targets[0]["exactly"]
    assert steal.targets[1]["exactly"] == pytest.approx(exactly_23, abs=1e-15)


def test_expected_worms_distribution_with_a_held_tile():
    board = TurnBoard(grill=tuple(range(25, 37)), tops=(23,), held=24)
    worms = analyze_turn(board, policies=["expected-worms"]).worms
    assert sum(worms["gains"].values()) == pytest.approx(1, abs=1e-14)
    assert worms["gains"][-1] == pytest.approx(worms["bust"], abs=1e-15)  # 24 lost
    assert worms["mean_check"] == pytest.approx(worms["mean"], abs=1e-13)
    assert worms["claims"][23, True] > 0  # the steal is taken
    exact = analyze_turn(board, policies=["expected-worms"], exact=True).worms
    assert exact["mean"] == exact["mean_check"]  # exactly, as Fractions
    assert float(exact["mean"]) == pytest.approx(worms["mean"], abs=1e-13)


def test_holding_a_tile_makes_the_expected_worms_policy_safer():
    free = analyze_turn(TurnBoard(), policies=["expected-worms"]).worms
    held = analyze_turn(TurnBoard(grill=tuple(range(21, 36)), held=36)).worms
    assert held["bust"] < free["bust"]


def test_mid_turn_analysis_can_stop_at_once():
    """Kept 4 worms and 4 fives (40): all dice kept, the claim is certain (R6, R7)."""
    result = analyze_turn(TurnBoard(), kept=parse_kept("W W W W 5 5 5 5"), targets=[36])
    assert result.targets[0]["at_least"] == 1
    assert result.worms["gains"] == {4: 1.0}


# -- the README / docs table of P(>= t) ----------------------------------------------------
TABLE_ROW = re.compile(r"^\|\s*(\d\d)\s*\|\s*(0\.\d{15})\s*\|\s*(0\.\d{15})\s*\|\s*$")


def _tables() -> dict[str, dict[int, tuple[str, str]]]:
    found = {}
    for name in ("docs/analysis.md", "README.md"):
        path = ROOT / name
        if not path.exists():
            continue
        rows = {}
        for line in path.read_text().splitlines():
            m = TABLE_ROW.match(line)
            if m:
                rows[int(m.group(1))] = (m.group(2), m.group(3))
        if rows:
            found[name] = rows
    return found


@pytest.fixture(scope="module")
def exact_table(exact_turn) -> dict[int, tuple[str, str]]:
    return {
        t: (
            f"{float(exact_turn('at_least', t).start):.15f}",
            f"{float(exact_turn('exactly', t).start):.15f}",
        )
        for t in range(21, 37)
    }


def test_the_published_turn_table_is_exact(exact_table):
    """docs/analysis.md (and README.md once it carries the table) give P(>= t) and
    P(= t) at turn start for t = 21..36, to 15 decimals of the exact rationals."""
    tables = _tables()
    assert "docs/analysis.md" in tables
    for name, rows in tables.items():
        assert sorted(rows) == list(range(21, 37)), name
        assert rows == exact_table, name


def test_the_docs_say_where_the_default_output_differs(cli, exact_table):
    """The published table is the exact one; the default (float64) output differs from it
    in one digit, and docs/analysis.md names that row and the value the user sees."""
    out = cli("analyze", "turn").output
    shown = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].isdigit() and 21 <= int(parts[0]) <= 36:
            shown[int(parts[0])] = (parts[1], parts[2])
    assert sorted(shown) == list(range(21, 37))
    differ = {t for t in shown if shown[t] != exact_table[t]}
    doc = (ROOT / "docs" / "analysis.md").read_text(encoding="utf-8")
    for t in differ:
        assert f"P(>= {t}) is {shown[t][0]} there" in doc, t
    assert len(differ) <= 1


# -- the command line ----------------------------------------------------------------------
def test_cli_prints_the_published_figures(cli):
    result = cli("analyze", "turn")
    assert result.exit_code == 0
    assert "0.893026737150746" in result.output
    assert "0.439596789623015" in result.output
    assert "1.6447296740" in result.output


def test_cli_json(cli):
    result = cli("analyze", "turn", "--json", "--targets", "21,30")
    data = json.loads(result.output)
    assert [r["target"] for r in data["max_success"]] == [21, 30]
    assert data["max_success"][0]["p_at_least"] == pytest.approx(0.893026737150746, abs=1e-15)
    assert data["expected_worms"]["mean"] == pytest.approx(1.644729674040, abs=1e-12)
    assert data["board"] == {"grill": list(range(21, 37)), "tops": [], "held": None}


def test_cli_exact_json_carries_fractions(cli):
    result = cli("analyze", "turn", "--json", "--exact", "--targets", "21")
    data = json.loads(result.output)
    num, den = map(int, data["max_success"][0]["p_at_least_fraction"].split("/"))
    assert f"{num / den:.15f}" == "0.893026737150746"
    assert data["arithmetic"] == "exact"


def test_cli_held_tile_leaves_the_default_grill(cli):
    result = cli("analyze", "turn", "--held", "23", "--policy", "expected-worms", "--json")
    data = json.loads(result.output)
    assert 23 not in data["board"]["grill"] and data["board"]["held"] == 23
    assert "max_success" not in data
    assert data["expected_worms"]["gains"][0]["worms"] == -1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--grill", "21-40"], "--grill: 37 is not a tile 21-36 (R1)"),
        (["--grill", "21-30", "--held", "25"], "tile 25 is on the grill and your top"),
        (["--tops", "x"], "--tops: 'x' is not a number or a range"),
        (["--targets", "50"], "--targets: 50 is not a total 0-40 of 8 dice"),
        (["--kept", "W,7"], "--kept: '7' is not a face 1-5 or W (R2)"),
        (["--kept", "W", "--simulate", "10"], "--simulate plays whole turns"),
    ],
)
def test_cli_bad_arguments_are_one_line_errors(cli, args, message):
    result = cli("analyze", "turn", *args)
    assert result.exit_code != 0
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(error_lines) == 1 and message in error_lines[0]
    assert "Traceback" not in result.output


# -- simulated against exact, through the engine ---------------------------------------------
def test_simulation_through_the_engine_agrees_with_the_exact_values():
    board = TurnBoard(grill=tuple(range(22, 37)), tops=(21,))
    analysis = analyze_turn(board, targets=[21, 25])
    checks = simulate(analysis, 3000, seed=11)
    summary = verdict(checks)
    assert summary["passed"], [c.to_json() for c in checks if not c.within]
    assert summary["within_95"] >= summary["count"] - 2
    again = simulate(analysis, 3000, seed=11)
    assert [c.simulated for c in again] == [c.simulated for c in checks]  # seeded


def test_simulation_would_notice_a_wrong_value():
    """The check has teeth: a deliberately wrong exact value falls far outside."""
    analysis = analyze_turn(TurnBoard(), targets=[25], policies=["max-success"])
    analysis.targets[0]["at_least"] -= 0.05
    checks = simulate(analysis, 3000, seed=3)
    assert not checks[0].within and abs(checks[0].z) > 5
    assert not verdict(checks)["passed"]


def test_cli_simulate_reports_agreement(cli):
    result = cli("analyze", "turn", "--simulate", "400", "--seed", "2", "--targets", "25", "--json")
    data = json.loads(result.output)["simulation"]
    assert data["turns_per_policy"] == 400 and data["seed"] == 2
    assert {c["quantity"] for c in data["checks"]} >= {"P(>= 25)", "P(= 25)", "mean worms"}
    assert data["passed"]


def test_cli_simulate_exits_1_when_the_engine_disagrees(cli, monkeypatch):
    import harness.analysis.simulate as simulate_module

    real = simulate_module.verdict
    monkeypatch.setattr(
        simulate_module, "verdict", lambda checks: {**real(checks), "passed": False}
    )
    result = cli("analyze", "turn", "--simulate", "50", "--seed", "1", "--targets", "21")
    assert result.exit_code == 1
    assert "DISAGREES" in result.output
