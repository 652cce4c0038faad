"""The report's fast reader: Arrow batches in, exactly the aggregates the frames gave.

Attacks on what the reader promises: the rating pass kept from the first pass gives the
same numbers as reading again; games handed in as frames give the same numbers as read
from a folder; every check (players, status, strategies, ranks, duplicates) still fires
and names the part at fault, wherever in a batch the bad row sits; parts with different
column types are still read; the deal layout found while verifying is the one on disk.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from run_builders import play_run, row, write_run

from harness.report import ReportError
from harness.report.summaries import aggregate as aggregate_module
from harness.report.summaries.aggregate import aggregate, aggregate_frames
from harness.runfolder import games as games_module
from harness.runfolder import reader as reader_module
from harness.runfolder.games import Games, iter_games
from harness.runfolder.reader import open_run as load_run

pytestmark = pytest.mark.interpreter

ARRAYS = ("win", "worms", "rank", "totals", "worm_hist", "seat", "seat_strategy", "pairs", "conv")


def same_aggregates(a, b) -> None:
    """Equal to the last bit: every moment array, count and the ratings' covariance."""
    assert a.strategies == b.strategies and a.rows == b.rows and a.status == b.status
    for name in ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.tables == b.tables and a.forfeits == b.forfeits
    assert a.capped_tables == b.capped_tables
    assert (a.ratings is None) == (b.ratings is None)
    if a.ratings is not None:
        assert np.array_equal(a.ratings.theta, b.ratings.theta)
        assert np.array_equal(a.ratings.cov, b.ratings.cov)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A 3-player run with turn caps (short cap), three parts per table."""
    folder = tmp_path_factory.mktemp("played") / "r"
    return play_run(
        folder,
        ["greedy", "random", "threshold", "worm-first"],
        players=3,
        deals=12,
        parts=3,
        max_turns=40,
    )


def test_kept_rating_pass_equals_reading_again(played, monkeypatch):
    kept = aggregate(played)
    assert kept.ratings is not None and kept.status["turn-cap"] > 0
    monkeypatch.setattr(aggregate_module, "KEPT_BYTES", 0)  # too big to keep: read again
    phases = []
    again = aggregate(played, lambda phase, done, total: phases.append(phase))
    assert "ratings" in phases  # it did read the games a second time
    same_aggregates(kept, again)


def test_no_second_read_when_kept(played):
    phases = []
    aggregate(played, lambda phase, done, total: phases.append(phase))
    assert phases and set(phases) == {"reading"}


def test_frames_give_what_the_folder_gives(played, monkeypatch):
    monkeypatch.setattr(games_module, "BATCH_ROWS", 50)  # many batches
    info = load_run(played)
    from_folder = aggregate(info)
    frames = {}

    def source(cols, phase):
        if phase not in frames:
            frames[phase] = list(iter_games(info, cols))
        return frames[phase]

    same_aggregates(from_folder, aggregate_frames(info, source))
    assert all(isinstance(f, pd.DataFrame) for f in frames["reading"])


def test_given_clusters_see_the_scored_games_as_a_frame(played):
    info = load_run(played)
    seen = []

    def per_game(frame):
        seen.append(frame)
        return np.arange(len(frame))

    agg = aggregate_frames(info, lambda c, p: iter_games(info, c), clusters=per_game)
    assert seen and all(isinstance(f, pd.DataFrame) for f in seen)
    assert all((f["status"] != "turn-cap").all() for f in seen)
    assert agg.win[:, 0].sum() == agg.status["over"] * 3  # a unit per seat-game


def rows_of(n: int, table: str = "t1", first: int = 0) -> list[dict]:
    return [
        row(table, d, k, ["a", "b"] if k == 0 else ["b", "a"], [d % 5, (d * 3) % 7])
        for d in range(first, first + n)
        for k in (0, 1)
    ]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"players": 3}, "players=3 in a run of 2"),
        ({"status": "won"}, "unknown status 'won'"),
        ({"status": None}, "unknown status nan"),  # as pandas words a null
        ({"seat1_strategy": None}, "empty seat1_strategy"),
        ({"seat0_rank": 0}, "rank outside 1..2"),
        ({"seat1_rank": 3}, "rank outside 1..2"),
    ],
)
@pytest.mark.parametrize("where", [0, 7, 19])  # first row, mid-part, last row
def test_every_check_fires_and_names_its_part(tmp_path, bad, message, where):
    rows = rows_of(10, "t1") + rows_of(10, "t2")
    target = 20 + where  # in table t2's part, read beside t1's
    rows[target] = {**rows[target], **bad}
    run = write_run(tmp_path / "r", rows, by_table=True, parts=1)
    with pytest.raises(ReportError, match=message) as caught:
        aggregate(run)
    assert "t2-000000000.parquet" in str(caught.value)


def test_a_game_stored_twice_in_two_parts_is_found(tmp_path):
    rows = rows_of(6) + [rows_of(6)[5]]  # deal 2, seat order 1 again, in another part
    run = write_run(tmp_path / "r", rows, parts=2)
    with pytest.raises(ReportError, match="table t1 deal 2 seat order 1 is stored twice"):
        aggregate(run)


@pytest.mark.parametrize("deal", [5, 10**6, 2**31 - 1])  # a dense count, then sorting
def test_duplicates_found_whatever_the_deal_numbers(tmp_path, deal):
    rows = rows_of(3) + rows_of(1, first=deal) + rows_of(1, first=deal)
    run = write_run(tmp_path / "r", rows)
    with pytest.raises(ReportError, match=f"deal {deal} seat order 0 is stored twice"):
        aggregate(run)


def test_same_deal_and_order_at_other_tables_is_no_duplicate(tmp_path):
    rows = rows_of(4, "t1") + rows_of(4, "t2") + rows_of(1, "t3", first=10**9)
    agg = aggregate(write_run(tmp_path / "r", rows, by_table=True, parts=2))
    assert agg.rows == len(rows)


def test_parts_with_other_column_types_are_read_as_pandas_joins_them(tmp_path):
    rows = rows_of(8, "t1") + rows_of(8, "t2")
    run = write_run(tmp_path / "r", rows, by_table=True, parts=1)
    reference = aggregate(run)
    # t2's part as another writer might store it: other ints, text as large_string; it is
    # read beside t1's, in the same batches.
    part = run / "games" / "t2-000000000.parquet"
    table = pq.read_table(part)
    other = pa.schema(
        (f.name, pa.int64() if pa.types.is_integer(f.type) else pa.large_string())
        for f in table.schema
    )
    assert other != pq.read_schema(run / "games" / "t1-000000000.parquet")
    pq.write_table(table.cast(other), part)
    same_aggregates(reference, aggregate(run))


def test_games_codes_come_in_order_of_first_appearance():
    games = Games.of(pd.DataFrame({"s": ["z", None, "a", "z", "m"], "n": [1, 2, 3, 4, 5]}))
    codes, names = games.labels("s")
    assert names == ["z", "a", "m", "None"]
    assert codes.tolist() == [0, 3, 1, 0, 2]
    assert list(games.text("s")) == ["z", "None", "a", "z", "m"]
    cat = Games.of(pd.DataFrame({"s": pd.Categorical(["b", "a"], categories=["a", "b"])}))
    assert cat.labels("s")[1] == ["b", "a"]  # appearance, not the categories' order


def test_a_verified_runs_layout_comes_from_verifying(tmp_path):
    from harness.tourney.config import load_config
    from harness.tourney.runner import run_tournament

    config = load_config(
        {
            "name": "lay",
            "players": 2,
            "entrants": ["greedy", "random"],
            "deals": 30,
            "chunk": 10,
            "seed": 3,
        }
    )
    run = run_tournament(config, out=tmp_path, workers=1, echo=lambda text: None)
    info = load_run(run.run_dir)
    assert info.verified and set(info.layouts) == set(info.parts) and len(info.parts) == 3
    for part in info.parts:
        deals = pq.read_table(part, columns=["deal"])["deal"].to_numpy()
        assert info.layouts[part] == (len(deals),) + reader_module._layout_of(deals)
    assert aggregate(info).rows == 60
