"""benchmarks/dask_vs_local.py counts the CPU of the whole process tree (issue 30, item 6).

The local backend's workers are forked by a fork server that outlives the run, so the
CPU of the children this process reaped (``getrusage(RUSAGE_CHILDREN)``) never held
theirs, and the script reported more games per CPU-second than a worker can play. Here
a grandchild reaped by a live child is counted, and a local run's CPU holds its workers'
(the chunks' own CPU, which the manifest stores) besides this process's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.tourney import load_config

pytestmark = [
    pytest.mark.interpreter,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)"),
]
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "dask_vs_local.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("dask_vs_local", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUSY = """
import os, time
pid = os.fork()
if pid == 0:
    while time.process_time() < 0.3:
        pass
    os._exit(0)
os.waitpid(pid, 0)
print("reaped", flush=True)
input()  # alive, as a fork server is, until told
"""


def test_a_grandchild_reaped_by_a_live_child_counts(bench):
    before = bench.tree_cpu()
    child = subprocess.Popen(
        [sys.executable, "-c", BUSY], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "reaped"
        assert bench.tree_cpu() - before >= 0.28  # the grandchild's 0.3 CPU-s, in its reaper
    finally:
        child.communicate("\n", timeout=60)


def _own_cpu() -> float:
    """This process's own user and system CPU seconds."""
    own = os.times()
    return own.user + own.system


def test_a_local_runs_cpu_holds_its_workers(bench, tmp_path):
    config = load_config(
        {
            "name": "cpu",
            "entrants": ["greedy", "random"],
            "deals": 400,
            "chunk": 100,
            "seed": 1,
            "engine": "python",  # chunks of a few tenths of a CPU-second, in the workers
        }
    )
    # Not a time budget: the tree's CPU must hold this process's and the workers' parts.
    started = _own_cpu()
    games, cpu, _ = bench.measure(config, "local", 2, str(tmp_path))
    here = _own_cpu() - started
    run_dir = next(tmp_path.glob("cpu/*/manifest.jsonl")).parent
    chunks = sum(json.loads(line)["cpu"] for line in (run_dir / "manifest.jsonl").open())
    assert games == 800 and chunks > 0.1
    assert cpu >= here + 0.8 * chunks, (cpu, here, chunks)  # ticks of 10 ms a process
