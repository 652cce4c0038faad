"""The win account's vector (``WinAccountant.vector``, stored as ``winvec``, schema 6): each
roll's luck in every seat's chance under the roller's best play.

What makes it a control: each seat's part of a roll is mean zero over the roll's exact
distribution, given the game before it (tried at a turn's start and deeper, on boards of
real games, for every seat); the seats' parts of a roll sum to 0 (the chances do), the
roller's part is its stored luck; at two players the other seat's part is the roller's
luck negated; a forfeit's turn is taken back for every seat, not only the roller. Both
engines keep it bit for bit (tests/native/test_native_win_vector.py).
"""

from __future__ import annotations

import contextlib
from functools import partial

import numpy as np
import pytest

from harness.analysis import turn
from harness.analysis.units import WinAccountant
from harness.errors import GameError
from harness.game.dice import ROLLS_OF, SeededDice
from harness.game.engine import Game, build_instances
from harness.game.rules import Rules
from harness.play import play_game
from harness.plugins import resolve

FIELD = ("greedy", "worm-first", "tactician", "simple")
FREE = 0x7E  # faces 1-6, none kept yet


class Probe(WinAccountant):
    """The account, and at chosen turns each seat's mean part of a roll in two states
    (the start; and after three worms kept, five dice left), over every roll exactly."""

    def __init__(self, rules: Rules, turns: set[int]) -> None:
        super().__init__(rules, vector=True)
        self.turns = turns
        self.means: list[np.ndarray] = []
        self.parts_sum = 0.0  # the largest |sum over seats| of one roll's parts
        self.own_gap = 0.0  # the largest |roller's part - its luck|

    def turn_started(self, turn_number: int, seat: int) -> None:
        super().turn_started(turn_number, seat)
        if turn_number in self.turns:
            start = turn.START
            worms = turn.CHILD[start << 6 | turn.WORM << 3 | 2]  # three worms kept
            self.means.append(self._mean_parts(start, FREE, 8))
            self.means.append(self._mean_parts(worms, FREE & ~(1 << turn.WORM), 5))

    def _mean_parts(self, state: int, free: int, dice: int) -> np.ndarray:
        """Every seat's part of a roll in ``state``, weighted by the roll's chance."""
        total = np.zeros(self.players)
        for roll, ways in ROLLS_OF[dice]:
            total += ways * self._parts(state, roll.counts, roll.mask & free)
        return total / 6**dice

    def _parts(self, state: int, counts, new: int) -> np.ndarray:  # noqa: ANN001
        """What the account books for each seat for this roll (the code under test)."""
        value, roll = self._value, self._roll
        best = self._bust
        if new:
            best = max(value[turn.CHILD[state << 6 | f << 3 | counts[f] - 1]]
                       for f in range(1, 7) if new >> f & 1)  # fmt: skip
        parts = np.zeros(self.players)
        parts[self._seat] = best - roll[state]
        child = turn.best_keep(value, state, counts, new) if new else -1
        for j, bust, values, rolled in self._others:
            parts[j] = (bust if child < 0 else values[child]) - rolled[state]
        if self.players == 2:
            parts[1 - self._seat] = -parts[self._seat]
        self.parts_sum = max(self.parts_sum, abs(float(parts.sum())))
        return parts


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_seats_part_of_a_roll_is_mean_zero(players):
    rules = Rules(players=players)
    probe = Probe(rules, {2, 6, 10})
    play_game(list(FIELD[:players]), rules, "vector-mean", observer=probe)
    assert len(probe.means) == 6
    for mean in probe.means:
        assert np.abs(mean).max() < 1e-12, mean
    assert probe.parts_sum < 1e-12


@pytest.mark.parametrize("players", [3, 4])
def test_the_seats_parts_sum_to_zero_and_the_rollers_is_its_luck(players):
    rules = Rules(players=players)
    for seed in range(3):
        acc = WinAccountant(rules, vector=True)
        play_game(list(FIELD[:players]), rules, f"vector-{seed}", observer=acc)
        acc.finish()
        assert abs(sum(acc.vector)) < 1e-12
        assert any(abs(v) > 0.05 for v in acc.vector)  # it moves
        # not the roller's luck alone: the others' parts of its rolls are in it
        own = [ledger.luck for ledger in acc.ledgers]
        assert not np.allclose(acc.vector, own, atol=1e-3)


def test_at_two_players_the_vector_is_the_luck_and_its_negative():
    rules = Rules(players=2)
    for seed in range(3):
        acc = WinAccountant(rules, vector=True)
        play_game(["greedy", "simple"], rules, f"pair-{seed}", observer=acc)
        acc.finish()
        own = [ledger.luck for ledger in acc.ledgers]
        assert acc.vector[0] == -acc.vector[1]  # bit for bit: every part is booked negated
        assert acc.vector[0] == pytest.approx(own[0] - own[1], abs=1e-12)


class _Watch(WinAccountant):
    """The account, and the vector at every turn's start."""

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules, vector=True)
        self.snapshots: list[list[float]] = []

    def turn_started(self, turn_number: int, seat: int) -> None:
        super().turn_started(turn_number, seat)
        self.snapshots.append(list(self.vector))


class _Quitter:
    """A seat that plays greedily and raises at its ``after``-th pick: a forfeit in a turn."""

    def __init__(self, after: int) -> None:
        self.after, self.calls = after, 0
        self.inner = resolve("greedy").create()

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.inner, name)

    def pick(self, *args):  # noqa: ANN002, ANN201
        self.calls += 1
        if self.calls == self.after:
            raise RuntimeError("a forfeit in the middle of a turn")
        return self.inner.pick(*args)


def test_a_forfeit_takes_back_every_seats_part_of_its_turn():
    """The forfeit's turn booked parts for every seat; none of them counts (the rows
    count nothing of a forfeit's turn): the vector is what it was at that turn's start."""
    rules = Rules(players=3)
    undone = 0
    for after in range(2, 20):
        names = ["quitter", "worm-first", "tactician"]
        makers = [partial(_Quitter, after), resolve("worm-first").create,
                  resolve("tactician").create]  # fmt: skip
        seats, failed = build_instances(makers, names)
        assert failed is None
        acc = _Watch(rules)
        snapshots = acc.snapshots
        game = Game(seats, rules, SeededDice(f"quit-{after}"), names=names, observer=acc)
        with pytest.raises(GameError), contextlib.suppress(KeyboardInterrupt):
            game.play()
        moved = list(acc.vector)
        acc.finish()
        assert acc.vector == snapshots[-1]  # every seat's part of the open turn undone
        undone += moved != snapshots[-1]  # a pick after the turn's first: rolls booked
    assert undone >= 5
