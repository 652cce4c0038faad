"""benchmarks/winprob_strength.py --paired: win-optimal's share per deal against another
run of the same deals (the standings' win points and interval), and a run of other dice
refused rather than paired."""

from __future__ import annotations

import pytest
from helpers import load_benchmark

from harness.tourney import run_tournament


def _run(tmp_path, seed: int, deals: int = 4):
    bench = load_benchmark("winprob_strength")
    config = bench.config(2, deals, seed)
    run = run_tournament(config, out=tmp_path / f"s{seed}-{deals}", fresh=True, workers=0,
                         progress=False)  # fmt: skip
    return bench, run.path


def test_a_run_paired_with_itself_differs_by_nothing(tmp_path):
    bench, path = _run(tmp_path, 32)
    shares = bench.deal_shares(bench.load_run(path).games)
    assert len(shares) == 4 and shares["share"].between(0, 1).all()
    same = bench.paired(path, path)
    assert (same["deals"], same["difference"], same["low"], same["high"]) == (4, 0, 0, 0)


def test_a_longer_run_of_the_same_dice_pairs_on_the_deals_both_played(tmp_path):
    bench, short = _run(tmp_path, 32)
    _, long = _run(tmp_path, 32, deals=6)
    assert bench.paired(long, short)["deals"] == 4


def test_a_run_of_other_dice_is_refused(tmp_path):
    bench, path = _run(tmp_path, 32)
    _, other = _run(tmp_path, 33)
    with pytest.raises(SystemExit, match="other dice"):
        bench.paired(path, other)
    with pytest.raises(SystemExit, match="winprob_strength: .*no such folder"):
        bench.paired(path, tmp_path / "nowhere")


def test_luck_win_keeps_the_win_account_for_the_adjusted_share(tmp_path):
    """``--luck win``: the games keep win luck, which the standings' adjusted share then
    takes as its control; the default keeps only the worm account."""
    bench = load_benchmark("winprob_strength")
    assert bench.config(2, 4, 32)["luck"] == "auto"
    run = run_tournament(bench.config(2, 4, 32, luck="win"), out=tmp_path, fresh=True,
                         workers=0, progress=False)  # fmt: skip
    games = bench.load_run(run.path).games
    assert games["seat0_winluck"].notna().all() and games["seat1_winvec"].notna().all()
