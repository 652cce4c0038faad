"""Scoring and results, R11, and games that do not finish (the turn cap, partial records)."""

from __future__ import annotations

import pytest
from helpers import ALL_TILES, WORMS, Script, referee, referee_ranks

from harness import play_game, replay
from harness.game.engine import rank_seats
from harness.play.narrate import summary_lines
from harness.rules import Rules


def test_r11_score_is_the_worms_in_the_stack():
    result = replay(Script(players=3).take(25).take(21).steal(25, 0).take(33).take(29).record())
    assert result.stacks == [[33], [21, 29], [25]]
    assert result.scores == [4, 1 + 3, 2]  # the stolen tile's worms moved with it
    assert result.ranks == [1, 2, 3]  # 4 worms each: 33 beats 29


@pytest.mark.parametrize(
    "stacks, ranks",
    [
        ([[21, 22], [25]], [2, 1]),  # 2 worms each: the highest tile (25) wins
        ([[25], [21, 22]], [1, 2]),
        ([[33], [21, 22, 23]], [1, 2]),  # 4 worms vs 3
        ([[], []], [1, 1]),  # no tiles: shared
        ([[21], [], []], [1, 2, 2]),  # the players with no tile share the last place
        ([[29, 21], [33], [25, 26], []], [2, 1, 3, 4]),  # 4 worms thrice: 33, 29, 26
        ([[22], [21], [36], [24, 23]], [3, 4, 1, 2]),
    ],
)
def test_r11_ranks_most_worms_then_highest_tile_then_shared(stacks, ranks):
    scores = [sum(WORMS[t] for t in s) for s in stacks]
    assert rank_seats(scores, stacks) == ranks
    assert referee_ranks(stacks) == ranks


def test_r11_a_forfeiting_seat_ranks_last_even_with_the_most_worms():
    assert rank_seats([8, 0, 1], [[33, 34], [], [21]], last=0) == [3, 2, 1]


def full_game(flip_without_tile: bool = False) -> Script:
    s = Script(flip_without_tile=flip_without_tile)
    for tile in ALL_TILES:
        s.take(tile)
    return s


def test_r11_equal_worms_the_highest_tile_wins_a_whole_game():
    result = replay(full_game().record())
    assert result.scores == [20, 20]
    assert result.ranks == [2, 1]
    assert result.winner == 1  # holds 36
    assert result.state() == referee(full_game().record())


def test_r11_players_without_tiles_share_the_result():
    # piko-blog: a bust without a tile turns the lowest tile; 16 busts end the game.
    s = Script(players=3, preset="piko-blog")
    for _ in ALL_TILES:
        s.bust()
    result = replay(s.record())
    assert result.over and result.flipped == ALL_TILES
    assert result.scores == [0, 0, 0] and result.ranks == [1, 1, 1]
    assert result.winner is None
    assert "No winner: a shared result (R11)" in summary_lines(result)


def test_r11_winner_is_none_until_the_game_is_over():
    """A record may end before the game does: no winner yet, whatever the scores."""
    result = replay(Script().take(36, total=40).record())
    assert not result.over and result.status == "unfinished"
    assert result.scores == [4, 0]
    assert result.winner is None
    assert result.state()["winner"] is None and result.state()["over"] is False


def test_turn_cap_ends_a_game_unfinished_and_never_scores_it():
    result = play_game(["greedy", "greedy"], rules={"bust_flip": "none"}, seed=3, max_turns=7)
    assert result.turns == 7
    assert result.capped and not result.over
    assert result.status == "turn-cap"
    assert result.winner is None
    lines = summary_lines(result)
    assert "UNFINISHED: stopped by the turn cap after 7 turns" in lines
    assert not any(line.startswith("Winner") for line in lines)


def test_turn_cap_is_recorded_and_the_record_replays_as_unfinished():
    result = play_game(["random", "greedy", "worm-first"], seed=5, max_turns=4, record=True)
    assert result.record["result"]["status"] == "turn-cap"
    assert len(result.record["turns"]) == 4
    again = replay(result.record)
    assert again.state() == result.state() and again.status == "unfinished"


def test_a_game_that_ends_on_the_last_allowed_turn_is_over_not_capped():
    full = play_game(["greedy", "greedy"], seed=11)
    exact = play_game(["greedy", "greedy"], seed=11, max_turns=full.turns)
    assert exact.over and not exact.capped and exact.status == "over"
    assert exact.state() == full.state()
    short = play_game(["greedy", "greedy"], seed=11, max_turns=full.turns - 1)
    assert short.capped and short.winner is None


def test_bust_flip_none_games_can_run_long_and_still_end_by_the_cap():
    """bust_flip: none never turns a tile, so only claims shrink the grill (R10)."""
    rules = Rules(players=7, bust_flip="none")
    result = play_game(["random(p_stop=0.0)"] * 7, rules=rules, seed=1, max_turns=200)
    assert result.over or result.capped
    assert result.flipped == []
