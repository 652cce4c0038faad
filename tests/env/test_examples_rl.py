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


def test_the_trainer_writes_an_agent_that_plays(tmp_path):
    out = tmp_path / "agent.py"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples/rl/train.py"),
            "--generations",
            "2",
            "--population",
            "2",
            "--deals",
            "3",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "generation    1" in done.stdout and f"wrote {out}" in done.stdout
    agent = resolve(f"{out}:TrainedAgent").create()
    assert agent.w.shape == (206, 24) and agent.w.any()  # trained: not the zero start
    result = play_game([agent, "greedy"], seed=3)
    assert result.over and result.error is None


def test_the_shipped_agent_plays_in_a_game():
    agent = resolve(f"{ROOT / 'examples/rl/agent.py'}:TrainedAgent").create()
    result = play_game([agent, "random"], seed=1)
    assert result.over and result.error is None
