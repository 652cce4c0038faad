"""How a run is cut into chunks when the config gives no ``chunk`` (issue 30, item 5).

A small slow run (one table of ``optimal`` on the Python engine, a plugin) was one chunk
of up to 12,000 games, played by one of two workers while the other waited. The default
now cuts a small run into MIN_CHUNKS chunks or more (never under MIN_CHUNK_GAMES games),
from the config alone: the same chunks on any worker count, so a run resumes anywhere.
Chunking never changes a game: the same rows come out however a run is cut.
"""

from __future__ import annotations

import pandas as pd
import pytest

from harness.tourney import plan, run_tournament
from harness.tourney.config import load_config, model
from harness.tourney.config.model import CHUNK_GAMES

pytestmark = pytest.mark.engine


def planned(entrants, deals: int, **extra) -> plan.Plan:
    return plan.Plan(load_config({"name": "c", "entrants": entrants, "deals": deals, **extra}))


def test_a_small_run_of_one_table_gives_every_worker_work():
    one = planned(["optimal", "simple"], 1000)  # 2,000 games: one chunk before
    assert len(one.planned) >= model.MIN_CHUNKS
    assert max(one.planned.values()) <= 2 * 1000 // model.MIN_CHUNKS + 2


def test_a_tiny_run_stays_whole_and_a_big_one_keeps_its_chunk_size():
    assert len(planned(["greedy", "random"], 40).planned) == 1  # under MIN_CHUNK_GAMES
    assert min(planned(["greedy", "random"], 100).planned.values()) >= model.MIN_CHUNK_GAMES
    big = planned(["greedy", "random"], 1_000_000)
    assert max(big.planned.values()) == CHUNK_GAMES  # 2 players: 6,000 deals a chunk
    wide = planned("all-builtins", 300)  # 28 tables: already more chunks than needed
    assert len(wide.planned) == len(wide.tables)


def test_the_rule_is_the_configs_alone():
    config = load_config({"name": "c", "entrants": ["optimal", "simple"], "deals": 1000})
    for workers in (0, 1, 2, 64):
        other = config.override(workers=workers)
        assert other.deals_per_chunk == config.deals_per_chunk
        assert plan.run_key(other) == plan.run_key(config)  # resumes on any worker count
    assert config.override(chunk=1000).deals_per_chunk == 1000  # a chunk given is kept


@pytest.mark.parametrize("players", [2, 3, 5, 7])
@pytest.mark.parametrize("deals", [1, 49, 50, 51, 799, 800, 5000, 6001, 10**6])
@pytest.mark.parametrize("tables", [1, 2, 15, 16, 17, 100])
def test_default_chunk_bounds(players, deals, tables):
    size = model.default_chunk(players, deals, tables)
    capped = -(-deals // max(1, model.CHUNK_CAP // tables))  # huge plans: at most CHUNK_CAP
    assert 1 <= size <= max(-(-CHUNK_GAMES // players), capped)
    assert size * players >= min(model.MIN_CHUNK_GAMES, CHUNK_GAMES)
    chunks = tables * -(-deals // size)
    floor_bound = size == -(-model.MIN_CHUNK_GAMES // players)
    assert chunks >= model.MIN_CHUNKS or floor_bound or size >= deals
    if size < -(-CHUNK_GAMES // players):  # cut finer only where it makes more chunks
        assert -(-deals // size) > -(-deals // -(-CHUNK_GAMES // players))


def test_chunking_never_changes_the_rows(tmp_path):
    base = {"name": "cut", "entrants": ["greedy", "tactician"], "deals": 200, "seed": 9}
    cut = run_tournament(base, out=tmp_path / "cut", workers=2)
    whole = run_tournament({**base, "chunk": 200}, out=tmp_path / "whole", workers=0)
    assert cut.status == whole.status == "complete"
    parts = sorted((cut.run_dir / "games").glob("*.parquet"))
    assert len(parts) == 4 and len(list((whole.run_dir / "games").glob("*.parquet"))) == 1

    def rows(run_dir):
        df = pd.read_parquet(run_dir / "games")
        return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(cut.run_dir), rows(whole.run_dir))
