"""benchmarks/win_lookahead.py, the measurement behind docs/winprob.md's "Search in the
end game": its deeper evaluator is the shipped one away from the end game and a turn's
exact programme in it, and its bot is win-optimal where it does not search."""

from __future__ import annotations

import pytest
from helpers import load_benchmark

from harness.analysis.turn import Payoff, solve
from harness.game.rules import Rules
from harness.winprob import Position, ending_chances, evaluator
from harness.winprob.payoff import stop_values


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("win_lookahead")


END_GAME = Position.of((26, 30, 35), ((21, 33), (24, 27, 29)), 1)
MIDDLE = Position.of((22, 23, 25, 26, 28, 30, 31, 32, 34, 35, 36), ((21, 33), (24, 27, 29)), 0)


def test_away_from_the_end_game_it_is_the_evaluator(bench):
    rules = Rules(players=2)
    judge = bench.Lookahead(rules, 3)
    assert judge.chances_many([MIDDLE]) == evaluator(rules).chances_many([MIDDLE])


def test_in_the_end_game_it_is_the_movers_turn_programme(bench):
    rules = Rules(players=2)
    judge = bench.Lookahead(rules, 3)
    (chances,) = judge.chances_many([END_GAME])
    claims, bust = ending_chances(END_GAME, rules)
    mover = solve(Payoff(stop_values(END_GAME, claims, False), bust)).start
    assert chances == (1.0 - mover, mover)  # seat 1 to move
    assert chances != tuple(evaluator(rules).chances(END_GAME))


def test_without_search_the_bot_plays_win_optimals_games(bench):
    """tiles=0 deepens only positions with no tile left, which are over: the same games
    as win-optimal, decision for decision."""
    same = bench.play_deal((3, 1, 0))
    assert same["base"] == same["other"] and not any(same["differ"])
    searched = [bench.play_deal((d, 1, 16)) for d in range(4)]
    assert any(any(out["differ"]) for out in searched)


def test_other_player_counts_are_refused(bench):
    with pytest.raises(ValueError, match="two players"):
        bench.Lookahead(Rules(players=3), 3)
