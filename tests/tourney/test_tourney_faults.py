"""Faults: a run killed (SIGKILL, Ctrl-C) and resumed, workers that die, a full disk,
an unwritable or incompatible results folder. Nothing is lost or read half-written.

The subprocess tests use a strategy that sleeps a little per game (no CPU burnt), so a
run lasts long enough to be killed in the middle on a busy machine.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import as_at_a_terminal

from harness.tourney import run_tournament
from harness.tourney.storage import StorageError

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

ROOT = Path(__file__).resolve().parents[2]

SLOW = '''
import time

from harness.strategy import Strategy


class Slow(Strategy):
    """Greedy, after a short nap per game (sleeps, no CPU)."""

    name = "slow"

    def new_game(self, seat, rules):
        time.sleep(0.004)

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= 26
'''

CRASHY = '''
import os

from harness.strategy import Strategy


class Crashy(Strategy):
    """Kills its worker process outright (os._exit): always, or once (a marker file)."""

    name = "crashy"

    def __init__(self, marker: str = ""):
        self.marker = marker

    def new_game(self, seat, rules):
        if not self.marker:
            os._exit(3)
        if not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(3)

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= 26
'''


def games_of(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def only_run(out: Path, name: str) -> Path:
    runs = [p for p in (out / name).iterdir() if p.is_dir()]
    assert len(runs) == 1
    return runs[0]


@pytest.fixture
def slow_config(tmp_path: Path) -> Path:
    (tmp_path / "slow.py").write_text(SLOW)
    path = tmp_path / "slow.yaml"
    path.write_text("name: slow\nentrants: [greedy, random, slow.py:Slow]\ndeals: 60\nchunk: 2\n")
    return path


def start(config: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "tourney",
            str(config),
            "--out",
            str(out),
            "--workers",
            "2",
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the kill reaches its workers too
        preexec_fn=as_at_a_terminal,
    )


def wait_for_chunks(out: Path, name: str, count: int, proc: subprocess.Popen) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        manifests = list((out / name).glob("*/manifest.jsonl")) if (out / name).exists() else []
        if manifests:
            done = len(manifests[0].read_text().splitlines())
            if done >= count:
                return done
        time.sleep(0.02)
    raise AssertionError("no progress within a minute")


@pytest.mark.once
def test_sigkill_mid_run_then_resume_gives_identical_results(tmp_path, slow_config):
    reference = run_tournament(slow_config, out=tmp_path / "ref", workers=2)
    assert reference.status == "complete"

    out = tmp_path / "out"
    proc = start(slow_config, out)
    wait_for_chunks(out, "slow", 8, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, no goodbye
    proc.wait(timeout=30)
    proc.stdout.close()
    proc.stderr.close()
    run_dir = only_run(out, "slow")
    saved = len((run_dir / "manifest.jsonl").read_text().splitlines())
    assert 8 <= saved < 90, "killed mid-run"
    assert json.loads((run_dir / "run.json").read_text())["status"] == "running"

    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.cli",
            "tourney",
            str(slow_config),
            "--out",
            str(out),
            "--workers",
            "2",
            "--json",
            "--no-report",  # the stored games are compared, not a report of them
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["run_dir"] == str(run_dir)
    assert summary["resumed"] >= saved * 4 and summary["played"] == 360 - summary["resumed"]
    pd.testing.assert_frame_equal(games_of(run_dir), games_of(reference.run_dir))
    assert not (run_dir / ".tmp").exists()  # issue 11: a finished folder keeps no .tmp/
    assert (run_dir / "summary.csv").read_text() == (reference.run_dir / "summary.csv").read_text()


@pytest.mark.once
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path, slow_config):
    out = tmp_path / "out"
    proc = start(slow_config, out)
    wait_for_chunks(out, "slow", 4, proc)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Interrupted:" in err and "Run the same command again to resume" in err
    assert "Traceback" not in err
    run_dir = only_run(out, "slow")
    assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
    resumed = run_tournament(slow_config, out=out, workers=2)
    assert resumed.run_dir == run_dir and resumed.status == "complete" and resumed.resumed > 0
    assert len(games_of(run_dir)) == 360


def children_of(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
@pytest.mark.once
def test_a_worker_killed_from_outside_costs_its_chunk_only(tmp_path, slow_config):
    reference = run_tournament(slow_config, out=tmp_path / "ref", workers=0)
    out = tmp_path / "out"
    proc = start(slow_config, out)
    wait_for_chunks(out, "slow", 6, proc)
    from test_tourney_watchdog import descendants, workers_among

    workers = sorted(workers_among(descendants(proc.pid)))
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)  # as an OOM killer would
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    run_dir = only_run(out, "slow")
    pd.testing.assert_frame_equal(games_of(run_dir), games_of(reference.run_dir))
    log = (run_dir / "run.log").read_text()
    assert "killed by SIGKILL" in log and "giving up" not in log


def test_a_kill_between_rename_and_manifest_leaves_no_unlisted_rows(tmp_path):
    config = {"name": "k", "entrants": ["greedy", "random"], "deals": 10, "chunk": 5}
    run = run_tournament(config, out=tmp_path, workers=0)
    manifest = run.run_dir / "manifest.jsonl"
    lines = manifest.read_text().splitlines(keepends=True)
    # the last chunk's line torn in half, as a SIGKILL mid-append leaves it
    manifest.write_text(lines[0] + lines[1][:20])
    (run.run_dir / ".tmp").mkdir(exist_ok=True)  # removed when the run ended (issue 11)
    (run.run_dir / ".tmp" / "half-written.parquet.123").write_bytes(b"PAR1 garbage")
    again = run_tournament(config, out=tmp_path, workers=0)
    assert again.run_dir == run.run_dir and again.played == 10 and again.resumed == 10
    pd.testing.assert_frame_equal(games_of(again.run_dir), games_of(run.run_dir))
    assert len(manifest.read_text().splitlines()) == 2


def test_worker_that_dies_once_is_retried_and_the_run_completes(tmp_path):
    (tmp_path / "crashy.py").write_text(CRASHY)
    marker = tmp_path / "crashed-once"
    config = {
        "name": "once",
        "entrants": [
            "greedy",
            "random",
            {
                "strategy": str(tmp_path / "crashy.py") + ":Crashy",
                "name": "crashy",
                "params": {"marker": str(marker)},
            },
        ],
        "deals": 6,
        "chunk": 3,
    }
    run = run_tournament(config, out=tmp_path / "out", workers=2)
    assert marker.exists(), "a worker really died"
    assert run.status == "complete" and run.stored == 3 * 6 * 2
    log = (run.run_dir / "run.log").read_text()
    assert "its worker process died (exit code 3); retrying it once" in log


@pytest.mark.once
def test_worker_that_always_dies_forfeits_its_games_and_the_run_finishes(tmp_path, cli):
    (tmp_path / "crashy.py").write_text(CRASHY)
    path = tmp_path / "always.yaml"
    path.write_text("name: always\nentrants: [greedy, random, crashy.py:Crashy]\ndeals: 4\n")
    out = str(tmp_path / "out")
    result = cli("tourney", str(path), "--out", out, "--workers", "2", "--no-report")
    assert result.exit_code == 0, result.output
    run_dir = only_run(tmp_path / "out", "always")
    df = pd.read_parquet(run_dir / "games")
    crashy = df[(df["seat0_strategy"] == "crashy") | (df["seat1_strategy"] == "crashy")]
    assert len(df) == 24 and len(crashy) == 16 and (crashy["status"] == "forfeit").all()
    assert set(crashy["error_kind"]) == {"crash"}
    assert (
        crashy["error"]
        .str.contains("its worker process died \\(exit code 3\\) in new_game\\(\\)")
        .all()
    )


# -- storage errors -------------------------------------------------------------------------
def test_disk_full_is_one_line_and_corrupts_nothing(tmp_path, monkeypatch, cli):
    config = tmp_path / "full.yaml"
    config.write_text("name: full\nentrants: [greedy, random, threshold]\ndeals: 4\nworkers: 0\n")
    import pyarrow.parquet as pq

    real = pq.write_table
    calls = {"n": 0}

    def write_table(table, where, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(table, where, **kwargs)

    monkeypatch.setattr(pq, "write_table", write_table)
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "the disk is full" in result.output and "Traceback" not in result.output
    # One error line; the rest are the run's notes ("Playing ...", "Note: ...": workers: 0
    # in this test process may hold other tests' plugins), wrapped at 100 columns.
    lines = result.output.strip().splitlines()
    errors = [line for line in lines if line.startswith("Error:")]
    assert len(errors) == 1 and "the disk is full" in errors[0], lines
    notes = [line for line in lines if line not in errors]
    assert all(line.startswith(("Playing ", "Note: ", "  ")) for line in notes), lines
    run_dir = only_run(tmp_path / "out", "full")
    assert len((run_dir / "manifest.jsonl").read_text().splitlines()) == 1
    assert not (run_dir / ".tmp").exists()  # issue 11: a finished folder keeps no .tmp/
    monkeypatch.setattr(pq, "write_table", real)
    again = cli("tourney", str(config), "--out", str(tmp_path / "out"), "--json", "--no-report")
    assert again.exit_code == 0 and json.loads(again.output)["resumed"] == 8


def test_unwritable_output_folder_is_one_line(tmp_path, cli):
    config = tmp_path / "c.yaml"
    config.write_text("entrants: [greedy, random]\ndeals: 2\n")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = cli("tourney", str(config), "--out", str(blocker))
    assert result.exit_code == 2 and "is a file" in result.output  # click's usage check
    result = cli("tourney", str(config), "--out", str(blocker / "deeper"))
    assert result.exit_code == 2  # bad input too (issue 24, item 7), nothing written
    assert "Error:" in result.output and str(blocker) in result.output
    assert "not a folder" in result.output or "is a file" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_read_only_output_folder_is_one_line(tmp_path, cli):  # pragma: no cover - non-root
    config = tmp_path / "c.yaml"
    config.write_text("entrants: [greedy, random]\ndeals: 2\n")
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    result = cli("tourney", str(config), "--out", str(out))
    assert result.exit_code == 1 and "permission denied" in result.output


def test_results_folder_of_another_version_is_refused(tmp_path):
    config = {"name": "v", "entrants": ["greedy", "random"], "deals": 2}
    run = run_tournament(config, out=tmp_path, workers=0)
    meta_path = run.run_dir / "run.json"
    meta = json.loads(meta_path.read_text())
    meta["run_format"] = "harness-run/0"
    meta_path.write_text(json.dumps(meta))
    before = sorted(p.name for p in (run.run_dir / "games").iterdir())
    with pytest.raises(StorageError, match="another harness version.*--fresh"):
        run_tournament(config, out=tmp_path, workers=0)
    assert sorted(p.name for p in (run.run_dir / "games").iterdir()) == before
    fresh = run_tournament(config, out=tmp_path, workers=0, fresh=True)
    assert fresh.status == "complete" and fresh.reused == 0


def test_two_runs_of_one_folder_at_once_are_refused(tmp_path):
    from harness.tourney.storage import RunFolder

    config = {"name": "lock", "entrants": ["greedy", "random"], "deals": 2}
    run = run_tournament(config, out=tmp_path, workers=0)
    holder = RunFolder(run.run_dir)
    holder.create()
    try:
        with pytest.raises(StorageError, match="another harness tourney is running"):
            run_tournament(config, out=tmp_path, workers=0)
    finally:
        holder.close()
