"""Positions: result shares by R11 (ties shared, as the standings count them) and the
features of a hand-made position."""

from __future__ import annotations

from harness.winprob import Position, feature_count, features, result_shares


def test_most_worms_wins_alone() -> None:
    # 21 (1) + 25 (2) = 3 worms against 33 (4)
    assert result_shares(Position.of((), ((21, 25), (33,)))) == (0.0, 1.0)


def test_a_tie_in_worms_goes_to_the_highest_tile() -> None:
    # R11: 4 worms each; seat 1 holds 34, seat 0 only 33 at most
    assert result_shares(Position.of((), ((33,), (21, 22, 23, 24)))) == (1.0, 0.0)
    assert result_shares(Position.of((), ((33,), (30, 26, 34)))) == (0.0, 1.0)


def test_seats_without_tiles_share_first_place() -> None:
    assert result_shares(Position.of((), ((), (), ()))) == (1 / 3, 1 / 3, 1 / 3)
    # two empty seats share, the one with a worm wins outright
    assert result_shares(Position.of((), ((), (21,), ()))) == (0.0, 1.0, 0.0)


def test_shares_sum_to_one() -> None:
    for stacks in (((21,), (22,)), ((), ()), ((25, 26), (33,), (29,), ())):
        assert abs(sum(result_shares(Position.of((), stacks))) - 1.0) < 1e-12


def test_features_of_a_hand_made_position() -> None:
    # 3 players, seat 1 to move. Worms: seat 0: 22 (1) + 31 (3) = 4; seat 1: 28 (2);
    # seat 2: 25 (2) + 36 (4) + 21 (1) = 7. Grill: 23, 30, 35.
    p = Position.of((23, 30, 35), ((22, 31), (28,), (25, 36, 21)), to_move=1)
    f = features(p)
    assert len(f) == feature_count(3) == 7 * 3 + 18
    # seats from the mover: 1, 2, 0. Per seat: worms, lead over the best other, top's
    # worms, top - 20, worms of the tile below, highest - 20, height.
    assert f[0:7] == [2, 2 - 7, 2, 8, 0, 8, 1]
    assert f[7:14] == [7, 7 - 4, 1, 1, 4, 16, 3]
    assert f[14:21] == [4, 4 - 7, 3, 11, 1, 11, 2]
    grill = [0] * 16
    for t in (23, 30, 35):
        grill[t - 21] = 1
    assert f[21:37] == grill
    assert f[37:] == [3, 1 + 3 + 4]


def test_features_follow_the_mover() -> None:
    # the same board seen from each seat: the mover's block comes first
    stacks = ((22, 31), (28,), (25, 36, 21))
    blocks = [features(Position.of((23,), stacks, m))[:21] for m in range(3)]
    assert blocks[0][7:14] == blocks[1][0:7] == blocks[2][14:21]
