"""``harness sprt`` on luck-adjusted deal scores: the right controls, deterministic, and
the raw test beside it.

The control of a deal is the mean over its games of A's win-weighted luck minus B's; it
is checked against each game's account played again. With the account the verdict is the
adjusted test's, the same for any worker count; without it, the test is the raw one as
before.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from helpers import NEEDS_NATIVE

from harness.analysis.account import Accountant
from harness.analysis.units import WinAccountant
from harness.cli import main
from harness.game.seating import by_entrant
from harness.sprt.experiment import Tally, check_specs, chunk_scores, make_setup, run_sprt
from harness.tourney.chunks import play_chunk, replay_game

pytestmark = pytest.mark.engine


def test_a_deals_control_is_a_minus_b_win_weighted_luck_over_its_games():
    setup = make_setup("tactician", "greedy", seed=3, luck="on", engine="python")
    assert setup.adjusted
    (spec,) = check_specs(setup, 0)
    assert spec.account
    result = play_chunk(spec)
    scores = chunk_scores(setup, 0, spec, result)
    assert scores.control is not None and len(scores.control) == spec.deals
    for d in range(3):
        want = 0.0
        for k in range(len(spec.orders)):
            accountant = Accountant(spec.rules)
            replay_game(spec, spec.first + d, k, observer=accountant)
            luck = by_entrant([led.wluck for led in accountant.ledgers], spec.orders[k])
            want += luck[0] - luck[1]  # entrant 0 is A in order 0
        assert scores.control[d] == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("engine", ["python", pytest.param("native", marks=NEEDS_NATIVE)])
def test_under_luck_win_a_deals_control_is_a_minus_b_win_luck(engine):
    """``--luck win``: the control is the stored win luck (the win account's, schema 5),
    the control of every luck-adjusted win share, not the win-weighted worm luck."""
    setup = make_setup("optimal", "greedy", seed=3, luck="win", engine=engine)
    (spec,) = check_specs(setup, 0)
    result = play_chunk(spec)
    if result.engine != engine:
        pytest.skip(f"the {engine} engine does not play here")
    scores = chunk_scores(setup, 0, spec, result)
    assert scores.control is not None
    worm = 0.0
    for d in range(2):
        want = 0.0
        for k in range(len(spec.orders)):
            win = WinAccountant(spec.rules, vector=True)
            replay_game(spec, spec.first + d, k, observer=win)
            win.finish()
            luck = by_entrant([led.luck for led in win.ledgers], spec.orders[k])
            # the vector (winvec) as stats.win_control scales it, (P - 1) / P: at 2
            # players A's less B's is A's vector, its win luck less B's (to rounding)
            vec = by_entrant([v * 0.5 for v in win.vector], spec.orders[k])
            want += vec[0] - vec[1]  # entrant 0 is A in order 0
            assert vec[0] - vec[1] == pytest.approx(luck[0] - luck[1], abs=1e-12)
            worms = Accountant(spec.rules)
            replay_game(spec, spec.first + d, k, observer=worms)
            wluck = by_entrant([led.wluck for led in worms.ledgers], spec.orders[k])
            worm += abs(wluck[0] - wluck[1] - (luck[0] - luck[1]))
        assert scores.control[d] == want  # bit for bit: the stored column, summed
    assert worm > 0  # the worm account's control would have been another number
    out = CliRunner().invoke(
        main,
        ["sprt", "optimal", "greedy", "--luck", "win", "--engine", engine, "--workers", "0",
         "--elo0", "0", "--elo1", "200"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "its luck (win luck, A's against B's)" in out.stdout


@pytest.mark.once
def test_the_adjusted_test_decides_the_same_for_any_worker_count():
    setup = make_setup("tactician", "greedy", seed=2, luck="on", engine="python")
    serial = run_sprt(setup, workers=0)
    two = run_sprt(setup, workers=2)
    assert serial.verdict in ("H0", "H1")
    a, b = serial.summary(), two.summary()
    for key in ("verdict", "llr", "games", "elo", "elo_low", "adjusted", "raw"):
        assert a[key] == b[key], key
    assert a["adjusted"]["coef"] != 0 and a["luck_adjusted"] is True
    # the verdict is the adjusted test's, the raw test is reported beside it
    assert a["llr"] == a["adjusted"]["llr"] != a["raw"]["llr"]


def test_without_the_account_the_test_is_the_raw_one():
    setup = make_setup("tactician", "greedy", seed=2, luck="off", max_games=400)
    result = run_sprt(setup, workers=0)
    summary = result.summary()
    assert summary["adjusted"] is None and summary["luck_adjusted"] is False
    assert summary["llr"] == summary["raw"]["llr"] == result.tally.sprt.llr


def test_auto_keeps_the_account_for_optimal_and_plugins_only():
    assert make_setup("optimal", "simple", max_games=200).adjusted
    assert not make_setup("greedy", "simple", max_games=200).adjusted


def test_a_tally_without_controls_enters_deals_unadjusted():
    # a check whose chunk kept no account (control None) adds its deals at coef x 0
    setup = make_setup("tactician", "greedy", seed=2, luck="on", engine="python")
    tally = Tally(setup)
    (spec,) = check_specs(setup, 0)
    scores = chunk_scores(setup, 0, spec, play_chunk(spec))
    scores.control = None
    tally.apply([scores])
    assert tally.adjusted is not None and tally.adjusted.accounted == 0
    assert tally.adjusted.mean == pytest.approx(_mean(tally))  # the raw mean score


def _mean(tally: Tally) -> float:
    counts = tally.sprt.counts
    values = [k / (len(counts) - 1) for k in range(len(counts))]
    return sum(c * v for c, v in zip(counts, values, strict=True)) / sum(counts)


def test_the_command_says_the_test_was_luck_adjusted():
    out = CliRunner().invoke(
        main,
        ["sprt", "tactician", "greedy", "--luck", "on", "--engine", "python", "--workers", "0"],
    )
    assert out.exit_code == 0, out.output
    assert "Luck-adjusted: each deal's score minus" in out.stdout
    assert "Raw test: LLR" in out.stdout
    data = json.loads(
        CliRunner()
        .invoke(main, ["sprt", "tactician", "greedy", "--luck", "off", "--json", "--workers", "0"])
        .stdout
    )
    assert data["adjusted"] is None
