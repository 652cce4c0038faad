"""Running tournaments: determinism across worker counts, seat orders, duplicate dice,
content-keyed reuse, forfeits, the stored table and the command's output.

Game counts are tiny: every test plays a few hundred games at most.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness.runfolder import schema
from harness.tourney import load_config, plan, run_tournament
from harness.tourney.chunks import play_chunk, replay_game

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

SMALL = {"name": "small", "entrants": ["greedy", "random", "threshold"], "deals": 12, "chunk": 5}


def games_of(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def test_one_and_two_workers_store_identical_games(tmp_path):
    one = run_tournament(SMALL, workers=1, out=tmp_path / "a")
    two = run_tournament(SMALL, workers=2, out=tmp_path / "b")
    serial = run_tournament(SMALL, workers=0, out=tmp_path / "c")
    assert one.status == two.status == serial.status == "complete"
    a, b, c = games_of(one.run_dir), games_of(two.run_dir), games_of(serial.run_dir)
    assert len(a) == 3 * 12 * 2
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    assert one.counts == two.counts
    assert (one.run_dir / "summary.csv").read_text() == (two.run_dir / "summary.csv").read_text()


def test_chunking_does_not_change_games(tmp_path):
    small = run_tournament({**SMALL, "chunk": 5}, out=tmp_path / "a", workers=0)
    big = run_tournament({**SMALL, "chunk": 12}, out=tmp_path / "b", workers=0)
    pd.testing.assert_frame_equal(games_of(small.run_dir), games_of(big.run_dir))


def test_stored_table_follows_the_schema(tmp_path):
    run = run_tournament(SMALL, out=tmp_path, workers=0)
    df = pd.read_parquet(run.run_dir / "games")  # one call reads every game
    assert list(df.columns) == schema.columns(2)
    import pyarrow.parquet as pq

    stored = pq.read_schema(next((run.run_dir / "games").glob("*.parquet")))
    assert stored.equals(schema.arrow_schema(2), check_metadata=False)
    assert set(df["status"]) <= set(schema.STATUSES)
    # ranks agree with the winner column (R11)
    for _, row in df.iterrows():
        firsts = [s for s in range(2) if row[f"seat{s}_rank"] == 1]
        assert row["winner"] == (firsts[0] if len(firsts) == 1 else -1)
    meta = json.loads((run.run_dir / "run.json").read_text())
    for key in (
        "name",
        "rules",
        "players",
        "format",
        "dice",
        "games",
        "seed",
        "entrants",
        "version",
        "tables",
        "status",
    ):
        assert key in meta
    assert meta["status"] == "complete"
    assert {e["name"] for e in meta["entrants"]} == {"greedy", "random", "threshold"}
    assert all({"name", "ref", "params", "code"} <= set(e) for e in meta["entrants"])
    assert {t["id"] for t in meta["tables"]} == set(df["table"])
    lines = (run.run_dir / "manifest.jsonl").read_text().splitlines()
    assert len(lines) == 3 * 3 and sum(json.loads(x)["games"] for x in lines) == len(df)
    log = (run.run_dir / "run.log").read_text()
    assert "harness-worker" not in log  # in-process: no worker records
    summary = pd.read_csv(run.run_dir / "summary.csv")
    assert list(summary["strategy"]) == [r["strategy"] for r in run.counts]


def test_worker_records_reach_run_log(tmp_path):
    run = run_tournament(SMALL, out=tmp_path, workers=2)
    log = (run.run_dir / "run.log").read_text()
    assert log.count("harness-worker") == 9, "one record per chunk, from the workers"


def test_every_entrant_sits_in_every_seat_equally(tmp_path):
    config = {
        "entrants": ["greedy", "random", "threshold", "worm-first"],
        "players": 3,
        "deals": 4,
        "chunk": 3,
    }
    run = run_tournament(config, out=tmp_path, workers=0)
    df = games_of(run.run_dir)
    # balanced seating (the default) at 3 players: all 6 orders of every deal
    assert len(df) == 4 * 4 * 6  # 4 tables x 4 deals x 6 seat orders
    for _table, games in df.groupby("table"):
        names = set(games["seat0_strategy"])
        assert len(names) == 3
        for seat in range(3):
            counts = games[f"seat{seat}_strategy"].value_counts()
            assert set(counts.index) == names and set(counts) == {4 * 2}
        # every seat order of a deal shares the deal's seed
        for _deal, deal_games in games.groupby("deal"):
            assert deal_games["seed"].nunique() == 1
            assert sorted(deal_games["seating"]) == list(range(6))


def test_standings_add_up(tmp_path):
    run = run_tournament(SMALL, out=tmp_path, workers=0)
    df = games_of(run.run_dir)
    for row in run.counts:
        name = row["strategy"]
        share = 0.0
        games = 0
        for seat in range(2):
            mine = df[df[f"seat{seat}_strategy"] == name]
            games += len(mine)
            for _, g in mine.iterrows():
                firsts = [s for s in range(2) if g[f"seat{s}_rank"] == 1]
                if seat in firsts:
                    share += 1 / len(firsts)
        assert row["games"] == games == 2 * 2 * 12
        assert row["win_share"] == pytest.approx(share / games)


# -- duplicate dice, checked on records ---------------------------------------------------
def rolls_by_seat(record: dict) -> dict[tuple[int, int, int], list[int]]:
    """(seat, k-th turn of that seat, j-th roll) -> the faces rolled (sorted)."""
    seen: dict[int, int] = {}
    rolls = {}
    for turn in record["turns"]:
        seat = turn["seat"]
        k = seen.get(seat, 0)
        seen[seat] = k + 1
        for j, faces in enumerate(turn["rolls"]):
            rolls[seat, k, j] = sorted(faces)
    return rolls


@pytest.mark.parametrize("players", [2, 3])
def test_duplicate_dice_are_shared_by_every_seat_order_of_a_deal(players):
    config = load_config(
        {
            "entrants": ["greedy", "random", "threshold"][:players],
            "players": players,
            "deals": 3,
            "dice": "duplicate",
        }
    )
    spec = next(plan.chunks(config))
    compared = same = 0
    for deal in range(3):
        records = [replay_game(spec, deal, k, record=True).record for k in range(len(spec.orders))]
        rolls = [rolls_by_seat(rec) for rec in records]
        for key in set(rolls[0]).intersection(*rolls[1:]):
            sizes = {len(r[key]) for r in rolls}
            if len(sizes) == 1:  # the same number of dice: the same dice
                compared += 1
                same += all(r[key] == rolls[0][key] for r in rolls)
        # first roll of every seat's first turn is 8 dice in every seat order: equal
        for seat in range(players):
            assert len({tuple(r[seat, 0, 0]) for r in rolls}) == 1
    assert compared > 50 and same == compared


def test_independent_dice_differ_between_seat_orders():
    config = load_config({"entrants": ["greedy", "random"], "deals": 2, "dice": "independent"})
    spec = next(plan.chunks(config))
    records = [replay_game(spec, 0, r, record=True).record for r in range(2)]
    a, b = rolls_by_seat(records[0]), rolls_by_seat(records[1])
    first = [a[s, 0, 0] != b[s, 0, 0] for s in range(2)]
    assert any(first)


def test_replay_game_matches_the_stored_row():
    config = load_config({**SMALL, "deals": 3})
    spec = next(plan.chunks(config))
    result = play_chunk(spec)
    for row in range(result.rows):
        deal, r = result.games["deal"][row], result.games["seating"][row]
        again = replay_game(spec, deal, r)
        assert again.scores == [result.seats[s]["worms"][row] for s in range(2)]
        assert again.turns == result.games["turns"][row]


# -- content-keyed reuse, resume of a finished run, --fresh -------------------------------
def test_adding_an_entrant_plays_only_the_new_tables(tmp_path):
    # workers=1: a chunk played in this process (workers=0) honestly records the test
    # modules' own strategy classes as loaded code, and such chunks are never reused.
    first = run_tournament(SMALL, out=tmp_path, workers=1)
    bigger = {**SMALL, "entrants": SMALL["entrants"] + ["worm-first"]}
    second = run_tournament(bigger, out=tmp_path, workers=1)
    assert second.run_dir != first.run_dir
    assert second.reused == first.stored == 3 * 12 * 2
    assert second.played == 3 * 12 * 2  # the three new tables only
    a, b = games_of(first.run_dir), games_of(second.run_dir)
    old = b[b["table"].isin(set(a["table"]))].reset_index(drop=True)
    pd.testing.assert_frame_equal(a, old)
    # the same again: nothing to play, the run folder is found and is complete
    third = run_tournament(bigger, out=tmp_path, workers=1)
    assert third.run_dir == second.run_dir and third.played == 0 and third.resumed == second.stored
    # --fresh: a new folder, everything played
    fresh = run_tournament(bigger, out=tmp_path, workers=1, fresh=True)
    assert fresh.run_dir != second.run_dir and fresh.played == fresh.stored and fresh.reused == 0
    pd.testing.assert_frame_equal(games_of(fresh.run_dir), b)


def test_reused_chunk_that_was_tampered_with_is_played_again(tmp_path):
    first = run_tournament(SMALL, out=tmp_path, workers=1)
    victim = sorted((first.run_dir / "games").glob("*.parquet"))[0]
    victim.write_bytes(victim.read_bytes()[:-10] + b"0123456789")  # same size, new bytes
    again = run_tournament({**SMALL, "seed": 0, "max_turns": 999}, out=tmp_path, workers=1)
    assert again.reused == 0  # max_turns is in the key: nothing to reuse
    second = run_tournament({**SMALL, "name": "other"}, out=tmp_path, workers=1)
    assert second.reused == first.stored - 10  # the tampered chunk (5 deals x 2) is replayed


def test_games_override_extends_a_run_reusing_whole_chunks(tmp_path):
    first = run_tournament(SMALL, out=tmp_path, workers=1)  # deals 0-11: chunks 0-4, 5-9, 10-11
    longer = run_tournament(SMALL, games=20, out=tmp_path, workers=1)
    assert longer.reused == 3 * 10 * 2  # chunks 0-4 and 5-9 of each table
    assert longer.stored == 3 * 20 * 2
    assert first.run_dir != longer.run_dir


# -- forfeits -----------------------------------------------------------------------------
FUMBLER = '''
from harness.strategy import Strategy


class Fumbler(Strategy):
    """Greedy, but raises when it sees four or more ones."""

    name = "fumbler"

    def pick(self, view):
        if view.counts[1] >= 4:
            raise ValueError("too many ones")
        return max(view.choices)

    def stop(self, view):
        return view.total >= 25
'''


@pytest.fixture
def fumbler_config(tmp_path):
    (tmp_path / "fumbler.py").write_text(FUMBLER)
    path = tmp_path / "forfeits.yaml"
    path.write_text(
        "name: forfeits\nentrants: [greedy, fumbler.py:Fumbler]\ndeals: 30\nchunk: 10\n"
        "dice: independent\n"
    )
    return path


def same_error(replayed: str, stored: str) -> bool:
    """Same turn, seat and detail (the strategy's label may show its path differently)."""

    def parts(text: str) -> tuple[str, str]:
        head, _, rest = text.partition(" (")
        return head, rest.split(") ", 1)[1]

    return parts(replayed) == parts(stored)


def test_forfeits_are_recorded_and_the_tournament_goes_on(tmp_path, fumbler_config):
    run = run_tournament(fumbler_config, out=tmp_path / "out", workers=0)
    assert run.status == "complete"
    df = games_of(run.run_dir)
    lost = df[df["status"] == "forfeit"]
    assert len(lost) == run.forfeits > 0 and len(df) == 60
    for _, row in lost.iterrows():
        seat = row["error_seat"]
        assert row[f"seat{seat}_strategy"] == "fumbler"  # its class's own name attribute
        assert row[f"seat{seat}_rank"] == 2  # ranked last
        assert "raised ValueError in pick(): too many ones" in row["error"]
    fumbler = next(r for r in run.counts if r["strategy"] == "fumbler")
    assert fumbler["forfeits"] == run.forfeits
    example = run.forfeit_examples[0]
    assert example["command"].startswith("harness play ")
    assert f"--seed {example['game_seed']}" in example["command"]


def test_forfeit_command_reproduces_the_game(tmp_path, fumbler_config, cli, monkeypatch):
    run = run_tournament(fumbler_config, out=tmp_path / "out", workers=0)
    example = run.forfeit_examples[0]
    monkeypatch.chdir(tmp_path)
    import shlex

    args = shlex.split(example["command"])[1:]
    result = cli(*args, "--json")
    assert result.exit_code == 0  # the game ends in a forfeit: finished
    payload = json.loads(result.output)
    assert payload["status"] == "forfeit" and "too many ones" in payload["error"]
    assert same_error(payload["error"], example["error"])  # the same game


def test_duplicate_dice_forfeit_is_replayed_by_harness_play(
    tmp_path, fumbler_config, cli, monkeypatch
):
    text = fumbler_config.read_text().replace("dice: independent", "dice: duplicate")
    fumbler_config.write_text(text)
    run = run_tournament(fumbler_config, out=tmp_path / "out", workers=0)
    example = run.forfeit_examples[0]
    assert example["command"].startswith("harness play ")
    assert example["command"].endswith("--dice duplicate")
    import shlex

    monkeypatch.chdir(tmp_path)
    args = shlex.split(example["command"])[1:]
    result = cli(*args, "--json")
    assert result.exit_code == 0  # the game ends in a forfeit: finished
    payload = json.loads(result.output)
    assert payload["status"] == "forfeit" and "too many ones" in payload["error"]
    assert same_error(payload["error"], example["error"])  # the same game


@pytest.mark.once
def test_fail_fast_stops_at_the_first_forfeit(tmp_path, fumbler_config, cli):
    result = cli(
        "tourney",
        str(fumbler_config),
        "--out",
        str(tmp_path / "o"),
        "--workers",
        "0",
        "--fail-fast",
        "--no-report",
    )
    assert result.exit_code == 1
    assert "Stopped at the first forfeit" in result.output
    run_dir = next((tmp_path / "o" / "forfeits").iterdir())
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "stopped"
    assert len((run_dir / "manifest.jsonl").read_text().splitlines()) < 6


# -- the command --------------------------------------------------------------------------
@pytest.mark.once
def test_cli_prints_standings_folder_and_rate(tmp_path, cli):
    config = tmp_path / "c.yaml"
    config.write_text("entrants: [greedy, random]\ndeals: 6\n")
    result = cli("tourney", str(config), "--out", str(tmp_path / "o"), "--workers", "1")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "win share" in out and "worms" in out and "mean rank" in out
    assert "Run folder: " in out and "games/s" in out
    json_run = cli(
        "tourney",
        str(config),
        "--out",
        str(tmp_path / "o"),
        "--json",
        "--deals",
        "8",
        "--seed",
        "3",
        "--no-report",  # the summary's fields; the call above wrote its report
    )
    summary = json.loads(json_run.output)
    assert summary["status"] == "complete" and summary["games"] == 16
    assert {r["strategy"] for r in summary["standings"]} == {"greedy", "random"}
    assert Path(summary["run_dir"]).parent == tmp_path / "o" / "c"
