"""The part writer at native speed (issue 12's pipeline figure): faster, the same rows.

* A part file reads back as exactly harness.runfolder.schema's Arrow schema and the rows
  :func:`to_arrow` makes, whatever the writer's encoding (dictionary-coded names, delta
  packed integers, lz4, no Arrow schema stored): pyarrow and pandas see the same table.
* A chunk just played is counted in C from the arrays its part is made of, where it is
  stored (never from the ``stats`` it arrives with): equal to counting the stored rows;
  without the extension, or when a forfeit needs its examples, the rows are counted.
* The quick path of the rows check (rows already in order) takes nothing it should
  refuse: a missing, doubled or foreign row, or a null table id, is refused as before.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_storage_verify import FUMBLER

from harness import native
from harness.game.ranking import POINT
from harness.runfolder import schema
from harness.tourney import load_config, plan
from harness.tourney.chunks import finish, play_chunk, play_native
from harness.tourney.storage import (
    ChunkDamaged,
    RunFolder,
    check_rows,
    claim_of,
    part_summary,
    played_summary,
    read_part,
    to_arrow,
)

pytestmark = pytest.mark.engine


def chunk(tmp_path, **config):
    """A played chunk (assembled as the backend assembles it) and its stored file."""
    spec = next(iter(plan.chunks(load_config({"entrants": ["greedy", "random"], **config}))))
    result = finish(spec, play_chunk(spec))
    folder = RunFolder(tmp_path / "run")
    folder.create()
    try:
        entry = folder.write_chunk(spec, result)
    finally:
        folder.close()
    return spec, result, folder.games_dir / spec.file, entry


CASES = {
    "2 players, capped games": {"deals": 30, "max_turns": 10},
    "3 players, permutations": {
        "entrants": ["greedy", "random", "tactician"],
        "players": 3,
        "seating": "permutations",
        "deals": 8,
    },
    "forfeits": {"entrants": ["greedy", "FUMBLER"], "deals": 20, "dice": "independent"},
}


def config_of(case: str, tmp_path) -> dict:
    config = dict(CASES[case])
    if "FUMBLER" in config.get("entrants", []):
        (tmp_path / "fumbler.py").write_text(FUMBLER)
        config["entrants"] = ["greedy", f"{tmp_path / 'fumbler.py'}:Fumbler"]
    return config


@pytest.mark.parametrize("case", list(CASES))
def test_a_part_reads_back_as_the_stored_schema_and_rows(tmp_path, case):
    spec, result, path, _ = chunk(tmp_path, **config_of(case, tmp_path))
    want = to_arrow(spec, result)
    back = pq.read_table(path)
    assert back.schema.equals(schema.arrow_schema(spec.rules.players), check_metadata=True)
    assert back.equals(want)
    frame = pd.read_parquet(path)
    pd.testing.assert_frame_equal(frame, want.to_pandas())
    assert not isinstance(frame["seat0_strategy"].dtype, pd.CategoricalDtype), "not codes"
    encoded = to_arrow(spec, result, encoded=True)
    assert encoded.cast(schema.arrow_schema(spec.rules.players)).equals(want)
    if case == "forfeits":
        assert back.column("error").null_count < back.num_rows
        assert set(back.column("error_kind").to_pylist()) >= {None, "raised"}


@pytest.mark.parametrize("case", list(CASES))
def test_a_played_chunk_counts_as_its_stored_rows(tmp_path, case):
    spec, result, path, entry = chunk(tmp_path, **config_of(case, tmp_path))
    stored = part_summary(read_part(path, entry), spec.rules.players)
    played = played_summary(spec, result, to_arrow(spec, result, encoded=True))
    assert played == stored
    assert entry["forfeits"] == stored.forfeits
    assert entry["forfeit_examples"] == stored.examples
    if case == "forfeits":
        assert stored.forfeits > 0 and stored.examples


def test_a_native_chunk_counts_as_its_rows(tmp_path):
    """The quick path (no forfeits) on the rows the native engine played."""
    spec = next(iter(plan.chunks(load_config({"entrants": ["greedy", "tactician"], "deals": 40}))))
    if not native.available():
        pytest.skip("the native engine is not built")
    result = play_native(spec)
    table = to_arrow(spec, result, encoded=True)
    played = played_summary(spec, result, table)
    assert played == part_summary(to_arrow(spec, result), 2)


@pytest.mark.parametrize("tamper", ["one game more", "one win moved", "an entrant missing"])
def test_the_stats_a_result_arrives_with_are_not_believed(tmp_path, tamper):
    """Counters come from the arrays that become the part, counted again where they are
    stored: forged ``stats`` (from a worker, a Dask reply, a plugin) change nothing."""
    spec = next(iter(plan.chunks(load_config({"entrants": ["greedy", "random"], "deals": 30}))))
    result = finish(spec, play_chunk(spec))
    rows = part_summary(to_arrow(spec, result), 2)
    forged = copy.deepcopy(result)
    if tamper == "one game more":
        forged.stats[0] = replace(forged.stats[0], games=forged.stats[0].games + 1)
    elif tamper == "one win moved":
        forged.stats[0] = replace(forged.stats[0], points=forged.stats[0].points + POINT)
        forged.stats[1] = replace(forged.stats[1], points=forged.stats[1].points - POINT)
    else:
        forged.stats = forged.stats[:1]
    assert played_summary(spec, forged, to_arrow(spec, forged, encoded=True)) == rows


def test_without_the_native_engine_the_rows_are_counted(tmp_path, monkeypatch):
    from harness import native

    spec = next(iter(plan.chunks(load_config({"entrants": ["greedy", "random"], "deals": 30}))))
    result = finish(spec, play_chunk(spec))
    monkeypatch.setattr(native, "available", lambda: False)
    monkeypatch.setattr(native, "column_counts", None)  # never called
    played = played_summary(spec, result, to_arrow(spec, result, encoded=True))
    assert played == part_summary(to_arrow(spec, result), 2)


def test_the_quick_rows_check_refuses_what_the_full_one_does(tmp_path):
    spec = next(iter(plan.chunks(load_config({"entrants": ["greedy", "random"], "deals": 10}))))
    result = finish(spec, play_chunk(spec))
    table = to_arrow(spec, result, encoded=True)
    claim = claim_of(spec)
    check_rows(table, claim, spec.file, 2)  # the happy path
    shuffled = table.take(pa.array(list(range(table.num_rows))[::-1]))
    check_rows(shuffled, claim, spec.file, 2)  # the same games in another order
    doubled = pa.concat_tables([table.slice(0, table.num_rows - 1), table.slice(0, 1)])
    nulled = table.set_column(
        0,
        "table",
        pa.DictionaryArray.from_arrays(
            pa.array([0] * (table.num_rows - 1) + [None], type=pa.int8()),
            pa.array([spec.table]),
        ),
    )
    other = table.set_column(
        0,
        "table",
        pa.DictionaryArray.from_arrays(
            pa.array([0] * table.num_rows, type=pa.int8()), pa.array(["elsewhere"])
        ),
    )
    for bad in (doubled, nulled, other, table.slice(1)):
        with pytest.raises(ChunkDamaged):
            check_rows(bad, claim, spec.file, 2)
