"""Chunks of several tables (issue 30, item 4): a plan of more tables than CHUNK_CAP.

A 4-player sweep of 64 values is 635,376 tables: one chunk a table was 635,376 part
files, manifest lines and a few ms of the parent's bookkeeping each. A plan of more
tables than the cap groups them: a chunk is whole deals of several tables of one kind,
stored as one part, one line, one key. Here the cap is set small (a sweep of 12 values
at 4 players is 495 tables) and each guarantee of the run folder is tried on grouped
chunks: the same games whatever the chunking, worker count, backend and engine; keys
that resume and reuse; damage, a missing table and a kill refused or played again.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from test_plan_scale import same_figures  # a test module beside this one (tests/ is no package)

import harness.tourney.config.model as model
from harness.runfolder import manifest, parts
from harness.runfolder.reader import DamagedRun, open_run
from harness.tourney import grouping, plan, run_tournament
from harness.tourney.chunks import play_chunk
from harness.tourney.config import load_config, plan_problem, plan_size
from harness.tourney.groups import GroupSpec, at, play
from harness.tourney.runner import report_run

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[2]


def sweep(values: int = 12, players: int = 4, deals: int = 1, **extra) -> dict:
    targets = list(range(21, 21 + values))
    return {
        "name": "grouped",
        "players": players,
        "entrants": [{"strategy": "threshold", "sweep": {"target": targets}}],
        "deals": deals,
        "seed": 5,
        **extra,
    }


@pytest.fixture
def small_cap(monkeypatch):
    """A cap of 60 chunks and about 240 games a chunk: 495 tables make 25 chunks."""
    monkeypatch.setattr(model, "CHUNK_CAP", 60)
    monkeypatch.setattr(model, "CHUNK_GAMES", 240)


def games_of(run_dir: Path) -> pd.DataFrame:
    frame = pd.read_parquet(run_dir / "games")
    return frame.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def figures(run) -> dict:
    summary = report_run(run, write=False)
    for varying in ("run", "timing", "fingerprint"):
        summary.pop(varying)
    return summary


# -- the plan -------------------------------------------------------------------------------
def test_a_plan_within_the_cap_is_the_plan_of_one_table_a_chunk(small_cap):
    config = load_config(sweep(values=6))  # 15 tables
    made = grouping.make_plan(config)
    assert type(made) is plan.Plan and config.tables_per_chunk == 1
    assert grouping.run_key(config) == plan.run_key(config)
    assert list(made.planned) == [s.key for s in plan.chunks(config)]


def test_more_tables_than_the_cap_are_grouped_and_the_chunks_bounded(small_cap):
    config = load_config(sweep(deals=3, chunk=2))  # 495 tables, deals 0-1 and 2
    made = grouping.make_plan(config)
    assert isinstance(made, grouping.GroupedPlan)
    specs = list(made.specs())
    assert len(specs) == len(made.planned) <= model.CHUNK_CAP
    assert [s.key for s in specs] == list(made.planned)
    assert made.games == sum(s.games for s in specs) == 495 * 3 * 12
    ids = [t.id for t in made.tables]
    for first, stop in [(0, 2), (2, 3)]:
        covered = [t for s in specs if s.first == first for t in _tables(s)]
        assert sorted(covered) == sorted(ids) and len(covered) == len(set(covered))
        assert all(s.stop == stop for s in specs if s.first == first)
    sizes = [len(g) for g in made.groups]  # one kind of table: only the last is short
    assert sizes[:-1] == [config.tables_per_chunk] * (len(sizes) - 1) and sizes[-1] >= 1
    groups = [s for s in specs if isinstance(s, GroupSpec)]
    for group in groups:  # tables in plan order, each with its own entrants
        assert list(group.table_ids) == sorted(group.table_ids)
        for member, table in zip(group.members(), group.table_ids, strict=True):
            assert member.table == table and member.key == group.key
    assert made.run_key != plan.run_key(config)  # never resumes a folder of one table a chunk


def _tables(spec) -> tuple[str, ...]:
    return spec.table_ids if isinstance(spec, GroupSpec) else (spec.table,)


@pytest.mark.parametrize(
    "config",
    [
        sweep(values=9, players=3),
        sweep(values=7)
        | {
            "entrants": [
                "greedy",
                "random(p_stop=0.25)",
                "all-builtins",
                {"strategy": "threshold", "name": 't\u00e9"x', "params": {"target": 30}},
            ]
        },  # fmt: skip
        sweep(values=6, players=2) | {"format": "gauntlet", "challenger": "greedy"},
    ],
)
def test_a_big_plans_table_list_is_the_plans(config):
    """grouping.listed joins each key from its entrants' pieces: the same tables, ids and
    keys as plan.tables (which every chunk key of one table is taken from)."""
    loaded = load_config(config)
    assert grouping.listed(loaded) == plan.tables(loaded)


def test_a_groups_members_are_the_chunks_its_tables_had_and_play_the_same_rows(small_cap):
    config = load_config(sweep(deals=2, luck="on"))
    alone = {s.table: s for s in plan.chunks(config)}  # one table a chunk, as before
    group = next(s for s in grouping.make_plan(config).specs() if isinstance(s, GroupSpec))
    assert pickle.loads(pickle.dumps(group)) == group
    members = group.members()
    for member in members:
        assert dataclasses.replace(member, key=alone[member.table].key) == alone[member.table]
    played = play(group)
    assert played.rows == group.games
    one_by_one = [play_chunk(m) for m in members]
    for name, column in played.games.items():
        assert list(column) == [v for r in one_by_one for v in r.games[name]], name
    for seat, columns in enumerate(played.seats):
        for name, column in columns.items():
            assert list(column) == [v for r in one_by_one for v in r.seats[seat][name]], name
    table, local = at(group, group.per_table + 3)  # the second table's fourth game
    assert table == members[1] and local == 3


def test_a_group_key_covers_its_tables_and_deals(small_cap):
    config = load_config(sweep())
    keys = list(grouping.make_plan(config).planned)
    again = list(grouping.make_plan(load_config(sweep())).planned)
    assert keys == again  # a function of the config
    other_seed = list(grouping.make_plan(load_config(sweep(seed=6))).planned)
    more_deals = list(grouping.make_plan(load_config(sweep(deals=2))).planned)
    assert not set(keys) & set(other_seed) and not set(keys) & set(more_deals)


# -- the same games ------------------------------------------------------------------------
@pytest.mark.once
def test_grouped_chunks_store_the_games_one_table_a_chunk_stores(tmp_path, small_cap):
    # 10 values, 4 seats: C(10, 4) = 210 tables, past the cap of 60
    config = sweep(values=10, deals=2, luck="on")
    grouped = run_tournament(config, workers=0, out=tmp_path / "grouped")
    with pytest.MonkeyPatch.context() as undo:
        undo.setattr(model, "CHUNK_CAP", 10_000)
        alone = run_tournament(config, workers=0, out=tmp_path / "alone")
    assert grouped.status == alone.status == "complete"
    parts_of = [len(list(r.run_dir.glob("games/*.parquet"))) for r in (grouped, alone)]
    assert parts_of[0] < 60 < parts_of[1] == 210
    pd.testing.assert_frame_equal(games_of(grouped.run_dir), games_of(alone.run_dir))
    assert grouped.counts == alone.counts
    assert same_figures(figures(grouped), figures(alone))
    # Its tables in a file of their own: run.json stays small.
    data = json.loads((grouped.run_dir / "run.json").read_text())
    assert data["tables"]["file"] == "tables.parquet" and data["tables"]["count"] == 210
    assert data["tables_per_chunk"] == model.group_size(210, 2, 2, 12) > 1
    assert isinstance(json.loads((alone.run_dir / "run.json").read_text())["tables"], list)


@pytest.mark.interpreter
def test_workers_and_the_python_engine_play_the_grouped_games_in_process(tmp_path, monkeypatch):
    monkeypatch.setattr(model, "CHUNK_CAP", 20)
    monkeypatch.setattr(model, "CHUNK_GAMES", 60)
    config = sweep(values=8, players=3, deals=2)  # 56 tables
    runs = [
        run_tournament(config, workers=0, out=tmp_path / "serial"),
        run_tournament({**config, "engine": "python"}, workers=2, out=tmp_path / "workers"),
    ]
    assert all(r.status == "complete" for r in runs)
    assert len(list(runs[1].run_dir.glob("games/*.parquet"))) <= 20
    pd.testing.assert_frame_equal(games_of(runs[0].run_dir), games_of(runs[1].run_dir))


# -- resume, reuse, damage -----------------------------------------------------------------
@pytest.mark.once
def test_resume_plays_only_the_missing_grouped_chunks(tmp_path, small_cap):
    run = run_tournament(sweep(), workers=0, out=tmp_path)
    lines = (run.run_dir / "manifest.jsonl").read_text().splitlines(keepends=True)
    (run.run_dir / "manifest.jsonl").write_text("".join(lines[:10]))  # the rest "not played"
    again = run_tournament(sweep(), workers=0, out=tmp_path)
    assert again.run_dir == run.run_dir and again.status == "complete"
    kept = sum(json.loads(line)["games"] for line in lines[:10])
    assert again.resumed == kept and again.played == run.planned - kept
    pd.testing.assert_frame_equal(games_of(again.run_dir), games_of(run.run_dir))


def test_another_run_reuses_grouped_chunks_of_the_same_content(tmp_path, small_cap):
    told: list[str] = []
    # In a worker process of its own: a chunk played in this process records every plugin
    # an earlier test loaded here, and such a chunk is rightly never reused.
    first = run_tournament(sweep(luck="off"), workers=1, out=tmp_path)
    # luck: auto keeps no account at tables of cheap built-ins: the same chunks, another run
    second = run_tournament(sweep(luck="auto"), workers=0, out=tmp_path, echo=told.append)
    assert second.run_dir != first.run_dir
    assert second.reused == second.planned and second.played == 0
    assert any(line.startswith("Reused 5,940 games") for line in told)
    pd.testing.assert_frame_equal(games_of(second.run_dir), games_of(first.run_dir))


def _grouped_part(run_dir: Path) -> tuple[Path, dict]:
    for line in (run_dir / "manifest.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if "tables" in entry:
            return run_dir / "games" / entry["file"], entry
    raise AssertionError("no grouped chunk")


@pytest.mark.once
def test_a_flipped_byte_in_a_grouped_part_is_refused_then_played_again(tmp_path, small_cap):
    from harness.tourney.repair import repair_run

    run = run_tournament(sweep(), workers=0, out=tmp_path)
    reference = games_of(run.run_dir)
    part, _ = _grouped_part(run.run_dir)
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0x01
    part.write_bytes(bytes(data))
    with pytest.raises(DamagedRun, match=f"{part.name}: its sha256 differs"):
        open_run(run.run_dir)
    fixed = repair_run(run.run_dir, workers=0)
    assert fixed.run is not None and fixed.run.played == json.loads(
        next(line for line in (run.run_dir / "manifest.jsonl").read_text().splitlines()
             if json.loads(line)["file"] == part.name)
    )["games"]  # fmt: skip
    pd.testing.assert_frame_equal(games_of(run.run_dir), reference)
    open_run(run.run_dir)  # verifies


@pytest.mark.once
def test_a_grouped_part_missing_a_table_is_refused_and_played_again(tmp_path, small_cap):
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    run = run_tournament(sweep(), workers=0, out=tmp_path)
    reference = games_of(run.run_dir)
    part, entry = _grouped_part(run.run_dir)
    rows = pq.read_table(part)
    gone = entry["tables"][1]
    kept = rows.filter(pc.not_equal(rows.column("table"), gone))
    # The line is made to match the new bytes: only the rows can tell.
    pq.write_table(kept, part)
    data = part.read_bytes()
    entry = {**entry, "bytes": len(data), "sha256": manifest.digest_of(data)}
    lines = (run.run_dir / "manifest.jsonl").read_text().splitlines()
    lines = [manifest.manifest_line(entry).decode().rstrip("\n") if json.loads(x)["file"] ==
             part.name else x for x in lines]  # fmt: skip
    (run.run_dir / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DamagedRun, match=f"{part.name}: 228 games where the manifest says 240"):
        open_run(run.run_dir)
    again = run_tournament(sweep(), workers=0, out=tmp_path)
    assert again.status == "complete" and again.played == 12 * len(entry["tables"])
    pd.testing.assert_frame_equal(games_of(run.run_dir), reference)


def test_grouped_rows_are_checked_table_by_table(small_cap):
    import pyarrow as pa

    config = load_config(sweep(deals=2))
    group = next(s for s in grouping.make_plan(config).specs() if isinstance(s, GroupSpec))
    from harness.tourney.storage import claim_of, to_arrow

    table = to_arrow(group, play(group))
    claim = claim_of(group)
    parts.check_rows(table, claim, group.file, 4)  # stored by deal, then table
    assert table.column("deal").to_pylist() == sorted(table.column("deal").to_pylist())
    parts.check_rows(table.take(pa.array(range(table.num_rows - 1, -1, -1))), claim, "f", 4)
    swapped = (claim[0][1], claim[0][0], *claim[0][2:])
    parts.check_rows(table, (swapped, *claim[1:]), "f", 4)  # the same games: any order
    for bad in [
        (claim[0][:-1], *claim[1:]),  # a table fewer than the rows hold
        ((*claim[0][:-1], "0" * 12), *claim[1:]),  # a table the rows do not hold
        (claim[0], 1, 3, claim[3]),  # other deals
    ]:
        with pytest.raises(parts.ChunkDamaged):
            parts.check_rows(table, bad, "f", 4)


@pytest.mark.parametrize(
    ("line", "claim"),
    [
        ({"tables": ["a", "b"], "first": 0, "stop": 2, "games": 48}, (("a", "b"), 0, 2, 12)),
        ({"tables": ["a"], "first": 0, "stop": 2, "games": 24}, None),  # one: "table"
        ({"tables": ["a", "a"], "first": 0, "stop": 2, "games": 48}, None),
        ({"tables": ["a", "b"], "table": "a", "first": 0, "stop": 2, "games": 48}, None),
        ({"tables": ["a", 3], "first": 0, "stop": 2, "games": 48}, None),
        ({"tables": ["a", "b"], "first": 0, "stop": 2, "games": 47}, None),
        ({"tables": "ab", "first": 0, "stop": 2, "games": 48}, None),
    ],
)
def test_a_grouped_manifest_line_claims_its_tables_or_nothing(line, claim):
    assert manifest.covered(line) == claim


@pytest.mark.once
def test_a_damaged_table_list_is_one_line_and_repair_writes_it_again(tmp_path, small_cap):
    from harness.tourney.repair import repair_run

    run = run_tournament(sweep(), workers=0, out=tmp_path)
    tables = run.run_dir / "tables.parquet"
    tables.write_bytes(tables.read_bytes()[:-10])
    with pytest.raises(DamagedRun, match="tables.parquet"):
        open_run(run.run_dir)
    repair_run(run.run_dir, workers=0)
    assert open_run(run.run_dir).problems == []


# -- kills ---------------------------------------------------------------------------------
SLOW = '''
import time

from harness.strategy import Strategy


class Slow(Strategy):
    """Greedy, after a short nap per game (sleeps, no CPU)."""

    name = "slow"

    def new_game(self, seat, rules):
        time.sleep(0.003)

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= 26
'''

DRIVER = """
import sys
import harness.tourney.config.model as model
model.CHUNK_CAP, model.CHUNK_GAMES = 20, 60
from harness.tourney import run_tournament
run_tournament(sys.argv[1], out=sys.argv[2], workers=2, progress=False)
"""


@pytest.mark.interpreter
@pytest.mark.once
def test_a_run_killed_mid_chunk_resumes_to_the_same_games(tmp_path, monkeypatch):
    """SIGKILL while grouped chunks are in play (tables with a plugin and without: two
    kinds), then the same command: only the missing chunks are played, the same games."""
    monkeypatch.setattr(model, "CHUNK_CAP", 20)
    monkeypatch.setattr(model, "CHUNK_GAMES", 60)
    (tmp_path / "slow.py").write_text(SLOW)
    config = tmp_path / "kill.yaml"
    config.write_text(
        "name: kill\nplayers: 3\ndeals: 2\nseed: 4\nentrants:\n  - slow.py:Slow\n"
        "  - strategy: threshold\n    sweep: {target: [21, 23, 25, 27, 29, 31, 33, 35]}\n"
    )
    reference = run_tournament(config, out=tmp_path / "ref", workers=0)
    assert isinstance(grouping.make_plan(load_config(config)), grouping.GroupedPlan)
    (tmp_path / "driver.py").write_text(DRIVER)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, str(tmp_path / "driver.py"), str(config), str(out)],
        cwd=ROOT,
        start_new_session=True,  # its own process group: the kill reaches its workers
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        lines = list(out.glob("kill/*/manifest.jsonl"))
        if lines and len(lines[0].read_text().splitlines()) >= 3:
            break
        assert proc.poll() is None, "the run ended before it could be killed"
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    run_dir = next(out.glob("kill/*"))
    saved = len((run_dir / "manifest.jsonl").read_text().splitlines())
    again = run_tournament(config, out=out, workers=2)
    assert again.run_dir == run_dir and again.status == "complete"
    assert len((run_dir / "manifest.jsonl").read_text().splitlines()) > saved
    assert 0 < again.resumed < again.planned
    pd.testing.assert_frame_equal(games_of(run_dir), games_of(reference.run_dir))


CRASHY = '''
import os

from harness.strategy import Strategy

SEEN = [0]  # games begun in this process


class Crashy(Strategy):
    """Kills its worker process once (a marker file), at the 40th game it begins there."""

    name = "crashy"

    def __init__(self, marker: str = ""):
        self.marker = marker

    def new_game(self, seat, rules):
        SEEN[0] += 1
        if SEEN[0] == 40 and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(3)

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= 26
'''


@pytest.mark.interpreter
@pytest.mark.once
def test_a_worker_death_inside_a_group_goes_on_from_that_game(tmp_path, monkeypatch):
    monkeypatch.setattr(model, "CHUNK_CAP", 20)
    monkeypatch.setattr(model, "CHUNK_GAMES", 60)
    (tmp_path / "crashy.py").write_text(CRASHY)

    marker = tmp_path / "died"
    crashy = {"strategy": str(tmp_path / "crashy.py") + ":Crashy", "name": "crashy"}
    crashy["params"] = {"marker": str(marker)}
    config = sweep(values=8, players=3, deals=2)
    config["entrants"] = [crashy, *config["entrants"]]
    marker.write_text("")  # the reference never dies
    reference = run_tournament(config, out=tmp_path / "ref", workers=0)
    marker.unlink()
    run = run_tournament(config, out=tmp_path / "out", workers=2)
    assert marker.exists(), "a worker really died"
    assert run.status == "complete" and run.forfeits == 0
    log = (run.run_dir / "run.log").read_text()
    assert "its worker process died (exit code 3); retrying it once from deal" in log
    assert " of table " in log  # which table of the group
    pd.testing.assert_frame_equal(games_of(run.run_dir), games_of(reference.run_dir))


# -- bookkeeping --------------------------------------------------------------------------
def test_a_grouped_chunks_cpu_is_shared_among_its_tables():
    from harness.runfolder.timing import strategy_times

    entries = [
        {"tables": ["t1", "t2"], "cpu": 2.0, "games": 24},
        {"table": "t3", "cpu": 1.0, "games": 12},
    ]
    tables = {"t1": ["a", "b"], "t2": ["b", "c"], "t3": ["a", "c"]}
    times = {t.strategy: t for t in strategy_times(entries, tables, ["a", "b", "c"])}
    assert times["b"].games == 24 and times["b"].cpu_per_game == pytest.approx(2.0 / 24)
    assert times["a"].games == 24 and times["a"].cpu_per_game == pytest.approx(2.0 / 24)


def test_a_sweep_of_635376_tables_plans_a_few_hundred_chunks():
    config = load_config(sweep() | {"entrants": [{"strategy": "worm-first", "sweep": {
        "target": list(range(21, 29)), "min_dice": list(range(1, 9))}}]})  # fmt: skip
    assert config.tables_per_chunk == 1000  # 12 games a table: about CHUNK_GAMES a chunk
    tables, chunks = plan_size("round_robin", 4, 64, 1, config.deals_per_chunk, 1000)
    assert (tables, chunks) == (635_376, 636)
    chunky = config.override(deals=3, chunk=1)  # 1.9 million one-table chunks before
    assert plan_problem(chunky) is None
