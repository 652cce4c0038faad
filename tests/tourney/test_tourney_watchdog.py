"""Time limits, the watchdog and workers that die with their parent (issue 9, items 5, 9).

The hostile plugins (tests/fixtures/hostile/workers_hang.py) never return from pick in
the games they play from seat 1: one loops in Python (SIGALRM stops it), one blocks
SIGALRM and sleeps in C (only the parent's watchdog can stop it, by killing the worker).
Both are loaded through the same file path, so that their tables and dice are the same.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import HANG_GUARD

from harness.tourney import load_config, plan, run_tournament
from harness.tourney.repro import reproduce_command

# not `engine`: what these add (processes, signals, disks) is not the engine's; a chunk
# picks its engine as in test_tourney_run.py, which pass 2 runs
pytestmark = pytest.mark.interpreter

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
HANG = HOSTILE / "workers_hang.py"
LINUX = Path("/proc/self/task").exists()


def games_of(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def hanging(tmp: Path, cls: str, **extra) -> dict:
    """greedy against ``cls`` of workers_hang, always as ``tmp/h.py:H``."""
    path = tmp / "h.py"
    path.write_text(HANG.read_text() + f"\nH = {cls}\n")
    entrant = {"strategy": f"{path}:H", "name": "h"}
    return {"name": "h", "entrants": ["greedy", entrant], "deals": 2, "chunk": 2, **extra}


# -- item 5: time limits -------------------------------------------------------------------------
def test_a_python_loop_and_a_c_loop_both_end_as_time_forfeits_of_their_seat(tmp_path):
    python = run_tournament(
        hanging(tmp_path, "PythonLoop"), out=tmp_path / "py", workers=1, move_time=0.2
    )
    started = time.monotonic()
    c = run_tournament(hanging(tmp_path, "CLoop"), out=tmp_path / "c", workers=1, move_time=0.2)
    # A hang guard: how soon the watchdog stops it is measured by benchmarks/watchdog.py.
    assert time.monotonic() - started < HANG_GUARD, "the watchdog stopped no C loop"
    for run in (python, c):
        assert run.status == "complete" and run.stored == 4 and run.forfeits == 2
    a, b = games_of(python.run_dir), games_of(c.run_dir)
    cols = [col for col in a.columns if col != "error"]
    pd.testing.assert_frame_equal(a[cols], b[cols])  # the same rows, stopped either way
    lost = b[b["status"] == "forfeit"]
    assert set(lost["error_seat"]) == {1} and set(lost["error_kind"]) == {"time"}
    assert all("its worker process was killed" in e for e in lost["error"])
    assert all("over move_time 0.2 s" in e for e in lost["error"])
    assert all("over move_time 0.2 s" in e for e in a.loc[a["status"] == "forfeit", "error"])
    log = (c.run_dir / "run.log").read_text()
    assert log.count("stored as its forfeit, going on from the next game") == 2


def test_limits_are_in_the_keys_and_in_the_reproduce_command(tmp_path):
    config = load_config(hanging(tmp_path, "PythonLoop"))
    timed = config.override(move_time=0.5, game_time=5.0)
    isolated = config.override(isolation="process")
    keys = {plan.run_key(c) for c in (config, timed, isolated)}
    assert len(keys) == 3, "runs with other limits never resume each other"
    chunk_keys = {next(plan.chunks(c)).key for c in (config, timed, isolated)}
    assert len(chunk_keys) == 3, "nor reuse each other's chunks"
    spec = next(plan.chunks(timed))
    assert (spec.move_time, spec.game_time, spec.isolation) == (0.5, 5.0, "none")
    table = plan.tables(timed)[0]
    example = {"deal": 0, "seating": 1, "game_seed": 7}
    command = reproduce_command(timed, table, example)
    assert "--move-time 0.5 --game-time 5" in command
    assert "--isolation process" in reproduce_command(isolated, table, example)


def test_bad_limits_on_the_command_line_are_one_line_exit_2(tmp_path, cli):
    config = tmp_path / "c.yaml"
    config.write_text("entrants: [greedy, random]\ndeals: 2\n")
    for args in (["--move-time", "0"], ["--game-time", "-1"], ["--move-time", "nan"]):
        result = cli("tourney", str(config), "--out", str(tmp_path / "o"), *args)
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not (tmp_path / "o").exists()


def test_no_limits_a_game_without_progress_gets_one_warning(tmp_path, monkeypatch):
    from harness.tourney.backends import process as backend

    monkeypatch.setattr(backend, "STUCK_AFTER", 1.0)
    config = {**hanging(tmp_path, "Dawdles"), "deals": 1, "chunk": 1}
    run = run_tournament(config, out=tmp_path, workers=1)  # 2.5 s in one game, no limit
    assert run.status == "complete" and run.forfeits == 0
    log = (run.run_dir / "run.log").read_text()
    table = plan.tables(load_config(config))[0].id
    # entrants by display name (greedy, h): h sits in seat 1 of seat order 0
    assert log.count(f"table {table} (greedy v h) deal 0 seating 0: no game finished for") == 1
    assert "set move_time (--move-time SECONDS)" in log


# -- sprt has the same flags ---------------------------------------------------------------------
def test_sprt_takes_the_limits_and_strict(tmp_path, cli):
    twin = HOSTILE / "workers_misbehave.py"
    result = cli(
        "sprt",
        "greedy",
        f"{twin}:Twin",
        "--max-games",
        "200",
        "--workers",
        "1",
        "--move-time",
        "5",
        "--json",
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["move_time"] == 5.0 and summary["isolation"] == "none"
    assert summary["forfeits"]["B"] > 0
    strict = cli("sprt", "greedy", f"{twin}:Twin", "--max-games", "200", "--workers", "0")
    assert strict.exit_code == 0
    strict = cli(
        "sprt", "greedy", f"{twin}:Twin", "--max-games", "200", "--workers", "0", "--strict"
    )
    assert strict.exit_code == 3
    bad = cli("sprt", "greedy", "random", "--move-time", "0")
    assert bad.exit_code == 2 and "--move-time" in bad.output


# -- item 9: workers die with their parent ------------------------------------------------------
def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            for kid in kids:
                if kid not in found:
                    found.add(kid)
                    todo.append(kid)
    return found


def workers_among(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if comm.startswith("harness-worker") and state != "Z":
            alive.add(pid)
    return alive


@pytest.mark.skipif(not LINUX, reason="needs Linux /proc")
@pytest.mark.once
def test_kill_9_of_the_parent_ends_its_workers_and_the_run_resumes(tmp_path):
    napper = {"strategy": f"{HANG}:Napper", "name": "napper"}
    config = tmp_path / "nap.yaml"
    config.write_text(
        json.dumps({"name": "nap", "entrants": ["greedy", "random", napper], "deals": 60})
    )
    config.write_text(config.read_text()[:-1] + ', "chunk": 2}')
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "tourney", str(config), "--out", str(out)]
        + ["--workers", "2", "--no-report"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        workers: set[int] = set()
        while time.monotonic() < deadline:
            manifests = list(out.glob("nap/*/manifest.jsonl"))
            workers = workers_among(descendants(proc.pid))
            if manifests and len(manifests[0].read_text().splitlines()) >= 4 and workers:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.05)
        assert len(workers) == 2, workers
        os.kill(proc.pid, signal.SIGKILL)  # the parent alone, as the OOM killer does
        proc.wait(timeout=10)
        gone_by = time.monotonic() + 5
        while workers_among(workers) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert not workers_among(workers), "workers outlived their parent"
    finally:
        if proc.poll() is None:
            proc.kill()
    saved = len(next(out.glob("nap/*/manifest.jsonl")).read_text().splitlines())
    resumed = run_tournament(config, out=out, workers=2)  # the lock is free again
    assert resumed.status == "complete" and resumed.resumed >= saved * 4 > 0


class _InsideWatch:
    """Records what a worker's watch would hold: whether a seat is deciding now."""

    def __init__(self) -> None:
        self.inside = False
        self.traced = 0

    def game(self, row: int) -> None:
        self.inside = False

    def trace(self, seat: int, turn: int, method: int) -> None:
        self.inside = True
        self.traced += 1

    def enter(self, seat: int, turn: int, deadline: float | None) -> None:
        self.inside = True

    def leave(self) -> None:
        self.inside = False


def test_a_traced_seat_is_inside_only_while_it_decides():
    """A worker that dies after a decision returned (between games, while sending rows)
    must not be blamed on the seat that decided last: the trace ends with each call."""
    from harness.tourney.chunks import play_chunk

    config = load_config({"name": "t", "entrants": ["greedy", "random"], "deals": 2})
    spec = next(plan.chunks(config))
    watch = _InsideWatch()
    traced = play_chunk(spec, watch=watch, trace_from=0)
    assert watch.traced > 0 and not watch.inside
    plain = play_chunk(spec)
    assert traced.games == plain.games and traced.seats == plain.seats  # the same games
