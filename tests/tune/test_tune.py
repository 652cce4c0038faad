"""harness tune: a one-parameter tune of threshold's target against greedy (a few
hundred native games a run): it finds the best value and confirms it on unseen deals;
the same path and summary on 0 and 2 workers and after an interrupt and a resume (and a
cut last line); bad input as one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.tune import TuneError, make_setup, run_tune
from harness.tune.run import CHART, ITERATIONS, SUMMARY, iterations_of

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

# 2 points x 1 table x 20 deals x 2 seat orders = 80 games an iteration: 10 iterations.
SMALL = dict(players=2, seed=3, budget=800, batch=20, confirm=100)


def setup():
    return make_setup("threshold", ["target=21..40"], ["greedy"], **SMALL)


def stable(summary: dict) -> dict:
    """A summary without what differs between calls (time, folder, resumed)."""
    return {k: v for k, v in summary.items() if k not in ("seconds", "folder", "resumed")}


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    return run_tune(setup(), out=tmp_path_factory.mktemp("tune"), workers=0)


def test_one_parameter_finds_the_best_and_confirms_it(tuned):
    """Against greedy, threshold is best at its lowest target (21: 51% against 27's 23%,
    benchmarks/tune_one.py's pools): the tune gets there and the confirmation, on deals
    the tuning never saw, says the gain is real."""
    s = tuned.summary()
    assert s["iterations"] == iterations_of(tuned.setup) == 10 and s["games"] == 800
    assert s["tuned"] == {"target": 21} and s["params"][0]["start"] == 27
    c = s["confirmation"]
    assert c["verdict"] == "gain confirmed" and c["low"] > 0 and c["games"] == 400
    assert c["tuned"] == {"target": 21} and c["start"] == {"target": 27}
    assert (tuned.folder / CHART).stat().st_size > 1000
    assert json.loads((tuned.folder / SUMMARY).read_text())["tuned"] == {"target": 21}


def test_two_workers_give_the_same_path(tmp_path, tuned):
    again = run_tune(setup(), out=tmp_path, workers=2, chart=False)
    assert (again.folder / ITERATIONS).read_bytes() == (tuned.folder / ITERATIONS).read_bytes()
    assert stable(again.summary()) == stable(tuned.summary())


@pytest.mark.once
def test_dask_gives_the_same_path(tmp_path, tuned):
    """On a local Dask cluster (one for the whole tune: each iteration a results() call)."""
    pytest.importorskip("distributed")
    from harness.tourney.backends.dask import DaskBackend

    told: list[str] = []
    backend = DaskBackend(workers=2, scratch=tmp_path / "scratch", echo=told.append)
    again = run_tune(setup(), out=tmp_path, backend=backend, chart=False)
    assert (again.folder / ITERATIONS).read_bytes() == (tuned.folder / ITERATIONS).read_bytes()
    assert stable(again.summary()) == stable(tuned.summary())
    assert sum(line.startswith("Dask: ") for line in told) == 1


def test_an_interrupt_and_a_resume_give_the_same_path(tmp_path, tuned):
    def stop(state):
        if state.k == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tune(setup(), out=tmp_path, on_iteration=stop, chart=False)
    stored = tmp_path / "tune" / "threshold" / setup().key / ITERATIONS
    assert len(stored.read_text().splitlines()) == 4
    with stored.open("a") as f:  # a line cut by a kill mid-write
        f.write('{"k": 4, "u": [0.1')
    again = run_tune(setup(), out=tmp_path, chart=False)
    assert again.resumed == 4
    assert stored.read_bytes() == (tuned.folder / ITERATIONS).read_bytes()
    assert stable(again.summary()) == stable(tuned.summary())


@pytest.mark.once  # the resume above plays stored iterations again on every engine
def test_an_edited_line_is_played_again(tmp_path, tuned):
    run_tune(setup(), out=tmp_path, chart=False)
    stored = tmp_path / "tune" / "threshold" / setup().key / ITERATIONS
    lines = stored.read_text().splitlines()
    edited = json.loads(lines[6])
    edited["sums"][0] += 5  # another result: its step would not be the stored one
    stored.write_text("\n".join([*lines[:6], json.dumps(edited), *lines[7:]]) + "\n")
    again = run_tune(setup(), out=tmp_path, chart=False)
    assert again.resumed == 6 and stored.read_bytes() == (tuned.folder / ITERATIONS).read_bytes()
    nonsense = json.loads(lines[2])
    nonsense["games"] = "many"  # a value of the wrong type: played again, no traceback
    stored.write_text("\n".join([*lines[:2], json.dumps(nonsense), *lines[3:]]) + "\n")
    again = run_tune(setup(), out=tmp_path, chart=False)
    assert again.resumed == 2 and stored.read_bytes() == (tuned.folder / ITERATIONS).read_bytes()


NO_BOUNDS = """
from harness.strategy import Strategy

class Loose(Strategy):
    name = "loose"

    def __init__(self, target: int = 25) -> None:
        self.target = target

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= self.target
"""


@pytest.mark.parametrize(
    "args, message",
    [
        (["greedy", "--param", "target=21..40", "--against", "greedy"], "greedy has no parameter"),
        (["threshold", "--param", "target=30..25", "--against", "greedy"], "is empty"),
        (["threshold", "--param", "target=30..30", "--against", "greedy"], "is empty"),
        (["threshold", "--param", "target=10..30", "--against", "greedy"], "10 is out of bounds"),
        (["threshold", "--param", "target", "--against", "greedy"], "expected NAME=LO..HI"),
        (["threshold", "--param", "target=21..40"], "--against: give the field"),
        (["threshold", "--against", "greedy"], "give at least one --param"),
        (["threshold", "--param", "target=21..40", "--against", "gredy"], "unknown strategy"),
        (
            ["threshold", "--param", "target=21..40", "--against", "greedy", "--budget", "0"],
            "--budget: 0",
        ),
        (
            ["threshold", "--param", "target=21..40", "--against", "greedy", "--perturb", "0"],
            "--perturb 0: give",
        ),
        (
            ["threshold", "--param", "target=21..40", "--against", "greedy", "--budget", "100"],
            "--budget: 100 games; one iteration is 200",
        ),
        (
            [
                "threshold",
                "--param",
                "target=21..40",
                "--param",
                "target=22..30",
                "--against",
                "greedy",
            ],
            "given twice",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, cli, args, message):
    result = cli("tune", *args, "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_parameter_without_bounds_is_refused(tmp_path, cli):
    plugin = tmp_path / "loose.py"
    plugin.write_text(NO_BOUNDS)
    with pytest.raises(TuneError, match="declares no bounds for 'target'"):
        make_setup(f"{plugin}:Loose", ["target=21..30"], ["greedy"])
    result = cli("tune", f"{plugin}:Loose", "--param", "target=21..30", "--against", "greedy")
    assert result.exit_code == 2 and "declares no bounds" in result.output


def test_the_command_prints_the_answer_and_json(tmp_path, cli):
    args = ["threshold", "--param", "target=21..40", "--against", "greedy", "--out", str(tmp_path)]
    args += ["--budget", "400", "--batch", "20", "--confirm", "50", "--seed", "3"]
    result = cli("tune", *args)
    assert result.exit_code == 0, result.output
    assert (
        "target: 27 -> 21" in result.output and "Confirmation on 50 unseen deals" in result.output
    )
    assert max(len(line) for line in result.output.splitlines()) <= 100
    data = json.loads(cli("tune", *args, "--json").output)
    assert data["tuned"] == {"target": 21} and data["resumed"] == 5
    assert data["confirmation"]["verdict"] == "gain confirmed"
    assert Path(data["folder"]).is_dir()


FRAGILE = """
from harness.strategy import Bound, Strategy

class Fragile(Strategy):
    name = "fragile"
    bounds = {"target": Bound(21, 40)}

    def __init__(self, target: int = 25) -> None:
        self.target = target

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        raise RuntimeError("fragile")
"""


def test_a_bot_that_forfeits_is_told_not_hidden(tmp_path, cli):
    plugin = tmp_path / "fragile.py"
    plugin.write_text(FRAGILE)
    args = [f"{plugin}:Fragile", "--param", "target=21..40", "--against", "greedy"]
    args += ["--budget", "160", "--batch", "20", "--confirm", "20", "--out", str(tmp_path)]
    result = cli("tune", *args)
    assert result.exit_code == 0, result.output
    assert "160 tuning games ended in a forfeit" in result.output
    assert "the tuning kept the starting values" in result.output


def _tune_args(out: Path) -> list[str]:
    """SMALL's tune on the command line (its iterations are the fixture's)."""
    return ["threshold", "--param", "target=21..40", "--against", "greedy", "--out", str(out),
            "--players", "2", "--seed", "3", "--budget", "800", "--batch", "20",
            "--confirm", "100", "--quiet"]  # fmt: skip


@pytest.mark.once
def test_the_command_plays_the_same_path_on_dask(tmp_path, cli, tuned):
    """--backend dask: a local Dask cluster plays the same iterations, byte for byte."""
    pytest.importorskip("distributed")
    result = cli("tune", *_tune_args(tmp_path), "--backend", "dask", "--workers", "2", "--json")
    assert result.exit_code == 0, result.output
    folder = Path(json.loads(result.output.splitlines()[-1])["folder"])
    assert (folder / ITERATIONS).read_bytes() == (tuned.folder / ITERATIONS).read_bytes()


def test_address_without_dask_is_one_line(tmp_path, cli):
    args = [*_tune_args(tmp_path), "--backend", "local", "--address", "tcp://127.0.0.1:1"]
    result = cli("tune", *args)
    assert result.exit_code == 2 and "needs --backend dask" in result.output


@pytest.mark.once
def test_a_sigkill_mid_tune_then_the_same_command_gives_the_same_path(tmp_path, tuned):
    """kill -9 of `harness tune` between (or during) iterations: nothing to flush, no
    handler runs; the same command resumes from what is stored and ends on the path an
    uninterrupted tune takes, byte for byte."""
    import os
    import signal
    import subprocess
    import sys
    import time

    command = [sys.executable, "-m", "harness", "tune", *_tune_args(tmp_path), "--workers", "1"]
    stored = tmp_path / "tune" / "threshold" / setup().key / ITERATIONS
    child = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120  # a hang guard, not a timing
        while time.monotonic() < deadline and child.poll() is None:
            if stored.exists() and len(stored.read_text().splitlines()) >= 3:
                break
            time.sleep(0.02)
        os.killpg(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
    killed_at = len(stored.read_text().splitlines())
    assert 3 <= killed_at < 10, killed_at  # killed mid-tune, not after it
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert stored.read_bytes() == (tuned.folder / ITERATIONS).read_bytes()


PLATEAU = """
from harness.strategy import WORM, Bound, Strategy

class WormBy(Strategy):
    name = "worm-by"
    bounds = {"worm_by": Bound(0, 8)}

    def __init__(self, worm_by: float = 1.0) -> None:
        self.worm_by = worm_by

    def pick(self, view):
        if not view.has_worm and WORM in view.choices and view.dice_left <= self.worm_by:
            return WORM
        return max(view.choices, key=lambda f: (view.counts[f] * min(f, 5), f))

    def stop(self, view):
        return view.total >= 21
"""


@pytest.mark.once  # the widening is the tune's arithmetic; the tests above play its games
def test_a_plateau_widens_the_perturbation_until_the_points_differ(tmp_path):
    """worm_by 0, 1 and 2 play identical games (a worm is set aside by then anyway):
    from 1, the two points of the first iteration play alike (a difference of exactly
    0, which alone would never move the tune); the perturbation doubles until they no
    longer do, and the tune leaves the plateau."""
    from harness.tune import spsa

    plugin = tmp_path / "flat.py"
    plugin.write_text(PLATEAU)
    s = make_setup(f"{plugin}:WormBy(worm_by=1)", ["worm_by=0..8"], ["greedy"], seed=1,
                   budget=2400, batch=20, confirm=0)  # fmt: skip
    result = run_tune(s, out=tmp_path, chart=False)
    lines = result.state.lines
    assert lines[0]["identical"] and lines[0]["diff"] == 0.0 and lines[0]["next"] == lines[0]["u"]
    assert lines[1]["c"] == pytest.approx(2 * s.gains.perturbation(1))
    for k, line in enumerate(lines):  # each perturbation follows from the lines before
        wide = spsa.widening([ln["identical"] for ln in lines[:k]])
        assert line["c"] == pytest.approx(s.gains.perturbation(k, wide))
    assert not all(line["identical"] for line in lines)
    assert max(u[0] for u in result.state.path) * 8 > 3  # off the plateau (0 to 3)


@pytest.mark.once
def test_a_widened_tune_resumes_and_runs_on_two_workers_alike(tmp_path):
    """The widening follows from the stored lines alone: a plateau tune interrupted while
    its perturbation is widened, then resumed on 2 workers, writes the same lines, byte
    for byte, as one played straight through in this process."""
    plugin = tmp_path / "flat.py"
    plugin.write_text(PLATEAU)
    s = make_setup(f"{plugin}:WormBy(worm_by=1)", ["worm_by=0..8"], ["greedy"], seed=1,
                   budget=960, batch=20, confirm=0)  # fmt: skip
    straight = run_tune(s, out=tmp_path / "a", chart=False)
    assert straight.state.lines[1]["c"] > s.gains.perturbation(1)  # widened at k = 1

    def stop(state):
        if state.k == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tune(s, out=tmp_path / "b", on_iteration=stop, chart=False)
    again = run_tune(s, out=tmp_path / "b", workers=2, chart=False)
    assert again.resumed == 2
    stored = (again.folder / ITERATIONS).read_bytes()
    assert stored == (straight.folder / ITERATIONS).read_bytes()
