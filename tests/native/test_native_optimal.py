"""Native `optimal` (harness/native/c/turn_dp.inc.c, turn_rows.inc.c, optimal.inc.c): turns
bit for bit.

The native solver walks a state's roll outcomes down a prefix tree (each row's best keep
carried from its parent, not recomputed face by face) instead of solve_arrays' columns.
A max is exact, so the tree cannot change a value unless it takes a row's keeps wrongly
(a face not shown, -inf, winning over a value; a row's keeps mixed up with another's).
These tests try to break that: payoffs made of ties (every keep worth the same), signed
zeros, a single stop total, values far apart in magnitude, and compare every state's
value as bits. The one thing not compared is the sign of a zero value: numpy's vector
np.maximum returns either zero for max(0.0, -0.0) depending on the array's layout (HEAD
differs there too), and no decision can see it (every comparison is `>` or `>=` against
a value +-1e-12, and x + -0.0 == x + 0.0 for any x != 0, so a zero's sign never reaches a
nonzero value). Each solve is checked every way the C code solves: in each width of
vector lanes the processor has (states of one template side by side: four with AVX2, two
with SSE2 or NEON) and state by state (dp_lanes(0)). Then whole games in every preset,
at 3 and 4 players, against the Python strategy, with cold and warm caches, and the
widths against each other, cold and mixed in one cache.
"""

from __future__ import annotations

import random
import struct
import subprocess
import sys

import pytest
from test_native import check_deals, rows_in_a_fresh_process

from harness import native
from harness.analysis import turn
from harness.game import seating
from harness.rules import PRESETS, Rules

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

needs_native = pytest.mark.skipif(not native.available(), reason="native engine not built")


LANES = {4: "AVX2, four states of a template at a time", 2: "SSE2 or NEON, two", 0: "one"}


@pytest.fixture(params=sorted(LANES, reverse=True), ids=lambda n: f"lanes{n}")
def dp_lanes(request):
    """The turn programme solved with each width of lanes this processor has (the widest
    the default) and state by state."""
    if native._core.dp_lanes(request.param) != request.param:
        native._core.set_portable(False)
        pytest.skip(f"this processor has no {LANES[request.param].split(',')[0]} lanes")
    yield request.param
    native._core.set_portable(False)  # the best again


def bits(values) -> list[int]:
    """The values' bit patterns, a zero's sign left out (+ 0.0 turns -0.0 into 0.0)."""
    return [struct.unpack("<q", struct.pack("<d", v + 0.0))[0] for v in values]


def assert_same_solve(stop: list, bust: float) -> None:
    values, rolls, stops = turn.solve_arrays(turn.Payoff(tuple(stop), bust))
    mine, my_stops, my_rolls = native._core.dp_solve(stop, bust)
    assert bits(mine) == bits(values.tolist()), (stop, bust)
    assert bits(my_rolls) == bits(rolls.tolist()), (stop, bust)  # the account's roll values
    assert list(my_stops) == stops.tolist(), (stop, bust)


def tile_payoff(low: int, value) -> list:
    return [None] * low + [value(t) for t in range(low, 41)]


TIES = [
    # every stop worth the same: every keep of a roll ties
    (tile_payoff(21, lambda t: 1.0), 0.0),
    (tile_payoff(21, lambda t: 1.0), -1.0),
    (tile_payoff(21, lambda t: 0.0), -0.0),  # signed zeros everywhere
    (tile_payoff(21, lambda t: -0.0), 0.0),
    (tile_payoff(21, lambda t: -0.0), -0.0),
    (tile_payoff(21, lambda t: 0.0 if t % 2 else -0.0), 0.0),
    (tile_payoff(36, lambda t: 4.0), -0.0),  # one total: most rows bust or roll on
    ([None] * 40 + [4.0], 0.0),  # only eight worms stop
    (tile_payoff(21, lambda t: float((t - 17) // 4)), -4.0),  # the worm swing's steps
    (tile_payoff(21, lambda t: float((t - 17) // 4)), 2.0),  # a bust worth more than stops
    (tile_payoff(21, lambda t: 1e-300 * (t - 20)), -1e-300),  # underflowing products
    (tile_payoff(21, lambda t: 1e300 if t == 30 else 1.0), -1e300),
]


@needs_native
@pytest.mark.parametrize(("stop", "bust"), TIES)
def test_ties_and_signed_zeros_solve_bit_for_bit(stop, bust, dp_lanes):
    assert_same_solve(stop, bust)


@needs_native
def test_random_payoffs_solve_bit_for_bit(dp_lanes):
    """Every state (so every row template) of random payoffs with many exact ties."""
    rng = random.Random(12)
    for _ in range(60):
        low = rng.randint(0, 40)
        levels = [rng.choice([0.0, -0.0, 1.0, 2.0, rng.random()]) for _ in range(4)]
        stop = tile_payoff(low, lambda t, lv=levels: lv[(t * 7) % 4])
        for t in rng.sample(range(41), rng.randint(0, 5)):
            stop[t] = rng.choice([None, 0.0, -0.0, rng.random() * 8])
        assert_same_solve(stop, rng.choice([0.0, -0.0, -rng.random() * 4, 1.0]))


@needs_native
@pytest.mark.parametrize("preset", PRESETS)
def test_games_in_every_preset_at_three_and_four_players(preset):
    """Game by game against the Python strategy: two optimals sharing solved turns."""
    played = check_deals(["optimal", "simple"], Rules.preset(preset, 2), "duplicate", 41, 12)
    for players in (3, 4):
        entrants = ["optimal", "optimal(endgame=6, flip=1.0)", "tactician", "greedy"][:players]
        played += check_deals(entrants, Rules.preset(preset, players), "independent", 42, 2)
    assert played == 24 + 2 * 3 + 2 * 4


@needs_native
def test_a_cold_process_plays_the_warm_rows():
    """Rows played after other deals warmed the solved-turn cache (states half solved by
    earlier turns) are the rows of a process that starts cold."""
    rules, orders = Rules(players=2), seating.design(2, "cyclic")
    native.play_deals(rules, ["optimal", "simple"], 8, 100, 140, orders=orders)  # warm
    warm = native.play_deals(rules, ["optimal", "simple"], 8, 0, 30, orders=orders)
    code = (
        "from harness import native\n"
        "from harness.game import seating\n"
        "res = native.play_deals('official', ['optimal', 'simple'], 8, 0, 30,\n"
        "                        orders=seating.design(2, 'cyclic'))\n"
        "print(repr((dict(res.games), res.seats)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr((dict(warm.games), warm.seats))


@needs_native
@pytest.mark.once  # each width's solves, bit for bit, and a cold process: the tests above
def test_every_width_of_lanes_plays_the_rows_of_state_by_state():
    """Lazily solved turns in lanes of four (AVX2) and two (SSE2), and state by state: a
    roll's keeps solved at once, groups of one to four states of a template, lanes past
    a group's end filled and dropped. Each width in a cold process, then the widths mixed
    in one process (turns half solved one way, finished another): the same rows."""
    widths = [n for n in sorted(LANES, reverse=True) if native._core.dp_lanes(n) == n]
    native._core.set_portable(False)
    if len(widths) < 2:
        pytest.skip("this processor has no lanes: nothing to compare state by state with")
    out = {lanes: rows_in_a_fresh_process(lanes=lanes) for lanes in widths}
    assert len(set(out.values())) == 1, {n: len(v) for n, v in out.items()}
    rules, orders = Rules(players=2), seating.design(2, "cyclic")

    def deals(first: int):  # noqa: ANN202
        res = native.play_deals(rules, ["optimal", "simple"], 5, first, first + 4, orders=orders)
        return dict(res.games), res.seats

    mixed = []
    try:
        for k, first in enumerate(range(0, 40, 4)):  # one cache, the width switched
            native._core.dp_lanes(widths[k % len(widths)])
            mixed.append(deals(first))
    finally:
        native._core.set_portable(False)
    assert mixed == [deals(first) for first in range(0, 40, 4)]
