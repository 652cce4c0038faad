"""The environments hold their opponents as a tournament does (issue 30, item 4.3).

A Gymnasium env whose opponent looped never returned from ``step``; one that called
``os._exit`` ended the learner's process. Now the seat settings (``move_time``,
``game_time``, ``isolation``, or ``settings=SeatSettings(...)``) apply to the opponents
of the Gymnasium env and of the vector env's Python games: an opponent that loops (in
Python or in C), raises, exits its process or prints is that opponent's forfeit or its
labelled stderr, the episode ends with the reason in ``info``, the next one plays on.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import CRASH, HOSTILE, NEEDS_NATIVE, TIME

pytest.importorskip("gymnasium", reason="the rl extra is not installed")

from harness.env.gym import PickominoEnv  # noqa: E402
from harness.env.opponents import MAX_SEAT_PROCESSES  # noqa: E402
from harness.env.vector import VectorEnv  # noqa: E402
from harness.seats.settings import SeatSettings, SettingsError  # noqa: E402

pytestmark = [pytest.mark.interpreter, pytest.mark.usefixtures("deadline")]


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def play_episode(env: PickominoEnv, seed: int = 1) -> dict:
    obs, info = env.reset(seed=seed)
    for _ in range(5000):
        obs, _, term, trunc, info = env.step(first_legal(obs["action_mask"]))
        if term or trunc:
            return info
    raise AssertionError("the episode did not end")


@pytest.mark.parametrize(
    ("bot", "limits", "says"),
    [
        # a loop in C code: only a process of its own can be stopped (a time limit moves
        # a plugin there by itself)
        (f"{TIME}:CLoopInPick", {"move_time": 0.3}, "over move_time 0.3 s"),
        (f"{TIME}:DisarmsTheTimer", {"move_time": 0.3}, "over move_time 0.3 s"),
        (f"{CRASH}:ExitsInPick", {"isolation": "process"}, "its process died (exit code 3)"),
        (f"{CRASH}:ExitsInPick", {"settings": SeatSettings(move_time=5)}, "its process died"),
        (f"{CRASH}:RaisesInPick", {"isolation": "process"}, "raised"),
    ],
)
def test_an_opponent_that_loops_exits_or_raises_forfeits_and_the_learner_goes_on(bot, limits, says):
    env = PickominoEnv([bot], **limits)
    try:
        assert env.engine == "python"
        info = play_episode(env)
        assert info["status"] == "forfeit" and says in info["error"], info
        assert info["ranks"][1 - info["seat"]] == 2  # the opponent, ranked last
        again = play_episode(env, seed=2)  # a fresh process for the next episode
        assert again["status"] == "forfeit"
    finally:
        env.close()


def test_what_an_isolated_opponent_prints_goes_to_stderr_labelled(capfd):
    env = PickominoEnv([f"{HOSTILE}/workers_chatty.py:Chatty"], isolation="process")
    try:
        info = play_episode(env)
    finally:
        env.close()
    out, err = capfd.readouterr()
    assert info["status"] == "over" and "hello from seat" not in out
    assert "workers_chatty.py:Chatty] hello from seat" in err


def test_the_vector_envs_python_games_hold_their_opponents_too():
    # seat 0: the agent's question comes first, so each episode ends at the opponent's
    # first turn (an episode it forfeits before the agent is asked anything is skipped)
    vec = VectorEnv(2, [f"{TIME}:CLoopInPick"], seat=0, move_time=0.3)
    try:
        assert vec.engine == "python"
        obs, _ = vec.reset(seed=1)
        ended = np.zeros(2, bool)
        for _ in range(5000):
            actions = np.array([first_legal(m) for m in obs["action_mask"]])
            obs, _, term, trunc, _ = vec.step(actions)
            ended |= term | trunc
            if ended.all():
                break
        assert ended.all()  # each slot's episode ended: the loop was the opponent's forfeit
    finally:
        vec.close()


def test_opponent_processes_are_bounded_in_one_line():
    with pytest.raises(ValueError, match=f"at most {MAX_SEAT_PROCESSES}") as err:
        VectorEnv(MAX_SEAT_PROCESSES + 1, [f"{CRASH}:RaisesInPick"], isolation="process")
    assert "\n" not in str(err.value)


def test_limits_are_checked_in_the_seat_settings_words_and_keep_to_python():
    with pytest.raises(SettingsError, match="move_time"):
        PickominoEnv(["greedy"], move_time=0)
    with pytest.raises(SettingsError, match="settings"):
        PickominoEnv(["greedy"], settings=SeatSettings(), move_time=1)
    assert PickominoEnv(["greedy"], move_time=1).engine == "python"


@NEEDS_NATIVE
def test_engine_native_under_limits_is_one_line():
    for make in (PickominoEnv, lambda *a, **k: VectorEnv(2, *a, **k)):
        with pytest.raises(ValueError, match="engine native: seat limits"):
            make(["greedy"], engine="native", move_time=1)
