"""A first end-to-end check: a seeded game is played, recorded and replayed."""

from harness import play_game, replay


def test_seeded_game_replays_to_the_same_state():
    result = play_game(["greedy", "threshold(target=28)", "worm-first"], seed=7, record=True)
    assert result.over
    assert replay(result.record).state() == result.state()
