"""harness.load_run / run_tournament's Run: verified games, the long seat table, the
report's standings and head to head as tables, figures that write nothing, and strategy
classes and instances as entrants."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import harness
from harness.errors import ConfigError, HarnessError
from harness.results import SEAT_COLUMNS, STANDINGS_COLUMNS, ResultsError, Run, seat_table
from harness.runfolder.schema import SCHEMA_VERSION, columns
from harness.strategy import Strategy
from harness.tourney import run_tournament
from harness.tourney.runner import TourneyRun

pytestmark = pytest.mark.engine

BOT = """
from harness.strategy import Strategy


class Careful(Strategy):
    name = "careful"

    def __init__(self, target: int = 25):
        self.target = target

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= self.target


class Rash(Careful):
    name = "rash"

    def stop(self, view):
        return True
"""


def config(bot: Path, **more) -> dict:
    return {
        "name": "res",
        # No built-in: these tests are about reading results, not about which strategies ship.
        "entrants": [
            f"{bot}:Rash",
            {"strategy": f"{bot}:Rash", "name": "other"},
            f"{bot}:Careful",
        ],
        "deals": 30,
        "chunk": 10,
        "seed": 5,
        "workers": 0,
        "engine": "python",
        **more,
    }


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> tuple[Run, Path]:
    root = tmp_path_factory.mktemp("results")
    bot = root / "bot.py"
    bot.write_text(BOT, encoding="utf-8")
    run = run_tournament(config(bot), out=root / "out")
    assert run.status == "complete"
    return run, bot


@pytest.fixture
def run(made) -> Run:
    return made[0]


# -- one type ------------------------------------------------------------------------------
def test_run_tournament_and_load_run_give_the_same_type(run):
    assert TourneyRun is Run and isinstance(run, Run)
    loaded = harness.load_run(run.run_dir)
    assert type(loaded) is Run and loaded.path == run.path == run.run_dir
    # A config's folder opens its newest run.
    assert harness.load_run(run.run_dir.parent).path == run.run_dir


def test_what_the_call_did_is_kept_and_read_back(run):
    assert run.stored == run.planned == 3 * 30 * 2 and run.played == run.stored
    summary = run.summary()
    json.dumps(summary)  # still JSON, standings included
    loaded = harness.load_run(run.run_dir)
    back, want = loaded.summary(), json.loads(json.dumps(summary))
    # games/s is recomputed from the wall time run.json keeps to the millisecond
    assert back.pop("games_per_second") == pytest.approx(want.pop("games_per_second"), rel=0.01)
    assert back == want
    on_disk = json.loads((run.run_dir / "run.json").read_text())["summary"]["standings"]
    assert loaded.counts == run.counts == on_disk  # the runner's rows, as a list


def test_config_and_info(run):
    assert run.config["name"] == "res" and run.config["schema"] == SCHEMA_VERSION == 6
    assert len(run.info.parts) == 3 * 3  # tables x chunks, all verified


def test_a_missing_folder_is_one_line(tmp_path):
    with pytest.raises(HarnessError, match="no such folder"):
        harness.load_run(tmp_path / "nothing")


# -- games ---------------------------------------------------------------------------------
def test_games_are_the_stored_games(run):
    games = run.games
    assert list(games.columns) == columns(2) and len(games) == run.stored
    raw = pd.read_parquet(run.run_dir / "games").sort_values(["table", "deal", "seating"])
    pd.testing.assert_frame_equal(
        games.reset_index(drop=True), raw.reset_index(drop=True), check_dtype=False
    )
    assert run.games is games  # read once, kept
    assert type(games) is pd.DataFrame and not callable(games)  # a plain frame, one meaning


def test_games_are_verified_parts_only(made, tmp_path):
    run, bot = made
    out = tmp_path / "out"
    copy = run_tournament(config(bot), out=out)
    part = sorted((copy.run_dir / "games").glob("*.parquet"))[0]
    stray = part.with_name("zzzzzzzzzzzz-000000999.parquet")  # not in the manifest
    stray.write_bytes(part.read_bytes())
    assert len(harness.load_run(copy.run_dir).games) == copy.stored  # left out
    raw = part.read_bytes()
    part.write_bytes(raw[:-20] + bytes(20))  # damaged: the folder is not read at all
    with pytest.raises(HarnessError, match="--repair") as caught:
        harness.load_run(copy.run_dir)
    assert "\n" not in str(caught.value)


# -- the long table ------------------------------------------------------------------------
def test_seats_one_row_per_game_and_seat(run):
    seats = run.seats()
    games = run.games
    assert tuple(seats.columns) == SEAT_COLUMNS and len(seats) == 2 * len(games)
    first = games.iloc[0]
    for seat in range(2):
        row = seats.iloc[seat]
        assert row["seat"] == seat and row["strategy"] == first[f"seat{seat}_strategy"]
        assert row["opponents"] == (first[f"seat{1 - seat}_strategy"],)
        for f in ("worms", "rank", "busts", "steals", "stolen"):
            assert row[f] == first[f"seat{seat}_{f}"]
    seats.loc[0, "worms"] = 99  # a copy: the run's table is not changed through it
    assert run.seats().loc[0, "worms"] != 99


def test_seat_win_shares_are_the_reports(run):
    mean = run.seats().groupby("strategy")["win_share"].mean()
    for row in run.report["standings"]:
        assert mean[row["strategy"]] == pytest.approx(row["win_share"], abs=1e-12)


def test_shared_wins_are_split_and_capped_games_score_nothing():
    games = pd.DataFrame(
        {
            "table": ["t", "t", "t"],
            "deal": [0, 1, 2],
            "seating": [0, 0, 0],
            "status": ["over", "over", "turn-cap"],
            **{f"seat{i}_strategy": ["a", "b", "c"] for i in range(3)},
            "seat0_rank": [1, 1, 1],
            "seat1_rank": [1, 2, 1],
            "seat2_rank": [1, 3, 3],
            **{f"seat{i}_{f}": [0, 0, 0] for i in range(3) for f in ("worms", "busts")},
            **{f"seat{i}_{f}": [0, 0, 0] for i in range(3) for f in ("steals", "stolen")},
        }
    )
    games["seat1_strategy"] = ["x", "y", "z"]
    seats = seat_table(games, 3)
    shares = seats["win_share"].to_numpy()
    assert shares[:3] == pytest.approx([1 / 3] * 3)  # three-way first place
    assert shares[3:6] == pytest.approx([1, 0, 0])
    assert np.isnan(shares[6:]).all()  # unfinished: not a result
    assert seats["opponents"].iloc[0] == ("x", "a") and seats["opponents"].iloc[1] == ("a", "a")


# -- the report's numbers ------------------------------------------------------------------
def test_standings_table_is_report_json(run):
    from harness.report import write_report

    report = write_report(run.run_dir, plots=False)
    fresh = harness.load_run(run.run_dir)
    table = fresh.standings
    assert type(table) is pd.DataFrame and fresh.standings is table  # plain, read once
    assert table.to_dict("records") == report.summary["standings"]
    assert tuple(table.columns[: len(STANDINGS_COLUMNS)]) == STANDINGS_COLUMNS
    assert len(table) == 3 and set(table["strategy"]) == {r["strategy"] for r in fresh.counts}
    assert list(table["place"]) == sorted(table["place"])  # best first
    assert (table["win_low"] <= table["win_share"]).all()
    assert (table["win_share"] <= table["win_high"]).all()
    assert fresh._repr_html_().count("<tr") == 1 + len(table)  # a notebook shows the table
    pairs = fresh.head_to_head
    assert pairs.to_dict("records") == report.summary["head_to_head"]["pairs"]
    assert list(pairs.columns[:6]) == ["a", "b", "games", "share", "low", "high"]


def test_no_scored_game_is_the_columns_and_no_rows(run):
    fresh = harness.load_run(run.run_dir)
    fresh._cache["report"] = {**run.report, "standings": []}
    assert fresh.standings.empty and tuple(fresh.standings.columns) == STANDINGS_COLUMNS


def test_counts_are_the_runners_list_and_summary_shares_it(made):
    run, bot = made
    counts = run.counts
    assert type(counts) is list and all(type(r) is dict for r in counts)
    assert [r["rank"] for r in counts] == [1, 2, 3]
    assert {"wins", "mean_worms", "forfeits", "capped"} <= set(counts[0])
    counts[:] = [dict(r, extra=1) for r in counts]  # harness tourney adds the report's figures
    assert run.summary()["standings"] is counts and counts[0]["extra"] == 1
    counts[:] = [{k: v for k, v in r.items() if k != "extra"} for r in counts]  # module fixture


# -- charts --------------------------------------------------------------------------------
def test_plots_are_figures_written_nowhere(run, monkeypatch):
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex
    from matplotlib.figure import Figure

    from harness.report.charts.colours import colours_for

    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("plt.show called"))
    before = sorted(p.relative_to(run.run_dir) for p in run.run_dir.rglob("*"))
    figures = [run.plot_standings(), run.plot_head_to_head(), run.plot_worms()]
    assert all(isinstance(f, Figure) for f in figures)
    assert sorted(p.relative_to(run.run_dir) for p in run.run_dir.rglob("*")) == before
    assert plt.get_fignums() == []  # not pyplot's: a notebook shows each once
    ax = figures[0].axes[0]
    at = {round(t.get_position()[1]): t.get_text() for t in ax.get_yticklabels()}
    colours = {
        at[round(bar.get_y() + bar.get_height() / 2)]: to_hex(bar.get_facecolor())
        for bar in ax.patches
    }
    assert len(colours) == 3 and colours == colours_for(colours)  # the run's set, kept apart
    figures[1].savefig(os.devnull, format="png")  # drawable after it was kept


@pytest.mark.once
def test_a_figure_is_the_reports_png(run, tmp_path):
    """The figure a notebook shows is the chart the report writes, to the byte."""
    from harness.report import write_report
    from harness.report.charts import plots

    report = write_report(run.run_dir)
    fresh = harness.load_run(run.run_dir)
    for name, figure in (
        ("standings", fresh.plot_standings()),
        ("head_to_head", fresh.plot_head_to_head()),
        ("worms", fresh.plot_worms()),
    ):
        drawn = plots._save(figure, tmp_path / f"{name}.png").read_bytes()
        assert drawn == report.plots[name].read_bytes(), name


BACKEND = """
import matplotlib
{choose}
import harness
from harness.report.charts import plots
run = harness.load_run({path!r})
figure = run.plot_standings()
import matplotlib.pyplot as plt
from matplotlib.figure import Figure
shown = isinstance(figure, Figure)
print(matplotlib.rcParams._get_backend_or_none(), len(plt.get_fignums()), shown)
"""


@pytest.mark.parametrize(
    "choose, backend", [("", "None"), ("matplotlib.use('svg')", "svg")], ids=["unset", "svg"]
)
@pytest.mark.once
def test_drawing_leaves_the_users_backend_alone(run, choose, backend):
    """Importing the report's charts chooses no backend; a chosen one stays (a notebook's)."""
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    source = BACKEND.format(choose=choose, path=str(run.run_dir))
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [backend, "0", "True"]


def test_a_chart_without_data_is_one_line(run):
    fresh = harness.load_run(run.run_dir)
    fresh._cache["report"] = {**run.report, "head_to_head": {"order": [], "pairs": []}}
    with pytest.raises(ResultsError, match="no head to head chart") as caught:
        fresh.plot_head_to_head()
    assert "\n" not in str(caught.value)


# -- classes and instances as entrants -----------------------------------------------------
class Steady(Strategy):
    name = "steady"

    def __init__(self, target: int = 25, greedy: bool = False):
        self.target = target
        self.greedy = greedy

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= self.target


class Plain(Steady):
    name = "plain"


class Hidden(Steady):
    def __init__(self, target: int = 25):
        self.t = target  # the parameter is not kept under its name


def small(entrants: list, **more) -> dict:
    return {
        "name": "objs",
        "entrants": entrants,
        "deals": 4,
        "seed": 2,
        "workers": 0,
        "engine": "python",
        **more,
    }


def test_classes_and_instances_are_entrants(tmp_path):
    run = run_tournament(
        small([Steady, {"strategy": Steady(target=30), "name": "s30"}, Plain]), out=tmp_path
    )
    assert run.status == "complete"
    by_name = {e["name"]: e for e in run.config["entrants"]}
    assert by_name["s30"]["params"] == {"target": 30}  # only what differs from the default
    steady = next(
        e for e in run.config["entrants"] if e["ref"].endswith(":Steady") and e["name"] != "s30"
    )
    assert steady["params"] == {} and steady["ref"] == f"{__name__}:Steady"
    # The same class again: the same run, nothing played.
    again = run_tournament(
        small([Steady, {"strategy": Steady(target=30), "name": "s30"}, Plain]), out=tmp_path
    )
    assert again.played == 0 and again.run_dir == run.run_dir


def test_a_builtin_class_is_the_builtin(tmp_path):
    from harness.plugins import builtin_strategies

    random_cls = builtin_strategies()["random"]
    run = run_tournament(small([random_cls, {"strategy": "random", "name": "r"}]), out=tmp_path)
    assert {e["ref"] for e in run.config["entrants"]} == {"random"}


@pytest.mark.parametrize(
    "entrant, message",
    [
        (Hidden(), "parameter 'target' is not kept as self.target"),
        ({"strategy": Hidden(27)}, "workers cannot rebuild it"),
        (int, "not a subclass of harness.strategy.Strategy"),
    ],
)
def test_an_entrant_workers_cannot_rebuild_is_one_line(tmp_path, entrant, message):
    with pytest.raises(ConfigError, match=message) as caught:
        run_tournament(small([entrant, Plain]), out=tmp_path)
    assert "\n" not in str(caught.value) and not (tmp_path / "objs").exists()


def test_a_changed_instance_is_refused(tmp_path):
    moved = Steady()
    moved.seen = 3  # state the constructor does not make
    with pytest.raises(ConfigError, match="attribute 'seen' differs"):
        run_tournament(small([moved, Plain]), out=tmp_path)


def test_a_class_inside_a_function_is_refused(tmp_path):
    def make():
        class Local(Steady):
            pass

        return Local

    with pytest.raises(ConfigError, match="inside a function or class"):
        run_tournament(small([make(), Plain]), out=tmp_path)


NOTEBOOK = """
import json
from harness.strategy import Strategy
from harness.tourney import run_tournament

class Mine(Strategy):
    name = "mine"
    def __init__(self, target: int = 25):
        self.target = target
    def pick(self, view):
        return max(view.choices)
    def stop(self, view):
        return view.total >= self.target

notes = []
run = run_tournament(
    {"name": "nb", "entrants": [Mine, {"strategy": Mine(27), "name": "m27"}],
     "deals": 4, "seed": 3, "workers": 2, "engine": "python"},
    out=OUT, echo=notes.append,
)
print(json.dumps([run.status, run.workers, run.played, [n for n in notes if "__main__" in n]]))
"""


@pytest.mark.once
def test_a_notebook_class_is_played_in_this_process(tmp_path):
    source = NOTEBOOK.replace("OUT", repr(str(tmp_path)))
    done = subprocess.run(
        [sys.executable, "-"], input=source, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    status, workers, played, notes = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == "complete" and workers == 0 and played == 1 * 4 * 2
    assert len(notes) == 1 and "workers: 0" in notes[0]
