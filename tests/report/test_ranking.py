"""The one ranking (harness.game.ranking): its counts are exact and the terminal agrees with the
report.

Attacks: ties the old two orders broke differently (mean rank in the terminal, mean
worms in the report), exact ties float sums would split, shared firsts at every table
size, turn-capped and forfeited games, entrants with no games, the older counter dicts
(still accepted), and both engines' chunk counters, which are Counts too.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from run_builders import row, write_run

from harness.game.ranking import POINT, Counts, add_counts, count_games, order, zero_counts
from harness.report.api import summarise_run
from harness.tourney.standings import standings
from harness.tourney.storage import part_summary

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]


def terminal_order(folder: Path, players: int) -> list[str]:
    """The terminal's standings of a run folder, counted as the runner counts stored parts."""
    totals: dict[str, Counts] = {}
    for part in sorted((folder / "games").glob("*.parquet")):
        add_counts(totals, part_summary(pq.read_table(part), players).counters)
    return [r["strategy"] for r in standings(totals)]


def report_order(folder: Path) -> list[str]:
    return [r["strategy"] for r in summarise_run(folder)["standings"]]


def tied_rows() -> list[dict]:
    """A, B and X all at win share 1/2; B best by mean rank, A best by mean worms.

    A wins one game and loses one against X with many worms; B shares first (0 worms,
    no tiles: a draw, R11) twice with X. The old terminal listed B, X, A (mean rank);
    the old report A, X, B (mean worms).
    """
    return [
        row("t1", 0, 0, ["A", "X"], [30, 10]),
        row("t1", 1, 0, ["A", "X"], [5, 20]),
        row("t2", 0, 0, ["B", "X"], [0, 0], ranks=[1, 1]),
        row("t2", 1, 0, ["B", "X"], [0, 0], ranks=[1, 1]),
    ]


def test_a_tie_comes_out_alike_in_terminal_and_report(tmp_path):
    folder = write_run(tmp_path / "run", tied_rows(), entrants=["A", "B", "X"])
    summary = summarise_run(folder)
    shares = {r["strategy"]: r["win_share"] for r in summary["standings"]}
    assert shares == {"A": 0.5, "B": 0.5, "X": 0.5}  # a true three-way tie on win share
    # The documented order: win share, then mean rank (lower first), then mean worms.
    assert terminal_order(folder, 2) == report_order(folder) == ["B", "X", "A"]
    assert [r["place"] for r in summary["standings"]] == [1, 2, 3]


def test_worms_break_a_tie_of_share_and_rank_alike(tmp_path):
    """Equal win share and mean rank: more worms first in both, whatever the name says."""
    rows = [
        row("t1", 0, 0, ["A", "Z"], [10, 20]),
        row("t1", 1, 0, ["A", "Z"], [30, 5]),
    ]
    folder = write_run(tmp_path / "run", rows, entrants=["A", "Z"])
    assert terminal_order(folder, 2) == report_order(folder) == ["A", "Z"]  # 20 vs 12.5 worms
    rows = [
        row("t1", 0, 0, ["A", "Z"], [10, 30]),
        row("t1", 1, 0, ["A", "Z"], [20, 5]),
    ]
    folder = write_run(tmp_path / "run2", rows, entrants=["A", "Z"])
    assert terminal_order(folder, 2) == report_order(folder) == ["Z", "A"]  # 17.5 vs 15


@pytest.mark.parametrize("players", [3, 4, 7])
def test_random_runs_rank_alike(tmp_path, players):
    """Many small ties (shared firsts among k players): the two orders are one order."""
    rng = random.Random(players)
    names = [f"s{i}" for i in range(players + 1)]
    for trial in range(6):
        rows = []
        for deal in range(8):
            seats = rng.sample(names, players)
            worms = [rng.choice([0, 0, 3, 5]) for _ in seats]
            ranks = [1 + sum(o > w for o in worms) for w in worms]
            rows.append(row("t", deal, 0, seats, worms, ranks=ranks))
        folder = write_run(tmp_path / f"run{trial}", rows, players=players, parts=3)
        assert terminal_order(folder, players) == report_order(folder)


# -- the counts ---------------------------------------------------------------------------
def brute_counts(capped, error_seat, strategies, worms, ranks) -> dict[str, Counts]:
    """The counts game by game, seat by seat, with fractions: the reference."""
    from fractions import Fraction

    out: dict[str, dict] = {}
    for g in range(len(capped)):
        firsts = sum(1 for r in ranks if r[g] == 1)
        for seat in range(len(strategies)):
            t = out.setdefault(str(strategies[seat][g]), dict.fromkeys(Counts().__dict__, 0))
            if capped[g]:
                t["capped"] += 1
                continue
            t["games"] += 1
            t["worms"] += int(worms[seat][g])
            t["rank"] += int(ranks[seat][g])
            t["forfeits"] += int(error_seat[g] == seat)
            if ranks[seat][g] == 1:
                t["points"] += Fraction(POINT, firsts)
    return {name: Counts(**{k: int(v) for k, v in t.items()}) for name, t in out.items()}


@pytest.mark.parametrize("players", range(2, 8))
def test_count_games_matches_counting_by_hand(players):
    rng = np.random.default_rng(players)
    games = 200
    names = np.array([f"s{i}" for i in range(players + 2)], dtype=object)
    strategies = [names[rng.integers(0, len(names), games)] for _ in range(players)]
    worms = [rng.integers(0, 6, games) for _ in range(players)]
    ranks = [np.ones(games, dtype=np.int64) for _ in range(players)]
    for g in range(games):
        w = [int(worms[s][g]) for s in range(players)]
        for s in range(players):
            ranks[s][g] = 1 + sum(o > w[s] for o in w)
    capped = rng.random(games) < 0.1
    error_seat = np.where(rng.random(games) < 0.1, rng.integers(0, players, games), -1)
    got = count_games(capped, error_seat, strategies, worms, ranks)
    assert got == brute_counts(capped, error_seat, strategies, worms, ranks)
    # Split in two and added: the same counts (what adding the parts of a run does).
    half: dict[str, Counts] = {}
    for part in (slice(0, 77), slice(77, games)):
        cut = [[a[part] for a in arrays] for arrays in (strategies, worms, ranks)]
        add_counts(half, count_games(capped[part], error_seat[part], *cut))
    assert half == got


def test_shared_firsts_add_up_to_whole_wins():
    for k in range(1, 8):
        ranks = [np.ones(k, dtype=np.int64) for _ in range(k)]  # k games, all k share first
        names = [np.array(["a"] * k, dtype=object) for _ in range(k)]
        counts = count_games(np.zeros(k, bool), np.full(k, -1), names, ranks, ranks)
        assert counts["a"].points == k * POINT  # k seats x k games x 1/k: exactly k wins
        assert counts["a"].wins == k and counts["a"].win_share == 1 / k


def test_old_counter_dicts_convert_exactly():
    old = {"games": 9, "wins": 2, "shared": [0, 0, 1, 3], "worms": 40, "rank": 14, "capped": 1}
    c = Counts.of(old)
    assert c == Counts(games=9, points=2 * POINT + POINT // 2 + 3 * (POINT // 3), worms=40,
                       rank=14, forfeits=0, capped=1)  # fmt: skip
    assert c.wins == pytest.approx(2 + 1 / 2 + 3 / 3)
    totals = zero_counts(["a", "b"])
    add_counts(totals, {"a": old, "c": c})
    assert totals == {"a": c, "b": Counts(), "c": c}
    assert Counts.of(c) is c


# -- the order ----------------------------------------------------------------------------
def test_order_keys_one_by_one():
    c = {
        "none": Counts(),  # no games: last, even with a better name
        "share": Counts(games=4, points=3 * POINT, rank=8, worms=0),
        "rank": Counts(games=4, points=2 * POINT, rank=5, worms=0),
        "worms": Counts(games=4, points=2 * POINT, rank=6, worms=80),
        "b": Counts(games=4, points=2 * POINT, rank=6, worms=40),
        "a": Counts(games=4, points=2 * POINT, rank=6, worms=40),
    }
    assert order(c) == ["share", "rank", "worms", "a", "b", "none"]
    # Shares compare as fractions: 1/3 of 3 games ties 2/6 of 6 games (then: rank).
    c = {"x": Counts(games=3, points=POINT, rank=6), "y": Counts(games=6, points=2 * POINT, rank=9)}
    assert order(c) == ["y", "x"]


def test_ratings_come_first_where_given_and_missing_ones_last():
    c = {n: Counts(games=2, points=POINT * i, rank=3) for i, n in enumerate("pqrs")}
    c["idle"] = Counts()
    ratings = {"p": 50.0, "q": float("nan"), "r": None, "s": -20.0, "idle": 500.0}
    assert order(c, ratings) == ["p", "s", "r", "q", "idle"]  # unrated by win share
    assert order(c) == ["s", "r", "q", "p", "idle"]


def test_every_permutation_of_input_gives_one_order():
    c = {
        "a": Counts(games=2, points=POINT, rank=3, worms=5),
        "b": Counts(games=2, points=POINT, rank=3, worms=5),
        "c": Counts(games=4, points=2 * POINT, rank=6, worms=10),
        "d": Counts(),
    }
    first = order(c)
    for perm in itertools.permutations(c):
        assert order({k: c[k] for k in perm}) == first == ["a", "b", "c", "d"]


def test_a_played_mirror_tie_is_listed_alike_everywhere(tmp_path):
    """One strategy under two names, balanced seating: an exact tie on every count, so
    the name decides, in run.counts (the terminal), summary.csv and the report alike."""
    import csv

    from harness.report import write_report
    from harness.tourney import run_tournament

    config = {
        "name": "tie",
        "players": 3,
        "deals": 6,
        "seed": 3,
        "engine": "python",
        "seating": "balanced",
        "entrants": [
            {"strategy": "greedy", "name": "zz"},
            {"strategy": "greedy", "name": "aa"},
            "random",
        ],
    }
    run = run_tournament(config, out=tmp_path, workers=0, progress=False, echo=lambda t: None)
    terminal = [r["strategy"] for r in run.counts]
    with open(run.run_dir / "summary.csv", newline="") as f:
        on_disk = [r["strategy"] for r in csv.DictReader(f)]
    report = [r["strategy"] for r in write_report(run.run_dir, plots=False).summary["standings"]]
    tied = {r["strategy"]: r for r in run.counts if r["strategy"] in ("aa", "zz")}
    assert {k: v for k, v in tied["aa"].items() if k not in ("rank", "strategy")} == {
        k: v for k, v in tied["zz"].items() if k not in ("rank", "strategy")
    }, "the mirror halves tie exactly"
    assert terminal == on_disk == report
    assert terminal.index("aa") < terminal.index("zz")


def test_both_engines_count_a_chunk_in_counts():
    """One counter type: a chunk's ``stats`` are Counts whichever engine counted them, the
    same Counts as counting its stored rows (shared firsts and turn caps included)."""
    from harness import native
    from harness.tourney import chunks, load_config, plan
    from harness.tourney.storage import to_arrow

    config = load_config(
        {"entrants": ["greedy", "random", "tactician"], "players": 3, "deals": 12,
         "max_turns": 40, "engine": "python"}  # a low cap: some capped games
    )  # fmt: skip
    spec = next(iter(plan.chunks(config)))
    result = chunks.play_chunk(spec)
    assert result.stats and all(type(s) is Counts for s in result.stats)
    python = chunks.chunk_stats(result, 3, spec.orders)
    assert python == result.stats and sum(s.capped for s in python) > 0
    stored = part_summary(to_arrow(spec, result), 3)
    assert {e.name: s for e, s in zip(spec.entrants, python, strict=True)} == stored.counters
    if native.available():
        assert native.column_counts(result.games, result.seats, 3, spec.orders) == python


def test_chunk_counters_convert_exactly():
    got = Counts.from_firsts(games=9, sole=2, shared=[0, 0, 1, 3], worms=40, rank=14, capped=1)
    old = {"games": 9, "wins": 2, "shared": [0, 0, 1, 3], "worms": 40, "rank": 14, "capped": 1}
    assert got == Counts.of(old)
    assert got.points == 2 * POINT + POINT // 2 + 3 * (POINT // 3)
    # shared[0] is never counted (no first is shared by 0 players)
    assert Counts.from_firsts(1, 0, [5], 0, 1) == Counts(games=1, rank=1)
