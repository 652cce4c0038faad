"""The account in run folders (schema 4): kept as played, null where not kept, keyed.

The stored columns of a run with ``luck: on`` are each game's account played again; a
table without the account stores nulls (never zeros that read as "no luck"); ``auto``
keeps it at tables with a plugin or ``optimal`` only; the chunk key holds the choice, so
a run never resumes or reuses rows of the other kind; parts written before the account
existed read with its columns null.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness.analysis.account import Accountant
from harness.runfolder.schema import ACCOUNT_FIELDS, seat_column
from harness.tourney import load_config, plan, run_tournament
from harness.tourney.chunks import play_chunk, replay_game
from harness.tourney.storage import digest_of

pytestmark = pytest.mark.engine

BOT = '''
from harness.strategy import Strategy


class Careful(Strategy):
    """Stops as soon as it may."""

    name = "careful"

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True
'''


def _config(entrants, luck="on", deals=4, **extra):
    return {
        "name": "luck",
        "players": 2,
        "entrants": entrants,
        "deals": deals,
        "seed": 3,
        "luck": luck,
        "engine": "python",
        **extra,
    }


def _games(run_dir: Path) -> pd.DataFrame:
    return pd.read_parquet(run_dir / "games").sort_values(["table", "deal", "seating"])


def test_the_stored_account_is_each_games_account_played_again(tmp_path):
    config = load_config(_config(["greedy", "tactician", "random"], deals=3))
    run = run_tournament(config, out=tmp_path, workers=0)
    games = _games(run.run_dir)
    assert len(games) == 3 * 3 * 2
    the_plan = plan.Plan(config)
    checked = 0
    for spec in the_plan.specs():
        assert spec.account
        for deal in range(spec.first, spec.stop):
            for k in range(len(spec.orders)):
                accountant = Accountant(spec.rules)
                replay_game(spec, deal, k, observer=accountant)
                row = games[
                    (games.table == spec.table) & (games.deal == deal) & (games.seating == k)
                ].iloc[0]
                for seat, ledger in enumerate(accountant.ledgers):
                    for name in ACCOUNT_FIELDS:
                        assert row[seat_column(seat, name)] == getattr(ledger, name), name
                checked += 1
    assert checked == len(games)
    # the two-player margin identity, on every stored game
    over = games[games.status == "over"]

    def total(seat: int) -> pd.Series:
        return (
            over[f"seat{seat}_par"]
            + over[f"seat{seat}_luck"]
            - over[f"seat{seat}_regret_pick"]
            - over[f"seat{seat}_regret_stop"]
            - over[f"seat{seat}_regret_claim"]
        )

    margin = over.seat0_worms - over.seat1_worms
    assert ((total(0) - total(1)) - margin).abs().max() < 1e-9


def test_a_table_without_the_account_stores_nulls_not_zeros(tmp_path):
    run = run_tournament(_config(["greedy", "simple"], luck="off"), out=tmp_path, workers=0)
    games = _games(run.run_dir)
    for seat in (0, 1):
        for name in ACCOUNT_FIELDS:
            assert games[seat_column(seat, name)].isna().all(), name


def test_auto_keeps_the_account_where_a_plugin_or_optimal_plays(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    config = load_config(_config(["greedy", "simple", "optimal", f"{bot}:Careful"], luck="auto"))
    the_plan = plan.Plan(config)
    kept = {tuple(sorted(e.name for e in t.entrants)): the_plan.luck[t.id] for t in the_plan.tables}
    assert kept[("greedy", "simple")] is False
    assert kept[("greedy", "optimal")] is True
    assert kept[("careful", "simple")] is True  # the worm account: never the win luck
    assert sum(kept.values()) == 5  # every table but greedy v simple
    on = plan.Plan(load_config(_config(["greedy", "simple"], luck="on")))
    assert all(v is True for v in on.luck.values())


def test_the_choice_is_in_the_chunk_key_so_rows_of_the_other_kind_are_never_reused(tmp_path):
    with_ = run_tournament(_config(["greedy", "simple"], luck="on"), out=tmp_path, workers=0)
    without = run_tournament(_config(["greedy", "simple"], luck="off"), out=tmp_path, workers=0)
    assert without.run_dir != with_.run_dir
    assert without.reused == 0 and without.played == without.stored
    again = run_tournament(_config(["greedy", "simple"], luck="off"), out=tmp_path, workers=0)
    assert again.run_dir == without.run_dir and again.played == 0
    # the games themselves are the same, account or not
    keep = [
        c
        for c in _games(with_.run_dir).columns
        if c.split("_", 1)[-1] not in (*ACCOUNT_FIELDS, "winluck")
    ]
    pd.testing.assert_frame_equal(
        _games(with_.run_dir)[keep].reset_index(drop=True),
        _games(without.run_dir)[keep].reset_index(drop=True),
    )


def test_a_chunk_plays_the_same_account_from_any_start(tmp_path):
    config = load_config(_config(["tactician", "worm-first"], deals=5))
    spec = next(plan.Plan(config).specs())
    whole = play_chunk(spec)
    tail = play_chunk(spec, start=4)
    for seat in range(2):
        for name in ACCOUNT_FIELDS:
            assert list(tail.seats[seat][name]) == list(whole.seats[seat][name])[4:]


def _without_account(run_dir: Path) -> None:
    """Rewrite a run folder as schema 3 wrote it: no account columns (a folder that
    verifies: new sizes and digests in its manifest), and a run.json that says nothing
    of the account (a schema 4 run.json that says its tables keep one would make these
    parts damaged: tests/runfolder/test_account_identities.py)."""
    config = json.loads((run_dir / "run.json").read_text())
    config.pop("luck")
    for table in config["tables"]:
        table.pop("luck")
    (run_dir / "run.json").write_text(json.dumps({**config, "schema": 3}))
    lines = []
    for line in (run_dir / "manifest.jsonl").read_text().splitlines():
        entry = json.loads(line)
        path = run_dir / "games" / entry["file"]
        table = pq.read_table(path)
        keep = [c for c in table.column_names if c.split("_", 1)[-1] not in ACCOUNT_FIELDS]
        sink = pa.BufferOutputStream()
        pq.write_table(table.select(keep), sink)
        data = sink.getvalue().to_pybytes()
        path.write_bytes(data)
        lines.append(json.dumps({**entry, "bytes": len(data), "sha256": digest_of(data)}))
    (run_dir / "manifest.jsonl").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("luck", ["on", "off"])
def test_a_report_reads_parts_without_the_account_columns(tmp_path, luck):
    from harness import load_run

    run = run_tournament(_config(["greedy", "simple"], luck=luck), out=tmp_path, workers=0)
    before = load_run(run.run_dir)
    standings = before.standings[["strategy", "games", "win_share"]].copy()
    _without_account(run.run_dir)
    (run.run_dir / "report.json").unlink(missing_ok=True)
    after = load_run(run.run_dir)
    pd.testing.assert_frame_equal(after.standings[["strategy", "games", "win_share"]], standings)
    seats = after.seats()
    assert len(seats) == 2 * len(_games(run.run_dir))


@pytest.mark.parametrize(("written", "meant"), [("on", "on"), ("off", "off"), ("auto", "auto")])
def test_luck_on_in_yaml_means_on(tmp_path, written, meant):
    """YAML 1.1 reads a bare `on`/`off` as a boolean: the config means what it says, and
    the editors' schema takes it too."""
    from harness.tourney.schema import config_schema

    path = tmp_path / "c.yaml"
    path.write_text(f"name: y\nentrants: [greedy, simple]\ndeals: 2\nluck: {written}\n")
    assert load_config(path).luck == meant
    enum = config_schema()["properties"]["luck"]["enum"]
    assert {True, False, "on", "off", "auto"} <= set(enum)
