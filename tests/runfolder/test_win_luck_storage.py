"""Win luck in run folders (schema 5; its vector, schema 6): ``seat{i}_winluck`` and
``seat{i}_winvec`` are each game's win-unit account played again, the same bits on both
engines (2-4 players, presets), read as null from schema 4 parts, the control of the
luck-adjusted win share where stored (else wluck), and checked on read where an identity
can catch a forged value.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import NEEDS_NATIVE

from harness import stats
from harness.analysis.units import WinAccountant
from harness.runfolder.identities import account_problem
from harness.runfolder.schema import SCHEMA_VERSION, seat_column
from harness.tourney import load_config, plan, run_tournament
from harness.tourney.chunks import play_chunk, replay_game
from harness.tourney.storage import digest_of

pytestmark = pytest.mark.engine


def _config(entrants, players=2, deals=3, engine="python", luck="win", **extra):
    return {
        "name": "winluck",
        "players": players,
        "entrants": entrants,
        "deals": deals,
        "seed": 5,
        "luck": luck,
        "engine": engine,
        **extra,
    }


def _games(run_dir: Path) -> pd.DataFrame:
    return pd.read_parquet(run_dir / "games").sort_values(["table", "deal", "seating"])


@pytest.mark.parametrize(
    ("players", "entrants"),
    [(2, ["greedy", "optimal"]), (3, ["greedy", "simple", "tactician"]), (4, ["greedy"] * 4)],
)
def test_the_stored_win_luck_is_each_games_win_account_played_again(tmp_path, players, entrants):
    assert SCHEMA_VERSION == 6
    if len(set(entrants)) < len(entrants):
        entrants = [{"name": f"g{i}", "strategy": e} for i, e in enumerate(entrants)]
    config = load_config(_config(entrants, players=players, deals=2))
    run = run_tournament(config, out=tmp_path, workers=0)
    games = _games(run.run_dir)
    checked = 0
    for spec in plan.Plan(config).specs():
        for deal in range(spec.first, spec.stop):
            for k in range(len(spec.orders)):
                win = WinAccountant(spec.rules, vector=True)
                replay_game(spec, deal, k, observer=win)
                win.finish()
                row = games[
                    (games.table == spec.table) & (games.deal == deal) & (games.seating == k)
                ].iloc[0]
                for seat, ledger in enumerate(win.ledgers):
                    assert row[seat_column(seat, "winluck")] == ledger.luck  # bit for bit
                    assert row[seat_column(seat, "winvec")] == win.vector[seat]
                checked += 1
    assert checked == len(games) > 0
    # a seat's win luck is a sum of differences of chances: within 1 a roll
    for seat in range(players):
        assert (games[f"seat{seat}_winluck"].abs() <= games[f"seat{seat}_rolls"]).all()


def test_a_chunk_plays_the_same_win_luck_from_any_start():
    config = load_config(_config(["greedy", "simple"], deals=5))
    spec = next(iter(plan.Plan(config).specs()))
    whole = play_chunk(spec)
    tail = play_chunk(spec, start=4)
    for seat in range(2):
        assert list(tail.seats[seat]["winluck"]) == list(whole.seats[seat]["winluck"])[4:]


@pytest.mark.parametrize(
    ("players", "entrants", "rules"),
    [
        (2, ["greedy", "optimal"], None),
        (2, ["simple", "win-optimal"], None),
        (3, ["greedy", "simple", "tactician"], "piko-blog"),
        (3, ["worm-first", "optimal", "random"], "french"),
        (4, ["greedy", "worm-first", "random", "optimal"], "short"),
    ],
)
@NEEDS_NATIVE
def test_both_engines_store_the_same_win_luck_bit_for_bit(players, entrants, rules):
    extra = {} if rules is None else {"rules": rules}
    got = {}
    for engine in ("python", "native"):
        config = load_config(_config(entrants, players=players, deals=4, engine=engine, **extra))
        got[engine] = [play_chunk(spec) for spec in plan.chunks(config)]
    if {r.engine for r in got["native"]} != {"native"}:
        pytest.skip("the native engine does not play here")
    for py, nat in zip(got["python"], got["native"], strict=True):
        for seat in range(players):
            for name in ("winluck", "winvec", "luck", "wluck"):
                assert bytes(py.seats[seat][name]) == bytes(nat.seats[seat][name]), name
    assert any(v != 0 for r in got["native"] for v in r.seats[0]["winluck"])


def _as_schema_4(run_dir: Path) -> None:
    """Rewrite a run folder as schema 4 wrote it: no winluck or winvec columns (a folder that
    verifies: new sizes and digests in its manifest)."""
    config = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**config, "schema": 4}))
    lines = []
    for line in (run_dir / "manifest.jsonl").read_text().splitlines():
        entry = json.loads(line)
        path = run_dir / "games" / entry["file"]
        table = pq.read_table(path)
        keep = [c for c in table.column_names if not c.endswith(("_winluck", "_winvec"))]
        sink = pa.BufferOutputStream()
        pq.write_table(table.select(keep), sink)
        data = sink.getvalue().to_pybytes()
        path.write_bytes(data)
        lines.append(json.dumps({**entry, "bytes": len(data), "sha256": digest_of(data)}))
    (run_dir / "manifest.jsonl").write_text("\n".join(lines) + "\n")


def _adjusted(run_dir: Path) -> pd.Series:
    from harness import load_run

    (run_dir / "report.json").unlink(missing_ok=True)
    standings = load_run(run_dir).standings.set_index("strategy")
    column = [c for c in standings.columns if "adj" in c and "low" not in c and "high" not in c]
    return standings[column[0]]


def test_a_schema_4_folder_still_reads_and_its_adjusted_share_is_wluck_s(tmp_path):
    run = run_tournament(_config(["greedy", "simple"], deals=40), out=tmp_path, workers=0)
    games = _games(run.run_dir)
    with_winluck = _adjusted(run.run_dir)
    _as_schema_4(run.run_dir)
    from harness import load_run

    after = load_run(run.run_dir)
    assert after.seats()["winluck"].isna().all()
    fallen_back = _adjusted(run.run_dir)
    # the same games, another control: the adjusted figure moves (the raw one does not)
    assert not np.allclose(with_winluck.to_numpy(), fallen_back.to_numpy())
    assert len(_games(run.run_dir)) == len(games)


def test_the_control_is_win_luck_where_every_seat_stored_it_else_wluck():
    wluck = np.array([[0.1, -0.1], [0.2, -0.2], [np.nan, np.nan]])
    winluck = np.array([[0.3, -0.3], [np.nan, 0.5], [np.nan, np.nan]])
    c = stats.win_control(wluck, winluck)
    assert c[0].tolist() == [0.3, -0.3]  # stored: win luck
    assert c[1].tolist() == [0.2, -0.2]  # one seat without: the game falls back whole
    assert np.isnan(c[2]).all()
    assert stats.win_control(wluck, None) is not None
    assert stats.win_control_name(winluck[:1]) == "winluck"
    assert stats.win_control_name(winluck) == "winluck+wluck"
    assert stats.win_control_name(None) == "wluck"


def _table(run_dir: Path) -> tuple[pa.Table, int]:
    part = sorted((run_dir / "games").glob("*.parquet"))[0]
    return pq.read_table(part), 2


@pytest.mark.parametrize(
    ("forge", "said"),
    [
        (lambda w, r: w + r + 1.0, "beyond 1 a roll"),
        (lambda w, r: np.where(r == r, np.inf, w), "finite"),
    ],
)
def test_a_forged_win_luck_is_caught_on_read(tmp_path, forge, said):
    run = run_tournament(_config(["greedy", "simple"], deals=3), out=tmp_path, workers=0)
    table, players = _table(run.run_dir)
    assert account_problem(table, players, True) is None
    name = seat_column(1, "winluck")
    rolls = table.column(seat_column(1, "rolls")).to_numpy().astype(float)
    forged = forge(table.column(name).to_numpy(), rolls)
    bad = table.set_column(table.column_names.index(name), name, pa.array(forged))
    problem = account_problem(bad, players, True)
    assert problem is not None and "winluck" in problem and said in problem


def test_a_win_luck_missing_for_one_seat_of_a_game_is_caught(tmp_path):
    run = run_tournament(_config(["greedy", "simple"], deals=3), out=tmp_path, workers=0)
    table, players = _table(run.run_dir)
    name = seat_column(0, "winluck")
    values = table.column(name).to_pylist()
    values[1] = None
    bad = table.set_column(table.column_names.index(name), name, pa.array(values, pa.float64()))
    problem = account_problem(bad, players, True)
    assert problem is not None and "winluck" in problem and "for all" in problem


PLUGIN = '''
from harness.strategy import Strategy


class Careful(Strategy):
    """Stops as soon as it may."""

    name = "careful"

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True
'''


@pytest.mark.parametrize(
    ("luck", "expected"),
    [
        ("off", [False, False, False]),
        ("auto", [False, True, True]),  # greedy mirror, optimal, a plugin's table
        ("on", [True, True, True]),
        ("win", ["win", "win", "win"]),
    ],
)
def test_where_the_win_account_is_kept(tmp_path, luck, expected):
    """The win account costs a turn's programme at nearly every turn: only ``win`` keeps
    it, at every table, whoever plays there (docs/luck.md)."""
    path = tmp_path / "careful.py"
    path.write_text(PLUGIN)
    got = []
    for pair in (["greedy", {"name": "g2", "strategy": "greedy"}], ["greedy", "optimal"],
                 ["greedy", f"{path}:Careful"]):  # fmt: skip
        config = load_config(_config(pair, luck=luck))
        got.append(next(iter(plan.Plan(config).specs())).account)
    assert got == expected


COPY = """
from harness.strategies.greedy import Greedy


class Copy(Greedy):
    \"\"\"greedy's own code, from a file: a plugin.\"\"\"
"""


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("luck", ["on", "win"])
def test_a_plugin_copy_of_a_built_in_stores_the_same_columns_and_values(
    tmp_path, monkeypatch, luck, engine
):
    """What a run stores is a function of its settings (luck, players, rules), never of
    which seats are plugins: the same games with a plugin copy of greedy and with greedy
    store the same account columns, the same values, on either engine."""
    from harness import native

    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    (tmp_path / "copy.py").write_text(COPY)
    monkeypatch.chdir(tmp_path)
    runs = {}
    for name, me in [("copy", "copy.py:Copy"), ("greedy", "greedy")]:
        entrants = [{"strategy": me, "name": "me"}, "tactician", "optimal"]
        config = _config(entrants, players=3, deals=2, engine=engine, luck=luck, rules="french")
        run = run_tournament(config, out=tmp_path / name, workers=0, progress=False)
        runs[name] = _games(run.run_dir).reset_index(drop=True)
    keys = ["deal", "seating"]
    a, b = runs["copy"], runs["greedy"]
    assert list(a.columns) == list(b.columns)
    cols = [c for c in a.columns if c.startswith(("seat", "turns")) and "strategy" not in c]
    cols = [c for c in cols if "time" not in c]
    assert len(a) == 2 * 6 and any(c.endswith("_winluck") for c in cols)
    kept = a[[c for c in cols if c.endswith("_winluck")]].notna().to_numpy()
    assert kept.all() if luck == "win" else not kept.any()
    assert a[[c for c in cols if c.endswith("_luck")]].notna().to_numpy().all()
    pd.testing.assert_frame_equal(a[keys + cols], b[keys + cols])


def test_a_table_without_the_win_account_stores_null_win_luck(tmp_path):
    run = run_tournament(_config(["greedy", "optimal"], luck="on"), out=tmp_path, workers=0)
    games = _games(run.run_dir)
    assert games["seat0_luck"].notna().all() and games["seat0_winluck"].isna().all()
