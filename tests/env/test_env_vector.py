"""The vector environment (issue 22, item 3): N games a call, in C and in Python alike.

* The C slots (harness/native/c/vecenv.inc.c) and N Python games (harness.env.single) give
  the same observations, masks, rewards, terminations, truncations and episodes bit for
  bit, step after step, with random masked actions and illegal ones, at 2-7 players,
  every preset and variant, both dice modes, every reward, a fixed seat and a turn cap.
* A slot's games are the Python engine's: the agent playing greedy's rule through the
  observation gives ``Game``'s greedy games on the same deal seeds (duplicate dice).
* Illegal actions: a penalty that changes nothing, or (``illegal="raise"``) an error
  before any slot moves. Auto-reset, schedules (``starts``, ``stride``) and bad input.

Needs numpy only (a core dependency); the comparisons with C skip where the extension is
not built (CI's fallback step), the rest runs there on the Python engine.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_policies import greedy_policy, random_masked

from harness import native
from harness.env.encoding import ACTIONS, OBS_SIZE, STOP
from harness.env.game import IllegalAction, Schedule
from harness.env.single import SingleAgent
from harness.env.vector import VectorEnv
from harness.game.dice import DuplicateDice, SeededDice
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import Rules
from harness.tourney.plan import deal_seed, game_seed

pytestmark = pytest.mark.engine

needs_native = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

CONFIGS = [
    dict(opponents=["greedy"]),
    dict(opponents=["tactician", "random", "optimal"], rules="french", reward="swing"),
    dict(
        opponents=[
            "worm-first",
            "simple",
            "env-heuristic",
            "threshold(target=26)",
            "random",
            "greedy",
        ],
        rules="piko-blog",
        reward="win",
        dice="independent",
    ),
    dict(
        opponents=["random", "greedy"],
        rules={"preset": "short", "bust_flip": "none"},
        seat=1,
        max_turns=40,
    ),
    dict(
        opponents=["optimal", "tactician", "random"],
        seating="cyclic",
        illegal_reward=-3.5,
        rules={"lower_tile": "any", "flip_without_tile": True, "bust_flip": "lowest"},
    ),
    dict(opponents=["random"] * 4, reward="swing", dice="independent", seat=3),
    # win-optimal's evaluator installed in C by the vector env's own door (its opponents)
    dict(opponents=["win-optimal", "optimal"], reward="win", dice="independent", seat=2),
]


def _same(a, b, where):
    for key in ("observation", "action_mask"):
        assert np.array_equal(a[key], b[key]), (where, key, np.argwhere(a[key] != b[key])[:5])


@needs_native
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{len(c['opponents']) + 1}p")
def test_c_and_python_step_the_same_games_bit_for_bit(cfg):
    n = 6
    c, py = VectorEnv(n, engine="native", **cfg), VectorEnv(n, engine="python", **cfg)
    assert (c.engine, py.engine) == ("native", "python")
    oc, ic = c.reset(seed=11)
    op, ip = py.reset(seed=11)
    rng = np.random.default_rng(5)
    ended = 0
    for step in range(1200):
        _same(oc, op, step)
        assert np.array_equal(ic["episode"], ip["episode"]) and np.array_equal(
            ic["seat"], ip["seat"]
        )
        masks = oc["action_mask"]
        # one step in nine is any action at all: illegal ones pay the penalty in both
        acts = rng.integers(0, ACTIONS, n) if step % 9 == 0 else random_masked(rng, masks)
        oc, rc, tc, trc, ic = c.step(acts)
        op, rp, tp, trp, ip = py.step(acts)
        assert rc.dtype == np.float32 and np.array_equal(rc, rp), (step, rc, rp)
        assert np.array_equal(tc, tp) and np.array_equal(trc, trp), step
        assert np.array_equal(ic["illegal_action"], ip["illegal_action"]), step
        ended += int(tc.sum() + trc.sum())
    assert ended >= 20  # many episodes began and ended on the way


def test_the_observation_arrays_have_the_documented_shapes():
    env = VectorEnv(3, ["greedy"], engine="python")
    obs, info = env.reset(seed=1)
    assert obs["observation"].shape == (3, OBS_SIZE) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (3, ACTIONS) and obs["action_mask"].dtype == np.int8
    assert list(info["episode"]) == [0, 1, 2]
    assert obs["action_mask"].sum(axis=1).min() >= 1  # a question with an answer


def _greedy_games(engine: str, players: int, rules: str, dice: str, episodes: int):
    """The first `episodes` games of one slot, the agent on greedy's rule."""
    opponents = ["tactician", "random", "optimal", "simple", "greedy", "worm-first"][: players - 1]
    env = VectorEnv(1, opponents, rules, dice=dice, engine=engine, autoreset=False)
    games = []
    for e in range(episodes):
        obs, info = env.reset(seed=3, starts=[e], stride=1)
        while True:
            obs, _, term, trunc, info = env.step(
                np.array([greedy_policy(obs["observation"][0], obs["action_mask"][0])])
            )
            if term[0] or trunc[0]:
                break
        board = env.board(0)
        games.append((board.turn, board.grill, board.flipped, board.stacks))
    return games, env.schedule


@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize(
    ("players", "rules", "dice"),
    [
        (2, "official", "duplicate"),
        (3, "french", "independent"),
        (5, "piko-blog", "duplicate"),
        (7, "short", "independent"),
    ],
)
def test_a_slot_plays_the_engines_games_on_the_tournaments_deal_seeds(engine, players, rules, dice):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    games, schedule = _greedy_games(engine, players, rules, dice, 2 * players)
    opponents = ["tactician", "random", "optimal", "simple", "greedy", "worm-first"][: players - 1]
    for e, (turns, grill, flipped, stacks) in enumerate(games):
        ep = schedule.episode(3, e)
        entrants = ["greedy", *opponents]
        seats = [resolve(entrants[i]).create() for i in ep.seats]
        dseed = deal_seed(3, e // len(schedule.orders))
        source = DuplicateDice(dseed) if dice == "duplicate" else SeededDice(ep.game_seed)
        if dice == "independent":
            assert ep.game_seed == game_seed(dseed, ep.order, "independent")
        result = Game(seats, Rules.coerce(rules, players), source, seed=ep.game_seed).play()
        assert (turns, list(grill), list(flipped), [list(s) for s in stacks]) == (
            result.turns,
            result.grill,
            result.flipped,
            result.stacks,
        ), e


@pytest.mark.parametrize("engine", ["native", "python"])
def test_an_illegal_action_pays_the_penalty_and_changes_nothing(engine):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    env = VectorEnv(4, ["greedy", "random"], engine=engine, illegal_reward=-2.5)
    obs, _ = env.reset(seed=9)
    before = {k: v.copy() for k, v in obs.items()}
    bad = np.array([np.flatnonzero(m == 0)[0] for m in before["action_mask"]])
    obs, rewards, term, trunc, info = env.step(bad)
    _same(obs, before, "after illegal actions")
    assert list(rewards) == [-2.5] * 4 and info["illegal_action"].all()
    assert not term.any() and not trunc.any()
    for wild in (-1, 24, 10**12):  # out of range: illegal too, never a crash
        obs, rewards, *_ = env.step(np.full(4, wild))
        _same(obs, before, wild)


@pytest.mark.parametrize("engine", ["native", "python"])
def test_illegal_raise_moves_no_slot(engine):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    env = VectorEnv(3, ["greedy"], engine=engine, illegal="raise")
    obs, _ = env.reset(seed=2)
    before = obs["observation"].copy()
    acts = random_masked(np.random.default_rng(0), obs["action_mask"])
    acts[2] = np.flatnonzero(obs["action_mask"][2] == 0)[0]
    with pytest.raises(IllegalAction, match="slot 2: action"):
        env.step(acts)
    assert np.array_equal(env.observations, before)  # slots 0 and 1 did not move either
    acts[2] = random_masked(np.random.default_rng(0), obs["action_mask"][2:])[0]
    env.step(acts)  # legal: fine


@pytest.mark.parametrize("engine", ["native", "python"])
def test_autoreset_starts_each_slots_next_episode_by_stride(engine):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    env = VectorEnv(2, ["greedy"], engine=engine)
    obs, info = env.reset(seed=4, starts=[5, 5], stride=3)
    assert list(info["episode"]) == [5, 5]
    rng = np.random.default_rng(1)
    seen = [[5], [5]]
    for _ in range(400):
        obs, _, term, trunc, info = env.step(random_masked(rng, obs["action_mask"]))
        for j in range(2):
            if term[j] or trunc[j]:
                seen[j].append(int(info["episode"][j]))
    short, long = sorted(seen, key=len)
    assert long[:4] == [5, 8, 11, 14] and long[: len(short)] == short  # one schedule


def test_without_autoreset_an_ended_episode_must_be_reset():
    env = VectorEnv(1, ["greedy"], engine="python", autoreset=False)
    obs, _ = env.reset(seed=1)
    while True:
        obs, _, term, trunc, _ = env.step(
            np.array([greedy_policy(obs["observation"][0], obs["action_mask"][0])])
        )
        if term[0] or trunc[0]:
            break
    assert obs["action_mask"].sum() == 0  # the final board: nothing to answer
    with pytest.raises(ValueError, match="reset"):
        env.step(np.array([STOP]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(num_envs=0), "num_envs"),
        (dict(reward="score"), "reward: expected one of margin, win, swing"),
        (dict(dice="loaded"), "dice: expected one of duplicate, independent"),
        (dict(illegal="ignore"), "illegal"),
        (dict(seat=5), "seat"),
        (dict(engine="gpu"), "engine"),
        (dict(seating="shuffled"), "seating"),
        (dict(max_turns=0), "max_turns"),
    ],
)
def test_bad_settings_are_one_line(kwargs, message):
    settings = dict(num_envs=2, opponents=["greedy"]) | kwargs
    with pytest.raises(ValueError, match=message) as caught:
        VectorEnv(**settings)
    assert "\n" not in str(caught.value)


def test_engine_native_refuses_a_plugin_opponent_in_one_line():
    if not native.available():
        pytest.skip("the native engine is not built")
    with pytest.raises(ValueError, match="engine native: .*no native version"):
        VectorEnv(2, ["examples/my_bot.py:WormHunter"], engine="native")
    env = VectorEnv(2, ["examples/my_bot.py:WormHunter"])  # auto: the Python engine
    assert env.engine == "python"


def test_bad_actions_and_schedules_are_refused():
    env = VectorEnv(2, ["greedy"], engine="python")
    with pytest.raises(ValueError, match="before reset"):
        env.step(np.zeros(2, np.int64))
    env.reset(seed=1)
    with pytest.raises(ValueError, match="2 ints"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="2 ints"):
        env.step(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="starts"):
        env.reset(seed=1, starts=[-1, 0])
    with pytest.raises(ValueError, match="stride"):
        env.reset(seed=1, stride=0)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=2**64)


def test_the_schedule_rotates_the_agent_through_the_design():
    sched = Schedule(3)
    seats = [sched.episode(1, e).agent_seat for e in range(6)]
    assert sorted(seats) == [0, 0, 1, 1, 2, 2]  # balanced at 3: all six orders
    assert {sched.episode(1, e).deal for e in range(6)} == {0}
    fixed = Schedule(4, seat=2)
    assert [fixed.episode(1, e).agent_seat for e in range(3)] == [2, 2, 2]
    assert [fixed.episode(1, e).deal for e in range(3)] == [0, 1, 2]


def test_python_slots_are_single_agents():
    one = SingleAgent(["greedy"])
    assert one.reset(7, 0) == 0
    obs, mask = one.observe()
    env = VectorEnv(1, ["greedy"], engine="python")
    o, _ = env.reset(seed=7)
    assert np.array_equal(o["observation"][0], obs) and np.array_equal(o["action_mask"][0], mask)


def test_docs_rl_lists_every_observation_field_in_order():
    import re
    from pathlib import Path

    from harness.env.encoding import FIELDS, OFFSETS

    text = (Path(__file__).parents[2] / "docs" / "rl.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| (\d+)-(\d+) \| (\d+) \|", text, re.M)
    assert [(n, int(a), int(b), int(s)) for n, a, b, s in rows] == [
        (name, OFFSETS[name], OFFSETS[name] + size - 1, size) for name, size, _ in FIELDS
    ]
    assert sum(size for _, size, _ in FIELDS) == OBS_SIZE == 205
