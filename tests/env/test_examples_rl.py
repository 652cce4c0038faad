"""examples/rl (issue 22, item 5), as a smoke run: the trainer runs a handful of steps on
the vector environment and writes an agent that plays as a harness strategy, in a game
and in a tournament by file reference. The full run is the documented command
(``python examples/rl/train.py``); this needs numpy only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness import play_game
from harness.plugins import resolve

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[2]


TINY = ["--generations", "2", "--population", "2", "--deals", "3"]


def train(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "examples/rl/train.py"), *TINY, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_the_trainer_writes_an_agent_that_plays(tmp_path):
    out = tmp_path / "agent.py"
    done = train(tmp_path, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "generation    1" in done.stdout and f"wrote {out}" in done.stdout
    agent = resolve(f"{out}:TrainedAgent").create()
    assert agent.w.shape == (206, 24) and agent.w.any()  # trained: not the zero start
    result = play_game([agent, "greedy"], seed=3)
    assert result.over and result.error is None


def test_the_trainer_leaves_the_shipped_agent_and_existing_files_alone(tmp_path):
    """By default a new file in the current folder; an existing file only with --force
    (the tracked examples/rl/agent.py was overwritten by every run)."""
    shipped = ROOT / "examples/rl/agent.py"
    before = shipped.read_bytes()
    done = train(tmp_path)
    assert done.returncode == 0, done.stderr
    made = tmp_path / "agent_trained.py"
    assert made.is_file() and shipped.read_bytes() == before
    first = made.read_bytes()
    again = train(tmp_path, "--seed", "2")  # refused before any training
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr.strip() == (
        "agent_trained.py exists: give another --out, or --force to overwrite it"
    )
    assert made.read_bytes() == first
    forced = train(tmp_path, "--seed", "2", "--force")
    assert forced.returncode == 0, forced.stderr
    assert made.read_bytes() != first  # another seed, other weights


def test_the_shipped_agent_plays_in_a_game():
    agent = resolve(f"{ROOT / 'examples/rl/agent.py'}:TrainedAgent").create()
    result = play_game([agent, "random"], seed=1)
    assert result.over and result.error is None
