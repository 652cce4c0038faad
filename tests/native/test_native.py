"""The native engine tier (issue 12): bit-identical to the Python engine, or not used.

Every game the C engine plays is compared with the Python engine (the reference) game
by game: final scores, ranks, winner, turns, status, busts, steals, stolen, stacks,
grill and face-down tiles, over every preset, 2 to 7 players, every variant
combination, duplicate and independent dice, each built-in (with parameters) against
the others in every seat. The chunk path is compared with the Python engine row by
row in every seating design (cyclic, balanced, permutations: seat i of order k holds
entrant orders[k][i]), resumed chunks and standings counters included, and with
play_chunk, stats and all; deal seeds depend on (seed, deal) only. The attacker's side:
anything the C code does not mirror exactly (a plugin, a subclass, an edited built-in, a
parameter that is not a plain number, a seed that is not an int64, seat limits) must be
refused (NotNative), never played; a malformed seating design is a ValueError at every
door, the C one included, never a crash.

Skipped when the extension is not built (HARNESS_NO_NATIVE=1 or no C compiler), except
the fallback tests, which run everywhere.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import sys
import threading
from array import array
from itertools import product
from pathlib import Path

import pytest

from harness import native
from harness.game import seating
from harness.game.dice import DuplicateDice, SeededDice, derive_seed
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import PRESETS, VARIANTS, Rules
from harness.strategy import ParameterError
from harness.tourney import chunks
from harness.tourney.plan import SEED_MASK, ChunkSpec, EntrantRef, game_seed

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

needs_native = pytest.mark.skipif(not native.available(), reason="native engine not built")

# Every built-in with a native version, some with parameters (floats among them).
SPECS = [
    "greedy",
    "threshold",
    "threshold(target=24)",
    "worm-first",
    "worm-first(target=28, min_dice=2)",
    "simple",
    "env-heuristic",
    "tactician",
    "tactician(caution=0.8, worm_by=2)",
    "random",
    "random(p_stop=0.25)",
]
_RESOLVED: dict[str, object] = {}


def spec_of(text: str):
    if text not in _RESOLVED:
        _RESOLVED[text] = resolve(text)
    return _RESOLVED[text]


def table(cell: int, players: int) -> list[str]:
    """A table for a test cell: every built-in meets the others across the cells."""
    return [SPECS[(3 * cell + 5 * i) % len(SPECS)] for i in range(players)]


CYCLIC = {n: seating.design(n, "cyclic") for n in range(2, 8)}


def deal_seed(seed: int, deal: int) -> int:
    """Contract 1 of issue 10: a deal's seed from the config seed and the deal only."""
    return derive_seed(seed, "deal", deal) & SEED_MASK


def python_game(entrants: list[str], rules: Rules, dice, seed: int, order, max_turns):
    """The reference: the Python engine, seat i holding entrant order[i]."""
    seats = [spec_of(entrants[e]).create() for e in order]
    return Game(seats, rules, dice, max_turns=max_turns, seed=seed).play()


def row_of(res: native.NativeResult, k: int) -> dict:
    n = len(res.seats)
    col = {name: [res.seats[i][name][k] for i in range(n)] for name in native.SEAT_COLUMNS}
    return {
        "scores": col["worms"],
        "ranks": col["rank"],
        "busts": col["busts"],
        "steals": col["steals"],
        "stolen": col["stolen"],
        "winner": res.games["winner"][k],
        "turns": res.games["turns"][k],
        "status": res.games["status"][k],
        **res.board(k),
    }


def reference_row(result) -> dict:
    return {
        "scores": result.scores,
        "ranks": result.ranks,
        "busts": result.busts,
        "steals": result.steals,
        "stolen": result.stolen,
        "winner": -1 if result.winner is None else result.winner,
        "turns": result.turns,
        "status": 1 if result.capped else 0,
        "grill": result.grill,
        "flipped": result.flipped,
        "stacks": result.stacks,
    }


def check_deals(entrants, rules, dice, seed, deals, max_turns=1000, orders=None, first=0) -> int:
    """Play deals natively and each row again in Python; assert every row is the same.

    Rows go by deal, then order index k; seat i of order k holds entrant orders[k][i]."""
    orders = CYCLIC[rules.players] if orders is None else orders
    res = native.play_deals(
        rules, entrants, seed, first, first + deals, orders=orders, dice=dice,
        max_turns=max_turns, detail=True,
    )  # fmt: skip
    assert res.rows == deals * len(orders)
    for row in range(res.rows):
        deal, k = res.games["deal"][row], res.games["seating"][row]
        assert (deal, k) == (first + row // len(orders), row % len(orders))
        dseed = deal_seed(seed, deal)
        gseed = game_seed(dseed, k, dice)
        assert (res.games["seed"][row], res.games["game_seed"][row]) == (dseed, gseed)
        source = DuplicateDice(dseed) if dice == "duplicate" else SeededDice(gseed)
        expected = reference_row(python_game(entrants, rules, source, gseed, orders[k], max_turns))
        got = row_of(res, row)
        assert got == expected, f"{entrants} {rules.describe()} {dice} deal {deal} order {k}"
    return res.rows


# -- the pieces: MT19937, BLAKE2b ---------------------------------------------------------
@needs_native
@pytest.mark.parametrize("seed", [0, 1, 7, -7, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1])
def test_mt_words_are_cpythons(seed):
    expected = random.Random(seed)
    assert native._core.mt_words(seed, 1500) == [expected.getrandbits(32) for _ in range(1500)]


@needs_native
def test_derive_seed_is_blake2b_of_the_parts():
    cases = [(1, "deal", "abc", 5), (-3, "rotation", 2), (2**63 - 1, "seat", 6), ("é" * 90,), ()]
    for parts in cases:  # the last two: more than one block, and the empty message
        text = "\x1f".join(str(p) for p in parts).encode()
        assert native._core.derive_seed(text) == derive_seed(*parts)


# -- whole games: presets x players x dice, every built-in in every seat --------------------
@needs_native
@pytest.mark.parametrize("dice", native.DICE_MODES)
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.once
def test_presets_players_and_dice(preset, dice):
    played = 0
    for players in range(2, 8):
        cell = players + 7 * list(PRESETS).index(preset)
        played += check_deals(
            table(cell, players), Rules.preset(preset, players), dice, cell, 360 // players
        )
    assert played >= 2100


@needs_native
def test_every_variant_combination():
    # 24 rule sets; bust_flip none runs long, so a low turn cap also tests capped games
    played = capped = 0
    for cell, values in enumerate(product(*VARIANTS.values())):
        rules = Rules(players=3, **dict(zip(VARIANTS, values, strict=True)))
        played += check_deals(table(cell, 3), rules, "independent", 100 + cell, 12, max_turns=90)
        res = native.play_deals(
            rules, table(cell, 3), 100 + cell, 0, 12, orders=CYCLIC[3], max_turns=90
        )
        capped += sum(res.games["status"])
    assert played == 24 * 36 and capped > 0


@needs_native
def test_play_games_seeds_as_play_game():
    # row k is play_game(..., seed=seeds[k]): negative and large seeds included
    seeds = [0, -1, -123456, 2**40 + 3, 2**63 - 1, -(2**63), *range(1, 200)]
    for players, entrants in ((2, ["random", "tactician"]), (5, table(4, 5))):
        rules = Rules.preset("piko-blog", players)
        res = native.play_games(rules, entrants, seeds, detail=True)
        for k, s in enumerate(seeds):
            ref = python_game(entrants, rules, SeededDice(s), s, range(players), 1000)
            assert row_of(res, k) == reference_row(ref), (entrants, s)
        dup = native.play_games(rules, entrants, seeds, dice="duplicate", detail=True)
        for k, s in enumerate(seeds):
            ref = python_game(entrants, rules, DuplicateDice(s), s, range(players), 1000)
            assert row_of(dup, k) == reference_row(ref), (entrants, s)


@needs_native
@pytest.mark.parametrize("mode", [None, *seating.SEATINGS])
def test_seat_orders_and_game_seeds_given_per_row(mode):
    # None: no design given, the cyclic one (seating k is rotation k)
    rules = Rules.preset("french", 4)
    entrants = table(9, 4)
    orders = seating.design(4, mode or "cyclic")
    m = len(orders)
    picks = [(7 * k) % m for k in range(80)]
    seeds = [k // 4 for k in range(80)]  # a deal's orders share the duplicate key
    res = native.play_games(
        rules, entrants, seeds, [s + 11 for s in seeds], picks,
        orders=None if mode is None else orders, dice="duplicate", detail=True,
    )  # fmt: skip
    assert list(res.games["seating"]) == picks
    for k in range(80):
        ref = python_game(
            entrants, rules, DuplicateDice(seeds[k]), seeds[k] + 11, orders[picks[k]], 1000
        )
        assert row_of(res, k) == reference_row(ref)


@needs_native
@pytest.mark.parametrize("max_turns", [0, 1, 7, 33])
def test_turn_caps(max_turns):
    rules = Rules(players=3, bust_flip="none")
    res = native.play_games(rules, table(2, 3), range(40), max_turns=max_turns, detail=True)
    for s in range(40):
        ref = python_game(table(2, 3), rules, SeededDice(s), s, range(3), max_turns)
        assert row_of(res, s) == reference_row(ref)


@needs_native
def test_instances_with_float_parameters():
    # instances (not references) may carry values configs cannot: a float target
    from harness.strategies.threshold import Threshold
    from harness.strategies.worm_first import WormFirst

    seats = [Threshold(target=27.5), WormFirst(target=26.25, min_dice=2.5)]
    res = native.play_games(Rules(players=2), seats, range(150), detail=True)
    for s in range(150):
        ref = Game(
            [Threshold(target=27.5), WormFirst(target=26.25, min_dice=2.5)],
            Rules(players=2),
            SeededDice(s),
            seed=s,
        ).play()
        assert row_of(res, s) == reference_row(ref)


@needs_native
def test_portable_paths_play_the_same_games():
    # the AVX2 seeding and hashing, and the portable ones, give the same rows
    rules, orders = Rules.preset("short", 3), seating.design(3)
    fast = native.play_deals(rules, table(5, 3), 9, 0, 100, orders=orders, dice="duplicate")
    try:
        native._core.set_portable(True)
        slow = native.play_deals(rules, table(5, 3), 9, 0, 100, orders=orders, dice="duplicate")
        slow_ind = native.play_deals(rules, table(5, 3), 9, 0, 100, orders=orders)
    finally:
        native._core.set_portable(False)
    fast_ind = native.play_deals(rules, table(5, 3), 9, 0, 100, orders=orders)
    assert fast.games == slow.games and fast.seats == slow.seats
    assert fast_ind.games == slow_ind.games and fast_ind.seats == slow_ind.seats


# -- optimal: the turn programme solved natively ------------------------------------------
@needs_native
def test_the_turn_programme_is_solve_arrays():
    from harness.analysis import turn

    assert native._core.dp_states() == [tuple(s) for s in turn.STATES]
    rng = random.Random(11)
    for _ in range(150):
        stop = [None] * 41
        value = None
        for total in range(rng.randint(21, 36), 41):
            if value is None or rng.random() < 0.4:
                value = rng.choice([float(rng.randint(1, 4)), rng.random() * 4, rng.random()])
            stop[total] = value
        for _ in range(rng.randint(0, 3)):  # steals above the grill's values
            stop[rng.randint(21, 36)] = rng.random() * 8
        bust = rng.choice([0.0, -0.0, -1.0, -4.0, -rng.random() * 5, rng.random()])
        values, rolls, stops = turn.solve_arrays(turn.Payoff(tuple(stop), bust))
        mine, my_stops, my_rolls = native._core.dp_solve(stop, bust)
        assert mine == values.tolist() and list(my_stops) == stops.tolist()
        assert my_rolls == rolls.tolist()


@needs_native
@pytest.mark.once
def test_optimal_plays_as_the_python_strategy():
    played = 0
    cases = [
        (["optimal", "simple"], Rules(players=2), "independent", 120),
        (["optimal(endgame=8, spread=1.5, flip=0.5)", "tactician"], Rules.preset("short", 2),
         "duplicate", 60),
        (["optimal", "random", "optimal(endgame=0)"], Rules.preset("french", 3), "independent", 30),
        (["optimal(flip=2.0)", "greedy", "simple", "worm-first"], Rules.preset("piko-blog", 4),
         "duplicate", 20),
    ]  # fmt: skip
    for entrants, rules, dice, deals in cases:
        played += check_deals(entrants, rules, dice, 3, deals)
    for cell, values in enumerate(product(*VARIANTS.values())):
        rules = Rules(players=3, **dict(zip(VARIANTS, values, strict=True)))
        played += check_deals(["optimal", "tactician", "optimal(endgame=6)"], rules, "duplicate",
                              cell, 2, max_turns=120)  # fmt: skip
    assert played == 240 + 120 + 90 + 80 + 24 * 6


@needs_native
@pytest.mark.once
def test_optimal_against_simple_in_every_preset_and_dice_mode():
    """Thousands of games of the benchmark's table (optimal v simple) and a table of two
    optimals sharing the solved turns, game by game against the Python strategy: the
    turn programme is solved lazily (only the states a decision needs) and its payoffs are
    cached across turns, games and seats, none of which may change a decision."""
    played = 0
    for cell, (preset, dice) in enumerate(product(PRESETS, ("independent", "duplicate"))):
        played += check_deals(["optimal", "simple"], Rules.preset(preset, 2), dice, cell, 90)
        players = 3 + cell % 2
        entrants = ["optimal", "simple", "optimal(endgame=6, flip=1.0)", "greedy"][:players]
        played += check_deals(entrants, Rules.preset(preset, players), dice, cell, 8)
    assert played == 8 * 180 + 4 * 8 * 3 + 4 * 8 * 4


@needs_native
def test_optimal_decides_the_same_with_cold_and_warm_caches():
    """A turn's programme half solved by earlier turns (warm, in this process) goes on from
    there; a fresh process solves it from nothing: the same rows either way, and the
    Python strategy's."""
    rules = Rules(players=2)
    check_deals(["optimal", "simple"], rules, "independent", 5, 60)  # deals 0..59: warm
    check_deals(["optimal", "simple"], rules, "independent", 5, 60, first=30)  # half warm
    warm = native.play_deals(rules, ["optimal", "simple"], 5, 30, 90, orders=CYCLIC[2])
    code = (
        "from harness import native\n"
        "from harness.game import seating\n"
        "res = native.play_deals('official', ['optimal', 'simple'], 5, 30, 90,\n"
        "                        orders=seating.design(2, 'cyclic'))\n"
        "print(repr((dict(res.games), res.seats)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr((dict(warm.games), warm.seats))


@needs_native
def test_optimal_refuses_what_numpy_would_compute_differently():
    from harness.strategies.optimal import Optimal
    from harness.strategy import ParameterError

    for params in ({"spread": float("inf")}, {"flip": float("nan")}):
        with pytest.raises(ParameterError, match="is not a number"):
            Optimal(**params)  # out of its declared bounds: never built
        changed = Optimal()
        changed.__dict__.update(params)  # nor played, whatever was done to it since
        with pytest.raises(ParameterError, match="is not a number"):
            native.native_seat(changed)
    assert native.native_seat("optimal(endgame=3, spread=2.0)").params == (3.0, 2.0, 0.0)


# -- the chunk path: play_chunk's rows, stats and all ----------------------------------------
def ref_of(text: str) -> EntrantRef:
    spec = resolve(text)
    return EntrantRef(spec.label, spec.ref, spec.params, spec.identity()["code"])


def chunk_spec(
    entrants, rules, dice, first=3, stop=40, seed=17, max_turns=1000, mode="cyclic", **extra
) -> ChunkSpec:
    refs = tuple(ref_of(e) for e in entrants)
    return ChunkSpec(
        "key", "tbl", refs, rules, dice, seed, first, stop, max_turns, seating=mode, **extra
    )


def same_chunk(a, b) -> bool:
    return (a.key, a.games, a.seats, a.errors, a.stats, a.loaded) == (
        b.key,
        b.games,
        b.seats,
        b.errors,
        b.stats,
        b.loaded,
    )


def rows_from(res, start: int) -> tuple:
    """A result's columns from row ``start`` on (what a chunk resumed there stores)."""
    return (
        {k: v[start:] for k, v in res.games.items()},
        [{k: v[start:] for k, v in s.items()} for s in res.seats],
    )


# Every seating mode at every player count it covers (permutations: up to 5).
MODES = [
    (mode, n)
    for mode in seating.SEATINGS
    for n in range(2, 8)
    if seating.seating_problem(mode, n) is None
]


@needs_native
@pytest.mark.parametrize("dice", native.DICE_MODES)
def test_every_seating_design_is_the_python_engines(dice):
    # seat i of order k holds entrant orders[k][i]; deals from a nonzero first; about 60
    # games of each (mode, players), every preset in turn
    played = 0
    for cell, (mode, n) in enumerate(MODES):
        orders = seating.design(n, mode)
        rules = Rules.preset(list(PRESETS)[cell % len(PRESETS)], n)
        deals = max(1, 60 // len(orders))
        played += check_deals(
            table(cell, n), rules, dice, 40 + cell, deals, orders=orders, first=5 + cell
        )
    assert played >= 16 * 40


@needs_native
@pytest.mark.parametrize("dice", native.DICE_MODES)
@pytest.mark.parametrize(("mode", "n"), [("cyclic", 2), ("balanced", 5), ("permutations", 4)])
def test_a_resumed_chunk_is_the_tail_of_the_whole(mode, n, dice):
    # start at every lane and deal boundary (16 streams seeded at a time) and elsewhere
    orders = seating.design(n, mode)
    m = len(orders)
    stop = 7 + max(6, 40 // m + 1)
    full = native.play_deals(Rules(players=n), table(n, n), 3, 7, stop, orders=orders, dice=dice)
    total = (stop - 7) * m
    assert full.rows == total > 33
    starts = {0, 1, 15, 16, 17, 31, 32, 33, m - 1, m, m + 1, 2 * m, total - 1, total}
    starts |= set(random.Random(n).sample(range(total), 12))
    for start in sorted(starts):
        part = native.play_deals(
            Rules(players=n), table(n, n), 3, 7, stop, orders=orders, dice=dice, start=start
        )
        assert (part.games, part.seats) == rows_from(full, start), start


@needs_native
def test_deal_seeds_are_the_same_at_every_table():
    # contract 1: seed and deal only; the dice of (deal, order k) are the same at every
    # table, whoever sits there and however many
    seen: dict[tuple, set] = {}
    for n, mode in ((2, "cyclic"), (3, "balanced"), (4, "cyclic"), (5, "permutations")):
        for cell in (n, n + 1):  # two tables of n players
            for dice in native.DICE_MODES:
                res = native.play_deals(
                    Rules(players=n), table(cell, n), 99, 10, 14,
                    orders=seating.design(n, mode), dice=dice,
                )  # fmt: skip
                for row in range(res.rows):
                    deal, k = res.games["deal"][row], res.games["seating"][row]
                    seeds = (res.games["seed"][row], res.games["game_seed"][row])
                    assert seeds == (deal_seed(99, deal), game_seed(deal_seed(99, deal), k, dice))
                    seen.setdefault((dice, deal, k), set()).add(seeds)
    assert all(len(v) == 1 for v in seen.values())
    assert len(seen[("independent", 10, 0)]) == 1 and len(seen) == 2 * 4 * 120
    # odd seeds: negative, and long enough that a message needs a second BLAKE2b block
    for seed in (-3, 2**64, 10**120):
        for dice in native.DICE_MODES:
            res = native.play_deals(Rules(players=2), table(1, 2), seed, 0, 20, orders=CYCLIC[2],
                                    dice=dice)  # fmt: skip
            assert list(res.games["seed"]) == [deal_seed(seed, d // 2) for d in range(40)]
    from harness.tourney import plan

    assert all(plan.deal_seed(s, d) == deal_seed(s, d) for s in (0, -5, 2**70) for d in (0, 9))


@needs_native
@pytest.mark.parametrize("dice", native.DICE_MODES)
@pytest.mark.parametrize("mode", seating.SEATINGS)
def test_play_chunk_is_play_chunks(dice, mode):
    for players in (2, 4, 7) if mode != "permutations" else (2, 4, 5):
        stop = 40 if players < 4 else 6
        spec = chunk_spec(
            table(players, players), Rules.preset("piko-blog", players), dice, stop=stop,
            mode=mode,
        )  # fmt: skip
        assert same_chunk(chunks.play_native(spec), chunks.play_chunk(spec))
    spec = chunk_spec(["tactician", "random", "greedy"], Rules(players=3), dice, stop=12, mode=mode)
    for start in (1, 5, 17, spec.games - 1, spec.games):  # resumed: rows from `start` on
        mine = chunks.play_native(spec, start=start)
        theirs = chunks.play_chunk(spec, start=start)
        assert (mine.games, mine.seats, mine.errors) == (theirs.games, theirs.seats, theirs.errors)


def doctored(n: int, m: int, rows: int, seed: int) -> tuple[dict, list]:
    """Columns with forfeits and shared first places, which built-ins never produce."""
    rng = random.Random(seed)
    games = {k: array(c, bytes(rows * array(c).itemsize)) for k, c in native.GAME_COLUMNS.items()}
    seats = [{k: array(c, bytes(rows * array(c).itemsize)) for k, c in native.SEAT_COLUMNS.items()}
             for _ in range(n)]  # fmt: skip
    for row in range(rows):
        games["seating"][row] = rng.randrange(m)
        games["status"][row] = rng.choice([0, 0, 1, 2])
        games["error_seat"][row] = rng.choice([-1, -1, *range(n)])
        for s in seats:
            s["worms"][row] = rng.randrange(12)
            s["rank"][row] = rng.choice([1, 1, 2, 3])
    return games, seats


@needs_native
def test_chunk_stats_match_the_python_counters():
    spec = chunk_spec(  # a low cap: some capped games among them
        table(3, 4), Rules(players=4), "duplicate", stop=15, max_turns=45, mode="balanced"
    )
    result = chunks.play_chunk(spec)
    assert 0 < sum(result.games["status"]) < result.rows
    python = chunks.chunk_stats(result, 4, spec.orders)
    assert native.column_counts(result.games, result.seats, 4, spec.orders) == python
    assert result.stats == python  # what play_chunk filled in
    for mode, n in MODES:
        orders = seating.design(n, mode)
        games, seats = doctored(n, len(orders), 400, n)
        fake = chunks.ChunkResult("k", games, seats)
        expected = chunks.chunk_stats(fake, n, orders)
        assert native.column_counts(games, seats, n, orders) == expected, (mode, n)
        if mode == "cyclic":  # no design given: the cyclic one
            assert native.column_counts(games, seats, n) == expected
    # a permuted design counts each entrant from its own seats: not the cyclic counts
    games, seats = doctored(3, 6, 400, 1)
    assert native.column_counts(games, seats, 3, seating.design(3)) != native.column_counts(
        games, seats, 3, [(0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 1, 2), (1, 2, 0), (2, 0, 1)]
    )


@needs_native
def test_threads_play_independently():
    # the GIL is released while C plays: concurrent batches must not share state
    rules = Rules.preset("official", 3)
    expected = native.play_deals(rules, table(1, 3), 4, 0, 150, orders=seating.design(3))
    got: list = []

    def play() -> None:
        got.append(native.play_deals(rules, table(1, 3), 4, 0, 150, orders=seating.design(3)))

    workers = [threading.Thread(target=play) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(got) == 3 and all(
        g.games == expected.games and g.seats == expected.seats for g in got
    )


# -- what must not play natively ---------------------------------------------------------------
def test_column_typecodes_are_the_chunks():
    assert native.GAME_COLUMNS == chunks.GAME_ARRAYS
    assert native.SEAT_COLUMNS == chunks.SEAT_ARRAYS
    # the order core.c takes its buffers in names every column once
    assert sorted(native.columns.GAME_ORDER) == sorted(native.GAME_COLUMNS)
    assert sorted(native.columns.SEAT_ORDER) == sorted(native.SEAT_COLUMNS)
    if native.available():
        assert native._core.MAX_ORDERS == native.MAX_ORDERS == 127


def test_sources_are_the_ones_the_c_code_mirrors():
    # fails when a built-in's source changes: update harness/native/c/core.c to match,
    # then native.sources.SOURCES (the SHA-256 of each strategies module)
    for module in native.sources.SOURCES:
        assert native.source_digest(module) == native.sources.SOURCES[module], module


@needs_native
def test_a_stale_builtin_is_not_native(monkeypatch):
    monkeypatch.setitem(native.sources.SOURCES, "harness.strategies.tactician", "0" * 64)
    monkeypatch.setattr(native.sources, "STALE", {})
    with pytest.raises(native.NotNative, match="source differs"):
        native.native_seat("tactician")
    assert native.native_seat("greedy").kind == 0


@needs_native
def test_plugins_and_lookalikes_are_not_native(tmp_path):
    from harness.strategies.greedy import Greedy

    class Subclass(Greedy):
        name = "greedy"

    plugin = tmp_path / "copy_of_greedy.py"
    plugin.write_text(
        "from harness.strategy import Strategy\n"
        "from harness.strategies._common import most_points\n"
        "class Greedy(Strategy):\n"
        "    name = 'greedy'\n"
        "    pick = staticmethod(most_points)\n"
        "    def stop(self, view):\n"
        "        return True\n"
    )

    class Meta(type):  # a class whose attributes and hash are booby-trapped
        def __getattribute__(cls, item):
            raise RuntimeError("plugin code ran")

        def __hash__(cls):
            raise RuntimeError("plugin code ran")

    class Trap(metaclass=Meta):
        pass

    refusals = [
        Trap(),  # recognised without running any of its code
        Subclass(),  # a built-in's name and code, but another class
        f"{plugin}:Greedy",  # greedy's code from a file
        "no-such-strategy",
        object(),
    ]
    for strategy in refusals:
        with pytest.raises(native.NotNative):
            native.native_seat(strategy)
    # Out of its declared bounds: the one refusal either engine gives (not NotNative,
    # which would hand the seat to the Python engine).
    with pytest.raises(ParameterError, match="target: 99 is out of bounds"):
        native.native_seat("threshold(target=99)")
    assert not native.supports(["greedy", Subclass()])
    assert native.supports(["greedy", "tactician(caution=2)"])


@needs_native
def test_odd_values_are_refused_not_played():
    from harness.strategies.tactician import Tactician
    from harness.strategies.threshold import Threshold

    class Sneaky(int):  # an int subclass: its own comparisons could lie
        pass

    odd = Tactician()
    odd.worm_by = Sneaky(3)  # within its bounds (by its plain value), but not plain
    with pytest.raises(native.NotNative, match="plain number"):
        native.native_seat(odd)
    huge = Threshold()
    huge.target = 2**60  # out of its bounds (and not exact as a double)
    with pytest.raises(ParameterError, match="out of bounds"):
        native.native_seat(huge)
    rules = Rules(players=2)
    for seeds in ([2**63], [None], ["7"], [1.5]):
        with pytest.raises(native.NotNative, match="int64"):
            native.play_games(rules, ["greedy", "greedy"], seeds)
    with pytest.raises(native.NotNative):
        native.play_games(rules, ["greedy", "greedy"], [1], dice="loaded")
    with pytest.raises(native.NotNative):
        native.play_games(rules, ["greedy", "greedy"], [1], max_turns=40000)
    with pytest.raises(native.NotNative):
        native.play_deals(rules, ["greedy", "greedy"], 1, 5, 2, orders=CYCLIC[2])
    limited = chunk_spec(["greedy", "greedy"], rules, "independent", 0, 2, move_time=1.0)
    with pytest.raises(native.NotNative, match="seat limits"):
        chunks.play_native(limited)


@needs_native
def test_c_entry_points_reject_bad_arguments():
    core = native._core
    cols = raw_columns
    ok_rules, seats, design = (2, 0, 1, 0, 1, 0), ((0,), (0,)), b"\x00\x01\x01\x00"
    core.play_games(ok_rules, seats, 100, 0, 3, design, cols(3, 2), None)  # the happy path
    bad = [
        ((8, 0, 1, 0, 1, 0), seats, 3, cols(3, 8)),  # 8 players (R3)
        ((2, 0, 3, 0, 1, 0), seats, 3, cols(3, 2)),  # no flip mode 3
        ((2, 0, 1, 0, 1, 4), seats, 3, cols(3, 2)),  # no evaluator slot 4
        (ok_rules, ((0,), (99,)), 3, cols(3, 2)),  # no such strategy
        (ok_rules, ((0,),), 3, cols(3, 2)),  # one seat for two players
        (ok_rules, seats, 4, cols(3, 2)),  # columns shorter than the rows
        (ok_rules, seats, 3, cols(3, 2)[:-1]),  # a column missing
    ]
    for rules, strategies, rows, columns in bad:
        with pytest.raises(ValueError):
            core.play_games(rules, strategies, 100, 0, rows, design, columns, None)
    with pytest.raises(TypeError):  # no evaluator slot: never a preset judged by another model
        core.play_games(ok_rules[:-1], seats, 100, 0, 3, design, cols(3, 2), None)
    for k in (2, -1):  # seat order 2 of a design of 2; a negative one
        columns = cols(3, 2)
        columns[1][2] = k
        with pytest.raises(ValueError, match="seat order"):
            core.play_games(ok_rules, seats, 100, 0, 3, design, columns, None)
    with pytest.raises(BufferError):  # read-only buffers
        core.play_games(ok_rules, seats, 100, 0, 3, design, (b"x",) * 19, None)


def raw_columns(rows: int, n: int) -> tuple:
    """Zeroed buffers in the order core.c takes them."""
    codes = [native.GAME_COLUMNS[k] for k in native.columns.GAME_ORDER]
    codes += [native.SEAT_COLUMNS[k] for k in native.columns.SEAT_ORDER] * n
    return tuple(array(c, bytes(rows * array(c).itemsize)) for c in codes)


class Shifty:
    """A design that gives another answer each time it is read (and lies about its length)."""

    def __init__(self, *answers) -> None:
        self.answers, self.reads = list(answers), 0

    def again(self) -> Shifty:
        return Shifty(*self.answers)

    def __len__(self) -> int:
        return 1

    def __iter__(self):
        self.reads += 1
        return iter(self.answers[min(self.reads, len(self.answers)) - 1])


BAD_DESIGNS = [
    [],  # no order
    [(0, 1)] * 128,  # one more than the int8 seating column holds
    [(0, 0)],  # an entrant twice
    [(1, 1), (0, 1)],
    [(0, 1, 2)],  # a 3-seat order at a 2-player table
    [(0,)],  # too short
    [(0, -1)],  # negative
    [(0, 2)],  # no entrant 2
    [(0, 256 + 1)],  # a byte that would wrap to 1
    [(0.0, 1)],  # not ints
    [(False, True)],  # bools are not entrants
    ["01"],  # a string of digits
    [None],
    [5],
    5,
    None,  # play_deals needs a design (play_games and chunk_stats read None as cyclic)
    Shifty([(0, 0)], [(0, 1)]),  # bad on the first (only) read
]


@needs_native
@pytest.mark.parametrize("bad", BAD_DESIGNS, ids=range(len(BAD_DESIGNS)))
def test_a_malformed_design_is_refused(bad):
    rules = Rules(players=2)
    design = lambda: bad.again() if isinstance(bad, Shifty) else bad  # noqa: E731 - unread
    calls = [
        lambda: native.play_deals(rules, ["greedy", "greedy"], 1, 0, 3, orders=design()),
        lambda: native.column_counts(*doctored(2, 1, 5, 0), 2, design()),
        lambda: native.play_games(rules, ["greedy", "greedy"], [1], orders=design()),
    ]
    for call in calls[: 1 if bad is None else 3]:
        with pytest.raises(ValueError, match="orders") as caught:
            call()
        assert not isinstance(caught.value, native.NotNative)  # a bug, not a fallback


@needs_native
def test_a_design_is_read_once():
    # what the first read gave is what is checked and what is played
    rules, seats = Rules(players=2), ["greedy", "tactician"]
    shifty = Shifty([(1, 0)], [(0, 0)], [(0, 1), (1, 1)])
    got = native.play_deals(rules, seats, 1, 0, 20, orders=shifty)
    assert shifty.reads == 1
    plain = native.play_deals(rules, seats, 1, 0, 20, orders=[(1, 0)])
    assert (got.games, got.seats) == (plain.games, plain.seats)
    with pytest.raises(ValueError, match="seatings"):
        native.play_games(rules, seats, [1, 2], seatings=[0, 300])
    with pytest.raises(ValueError, match="seat order 2"):
        native.play_games(rules, seats, [1, 2], seatings=[0, 2])
    games, seats_ = doctored(2, 6, 20, 3)  # seatings up to 5 against a design of 2
    with pytest.raises(ValueError, match="seat order"):
        native.column_counts(games, seats_, 2, [(0, 1), (1, 0)])


C_ATTACKS = r"""
from array import array
from harness import native
from harness.game import seating
core = native._core
def cols(rows, n):
    codes = [native.GAME_COLUMNS[k] for k in native.columns.GAME_ORDER]
    codes += [native.SEAT_COLUMNS[k] for k in native.columns.SEAT_ORDER] * n
    return tuple(array(c, bytes(rows * array(c).itemsize)) for c in codes)
rules, seats, prefix = (3, 0, 1, 0, 1, 0), ((0,), (1, 27.0), (3,)), b"1\x1fdeal\x1f"
bad = [b"", bytes(range(3)) * 128, b"\x00\x01\x01", b"\x00\x01\x03", b"\x00\x01",
       b"\x00\x01\x02\x00", array("b", [-1, 0, 1]), array("h", [0, 1, 2]),
       memoryview(bytes(range(3)) * 2)[::2], "012", [0, 1, 2], None, 7,
       bytes([0, 1, 2] * 126 + [2, 2, 2])]
refused = 0
for design in bad:
    for call in (
        lambda: core.play_deals(rules, seats, 100, 0, prefix, 0, 4, 0, design, cols(12, 3), None),
        lambda: core.play_games(rules, seats, 100, 0, 0, design, cols(0, 3), None),
        lambda: core.chunk_stats(3, 0, design, b"", b"", b"", (b"",) * 3, (b"",) * 3),
    ):
        try:
            call()
        except ValueError as exc:
            assert "orders" in str(exc), exc
            refused += 1
ok = bytes(e for order in seating.design(3) for e in order)
assert core.play_deals(rules, seats, 100, 0, prefix, 0, 2, 0, ok, cols(12, 3), None) is None
print("refused", refused)
"""


@needs_native
def test_the_c_doors_refuse_malformed_designs_without_crashing():
    # raw bytes straight at core.c, in a child process: a crash fails the test, not pytest
    done = subprocess.run([sys.executable, "-c", C_ATTACKS], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["refused", str(14 * 3)]


# -- without the extension ----------------------------------------------------------------------
def test_without_the_extension_nothing_plays(monkeypatch):
    monkeypatch.setattr(native.extension, "core", None)
    assert not native.available()
    assert not native.supports(["greedy", "greedy"])
    with pytest.raises(native.NotNative, match="not built"):
        native.play_games("official", ["greedy", "greedy"], [1])


def test_an_unimportable_extension_falls_back():
    code = (
        "import sys; sys.modules['harness._native_core'] = None\n"
        "import harness.native as n\n"
        "assert not n.available() and n.NATIVE_STRATEGIES\n"
        "print('fallback ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "fallback ok" in done.stdout, done.stderr


def test_digest_helper_reads_sources():
    import harness.strategies.greedy as greedy

    with open(greedy.__file__, "rb") as f:
        assert (
            native.source_digest("harness.strategies.greedy")
            == hashlib.sha256(f.read()).hexdigest()
        )


# -- the same games in another process: another build, other lanes ----------------------
_PLAY_ROWS = """
import importlib.util, sys
core, lanes = sys.argv[1], int(sys.argv[2])
if core:  # the extension built elsewhere, in place of the installed one
    spec = importlib.util.spec_from_file_location("harness._native_core", core)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["harness._native_core"] = module
from harness import native
from harness.game import seating
from harness.rules import Rules
assert native.available()
assert lanes < 0 or native._core.dp_lanes(lanes) == lanes
rows = []
for rules, entrants, dice in (
    (Rules(players=2), ["optimal", "simple"], "duplicate"),
    (Rules.preset("short", 3), ["optimal", "optimal(endgame=6, flip=1.0)", "greedy"],
     "independent"),
    (Rules.preset("short", 3), ["optimal(endgame=6, flip=1.0)", "tactician", "random"],
     "independent"),
    (Rules.preset("piko-blog", 4), ["env-heuristic", "worm-first", "greedy", "threshold"],
     "duplicate"),
):
    orders = seating.design(rules.players, "cyclic")
    res = native.play_deals(rules, entrants, 13, 0, 30, orders=orders, dice=dice)
    rows.append((dict(res.games), res.seats))
print(repr(rows))
"""


def rows_in_a_fresh_process(core: Path | None = None, lanes: int = -1) -> str:
    """The rows of a fixed set of native tables (optimal's among them, the dice, every
    built-in), played in a fresh process: with the extension built at ``core`` instead
    of the installed one, and at most ``lanes`` lanes in optimal's turn programme (-1:
    the default, the widest)."""
    done = subprocess.run(
        [sys.executable, "-c", _PLAY_ROWS, str(core or ""), str(lanes)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@needs_native
@pytest.mark.once  # the compiler, not the Python version: pass 3's install builds with gcc
def test_a_clang_build_plays_the_same_games(tmp_path):
    """The engine built by clang (macOS's compiler; an older clang once refused core.c,
    so an install there fell back to the Python engine) plays the games of this build,
    row for row: optimal's turn programme and its lanes, the dice, every built-in."""
    clang = shutil.which("clang")
    root = Path(native.__file__).resolve().parents[2]  # harness/native/__init__.py
    if clang is None or not (root / "setup.py").is_file():
        pytest.skip("no clang on this machine, or no source tree to build")
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "lib"),
         "--build-temp", str(tmp_path / "tmp")],
        cwd=root, capture_output=True, text=True, timeout=600,
        env={**os.environ, "CC": clang, "HARNESS_REQUIRE_NATIVE": "1"},
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    (built,) = (tmp_path / "lib" / "harness").glob("_native_core*")
    assert rows_in_a_fresh_process(core=built) == rows_in_a_fresh_process()
