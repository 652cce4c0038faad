"""The environments at their edges (issue 30, item 4.2): what a long training run, a
typo or a loop that does not look at ``terminated`` meets, each one clear line.

* Episode numbers are int64s: past 2**63 - 1 the next episode is refused, never
  wrapped to a negative number (C slots and the Python fallback alike).
* ``illegal_reward`` is a finite number (a NaN would poison every return it meets).
* After the end: the Gymnasium env raises Gymnasium's ``ResetNeeded``; the PettingZoo
  env, stepped once every agent is out, warns as PettingZoo's own wrapper does and
  changes nothing.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.engine

gymnasium = pytest.importorskip("gymnasium", reason="the rl extra is not installed")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed")

from helpers import NEEDS_NATIVE  # noqa: E402

from harness.env.aec import env  # noqa: E402
from harness.env.gym import PickominoEnv  # noqa: E402
from harness.env.vector import VectorEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

LAST = 2**63 - 1
ENGINES = [pytest.param("native", marks=NEEDS_NATIVE), "python"]


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("engine", ENGINES)
def test_the_episode_after_the_last_number_is_refused_not_wrapped(engine):
    vec = VectorEnv(1, ["greedy"], engine=engine)
    obs, info = vec.reset(seed=1, starts=[LAST], stride=1)
    assert info["episode"][0] == LAST
    with pytest.raises(ValueError, match=r"slot 0: its next episode is past .* 2\*\*63 - 1"):
        for _ in range(5000):  # one episode is a few dozen agent steps
            obs, _, _, _, info = vec.step(np.array([first_legal(obs["action_mask"][0])]))
            assert info["episode"][0] >= 0  # never wrapped to a negative number
    with pytest.raises(ValueError, match="stride: expected an int from 1 to 2\\*\\*63 - 1"):
        vec.reset(seed=1, stride=2**63)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_gymnasium_episode_past_the_last_number_is_one_line(engine):
    game = PickominoEnv(["greedy"], engine=engine)
    with pytest.raises(ValueError, match=r"reset: episode 9223372036854775808 is past") as err:
        game.reset(seed=1, options={"episode": LAST + 1})
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), "x", None])
def test_illegal_reward_is_a_finite_number(bad):
    for make in (
        lambda: PickominoEnv(["greedy"], illegal_reward=bad),
        lambda: VectorEnv(2, ["greedy"], illegal_reward=bad),
        lambda: env(players=2, illegal_reward=bad),
    ):
        with pytest.raises(ValueError, match="illegal_reward: expected a") as err:
            make()
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("engine", ENGINES)
def test_gymnasium_step_after_the_end_raises_reset_needed(engine):
    game = PickominoEnv(["greedy"], engine=engine)
    with pytest.raises(gymnasium.error.ResetNeeded, match="call reset"):
        game.step(0)
    obs, _ = game.reset(seed=3)
    done = False
    while not done:
        obs, _, term, trunc, _ = game.step(first_legal(obs["action_mask"]))
        done = term or trunc
    with pytest.raises(gymnasium.error.ResetNeeded, match="after the episode ended"):
        game.step(0)
    game.reset()  # and it goes on as before
    assert game.step(first_legal(game.action_masks()))[4]["episode"] == 1


def test_pettingzoo_step_after_every_agent_is_out_warns_and_does_nothing(caplog):
    game = env(players=3)
    with pytest.raises(AssertionError, match="reset"):
        game.step(None)
    game.reset(seed=2)
    for _agent in game.agent_iter():
        obs, _, term, trunc, _ = game.last()
        game.step(None if term or trunc else first_legal(obs["action_mask"]))
    assert not game.agents
    with caplog.at_level(logging.WARNING):
        assert game.step(None) is None
        assert game.step(3) is None
    assert "step() called after all agents are terminated or truncated" in caplog.text
    game.reset(seed=2)
    assert game.agents == game.possible_agents


def test_gymnasium_make_as_the_docs_write_it_works_in_a_fresh_process():
    """Every ``gymnasium.make(...)`` id of docs/rl.md (but the peer's) makes the env in a
    fresh interpreter that imported nothing of harness (issue 30, item 4.8); the bare id
    after ``import harness.env.gym`` too."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "rl.md").read_text()
    ids = set(re.findall(r'gymnasium\.make\(\s*"([^"]*harness[^"]*)"', doc))
    assert ids, "docs/rl.md shows gymnasium.make"
    snippets = [f"import gymnasium\nenv = gymnasium.make({i!r}, opponents=['greedy'])" for i in ids]
    snippets.append(
        "import gymnasium, harness.env.gym\n"
        "env = gymnasium.make('harness/Pickomino-v0', opponents=['greedy'])"
    )
    for code in snippets:
        code += "\nobs, info = env.reset(seed=1)\nprint(info['deal'], env.unwrapped.engine)"
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd="/"
        )
        assert done.returncode == 0 and done.stdout.split()[0] == "0", (code, done.stderr[-500:])


# -- how many games: what the slots need (issue 30, item 4.1) ----------------------------------
def rss() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_more_games_than_the_bound_are_one_line():
    from harness.env.vector import MAX_ENVS

    for bad in (0, MAX_ENVS + 1, 1 << 20, 2.0, True):
        with pytest.raises(ValueError, match="num_envs: expected 1 to 65,536 games") as err:
            VectorEnv(bad, ["greedy"])
        assert "\n" not in str(err.value)


@NEEDS_NATIVE
def test_games_that_would_not_fit_in_memory_are_one_line(monkeypatch):
    """The slots may take half the memory available now: here 200 MB is available, and
    10,000 slots of about 43 kB need 430 MB (main built them: 52 kB each, unchecked)."""
    monkeypatch.setattr("harness.env.vector.available_memory", lambda: 200 * 2**20)
    with pytest.raises(MemoryError, match=r"num_envs: 10,000 games x [\d,]+ bytes = 0\.\d+ GiB"):
        VectorEnv(10_000, ["greedy"], engine="native")
    assert VectorEnv(1_000, ["greedy"]).engine == "native"  # 43 MB: fits


@NEEDS_NATIVE
@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="Linux")
@pytest.mark.parametrize("players", [2, 7])
def test_the_memory_a_slot_is_said_to_take_is_what_it_takes(players):
    """slot_bytes (what the bound and docs/rl.md use) is the C side's sizeof count: it
    must match what the slots really hold once playing, within a fifth. Measured in a
    fresh process (benchmarks/vecenv_memory.py's): in this one, memory that earlier tests
    freed is reused and the resident size need not grow at all."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from vecenv_memory import measure
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    held, said = measure(2048, players, "native", steps=100)
    assert 0.8 * said <= held <= 1.2 * said, (held, said)
