"""The luck and skill account (harness.analysis.account): exact, unbiased, stored as played.

Every finished turn satisfies swing = par + sum(luck) - sum(regret); with two players a
game's worm margin is (par + luck - regret) of seat 0 minus the same of seat 1. The
values are checked against an independent referee (the turn solved in exact rational
arithmetic, the account recomputed from the record), luck against its zero mean, regret
against the optimal policy (which never regrets outside its end game), and the stored
columns against the account of each game played again.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from helpers import Scripted, ScriptedDice

from harness.analysis import account as acc
from harness.analysis.account import Accountant, swing_payoff, win_slope
from harness.analysis.turn import CHILD, START, STATES, Payoff, solve_exact
from harness.game.dice import DuplicateDice, SeededDice
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import PRESETS, TILES, Rules

BUILTINS = ["greedy", "threshold", "worm-first", "simple", "env-heuristic", "tactician", "random"]


def _play(names, rules, seed, detail=True, dice=None):
    strategies = [resolve(n).create() for n in names]
    accountant = Accountant(rules, detail=detail)
    game = Game(strategies, rules, dice or DuplicateDice(seed), observer=accountant, seed=seed)
    result = game.play()
    accountant.finish()
    return result, accountant


def _margin(ledger):
    return ledger.par + ledger.luck - ledger.regret


# -- the identity ---------------------------------------------------------------------------
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4, 7])
def test_every_turn_sums_to_its_swing_in_every_preset(preset, players):
    rules = Rules.preset(preset, players)
    rng = random.Random(f"{preset}-{players}")
    turns = 0
    for seed in range(6 if players < 7 else 3):
        names = [rng.choice(BUILTINS + ["optimal"]) for _ in range(players)]
        result, accountant = _play(names, rules, 100 + seed)
        finished = [t for t in accountant.turns if t.swing is not None]
        assert len(finished) == result.turns  # every turn of a finished game is accounted
        for turn in finished:
            assert abs(turn.residual) < 1e-9, (turn.turn, turn.seat, turn.residual)
            assert all(d.regret >= 0 for d in turn.decisions)
        turns += len(finished)
        # the ledgers are the turns' sums
        for seat, ledger in enumerate(accountant.ledgers):
            mine = [t for t in finished if t.seat == seat]
            assert ledger.turns == len(mine)
            assert math.isclose(ledger.luck, sum(t.luck for t in mine), abs_tol=1e-9)
            assert math.isclose(ledger.regret, sum(t.regret for t in mine), abs_tol=1e-9)
            assert ledger.rolls == sum(len(t.rolls) for t in mine)
    assert turns > 50


def test_the_two_player_margin_is_par_plus_luck_minus_regret_of_each_side():
    rules = Rules.preset("official", 2)
    worst = 0.0
    for seed, (a, b) in enumerate(itertools.product(BUILTINS[:6] + ["optimal"], repeat=2)):
        result, accountant = _play([a, b], rules, seed, detail=False)
        assert result.over
        first, second = accountant.ledgers
        margin = result.scores[0] - result.scores[1]
        worst = max(worst, abs(margin - (_margin(first) - _margin(second))))
    assert worst < 1e-9


def _margins_move_by_the_swing(rules: Rules, seed: int) -> int:
    """Plays a game turn by turn; asserts each turn's swing is the turn-taker's change of
    margin (own worms - the mean of the others'); returns the steals seen."""
    players = rules.players
    strategies = [resolve(BUILTINS[(s + seed) % 6]).create() for s in range(players)]
    accountant = Accountant(rules, detail=True)
    game = Game(strategies, rules, DuplicateDice(seed), observer=accountant, seed=seed)
    game.start()

    def margin(seat: int) -> float:
        scores = game.result().scores
        return scores[seat] - (sum(scores) - scores[seat]) / (players - 1)

    steals = 0
    while not game.over:
        seat = game.seat_to_play
        before = margin(seat)
        game.play_turn()
        accountant.finish()
        turn = accountant.turns[-1]
        assert turn.seat == seat
        assert turn.swing == pytest.approx(margin(seat) - before, abs=1e-12)
        steals += turn.end == "steal"
    return steals


@pytest.mark.parametrize("players", [2, 3, 5])
def test_a_swing_is_the_turn_takers_change_of_margin_at_any_table_size(players):
    # steals (worth w * P / (P - 1)) and busts included
    rules = Rules.preset("official", players)
    steals = sum(_margins_move_by_the_swing(rules, seed) for seed in range(8))
    assert steals > 0  # the steal's share was tested too


# -- the values, against a referee in exact arithmetic --------------------------------------
def _exact(grill, tops, seat):
    stop, bust = swing_payoff(grill, tops, seat, lower_any=False)
    exact_stop = tuple(None if v is None else Fraction(v) for v in stop)
    return solve_exact(Payoff(exact_stop, Fraction(bust)))


def test_par_luck_and_regret_of_a_scripted_turn_match_the_exact_solution():
    # Seat 0's first turn: rolls 6 6 6 5 5 3 2 1 (keeps the worms), then 5 5 4 4 4
    # (keeps the 4s, a poor choice against the 5s), then stops at 3 x 5 + 12 = 27.
    turns = [[[6, 6, 6, 5, 5, 3, 2, 1], [5, 5, 4, 4, 4]]]
    rules = Rules.preset("official", 2)
    player = Scripted(picks=[6, 4], stops=[True])
    accountant = Accountant(rules, detail=True)
    game = Game([player, Scripted()], rules, ScriptedDice(turns), observer=accountant)
    game.start()
    game.play_turn()
    accountant.finish()
    (turn,) = accountant.turns
    exact = _exact(tuple(TILES), (0, 0), 0)
    assert abs(turn.par - float(exact.roll[START])) < 1e-12
    # first roll: its best keep's value against the start's roll value
    state = START
    counts = [0, 1, 1, 1, 0, 2, 3]
    best = max(exact.value[CHILD[state << 6 | f << 3 | counts[f] - 1]] for f in (1, 2, 3, 5, 6))
    assert abs(turn.rolls[0].luck - float(best - exact.roll[START])) < 1e-12
    worms = CHILD[state << 6 | 6 << 3 | 2]
    pick = turn.decisions[0]
    assert pick.kind == "pick" and pick.chosen == 6
    assert abs(pick.regret - float(best - exact.value[worms])) < 1e-12
    # the 4s, not the 5s: a regret equal to the exact difference
    second = [d for d in turn.decisions if d.kind == "pick"][1]
    fours = CHILD[worms << 6 | 4 << 3 | 2]
    fives = CHILD[worms << 6 | 5 << 3 | 1]
    want = max(exact.value[fours], exact.value[fives]) - exact.value[fours]
    assert second.chosen == 4 and abs(second.regret - float(want)) < 1e-12
    assert turn.swing == 2.0 and turn.end == "claim"  # tile 27: two worms
    assert abs(turn.residual) < 1e-12


def test_luck_has_mean_zero_over_many_rolls():
    # E[luck | before the roll] = 0 for any policy: the mean over ~40,000 rolls of
    # mixed strategies must be within a few standard errors of zero (a roll valued from
    # the state's value instead of its roll value, say, fails this by far).
    rules = Rules.preset("official", 2)
    lucks: list[float] = []
    rng = random.Random(3)
    for seed in range(400):
        names = [rng.choice(BUILTINS) for _ in range(2)]
        _, accountant = _play(names, rules, 10_000 + seed)
        lucks += [r.luck for t in accountant.turns for r in t.rolls]
    n = len(lucks)
    mean = sum(lucks) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in lucks) / (n - 1))
    z = mean / (sd / math.sqrt(n))
    assert n > 30_000 and abs(z) < 4.5, (n, mean, z)


def test_optimal_never_regrets_outside_its_end_game():
    # optimal with endgame=0 plays every turn for the worm swing, the account's payoff:
    # its decisions are the best ones (ties within the solver's tolerance).
    rules = Rules.preset("official", 2)
    for seed in range(10):
        opponent = random.Random(seed).choice(BUILTINS)
        _, accountant = _play(["optimal(endgame=0)", opponent], rules, seed)
        assert accountant.ledgers[0].regret < 1e-9
        assert accountant.ledgers[0].decisions > 0


def test_a_bad_choice_costs_exactly_what_the_turn_loses():
    # A seat that never stops (rolls on at every offered stop) against one that always
    # stops: the regret of its stop decisions is what a referee finds state by state.
    rules = Rules.preset("official", 2)

    class Never(Scripted):
        name = "never"

        def stop(self, view):
            return False

    accountant = Accountant(rules, detail=True)
    Game([Never(), Scripted()], rules, DuplicateDice(5), observer=accountant).play()
    accountant.finish()
    stops = [d for t in accountant.turns if t.seat == 0 for d in t.decisions if d.kind == "stop"]
    assert stops and all(d.chosen == "roll" for d in stops)
    for d in stops:
        values = {o.move: o.value for o in d.options}
        assert d.regret == pytest.approx(max(values.values()) - values["roll"], abs=1e-15)
    assert accountant.ledgers[0].regret_stop == pytest.approx(sum(d.regret for d in stops))


def test_the_win_slope_is_the_derivative_of_the_win_model():
    from statistics import NormalDist

    cdf = NormalDist().cdf

    def model(scores, seat, worms):
        sigma = math.sqrt(acc.WIN_SPREAD * worms)
        return math.prod(cdf((scores[seat] - s) / sigma) for j, s in enumerate(scores) if j != seat)

    for scores, seat, worms in [((3, 5), 0, 30), ((10, 2, 7), 2, 12), ((0, 0, 0, 0), 1, 40)]:
        h = 1e-5
        up = list(scores)
        up[seat] += h
        down = list(scores)
        down[seat] -= h
        numeric = (model(up, seat, worms) - model(down, seat, worms)) / (2 * h)
        assert win_slope(scores, seat, worms) == pytest.approx(numeric, rel=1e-6)
    assert win_slope((1, 2), 0, 0) == 0.0


def test_counts_of_decisions_count_only_real_choices():
    rules = Rules.preset("official", 2)
    _, accountant = _play(["greedy", "tactician"], rules, 11)
    for seat in (0, 1):
        mine = [t for t in accountant.turns if t.seat == seat]
        ledger = accountant.ledgers[seat]
        picks = sum(1 for t in mine for d in t.decisions if d.kind == "pick" and d.choice)
        stops = sum(1 for t in mine for d in t.decisions if d.kind == "stop")
        claims = sum(1 for t in mine for d in t.decisions if d.kind == "claim" and d.choice)
        assert (ledger.picks, ledger.stops, ledger.claims) == (picks, stops, claims)


def test_independent_dice_and_a_steal_heavy_variant_still_sum():
    rules = Rules.preset("french", 3)  # lower_tile: any: claims with several choices
    for seed in range(5):
        _, accountant = _play(["random"] * 3, rules, seed, dice=SeededDice(seed))
        assert all(abs(t.residual) < 1e-9 for t in accountant.turns)
        assert any(d.kind == "claim" and d.choice for t in accountant.turns for d in t.decisions)


def test_states_and_payoffs_are_what_the_turn_shows():
    # the payoff's stop values follow R7: nothing below the lowest grill tile but steals
    stop, bust = swing_payoff((25, 30), (0, 28, 0), seat=0, lower_any=False)
    assert stop[24] is None and stop[25] == 2.0 and stop[29] == 2.0 and stop[30] == 3.0
    assert stop[28] == 2 * 1.5  # a steal at three players: worms * (1 + 1/2)
    assert bust == 0.0
    _, bust = swing_payoff((25,), (33, 0), seat=0, lower_any=False)
    assert bust == -4.0
    assert STATES[START] == (0, 8, 0)


def test_a_forfeits_turn_counts_for_nothing_whichever_way_the_game_is_cut():
    # A seat that raises in the middle of its third turn: its ledger holds exactly what the
    # same game played only up to that turn's start holds (the parent's replay of a dead
    # worker's game), and the two-player margin identity holds for the stored game.
    from harness.errors import GameError

    class Late(Scripted):
        name = "late"

        def __init__(self):
            super().__init__()
            self.turns = 0

        def pick(self, view):
            if view.dice_left == 8:
                self.turns += 1
            if self.turns == 3 and view.dice_left < 8:
                raise RuntimeError("boom")
            return max(view.choices)

    rules = Rules.preset("official", 2)
    cut = Accountant(rules)
    game = Game([Late(), resolve("greedy").create()], rules, DuplicateDice(4), observer=cut)
    with pytest.raises(GameError) as raised:
        game.play()
    cut.finish()
    result = game.result(error=raised.value)
    upto = Accountant(rules)
    again = Game([Late(), resolve("greedy").create()], rules, DuplicateDice(4), observer=upto)
    again.start()
    while again.turn < raised.value.turn - 1:
        again.play_turn()
    upto.finish()
    assert cut.ledgers == upto.ledgers
    first, second = cut.ledgers
    margin = result.scores[0] - result.scores[1]
    assert abs(margin - (_margin(first) - _margin(second))) < 1e-9
