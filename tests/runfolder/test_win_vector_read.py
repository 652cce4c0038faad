"""The win luck's vector in run folders (schema 6): ``seat{i}_winvec`` is read as the
control of luck-adjusted win shares by every reader (the report's standings, the
comparison's twins, the adaptive schedule, the SPRT's and the tuner's chunk scores),
schema 5 folders (no vector) still read and use winluck, and a forged vector is refused
on read where an identity can catch it: kept exactly where winluck is, finite, 0 without
a roll, within 1 a roll of the game, 0 summed over the seats, winluck_0 - winluck_1 at 2
players.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness import stats
from harness.runfolder.identities import account_problem, identity_columns
from harness.runfolder.reader import DamagedRun, open_run
from harness.runfolder.schema import ACCOUNT_TYPES, seat_column
from harness.tourney import load_config, plan, run_tournament
from harness.tourney.chunk_result import win_control_of
from harness.tourney.chunks import play_chunk
from harness.tourney.storage import digest_of

pytestmark = pytest.mark.engine

THREE = ["greedy", "simple", "tactician"]
Table = pa.Table
Edit = Callable[[Table], Table]


def _config(entrants: list, players: int, deals: int) -> dict:
    return {
        "name": "winvec",
        "players": players,
        "entrants": entrants,
        "deals": deals,
        "seed": 11,
        "luck": "win",
        "engine": "python",
    }


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """A finished 3-player run with the win account (read-only: tests copy it)."""
    config = load_config(_config(THREE, 3, 8))
    return run_tournament(config, out=tmp_path_factory.mktemp("three"), workers=0)


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    config = load_config(_config(["greedy", "simple"], 2, 3))
    return run_tournament(config, out=tmp_path_factory.mktemp("two"), workers=0)


def _copy(run, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(run.run_dir.parent.parent, out)
    return out / run.run_dir.parent.name / run.run_dir.name


def _parts(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "games").glob("*.parquet"))


def _games(run_dir: Path) -> pd.DataFrame:
    games = pd.read_parquet(run_dir / "games").sort_values(["table", "deal", "seating"])
    return games[games["status"].astype(str) != "turn-cap"].reset_index(drop=True)


def _seats(games: pd.DataFrame, field: str, players: int) -> np.ndarray:
    cols = [seat_column(i, field) for i in range(players)]
    if not set(cols) <= set(games.columns):
        return np.full((len(games), players), np.nan)
    return games[cols].to_numpy(np.float64)


def _reseal(run_dir: Path, edit: Edit, schema: int | None = None) -> None:
    """Rewrite every part through ``edit`` and seal it again (new bytes and sha256 in the
    manifest: a folder that verifies); ``schema``: run.json's schema too."""
    if schema is not None:
        config = json.loads((run_dir / "run.json").read_text())
        (run_dir / "run.json").write_text(json.dumps({**config, "schema": schema}))
    lines = []
    for line in (run_dir / "manifest.jsonl").read_text().splitlines():
        entry = json.loads(line)
        path = run_dir / "games" / entry["file"]
        sink = pa.BufferOutputStream()
        pq.write_table(edit(pq.read_table(path)), sink)
        data = sink.getvalue().to_pybytes()
        path.write_bytes(data)
        lines.append(json.dumps({**entry, "bytes": len(data), "sha256": digest_of(data)}))
    (run_dir / "manifest.jsonl").write_text("\n".join(lines) + "\n")


def _without_vector(table: Table) -> Table:
    """A part as schema 5 wrote it: no winvec columns."""
    return table.select([c for c in table.column_names if not c.endswith("_winvec")])


def _expected_adjusted(games: pd.DataFrame, players: int, control: str) -> dict[str, float]:
    """Each strategy's luck-adjusted win share, computed here from the stored games with
    the control of ``control`` alone (what the report must give)."""
    names = sorted({n for i in range(players) for n in games[seat_column(i, "strategy")]})
    strat = np.stack(
        [games[seat_column(i, "strategy")].map(names.index).to_numpy() for i in range(players)], 1
    )
    ranks = _seats(games, "rank", players)
    nothing = np.full(ranks.shape, np.nan)
    given = {f: nothing for f in ("wluck", "winluck", "winvec")}
    given[control] = _seats(games, control, players)
    c = stats.versus_others(stats.win_control(given["wluck"], given["winluck"], given["winvec"]))
    deal = games["deal"].to_numpy(np.int64)
    rows = stats.seat_rows(deal, strat, stats.win_points(ranks), c, len(names))
    return {n: stats.ControlMoments(rows[k]).adjusted().estimate for k, n in enumerate(names)}


def _reported_adjusted(run_dir: Path) -> dict[str, float]:
    from harness import load_run

    (run_dir / "report.json").unlink(missing_ok=True)
    standings = load_run(run_dir).standings
    return dict(zip(standings["strategy"], standings["win_adj"], strict=True))


def _close(a: dict[str, float], b: dict[str, float]) -> bool:
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-12 for k in a)


# -- the stored vector and its readers -------------------------------------------------------
def test_the_stored_vector_keeps_its_identities(three, two):
    for run, players in ((three, 3), (two, 2)):
        games = _games(run.run_dir)
        vec = _seats(games, "winvec", players)
        won = _seats(games, "winluck", players)
        rolls = _seats(games, "rolls", players).sum(axis=1)
        assert not np.isnan(vec).any() and len(games) > 0
        assert np.abs(vec.sum(axis=1)).max() <= 1e-12
        assert (np.abs(vec) <= rolls[:, None]).all()
        if players == 2:
            assert np.allclose(vec[:, 0], won[:, 0] - won[:, 1], rtol=0, atol=1e-12)
        else:  # it is not winluck, nor a difference of two seats' winluck
            assert not np.allclose(stats.versus_others(won), vec, atol=1e-3)
        for part in _parts(run.run_dir):
            assert account_problem(pq.read_table(part), players, "win") is None


def test_the_standings_adjust_the_win_share_with_the_vector(three):
    games = _games(three.run_dir)
    reported = _reported_adjusted(three.run_dir)
    assert _close(reported, _expected_adjusted(games, 3, "winvec"))
    # the control makes a difference here: winluck's would give other figures
    assert not _close(reported, _expected_adjusted(games, 3, "winluck"))


def test_run_seats_has_the_vector(three):
    from harness import load_run

    seats = load_run(three.run_dir).seats()
    stored = _seats(pd.read_parquet(three.run_dir / "games"), "winvec", 3)
    assert "winvec" in seats.columns
    assert np.allclose(np.sort(seats["winvec"].to_numpy()), np.sort(stored.ravel()))


def test_a_schema_5_folder_still_reads_and_adjusts_with_winluck(three, tmp_path):
    run_dir = _copy(three, tmp_path)
    games = _games(run_dir)
    _reseal(run_dir, _without_vector, schema=5)
    from harness import load_run

    run = load_run(run_dir)
    assert run.seats()["winvec"].isna().all() and run.seats()["winluck"].notna().all()
    assert len(_games(run_dir)) == len(games)
    reported = _reported_adjusted(run_dir)
    assert _close(reported, _expected_adjusted(games, 3, "winluck"))
    assert not _close(reported, _expected_adjusted(games, 3, "winvec"))


def test_the_comparison_s_twins_are_controlled_by_the_vector(three):
    from harness.report.comparisons.compare_twins import _Codes, appearances

    rows = appearances(open_run(three.run_dir), _Codes(), _Codes(), {}, {})
    stored = _seats(_games(three.run_dir), "winvec", 3).ravel()
    assert len(rows) == len(stored)
    # versus_others of the control is the vector itself
    assert np.allclose(np.sort(rows["c_win"].to_numpy()), np.sort(stored), rtol=0, atol=1e-12)


@pytest.mark.parametrize("schema", [6, 5])
def test_the_adaptive_schedule_reads_the_best_control_a_part_stores(three, tmp_path, schema):
    from harness.tourney.adaptive.schedule import read_games

    run_dir = _copy(three, tmp_path)
    if schema == 5:
        _reseal(run_dir, _without_vector, schema=5)
    got = read_games(_parts(run_dir), {n: i for i, n in enumerate(THREE)}, 3)
    games = pd.concat([pq.read_table(p).to_pandas() for p in _parts(run_dir)])
    games = games[games["status"].astype(str) != "turn-cap"]
    want = stats.win_control(*(_seats(games, f, 3) for f in ("wluck", "winluck", "winvec")))
    assert np.allclose(got["wluck"], want, rtol=0, atol=0)
    if schema == 5:
        assert np.allclose(got["wluck"], _seats(games, "winluck", 3), rtol=0, atol=0)
    else:
        assert np.allclose(stats.versus_others(got["wluck"]), _seats(games, "winvec", 3))


def _chunk(players: int = 3):
    config = load_config(_config(THREE[:players], players, 2))
    return play_chunk(next(iter(plan.Plan(config).specs())))


def _stacked(result, field: str) -> np.ndarray:
    return np.stack([np.asarray(s[field], dtype=float) for s in result.seats], axis=1)


def test_the_sprt_and_the_tuner_control_chunks_with_the_vector():
    """harness sprt and harness tune adjust a chunk's points by win_control_of (one
    definition: the vector, then win luck, then wluck, as the report)."""
    import harness.sprt.experiment as sprt
    import harness.tune.games as tune

    assert sprt.win_control_of is win_control_of is tune.win_control_of
    result = _chunk()
    vec = _stacked(result, "winvec")
    assert np.allclose(stats.versus_others(win_control_of(result)), vec, rtol=0, atol=1e-14)
    # a chunk without the vector (kept empty, or not at all): winluck, then wluck
    for seat in result.seats:
        seat["winvec"] = type(seat["winvec"])("d")
    assert np.array_equal(win_control_of(result), _stacked(result, "winluck"))
    for seat in result.seats:
        del seat["winvec"], seat["winluck"]
    assert np.array_equal(win_control_of(result), _stacked(result, "wluck"))
    for seat in result.seats:
        del seat["wluck"]
    assert win_control_of(result) is None


# -- forged vectors, caught on read ------------------------------------------------------------
def _table(run) -> Table:
    return pq.read_table(_parts(run.run_dir)[0])


def _floats(table: Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy(zero_copy_only=False).astype(float)


def _put(table: Table, name: str, values, mask=None) -> Table:
    array = pa.array(values, type=pa.float64(), mask=mask)
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, array)
    return table.append_column(name, array)


def _edit(changes: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]) -> Edit:
    """Each column of ``changes`` rewritten from its values and the game's total rolls."""

    def edit(table: Table) -> Table:
        players = sum(1 for c in table.column_names if c.endswith("_rolls"))
        rolls = sum(_floats(table, seat_column(i, "rolls")) for i in range(players))
        for name, change in changes.items():
            table = _put(table, name, change(_floats(table, name), rolls))
        return table

    return edit


def _at0(value: Callable[[float, float], float]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Row 0 changed by ``value(stored, total rolls)``, the others kept."""

    def change(values: np.ndarray, rolls: np.ndarray) -> np.ndarray:
        out = values.copy()
        out[0] = value(out[0], rolls[0])
        return out

    return change


def _null_at0(table: Table, name: str) -> Table:
    values = _floats(table, name)
    mask = np.zeros(len(values), dtype=bool)
    mask[0] = True
    return _put(table, name, values, mask)


V0, V1, V2 = (seat_column(i, "winvec") for i in range(3))
L0, L1, L2 = (seat_column(i, "winluck") for i in range(3))


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        # one seat's value flipped: the game no longer sums to 0
        (_edit({V1: _at0(lambda v, r: -v)}), "sum to 0"),
        # a small change, far below a roll's worth, still breaks the sum
        (_edit({V0: _at0(lambda v, r: v + 1e-6)}), "sum to 0"),
        # inf: a stored value is finite
        (_edit({V0: _at0(lambda v, r: np.inf)}), "finite"),
        # more than the game's rolls, the sum kept at 0
        (
            _edit(
                {
                    V0: _at0(lambda v, r: r + 1),
                    V1: _at0(lambda v, r: -(r + 1) / 2),
                    V2: _at0(lambda v, r: -(r + 1) / 2),
                }
            ),
            "beyond 1 a roll of the game",
        ),
        # NaN where winluck is a number (a batch without an evaluator has both NaN)
        (_edit({V0: _at0(lambda v, r: np.nan)}), "winvec is nan where winluck is"),
        # a vector where the game stored no winluck (winluck null in every seat)
        (lambda t: _null_at0(_null_at0(_null_at0(t, L0), L1), L2), "where winluck is null"),
        # winluck NaN in every seat (no evaluator) but a vector stored
        (
            _edit(
                {
                    L0: _at0(lambda v, r: np.nan),
                    L1: _at0(lambda v, r: np.nan),
                    L2: _at0(lambda v, r: np.nan),
                }
            ),
            "where winluck is nan",
        ),
        # NaN (no evaluator) where the game kept no win account at all: null is not NaN
        (
            lambda t: _edit({n: _at0(lambda v, r: np.nan) for n in (V0, V1, V2)})(
                _null_at0(_null_at0(_null_at0(t, L0), L1), L2)
            ),
            "winvec is nan where winluck is null",
        ),
        # winluck stored, the vector null in one seat of a part that has its column
        (lambda t: _null_at0(t, V1), "winvec is null where winluck is"),
        # the vector's column lost for one seat only: the game keeps it for all or none
        (lambda t: t.drop_columns([V2]), "a game keeps it for all"),
        # not numbers
        (
            lambda t: t.set_column(t.column_names.index(V0), V0, pa.array(["x"] * t.num_rows)),
            "not numbers",
        ),
    ],
)
def test_a_forged_vector_is_caught_on_read(three, edit, said):
    table = _table(three)
    assert account_problem(table, 3, "win") is None
    problem = account_problem(edit(table), 3, "win")
    assert problem is not None and "winvec" in problem and said in problem, problem
    assert "\n" not in problem and problem.count("docs/luck.md") == 1


def test_at_two_players_the_vector_is_the_difference_of_win_luck(two):
    table = _table(two)
    d = 0.01  # both seats moved: the sum stays 0, the difference does not
    edit = _edit({V0: _at0(lambda v, r: v + d), V1: _at0(lambda v, r: v - d)})
    problem = account_problem(edit(table), 2, "win")
    assert problem is not None and "winluck of seat 0 - seat 1" in problem, problem
    assert "row 0" in problem and "seat 0" in problem


def _null_win_account(table: Table) -> Table:
    """Row 0 as a game without the win account: winluck and winvec null in every seat."""
    for name in (L0, L1, L2, V0, V1, V2):
        table = _null_at0(table, name)
    return table


@pytest.mark.parametrize(
    "edit",
    [
        # rounding a writer may leave: well inside the slack
        _edit({V0: _at0(lambda v, r: v + 1e-13)}),
        # no win account in a game of a part that has the columns: both null
        _null_win_account,
        # both NaN in every seat (a native batch without an evaluator)
        _edit({n: _at0(lambda v, r: np.nan) for n in (L0, L1, L2, V0, V1, V2)}),
        # a schema 5 part: no vector columns at all, winluck stored
        _without_vector,
    ],
)
def test_what_a_writer_stores_is_never_refused(three, edit):
    assert account_problem(edit(_table(three)), 3, "win") is None


def test_a_vector_in_a_game_without_a_roll_is_exactly_0():
    """A game in which no seat rolled (built here: play never makes one) keeps every sum
    at exactly 0, the vector's too."""
    players = 2
    fields = {}
    for i in range(players):
        for f, kind in ACCOUNT_TYPES.items():
            fields[seat_column(i, f)] = pa.array([0], type=getattr(pa, kind)())
        for f in ("worms", "steals", "stolen"):
            fields[seat_column(i, f)] = pa.array([0], type=pa.int16())
        fields[seat_column(i, "winluck")] = pa.array([0.0])
        fields[seat_column(i, "winvec")] = pa.array([0.0])
    table = pa.table({"deal": [0], "seating": [0], **fields})
    assert set(identity_columns(players)) <= set(table.column_names)
    assert account_problem(table, players, "win") is None
    table = _put(table, V0, [1e-12])
    table = _put(table, V1, [-1e-12])
    problem = account_problem(table, players, "win")
    assert problem is not None and "without a roll" in problem and "winvec" in problem, problem


@pytest.mark.parametrize("field", ["winvec", "winluck"])
def test_a_win_column_in_a_game_without_the_account_is_refused(three, field):
    """A game that keeps no account (its worm account null, as under luck: off) but a
    win column: the column would be read as the win shares' control unchecked."""
    table = _table(three)
    for i in range(3):
        for name in ACCOUNT_TYPES:
            table = _null_at0(table, seat_column(i, name))
    table = _null_win_account(table)
    assert account_problem(table, 3, None, chunk=False) is None  # both gone: a game without
    forged = _put(table, seat_column(1, field), [0.5] + [0.0] * (table.num_rows - 1))
    problem = account_problem(forged, 3, None, chunk=False)
    assert problem is not None and f"{field} is stored where the game keeps no" in problem
    assert "row 0" in problem and "seat 1" in problem


def test_a_forged_vector_in_a_sealed_folder_is_refused_by_the_reader(three, tmp_path):
    run_dir = _copy(three, tmp_path)
    _reseal(run_dir, _edit({V1: _at0(lambda v, r: -v)}))
    with pytest.raises(DamagedRun) as caught:
        open_run(run_dir)
    text = str(caught.value)
    assert "winvec" in text and "sum to 0" in text and "--repair" in text
