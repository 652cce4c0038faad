"""The environments' settings as one checked value (issue 31, item 3).

The four environments each declared the same keywords (``max_turns=1000`` a literal in
one of them) and checked them each in its own way: a ``str`` whose ``__eq__`` lies passed
for any reward (the Python games then paid ``swing`` where the C slots paid ``margin``),
``record="yes"`` was taken, a numpy int was no turn cap, and ``settings=SeatSettings(
engine="python")`` was not heard. Now one frozen value (:class:`EnvSetup`) is checked
once, in one wording naming the key, and every environment takes it or its keywords.
"""

from __future__ import annotations

import ast
import dataclasses
import pickle
from pathlib import Path

import numpy as np
import pytest
from env_policies import random_masked
from helpers import NEEDS_NATIVE

pytest.importorskip("gymnasium", reason="the rl extra is not installed")

import harness.env  # noqa: E402
from harness.env.gym import PickominoEnv  # noqa: E402
from harness.env.setup import EnvSetup, EnvSetupError  # noqa: E402
from harness.env.single import SingleAgent  # noqa: E402
from harness.env.vector import VectorEnv  # noqa: E402
from harness.game.engine import DEFAULT_MAX_TURNS  # noqa: E402
from harness.seats.settings import SeatSettings, SettingsError  # noqa: E402

pytestmark = pytest.mark.engine


class LyingStr(str):
    """A str that says it equals anything."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


def aec(**kwargs):
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from harness.env.aec import PickominoAEC

    return PickominoAEC(2, **kwargs)


MAKERS = {
    "gym": lambda **k: PickominoEnv(["greedy"], **k),
    "vector": lambda **k: VectorEnv(2, ["greedy"], **k),
    "single": lambda **k: SingleAgent(["greedy"], **k),
    "aec": aec,
}


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and len(text) < 300, text
    return text


@pytest.mark.parametrize("where", MAKERS)
@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("reward", LyingStr("points"), "reward: expected one of margin, win, swing, got 'points'"),
        ("illegal", LyingStr("ignore"), "illegal: expected one of penalty, raise, got 'ignore'"),
        ("dice", LyingStr("loaded"), "dice: expected one of duplicate, independent, got"),
        ("record", "yes", "record: expected True or False, got 'yes'"),
        ("record", 1, "record: expected True or False, got 1"),
        ("max_turns", 0, "max_turns: 0; must be at least 1"),
        ("max_turns", 2.0, "max_turns: expected a whole number, got 2.0"),
        ("max_turns", 40_000, "max_turns: 40000; at most 32,767 (the stored turn count is"),
        ("illegal_reward", "1", "illegal_reward: expected a number, got '1'"),
        ("illegal_reward", float("nan"), "illegal_reward: expected a finite number, got nan"),
        ("illegal_reward", 10**400, "illegal_reward: expected a finite number, got <a number"),
        ("render_mode", LyingStr("human"), "render_mode: expected None or 'ansi', got 'human'"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_key_everywhere(where, key, value, expected):
    if where == "vector" and key in ("record", "render_mode"):
        expected = "unexpected keyword argument"  # the vector env keeps no records, draws none
    if where == "single" and key == "render_mode":
        expected = "unexpected keyword argument"
    with pytest.raises((ValueError, TypeError)) as info:
        MAKERS[where](**{key: value})
    assert expected in one_line(info.value)
    if not expected.startswith("unexpected"):
        assert isinstance(info.value, EnvSetupError) and info.value.key == key


def test_the_words_are_stored_plain_and_the_value_frozen():
    setup = EnvSetup(reward=LyingStr("win"), dice=LyingStr("independent"), seat=np.int8(1).item())
    assert (setup.reward, type(setup.reward), setup.dice, type(setup.dice)) == (
        "win", str, "independent", str
    )  # fmt: skip
    assert EnvSetup(max_turns=np.int64(40)).max_turns == 40  # numpy's ints are whole numbers
    assert EnvSetup(illegal_reward=np.float32(-0.5)).illegal_reward == -0.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.reward = "margin"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(setup)) == setup
    error = pickle.loads(pickle.dumps(EnvSetupError("seat", "expected 'rotate'")))
    assert isinstance(error, ValueError) and isinstance(error, SettingsError)


def test_one_default_turn_cap_the_engines():
    assert EnvSetup().max_turns == DEFAULT_MAX_TURNS
    assert PickominoEnv(["greedy"]).setup.max_turns == DEFAULT_MAX_TURNS
    assert VectorEnv(1, ["greedy"]).setup.max_turns == DEFAULT_MAX_TURNS
    assert aec().max_turns == DEFAULT_MAX_TURNS
    # and no environment declares a turn cap of its own: the keywords are the value's
    for path in Path(harness.env.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.arguments):
                names = [a.arg for a in (*node.args, *node.kwonlyargs)]
                assert "max_turns" not in names or path.name == "game.py", path


@pytest.mark.parametrize("where", MAKERS)
def test_setup_and_a_keyword_together_are_one_line(where):
    with pytest.raises(EnvSetupError) as info:
        MAKERS[where](setup=EnvSetup(), reward="win")
    assert one_line(info.value) == (
        "setup: given with reward; give the environment's setup once (setup=, or the keywords)"
    )
    with pytest.raises(EnvSetupError, match=r"^setup: expected an EnvSetup, got"):
        MAKERS[where](setup={"reward": "win"})


def test_a_setting_an_environment_does_not_play_by_is_one_line():
    with pytest.raises(EnvSetupError, match=r"^seat: 1; PickominoAEC does not play by it"):
        aec(setup=EnvSetup(seat=1))
    with pytest.raises(EnvSetupError, match=r"^record: True; VectorEnv does not play by it"):
        VectorEnv(1, ["greedy"], setup=EnvSetup(record=True))
    with pytest.raises(
        TypeError, match="PickominoAEC.. got an unexpected keyword argument 'engine'"
    ):
        aec(engine="python")


def test_the_seat_settings_are_the_seat_settings():
    with pytest.raises(EnvSetupError) as info:
        PickominoEnv(["greedy"], engine="gpu")
    assert str(info.value) == "engine: 'gpu' is not one of auto, python, native"
    with pytest.raises(SettingsError, match=r"^settings: given with engine;"):
        PickominoEnv(["greedy"], settings=SeatSettings(), engine="python")
    told = PickominoEnv(["greedy"], settings=SeatSettings(engine="python"))
    assert told.engine == "python"  # the value's engine is heard


@NEEDS_NATIVE
@pytest.mark.parametrize("engine", ["native", "python"])
def test_the_value_and_its_keywords_step_the_same_games(engine):
    keywords = dict(reward="swing", seat=1, max_turns=40, illegal_reward=-0.25)
    by_keywords = PickominoEnv(["tactician"], "french", engine=engine, **keywords)
    setup = EnvSetup(**keywords, settings=SeatSettings(engine=engine))
    by_value = PickominoEnv(["tactician"], "french", setup=setup)
    assert by_value.engine == by_keywords.engine == engine
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    obs_a, _ = by_keywords.reset(seed=3)
    obs_b, _ = by_value.reset(seed=3)
    for _ in range(60):
        assert (obs_a["observation"] == obs_b["observation"]).all()
        step_a = by_keywords.step(random_masked(rng_a, obs_a["action_mask"]))
        step_b = by_value.step(random_masked(rng_b, obs_b["action_mask"]))
        assert step_a[1:4] == step_b[1:4]
        obs_a, obs_b = step_a[0], step_b[0]
        if step_a[2] or step_a[3]:
            obs_a, _ = by_keywords.reset()
            obs_b, _ = by_value.reset()
