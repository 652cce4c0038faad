"""A killed fork server and every stop signal (issue 24, item 4).

Killing the fork server that forks workers ended a run with "Error: cannot finish:
[Errno 111] Connection refused" (or click's "Aborted!"), exit 1, run.json left
"running". Now a new fork server is started and the run goes on (the stored games are
good); if none can start, the run ends with one line saying what died and that the same
command resumes, run.json "interrupted". And SIGTERM and SIGHUP stop every command as
Ctrl-C does, wherever they land: exit 130.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from multiprocessing import forkserver
from pathlib import Path

import pandas as pd
import pytest
from helpers import as_at_a_terminal

from harness.tourney import run_tournament

pytestmark = [pytest.mark.interpreter, pytest.mark.usefixtures("deadline")]
ROOT = Path(__file__).resolve().parents[2]
CONFIG = {"name": "fs", "entrants": ["greedy", "random", "simple"], "deals": 8, "chunk": 2}
CONFIG_PY = {**CONFIG, "engine": "python"}


def games(run_dir: Path) -> pd.DataFrame:
    frame = pd.read_parquet(run_dir / "games")
    return frame.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def tourney_process(config: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "tourney", str(config), "--out", str(out), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=as_at_a_terminal,
    )  # fmt: skip


def wait_for_a_chunk(proc: subprocess.Popen, out: Path, name: str) -> None:
    """Until the run has stored a chunk (or ended)."""
    while proc.poll() is None and not list(out.glob(f"{name}/*/manifest.jsonl")):
        time.sleep(0.05)


@pytest.fixture
def reference(tmp_path) -> Path:
    return run_tournament(CONFIG_PY, out=tmp_path / "ref", workers=0).run_dir


def refuse_forks(monkeypatch, times: int, error: BaseException) -> list[int]:
    """The fork server refuses ``times`` starts (as a dead one does), then works."""
    real = forkserver.connect_to_new_process  # what popen_forkserver calls
    count = [0]

    def flaky(fds):
        count[0] += 1
        if count[0] <= times:
            raise error
        return real(fds)

    monkeypatch.setattr(forkserver, "connect_to_new_process", flaky)
    return count


@pytest.mark.parametrize(
    "error",
    [ConnectionRefusedError(111, "Connection refused"), EOFError("unexpected EOF")],
    ids=["refused", "died-mid-fork"],
)
def test_a_dead_fork_server_is_replaced_and_the_run_goes_on(
    tmp_path, monkeypatch, reference, error
):
    refuse_forks(monkeypatch, 1, error)
    run = run_tournament(CONFIG_PY, out=tmp_path / "out", workers=2)
    assert run.status == "complete"
    pd.testing.assert_frame_equal(games(run.run_dir), games(reference))
    assert (
        "the fork server that starts worker processes died" in (run.run_dir / "run.log").read_text()
    )


@pytest.mark.once
def test_a_fork_server_that_cannot_start_again_ends_the_run_resumably(tmp_path, monkeypatch, cli):
    config = tmp_path / "fs.yaml"
    config.write_text(json.dumps(CONFIG_PY))
    refuse_forks(monkeypatch, 10**6, ConnectionRefusedError(111, "Connection refused"))
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"), "--workers", "2")
    assert result.exit_code == 1, result.output
    error = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and "Traceback" not in result.output
    assert "the fork server that starts worker processes died" in error[0]
    assert "run the same command again to resume" in error[0]
    run_dir = next((tmp_path / "out" / "fs").iterdir())
    assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
    monkeypatch.undo()
    again = cli(
        "tourney", str(config), "--out", str(tmp_path / "out"), "--workers", "2", "--no-report"
    )
    assert again.exit_code == 0, again.output
    assert json.loads((run_dir / "run.json").read_text())["status"] == "complete"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
@pytest.mark.once
def test_killing_the_fork_server_mid_run_loses_nothing(tmp_path, reference, sig):
    config = tmp_path / "fs.yaml"
    config.write_text(json.dumps({**CONFIG_PY, "deals": 400, "chunk": 10}))
    out = tmp_path / "out"
    proc = tourney_process(config, out, "--workers", "2", "--no-report")
    try:
        server = None
        while server is None and proc.poll() is None:
            children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            for pid in children:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                if b"multiprocessing.forkserver" in cmdline:
                    server = int(pid)
            time.sleep(0.05)
        wait_for_a_chunk(proc, out, "fs")
        assert server is not None and proc.poll() is None, "the run ended too soon"
        os.kill(server, sig)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    run_dir = next((out / "fs").iterdir())
    assert json.loads((run_dir / "run.json").read_text())["status"] == "complete"
    assert len(games(run_dir)) == 400 * 3 * 2


REPORT_SIGNAL = """
import os, signal, sys, time
import harness.report.api as api
def write_report(*args, **kwargs):
    os.kill(os.getpid(), signal.{sig})
    time.sleep(10)
api.write_report = write_report
from harness.cli import main
main(["tourney", sys.argv[1], "--out", sys.argv[2], "--workers", "0"])
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGINT"])
@pytest.mark.once
def test_a_stop_signal_while_the_report_is_written_exits_130(tmp_path, sig):
    config = tmp_path / "c.yaml"
    config.write_text("entrants: [greedy, random]\ndeals: 2\n")
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(REPORT_SIGNAL.format(sig=sig)), str(config),
         str(tmp_path / "out")],
        cwd=ROOT, capture_output=True, text=True, timeout=60, preexec_fn=as_at_a_terminal,
    )  # fmt: skip
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert done.stderr.strip().splitlines()[-1] == "Interrupted."


def test_sigterm_while_playing_exits_130_and_resumes(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text(
        "import time\nfrom harness.strategy import Strategy\n"
        "class Slow(Strategy):\n"
        "    def new_game(self, seat, rules):\n        time.sleep(0.01)\n"
        "    def pick(self, view):\n        return max(view.choices)\n"
        "    def stop(self, view):\n        return True\n"
    )
    config = tmp_path / "c.yaml"
    config.write_text(f"name: c\nentrants: [greedy, {slow}:Slow]\ndeals: 400\nchunk: 4\n")
    out = tmp_path / "out"
    proc = tourney_process(config, out, "--workers", "1")
    try:
        wait_for_a_chunk(proc, out, "c")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    run_dir = next((out / "c").iterdir())
    assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
