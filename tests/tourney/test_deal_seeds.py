"""The same dice at every table and in every run (issue 10, item 1): a deal's seed is the
config seed and the deal index only, tables are numbered by display name, and what must
keep working does: adding an entrant changes no table, content-keyed reuse and resume
(with balanced seating), and a run folder of the old schema is never resumed or reused.

The Python engine plays (``engine: python``): these are the planner's and the store's
guarantees, whatever engine plays.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness.game.dice import derive_seed
from harness.tourney import load_config, plan, run_tournament
from harness.tourney.chunks import play_chunk
from harness.tourney.plan import SEED_MASK, deal_seed, game_seed
from harness.tourney.storage import ChunkDamaged, digest_of, read_part, verify_bytes

pytestmark = [pytest.mark.engine, pytest.mark.usefixtures("deadline")]
BASE = {
    "name": "d",
    "players": 3,
    "entrants": ["greedy", "random", "threshold", "simple"],
    "deals": 4,
    "chunk": 2,
    "engine": "python",
}


def games_of(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def test_a_deal_seed_is_the_config_seed_and_the_deal_only():
    assert deal_seed(7, 3) == derive_seed(7, "deal", 3) & SEED_MASK
    assert deal_seed(7, 3) != deal_seed(7, 4) and deal_seed(7, 3) != deal_seed(8, 3)
    assert 0 <= deal_seed(-(2**63), 0) <= SEED_MASK


@pytest.mark.parametrize("dice", ["duplicate", "independent"])
def test_every_table_of_a_run_plays_deal_d_on_the_same_dice(dice):
    config = load_config({**BASE, "dice": dice})
    seen: dict[tuple[int, int], tuple[int, int]] = {}
    for spec in plan.chunks(config):
        result = play_chunk(spec)
        for row in range(result.rows):
            deal, k = result.games["deal"][row], result.games["seating"][row]
            seeds = (result.games["seed"][row], result.games["game_seed"][row])
            assert seeds[0] == deal_seed(config.seed, deal)
            assert seeds[1] == game_seed(seeds[0], k, dice)
            assert seen.setdefault((deal, k), seeds) == seeds  # the same at every table
    assert len(seen) == 4 * 6


def test_a_table_plays_the_same_games_whatever_other_tables_exist(tmp_path):
    one = run_tournament(
        {**BASE, "entrants": ["greedy", "random", "threshold"]}, out=tmp_path / "a", workers=0
    )
    other = {**BASE, "entrants": ["worm-first", "threshold", "random", "greedy", "simple"]}
    two = run_tournament(other, out=tmp_path / "b", workers=0)
    a, b = games_of(one.run_dir), games_of(two.run_dir)
    shared = b[b["table"].isin(set(a["table"]))].reset_index(drop=True)
    assert a["table"].nunique() == 1 and len(shared) == len(a) == 4 * 6
    pd.testing.assert_frame_equal(a, shared)
    # and every other table of the second run saw the same dice, deal by deal
    for _table, games in b.groupby("table"):
        assert list(games.groupby("deal")["seed"].first()) == list(
            a.groupby("deal")["seed"].first()
        )


def test_adding_an_entrant_changes_no_existing_table_and_reuses_its_chunks(tmp_path):
    # workers=1: chunks played in the test's own process are never reused (by design)
    first = run_tournament(BASE, out=tmp_path, workers=1)
    bigger = {**BASE, "entrants": ["tactician", *BASE["entrants"]]}
    second = run_tournament(bigger, out=tmp_path, workers=1)
    assert second.reused == first.stored == 4 * 4 * 6  # balanced: 6 orders a deal
    a, b = games_of(first.run_dir), games_of(second.run_dir)
    pd.testing.assert_frame_equal(a, b[b["table"].isin(set(a["table"]))].reset_index(drop=True))


def test_tables_number_their_entrants_by_display_name():
    config = load_config(
        {
            **BASE,
            "entrants": [
                {"strategy": "threshold", "params": {"target": 26}, "name": "mine"},
                "random",
                "greedy",
            ],
        }
    )
    edited = load_config(
        {
            **BASE,
            "entrants": [
                "greedy",
                {"strategy": "threshold", "params": {"target": 27}, "name": "mine"},
                "random",
            ],
        }
    )
    (table,), (again,) = plan.tables(config), plan.tables(edited)
    # the edited bot keeps its name and so its place: its games pair with the old ones
    assert table.names == again.names == ["greedy", "mine", "random"]
    assert json.loads(table.key)[1] == ["mine", 'threshold{"target": 26}']
    assert table.id != again.id  # other parameters: another table
    old, new = next(plan.chunks(config)), next(plan.chunks(edited))
    assert old.orders == new.orders
    a, b = play_chunk(old), play_chunk(new)
    assert list(a.games["seed"]) == list(b.games["seed"])
    assert list(a.games["seating"]) == list(b.games["seating"])


def test_resume_with_balanced_seating_plays_only_what_is_missing(tmp_path):
    whole = run_tournament(BASE, out=tmp_path, workers=0)
    manifest = whole.run_dir / "manifest.jsonl"
    lines = manifest.read_text().splitlines()
    gone = json.loads(lines[-1])
    manifest.write_text("\n".join(lines[:-1]) + "\n")  # as if killed before the last chunk
    (whole.run_dir / "games" / gone["file"]).unlink()
    again = run_tournament(BASE, out=tmp_path, workers=0)
    assert again.run_dir == whole.run_dir
    assert again.played == gone["games"] == 2 * 6 and again.resumed == whole.stored - 12
    assert again.counts == whole.counts


def _as_schema_2(run_dir: Path) -> None:
    """Rewrite a run folder as schema 2 wrote it: ``rotation`` for ``seating``, schema 2
    in run.json, manifest lines with the new files' sizes and digests (a folder that
    would verify, were its schema not older)."""
    lines = []
    for line in (run_dir / "manifest.jsonl").read_text().splitlines():
        entry = json.loads(line)
        path = run_dir / "games" / entry["file"]
        table = pq.read_table(path)
        table = table.rename_columns(
            ["rotation" if c == "seating" else c for c in table.column_names]
        )
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        data = sink.getvalue().to_pybytes()
        path.write_bytes(data)
        lines.append(json.dumps({**entry, "bytes": len(data), "sha256": digest_of(data)}))
    (run_dir / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    meta = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**meta, "schema": 2}))


def test_a_run_folder_of_schema_2_is_never_resumed_or_reused(tmp_path, caplog):
    old = run_tournament(BASE, out=tmp_path, workers=1)
    _as_schema_2(old.run_dir)
    with caplog.at_level(logging.INFO, logger="harness.tourney"):
        new = run_tournament(BASE, out=tmp_path, workers=1)
    assert new.run_dir != old.run_dir
    assert new.resumed == new.reused == 0 and new.played == new.stored == old.stored
    said = [r.getMessage() for r in caplog.records if "schema" in r.getMessage()]
    assert any("stored with schema 2" in m and "not resumed" in m for m in said)
    assert all("\n" not in m for m in said)
    # what it plays is what the old folder held, under the new column name
    renamed = games_of(new.run_dir).rename(columns={"seating": "rotation"})
    old_rows = pd.read_parquet(old.run_dir / "games")
    old_rows = old_rows.sort_values(["table", "deal", "rotation"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(renamed, old_rows)


def test_a_schema_2_chunk_is_not_reused_by_another_config(tmp_path):
    old = run_tournament(BASE, out=tmp_path, workers=1)
    _as_schema_2(old.run_dir)
    other = run_tournament({**BASE, "name": "other"}, out=tmp_path, workers=1)
    assert other.reused == 0 and other.played == other.stored
    log = (other.run_dir / "run.log").read_text().splitlines()
    refused = [line for line in log if "not reused" in line]
    assert len(refused) == 8 and all("its run played with another schema" in x for x in refused)


def test_a_report_still_reads_a_schema_2_part(tmp_path):
    old = run_tournament(BASE, out=tmp_path, workers=0)
    _as_schema_2(old.run_dir)
    entry = json.loads((old.run_dir / "manifest.jsonl").read_text().splitlines()[0])
    table = read_part(old.run_dir / "games" / entry["file"], entry, columns=[])
    assert "seating" in table.column_names and "rotation" not in table.column_names
    assert sorted(set(table.column("seating").to_pylist())) == list(range(6))


@pytest.mark.parametrize("forge", ["all order 0", "one order twice", "orders of cyclic"])
def test_rows_that_do_not_cover_every_order_of_every_deal_are_damaged(tmp_path, forge):
    run = run_tournament(BASE, out=tmp_path, workers=0)
    entry = json.loads((run.run_dir / "manifest.jsonl").read_text().splitlines()[0])
    table = pq.read_table(run.run_dir / "games" / entry["file"])
    seating = table.column("seating").to_pylist()
    if forge == "all order 0":
        seating = [0] * len(seating)
    elif forge == "one order twice":
        seating[1] = seating[0]
    else:  # 3 orders a deal, twice: the row count of a balanced chunk, not its orders
        seating = [k % 3 for k in seating]
    i = table.column_names.index("seating")
    table = table.set_column(i, "seating", pa.array(seating, type=pa.int8()))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    data = sink.getvalue().to_pybytes()
    forged = {**entry, "bytes": len(data), "sha256": digest_of(data)}
    with pytest.raises(ChunkDamaged, match="in 6 seat orders"):
        verify_bytes(data, forged)
    # and a manifest line claiming the cyclic count for a balanced chunk
    short = {**entry, "games": entry["games"] // 2}
    with pytest.raises(ChunkDamaged):
        read_part(run.run_dir / "games" / entry["file"], short)
