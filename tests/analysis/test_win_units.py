"""The luck and skill account in chances to win (harness.analysis.units, issue 32 part 3).

Per turn, par + sum(luck) - sum(regret) is the evaluator's chance of the turn-taker after
the turn (R10/R11 exact at the end), checked against an independent reading of the board
after every turn; par, luck and regret against the turn solved in exact rational
arithmetic on small boards; luck's zero mean exactly; win-optimal (which plays the same
payoff) never regrets; a bot that lies in its answers moves nothing but its own regret.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from helpers import Scripted

from harness.analysis.turn import CHILD, START, STATES, Payoff, solve_exact
from harness.analysis.units import UNITS, WinAccountant, WinTurn, accountant_for, check_unit
from harness.errors import ConfigError
from harness.game.board import mask_of
from harness.game.dice import ROLLS_OF, DuplicateDice
from harness.game.engine import Fanout, Game, GameObserver
from harness.plugins import resolve
from harness.rules import PRESETS, Rules
from harness.winprob import Position, evaluator

BOTS = ["greedy", "threshold", "worm-first", "simple", "tactician", "random", "optimal"]


class Boards(GameObserver):
    """An independent witness: the position at every turn's start, and at the end."""

    def __init__(self) -> None:
        self.board = None
        self.starts: list[Position] = []

    def handed(self, board) -> None:  # noqa: ANN001
        self.board = board

    def turn_started(self, turn: int, seat: int) -> None:
        self.starts.append(Position.from_board(self.board, seat))

    def final(self, players: int) -> Position:
        return Position.from_board(self.board, len(self.starts) % players)


def _play(strategies, rules, seed, start=None):
    accountant = WinAccountant(rules, detail=True)
    boards = Boards()
    game = Game(strategies, rules, DuplicateDice(seed), observer=Fanout([accountant, boards]))
    game.start()
    if start is not None:  # a small board: the game picks up from here
        game.board.load(mask_of(start[0]), 0, [tuple(s) for s in start[1]])
    while not game.play_turn() and game.turn < 500:
        pass
    accountant.finish()
    return accountant, boards


def _after(boards: Boards, players: int, k: int) -> Position:
    return boards.starts[k + 1] if k + 1 < len(boards.starts) else boards.final(players)


# -- the identity --------------------------------------------------------------------------
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3])
def test_every_turn_sums_to_the_evaluators_chance_after_it(preset, players):
    rules = Rules.preset(preset, players)
    judge = evaluator(rules)
    rng = random.Random(f"{preset}-{players}")
    checked = 0
    for seed in range(3):
        bots = [resolve(rng.choice(BOTS)).create() for _ in range(players)]
        accountant, boards = _play(bots, rules, 500 + seed)
        assert len(accountant.turns) == len(boards.starts)
        for k, turn in enumerate(accountant.turns):
            assert isinstance(turn, WinTurn) and turn.swing is not None
            after = _after(boards, players, k)
            want = judge.chances(after)[turn.seat]
            assert turn.swing == pytest.approx(want, abs=1e-12), (k, turn.end)
            assert abs(turn.residual) < 1e-12, (k, turn.residual)  # par + luck - regret
            assert turn.before == judge.chances(boards.starts[k])[turn.seat]
            assert all(d.regret >= 0 for d in turn.decisions)
            assert 0.0 <= turn.par <= 1.0
            checked += 1
        last = accountant.turns[-1]
        final = boards.final(players)
        if final.over:  # R10: the last turn's chance is the result, exactly (R11)
            assert last.swing in (0.0, 1.0) or 0 < last.swing < 1 and 1 / last.swing % 1 == 0
        for seat, ledger in enumerate(accountant.ledgers):
            mine = [t for t in accountant.turns if t.seat == seat]
            assert ledger.turns == len(mine)
            assert ledger.luck == pytest.approx(sum(t.luck for t in mine), abs=1e-12)
            assert ledger.wluck == ledger.luck  # win-unit luck is its own win weight
            assert ledger.regret == pytest.approx(sum(t.regret for t in mine), abs=1e-12)
    assert checked > 30


# -- exact referee on small boards ------------------------------------------------------------
SMALL = [
    ((25, 27, 31), ([21, 23], [22, 26])),  # two players, a steal on offer
    ((24, 33), ([29], [22, 28], [30])),  # three players
    ((36,), ([21, 35], [26])),  # one tile left: every ending decides the game (R10, R11)
]


@pytest.mark.parametrize("start", SMALL)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_par_luck_and_regret_are_the_exact_solutions(start, preset):
    from harness.analysis.units import turn_payoff

    players = len(start[1])
    rules = Rules.preset(preset, players)
    bots = [resolve(b).create() for b in ("random", "greedy", "simple")[:players]]
    accountant, boards = _play(bots, rules, 7, start=start)
    for k, turn in enumerate(accountant.turns[:2]):
        here = boards.starts[k]
        pay = turn_payoff(here.grill, here.stacks, turn.seat, rules)
        stop = tuple(None if v is None else Fraction(v) for v in pay.stop)
        exact = solve_exact(Payoff(stop, Fraction(pay.bust)))
        assert abs(turn.par - float(exact.roll[START])) < 1e-13
        for roll in turn.rolls:
            mask = STATES[roll.state][0]
            counts = [roll.faces.count(f) for f in range(7)]
            new = [f for f in range(1, 7) if counts[f] and not mask >> f & 1]
            base = roll.state << 6
            best = max(
                (exact.value[CHILD[base | f << 3 | counts[f] - 1]] for f in new),
                default=Fraction(pay.bust),
            )
            assert abs(roll.luck - float(best - exact.roll[roll.state])) < 1e-13
        for d in turn.decisions:  # every option's value is the exact one
            i = d.state
            for option in d.options:
                if d.kind == "pick":
                    mask, _, _ = STATES[i]
                    want = None  # a keep's value: checked through the roll's luck above
                elif d.kind == "stop":
                    want = exact.roll[i] if option.move == "roll" else stop[STATES[i][2]]
                else:
                    want = Fraction(pay.claims[option.move])
                if want is not None:
                    assert abs(option.value - float(want)) < 1e-13, (d.kind, option)
            chosen = next(o.value for o in d.options if o.move == d.chosen)
            assert d.regret == d.best.value - chosen >= 0
        if turn.end == "bust":
            assert turn.swing == pay.bust


def test_luck_has_mean_zero_exactly_at_every_rolling_state():
    # E[luck] = sum over the roll's exact multinomial distribution of (V*(roll) - roll[i]) = 0
    from harness.analysis.units import turn_payoff

    rules = Rules.preset("official", 2)
    here = Position.of((25, 27, 31), ([21, 23], [22, 26]), 0)
    pay = turn_payoff(here.grill, here.stacks, 0, rules)
    stop = tuple(None if v is None else Fraction(v) for v in pay.stop)
    exact = solve_exact(Payoff(stop, Fraction(pay.bust)))
    for i in (START, CHILD[START << 6 | 6 << 3 | 1], CHILD[START << 6 | 5 << 3 | 2]):
        mask, left, _ = STATES[i]
        total = Fraction(0)
        weights = 0
        for roll, weight in ROLLS_OF[left]:
            counts = roll.counts
            new = [f for f in range(1, 7) if counts[f] and not mask >> f & 1]
            best = max(
                (exact.value[CHILD[i << 6 | f << 3 | counts[f] - 1]] for f in new),
                default=Fraction(pay.bust),
            )
            total += weight * (best - exact.roll[i])
            weights += weight
        assert weights == 6**left and total == 0


# -- the player of the same payoff, and liars -----------------------------------------------
def test_win_optimal_never_regrets_in_chances_to_win():
    # win-optimal plays the turn programme for the same endings' values (harness.winprob):
    # its decisions are the account's best, to the solver's tolerance.
    for players in (2, 3):
        rules = Rules.preset("official", players)
        for seed in range(2):
            bots = [resolve("win-optimal").create()] + [
                resolve("simple").create() for _ in range(players - 1)
            ]
            accountant, _ = _play(bots, rules, seed)
            assert accountant.ledgers[0].regret < 1e-9
            assert accountant.ledgers[0].decisions > 0


class _Twisted(int):
    """An int that lies about equality and hashing (the engine reads its plain value)."""

    def __eq__(self, other):  # noqa: ANN001
        return True

    def __hash__(self) -> int:
        return 7


class Liar(Scripted):
    """Answers as a random bot does, in twisted types, and scribbles on its view."""

    name = "liar"

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)

    def pick(self, view):  # noqa: ANN001
        face = self.rng.choice(view.choices)
        view.total, view.kept_faces = 99, ()  # its own copy: the account reads the game
        return _Twisted(face)

    def stop(self, view):  # noqa: ANN001
        import numpy as np

        return np.bool_(self.rng.random() < 0.5)


class Honest(Liar):
    def pick(self, view):  # noqa: ANN001
        return int(super().pick(view))

    def stop(self, view):  # noqa: ANN001
        return bool(super().stop(view))


def test_a_lying_bot_moves_only_its_own_regret():
    rules = Rules.preset("official", 2)
    liar, _ = _play([Liar(3), resolve("simple").create()], rules, 11)
    honest, _ = _play([Honest(3), resolve("simple").create()], rules, 11)
    assert liar.ledgers == honest.ledgers  # the same moves: the same account, bit for bit
    assert all(abs(t.residual) < 1e-12 for t in liar.turns)
    assert liar.ledgers[0].regret > 0.01  # random play is costly in chances to win


def test_the_unit_is_checked_in_one_line():
    assert UNITS == ("win", "worms") and check_unit("win") == "win"
    with pytest.raises(ConfigError, match="unit 'chips' is not one of: win, worms"):
        check_unit("chips")
    assert type(accountant_for("worms", Rules())).__name__ == "Accountant"
    assert isinstance(accountant_for("win", Rules()), WinAccountant)
