"""The native engine tier (issue 12): bit-identical to the Python engine, or not used.

Every game the C engine plays is compared with the Python engine (the reference) game
by game: final scores, ranks, winner, turns, status, busts, steals, stolen, stacks,
grill and face-down tiles, over every preset, 2 to 7 players, every variant
combination, duplicate and independent dice, each built-in (with parameters) against
the others in every seat. The chunk path is compared with play_chunk row by row,
stats and all. The attacker's side: anything the C code does not mirror exactly (a
plugin, a subclass, an edited built-in, a parameter that is not a plain number, a seed
that is not an int64, seat limits) must be refused (NotNative), never played.

Skipped when the extension is not built (HARNESS_NO_NATIVE=1 or no C compiler), except
the fallback tests, which run everywhere.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
import threading
from array import array
from itertools import product

import pytest

from harness import native
from harness.dice import DuplicateDice, SeededDice, derive_seed
from harness.engine import Game
from harness.plugins import resolve
from harness.rules import PRESETS, VARIANTS, Rules
from harness.tourney import chunks
from harness.tourney.plan import ChunkSpec, EntrantRef, deal_seed, game_seed

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


def python_game(entrants: list[str], rules: Rules, dice, seed: int, rotation: int, max_turns):
    """The reference: the Python engine, seated as play_chunk seats a rotation."""
    n = rules.players
    seats = [spec_of(entrants[(i + rotation) % n]).create() for i in range(n)]
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


def check_deals(entrants, rules, dice, seed, deals, max_turns=1000) -> int:
    """Play deals natively and each row again in Python; assert every row is the same."""
    res = native.play_deals(
        rules, entrants, seed, "t-key", 0, deals, dice=dice, max_turns=max_turns, detail=True
    )
    for k in range(res.rows):
        deal, rotation = res.games["deal"][k], res.games["rotation"][k]
        dseed = deal_seed(seed, "t-key", deal)
        gseed = game_seed(dseed, rotation, dice)
        assert (res.games["seed"][k], res.games["game_seed"][k]) == (dseed, gseed)
        source = DuplicateDice(dseed) if dice == "duplicate" else SeededDice(gseed)
        expected = reference_row(python_game(entrants, rules, source, gseed, rotation, max_turns))
        got = row_of(res, k)
        assert got == expected, f"{entrants} {rules.describe()} {dice} deal {deal} rot {rotation}"
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
        res = native.play_deals(rules, table(cell, 3), 100 + cell, "t-key", 0, 12, max_turns=90)
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
            ref = python_game(entrants, rules, SeededDice(s), s, 0, 1000)
            assert row_of(res, k) == reference_row(ref), (entrants, s)
        dup = native.play_games(rules, entrants, seeds, dice="duplicate", detail=True)
        for k, s in enumerate(seeds):
            ref = python_game(entrants, rules, DuplicateDice(s), s, 0, 1000)
            assert row_of(dup, k) == reference_row(ref), (entrants, s)


@needs_native
def test_rotations_and_game_seeds_given_per_row():
    rules = Rules.preset("french", 4)
    entrants = table(9, 4)
    rotations = [k % 4 for k in range(80)]
    seeds = [k // 4 for k in range(80)]  # a deal's rotations share the duplicate key
    res = native.play_games(
        rules, entrants, seeds, [s + 11 for s in seeds], rotations, dice="duplicate", detail=True
    )
    for k in range(80):
        ref = python_game(
            entrants, rules, DuplicateDice(seeds[k]), seeds[k] + 11, rotations[k], 1000
        )
        assert row_of(res, k) == reference_row(ref)


@needs_native
@pytest.mark.parametrize("max_turns", [0, 1, 7, 33])
def test_turn_caps(max_turns):
    rules = Rules(players=3, bust_flip="none")
    res = native.play_games(rules, table(2, 3), range(40), max_turns=max_turns, detail=True)
    for s in range(40):
        ref = python_game(table(2, 3), rules, SeededDice(s), s, 0, max_turns)
        assert row_of(res, s) == reference_row(ref)


@needs_native
def test_instances_with_float_parameters():
    # instances (not references) may carry values configs cannot: a float target
    from strategies.threshold import Threshold
    from strategies.worm_first import WormFirst

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
    rules = Rules.preset("short", 3)
    fast = native.play_deals(rules, table(5, 3), 9, "t-key", 0, 200, dice="duplicate")
    try:
        native._core.set_portable(True)
        slow = native.play_deals(rules, table(5, 3), 9, "t-key", 0, 200, dice="duplicate")
        slow_ind = native.play_deals(rules, table(5, 3), 9, "t-key", 0, 200)
    finally:
        native._core.set_portable(False)
    fast_ind = native.play_deals(rules, table(5, 3), 9, "t-key", 0, 200)
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
        values, _, stops = turn.solve_arrays(turn.Payoff(tuple(stop), bust))
        mine, my_stops = native._core.dp_solve(stop, bust)
        assert mine == values.tolist() and list(my_stops) == stops.tolist()


@needs_native
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
def test_optimal_refuses_what_numpy_would_compute_differently():
    from strategies.optimal import Optimal

    for params in ({"spread": float("inf")}, {"flip": float("nan")}):
        with pytest.raises(native.NotNative, match="finite"):
            native.native_seat(Optimal(**params))
    assert native.native_seat("optimal(endgame=3, spread=2.0)").params == (3.0, 2.0, 0.0)


# -- the chunk path: play_chunk's rows, stats and all ----------------------------------------
def ref_of(text: str) -> EntrantRef:
    spec = resolve(text)
    return EntrantRef(spec.label, spec.ref, spec.params, spec.identity()["code"])


def chunk_spec(entrants, rules, dice, first=3, stop=40, seed=17, max_turns=1000) -> ChunkSpec:
    refs = tuple(ref_of(e) for e in entrants)
    return ChunkSpec("key", "tbl", "0123456789ab", refs, rules, dice, seed, first, stop, max_turns)


def same_chunk(a, b) -> bool:
    return (a.key, a.games, a.seats, a.errors, a.stats, a.loaded) == (
        b.key,
        b.games,
        b.seats,
        b.errors,
        b.stats,
        b.loaded,
    )


@needs_native
@pytest.mark.parametrize("dice", native.DICE_MODES)
def test_play_chunk_is_play_chunks(dice):
    for players in (2, 4, 7):
        spec = chunk_spec(table(players, players), Rules.preset("piko-blog", players), dice)
        assert same_chunk(native.play_chunk(spec), chunks.play_chunk(spec))
    spec = chunk_spec(["tactician", "random", "greedy"], Rules(players=3), dice)
    for start in (1, 5, 30, spec.games):  # a resumed chunk: its rows from `start` on
        mine, theirs = native.play_chunk(spec, start=start), chunks.play_chunk(spec, start=start)
        assert (mine.games, mine.seats, mine.errors) == (theirs.games, theirs.seats, theirs.errors)


@needs_native
def test_chunk_stats_match_the_python_counters():
    spec = chunk_spec(table(3, 4), Rules(players=4), "duplicate", max_turns=60)
    result = chunks.play_chunk(spec)  # capped games among them
    assert 0 < sum(result.games["status"]) < result.rows
    assert native.chunk_stats(result.games, result.seats, 4) == chunks.chunk_stats(result, 4)
    # forfeits and shared first places, which built-ins never produce: doctored rows
    rng = random.Random(5)
    rows = 500
    games = {k: array(c, bytes(rows * array(c).itemsize)) for k, c in native.GAME_COLUMNS.items()}
    seats = [{k: array(c, bytes(rows * array(c).itemsize)) for k, c in native.SEAT_COLUMNS.items()}
             for _ in range(3)]  # fmt: skip
    for row in range(rows):
        games["rotation"][row] = rng.randrange(3)
        games["status"][row] = rng.choice([0, 0, 1, 2])
        games["error_seat"][row] = rng.choice([-1, -1, 0, 1, 2])
        for s in seats:
            s["worms"][row] = rng.randrange(12)
            s["rank"][row] = rng.choice([1, 1, 2, 3])
    fake = chunks.ChunkResult("k", games, seats)
    assert native.chunk_stats(games, seats, 3) == chunks.chunk_stats(fake, 3)


@needs_native
def test_threads_play_independently():
    # the GIL is released while C plays: concurrent batches must not share state
    rules = Rules.preset("official", 3)
    expected = native.play_deals(rules, table(1, 3), 4, "t-key", 0, 300)
    got: list = []

    def play() -> None:
        got.append(native.play_deals(rules, table(1, 3), 4, "t-key", 0, 300))

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


def test_sources_are_the_ones_the_c_code_mirrors():
    # fails when a built-in's source changes: update harness/_native/core.c to match,
    # then native._SOURCES (the SHA-256 of each strategies module)
    for module in native._SOURCES:
        assert native.source_digest(module) == native._SOURCES[module], module


@needs_native
def test_a_stale_builtin_is_not_native(monkeypatch):
    monkeypatch.setitem(native._SOURCES, "strategies.tactician", "0" * 64)
    monkeypatch.setattr(native, "_STALE", {})
    with pytest.raises(native.NotNative, match="source differs"):
        native.native_seat("tactician")
    assert native.native_seat("greedy").kind == 0


@needs_native
def test_plugins_and_lookalikes_are_not_native(tmp_path):
    from strategies.greedy import Greedy

    class Subclass(Greedy):
        name = "greedy"

    plugin = tmp_path / "copy_of_greedy.py"
    plugin.write_text(
        "from harness.strategy import Strategy\n"
        "from strategies._common import most_points\n"
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
        "threshold(target=99)",  # its constructor refuses it: the Python engine reports it
        object(),
    ]
    for strategy in refusals:
        with pytest.raises(native.NotNative):
            native.native_seat(strategy)
    assert not native.supports(["greedy", Subclass()])
    assert native.supports(["greedy", "tactician(caution=2)"])


@needs_native
def test_odd_values_are_refused_not_played():
    from strategies.tactician import Tactician
    from strategies.threshold import Threshold

    class Sneaky(int):  # an int subclass: its own comparisons could lie
        pass

    odd = Tactician()
    odd.worm_by = Sneaky(3)
    huge = Threshold()
    huge.target = 2**60  # not exact as a double
    for seat in (odd, huge):
        with pytest.raises(native.NotNative, match="plain number"):
            native.native_seat(seat)
    rules = Rules(players=2)
    for seeds in ([2**63], [None], ["7"], [1.5]):
        with pytest.raises(native.NotNative, match="int64"):
            native.play_games(rules, ["greedy", "greedy"], seeds)
    with pytest.raises(native.NotNative):
        native.play_games(rules, ["greedy", "greedy"], [1], dice="loaded")
    with pytest.raises(native.NotNative):
        native.play_games(rules, ["greedy", "greedy"], [1], max_turns=40000)
    with pytest.raises(native.NotNative):
        native.play_deals(rules, ["greedy", "greedy"], 1, "k", 5, 2)
    limited = ChunkSpec(
        "key", "tbl", "0123456789ab", (ref_of("greedy"), ref_of("greedy")), rules,
        "independent", 1, 0, 2, 1000, move_time=1.0,
    )  # fmt: skip
    with pytest.raises(native.NotNative, match="seat limits"):
        native.play_chunk(limited)


@needs_native
def test_c_entry_points_reject_bad_arguments():
    core = native._core
    cols = lambda rows, n: tuple(  # noqa: E731
        array(c, bytes(rows * array(c).itemsize))
        for c in [*native.GAME_COLUMNS.values(), *list(native.SEAT_COLUMNS.values()) * n]
    )
    ok_rules, seats = (2, 0, 1, 0, 1), ((0,), (0,))
    core.play_games(ok_rules, seats, 100, 0, 3, cols(3, 2), None)  # the happy path
    bad = [
        ((8, 0, 1, 0, 1), seats, 3, cols(3, 8)),  # 8 players (R3)
        ((2, 0, 3, 0, 1), seats, 3, cols(3, 2)),  # no flip mode 3
        (ok_rules, ((0,), (99,)), 3, cols(3, 2)),  # no such strategy
        (ok_rules, ((0,),), 3, cols(3, 2)),  # one seat for two players
        (ok_rules, seats, 4, cols(3, 2)),  # columns shorter than the rows
        (ok_rules, seats, 3, cols(3, 2)[:-1]),  # a column missing
    ]
    for rules, strategies, rows, columns in bad:
        with pytest.raises(ValueError):
            core.play_games(rules, strategies, 100, 0, rows, columns, None)
    columns = cols(3, 2)
    columns[1][2] = 5  # rotation 5 of 2 seats
    with pytest.raises(ValueError, match="rotation"):
        core.play_games(ok_rules, seats, 100, 0, 3, columns, None)
    with pytest.raises(BufferError):  # read-only buffers
        core.play_games(ok_rules, seats, 100, 0, 3, (b"x",) * 19, None)


# -- without the extension ----------------------------------------------------------------------
def test_without_the_extension_nothing_plays(monkeypatch):
    monkeypatch.setattr(native, "_core", None)
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
    import strategies.greedy as greedy

    with open(greedy.__file__, "rb") as f:
        assert native.source_digest("strategies.greedy") == hashlib.sha256(f.read()).hexdigest()
