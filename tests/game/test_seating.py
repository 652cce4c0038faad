"""Seating designs (issue 10, item 2): balanced, cyclic and permutations, checked exactly,
and what a tournament does with them: every order of every deal played, the design in
the chunk and run keys, the same rows for any worker count and chunking, the config key
and the ``--seating`` option (one line for a mistake), mirror matches (item 3).

Game counts are tiny; the Python engine plays (``engine: python``) so that these tests do
not depend on the native engine's build.
"""

from __future__ import annotations

import json
import math
from itertools import permutations
from pathlib import Path

import pandas as pd
import pytest

from harness.errors import ConfigError
from harness.game.ranking import POINT
from harness.game.seating import (
    MAX_PERMUTATION_PLAYERS,
    SEATINGS,
    adjacency,
    by_entrant,
    design,
    seat_counts,
    seating_problem,
    seats_of,
)
from harness.tourney import load_config, plan, run_tournament
from harness.tourney.chunks import play_chunk, replay_game
from harness.tourney.config import MAX_PLANNED_GAMES

pytestmark = pytest.mark.usefixtures("deadline")
FIELD = ["greedy", "random", "threshold", "worm-first", "simple"]


def games_of(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def config_of(players: int, **extra) -> dict:
    return {
        "name": f"s{players}",
        "players": players,
        "entrants": FIELD[: players + 1],
        "deals": 3,
        "chunk": 2,
        "engine": "python",
        **extra,
    }


# -- the designs, exactly ------------------------------------------------------------------
def neighbour_balanced(orders: tuple[tuple[int, ...], ...], n: int, times: int) -> bool:
    """A immediately before B (the last seat followed by the first) ``times`` times for
    every ordered pair of distinct entrants, never an entrant before itself."""
    pairs = adjacency(orders)
    return set(pairs) == {(a, b) for a in range(n) for b in range(n) if a != b} and set(
        pairs.values()
    ) == {times}


@pytest.mark.parametrize("n", range(3, 8))
def test_balanced_is_circularly_neighbour_balanced_and_seat_balanced(n):
    orders = design(n, "balanced")
    assert len(orders) == n * (n - 1)  # the fewest possible (seating.py says why)
    assert len(set(orders)) == len(orders)  # no order twice
    assert all(sorted(o) == list(range(n)) for o in orders)  # each a permutation
    assert neighbour_balanced(orders, n, times=n)
    seats = seat_counts(orders)
    assert set(seats) == {(e, i) for e in range(n) for i in range(n)}
    assert set(seats.values()) == {n - 1}


@pytest.mark.parametrize("n", range(3, 8))
def test_cyclic_keeps_one_relative_order(n):
    orders = design(n, "cyclic")
    assert orders == tuple(tuple((i + k) % n for i in range(n)) for k in range(n))
    # what balanced removes: 0 always plays just before 1, 1 never just before 0
    assert adjacency(orders) == {(a, (a + 1) % n): n for a in range(n)}


def test_a_williams_square_is_not_enough_for_circular_turns():
    """The attacker's design: linear neighbour balance only (n = 4). The check that the
    test above relies on must tell it apart, else it proves nothing."""
    williams = ((0, 1, 3, 2), (1, 2, 0, 3), (2, 3, 1, 0), (3, 0, 2, 1))
    linear = [(o[i], o[i + 1]) for o in williams for i in range(3)]
    assert sorted(linear) == sorted((a, b) for a in range(4) for b in range(4) if a != b)
    assert not any(neighbour_balanced(williams, 4, times) for times in range(1, 5))
    # and a balanced design with one order dropped is caught too
    assert not neighbour_balanced(design(4, "balanced")[1:], 4, times=4)


@pytest.mark.parametrize("n", range(2, MAX_PERMUTATION_PLAYERS + 1))
def test_permutations_are_all_orders(n):
    assert sorted(design(n, "permutations")) == sorted(permutations(range(n)))
    assert len(design(n, "permutations")) == math.factorial(n)


def test_permutations_are_refused_above_the_bound_in_one_line(tmp_path):
    assert seating_problem("permutations", 5) is None
    problem = seating_problem("permutations", 6)
    assert problem is not None and "\n" not in problem and "at most 5" in problem
    config = tmp_path / "c.yaml"
    config.write_text(
        f"players: 6\nseating: permutations\nentrants: [{', '.join(FIELD)}, tactician]\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    message = str(caught.value)
    assert message.startswith(f"{config}:2: seating: ") and "\n" not in message


def test_two_players_all_modes_are_one_design():
    assert design(2, "balanced") == design(2, "cyclic") == design(2, "permutations")
    assert design(2, "balanced") == ((0, 1), (1, 0))


def test_seats_of_puts_entrant_order_i_in_seat_i():
    assert seats_of(["a", "b", "c", "d"], (2, 0, 3, 1)) == ["c", "a", "d", "b"]


# -- the config key and the option -----------------------------------------------------------
@pytest.mark.parametrize(
    "value, expected",
    [
        ("sideways", "seating: expected one of balanced, cyclic, permutations"),
        ("[1, 2]", "seating: [1, 2] is not one of"),
        ("x" * 5000, "is not one of"),
    ],
)
def test_a_bad_seating_is_one_line_naming_the_key(tmp_path, value, expected):
    config = tmp_path / "c.yaml"
    config.write_text(f"entrants: [greedy, random]\nseating: {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    message = str(caught.value)
    assert message.startswith(f"{config}:2: seating: ") and expected in message
    assert "\n" not in message and len(message) < 400


def test_default_is_balanced_and_the_config_says_so():
    assert load_config(config_of(3)).seating == "balanced"
    assert load_config(config_of(3, seating="cyclic")).seating == "cyclic"
    assert load_config(config_of(3)).override(seating="cyclic").seating == "cyclic"
    with pytest.raises(ConfigError, match="^--seating: "):
        load_config(config_of(3)).override(seating="nope")


def test_the_plan_size_bound_counts_seat_orders():
    # one 7-player table, 10^8 deals: 7 x 10^8 games cyclic (allowed), 42 x 10^8 balanced
    big = {**config_of(7), "entrants": FIELD + ["tactician", "env-heuristic"], "deals": 10**8}
    big.pop("chunk")
    assert load_config({**big, "seating": "cyclic"}).games == 10**8
    with pytest.raises(ConfigError) as caught:
        load_config(big)
    assert "1 tables x 100,000,000 deals x 42 seat orders" in str(caught.value)
    assert f"{MAX_PLANNED_GAMES:,}" in str(caught.value)


def test_seating_option_of_harness_tourney(tmp_path, cli):
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps(config_of(3, deals=2)))
    out = tmp_path / "o"
    done = cli(
        "tourney",
        str(config),
        "--out",
        str(out),
        "--workers",
        "0",
        "--json",
        "--no-report",
        "--seating",
        "cyclic",
    )
    assert done.exit_code == 0, done.output
    run_dir = Path(json.loads(done.stdout)["run_dir"])
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["seating"] == "cyclic" and meta["design"] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert len(games_of(run_dir)) == 4 * 2 * 3
    log = (run_dir / "run.log").read_text()
    assert "cyclic seating, 4 tables x 2 deals x 3 seat orders = 24 games" in log
    bad = cli("tourney", str(config), "--out", str(out), "--seating", "sideways")
    assert bad.exit_code == 2 and "Traceback" not in bad.output


# -- playing every order of every deal -------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4])
def test_a_chunk_plays_every_order_of_every_deal_seated_as_the_design_says(players):
    config = load_config(config_of(players))
    spec = next(plan.chunks(config))
    orders = design(players, "balanced")
    assert spec.orders == orders and spec.games == spec.deals * len(orders)
    result = play_chunk(spec)
    assert result.rows == spec.games
    names = [e.name for e in spec.entrants]
    for row in range(result.rows):
        deal, k = spec.game_at(row)
        assert (result.games["deal"][row], result.games["seating"][row]) == (deal, k)
        game = replay_game(spec, deal, k)
        assert game.names == seats_of(names, orders[k])
        assert game.scores == [result.seats[s]["worms"][row] for s in range(players)]
    # the standings counters credit entrant orders[k][seat], not seat + k (win points, in
    # units of 1/POINT: a sole first is POINT, a first shared by j players POINT // j)
    points = [0] * players
    for row in range(result.rows):
        if result.games["status"][row] == 1:  # turn-capped: never scored
            continue
        firsts = [i for i in range(players) if result.seats[i]["rank"][row] == 1]
        winner = result.games["winner"][row]
        assert winner == (firsts[0] if len(firsts) == 1 else -1)
        for seat in firsts:
            points[orders[result.games["seating"][row]][seat]] += POINT // len(firsts)
    assert [s.points for s in result.stats] == points


@pytest.mark.parametrize("players", [3, 4])
def test_rows_are_the_same_for_any_worker_count_and_chunking(tmp_path, players):
    base = config_of(players, deals=4)
    runs = [
        run_tournament(base, workers=0, out=tmp_path / "w0"),
        run_tournament(base, workers=2, out=tmp_path / "w2"),
        run_tournament({**base, "chunk": 3}, workers=1, out=tmp_path / "w1"),
    ]
    frames = [games_of(r.run_dir) for r in runs]
    assert len(frames[0]) == (players + 1) * 4 * players * (players - 1)
    for other in frames[1:]:
        pd.testing.assert_frame_equal(frames[0], other)
    assert runs[0].counts == runs[1].counts == runs[2].counts


def test_two_players_all_modes_give_the_same_rows_and_chunk_keys(tmp_path):
    base = config_of(2, deals=3)
    keys = [
        [s.key for s in plan.chunks(load_config({**base, "seating": mode}))] for mode in SEATINGS
    ]
    assert keys[0] == keys[1] == keys[2]
    assert len({plan.run_key(load_config({**base, "seating": m})) for m in SEATINGS}) == 1
    frames = [
        games_of(run_tournament({**base, "seating": m}, workers=0, out=tmp_path / m).run_dir)
        for m in SEATINGS
    ]
    pd.testing.assert_frame_equal(frames[0], frames[1])
    pd.testing.assert_frame_equal(frames[0], frames[2])


def test_the_design_is_in_the_chunk_and_run_keys():
    balanced, cyclic = (load_config(config_of(3, seating=m)) for m in ("balanced", "cyclic"))
    assert {s.key for s in plan.chunks(balanced)}.isdisjoint(s.key for s in plan.chunks(cyclic))
    assert plan.run_key(balanced) != plan.run_key(cyclic)


def test_cyclic_seating_plays_todays_rotations():
    spec = next(plan.chunks(load_config(config_of(3, seating="cyclic"))))
    names = [e.name for e in spec.entrants]
    for k in range(3):
        assert replay_game(spec, 0, k).names == [names[(i + k) % 3] for i in range(3)]


# -- mirror matches (item 3) ------------------------------------------------------------------
MIRROR = {
    "name": "mirror",
    "entrants": ["greedy", {"strategy": "greedy", "name": "greedy-b"}],
    "deals": 20,
    "chunk": 10,
    "engine": "python",
}


def test_a_mirror_match_plays_and_its_halves_are_two_entrants(tmp_path):
    config = load_config(MIRROR)
    assert [e.name for e in config.entrants] == ["greedy", "greedy-b"]
    assert config.entrants[0].key == config.entrants[1].key  # one strategy, two names
    run = run_tournament(MIRROR, workers=0, out=tmp_path)
    df = games_of(run.run_dir)
    assert len(df) == 20 * 2
    for seat in range(2):
        assert df[f"seat{seat}_strategy"].value_counts().to_dict() == {"greedy": 20, "greedy-b": 20}
    shares = {r["strategy"]: r["win_share"] for r in run.counts}
    # greedy is deterministic and both orders of a deal see the same (duplicate) dice:
    # the two games of a deal are one game with the names swapped, so exactly 1/2 each
    assert shares == {"greedy": 0.5, "greedy-b": 0.5}


def test_two_entrants_with_one_display_name_stay_refused(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("entrants:\n  - greedy\n  - strategy: random\n    name: greedy\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert "two entrants are named 'greedy'" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_gauntlet_challenger_may_meet_its_own_mirror():
    config = load_config(
        {
            "format": "gauntlet",
            "challenger": "greedy",
            "entrants": ["greedy", {"strategy": "greedy", "name": "greedy-b"}, "random"],
            "engine": "python",
        }
    )
    # greedy listed again is the challenger itself; greedy-b is a field entrant
    assert [e.name for e in config.entrants] == ["greedy-b", "random"]
    assert len(plan.tables(config)) == 2


def test_a_game_record_names_its_seating(tmp_path):
    spec = next(plan.chunks(load_config(config_of(3))))
    record = replay_game(spec, 1, 4, record=True).record
    assert record["tourney"] == {"table": spec.table, "deal": 1, "seating": 4}


def test_game_option_finds_any_order_of_the_design(tmp_path, cli):
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps(config_of(3, deals=2)))
    spec = next(plan.chunks(load_config(config)))
    done = cli("tourney", str(config), "--game", f"{spec.table}:1:5")
    assert done.exit_code == 0, done.output
    names = [e.name for e in spec.entrants]
    expected = seats_of(names, design(3, "balanced")[5])
    lines = done.output.splitlines()
    assert "deal 1, seating 5 (balanced)" in lines[0]
    assert lines[1:4] == [f"  seat {i}: {name}" for i, name in enumerate(expected)]
    beyond = cli("tourney", str(config), "--game", f"{spec.table}:1:6")
    assert beyond.exit_code == 2
    assert "seating 6; balanced seating has orders 0..5" in beyond.output
    assert len(beyond.output.strip().splitlines()) == 1


def test_a_reproduce_command_seats_the_game_as_its_order_did():
    from harness.tourney.repro import reproduce_command

    config = load_config(config_of(3))
    table = plan.tables(config)[0]
    for k, order in enumerate(design(3, "balanced")):
        command = reproduce_command(config, table, {"deal": 0, "seating": k, "game_seed": 7})
        seats = command.split()[2:5]
        assert seats == [table.entrants[e].spec.ref for e in order]


def test_by_entrant_undoes_seats_of_for_every_order_of_every_design():
    for players in range(2, 8):
        items = [f"e{i}" for i in range(players)]
        for mode in SEATINGS:
            if seating_problem(mode, players) is not None:
                continue
            for order in design(players, mode):
                seated = seats_of(items, order)
                assert [seated[i] for i in range(players)] == [items[e] for e in order]
                assert by_entrant(seated, order) == items
                assert seats_of(by_entrant(seated, order), order) == seated
    # not seats_of twice: a 3-cycle tells an inverse from the permutation itself
    assert by_entrant(["a", "b", "c"], (1, 2, 0)) == ["c", "a", "b"]
    assert seats_of(["a", "b", "c"], (1, 2, 0)) == ["b", "c", "a"]
